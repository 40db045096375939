"""CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT: values against the NumPy reference on every
type the pages allow, integer wraparound, the float bounds against float64, the rules,
and onnxruntime's CumSum.

The cross-cutting checks (doc examples, support tables, transformations, symbolic shapes,
graphs) come from the operators' declarations in tests/test_conformance.py and the files
beside it.
"""

from __future__ import annotations

from typing import Any

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st

import dmljax as dml
from dmljax._src.checking import reference
from tests import helpers

T = dml.DataType
_FACES = {"sum": dml.cumsum, "product": dml.cumprod}
# Every dtype the faces take; the 64-bit ones under jax_enable_x64.
_DTYPES = [np.float32, np.float16, jnp.bfloat16, np.float64, np.int32, np.uint32, np.int64,
           np.uint64]  # fmt: skip
_X64 = {np.dtype(t) for t in (np.float64, np.int64, np.uint64)}


def _assert_same_bits(got: Any, want: np.ndarray) -> None:
    """The same dtype, shape and bits (a zero's sign included)."""
    got = np.asarray(got)
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    unsigned = np.dtype(f"u{want.dtype.itemsize}")
    np.testing.assert_array_equal(got.view(unsigned), want.view(unsigned))


def _tally(x: np.ndarray, kind: str, axis: int, reverse: bool, exclusive: bool) -> np.ndarray:
    return reference.cumulative(
        x, axis=axis, product=kind == "product", reverse=reverse, exclusive=exclusive
    )


@hypothesis.settings(max_examples=120, deadline=None)
@hypothesis.given(
    kind=st.sampled_from(["sum", "product"]),
    dtype=st.sampled_from(_DTYPES),
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=8),
    data=st.data(),
    reverse=st.booleans(),
    exclusive=st.booleans(),
    rng=helpers.seeds(),
)
def test_both_faces_are_the_reference_on_every_type_and_rank(
    kind, dtype, shape, data, reverse, exclusive, rng
):
    # Small factors and terms keep every tally exact in every type (3**8 and 8 * 4 at most
    # in a bfloat16's 8 bits... 3**4 along one axis of at most 4): the reference's one
    # rounding is then no rounding, and the faces must give its bits.
    dtype = np.dtype(dtype)
    low = 0 if np.issubdtype(dtype, np.unsignedinteger) else -3
    x = rng.integers(low, 3, size=shape, endpoint=True).astype(dtype)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    want = _tally(x, kind, axis % len(shape), reverse, exclusive)
    with jax.enable_x64(dtype in _X64):
        _assert_same_bits(_FACES[kind](x, axis, reverse=reverse, exclusive=exclusive), want)
        if dtype in (jnp.bfloat16, np.float64) or 0 in shape:
            return  # the pages have no bfloat16 or float64 tally, DirectML no empty tensor
        t = dml.TensorDesc(data_type=T.from_dtype(dtype), sizes=shape)
        desc_type = {
            "sum": dml.CumulativeSummationOperatorDesc,
            "product": dml.CumulativeProductOperatorDesc,
        }[kind]
        flag = "has_exclusive_sum" if kind == "sum" else "has_exclusive_product"
        desc = desc_type(
            input_tensor=t, output_tensor=t, axis=axis % len(shape),
            axis_direction=dml.AxisDirection(int(reverse)), **{flag: exclusive},
        )  # fmt: skip
        _assert_same_bits(dml.compile_operator(desc)(x), want)


def test_a_bfloat16_tally_past_its_precision_is_the_reference_rounded_once():
    # Tallied in bfloat16, a running sum of ones stops at 256 (256 + 1 rounds back); the
    # reference tallies bfloat16 in float64 as every float, and rounds each output once.
    x = np.ones(300, jnp.bfloat16)
    want = np.arange(1, 301).astype(jnp.bfloat16)
    np.testing.assert_array_equal(reference.cumulative(x, axis=0, product=False, reverse=False,
                                                       exclusive=False), want)  # fmt: skip
    np.testing.assert_array_equal(dml.cumsum(x, 0), want)


def test_a_desc_reads_its_input_through_zero_strides():
    # A row broadcast by a zero stride: each row's running sum is the same.
    row = np.array([2, 1, 3, 5], np.float32)
    t_in = dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 3, 4), strides=(0, 0, 0, 1))
    t_out = dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 3, 4))
    desc = dml.CumulativeSummationOperatorDesc(
        input_tensor=t_in, output_tensor=t_out, axis=2, axis_direction=dml.AxisDirection.INCREASING,
        has_exclusive_sum=False,
    )  # fmt: skip
    got = dml.compile_operator(desc)(row)  # the buffer itself, read through the strides
    np.testing.assert_array_equal(got[0, 0], np.cumsum(np.tile(row, (3, 1)), axis=0))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
def test_integer_tallies_wrap_around_in_their_type(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.max, 1, 2], dtype)
    np.testing.assert_array_equal(
        dml.cumsum(x, 0), np.array([info.max, info.min, info.min + 2], dtype)
    )
    big = np.array([2**16 + 1, 2**16 + 1], dtype)
    np.testing.assert_array_equal(
        dml.cumprod(big, 0),
        np.array([2**16 + 1, (2**32 + 2**17 + 1) % 2**32], np.uint64).astype(dtype),
    )


def test_nans_and_infinities_run_on_as_float64_does():
    x = np.array([1.0, np.inf, -np.inf, 2.0, np.nan, 3.0], np.float32)
    for kind, function in _FACES.items():
        for reverse in (False, True):
            want = _tally(x, kind, 0, reverse, False)
            np.testing.assert_array_equal(function(x, 0, reverse=reverse), want)


def _bound(n: int) -> np.ndarray:
    """The stated bound of the ``k``-th tally (``k`` from 1 to ``n``): ``(k - 1) * 2**-24``,
    the one every order of operations meets."""
    return np.arange(n) * 2.0**-24


@pytest.mark.parametrize("n", [7, 1000, 4096])
@pytest.mark.parametrize("reverse", [False, True])
def test_float32_sums_meet_the_stated_bound_against_float64(n, reverse):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((8, n)).astype(np.float32)
    got = np.asarray(dml.cumsum(x, 1, reverse=reverse), np.float64)
    wide = (np.flip(x, 1) if reverse else x).astype(np.float64)
    exact, magnitude = np.cumsum(wide, 1), np.cumsum(np.abs(wide), 1)
    if reverse:
        exact, magnitude = np.flip(exact, 1), np.flip(magnitude, 1)
    bound = np.flip(_bound(n)) if reverse else _bound(n)
    assert np.all(np.abs(got - exact) <= bound * magnitude)


@pytest.mark.parametrize("n", [7, 1000, 4096])
def test_float32_products_meet_the_stated_bound_against_float64(n):
    # Factors near 1 (growth rates), whose products stay far from overflow; their error
    # is measured too, far inside the bound (docs/operators/cumulative.md).
    rng = np.random.default_rng(n)
    x = np.exp2(rng.standard_normal((8, n)) / 64).astype(np.float32)
    got = np.asarray(dml.cumprod(x, 1), np.float64)
    exact = np.cumprod(x.astype(np.float64), 1)
    error = np.abs(got / exact - 1)
    assert np.all(error <= _bound(n) + 2.0**-24)  # and the one rounding of the first
    assert error.max() <= 64 * 2.0**-24


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16])
@pytest.mark.parametrize("kind", ["sum", "product"])
def test_16_bit_tallies_are_the_float32_tally_rounded_once(dtype, kind):
    rng = np.random.default_rng(3)
    x = (1 + rng.standard_normal((4, 300)) * 2.0**-4).astype(dtype)
    got = _FACES[kind](x, 1)
    wide = _FACES[kind](x.astype(np.float32), 1)
    _assert_same_bits(np.asarray(got), np.asarray(wide).astype(dtype))


def _desc(**changes: Any) -> dml.CumulativeSummationOperatorDesc:
    t = dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 3, 4))
    fields: dict[str, Any] = dict(
        input_tensor=t, output_tensor=t, axis=3, axis_direction=dml.AxisDirection.INCREASING,
        has_exclusive_sum=False,
    )  # fmt: skip
    fields.update(changes)
    return dml.CumulativeSummationOperatorDesc(**fields)


def test_the_rules_are_refused_naming_the_field():
    with pytest.raises(dml.errors.InvalidArgumentError) as e:
        dml.compile_operator(_desc(axis=4))
    assert e.value.field == "axis"
    assert "[0, 4)" in str(e.value)
    with pytest.raises(dml.errors.InvalidArgumentError) as e:
        _desc(axis_direction="SIDEWAYS")
    assert e.value.field == "axis_direction"
    other = dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 4, 3))
    with pytest.raises(dml.errors.InvalidArgumentError) as e:
        dml.compile_operator(_desc(output_tensor=other))
    assert e.value.field == "output_tensor.sizes"
    helpers.refused(lambda: dml.cumsum(np.ones(3, np.int8), 0), field="x", match="int8")
    helpers.refused(lambda: dml.cumprod(np.float32(1), 0), field="x", match="0-D")
    helpers.refused(lambda: dml.cumsum(np.ones(3), 1), field="axis", match="axis")


def test_cumprod_differentiates_through_zeros():
    x = jnp.array([2.0, 0.0, 3.0, 4.0])
    grad = jax.grad(lambda v: dml.cumprod(v, 0).sum())(x)
    np.testing.assert_allclose(grad, jax.grad(lambda v: jnp.cumprod(v).sum())(x))
    assert grad[1] == 2.0 + 2.0 * 3.0 + 2.0 * 3.0 * 4.0


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64]),
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    data=st.data(),
    reverse=st.booleans(),
    exclusive=st.booleans(),
    rng=helpers.seeds(),
)
def test_cumsum_matches_onnxruntime(dtype, shape, data, reverse, exclusive, rng):
    dtype = np.dtype(dtype)
    x = rng.integers(-9, 9, size=shape, endpoint=True).astype(dtype)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    session = helpers.onnx_session(
        "CumSum", 14, (("exclusive", int(exclusive)), ("reverse", int(reverse))),
        (dtype, np.dtype(np.int64)), dtype,
    )  # fmt: skip
    (want,) = session.run(None, {"i0": x, "i1": np.array(axis, np.int64)})
    with jax.enable_x64(dtype in _X64):
        got = dml.cumsum(x, axis, reverse=reverse, exclusive=exclusive)
    _assert_same_bits(np.asarray(got), want)
