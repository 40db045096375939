"""The fixed suite of ``python -m dmljax bench``: every operator's cases, then the strided ones.

Each operator's companion (:mod:`dmljax._src.checking.operators`) declares its
timed :class:`Case` s and its :class:`EagerCase` (``OperatorChecks(bench=...)``);
:data:`OPERATORS` lists them in the order of :data:`dmljax.OPERATORS`, then
:func:`strided_cases`, which read strided tensors through two operators. Full
sizes follow performance.md §1 (working sets of at least 256 MiB); quick sizes
keep each case to a few MiB.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

import dmljax as dml
from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking.operators import all_checks
from dmljax._src.contract import OperatorDesc

__all__ = ["OPERATORS", "all_cases", "graph_cases", "six_node_graph", "strided_cases"]

_F32 = jnp.float32


def _like(x: jax.Array) -> dml.TensorDesc:
    return dml.TensorDesc.from_array(x)


def _nhwc_desc(shape: tuple[int, int, int, int]) -> dml.TensorDesc:
    """NCHW sizes laid out channels-last: N, then H, then W, then C in memory."""
    _, c, h, w = shape
    return dml.TensorDesc(
        data_type=dml.DataType.FLOAT32, sizes=shape, strides=(h * w * c, 1, w * c, c)
    )


def _nchw_from_nhwc(buffer: jax.Array, shape: tuple[int, int, int, int]) -> jax.Array:
    n, c, h, w = shape
    return jnp.transpose(buffer.reshape(n, h, w, c), (0, 3, 1, 2))


def _strided_case(
    operator: str, desc_of: Callable[[dml.TensorDesc], OperatorDesc[jax.Array, ArrayLike]]
) -> Case:
    quick_shape, full_shape = (4, 32, 14, 14), (64, 256, 56, 56)  # 100 KiB / 196 MiB of f32

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        shape = quick_shape if quick else full_shape
        return (operands.normal(key, (math.prod(shape),)),)

    def shape_of(buffer: jax.Array) -> tuple[int, int, int, int]:
        return quick_shape if buffer.size == math.prod(quick_shape) else full_shape

    def dmljax_fn(buffer: jax.Array) -> jax.Array:
        return dml.compile_operator(desc_of(_nhwc_desc(shape_of(buffer))))(buffer)

    def jnp_fn(buffer: jax.Array) -> jax.Array:
        # The same op on an explicitly transposed dense array: TILE of repeats 1 and a
        # full SLICE1 window both copy it.
        return _nchw_from_nhwc(buffer, shape_of(buffer))[:, :, :, :]

    return Case(
        name=f"{operator.lower()} NHWC-strided input",
        operator=operator,
        make_args=make_args,
        dmljax_fn=dmljax_fn,
        jnp_fn=jnp_fn,
        bytes_moved=lambda args: 2 * args[0].nbytes,  # read the buffer, write the NCHW tensor
        target_ratio=1.1,
    )


def _dense(tensor: dml.TensorDesc) -> dml.TensorDesc:
    return dml.TensorDesc(data_type=tensor.data_type, sizes=tensor.sizes)


def strided_cases() -> list[Case | EagerCase]:
    """An NHWC-strided 64x256x56x56 f32 input to TILE (repeats 1) and to a full SLICE1
    window, against a transpose of the dense buffer: a permuted layout must lower to one
    transpose, with no gather of computed offsets (target 1.1x)."""
    return [
        _strided_case(
            "TILE",
            lambda nhwc: dml.TileOperatorDesc(
                input_tensor=nhwc, output_tensor=_dense(nhwc), repeats=(1, 1, 1, 1)
            ),
        ),
        _strided_case(
            "SLICE1",
            lambda nhwc: dml.Slice1OperatorDesc(
                input_tensor=nhwc,
                output_tensor=_dense(nhwc),
                input_window_offsets=(0, 0, 0, 0),
                input_window_sizes=nhwc.sizes,
                input_window_strides=(1, 1, 1, 1),
            ),
        ),
    ]


def _graph_nodes(
    rows: int, cols: int, picks: int
) -> tuple[OperatorDesc[Any, *tuple[Any, ...]], ...]:
    """The six nodes of the bench graph, for ``x: f32[rows, cols]`` and ``idx: i32[1, picks]``:
    tile to twice the columns, reverse the columns, gather rows, pad a column each side,
    take every other column, join that with the gathered rows."""
    wide = 2 * cols

    def t(*sizes: int, data_type: dml.DataType = dml.DataType.FLOAT32) -> dml.TensorDesc:
        return dml.TensorDesc(data_type=data_type, sizes=sizes)

    return (
        dml.TileOperatorDesc(input_tensor=t(rows, cols), output_tensor=t(rows, wide),
                             repeats=(1, 2)),
        dml.Slice1OperatorDesc(input_tensor=t(rows, wide), output_tensor=t(rows, wide),
                               input_window_offsets=(0, 0), input_window_sizes=(rows, wide),
                               input_window_strides=(1, -1)),
        dml.GatherOperatorDesc(input_tensor=t(rows, wide),
                               indices_tensor=t(1, picks, data_type=dml.DataType.INT32),
                               output_tensor=t(picks, wide), axis=0, index_dimensions=1),
        dml.PaddingOperatorDesc(input_tensor=t(picks, wide), output_tensor=t(picks, wide + 2),
                                padding_mode=dml.PaddingMode.CONSTANT, padding_value=0.0,
                                start_padding=(0, 1), end_padding=(0, 1)),
        dml.Slice1OperatorDesc(input_tensor=t(picks, wide + 2), output_tensor=t(picks, cols),
                               input_window_offsets=(0, 1), input_window_sizes=(picks, wide),
                               input_window_strides=(1, 2)),
        dml.JoinOperatorDesc(input_tensors=(t(picks, cols), t(picks, wide)),
                             output_tensor=t(picks, 3 * cols), axis=1),
    )  # fmt: skip


def _edge(source: int, target: int, slot: int = 0) -> dml.IntermediateGraphEdgeDesc:
    return dml.IntermediateGraphEdgeDesc(
        from_node_index=source, from_node_output_index=0, to_node_index=target,
        to_node_input_index=slot,
    )  # fmt: skip


def six_node_graph(rows: int, cols: int, picks: int) -> dml.GraphDesc:
    """The bench graph: :func:`_graph_nodes` wired in a chain, the gathered rows also
    feeding the join (a fan-out), the indices a second graph input.

    >>> graph = dml.compile_graph(six_node_graph(2, 2, 1))
    >>> graph(jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.array([[1]], jnp.int32))
    (Array([[4., 4., 4., 3., 4., 3.]], dtype=float32),)
    """
    return dml.GraphDesc(
        input_count=2,
        output_count=1,
        nodes=tuple(dml.OperatorGraphNodeDesc(operator=d) for d in _graph_nodes(rows, cols, picks)),
        input_edges=(
            dml.InputGraphEdgeDesc(graph_input_index=0, to_node_index=0, to_node_input_index=0),
            dml.InputGraphEdgeDesc(graph_input_index=1, to_node_index=2, to_node_input_index=1),
        ),
        intermediate_edges=(_edge(0, 1), _edge(1, 2), _edge(2, 3), _edge(3, 4), _edge(4, 5),
                            _edge(2, 5, 1)),
        output_edges=(
            dml.OutputGraphEdgeDesc(from_node_index=5, from_node_output_index=0,
                                    graph_output_index=0),
        ),
    )  # fmt: skip


def _graph_jnp(x: jax.Array, idx: jax.Array) -> jax.Array:
    picked = jnp.tile(x, (1, 2))[:, ::-1][idx[0]]
    every_other = jnp.pad(picked, ((0, 0), (1, 1)))[:, 1 : 1 + picked.shape[1] : 2]
    return jnp.concatenate([every_other, picked], axis=1)


@functools.lru_cache(maxsize=4)
def _compiled_nodes(rows: int, cols: int, picks: int) -> tuple[Any, ...]:
    return tuple(dml.compile_operator(d) for d in _graph_nodes(rows, cols, picks))


def _graph_one_by_one(x: jax.Array, idx: jax.Array) -> jax.Array:
    """The graph's six nodes as six compiled operators, called one after another (compiled
    once per size, outside the timed calls)."""
    tile, reverse, gather, pad, every_other, join = _compiled_nodes(*x.shape, idx.shape[1])
    picked = gather(reverse(tile(x)), idx)
    return join(every_other(pad(picked)), picked)


def graph_cases() -> list[Case | EagerCase]:
    """A six-node graph of data-movement operators (:func:`six_node_graph`), against the
    same computation in jnp (target 1.05) and against its six compiled operators called
    one by one (it must be faster); and its eager call against a jitted jnp call (1.1)."""

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        # Full: x is 256 MiB, 2 GiB moved, about 0.5 ms on an H200 (performance.md §1).
        rows, cols, picks = (256, 128, 128) if quick else (8192, 8192, 16384)
        x_key, idx_key = jax.random.split(key)
        idx = operands.randint(idx_key, (1, picks), 0, rows)
        return operands.normal(x_key, (rows, cols)), idx

    def graph_of(x: jax.Array, idx: jax.Array) -> dml.GraphDesc:
        return six_node_graph(x.shape[0], x.shape[1], idx.shape[1])

    def run_graph(x: jax.Array, idx: jax.Array) -> jax.Array:
        return dml.compile_graph(graph_of(x, idx))(x, idx)[0]

    def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
        return operands.normal(key, (4, 3)), jnp.array([[3, 0]], jnp.int32)

    return [
        Case(
            name="graph 6 nodes",
            operator="GRAPH",
            make_args=make_args,
            dmljax_fn=run_graph,
            jnp_fn=_graph_jnp,
            # The gathered rows of x read, the joined output written.
            bytes_moved=lambda args: args[1].nbytes + 4 * args[1].size * args[0].shape[1] * 4,
            separate_fn=_graph_one_by_one,
        ),
        EagerCase(
            name="graph 6 nodes eager",
            operator="GRAPH",
            make_args=tiny,
            functional=None,
            desc=graph_of,
            jnp_fn=_graph_jnp,
        ),
    ]


def _element_wise_nodes(rows: int, cols: int) -> tuple[OperatorDesc[Any, *tuple[Any, ...]], ...]:
    """Eight element-wise nodes over ``x`` and ``y`` of f32[rows, cols] (the graph
    :func:`element_wise_graph` wires): a sum, products, an activation, a ScaleBias, a
    difference, a maximum and a sigmoid."""
    t = dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(rows, cols))
    return (
        dml.ElementWiseAddOperatorDesc(a_tensor=t, b_tensor=t, output_tensor=t),
        dml.ElementWiseMultiplyOperatorDesc(a_tensor=t, b_tensor=t, output_tensor=t),
        dml.ActivationReluOperatorDesc(input_tensor=t, output_tensor=t),
        dml.ElementWiseIdentityOperatorDesc(input_tensor=t, output_tensor=t,
                                            scale_bias=dml.ScaleBias(0.5, 1.0)),
        dml.ElementWiseSubtractOperatorDesc(a_tensor=t, b_tensor=t, output_tensor=t),
        dml.ElementWiseMaxOperatorDesc(a_tensor=t, b_tensor=t, output_tensor=t),
        dml.ActivationSigmoidOperatorDesc(input_tensor=t, output_tensor=t),
        dml.ElementWiseMultiplyOperatorDesc(a_tensor=t, b_tensor=t, output_tensor=t),
    )  # fmt: skip


# Each node's inputs: ("x", "y") are the graph's inputs, a number the node before.
_ELEMENT_WISE_WIRING: tuple[tuple[str | int, ...], ...] = (
    ("x", "y"),
    (0, "y"),
    (1,),
    (2,),
    (3, "x"),
    (4, "y"),
    (5,),
    (6, "x"),
)


def element_wise_graph(rows: int, cols: int) -> dml.GraphDesc:
    """The element-wise bench graph: ``sigmoid(max(relu((x + y) * y) * 0.5 + 1 - x, y)) * x``
    as eight nodes, x and y read by four of them.

    >>> graph = dml.compile_graph(element_wise_graph(1, 2))
    >>> graph(jnp.array([[1.0, -2.0]]), jnp.array([[2.0, 0.5]]))
    (Array([[ 0.95257413, -1.9051483 ]], dtype=float32),)
    """
    inputs = {"x": 0, "y": 1}
    return dml.GraphDesc(
        input_count=2,
        output_count=1,
        nodes=tuple(dml.OperatorGraphNodeDesc(operator=d) for d in _element_wise_nodes(rows, cols)),
        input_edges=tuple(
            dml.InputGraphEdgeDesc(
                graph_input_index=inputs[source], to_node_index=node, to_node_input_index=slot
            )
            for node, sources in enumerate(_ELEMENT_WISE_WIRING)
            for slot, source in enumerate(sources)
            if isinstance(source, str)
        ),
        intermediate_edges=tuple(
            _edge(source, node, slot)
            for node, sources in enumerate(_ELEMENT_WISE_WIRING)
            for slot, source in enumerate(sources)
            if isinstance(source, int)
        ),
        output_edges=(
            dml.OutputGraphEdgeDesc(
                from_node_index=7, from_node_output_index=0, graph_output_index=0
            ),
        ),
    )


def _element_wise_jnp(x: jax.Array, y: jax.Array) -> jax.Array:
    return jax.nn.sigmoid(jnp.fmax(jax.nn.relu((x + y) * y) * 0.5 + 1.0 - x, y)) * x


@functools.lru_cache(maxsize=4)
def _compiled_element_wise(rows: int, cols: int) -> tuple[Any, ...]:
    return tuple(dml.compile_operator(d) for d in _element_wise_nodes(rows, cols))


def _element_wise_one_by_one(x: jax.Array, y: jax.Array) -> jax.Array:
    """The eight nodes as eight compiled operators called one after another."""
    add, mul, relu, scaled, sub, most, sigmoid, mul2 = _compiled_element_wise(*x.shape)
    return mul2(sigmoid(most(sub(scaled(relu(mul(add(x, y), y))), x), y)), x)


def element_wise_graph_cases() -> list[Case | EagerCase]:
    """Eight element-wise nodes as one graph (:func:`element_wise_graph`): one kernel at
    90 % or more of the copy's bandwidth (x and y read once, the result written once),
    at least 4x faster than its nodes called one by one, and within 1.05x of the jnp
    expression."""

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        side = 512 if quick else 4096  # 1 MiB / 64 MiB of f32 each
        x_key, y_key = jax.random.split(key)
        return operands.normal(x_key, (side, side)), operands.normal(y_key, (side, side))

    def run_graph(x: jax.Array, y: jax.Array) -> jax.Array:
        return dml.compile_graph(element_wise_graph(*x.shape))(x, y)[0]

    def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
        x_key, y_key = jax.random.split(key)
        return operands.normal(x_key, (8, 8)), operands.normal(y_key, (8, 8))

    return [
        Case(
            name="graph 8 element-wise nodes",
            operator="GRAPH",
            make_args=make_args,
            dmljax_fn=run_graph,
            jnp_fn=_element_wise_jnp,
            bytes_moved=lambda args: 3 * args[0].nbytes,
            separate_fn=_element_wise_one_by_one,
            min_separate_ratio=4.0,
            min_pct_of_copy=90.0,
        ),
        EagerCase(
            name="graph 8 element-wise nodes eager",
            operator="GRAPH",
            make_args=tiny,
            functional=None,
            desc=lambda x, y: element_wise_graph(*x.shape),
            jnp_fn=_element_wise_jnp,
        ),
    ]


OPERATORS: tuple[Callable[[], list[Case | EagerCase]], ...] = (
    *(
        bench
        for operator in dml.OPERATORS
        if (bench := all_checks()[operator.name].bench) is not None
    ),
    strided_cases,
    graph_cases,
    element_wise_graph_cases,
)


def all_cases() -> list[Case | EagerCase]:
    """Every case of every operator in :data:`OPERATORS`, in report order.

    >>> [case.name for case in all_cases() if case.operator == "TILE"][:3]
    ['tile (2,2)', 'tile (1,4)', 'tile (4,1)']
    """
    return [case for operator in OPERATORS for case in operator()]
