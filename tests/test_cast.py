"""CAST: how each pair of types converts, on both faces, against the NumPy reference and
onnxruntime's Cast. Transformations, support tables and bad input common to every
operator are tests/test_conformance.py's and tests/test_bad_input.py's."""

from __future__ import annotations

from typing import Any

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dmljax as dml
from dmljax._src.checking.operators.cast import reference_cast
from tests import helpers

T = dml.DataType
FLOATS = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(jnp.bfloat16))
INTS = tuple(np.dtype(t) for t in (np.int32, np.int16, np.int8, np.uint32, np.uint16, np.uint8))
FLOATS_64 = (np.dtype(np.float64),)
INTS_64 = (np.dtype(np.int64), np.dtype(np.uint64))


def _desc_cast(x: np.ndarray, dtype: Any) -> jax.Array:
    """``x`` to ``dtype`` through CastOperatorDesc (a 4-D view of it, as DirectML's FL 1_0)."""
    padded = x.reshape((1,) * (4 - x.ndim) + x.shape) if x.ndim < 4 else x
    desc = dml.CastOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=T.from_dtype(x.dtype), sizes=padded.shape),
        output_tensor=dml.TensorDesc(data_type=T.from_dtype(np.dtype(dtype)), sizes=padded.shape),
    )
    return dml.compile_operator(desc)(padded).reshape(x.shape)


_NOT_DIRECTML = {np.dtype(np.bool_), np.dtype(jnp.bfloat16)}


def _both_faces(x: np.ndarray, dtype: Any) -> list[np.ndarray]:
    results = [
        np.asarray(dml.cast(x, dtype)),
        np.asarray(jax.jit(dml.cast, static_argnums=1)(x, dtype)),
    ]
    # The desc face holds DirectML's types: no bool, no bfloat16.
    if {np.dtype(dtype), np.dtype(x.dtype)}.isdisjoint(_NOT_DIRECTML):
        results.append(np.asarray(_desc_cast(x, dtype)))
    return results


def _assert_bits_equal(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.dtype == expected.dtype
    if jnp.issubdtype(expected.dtype, jnp.floating):
        # Same value and sign (zeros too); any NaN for a NaN (the payload is not promised).
        nan = np.isnan(expected.astype(np.float64))
        np.testing.assert_array_equal(np.isnan(actual.astype(np.float64)), nan)
        a, e = actual.astype(np.float64)[~nan], expected.astype(np.float64)[~nan]
        np.testing.assert_array_equal(a, e)
        np.testing.assert_array_equal(np.signbit(a), np.signbit(e))
    else:
        np.testing.assert_array_equal(actual, expected)


# --- Each rule at its edges ----------------------------------------------------------------------

_EDGES = {
    np.dtype(np.float32): [
        2.0**31 - 128,
        2.0**31,
        2.0**32 - 256,
        2.0**32,
        -(2.0**31),
        -(2.0**31) - 256,
    ],
    np.dtype(np.float16): [65504.0, -65504.0, 32767.0, 255.5, -128.5, -0.75],
    np.dtype(jnp.bfloat16): [2.0**31, -(2.0**31), 127.5, 3.0e38, -3.0e38, 0.996],
}


@pytest.mark.parametrize("source", FLOATS, ids=str)
@pytest.mark.parametrize("target", INTS, ids=str)
def test_float_to_int_truncates_saturates_and_makes_nan_zero(source, target):
    values = [0.0, -0.0, 0.5, -0.5, 1.99, -1.99, np.inf, -np.inf, np.nan, *_EDGES[source]]
    x = np.array(values, np.float64).astype(source)
    info = np.iinfo(target)
    want = reference_cast(x, target)
    # The rule, restated without the reference: NaN is 0, the rest truncated and clipped.
    for value, got in zip(x.astype(np.float64), want.tolist(), strict=True):
        expected = 0 if np.isnan(value) else int(np.clip(np.trunc(value), info.min, info.max))
        assert got == expected, value
    for result in _both_faces(x, target):
        np.testing.assert_array_equal(result, want)


@pytest.mark.parametrize("target", INTS_64, ids=str)
def test_float64_to_64_bit_ints_saturates_at_the_exact_bounds(target):
    info = np.iinfo(target)
    values = [2.0**63, 2.0**63 - 1024, -(2.0**63), -(2.0**63) - 2048, 2.0**64, 2.0**64 - 2048]
    with jax.enable_x64(True):
        x = np.array([*values, np.nan, np.inf, -np.inf, -0.9])
        want = reference_cast(x, target)
        for result in _both_faces(x, target):
            np.testing.assert_array_equal(result, want)
    assert want[-4:].tolist() == [0, info.max, info.min, 0]  # NaN, inf, -inf, -0.9


def test_integers_keep_their_low_bits():
    x = np.array([-1, 0, 127, 128, 255, 256, -129, 2**31 - 1, -(2**31)], np.int32)
    for target in INTS:
        want = (x.astype(np.int64) % (1 << (8 * target.itemsize))).astype(np.uint64).astype(target)
        for result in _both_faces(x, target):
            np.testing.assert_array_equal(result, want)


def test_floats_round_to_nearest_even_and_overflow_to_infinity():
    x = np.array([65504, 65519.99, 65520, -65520, 2049, 2051, 1e-8, -1e-8, 0.1], np.float32)
    want = np.array(
        [65504, 65504, np.inf, -np.inf, 2048, 2052, 0, -0.0, 0.0999755859375], np.float16
    )
    for result in _both_faces(x, np.float16):
        _assert_bits_equal(result, want)
    ints = np.array([2**24 + 1, 2**24 + 3, 65520, -65519, 2**31 - 1], np.int32)
    for result in _both_faces(ints, np.float32):
        _assert_bits_equal(result, ints.astype(np.float32))
    for result in _both_faces(ints, np.float16):
        _assert_bits_equal(result, np.array([np.inf, np.inf, np.inf, -65504, np.inf], np.float16))


def test_bool_is_nonzero_and_bools_are_zero_or_one():
    x = np.array([0.0, -0.0, 0.5, np.nan, -np.inf], np.float32)
    np.testing.assert_array_equal(dml.cast(x, bool), [False, False, True, True, True])
    np.testing.assert_array_equal(dml.cast(np.array([True, False]), np.int8), [1, 0])


# --- Against the reference, drawn --------------------------------------------------------------


def _floats_of(dtype: np.dtype[Any]) -> st.SearchStrategy[np.ndarray]:
    # Scaled after the draw, so that float64 reaches beyond float32's range.
    scale = st.sampled_from([1.0, 1e3, 1e9, 1e19, 1e38])
    width = 16 if dtype.itemsize == 2 else 32
    values = st.floats(width=width, allow_nan=True, allow_infinity=True)
    return st.builds(
        lambda v, s: (np.array(v, np.float64) * s).astype(dtype),
        st.lists(values, min_size=1, max_size=12),
        scale,
    )


@hypothesis.given(
    st.sampled_from(FLOATS),
    st.sampled_from(INTS + FLOATS),
    st.data(),
)
def test_float_casts_match_the_reference_on_both_faces(source, target, data):
    with np.errstate(over="ignore", invalid="ignore"):
        x = data.draw(_floats_of(source))
    want = reference_cast(x, target)
    for result in _both_faces(x, target):
        _assert_bits_equal(result, want)


@hypothesis.given(
    st.sampled_from(INTS),
    st.sampled_from(INTS + FLOATS),
    st.data(),
)
def test_integer_casts_match_the_reference_on_both_faces(source, target, data):
    x = data.draw(hnp.arrays(source, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)))
    want = reference_cast(x, target)
    for result in _both_faces(x, target):
        _assert_bits_equal(result, want)


@hypothesis.settings(max_examples=20)
@hypothesis.given(
    st.sampled_from(FLOATS_64 + INTS_64 + FLOATS[:2] + INTS),
    st.sampled_from(FLOATS_64 + INTS_64),
    st.data(),
)
def test_64_bit_casts_match_the_reference(source, target, data):
    with jax.enable_x64(True):
        if jnp.issubdtype(source, jnp.floating):
            with np.errstate(over="ignore", invalid="ignore"):
                x = data.draw(_floats_of(source))
        else:
            x = data.draw(hnp.arrays(source, st.integers(1, 8)))
        want = reference_cast(x, target)
        # Widening float32 to float64 reads a float32 value, which may be flushed
        # (docs/semantics.md; XLA:CPU's conversion does): either result is DirectML's.
        flushed = reference_cast(helpers.flushed(x), target)
        for result in _both_faces(x, target):
            try:
                _assert_bits_equal(result, want)
            except AssertionError:
                _assert_bits_equal(result, flushed)


# --- Against onnxruntime's Cast ------------------------------------------------------------------


# onnxruntime's Python binding takes no bfloat16 arrays; its float-to-integer conversion
# of NaN and out-of-range values is C++'s undefined behaviour, so those are not compared.
_ONNX_FLOATS = FLOATS[:2]


@hypothesis.settings(max_examples=30)
@hypothesis.given(
    st.sampled_from(_ONNX_FLOATS + INTS),
    st.sampled_from(_ONNX_FLOATS + INTS),
    st.data(),
)
def test_cast_matches_onnxruntime(source, target, data):
    if jnp.issubdtype(source, jnp.floating):
        with np.errstate(over="ignore", invalid="ignore"):
            x = data.draw(_floats_of(source))
        if jnp.issubdtype(target, jnp.integer):
            info = np.iinfo(target)
            wide = x.astype(np.float64)
            x = x[np.isfinite(wide) & (np.trunc(wide) >= info.min) & (np.trunc(wide) <= info.max)]
            hypothesis.assume(x.size)
    else:
        x = data.draw(hnp.arrays(source, st.integers(1, 12)))
    want = helpers.run_onnx_node("Cast", x, target, to=helpers.onnx_type(target))
    _assert_bits_equal(np.asarray(dml.cast(x, target)), want)


# --- The face's own refusals ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "dtype", "field", "error"),
    [
        (np.ones(2, np.complex64), np.float32, "x", dml.errors.InvalidArgumentError),
        (np.ones(2, np.float32), np.complex64, "dtype", dml.errors.InvalidArgumentError),
        (np.ones(2, np.float32), "not a dtype", "dtype", dml.errors.ArgumentTypeError),
    ],
)
def test_the_face_refuses_what_directml_has_no_type_for(x, dtype, field, error):
    with pytest.raises(error) as e:
        dml.cast(x, dtype)
    assert (e.value.op, e.value.field) == ("dmljax.cast", field)


def test_a_64_bit_dtype_without_x64_says_how_to_enable_it():
    with jax.enable_x64(False), pytest.raises(dml.errors.InvalidArgumentError) as e:
        dml.cast(np.ones(2, np.float32), np.int64)
    assert e.value.field == "dtype"
    assert "jax_enable_x64" in str(e.value)


def test_float_casts_differentiate_as_astype():
    x = jnp.array([1.5, -2.25, 3.0])
    grad = jax.grad(lambda x: dml.cast(x, jnp.float16).astype(jnp.float32).sum())(x)
    np.testing.assert_array_equal(grad, jnp.ones(3))
    _, tangent = jax.jvp(lambda x: dml.cast(x, jnp.bfloat16), (x,), (jnp.full(3, 0.5),))
    assert tangent.dtype == jnp.bfloat16


@pytest.mark.parametrize("spelling", [jnp.float16, np.float16, "float16", np.dtype(np.float16)])
def test_every_spelling_of_a_dtype_runs_one_program(spelling):
    x = jnp.arange(3.0)
    program = helpers.face_program(dml.cast)
    dml.cast(x, np.float16)
    size = helpers.jit_cache_size(program)
    assert dml.cast(x, spelling).dtype == np.float16
    assert helpers.jit_cache_size(program) == size


def test_python_types_mean_jax_default_types_as_in_jnp():
    x = jnp.arange(3)
    for python_type in (bool, int, float):
        assert dml.cast(x, python_type).dtype == jnp.zeros((), python_type).dtype
