"""Differential tests: dmljax's functional faces against onnxruntime's CPU kernels.

Each ONNX operator dmljax shares (Concat, EyeLike, Gather, GatherElements, GatherND, OneHot,
Pad, ReverseSequence, ScatterElements, ScatterND, Slice, Split, Tile and Trilu) runs as a
one-node ONNX model on onnxruntime's CPU execution provider, and its result must equal the
functional face's, bit for bit, on hypothesis-drawn shapes, dtypes, axes and in-range
indices. Every property runs
DMLJAX_ONNX_EXAMPLES examples (200 unless set). Where ONNX and DirectML
differ, a short test per difference states it and checks dmljax's documented rule.

Every new shape, dtype or axis compiles a new XLA program, so the shapes are kept
small (dimensions up to 3 or 4) and the ONNX sessions are reused per signature.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import math
import os
from collections.abc import Sequence
from typing import Any

import hypothesis
import jax
import numpy as np
import pytest
from hypothesis import event, given, settings, strategies as st

import dmljax as dml
from tests import helpers

onnx_helper = pytest.importorskip("onnx.helper")
ort = pytest.importorskip("onnxruntime")

EXAMPLES = int(os.environ.get("DMLJAX_ONNX_EXAMPLES", "200"))

# The opset each operator is built at: 13 is the current Gather, GatherElements,
# GatherND (with batch_dims), Tile and Slice; ScatterElements and ScatterND need 18 for
# the "max" and "min" reductions.
OPSETS = {
    "Concat": 13,
    "EyeLike": 21,
    "Gather": 13,
    "OneHot": 11,
    "GatherElements": 13,
    "GatherND": 13,
    "Pad": 21,
    "ReverseSequence": 10,
    "ScatterElements": 18,
    "ScatterND": 18,
    "Slice": 13,
    "Split": 18,
    "Tile": 13,
    "Trilu": 14,
}
# IR version 8 came with opset 18 (ONNX 1.13); every onnxruntime the tests allow reads it.
IR_VERSION = 8

# The data types both sides hold without jax_enable_x64. bfloat16 is left out:
# onnxruntime's Python binding cannot take NumPy's (ml_dtypes') bfloat16 arrays.
DTYPES = tuple(
    np.dtype(t)
    for t in (
        np.float32,
        np.float16,
        np.int8,
        np.uint8,
        np.int16,
        np.uint16,
        np.int32,
        np.uint32,
        np.bool_,
    )
)
# JAX holds these only under jax_enable_x64; the tests switch it on around them.
DTYPES_64 = tuple(np.dtype(t) for t in (np.float64, np.int64, np.uint64))
ALL_DTYPES = DTYPES + DTYPES_64
# ONNX's index types (Tind) for Gather, GatherElements, ScatterElements and Slice.
INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))
INT32, INT64 = np.iinfo(np.int32), np.iinfo(np.int64)

OnnxRuntimeFailure = (
    ort.capi.onnxruntime_pybind11_state.Fail,
    ort.capi.onnxruntime_pybind11_state.InvalidArgument,
)


# --- Running one ONNX node -----------------------------------------------------------------------


# The input whose type the output has, where it is not the first (OneHot's values).
_OUTPUT_TYPE_OF = {"OneHot": 2}


@functools.cache
def _session(
    op: str,
    inputs: tuple[tuple[str, np.dtype[Any] | None, int], ...],
    attrs: tuple[Any, ...],
    outputs: int = 1,
) -> Any:
    """An InferenceSession for one node; inputs are (name, dtype, rank), dtype None = omitted.

    The inputs have symbolic sizes, so one session serves every shape of a rank.
    """
    graph_inputs = [
        onnx_helper.make_tensor_value_info(
            name, onnx_helper.np_dtype_to_tensor_dtype(dtype), [f"{name}{d}" for d in range(rank)]
        )
        for name, dtype, rank in inputs
        if dtype is not None
    ]
    data_type = graph_inputs[_OUTPUT_TYPE_OF.get(op, 0)].type.tensor_type.elem_type
    names = [f"y{i}" for i in range(outputs)]
    node = onnx_helper.make_node(
        op, [name if dtype is not None else "" for name, dtype, _ in inputs], names, **dict(attrs)
    )
    graph = onnx_helper.make_graph(
        [node],
        op,
        graph_inputs,
        [onnx_helper.make_tensor_value_info(name, data_type, None) for name in names],
    )
    model = onnx_helper.make_model(
        graph,
        opset_imports=[onnx_helper.make_opsetid("", OPSETS[op])],
        ir_version=IR_VERSION,
    )
    options = ort.SessionOptions()
    options.log_severity_level = 4  # the tests that expect a failure catch it; don't log it too
    return ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def run_onnx(op: str, inputs: dict[str, np.ndarray | None], **attrs: Any) -> np.ndarray:
    """``op`` on onnxruntime's CPU provider; the first input is the data, None omits an input."""
    (y,) = run_onnx_outputs(op, inputs, 1, **attrs)
    return y


def run_onnx_outputs(
    op: str, inputs: dict[str, np.ndarray | None], outputs: int, **attrs: Any
) -> list[np.ndarray]:
    """:func:`run_onnx` of a node with ``outputs`` outputs (Split)."""
    signature = tuple(
        (name, None if a is None else a.dtype, 0 if a is None else a.ndim)
        for name, a in inputs.items()
    )
    session = _session(op, signature, tuple(sorted(attrs.items())), outputs)
    return session.run(None, {name: a for name, a in inputs.items() if a is not None})


def x64_for(dtype: np.dtype[Any]) -> contextlib.AbstractContextManager[Any]:
    """jax_enable_x64 on exactly for the 64-bit data types, which JAX holds only then."""
    return jax.enable_x64(dtype in DTYPES_64)


def assert_same(actual: Any, expected: np.ndarray) -> None:
    """Equal values, shape and dtype (float16 and bool included)."""
    np.testing.assert_array_equal(np.asarray(actual), expected, strict=True)


# --- Strategies ----------------------------------------------------------------------------------


def sizes(low: int = 0, high: int = 3) -> st.SearchStrategy[int]:
    return st.integers(low, high)


@st.composite
def data_and_axis(
    draw: st.DrawFn, dtypes: Sequence[np.dtype[Any]] = ALL_DTYPES
) -> tuple[tuple[int, ...], int, np.dtype[Any]]:
    """A data shape (rank 1 to 3, a non-empty axis), an axis (maybe negative) and a dtype."""
    rank = draw(st.integers(1, 3))
    shape = list(draw(st.lists(sizes(), min_size=rank, max_size=rank)))
    axis = draw(st.integers(-rank, rank - 1))
    shape[axis] = draw(sizes(1, 4))
    return tuple(shape), axis, draw(st.sampled_from(dtypes))


@st.composite
def elementwise_index_shape(
    draw: st.DrawFn, shape: tuple[int, ...], axis: int, axis_size: st.SearchStrategy[int]
) -> tuple[int, ...]:
    """The rank of ``shape``; off ``axis`` no larger (ONNX allows smaller), on it drawn."""
    index_shape = [draw(st.integers(0, size)) for size in shape]
    index_shape[axis] = draw(axis_size)
    return tuple(index_shape)


def in_range_indices(
    rng: np.random.Generator, shape: tuple[int, ...], dim: int, dtype: np.dtype[Any]
) -> np.ndarray:
    """Indices in ``[-dim, dim)``: negative ones count from the end in both ONNX and dmljax."""
    return rng.integers(-dim, dim, size=shape).astype(dtype)


def unique_line_indices(
    rng: np.random.Generator, shape: tuple[int, ...], axis: int, dim: int, dtype: np.dtype[Any]
) -> np.ndarray:
    """Indices that never repeat a target along ``axis`` (``shape[axis] <= dim``), half negative.

    Duplicate targets without a reduction are undefined in ONNX and in DirectML.
    """
    lines = tuple(size for d, size in enumerate(shape) if d != axis % len(shape))
    targets = rng.permuted(np.broadcast_to(np.arange(dim), (*lines, dim)), axis=-1)
    targets = np.moveaxis(targets[..., : shape[axis]], -1, axis)
    negative = rng.random(targets.shape) < 0.5
    return np.where(negative, targets - dim, targets).astype(dtype)


def small_integers(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype[Any], bound: int
) -> np.ndarray:
    """Whole numbers in ``[-bound, bound]`` (``[0, bound]`` unsigned), exact in every dtype.

    Sums and products of a few of them are exact too, so add and mul give the
    same result in any order: the two sides need not combine duplicates alike.
    """
    low = 0 if dtype.kind == "u" else -bound
    return rng.integers(low, bound, size=shape, endpoint=True).astype(dtype)


# --- Gather --------------------------------------------------------------------------------------


@settings(max_examples=EXAMPLES)
@given(
    case=data_and_axis(),
    index_shape=st.lists(sizes(), max_size=2).map(tuple),
    index_dtype=st.sampled_from(INDEX_DTYPES),
    rng=helpers.seeds(),
)
def test_gather_matches_onnxruntime(case, index_shape, index_dtype, rng):
    shape, axis, dtype = case
    x = helpers.random_array(rng, shape, dtype)
    indices = in_range_indices(rng, index_shape, shape[axis], index_dtype)
    expected = run_onnx("Gather", {"data": x, "indices": indices}, axis=axis)
    with x64_for(dtype):
        assert_same(dml.gather(x, indices, axis=axis), expected)


# --- GatherElements ------------------------------------------------------------------------------


@st.composite
def gather_elements_cases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int]:
    shape, axis, dtype = draw(data_and_axis())
    index_shape = draw(elementwise_index_shape(shape, axis, sizes(0, 4)))
    index_dtype = draw(st.sampled_from(INDEX_DTYPES))
    rng = draw(helpers.seeds())
    x = helpers.random_array(rng, shape, dtype)
    return x, in_range_indices(rng, index_shape, shape[axis], index_dtype), axis


@settings(max_examples=EXAMPLES)
@given(case=gather_elements_cases())
def test_gather_elements_matches_onnxruntime(case):
    x, indices, axis = case
    expected = run_onnx("GatherElements", {"data": x, "indices": indices}, axis=axis)
    with x64_for(x.dtype):
        assert_same(dml.gather_elements(x, indices, axis=axis), expected)


# --- ScatterElements -----------------------------------------------------------------------------


def run_scatter_elements(
    x: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, axis: int, reduction: str
) -> np.ndarray:
    return run_onnx(
        "ScatterElements",
        {"data": x, "indices": indices, "updates": updates},
        axis=axis,
        reduction=reduction,
    )


@st.composite
def scatter_cases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Overwrites: at most one update per target, so the result is defined."""
    shape, axis, dtype = draw(data_and_axis())
    index_shape = draw(elementwise_index_shape(shape, axis, sizes(0, shape[axis])))
    index_dtype = draw(st.sampled_from(INDEX_DTYPES))
    rng = draw(helpers.seeds())
    x = helpers.random_array(rng, shape, dtype)
    indices = unique_line_indices(rng, index_shape, axis, shape[axis], index_dtype)
    return x, indices, helpers.random_array(rng, index_shape, dtype), axis


@settings(max_examples=EXAMPLES)
@given(case=scatter_cases())
def test_scatter_elements_matches_onnxruntime(case):
    x, indices, updates, axis = case
    expected = run_scatter_elements(x, indices, updates, axis=axis, reduction="none")
    with x64_for(x.dtype):
        assert_same(dml.scatter(x, indices, updates, axis=axis), expected)


# onnxruntime's CPU kernel has no float16 add or mul ("MLFloat16 data type is not
# supported with ScatterElements ... when reduction is 'add'"), and no bool max or
# min, while dmljax refuses bool add and mul: bool has no reduction on both sides.
REDUCTION_DTYPES = {
    "add": tuple(d for d in ALL_DTYPES if d not in (np.dtype(np.float16), np.dtype(np.bool_))),
    "max": tuple(d for d in ALL_DTYPES if d != np.dtype(np.bool_)),
}
REDUCTION_DTYPES["mul"] = REDUCTION_DTYPES["add"]
REDUCTION_DTYPES["min"] = REDUCTION_DTYPES["max"]


@st.composite
def scatter_reduction_cases(
    draw: st.DrawFn,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, str]:
    """Reductions: duplicate targets allowed (up to 4 per target), exact values for add/mul."""
    reduction = draw(st.sampled_from(sorted(REDUCTION_DTYPES)))
    shape, axis, dtype = draw(data_and_axis(REDUCTION_DTYPES[reduction]))
    index_shape = draw(elementwise_index_shape(shape, axis, sizes(0, 4)))
    index_dtype = draw(st.sampled_from(INDEX_DTYPES))
    rng = draw(helpers.seeds())
    indices = in_range_indices(rng, index_shape, shape[axis], index_dtype)
    if reduction in ("add", "mul"):
        # |4 + 4 * 4| and |4 * 2**4| stay below 127: exact even in int8.
        x = small_integers(rng, shape, dtype, bound=4)
        updates = small_integers(rng, index_shape, dtype, bound=4 if reduction == "add" else 2)
    else:  # max and min are exact in any order: the dtype's whole range
        x = helpers.random_array(rng, shape, dtype)
        updates = helpers.random_array(rng, index_shape, dtype)
    return x, indices, updates, axis, reduction


@settings(max_examples=EXAMPLES)
@given(case=scatter_reduction_cases())
def test_scatter_elements_reductions_match_onnxruntime(case):
    x, indices, updates, axis, reduction = case
    event(reduction)
    expected = run_scatter_elements(x, indices, updates, axis=axis, reduction=reduction)
    with x64_for(x.dtype):
        assert_same(dml.scatter(x, indices, updates, axis=axis, reduction=reduction), expected)


# --- GatherND and ScatterND ----------------------------------------------------------------------


def in_range_tuples(
    rng: np.random.Generator, positions: tuple[int, ...], dims: Sequence[int], *, negative: bool
) -> np.ndarray:
    """int64 index tuples (ONNX's only index type here), each coordinate in its dimension;
    with ``negative``, in ``[-dim, dim)``, counting from the end in both ONNX and dmljax."""
    columns = [
        rng.integers(-dim if negative else 0, dim, size=positions, dtype=np.int64) for dim in dims
    ]
    return np.stack(columns, axis=-1) if columns else np.zeros((*positions, 0), np.int64)


@st.composite
def gather_nd_cases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int]:
    """Data of rank 1 to 4, 0 to rank-1 batch dimensions, tuples of 1 to the rest."""
    rank = draw(st.integers(1, 4))
    batch = draw(st.integers(0, rank - 1))
    t = draw(st.integers(1, rank - batch))
    shape = [draw(sizes(0, 3)) for _ in range(rank)]
    for d in range(batch, batch + t):
        shape[d] = draw(sizes(1, 3))  # tuples need something to address
    positions = tuple(draw(st.lists(sizes(0, 3), max_size=2)))
    dtype = draw(st.sampled_from(ALL_DTYPES))
    rng = draw(helpers.seeds())
    x = helpers.random_array(rng, tuple(shape), dtype)
    indices = in_range_tuples(
        rng, (*shape[:batch], *positions), shape[batch : batch + t], negative=True
    )
    return x, indices, batch


@settings(max_examples=EXAMPLES)
@given(case=gather_nd_cases())
def test_gather_nd_matches_onnxruntime(case):
    x, indices, batch = case
    event(f"batch_dims={batch}")
    expected = run_onnx("GatherND", {"data": x, "indices": indices}, batch_dims=batch)
    with x64_for(x.dtype):
        assert_same(dml.gather_nd(x, indices, batch_dims=batch), expected)


# onnxruntime's ScatterND kernel has no float16 reduction at all ("MLFloat16 data type is not
# supported with ScatterND opset 18 when reduction is 'max'").
SCATTER_ND_REDUCTION_DTYPES = {
    reduction: tuple(d for d in dtypes if d != np.dtype(np.float16))
    for reduction, dtypes in REDUCTION_DTYPES.items()
}


def run_scatter_nd(
    x: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, reduction: str
) -> np.ndarray:
    return run_onnx(
        "ScatterND", {"data": x, "indices": indices, "updates": updates}, reduction=reduction
    )


@st.composite
def scatter_nd_cases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Overwrites with distinct tuples (duplicates are undefined in ONNX and DirectML), and
    every reduction with duplicates (exact values for add and mul)."""
    reduction = draw(st.sampled_from(["none", *sorted(REDUCTION_DTYPES)]))
    rank = draw(st.integers(1, 4))
    t = draw(st.integers(1, rank))
    shape = [draw(sizes(1, 3)) for _ in range(t)] + [draw(sizes(0, 3)) for _ in range(rank - t)]
    dtype = draw(
        st.sampled_from(
            ALL_DTYPES if reduction == "none" else SCATTER_ND_REDUCTION_DTYPES[reduction]
        )
    )
    rng = draw(helpers.seeds())
    blocks = int(np.prod(shape[:t]))
    if reduction == "none":
        count = draw(st.integers(0, blocks))
        flat = rng.permutation(blocks)[:count]
        indices = np.stack(np.unravel_index(flat, shape[:t]), axis=-1).astype(np.int64)
        indices = indices.reshape(count, t)
    else:
        indices = in_range_tuples(rng, (draw(sizes(0, 5)),), shape[:t], negative=False)
    block = (*indices.shape[:-1], *shape[t:])
    if reduction in ("add", "mul"):
        x = small_integers(rng, tuple(shape), dtype, bound=4)
        updates = small_integers(rng, block, dtype, bound=4 if reduction == "add" else 2)
    else:
        x = helpers.random_array(rng, tuple(shape), dtype)
        updates = helpers.random_array(rng, block, dtype)
    return x, indices, updates, reduction


@settings(max_examples=EXAMPLES)
@given(case=scatter_nd_cases())
def test_scatter_nd_matches_onnxruntime(case):
    x, indices, updates, reduction = case
    event(reduction)
    expected = run_scatter_nd(x, indices, updates, reduction=reduction)
    with x64_for(x.dtype):
        assert_same(dml.scatter_nd(x, indices, updates, reduction=reduction), expected)


# --- Tile ----------------------------------------------------------------------------------------


@settings(max_examples=EXAMPLES)
@given(
    shape=st.lists(sizes(), min_size=1, max_size=3).map(tuple),
    dtype=st.sampled_from(ALL_DTYPES),
    data=st.data(),
    rng=helpers.seeds(),
)
def test_tile_matches_onnxruntime(shape, dtype, data, rng):
    repeats = data.draw(st.lists(sizes(), min_size=len(shape), max_size=len(shape)).map(tuple))
    x = helpers.random_array(rng, shape, dtype)
    expected = run_onnx("Tile", {"input": x, "repeats": np.array(repeats, np.int64)})
    with x64_for(dtype):
        assert_same(dml.tile(x, repeats), expected)


# --- Pad -----------------------------------------------------------------------------------------

ONNX_PAD_MODES = {"constant": "constant", "edge": "edge", "reflect": "reflection", "wrap": "wrap"}
# onnxruntime's CPU Pad has no 16-bit integer kernel (1.32).
PAD_DTYPES = tuple(t for t in ALL_DTYPES if t not in (np.dtype(np.int16), np.dtype(np.uint16)))


@st.composite
def pad_cases(draw: st.DrawFn) -> tuple[np.ndarray, tuple[int, ...], tuple[int, ...], str, Any]:
    """Data, per-axis (start, end) paddings with crops, a mode, and the axes ONNX is told
    (None: every axis) with the pads of the others left 0."""
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(sizes(1, 4), min_size=rank, max_size=rank)))
    onnx_mode = draw(st.sampled_from(sorted(ONNX_PAD_MODES)))
    dtype = draw(st.sampled_from(PAD_DTYPES))
    start, end = [], []
    for n in shape:
        a = draw(st.integers(-n, 5))
        b = draw(st.integers(-(n - max(-a, 0)), 5))
        kept = n - max(-a, 0) - max(-b, 0)
        if onnx_mode != "constant" and kept == 0:  # onnxruntime refuses an empty result
            a, b, kept = max(a, 0), max(b, 0), n
        if onnx_mode == "reflect":  # onnxruntime mirrors at most kept - 1 elements
            a, b = min(a, kept - 1), min(b, kept - 1)
        if onnx_mode == "wrap":
            # onnxruntime's wrap reads memory outside the input for a pad longer than the
            # dimension (a different value each run, on the GPU machine's build); numpy's
            # wrap checks those in test_padding.py.
            a, b = min(a, kept), min(b, kept)
        start.append(a)
        end.append(b)
    axes = None
    if draw(st.booleans()):
        axes = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
        for d in set(range(rank)) - set(axes):
            start[d] = end[d] = 0
    x = helpers.random_array(draw(helpers.seeds()), shape, dtype)
    return x, tuple(start), tuple(end), onnx_mode, axes


@settings(max_examples=EXAMPLES)
@given(case=pad_cases(), value=st.integers(0, 1))
def test_pad_matches_onnxruntime(case, value):
    x, start, end, onnx_mode, axes = case
    padded = range(x.ndim) if axes is None else axes
    pads = [*(start[a] for a in padded), *(end[a] for a in padded)]
    inputs: dict[str, np.ndarray | None] = {"data": x, "pads": np.array(pads, np.int64)}
    inputs["constant_value"] = np.array(value).astype(x.dtype) if onnx_mode == "constant" else None
    if axes is not None:
        # ONNX names the axes as it likes, negative ones too; the pads follow that order.
        inputs["axes"] = np.array([a - x.ndim if a % 2 else a for a in axes], np.int64)
    expected = run_onnx("Pad", inputs, mode=onnx_mode)
    with x64_for(x.dtype):
        actual = dml.pad(x, start, end, mode=ONNX_PAD_MODES[onnx_mode], value=value)
    assert_same(actual, expected)


@pytest.mark.parametrize(
    ("shape", "start", "end", "onnx_mode"),
    [
        ((0,), -1, 1, "constant"), ((0,), -1, 1, "edge"), ((0,), -1, 1, "reflect"),
        ((0, 2), -1, 1, "edge"), ((3,), -4, 1, "constant"), ((0,), -1, 2, "constant"),
        ((3,), -4, 3, "constant"),
    ],
)  # fmt: skip
def test_pad_crops_past_the_dimension_as_onnxruntime(shape, start, end, onnx_mode):
    # An empty result whatever the crops; in constant mode each element is the input
    # element it lands on or the value, however far the crop reaches.
    x = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    pads = np.zeros(2 * len(shape), np.int64)
    pads[0], pads[len(shape)] = start, end
    value = np.array(7, np.float32) if onnx_mode == "constant" else None
    expected = run_onnx("Pad", {"data": x, "pads": pads, "constant_value": value}, mode=onnx_mode)
    starts = (start, *[0] * (len(shape) - 1))
    ends = (end, *[0] * (len(shape) - 1))
    assert_same(dml.pad(x, starts, ends, mode=ONNX_PAD_MODES[onnx_mode], value=7), expected)


# --- Concat and Split ----------------------------------------------------------------------------


@st.composite
def parts_along_an_axis(
    draw: st.DrawFn,
) -> tuple[list[tuple[int, ...]], int, np.dtype[Any], np.random.Generator]:
    """1 to 8 part shapes (rank 1 to 3) equal but along an axis, where any may be 0."""
    rank = draw(st.integers(1, 3))
    shape = list(draw(st.lists(sizes(1, 3), min_size=rank, max_size=rank)))
    axis = draw(st.integers(-rank, rank - 1))
    along = draw(st.lists(sizes(0, 3), min_size=1, max_size=8))
    shapes = []
    for n in along:
        shape[axis] = n
        shapes.append(tuple(shape))
    return shapes, axis, draw(st.sampled_from(ALL_DTYPES)), draw(helpers.seeds())


@settings(max_examples=EXAMPLES)
@given(case=parts_along_an_axis())
def test_concat_matches_onnxruntime(case):
    shapes, axis, dtype, rng = case
    parts = [helpers.random_array(rng, shape, dtype) for shape in shapes]
    expected = run_onnx("Concat", {f"x{i}": x for i, x in enumerate(parts)}, axis=axis)
    with x64_for(dtype):
        assert_same(dml.join(parts, axis=axis), expected)


@settings(max_examples=EXAMPLES)
@given(case=parts_along_an_axis(), equal=st.booleans())
def test_split_matches_onnxruntime(case, equal):
    shapes, axis, dtype, rng = case
    along = [shape[axis] for shape in shapes]
    if equal:  # num_outputs: equal parts (ONNX lets the last be smaller; dmljax does not)
        along = [along[0] or 1] * len(along)
    whole = list(shapes[0])
    whole[axis] = sum(along)
    x = helpers.random_array(rng, tuple(whole), dtype)
    if equal:
        expected = run_onnx_outputs("Split", {"input": x}, len(along), axis=axis,
                                    num_outputs=len(along))  # fmt: skip
        sizes: int | tuple[int, ...] = len(along)
    else:
        split = np.array(along, np.int64)
        expected = run_onnx_outputs("Split", {"input": x, "split": split}, len(along), axis=axis)
        sizes = tuple(along)
    with x64_for(dtype):
        actual = dml.split(x, sizes, axis=axis)
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        assert_same(got, want)


# --- OneHot --------------------------------------------------------------------------------------

# The (indices, values, depth) types onnxruntime's CPU OneHot kernel is registered for.
ONE_HOT_TYPES = (
    (np.int64, np.int64, np.int64),
    (np.int64, np.float32, np.int64),
    (np.int32, np.float32, np.int32),
    (np.int32, np.float32, np.float32),
    (np.int64, np.int32, np.float32),
    (np.int64, np.float32, np.int32),
)


@settings(max_examples=EXAMPLES)
@given(
    shape=st.lists(sizes(0, 3), min_size=1, max_size=3),  # OneHot-11 takes no 0-D indices
    depth=st.integers(1, 5),
    data=st.data(),
    types=st.sampled_from(ONE_HOT_TYPES),
    rng=helpers.seeds(),
)
def test_one_hot_matches_onnxruntime(shape, depth, data, types, rng):
    """ONNX OneHot has DirectML's rules: negatives from -depth count from the end, indices
    outside [-depth, depth) give an all-off sequence."""
    index_type, value_type, depth_type = (np.dtype(t) for t in types)
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    indices = rng.integers(-depth - 2, depth + 2, size=tuple(shape), endpoint=True)
    indices = indices.astype(index_type)
    values = rng.permutation(np.arange(-3, 7)).astype(value_type)[:2]
    expected = run_onnx(
        "OneHot",
        {"indices": indices, "depth": np.array(depth, depth_type), "values": values},
        axis=axis,
    )
    with x64_for(value_type):
        assert_same(dml.one_hot(indices, values, depth=depth, axis=axis), expected)


# --- ReverseSequence -----------------------------------------------------------------------------


@settings(max_examples=EXAMPLES)
@given(
    shape=st.lists(sizes(1, 4), min_size=2, max_size=4),
    batch_axis=st.integers(0, 1),
    dtype=st.sampled_from(ALL_DTYPES),
    rng=helpers.seeds(),
)
def test_reverse_sequence_matches_onnxruntime(shape, batch_axis, dtype, rng):
    """ONNX ReverseSequence is REVERSE_SUBSEQUENCES with one length per batch entry, broadcast
    along every other axis: its ``sequence_lens`` reshaped to the batch axis."""
    time_axis = 1 - batch_axis
    x = helpers.random_array(rng, tuple(shape), dtype)
    lens = rng.integers(0, shape[time_axis], size=shape[batch_axis], endpoint=True)
    expected = run_onnx(
        "ReverseSequence",
        {"input": x, "sequence_lens": lens.astype(np.int64)},
        batch_axis=batch_axis,
        time_axis=time_axis,
    )
    lengths = lens.reshape((-1, 1) if batch_axis == 0 else (-1,))
    with x64_for(dtype):
        assert_same(dml.reverse_subsequences(x, lengths[(...,) + (None,) * (len(shape) - 2)],
                                             axis=time_axis), expected)  # fmt: skip


# --- EyeLike and Trilu ---------------------------------------------------------------------------

INT32_MIN_MAX = (-(2**31), 2**31 - 1)


def _runs_on_onnxruntime(op: str, dtype: np.dtype[Any], **attrs: Any) -> bool:
    """Whether onnxruntime's CPU provider has a kernel of ``op`` for ``dtype``."""
    try:
        if op == "Trilu":
            run_onnx(op, {"input": np.zeros((2, 2), dtype), "k": np.array(0, np.int64)}, **attrs)
        else:
            run_onnx(op, {"input": np.zeros((2, 2), dtype)}, **attrs)
    except (*OnnxRuntimeFailure, ort.capi.onnxruntime_pybind11_state.NotImplemented):
        return False
    return True


@settings(max_examples=EXAMPLES)
@given(
    shape=st.tuples(sizes(0, 5), sizes(0, 5)),
    k=st.integers(-6, 6),
    dtype=st.sampled_from(ALL_DTYPES),
)
def test_eye_like_matches_onnxruntime(shape, k, dtype):
    """EyeLike is DIAGONAL_MATRIX(1) without an input: the band [k, k + 1) of ones."""
    hypothesis.assume(_runs_on_onnxruntime("EyeLike", dtype, k=0))
    x = np.zeros(shape, dtype)
    expected = run_onnx("EyeLike", {"input": x}, k=k)
    with x64_for(dtype):
        like = jax.ShapeDtypeStruct(shape, dtype)
        assert_same(dml.diagonal_matrix(like, fill_begin=k, fill_end=k + 1), expected)


@settings(max_examples=EXAMPLES)
@given(
    shape=st.lists(sizes(0, 4), min_size=2, max_size=4),
    k=st.integers(-6, 6),
    upper=st.integers(0, 1),
    dtype=st.sampled_from(ALL_DTYPES),
    rng=helpers.seeds(),
)
def test_trilu_matches_onnxruntime(shape, k, upper, dtype, rng):
    """Trilu zeroes a triangle: DIAGONAL_MATRIX1 with value 0 and a band reaching INT32_MIN
    (upper: below diagonal k) or INT32_MAX (lower: above it), as onnxruntime's DirectML
    provider builds it."""
    hypothesis.assume(_runs_on_onnxruntime("Trilu", dtype, upper=upper))
    x = helpers.random_array(rng, tuple(shape), dtype)
    expected = run_onnx("Trilu", {"input": x, "k": np.array(k, np.int64)}, upper=upper)
    low, high = INT32_MIN_MAX
    begin, end = (low, k) if upper else (k + 1, high)
    with x64_for(dtype):
        assert_same(dml.diagonal_matrix(x, value=0, fill_begin=begin, fill_end=end), expected)


# --- Slice ---------------------------------------------------------------------------------------


def slice_steps(index_dtype: np.dtype[Any]) -> st.SearchStrategy[int]:
    """Short steps either way, and the longest that Tind holds."""
    info = np.iinfo(index_dtype)
    return st.sampled_from([1, -1, 2, -2, 3, -3, int(info.max), int(info.min)])


def beyond_the_axis(dim: int, index_dtype: np.dtype[Any], *, side: int) -> list[int]:
    """Bounds past the front (``side`` -1) or the back (+1) of an axis, sentinels included."""
    info = np.iinfo(index_dtype)
    if side < 0:
        values = [-dim - 1, -dim - 3, int(INT32.min), -(2**40), int(INT64.min)]
    else:
        values = [dim + 1, dim + 3, int(INT32.max), 2**40, int(INT64.max)]
    return [v for v in values if info.min <= v <= info.max]


def spellings(position: int, dim: int, beyond: list[int]) -> st.SearchStrategy[int]:
    """The bounds ONNX reads as ``position``: from the front, from the back, or ``beyond``."""
    in_axis = [position, position - dim] if 0 <= position < dim else []
    return st.sampled_from([*in_axis, *beyond])


@st.composite
def slice_axis(draw: st.DrawFn, dim: int, index_dtype: np.dtype[Any]) -> tuple[int, int, int]:
    """``(start, end, step)`` for one axis.

    Mostly a non-empty slice, its bounds spelled in each way ONNX reads alike;
    otherwise any bounds, which are often empty or departures of the CPU kernel.
    """
    step = draw(slice_steps(index_dtype))
    front = beyond_the_axis(dim, index_dtype, side=-1)
    back = beyond_the_axis(dim, index_dtype, side=1)
    # sampled_from leans towards its first element, so list the common case first.
    if dim == 0 or draw(st.sampled_from(["non-empty", "non-empty", "any"])) == "any":
        bounds = st.one_of(st.integers(-dim - 3, dim + 3), st.sampled_from(front + back))
        return draw(bounds), draw(bounds), step
    low = draw(st.integers(0, dim - 1))
    high = draw(st.integers(low + 1, dim))  # the elements [low, high) of the axis
    if step > 0:
        start = draw(spellings(low, dim, front if low == 0 else []))
        end = draw(spellings(high, dim, back if high == dim else []))
    else:  # from high - 1 down to low - 1 (exclusive)
        start = draw(spellings(high - 1, dim, back if high == dim else []))
        end = draw(spellings(low - 1, dim, front if low == 0 else []))
    return start, end, step


@dataclasses.dataclass(frozen=True)
class SliceInputs:
    """ONNX Slice's inputs after ``data``, all of one Tind; None leaves one out."""

    starts: np.ndarray
    ends: np.ndarray
    axes: np.ndarray | None = None
    steps: np.ndarray | None = None

    def axis_bounds(self, rank: int) -> list[tuple[int, int, int, int]]:
        """``(axis, start, end, step)`` per sliced axis, as Python ints, axes from 0."""
        count = len(self.starts)
        axes = range(count) if self.axes is None else [int(a) % rank for a in self.axes]
        steps = [1] * count if self.steps is None else [int(s) for s in self.steps]
        return [
            (axis, int(start), int(end), step)
            for axis, start, end, step in zip(axes, self.starts, self.ends, steps, strict=True)
        ]

    def run_onnx(self, x: np.ndarray) -> np.ndarray:
        return run_onnx("Slice", {"data": x, **dataclasses.asdict(self)})

    def run_dmljax(self, x: np.ndarray) -> np.ndarray:
        """The DirectML provider's window (dml.onnx_slice_window), then dml.slice1."""
        window = dml.onnx_slice_window(x.shape, self.starts, self.ends, self.axes, self.steps)
        with x64_for(x.dtype):
            return np.asarray(dml.slice1(x, **window._asdict()))

    def run_numpy(self, x: np.ndarray) -> np.ndarray:
        """NumPy's basic slicing, ``x[start:end:step]`` per sliced axis."""
        index = [slice(None)] * x.ndim
        for axis, start, end, step in self.axis_bounds(x.ndim):
            index[axis] = slice(start, end, step)
        return x[tuple(index)]


def one_axis(start: int, end: int, step: int) -> SliceInputs:
    return SliceInputs(
        np.array([start], np.int64),
        np.array([end], np.int64),
        np.array([0], np.int64),
        np.array([step], np.int64),
    )


@st.composite
def slice_cases(draw: st.DrawFn) -> tuple[np.ndarray, SliceInputs]:
    """Data and ONNX Slice inputs, with ``axes`` and ``steps`` sometimes left out."""
    rank = draw(st.integers(1, 3))
    shape = draw(st.lists(sizes(1, 4), min_size=rank, max_size=rank))
    if draw(st.integers(0, 7)) == 0:  # an empty input one time in eight
        shape[draw(st.integers(0, rank - 1))] = 0
    index_dtype = draw(st.sampled_from(INDEX_DTYPES))
    sliced = draw(st.permutations(range(rank)))[: draw(st.integers(1, rank))]
    axes = [draw(st.sampled_from([a, a - rank])) for a in sliced]
    starts, ends, steps = zip(
        *(draw(slice_axis(shape[a], index_dtype)) for a in sliced), strict=True
    )
    omit_axes = sliced == list(range(len(sliced))) and draw(st.booleans())
    omit_steps = all(step == 1 for step in steps) and draw(st.booleans())
    inputs = SliceInputs(
        np.array(starts, index_dtype),
        np.array(ends, index_dtype),
        None if omit_axes else np.array(axes, index_dtype),
        None if omit_steps else np.array(steps, index_dtype),
    )
    dtype = draw(st.sampled_from(ALL_DTYPES))
    return helpers.random_array(draw(helpers.seeds()), tuple(shape), dtype), inputs


def cpu_kernel_reads_differently(dim: int, start: int, end: int, step: int) -> bool:
    """Whether onnxruntime's CPU Slice reads this axis unlike DirectML's provider (and NumPy).

    Both differences are in negative steps (``slice_helper.h``): an end of
    INT32_MAX or INT64_MAX means "through the first element" to the CPU kernel,
    and a start that is still negative after counting from the back is clamped
    to 0 rather than left before the axis, so the first element is read when
    the end lies before it too. The two tests below state them.
    """
    if step > 0 or dim == 0:
        return False
    if end in (INT32.max, INT64.max):
        return True
    wrapped_start = start + dim if start < 0 else start
    wrapped_end = end + dim if end < 0 else end
    return wrapped_start < 0 and wrapped_end < 0


@settings(max_examples=EXAMPLES)
@given(case=slice_cases())
def test_slice_matches_onnxruntime(case):
    """Slice with negative steps, out-of-range and sentinel bounds, and empty results.

    The result always equals NumPy's slicing, and onnxruntime's CPU kernel's
    unless that kernel departs from the DirectML provider on some axis
    (``cpu_kernel_reads_differently``), which the tests below cover.
    """
    x, inputs = case
    actual = inputs.run_dmljax(x)
    assert_same(actual, inputs.run_numpy(x))
    if not any(
        cpu_kernel_reads_differently(x.shape[axis], start, end, step)
        for axis, start, end, step in inputs.axis_bounds(x.ndim)
    ):
        event("compared with onnxruntime")
        assert_same(actual, inputs.run_onnx(x))
    if actual.size == 0:
        event("empty result")


# --- Where ONNX and DirectML differ --------------------------------------------------------------


def wrap_then_clamp(indices: np.ndarray, dim: int) -> np.ndarray:
    """DirectML's gather rule as dmljax defines it: negatives count from the end, then clamp."""
    return np.clip(np.where(indices < 0, indices + dim, indices), 0, dim - 1)


def test_gather_clamps_out_of_range_indices_where_onnx_refuses():
    """ONNX Gather calls an index outside [-dim, dim) an error, and onnxruntime refuses it.

    DirectML only promises not to read outside the tensor; dmljax makes that
    exact by wrapping negatives and clamping to the nearest valid index.
    """
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    indices = np.array([[4, 9], [-5, -13]], np.int64)
    with pytest.raises(OnnxRuntimeFailure, match="out of"):
        run_onnx("Gather", {"data": x, "indices": indices}, axis=1)
    expected = np.take(x, wrap_then_clamp(indices, 4), axis=1)
    assert_same(dml.gather(x, indices, axis=1), expected)


def test_gather_elements_clamps_out_of_range_indices_where_onnx_refuses():
    """As for Gather: onnxruntime's GatherElements fails, dmljax wraps and clamps."""
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    indices = np.array([[5], [-7], [2]], np.int32)
    with pytest.raises(OnnxRuntimeFailure, match=r"(?i)out of range"):
        run_onnx("GatherElements", {"data": x, "indices": indices}, axis=1)
    expected = np.take_along_axis(x, wrap_then_clamp(indices, 4), axis=1)
    assert_same(dml.gather_elements(x, indices, axis=1), expected)


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatter_drops_out_of_range_updates_where_onnx_refuses(reduction):
    """ONNX ScatterElements calls an index outside [-dim, dim) an error; onnxruntime refuses it.

    DirectML only promises not to write outside the tensor; dmljax drops such
    updates, so the result is what onnxruntime gives for the in-range ones alone.
    """
    x = np.arange(1, 5, dtype=np.float32)
    indices = np.array([1, 4, -1, -5, 0, 7, -6], np.int64)
    updates = np.arange(10, 80, 10, dtype=np.float32)
    with pytest.raises(OnnxRuntimeFailure, match="out of"):
        run_scatter_elements(x, indices, updates, axis=0, reduction=reduction)
    in_range = (indices >= -4) & (indices < 4)
    expected = run_scatter_elements(
        x, indices[in_range], updates[in_range], axis=0, reduction=reduction
    )
    assert_same(dml.scatter(x, indices, updates, axis=0, reduction=reduction), expected)


def test_gather_nd_clamps_out_of_range_coordinates_where_onnx_refuses():
    """ONNX GatherND calls a coordinate outside [-dim, dim) an error; dmljax clamps each one."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    indices = np.array([[3, 1], [-4, 9], [1, -9]], np.int64)
    with pytest.raises(OnnxRuntimeFailure, match=r"(?i)invalid|out of"):
        run_onnx("GatherND", {"data": x, "indices": indices}, batch_dims=0)
    clamped = np.stack([wrap_then_clamp(indices[:, 0], 3), wrap_then_clamp(indices[:, 1], 4)])
    assert_same(dml.gather_nd(x, indices), x[tuple(clamped)])


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatter_nd_drops_out_of_range_tuples_where_onnx_refuses(reduction):
    """ONNX ScatterND calls a tuple out of the data an error; dmljax drops its whole block,
    so the result is what onnxruntime gives for the in-range tuples alone."""
    x = np.arange(1, 9, dtype=np.float32).reshape(4, 2)
    indices = np.array([[1], [4], [-1], [-5], [0], [7]], np.int64)
    updates = np.arange(10, 130, 10, dtype=np.float32).reshape(6, 2)
    with pytest.raises(OnnxRuntimeFailure, match=r"(?i)invalid|out of"):
        run_scatter_nd(x, indices, updates, reduction=reduction)
    in_range = ((indices >= -4) & (indices < 4))[:, 0]
    expected = run_scatter_nd(x, indices[in_range], updates[in_range], reduction=reduction)
    assert_same(dml.scatter_nd(x, indices, updates, reduction=reduction), expected)


def run_dmljax(op: str, x: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray:
    if op == "Gather":
        return np.asarray(dml.gather(x, indices, axis=axis))
    if op == "GatherElements":
        return np.asarray(dml.gather_elements(x, indices, axis=axis))
    return np.asarray(dml.scatter(x, indices, -np.ones(indices.shape, x.dtype), axis=axis))


def run_onnx_op(op: str, x: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray:
    if op == "ScatterElements":
        updates = -np.ones(indices.shape, x.dtype)
        return run_scatter_elements(x, indices, updates, axis=axis, reduction="none")
    return run_onnx(op, {"data": x, "indices": indices}, axis=axis)


@pytest.mark.parametrize(
    ("op", "axis"), [("Gather", 0), ("GatherElements", 1), ("ScatterElements", 0)]
)
def test_negative_indices_count_from_the_end_in_both(op, axis):
    """No difference: ONNX and DirectML (from FL 3_0, signed indices) both wrap negatives."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    dim = x.shape[axis]
    indices = np.moveaxis(np.array([[-1, -dim, 1 - dim]], np.int64), 0, axis)  # one line
    actual = run_dmljax(op, x, indices, axis)
    assert_same(actual, run_onnx_op(op, x, indices, axis))
    assert_same(actual, run_dmljax(op, x, indices + dim, axis))


def test_indices_smaller_than_the_data_off_axis():
    """ONNX and dmljax's functional faces take indices smaller than the data off the axis.

    DirectML's GATHER_ELEMENTS and SCATTER descs require equal sizes there, so
    the desc face refuses what the functional face takes.
    """
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    # 2 rows of the 3, along axis 1; -2 wraps to 2, so no target is written twice.
    indices = np.array([[3, -2], [0, 1]], np.int32)
    updates = np.array([[-1, -2], [-3, -4]], np.float32)
    expected = run_onnx("GatherElements", {"data": x, "indices": indices}, axis=1)
    assert_same(dml.gather_elements(x, indices, axis=1), expected)
    expected = run_scatter_elements(x, indices, updates, axis=1, reduction="none")
    assert_same(dml.scatter(x, indices, updates, axis=1), expected)

    f32, i32 = dml.DataType.FLOAT32, dml.DataType.INT32
    data, small = (dml.TensorDesc(data_type=f32, sizes=s) for s in (x.shape, indices.shape))
    small_indices = dml.TensorDesc(data_type=i32, sizes=indices.shape)
    descs = [
        dml.GatherElementsOperatorDesc(
            input_tensor=data, indices_tensor=small_indices, output_tensor=small, axis=1
        ),
        dml.ScatterOperatorDesc(
            input_tensor=data,
            indices_tensor=small_indices,
            updates_tensor=small,
            output_tensor=data,
            axis=1,
        ),
    ]
    for desc in descs:
        with pytest.raises(dml.errors.InvalidArgumentError, match=r"indices_tensor\.sizes\[0\]"):
            dml.compile_operator(desc)


def test_tile_repeats_of_zero_give_empty_results_in_both():
    """No difference: a repeat of 0 empties its dimension in ONNX and in dmljax.

    (onnxruntime's DirectML provider creates no DirectML operator for it.)
    """
    x = np.arange(6, dtype=np.int8).reshape(2, 3)
    repeats = np.array([0, 2], np.int64)
    expected = run_onnx("Tile", {"input": x, "repeats": repeats})
    assert expected.shape == (0, 6)
    assert_same(dml.tile(x, tuple(repeats)), expected)


@pytest.mark.parametrize("end", [int(INT32.max), int(INT64.max)])
def test_slice_negative_step_to_int_max_end_is_empty_unlike_the_cpu_kernel(end):
    """A negative step with ``end`` INT32_MAX or INT64_MAX: an empty slice in dmljax.

    onnxruntime's CPU kernel reads such an end as "through the first element";
    its DirectML provider (SliceHelper: the window starts at INT32_MAX), the
    ONNX reference implementation and NumPy give an empty slice, and so does dmljax.
    """
    x = np.arange(5, dtype=np.float32)
    inputs = one_axis(3, end, -1)
    assert_same(inputs.run_onnx(x), np.array([3, 2, 1, 0], np.float32))
    assert_same(inputs.run_dmljax(x), np.zeros(0, np.float32))


@pytest.mark.parametrize(("start", "end"), [(-7, -8), (-6, -100), (int(INT64.min), -7)])
def test_slice_negative_step_from_before_the_axis_is_empty_unlike_the_cpu_kernel(start, end):
    """A negative step whose start is still negative after counting from the back: empty.

    onnxruntime's CPU kernel (like the ONNX spec's wording) clamps such a start
    to the first element and reads it when the end lies before it too; the
    DirectML provider's window ``[end + 1, start + 1)`` is empty, as NumPy's
    ``x[start:end:-1]`` is, and so is dmljax's.
    """
    x = np.arange(5, dtype=np.float32)
    inputs = one_axis(start, end, -1)
    assert_same(inputs.run_onnx(x), np.array([0], np.float32))
    assert_same(inputs.run_dmljax(x), np.zeros(0, np.float32))


def test_cpu_kernel_reads_differently_exactly_where_it_departs_from_numpy():
    """The predicate is right on every bound of a small axis, sentinels included.

    It decides which examples the Slice property compares with onnxruntime, so it
    must neither hide a real difference nor skip an axis where both agree.
    """
    x = np.arange(3, dtype=np.int32)
    bounds = [*range(-5, 6), int(INT64.min), int(INT32.min), int(INT32.max), int(INT64.max)]
    for start, end, step in itertools.product(bounds, bounds, (-2, -1, 1, 2)):
        inputs = one_axis(start, end, step)
        differs = not np.array_equal(inputs.run_onnx(x), inputs.run_numpy(x))
        assert differs == cpu_kernel_reads_differently(3, start, end, step), (start, end, step)
