"""Graphs built by calling the functional faces, in the spirit of DirectMLX.

DirectML ships DirectMLX (``Libraries/DirectMLX.h``) so that a graph is written as
operator calls on symbolic tensors, each call inferring its output tensors and wiring
its edges. :class:`GraphBuilder` is that for dmljax: its inputs are symbolic
:class:`GraphTensor` objects; any functional face called on one (``dml.gather(x, idx,
axis=0)``, or ``g.gather(...)``) coerces its arguments as it always does, checks them
with :func:`jax.eval_shape`, turns the call into its operator's desc (the face's
``graph_node``), checks that desc with the operator's rules at the builder's feature
level, and returns the node's outputs. Concrete arrays among the arguments become
constant nodes. :meth:`GraphBuilder.build` numbers the nodes and edges into a
:class:`dmljax.GraphDesc`.

>>> import jax.numpy as jnp, dmljax as dml
>>> g = dml.GraphBuilder()
>>> x = g.input(dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(3, 2)))
>>> rows = dml.gather(x, jnp.array([2, 0]), axis=0)
>>> rows.shape
(2, 2)
>>> g.compile([dml.tile(rows, (1, 2))])(jnp.arange(6.0).reshape(3, 2))
(Array([[4., 5., 4., 5.],
       [0., 1., 0., 1.]], dtype=float32),)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, cast

import jax
import numpy as np
from jax.core import Tracer

from dmljax._src import contract
from dmljax._src.compile import operator_for
from dmljax._src.contract import Role
from dmljax._src.dtypes import DataType
from dmljax._src.face import Arrays, FunctionalFace, Symbolic
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.graph import (
    CONSTANT_NODES_SINCE,
    CompiledGraph,
    ConstantDataGraphNodeDesc,
    GraphDesc,
    InputGraphEdgeDesc,
    IntermediateGraphEdgeDesc,
    OperatorGraphNodeDesc,
    OutputGraphEdgeDesc,
    compile_graph,
    slots as graph_slots,
)
from dmljax._src.node_call import NodeCall
from dmljax._src.ops import OPERATORS
from dmljax._src.ops.diagonal_matrix import GENERATED_FACE, diagonal_matrix
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import ArgumentError, ArgumentTypeError, InvalidArgumentError

__all__ = ["GraphBuilder", "GraphTensor"]

_OP = "GraphBuilder"
# The functions a builder offers as methods: every functional face's.
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    op.face.function.__name__: op.face.function for op in OPERATORS if op.face is not None
}


class GraphTensor(Symbolic):
    """A tensor of a graph being built: a graph input, a constant or a node's output.

    It has the shape and dtype of its DirectML tensor desc (a node's output is the
    face's result, with leading 1s where the operator wants one rank for all its
    tensors) and no values: pass it to the functional faces.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> g = dml.GraphBuilder()
    >>> x = g.input(jnp.zeros((2, 3), jnp.float16))
    >>> x, dml.gather(x, jnp.array(1), axis=0)
    (GraphTensor(float16[2, 3], input 0), GraphTensor(float16[1, 3], node 1 output 0))
    """

    def __init__(self, builder: GraphBuilder, desc: TensorDesc, source: tuple[int | None, int]):
        self.builder = builder
        self.desc = desc
        self.source = source
        """``(None, i)`` for graph input ``i``; ``(k, j)`` for output ``j`` of node ``k``."""

    @property
    def shape(self) -> tuple[int, ...]:
        return self.desc.sizes

    @property
    def ndim(self) -> int:
        return len(self.desc.sizes)

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.desc.data_type.dtype

    def __repr__(self) -> str:
        node, index = self.source
        where = f"input {index}" if node is None else f"node {node} output {index}"
        return f"GraphTensor({self.dtype}{list(self.shape)}, {where})"

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise ArgumentTypeError(
            _OP, "tensor", "passed to dmljax's functions (it has no values until the graph "
            "runs)", repr(self),
        )  # fmt: skip

    def add_node(
        self, face: FunctionalFace, arrays: tuple[Any, ...], statics: tuple[Any, ...]
    ) -> Any:
        return self.builder.add_node(face, arrays, statics)


@dataclasses.dataclass(frozen=True)
class _Node:
    desc: OperatorGraphNodeDesc | ConstantDataGraphNodeDesc
    feeds: tuple[tuple[int, GraphTensor], ...]  # (node input slot, the tensor feeding it)


class GraphBuilder(Symbolic):
    """A :class:`dmljax.GraphDesc` written as calls of the functional faces.

    Args:
        feature_level: the level every node is checked at, and the graph compiled at.

    ``g.input(spec)`` adds a graph input (a :class:`TensorDesc`, or an array or
    :class:`jax.ShapeDtypeStruct` whose shape and dtype it takes). Any functional face
    called on the tensors adds a node; ``g.<function>(...)`` (``g.gather``, ``g.pad``,
    ...) is the same function (typed code calls these: the faces are typed for arrays),
    and ``g.diagonal_matrix(jax.ShapeDtypeStruct(...))`` makes a node without an array.
    A call on concrete arrays alone runs as it always does. Errors name the call and the
    node (``dmljax.pad (graph node 1)``); a node breaking its operator's rules is
    refused at its call, before any edge is wired, and leaves the graph as it was.
    Concrete arrays become :class:`ConstantDataGraphNodeDesc` nodes (FL 6_2).
    :meth:`build` numbers the graph's nodes in the order of the calls and its edges for
    you; :meth:`compile` compiles it, with ``deterministic=True`` if any call asked for
    it. A graph input is bound as the first node input it feeds; an array whose shape
    differs from that only in dimensions of 1 is taken as it is.

    >>> import jax, jax.numpy as jnp, dmljax as dml
    >>> g = dml.GraphBuilder()
    >>> x = g.input(jax.ShapeDtypeStruct((4,), jnp.int32))
    >>> a, b = dml.split(dml.pad(x, (1,), (1,), value=9), (2, 4), axis=0)
    >>> graph = g.build([b, a])
    >>> len(graph.nodes), len(graph.intermediate_edges), graph.output_count
    (2, 1, 2)
    >>> g.compile([b, a])(jnp.array([1, 2, 3, 4]))
    (Array([2, 3, 4, 9], dtype=int32), Array([9, 1], dtype=int32))
    """

    def __init__(self, feature_level: FeatureLevel | int = FeatureLevel.LATEST) -> None:
        self.feature_level = FeatureLevel.coerce(feature_level, op=_OP)
        self._inputs: list[GraphTensor] = []
        self._nodes: list[_Node] = []
        self._deterministic = False
        self._allow_half_precision = False

    def __repr__(self) -> str:
        return (
            f"GraphBuilder({self.feature_level}, {len(self._inputs)} inputs, "
            f"{len(self._nodes)} nodes)"
        )

    def input(self, spec: Any) -> GraphTensor:
        """A new graph input: ``spec`` is its :class:`TensorDesc`, or an array or
        :class:`jax.ShapeDtypeStruct` of its shape and dtype (1 to 8 dimensions)."""
        if isinstance(spec, TensorDesc):
            desc = spec
        elif hasattr(spec, "shape") and hasattr(spec, "dtype"):
            with _named(f"{_OP}.input"):
                data_type = DataType.from_dtype(spec.dtype)
                desc = TensorDesc(data_type=data_type, sizes=tuple(spec.shape))
        else:
            raise ArgumentTypeError(
                f"{_OP}.input", "spec", "a TensorDesc, an array or a jax.ShapeDtypeStruct",
                type(spec).__name__,
            )  # fmt: skip
        tensor = GraphTensor(self, desc, (None, len(self._inputs)))
        self._inputs.append(tensor)
        return tensor

    def __getattr__(self, name: str) -> Callable[..., Any]:
        function = _FUNCTIONS.get(name)
        if function is None:
            raise AttributeError(f"GraphBuilder has no attribute {name!r}")
        return function

    def diagonal_matrix(
        self, x: Any, *, value: Any = 1, fill_begin: int = 0, fill_end: int = 1
    ) -> Any:
        """:func:`dmljax.diagonal_matrix` as a node, of a graph tensor or of a
        :class:`jax.ShapeDtypeStruct` (the one call that makes a node without an array:
        DIAGONAL_MATRIX1 without an input tensor)."""
        if isinstance(x, jax.ShapeDtypeStruct):
            return GENERATED_FACE.as_node(self, x.shape, x.dtype, value, fill_begin, fill_end)
        return diagonal_matrix(x, value=value, fill_begin=fill_begin, fill_end=fill_end)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *_FUNCTIONS})

    # --- Nodes ------------------------------------------------------------------------------------

    def add_node(
        self, face: FunctionalFace, arrays: tuple[Any, ...], statics: tuple[Any, ...]
    ) -> Any:
        """``face`` called with ``arrays`` and coerced ``statics``, as a node (after the
        constant nodes of its concrete arrays); nothing is added if the call is refused."""
        constants: list[_Node] = []
        tensors = tuple(
            tuple(
                self._tensor(a, f"{spec.name}[{i}]", face.op, constants)
                for i, a in enumerate(value)
            )
            if isinstance(spec, Arrays)
            else None
            if value is None and spec.optional  # a tensor left out (a zero point)
            else self._tensor(value, spec.name, face.op, constants)
            for spec, value in zip(face.array_specs, arrays, strict=True)
        )
        k = len(self._nodes) + len(constants)
        where = f"{face.op} (graph node {k})"
        if face.graph_node is None:
            raise InvalidArgumentError(
                where, ", ".join(s.name for s in face.array_specs),
                "arguments a DirectML operator takes", "a call no operator desc expresses",
                hint="Pass the constant as a Python number (value=), as DirectML holds it.",
            )  # fmt: skip
        is_tensor = lambda t: isinstance(t, GraphTensor)
        shapes = jax.tree.map(
            lambda t: jax.ShapeDtypeStruct(t.shape, jax.dtypes.canonicalize_dtype(t.dtype)),
            tensors,
            is_leaf=is_tensor,
        )
        named_statics = {spec.name: v for spec, v in zip(face.static_specs, statics, strict=True)}
        with _named(where):
            result = jax.eval_shape(lambda *xs: face.dispatch.jitted(*xs, *statics), *shapes)
            results = result if isinstance(result, tuple) else (result,)
            call = NodeCall(
                arrays={
                    spec.name: jax.tree.map(lambda t: t.desc, value, is_leaf=is_tensor)
                    for spec, value in zip(face.array_specs, tensors, strict=True)
                },
                statics=named_statics,
                outputs=tuple(
                    TensorDesc(data_type=DataType.from_dtype(r.dtype), sizes=r.shape)
                    for r in results
                ),
                feature_level=self.feature_level,
            )
            desc = face.graph_node(call)
            operator_for(desc).validate(desc, self.feature_level)
        # A face's compile options are the whole graph's, as DirectML's flags are.
        self._deterministic |= bool(named_statics.get("deterministic"))
        self._allow_half_precision |= bool(named_statics.get("allow_half_precision"))
        node = OperatorGraphNodeDesc(operator=desc)
        flat = jax.tree.leaves(tensors, is_leaf=is_tensor)
        slots = [j for j, s in enumerate(graph_slots(node, Role.INPUT)) if s.tensor is not None]
        assert len(slots) == len(flat), (face.op, slots, flat)
        self._nodes += [*constants, _Node(node, tuple(zip(slots, flat, strict=True)))]
        outputs = tuple(
            GraphTensor(self, tensor, (k, j))
            for j, (_, tensor) in enumerate(contract.bound_tensors(desc, Role.OUTPUT))
        )
        return outputs if isinstance(result, tuple) else outputs[0]

    def _tensor(self, value: Any, field: str, op: str, constants: list[_Node]) -> GraphTensor:
        """A face's array argument as a tensor of this graph: a concrete array as a
        constant node, added to ``constants`` (the call's, kept if the call is)."""
        if isinstance(value, GraphTensor):
            if value.builder is not self:
                raise InvalidArgumentError(
                    op, field, "a tensor of this GraphBuilder", f"{value!r} of another one"
                )
            return value
        if isinstance(value, Tracer):
            raise InvalidArgumentError(
                op, field, "a graph tensor or a concrete array (a graph constant)",
                f"a traced value ({value.aval.str_short()})",
            )  # fmt: skip
        if self.feature_level < CONSTANT_NODES_SINCE:
            raise InvalidArgumentError(
                op, field, f"a graph tensor at {self.feature_level} (constant nodes, which a "
                f"concrete array becomes, come at {CONSTANT_NODES_SINCE})",
                f"a {type(value).__name__}", hint="Pass it as a graph input (g.input).",
            )  # fmt: skip
        data = np.asarray(value)
        try:
            data_type = DataType.from_dtype(data.dtype)
        except (ArgumentError, TypeError, KeyError):
            raise ArgumentTypeError(op, field, "an array of a DirectML type", repr(value)) from None
        with _named(op):
            desc = TensorDesc(data_type=data_type, sizes=data.shape or (1,))
        constant = ConstantDataGraphNodeDesc(data=np.ascontiguousarray(data).tobytes())
        tensor = GraphTensor(self, desc, (len(self._nodes) + len(constants), 0))
        constants.append(_Node(constant, ()))
        return tensor

    # --- The graph --------------------------------------------------------------------------------

    def build(self, outputs: GraphTensor | Sequence[GraphTensor]) -> GraphDesc:
        """The :class:`dmljax.GraphDesc` of every node so far, with ``outputs`` (a node's
        tensor, or a sequence of them) as its outputs, in that order."""
        outs = [outputs] if isinstance(outputs, GraphTensor) else list(outputs)
        for m, tensor in enumerate(outs):
            if not isinstance(tensor, GraphTensor) or tensor.builder is not self:
                raise InvalidArgumentError(
                    f"{_OP}.build", f"outputs[{m}]", "a tensor of this GraphBuilder", repr(tensor)
                )
            if tensor.source[0] is None:
                raise InvalidArgumentError(
                    f"{_OP}.build", f"outputs[{m}]", "a tensor a node computes (DirectML "
                    "has no edge from a graph input to a graph output)", repr(tensor),
                )  # fmt: skip
        input_edges, intermediate_edges = [], []
        for k, node in enumerate(self._nodes):
            for slot, tensor in node.feeds:
                producer, index = tensor.source
                if producer is None:
                    input_edges.append(
                        InputGraphEdgeDesc(
                            graph_input_index=index, to_node_index=k, to_node_input_index=slot
                        )
                    )
                else:
                    intermediate_edges.append(
                        IntermediateGraphEdgeDesc(
                            from_node_index=producer, from_node_output_index=index,
                            to_node_index=k, to_node_input_index=slot,
                        )
                    )  # fmt: skip
        output_edges = tuple(
            OutputGraphEdgeDesc(
                from_node_index=cast(int, t.source[0]), from_node_output_index=t.source[1],
                graph_output_index=m,
            )
            for m, t in enumerate(outs)
        )  # fmt: skip
        return GraphDesc(
            input_count=len(self._inputs),
            output_count=len(outs),
            nodes=tuple(node.desc for node in self._nodes),
            input_edges=tuple(input_edges),
            output_edges=output_edges,
            intermediate_edges=tuple(intermediate_edges),
        )

    def compile(
        self, outputs: GraphTensor | Sequence[GraphTensor], **options: Any
    ) -> CompiledGraph:
        """:func:`dmljax.compile_graph` of :meth:`build`'s graph at the builder's level;
        ``options`` are compile_graph's (``deterministic`` defaults to whether any call
        asked for it)."""
        options.setdefault("deterministic", self._deterministic)
        options.setdefault("allow_half_precision", self._allow_half_precision)
        return compile_graph(self.build(outputs), feature_level=self.feature_level, **options)


class _named:
    """Re-raises dmljax's errors with the call and the node in their op."""

    def __init__(self, where: str) -> None:
        self.where = where

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        if isinstance(error, ArgumentError) and self.where not in error.op:
            op = self.where if error.op in self.where else f"{error.op} in {self.where}"
            raise type(error)(op, error.field, error.expected, error.given, error.hint) from None
