"""DirectML operator graphs: ``DML_GRAPH_DESC`` and ``IDMLDevice1::CompileGraph`` for JAX.

A :class:`GraphDesc` mirrors DirectML.h's struct (snake_case, frozen): operator and
constant nodes, and input, output and intermediate edges between the nodes' tensor
slots. :func:`compile_graph` checks every node with its own operator's rules, then the
graph's rules (the table in docs/porting.md, "Porting a DirectML graph"), and
lowers the whole graph to one jitted function: each node's lowering inlined, so XLA sees
one program and fuses across nodes.

A node's slots are numbered as DirectML numbers them: its tensor fields in the desc's
order, a tensor array expanded (JOIN's ``input_tensors[0..n)``), an absent optional
tensor still counted. An edge joins two tensors of equal ``total_tensor_size_in_bytes``;
where their descs differ (data type, sizes or strides), the consumer reads the producer's
bytes through its own desc, as DirectML does.
"""

from __future__ import annotations

import dataclasses
import functools
import graphlib
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from dmljax._src.compile import compile_checked, through_buffers
from dmljax._src.contract import LoweringOptions, OperatorDesc, Role, tensor_fields
from dmljax._src.dtypes import x64_enabled
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.rules import check_bound_array
from dmljax._src.strides import check_buffer_array
from dmljax._src.tensor_desc import TensorDesc, TensorFlags
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "CompiledGraph",
    "ConstantDataGraphNodeDesc",
    "GraphDesc",
    "InputGraphEdgeDesc",
    "IntermediateGraphEdgeDesc",
    "OperatorGraphNodeDesc",
    "OutputGraphEdgeDesc",
    "compile_graph",
]

_OP = "GraphDesc"
GRAPHS_SINCE = FeatureLevel.FL_2_1
"""``IDMLDevice1::CompileGraph`` came with DirectML 1.2.0, feature level 2_1."""
CONSTANT_NODES_SINCE = FeatureLevel.FL_6_2
"""``DML_GRAPH_NODE_TYPE_CONSTANT`` came with feature level 6_2."""


def _uint(value: Any, *, op: str, field: str) -> int:
    """A C ``UINT`` field: a Python int in ``[0, 2**32)``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ArgumentTypeError(op, field, "an int (a C UINT)", repr(value))
    if not 0 <= value < 2**32:
        raise InvalidArgumentError(op, field, "in [0, 2**32) (a C UINT)", int(value))
    return int(value)


def _name(value: Any, *, op: str) -> str:
    if not isinstance(value, str):
        raise ArgumentTypeError(op, "name", "a str", repr(value))
    return value


def _coerce_uints(instance: Any, names: Sequence[str]) -> None:
    op = type(instance).__name__
    for name in names:
        object.__setattr__(instance, name, _uint(getattr(instance, name), op=op, field=name))
    object.__setattr__(instance, "name", _name(instance.name, op=op))


@dataclasses.dataclass(frozen=True, kw_only=True)
class OperatorGraphNodeDesc:
    """``DML_OPERATOR_GRAPH_NODE_DESC``: a node that runs an operator desc.

    >>> import dmljax as dml
    >>> t = dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(2,))
    >>> copy = dml.TileOperatorDesc(input_tensor=t, output_tensor=t, repeats=(1,))
    >>> dml.OperatorGraphNodeDesc(operator=copy, name="copy").name
    'copy'
    """

    operator: OperatorDesc[Any, *tuple[Any, ...]]
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.operator, OperatorDesc):
            raise ArgumentTypeError(
                "OperatorGraphNodeDesc", "operator", "an operator desc", repr(self.operator)
            )
        object.__setattr__(self, "name", _name(self.name, op="OperatorGraphNodeDesc"))


@dataclasses.dataclass(frozen=True, kw_only=True)
class ConstantDataGraphNodeDesc:
    """``DML_CONSTANT_DATA_GRAPH_NODE_DESC`` (FL 6_2): bytes that its consumers read
    through their own tensor descs, from its one output.

    >>> import numpy as np, dmljax as dml
    >>> len(dml.ConstantDataGraphNodeDesc(data=np.int32([2, 0]).tobytes(), name="idx").data)
    8
    """

    data: bytes
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.data, bytes | bytearray | memoryview):
            raise ArgumentTypeError(
                "ConstantDataGraphNodeDesc", "data", "bytes", type(self.data).__name__
            )
        object.__setattr__(self, "data", bytes(self.data))
        object.__setattr__(self, "name", _name(self.name, op="ConstantDataGraphNodeDesc"))


@dataclasses.dataclass(frozen=True, kw_only=True)
class InputGraphEdgeDesc:
    """``DML_INPUT_GRAPH_EDGE_DESC``: graph input ``graph_input_index`` into a node's input.

    >>> import dmljax as dml
    >>> dml.InputGraphEdgeDesc(graph_input_index=0, to_node_index=1, to_node_input_index=0)
    InputGraphEdgeDesc(graph_input_index=0, to_node_index=1, to_node_input_index=0, name='')
    """

    graph_input_index: int
    to_node_index: int
    to_node_input_index: int
    name: str = ""

    def __post_init__(self) -> None:
        _coerce_uints(self, ("graph_input_index", "to_node_index", "to_node_input_index"))


@dataclasses.dataclass(frozen=True, kw_only=True)
class OutputGraphEdgeDesc:
    """``DML_OUTPUT_GRAPH_EDGE_DESC``: a node's output to graph output ``graph_output_index``.

    >>> import dmljax as dml
    >>> dml.OutputGraphEdgeDesc(from_node_index=1, from_node_output_index=0,
    ...                         graph_output_index=0).from_node_index
    1
    """

    from_node_index: int
    from_node_output_index: int
    graph_output_index: int
    name: str = ""

    def __post_init__(self) -> None:
        _coerce_uints(self, ("from_node_index", "from_node_output_index", "graph_output_index"))


@dataclasses.dataclass(frozen=True, kw_only=True)
class IntermediateGraphEdgeDesc:
    """``DML_INTERMEDIATE_GRAPH_EDGE_DESC``: a node's output into another node's input.

    >>> import dmljax as dml
    >>> dml.IntermediateGraphEdgeDesc(from_node_index=0, from_node_output_index=0,
    ...                               to_node_index=1, to_node_input_index=0).to_node_index
    1
    """

    from_node_index: int
    from_node_output_index: int
    to_node_index: int
    to_node_input_index: int
    name: str = ""

    def __post_init__(self) -> None:
        _coerce_uints(
            self,
            ("from_node_index", "from_node_output_index", "to_node_index", "to_node_input_index"),
        )


Node = OperatorGraphNodeDesc | ConstantDataGraphNodeDesc


def _tuple_of(value: Any, kinds: Any, field: str, what: str) -> tuple[Any, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise ArgumentTypeError(_OP, field, f"a tuple of {what}", type(value).__name__)
    for i, item in enumerate(value):
        if not isinstance(item, kinds):
            raise ArgumentTypeError(_OP, f"{field}[{i}]", what, type(item).__name__)
    return tuple(value)


@dataclasses.dataclass(frozen=True, kw_only=True)
class GraphDesc:
    """``DML_GRAPH_DESC``: nodes and the edges between their tensors.

    The counts of the C struct (``NodeCount``, ``InputEdgeCount``, ...) are the lengths
    of the tuples. Graph inputs and outputs have no descs of their own: a graph input
    is bound as the tensor of its first input edge's node input, a graph output is
    the tensor of the node output its edge comes from.

    >>> import dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> tile = dml.TileOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(2,)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(4,)), repeats=(2,))
    >>> graph = dml.GraphDesc(
    ...     input_count=1, output_count=1,
    ...     nodes=(dml.OperatorGraphNodeDesc(operator=tile),),
    ...     input_edges=(dml.InputGraphEdgeDesc(
    ...         graph_input_index=0, to_node_index=0, to_node_input_index=0),),
    ...     output_edges=(dml.OutputGraphEdgeDesc(
    ...         from_node_index=0, from_node_output_index=0, graph_output_index=0),))
    >>> import jax.numpy as jnp
    >>> dml.compile_graph(graph)(jnp.array([1.0, 2.0]))
    (Array([1., 2., 1., 2.], dtype=float32),)
    """

    input_count: int
    output_count: int
    nodes: tuple[Node, ...]
    input_edges: tuple[InputGraphEdgeDesc, ...] = ()
    output_edges: tuple[OutputGraphEdgeDesc, ...] = ()
    intermediate_edges: tuple[IntermediateGraphEdgeDesc, ...] = ()

    def __post_init__(self) -> None:
        for name in ("input_count", "output_count"):
            object.__setattr__(self, name, _uint(getattr(self, name), op=_OP, field=name))
        kinds = {
            "nodes": (Node, "an OperatorGraphNodeDesc or a ConstantDataGraphNodeDesc"),
            "input_edges": (InputGraphEdgeDesc, "an InputGraphEdgeDesc"),
            "output_edges": (OutputGraphEdgeDesc, "an OutputGraphEdgeDesc"),
            "intermediate_edges": (IntermediateGraphEdgeDesc, "an IntermediateGraphEdgeDesc"),
        }
        for name, (kind, what) in kinds.items():
            object.__setattr__(self, name, _tuple_of(getattr(self, name), kind, name, what))


# --- Slots ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Slot:
    """One input or output of a node, as DirectML numbers them."""

    label: str  # e.g. "input_tensors[1]", for errors
    tensor: TensorDesc | None  # None: an absent optional tensor, or a constant's bytes


def slots(node: Node, role: Role) -> tuple[_Slot, ...]:
    """A node's inputs or outputs as DirectML numbers them, absent optional tensors
    included (their ``tensor`` is None)."""
    if isinstance(node, ConstantDataGraphNodeDesc):
        return () if role is Role.INPUT else (_Slot("data", None),)
    slots = []
    for field in tensor_fields(type(node.operator), role):
        value = getattr(node.operator, field.name)
        if field.metadata["many"]:
            slots += [_Slot(f"{field.name}[{i}]", t) for i, t in enumerate(value)]
        else:
            slots.append(_Slot(field.name, value))
    return tuple(slots)


def one_node_graph(desc: OperatorDesc[Any, *tuple[Any, ...]]) -> GraphDesc:
    """The one-node graph DxDispatch compiles for ``"dmlCompileType": "DmlCompileGraph"``:
    graph input ``i`` feeds node input ``i`` (absent optional inputs stay unused graph
    inputs), node output ``j`` is graph output ``j``.

    >>> import dmljax as dml
    >>> t = dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(2,))
    >>> graph = one_node_graph(dml.TileOperatorDesc(input_tensor=t, output_tensor=t, repeats=(1,)))
    >>> graph.input_count, graph.output_count, len(graph.input_edges)
    (1, 1, 1)
    """
    node = OperatorGraphNodeDesc(operator=desc)
    ins, outs = slots(node, Role.INPUT), slots(node, Role.OUTPUT)
    return GraphDesc(
        input_count=len(ins),
        output_count=len(outs),
        nodes=(node,),
        input_edges=tuple(
            InputGraphEdgeDesc(graph_input_index=i, to_node_index=0, to_node_input_index=i)
            for i, s in enumerate(ins) if s.tensor is not None
        ),
        output_edges=tuple(
            OutputGraphEdgeDesc(from_node_index=0, from_node_output_index=j, graph_output_index=j)
            for j in range(len(outs))
        ),
    )  # fmt: skip


# --- Validation -----------------------------------------------------------------------------------


def _error(field: str, expected: str, given: Any, hint: str | None = None) -> InvalidArgumentError:
    return InvalidArgumentError(_OP, field, expected, given, hint=hint)


def _check_index(value: int, count: int, field: str, what: str) -> None:
    if value >= count:
        raise _error(field, f"less than {count} ({what})", value)


@dataclasses.dataclass(frozen=True)
class _Wiring:
    """Where each node input reads from: ``("input", graph input)`` or ``("node", node,
    output)``, keyed by ``(node, input slot)``; the nodes in an order that runs them."""

    sources: dict[tuple[int, int], tuple[str, int, int]]
    order: tuple[int, ...]
    ins: list[tuple[_Slot, ...]]  # each node's input slots
    outs: list[tuple[_Slot, ...]]  # each node's output slots


def check_edges(
    input_count: int,
    output_count: int,
    node_count: int,
    input_edges: Sequence[InputGraphEdgeDesc],
    intermediate_edges: Sequence[IntermediateGraphEdgeDesc],
    output_edges: Sequence[OutputGraphEdgeDesc],
) -> None:
    """The rules an edge list keeps whatever its nodes are: graph input, graph output and
    node indices in range, one edge into each node input, exactly one edge into each
    graph output (G7, G9).

    DxDispatch's graph models check these before their nodes' operators are known.
    """
    fed_by: dict[tuple[int, int], str] = {}

    def target(field: str, node: int, slot: int) -> None:
        _check_index(node, node_count, f"{field}.to_node_index", f"{node_count} nodes")
        if (node, slot) in fed_by:
            raise _error(field, f"the only edge into node {node} input {slot} (one source per "
                         f"input; {fed_by[node, slot]} feeds it already)",
                         f"a second edge to node {node} input {slot}")  # fmt: skip
        fed_by[node, slot] = field

    for k, edge in enumerate(input_edges):
        field = f"input_edges[{k}]"
        _check_index(edge.graph_input_index, input_count, f"{field}.graph_input_index",
                     f"input_count is {input_count}")  # fmt: skip
        target(field, edge.to_node_index, edge.to_node_input_index)
    for k, edge in enumerate(intermediate_edges):
        field = f"intermediate_edges[{k}]"
        _check_index(edge.from_node_index, node_count, f"{field}.from_node_index",
                     f"{node_count} nodes")  # fmt: skip
        target(field, edge.to_node_index, edge.to_node_input_index)
    filled: dict[int, str] = {}
    for k, edge in enumerate(output_edges):
        field = f"output_edges[{k}]"
        _check_index(edge.from_node_index, node_count, f"{field}.from_node_index",
                     f"{node_count} nodes")  # fmt: skip
        index = edge.graph_output_index
        _check_index(index, output_count, f"{field}.graph_output_index",
                     f"output_count is {output_count}")  # fmt: skip
        if index in filled:
            raise _error(f"{field}.graph_output_index",
                         f"a graph output no other edge fills ({filled[index]} fills it)",
                         index)  # fmt: skip
        filled[index] = field
    if len(filled) < output_count:
        # The first output without an edge, found among the first len(filled) + 1 indices:
        # time and memory follow the edges, not the count (a UINT, up to 2**32 - 1).
        missing = next(j for j in range(output_count) if j not in filled)
        raise _error("output_edges", f"one edge for each of the {output_count} graph "
                     "outputs", f"no edge for graph output {missing}")  # fmt: skip


MAX_GRAPH_INPUTS = 2**16
"""The most graph inputs :func:`compile_graph` takes: a compiled graph is called with one
argument per graph input (DirectML binds exactly ``InputCount`` of them each execution),
so a count beyond this is refused before anything is built for it."""


def _check_graph(graph: GraphDesc, level: FeatureLevel) -> _Wiring:
    if graph.input_count > MAX_GRAPH_INPUTS:
        raise _error("input_count", f"at most {MAX_GRAPH_INPUTS} graph inputs (the compiled "
                     "graph takes one argument per graph input, used or not)",
                     graph.input_count)  # fmt: skip
    check_edges(graph.input_count, graph.output_count, len(graph.nodes), graph.input_edges,
                graph.intermediate_edges, graph.output_edges)  # fmt: skip
    ins = [slots(node, Role.INPUT) for node in graph.nodes]
    outs = [slots(node, Role.OUTPUT) for node in graph.nodes]
    sources: dict[tuple[int, int], tuple[str, int, int]] = {}

    def connect(field: str, node: int, slot: int, source: tuple[str, int, int]) -> None:
        slots = ins[node]
        what = f"node {node} has {len(slots)} inputs"
        _check_index(slot, len(slots), f"{field}.to_node_input_index", what)
        tensor = slots[slot].tensor
        if tensor is None:
            raise _error(
                f"{field}.to_node_input_index",
                f"a present input: nodes[{node}].operator.{slots[slot].label} is absent",
                slot,
            )
        if tensor.flags & TensorFlags.OWNED_BY_DML and source[0] != "input":
            raise _error(field, f"an input edge: nodes[{node}].operator.{slots[slot].label} "
                         "is OWNED_BY_DML, so a graph input must feed it",
                         "an intermediate edge")  # fmt: skip
        sources[node, slot] = source

    def check_output(field: str, node: int, output: int) -> None:
        what = f"node {node} has {len(outs[node])} outputs"
        _check_index(output, len(outs[node]), f"{field}.from_node_output_index", what)
        slot = outs[node][output]
        if slot.tensor is None and isinstance(graph.nodes[node], OperatorGraphNodeDesc):
            raise _error(f"{field}.from_node_output_index",
                         f"a present output: nodes[{node}].operator.{slot.label} is absent",
                         output)  # fmt: skip

    used_outputs: set[tuple[int, int]] = set()
    for k, edge in enumerate(graph.input_edges):
        connect(f"input_edges[{k}]", edge.to_node_index, edge.to_node_input_index,
                ("input", edge.graph_input_index, 0))  # fmt: skip
    for k, edge in enumerate(graph.intermediate_edges):
        field = f"intermediate_edges[{k}]"
        check_output(field, edge.from_node_index, edge.from_node_output_index)
        connect(field, edge.to_node_index, edge.to_node_input_index,
                ("node", edge.from_node_index, edge.from_node_output_index))  # fmt: skip
        used_outputs.add((edge.from_node_index, edge.from_node_output_index))
    for k, edge in enumerate(graph.output_edges):
        field = f"output_edges[{k}]"
        check_output(field, edge.from_node_index, edge.from_node_output_index)
        if isinstance(graph.nodes[edge.from_node_index], ConstantDataGraphNodeDesc):
            raise _error(f"{field}.from_node_index", "an operator node (a graph output is an "
                         "operator's result; copy a constant through an operator)",
                         edge.from_node_index)  # fmt: skip
        used_outputs.add((edge.from_node_index, edge.from_node_output_index))
    for i, node in enumerate(graph.nodes):
        if isinstance(node, ConstantDataGraphNodeDesc) and level < CONSTANT_NODES_SINCE:
            raise _error(f"nodes[{i}]", f"an operator node at {level} (constant nodes "
                         f"came with {CONSTANT_NODES_SINCE})",
                         "a ConstantDataGraphNodeDesc")  # fmt: skip
        for slot, s in enumerate(ins[i]):
            if s.tensor is not None and (i, slot) not in sources:
                raise _error(f"nodes[{i}].operator.{s.label}",
                             "connected by an input or an intermediate edge", "no edge into it",
                             hint="Every input of every node needs a source (DirectML's "
                             "DML_GRAPH_DESC remarks).")  # fmt: skip
        for output, s in enumerate(outs[i]):
            # An absent optional output (RNN's) has nothing to read; a constant's has data.
            absent = s.tensor is None and isinstance(node, OperatorGraphNodeDesc)
            if not absent and (i, output) not in used_outputs:
                where = f"nodes[{i}]" + (f".operator.{s.label}" if s.tensor is not None else "")
                raise _error(where, "connected by an intermediate or an output edge",
                             "an output no edge reads")  # fmt: skip
    order = _topological_order(graph)
    for k, edge in enumerate(graph.intermediate_edges):
        consumer = ins[edge.to_node_index][edge.to_node_input_index].tensor
        assert consumer is not None
        producer = outs[edge.from_node_index][edge.from_node_output_index].tensor
        node = graph.nodes[edge.from_node_index]
        if isinstance(node, ConstantDataGraphNodeDesc):
            # ORT's rule: the data, rounded up to 4 bytes, covers what the consumer reads.
            if (len(node.data) + 3) & ~3 < consumer.total_tensor_size_in_bytes:
                raise _error(f"nodes[{edge.from_node_index}].data",
                             f"at least {consumer.total_tensor_size_in_bytes} bytes (less 3: "
                             "DirectML rounds to 4) for its consumer via "
                             f"intermediate_edges[{k}]", f"{len(node.data)} bytes")  # fmt: skip
        elif producer is not None and (
            producer.total_tensor_size_in_bytes != consumer.total_tensor_size_in_bytes
        ):
            raise _error(f"intermediate_edges[{k}]",
                         "an edge between tensors of equal total_tensor_size_in_bytes",
                         f"{producer.total_tensor_size_in_bytes} bytes out of node "
                         f"{edge.from_node_index}, {consumer.total_tensor_size_in_bytes} into "
                         f"node {edge.to_node_index}")  # fmt: skip
    first: dict[int, TensorDesc] = {}
    for k, edge in enumerate(graph.input_edges):
        tensor = ins[edge.to_node_index][edge.to_node_input_index].tensor
        assert tensor is not None
        bound = first.setdefault(edge.graph_input_index, tensor)
        if (bound.flags ^ tensor.flags) & TensorFlags.OWNED_BY_DML:
            raise _error(f"input_edges[{k}]",
                         f"a consumer of graph input {edge.graph_input_index} that is "
                         "OWNED_BY_DML exactly when its first consumer is (DirectML: all "
                         "inputs connected to one graph input use or omit the flag alike)",
                         f"flags {tensor.flags!r} after {bound.flags!r}")  # fmt: skip
        if bound.total_tensor_size_in_bytes != tensor.total_tensor_size_in_bytes:
            raise _error(f"input_edges[{k}]",
                         f"a consumer of graph input {edge.graph_input_index} that reads its "
                         f"{bound.total_tensor_size_in_bytes} bytes, as its first consumer does",
                         f"{tensor.total_tensor_size_in_bytes} bytes")  # fmt: skip
    return _Wiring(sources, order, ins, outs)


def _topological_order(graph: GraphDesc) -> tuple[int, ...]:
    sorter: graphlib.TopologicalSorter[int] = graphlib.TopologicalSorter()
    for i in range(len(graph.nodes)):
        sorter.add(i)
    for edge in graph.intermediate_edges:
        sorter.add(edge.to_node_index, edge.from_node_index)
    try:
        return tuple(sorter.static_order())
    except graphlib.CycleError as error:
        cycle = error.args[1]
        edges = [
            f"intermediate_edges[{k}]"
            for k, e in enumerate(graph.intermediate_edges)
            if any(
                (e.from_node_index, e.to_node_index) == (a, b)
                for a, b in zip(cycle[1:], cycle[:-1], strict=True)
            )
        ]
        raise _error("intermediate_edges", "edges of a graph without cycles (DirectML: a DAG)",
                     f"the cycle {' -> '.join(map(str, reversed(cycle)))} "
                     f"({', '.join(edges)})") from None  # fmt: skip


# --- Lowering -------------------------------------------------------------------------------------


def element_bytes(value: jax.Array) -> jax.Array:
    """The bytes of ``value``'s elements in row-major order, as one uint8 vector."""
    return lax.bitcast_convert_type(value.reshape(-1), jnp.uint8).reshape(-1)


def _bytes_of(value: jax.Array, tensor: TensorDesc) -> jax.Array:
    """The ``total_tensor_size_in_bytes`` bytes of a tensor bound as ``tensor`` binds it."""
    return _fit_bytes(element_bytes(value), tensor.total_tensor_size_in_bytes)


def _fit_bytes(data: jax.Array, size: int) -> jax.Array:
    if data.shape[0] >= size:
        return data[:size]
    return jnp.pad(data, (0, size - data.shape[0]))  # bytes no element covers read as 0


def read_bytes(data: jax.Array, tensor: TensorDesc) -> jax.Array:
    """``data`` read through ``tensor``: its elements, bound as ``tensor`` binds them."""
    count = tensor.bound_element_count
    itemsize = tensor.dtype.itemsize
    data = _fit_bytes(data, count * itemsize)
    words = data if itemsize == 1 else data.reshape(count, itemsize)
    elements = lax.bitcast_convert_type(words, tensor.dtype)
    return elements if tensor.strides is not None else elements.reshape(tensor.sizes)


def _rebound(value: jax.Array, producer: TensorDesc | None, consumer: TensorDesc) -> jax.Array:
    """A value bound as ``producer`` (None: bytes) handed to a consumer bound as ``consumer``."""
    if producer == consumer:
        return value
    if producer is None:
        return read_bytes(value, consumer)
    packed = producer.strides is None and consumer.strides is None
    same = packed and producer.dtype == consumer.dtype
    if same and producer.element_count == consumer.element_count:
        return value.reshape(consumer.sizes)  # the same elements in another shape
    return read_bytes(_bytes_of(value, producer), consumer)


class CompiledGraph:
    """A validated graph (DirectML's ``IDMLCompiledOperator`` from ``CompileGraph``):
    call it with the graph inputs in ``graph_input_index`` order; it returns the tuple of
    graph outputs from one jitted XLA program.

    An unused graph input takes any value (None too). A graph input is bound as its
    first consumer's tensor desc (:attr:`input_descs`), a graph output as its
    producer's (:attr:`output_descs`): strided ones as flat buffers.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> def t(*sizes):
    ...     return dml.TensorDesc(data_type=f32, sizes=sizes)
    >>> tile = dml.TileOperatorDesc(input_tensor=t(3), output_tensor=t(6), repeats=(2,))
    >>> reverse = dml.Slice1OperatorDesc(input_tensor=t(6), output_tensor=t(6),
    ...     input_window_offsets=(0,), input_window_sizes=(6,), input_window_strides=(-1,))
    >>> graph = dml.compile_graph(dml.GraphDesc(
    ...     input_count=2, output_count=1,  # graph input 1 is unused
    ...     nodes=(dml.OperatorGraphNodeDesc(operator=tile),
    ...            dml.OperatorGraphNodeDesc(operator=reverse)),
    ...     input_edges=(dml.InputGraphEdgeDesc(
    ...         graph_input_index=0, to_node_index=0, to_node_input_index=0),),
    ...     intermediate_edges=(dml.IntermediateGraphEdgeDesc(
    ...         from_node_index=0, from_node_output_index=0, to_node_index=1,
    ...         to_node_input_index=0),),
    ...     output_edges=(dml.OutputGraphEdgeDesc(
    ...         from_node_index=1, from_node_output_index=0, graph_output_index=0),)))
    >>> graph(jnp.array([1.0, 2.0, 3.0]), None)
    (Array([3., 2., 1., 3., 2., 1.], dtype=float32),)
    """

    def __init__(self, graph: GraphDesc, options: LoweringOptions) -> None:
        self.graph = graph
        self.feature_level = options.feature_level
        self.deterministic = options.deterministic
        self.allow_half_precision = options.allow_half_precision
        wiring = _check_graph(graph, options.feature_level)
        lowerings: dict[int, Callable[..., Any]] = {}
        for i, node in enumerate(graph.nodes):
            if isinstance(node, OperatorGraphNodeDesc):
                try:
                    compiled = compile_checked(node.operator, options, False, x64_enabled())
                except InvalidArgumentError as error:
                    raise _error(f"nodes[{i}].operator.{error.field}", error.expected,
                                 error.given, hint=error.hint) from None  # fmt: skip
                lowerings[i] = through_buffers(
                    compiled.operator.lower(node.operator, options),
                    tuple(s.tensor for s in wiring.ins[i] if s.tensor is not None),
                    compiled.output_descs,
                )
        ins, outs = wiring.ins, wiring.outs
        # Each graph input's first consumer, in one pass over the edges.
        first_consumer: dict[int, TensorDesc | None] = {}
        for e in graph.input_edges:
            first_consumer.setdefault(
                e.graph_input_index, ins[e.to_node_index][e.to_node_input_index].tensor
            )
        self.input_descs: tuple[TensorDesc | None, ...] = tuple(
            map(first_consumer.get, range(graph.input_count))
        )
        edges = sorted(graph.output_edges, key=lambda e: e.graph_output_index)
        self.output_descs: tuple[TensorDesc | None, ...] = tuple(
            outs[e.from_node_index][e.from_node_output_index].tensor for e in edges
        )

        def run(*inputs: Any) -> tuple[jax.Array, ...]:
            inputs = tuple(
                x if tensor is None else _bound_input(x, tensor, j)
                for j, (x, tensor) in enumerate(zip(inputs, self.input_descs, strict=True))
            )
            values: dict[tuple[int, int], tuple[jax.Array, TensorDesc | None]] = {}
            for i in wiring.order:
                node = graph.nodes[i]
                if isinstance(node, ConstantDataGraphNodeDesc):
                    data = jnp.asarray(np.frombuffer(node.data, np.uint8))
                    values[i, 0] = (data, None)
                    continue
                arrays = []
                for slot, s in enumerate(ins[i]):
                    if s.tensor is None:
                        continue
                    kind, a, b = wiring.sources[i, slot]
                    value, bound = (
                        (jnp.asarray(inputs[a]), self.input_descs[a])
                        if kind == "input"
                        else values[a, b]
                    )
                    arrays.append(_rebound(value, bound, s.tensor))
                result = lowerings[i](*arrays)
                results = result if isinstance(result, tuple) else (result,)
                # The operator returns its present outputs only (RNN's bound ones).
                present = [(k, s) for k, s in enumerate(outs[i]) if s.tensor is not None]
                for value, (output, s) in zip(results, present, strict=True):
                    values[i, output] = (value, s.tensor)
            return tuple(values[e.from_node_index, e.from_node_output_index][0] for e in edges)

        self.jitted = jax.jit(run)

    def __call__(self, *inputs: Any) -> tuple[jax.Array, ...]:
        if len(inputs) != self.graph.input_count:
            raise ArgumentTypeError(
                "CompiledGraph", "arguments",
                f"{self.graph.input_count} arrays (input_count)", len(inputs),
            )  # fmt: skip
        return self.jitted(*inputs)

    def lower(self, *inputs: Any) -> Any:
        """``jax.jit(...).lower`` of the whole graph (to inspect its one XLA program)."""
        return self.jitted.lower(*inputs)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its graph and options, compiled again where it is loaded (a jitted
        program belongs to one process)."""
        return _unpickled_graph, (
            self.graph,
            self.feature_level,
            self.deterministic,
            self.allow_half_precision,
        )

    def __repr__(self) -> str:
        return f"CompiledGraph({len(self.graph.nodes)} nodes, feature_level={self.feature_level})"


def _bound_input(x: Any, tensor: TensorDesc, index: int) -> Any:
    """``x`` checked against the tensor its graph input is bound as. A shape that differs
    from the tensor's sizes only in dimensions of 1 is taken, reshaped: DirectML binds a
    buffer, and such dimensions leave its elements in place (a :class:`GraphBuilder`'s
    input that a node sees with leading 1s)."""
    field = f"graph input {index}"
    if tensor.strides is not None:
        check_buffer_array(x, tensor, op="CompiledGraph", field=f"the {field} argument")
        return x
    shape = getattr(x, "shape", None)
    if (
        shape is not None
        and tuple(shape) != tensor.sizes
        and _unit_free(shape) == _unit_free(tensor.sizes)
    ):
        x = jnp.reshape(x, tensor.sizes)
    check_bound_array(x, tensor, op="CompiledGraph", field=field)
    return x


def _unit_free(shape: Sequence[int]) -> tuple[int, ...]:
    return tuple(size for size in shape if size != 1)


def compile_graph(
    graph: GraphDesc,
    *,
    feature_level: FeatureLevel | int = FeatureLevel.LATEST,
    deterministic: bool = False,
    allow_half_precision: bool = False,
) -> CompiledGraph:
    """Validates a graph, like DirectML's ``IDMLDevice1::CompileGraph``, and lowers it to
    one jitted XLA program.

    Graphs need feature level 2_1, constant nodes 6_2. Every operator node passes its
    own operator's rules at ``feature_level``; then the graph's rules: every index in
    range, one edge into each node input, exactly one into each graph output, every
    required input and every output connected, no cycle, equal
    ``total_tensor_size_in_bytes`` across each edge, constant data large enough for its
    consumer. At most :data:`MAX_GRAPH_INPUTS` (65 536) graph inputs: the compiled graph
    takes one argument per graph input. Results are cached per graph and options;
    ``deterministic`` and ``allow_half_precision`` are :func:`dmljax.compile_operator`'s,
    for every node.

    Raises:
        InvalidArgumentError: a rule broken, naming the field (``intermediate_edges[3].
            to_node_input_index``, ``nodes[1].operator.axis``).

    >>> import dmljax as dml
    >>> t = dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(2,))
    >>> copy = dml.TileOperatorDesc(input_tensor=t, output_tensor=t, repeats=(1,))
    >>> try:
    ...     dml.compile_graph(dml.GraphDesc(input_count=1, output_count=1,
    ...         nodes=(dml.OperatorGraphNodeDesc(operator=copy),)))
    ... except dml.errors.InvalidArgumentError as error:
    ...     print(error.field, "|", error.given)
    output_edges | no edge for graph output 0
    """
    level = FeatureLevel.coerce(feature_level, op=_OP)
    if not isinstance(graph, GraphDesc):
        raise ArgumentTypeError("compile_graph", "graph", "a dmljax.GraphDesc", repr(graph))
    if level < GRAPHS_SINCE:
        raise _error("feature_level", f"{GRAPHS_SINCE} or later (operator graphs came with "
                     "IDMLDevice1::CompileGraph)", str(level))  # fmt: skip
    for name, flag in (
        ("deterministic", deterministic),
        ("allow_half_precision", allow_half_precision),
    ):
        if not isinstance(flag, bool):
            raise ArgumentTypeError(_OP, name, "a bool", repr(flag))
    options = LoweringOptions(level, deterministic, allow_half_precision)
    return _compiled(graph, options, x64_enabled())


@functools.lru_cache(maxsize=256)
def _compiled(graph: GraphDesc, options: LoweringOptions, x64: bool) -> CompiledGraph:
    del x64  # part of the key: the lowerings depend on it
    return CompiledGraph(graph, options)


def _unpickled_graph(
    graph: GraphDesc,
    feature_level: FeatureLevel,
    deterministic: bool,
    allow_half_precision: bool = False,
) -> CompiledGraph:
    """A pickled :class:`CompiledGraph`, compiled again (and checked again)."""
    return compile_graph(
        graph, feature_level=feature_level, deterministic=deterministic,
        allow_half_precision=allow_half_precision,
    )  # fmt: skip
