"""REDUCE: every function against the NumPy reference on every type and rank, each
function's support table, the float bounds against float64, NaNs, infinities and wrapping
integers, the rules, and onnxruntime's Reduce* and ArgMax/ArgMin.

The cross-cutting checks (doc examples, the operator's table, transformations, symbolic
shapes, graphs) come from the operator's declaration in tests/test_conformance.py and the
files beside it.
"""

from __future__ import annotations

import math
from typing import Any

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st

import dmljax as dml
from dmljax._src.checking import reference
from dmljax._src.ops.reduce import face_dtypes
from tests import helpers

T = dml.DataType
F = dml.ReduceFunction
L = dml.FeatureLevel
_SEARCHES = (F.ARGMAX, F.ARGMIN)
_X64 = {np.dtype(t) for t in (np.float64, np.int64, np.uint64)}
_NOT_DML = {np.dtype(jnp.bfloat16), np.dtype(np.float64)}  # the faces' own
# (ulps, magnitude): the logarithms and exponentials of XLA's math library are within a
# few ulps of max(|value|, 1); AVERAGE's division (XLA multiplies by the reciprocal of n)
# and L2's square root within one of the value.
_ULPS = {F.LOG_SUM: (4, 1.0), F.LOG_SUM_EXP: (4, 1.0), F.L2: (1, 0.0), F.AVERAGE: (1, 0.0)}


def _want(x: np.ndarray, function: F, axes: tuple[int, ...], index: Any) -> np.ndarray:
    if function in _SEARCHES:
        return reference.arg_extreme(
            x, axes=axes, largest=function is F.ARGMAX, last=False, dtype=np.dtype(index)
        )
    return reference.reduce(x, function=function.function_name, axes=axes)


def _assert_close(got: Any, want: np.ndarray, function: F) -> None:
    got = np.asarray(got)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    ulps, magnitude = _ULPS.get(function, (0, 0.0))
    if ulps == 0:
        np.testing.assert_array_equal(got, want, strict=True)
        return
    eps = float(jnp.finfo(want.dtype).eps)
    wide, expected = got.astype(np.float64), want.astype(np.float64)
    size = np.maximum(np.abs(np.nan_to_num(expected)), magnitude)
    np.testing.assert_array_equal(np.isnan(wide), np.isnan(expected))
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(wide[~finite & ~np.isnan(expected)],
                                  expected[~finite & ~np.isnan(expected)])  # fmt: skip
    assert np.all(np.abs(wide[finite] - expected[finite]) <= ulps * eps * size[finite])


@st.composite
def _draws(draw: st.DrawFn) -> tuple[F, np.dtype[Any], np.ndarray, tuple[int, ...]]:
    function = draw(st.sampled_from(list(F)))
    dtype = draw(st.sampled_from(sorted(face_dtypes(function), key=str)))
    shape = draw(st.lists(st.integers(1, 3), min_size=1, max_size=8))
    rng = draw(helpers.seeds())
    # Small integers (ties for the searches; sums that every type holds, products that
    # wrap in 8 bits); nonnegative for LOG_SUM, whose negative sums are NaN.
    low = 0 if function is F.LOG_SUM or np.dtype(dtype).kind == "u" else -2
    x = rng.integers(low, 2, size=shape, endpoint=True).astype(dtype)
    axes = tuple(sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    return function, np.dtype(dtype), x, axes


@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(case=_draws(), index=st.sampled_from([np.int32, np.uint32, np.int64]))
def test_both_faces_are_the_reference_on_every_function_type_and_rank(case, index):
    function, dtype, x, axes = case
    search = function in _SEARCHES
    want = _want(x, function, axes, index)
    with jax.enable_x64(dtype in _X64 or np.dtype(index) in _X64):
        negative = tuple(a - x.ndim for a in axes)
        got = dml.reduce(x, function.function_name, negative, dtype=index if search else None)
        _assert_close(got, want, function)
        if dtype in _NOT_DML:
            return  # the page has no bfloat16 or float64 reduction
        desc = dml.ReduceOperatorDesc(
            function=function,
            input_tensor=dml.TensorDesc(data_type=T.from_dtype(dtype), sizes=x.shape),
            output_tensor=dml.TensorDesc(data_type=T.from_dtype(want.dtype), sizes=want.shape),
            axes=axes,
        )
        _assert_close(dml.compile_operator(desc)(x), want, function)


def test_a_bfloat16_sum_past_its_precision_is_the_reference_rounded_once():
    # A bfloat16 running sum of ones stops at 256 (256 + 1 rounds back: the spacing there
    # is 2). The reference once tallied bfloat16 in bfloat16 (NumPy counts it no float)
    # and took 296 for 304 (found by the property above): both give 300 here.
    x = np.ones((3, 100), jnp.bfloat16)
    want = np.full((1, 1), 300, jnp.bfloat16)
    np.testing.assert_array_equal(reference.reduce(x, function="sum", axes=(0, 1)), want)
    np.testing.assert_array_equal(dml.reduce(x, "sum", (0, 1)), want)


# --- Each function's support table, restated from the page ----------------------------------------

_FLOATS = {T.FLOAT32, T.FLOAT16}
_SMALL_INTS = {T.INT32, T.INT16, T.INT8, T.UINT32, T.UINT16, T.UINT8}
_WIDE_INTS = {T.INT64, T.UINT64}
_INDICES = {T.INT64, T.INT32, T.UINT64, T.UINT32}
# The page's "Tensor support according to function": (level, ranks, input types, output
# types), output None where it is the input's type.
_PAGE_TABLES: dict[tuple[F, ...], list[tuple[L, tuple[int, int], set[T], set[T] | None]]] = {
    _SEARCHES: [
        (L.FL_1_0, (4, 4), _FLOATS, {T.UINT32}),
        (L.FL_2_1, (4, 4), _FLOATS | _SMALL_INTS, {T.UINT32}),
        (L.FL_3_0, (1, 8), _FLOATS | _SMALL_INTS, _INDICES),
        (L.FL_4_1, (1, 8), _FLOATS | _SMALL_INTS | _WIDE_INTS, _INDICES),
    ],
    (F.AVERAGE, F.L2, F.LOG_SUM, F.LOG_SUM_EXP): [
        (L.FL_1_0, (4, 4), _FLOATS, None),
        (L.FL_3_0, (1, 8), _FLOATS, None),
    ],
    (F.L1, F.SUM_SQUARE): [
        (L.FL_1_0, (4, 4), _FLOATS, None),
        (L.FL_3_0, (1, 8), _FLOATS, None),
        (L.FL_5_0, (1, 8), _FLOATS | {T.INT64, T.INT32, T.UINT64, T.UINT32}, None),
    ],
    (F.MIN, F.MAX): [
        (L.FL_1_0, (4, 4), _FLOATS, None),
        (L.FL_2_1, (4, 4), _FLOATS | {T.INT32, T.UINT32}, None),
        (L.FL_3_0, (1, 8), _FLOATS | _SMALL_INTS, None),
        (L.FL_5_0, (1, 8), _FLOATS | _SMALL_INTS | _WIDE_INTS, None),
    ],
    (F.MULTIPLY, F.SUM): [
        (L.FL_1_0, (4, 4), _FLOATS, None),
        (L.FL_2_1, (4, 4), _FLOATS | {T.INT32, T.UINT32}, None),
        (L.FL_3_0, (1, 8), _FLOATS | {T.INT32, T.UINT32}, None),
        (L.FL_5_0, (1, 8), _FLOATS | {T.INT64, T.INT32, T.UINT64, T.UINT32}, None),
    ],
}
_TYPES = [t for t in T if t is not T.UNKNOWN and t.bit_width >= 8]


def _reduce_desc(function: F, rank: int, data: T, out: T) -> Any:
    sizes = (*(1,) * (rank - 1), 3)
    return dml.ReduceOperatorDesc(
        function=function,
        input_tensor=dml.TensorDesc(data_type=data, sizes=sizes),
        output_tensor=dml.TensorDesc(data_type=out, sizes=(*(1,) * (rank - 1), 1)),
        axes=(rank - 1,),
    )


def _accepted(desc: Any, level: L) -> bool:
    """Whether compile_operator takes ``desc`` at ``level``; a refusal must name the
    tensor and the function whose table refused it."""
    refusal = None
    try:
        dml.compile_operator(desc, feature_level=level)
    except dml.errors.InvalidArgumentError as error:
        refusal = error
    if refusal is None:
        return True
    assert refusal.field.endswith((".sizes", ".data_type")), refusal
    assert f"with function {desc.function.name}" in refusal.expected, refusal
    return False


@pytest.mark.parametrize("functions", list(_PAGE_TABLES), ids=lambda f: "-".join(map(str, f)))
def test_each_function_is_checked_against_its_own_table_at_every_level(functions):
    rows = _PAGE_TABLES[functions]
    with jax.enable_x64(True):
        for level in L:
            in_force = [row for row in rows if row[0] <= level]
            if not in_force:
                continue
            _, (low, high), inputs, outputs = in_force[-1]
            for function in functions:
                for rank in (1, 4, 5, 8):
                    out = T.UINT32 if outputs is not None else T.FLOAT32
                    desc = _reduce_desc(function, rank, T.FLOAT32, out)
                    assert _accepted(desc, level) == (low <= rank <= high), (function, level)
                for data in _TYPES:
                    out = T.UINT32 if outputs is not None else data
                    desc = _reduce_desc(function, low, data, out)
                    assert _accepted(desc, level) == (data in inputs), (function, level, data)
                for out in _TYPES:
                    desc = _reduce_desc(function, low, T.FLOAT32, out)
                    # A value function writes the input's type (FLOAT32 here).
                    allowed = {T.FLOAT32} if outputs is None else outputs
                    assert _accepted(desc, level) == (out in allowed), (function, level, out)


# --- Accuracy against float64 ---------------------------------------------------------------------

_U = 2.0**-24


def test_float32_sums_and_products_are_within_the_bounds_every_order_meets():
    # Any order of n - 1 float32 additions is within (n - 1) u of the sum of the terms'
    # magnitudes; n - 1 multiplications within (n - 1) u relative. Groups of 4096.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 4096)).astype(np.float32)
    near_one = np.exp2(rng.standard_normal((8, 4096)) * 2**-8).astype(np.float32)
    wide, n = x.astype(np.float64), x.shape[1]
    got = {f: np.asarray(dml.reduce(x, f.function_name, 1), np.float64) for f in F
           if f not in _SEARCHES}  # fmt: skip
    magnitude = np.sum(np.abs(wide), 1, keepdims=True)
    squares = np.sum(wide * wide, 1, keepdims=True)
    bound = (n - 1) * _U
    assert np.all(np.abs(got[F.SUM] - wide.sum(1, keepdims=True)) <= bound * magnitude)
    assert np.all(np.abs(got[F.L1] - magnitude) <= bound * magnitude)
    assert np.all(np.abs(got[F.SUM_SQUARE] - squares) <= bound * squares)
    mean = wide.mean(1, keepdims=True)
    assert np.all(np.abs(got[F.AVERAGE] - mean) <= bound * magnitude / n + _U * np.abs(mean))
    l2 = np.sqrt(squares)
    assert np.all(np.abs(got[F.L2] - l2) <= (bound / 2 + 2 * _U) * l2)
    lse = np.log(np.sum(np.exp(wide), 1, keepdims=True))
    assert np.all(np.abs(got[F.LOG_SUM_EXP] - lse) <= 8 * _U * np.maximum(np.abs(lse), 1))
    product = np.asarray(dml.reduce(near_one, "multiply", 1), np.float64)
    exact = np.prod(near_one.astype(np.float64), 1, keepdims=True)
    assert np.all(np.abs(product - exact) <= bound * exact)


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16])
def test_half_precision_computes_in_float32_and_rounds_once(dtype):
    x = (np.random.default_rng(1).standard_normal((16, 256)) * 4).astype(dtype)
    for function in ("sum", "average", "l2", "log_sum_exp", "multiply", "sum_square"):
        got = dml.reduce(x, function, 1)
        wide = dml.reduce(x.astype(np.float32), function, 1)
        np.testing.assert_array_equal(got, np.asarray(wide).astype(dtype), err_msg=function)


# --- NaNs, infinities, signed zeros, empty groups, wrapping integers ------------------------------


def test_max_and_min_skip_nans_and_a_group_of_nans_is_nan():
    x = np.array([[np.nan, 2.0, -1.0], [np.nan, np.nan, np.nan], [-np.inf, np.nan, 0.0]])
    x = x.astype(np.float32)
    np.testing.assert_array_equal(dml.reduce(x, "max", 1).ravel(), [2.0, np.nan, 0.0])
    np.testing.assert_array_equal(dml.reduce(x, "min", 1).ravel(), [-1.0, np.nan, -np.inf])
    # The searches take a NaN as the extreme, as ARGMAX and ARGMIN do; the sums carry it.
    np.testing.assert_array_equal(dml.reduce(x, "argmax", 1).ravel(), [0, 0, 1])
    np.testing.assert_array_equal(dml.reduce(x, "sum", 1).ravel(), [np.nan] * 3)


def test_infinities_and_the_logarithms_edges():
    inf = np.inf
    x = np.array([[inf, 1.0], [inf, -inf], [-inf, -inf], [1000.0, 1000.0]], np.float32)
    np.testing.assert_array_equal(
        dml.reduce(x, "log_sum_exp", 1).ravel(),
        np.array([inf, inf, -inf, 1000.0 + np.log(2.0)], np.float32),
    )
    zeros = np.array([[0.0, 0.0], [-1.0, 0.5]], np.float32)
    np.testing.assert_array_equal(dml.reduce(zeros, "log_sum", 1).ravel(), [-inf, np.nan])
    np.testing.assert_array_equal(dml.reduce(x[:2], "l2", 1).ravel(), [inf, inf])


def test_an_empty_group_is_the_functions_identity():
    x = np.zeros((2, 0), np.float32)
    want = {"sum": 0.0, "average": np.nan, "l1": 0.0, "l2": 0.0, "sum_square": 0.0,
            "multiply": 1.0, "log_sum": -np.inf, "log_sum_exp": -np.inf, "max": -np.inf,
            "min": np.inf, "argmax": 0, "argmin": 0}  # fmt: skip
    for function, value in want.items():
        got = dml.reduce(x, function, 1)
        assert got.shape == (2, 1), function
        np.testing.assert_array_equal(got, np.full((2, 1), value), err_msg=function)
    ints = np.zeros((0, 3), np.int8)
    np.testing.assert_array_equal(dml.reduce(ints, "max", 0), np.full((1, 3), -128, np.int8))
    np.testing.assert_array_equal(dml.reduce(ints, "min", 0), np.full((1, 3), 127, np.int8))


def test_integers_wrap_in_their_type():
    big = np.array([2**31 - 1, 1, 2**30], np.int32)
    assert int(dml.reduce(big, "sum")[0]) == np.int32(-(2**31) + 2**30)
    assert int(dml.reduce(np.array([-(2**31), 0], np.int32), "l1")[0]) == -(2**31)
    assert int(dml.reduce(np.array([2**16, 2**16], np.uint32), "multiply")[0]) == 0
    assert int(dml.reduce(np.array([2**16, 3], np.int32), "sum_square")[0]) == 9
    np.testing.assert_array_equal(
        dml.reduce(np.array([[-128, 127, 5]], np.int8), "min", 1), [[-128]]
    )


def test_the_value_functions_pass_check_grads_to_order_2():
    # Distinct positive values: every function is smooth here (no tie, no |0|, no log of
    # a negative sum). One program of all of them.
    smooth = [f.function_name for f in F if f not in _SEARCHES]
    x = np.array([[0.75, 0.5, 1.25], [1.5, 0.25, 0.375]])

    def all_functions(x: jax.Array) -> Any:
        # Along rows and columns by turns: each axis, and each function, checked once.
        return tuple(dml.reduce(x, function, i % 2) for i, function in enumerate(smooth))

    with jax.enable_x64(True):
        helpers.check_grads_by_primitive(all_functions, (jnp.asarray(x, jnp.float64),))


# --- The rules ------------------------------------------------------------------------------------


def _desc(**changes: Any) -> Any:
    fields: dict[str, Any] = dict(
        function=F.SUM,
        input_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(3, 3)),
        output_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 3)),
        axes=(0,),
    )  # fmt: skip
    fields.update(changes)
    return dml.ReduceOperatorDesc(**fields)


def test_the_rules_are_refused_naming_the_field():
    rows = dml.TensorDesc(data_type=T.FLOAT32, sizes=(3, 1))
    ints = dml.TensorDesc(data_type=T.INT32, sizes=(1, 3))
    cases: tuple[tuple[dict[str, Any], str, str], ...] = (
        ({"axes": (2,)}, "axes[0]", r"\[0, 2\)"),
        ({"axes": (0, 0)}, "axes[1]", "not named before"),
        ({"axes": ()}, "axes", "at least one"),
        ({"output_tensor": rows}, "output_tensor.sizes", "with 1 along axes"),
        ({"output_tensor": ints}, "output_tensor.data_type", "input_tensor's. with function SUM"),
        ({"function": F.ARGMAX}, "output_tensor.data_type", "with function ARGMAX"),
    )
    for changes, field, match in cases:
        helpers.refused(lambda c=changes: dml.compile_operator(_desc(**c)), field=field,
                        match=match, op="ReduceOperatorDesc")  # fmt: skip
    helpers.refused(lambda: _desc(function="MEDIAN"), field="function", match="SUM_SQUARE")
    at_1_0 = _desc(
        input_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 3, 3)),
        output_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 1, 3)),
        axes=(2,), function=F.LOG_SUM,
    )  # fmt: skip
    dml.compile_operator(at_1_0, feature_level=L.FL_1_0)
    error = helpers.refused(
        lambda: dml.compile_operator(_desc(function=F.LOG_SUM), feature_level=L.FL_1_0),
        field="input_tensor.sizes", match="4 dimensions long at FL_1_0 with function LOG_SUM",
    )  # fmt: skip
    assert error.hint == "2 dimensions are supported from FL_3_0."


def test_the_face_refuses_what_the_function_does_not_take():
    x = np.ones((2, 3), np.float32)
    helpers.refused(lambda: dml.reduce(np.ones(3, np.bool_), "max"), field="x", match="bool")
    helpers.refused(lambda: dml.reduce(np.ones(3, np.int8), "sum"), field="x",
                    match="REDUCE's SUM")  # fmt: skip
    helpers.refused(lambda: dml.reduce(np.int32(1), "sum"), field="x", match="0-D")
    helpers.refused(lambda: dml.reduce(x, "sum", ()), field="axes", match="at least one")
    helpers.refused(lambda: dml.reduce(x, "sum", (1, -1)), field="axes[1]", match="axis")
    helpers.refused(lambda: dml.reduce(x, "median"), field="function", match="'sum'")
    helpers.refused(lambda: dml.reduce(x, "sum", dtype=np.float16), field="dtype",
                    match="None or float32")  # fmt: skip
    helpers.refused(lambda: dml.reduce(x, "argmax", dtype=np.float32), field="dtype",
                    match="indices")  # fmt: skip
    assert dml.reduce(x, "sum", dtype=np.float32).dtype == np.float32


# --- onnxruntime ----------------------------------------------------------------------------------

_ONNX = {
    F.SUM: "ReduceSum", F.AVERAGE: "ReduceMean", F.MAX: "ReduceMax", F.MIN: "ReduceMin",
    F.MULTIPLY: "ReduceProd", F.L1: "ReduceL1", F.L2: "ReduceL2", F.LOG_SUM: "ReduceLogSum",
    F.LOG_SUM_EXP: "ReduceLogSumExp", F.SUM_SQUARE: "ReduceSumSquare",
}  # fmt: skip


@hypothesis.settings(max_examples=50, deadline=None)
@hypothesis.given(
    function=st.sampled_from(list(_ONNX)),
    dtype=st.sampled_from([np.float32, np.int32]),
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    data=st.data(),
    rng=helpers.seeds(),
)
def test_the_value_functions_match_onnxruntimes_reductions(function, dtype, shape, data, rng):
    dtype = np.dtype(dtype)
    hypothesis.assume(dtype in face_dtypes(function))
    positive = function in (F.LOG_SUM, F.L2)  # onnxruntime's L2 of ints rounds differently
    hypothesis.assume(not (positive and dtype.kind == "i"))
    x = rng.integers(0 if positive else -3, 3, size=shape, endpoint=True).astype(dtype)
    rank = len(shape)
    drawn = st.sets(st.integers(-rank, rank - 1), min_size=1, max_size=rank)
    axes = sorted(data.draw(drawn.filter(_distinct(rank))))
    # Opset 11: every Reduce* takes its axes as an attribute.
    session = helpers.onnx_session(_ONNX[function], 11, (("axes", tuple(axes)), ("keepdims", 1)),
                                   (dtype,), dtype)  # fmt: skip
    (want,) = session.run(None, {"i0": x})
    got = np.asarray(dml.reduce(x, function.function_name, tuple(axes)))
    if function in _ULPS:
        np.testing.assert_allclose(got, want, rtol=4e-7, atol=4e-7)
    else:
        np.testing.assert_array_equal(got, want, strict=True)


def _distinct(rank: int) -> Any:
    return lambda axes: len({a % rank for a in axes}) == len(axes)


@hypothesis.settings(max_examples=30, deadline=None)
@hypothesis.given(
    largest=st.booleans(),
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    data=st.data(),
    rng=helpers.seeds(),
)
def test_argmax_and_argmin_match_onnxruntime(largest, shape, data, rng):
    x = rng.integers(0, 2, size=shape, endpoint=True).astype(np.float32)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    op = "ArgMax" if largest else "ArgMin"
    attrs = (("axis", axis), ("keepdims", 1), ("select_last_index", 0))
    session = helpers.onnx_session(op, 13, attrs, (np.dtype(np.float32),), np.dtype(np.int64))
    (want,) = session.run(None, {"i0": x})
    function = "argmax" if largest else "argmin"
    with jax.enable_x64(True):
        got = dml.reduce(x, function, axis, dtype=np.int64)
    np.testing.assert_array_equal(got, want, strict=True)


def test_a_group_counts_its_axes_in_the_tensors_order():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for axes in ((0, 2), (2, 0)):
        np.testing.assert_array_equal(dml.reduce(x, "argmax", axes), [[[7], [7], [7]]])
        np.testing.assert_array_equal(dml.reduce(x, "sum", axes).ravel(), x.sum((0, 2)))
    assert math.isclose(float(dml.reduce(x, "average")[0, 0, 0]), 11.5)
