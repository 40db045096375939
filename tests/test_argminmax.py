"""ARGMIN and ARGMAX: indices against the NumPy reference on every type and rank, ties both
ways, NaNs, subnormals, the rules, and onnxruntime's ArgMin and ArgMax.

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
_FACES = {"min": dml.argmin, "max": dml.argmax}
_DESCS = {"min": dml.ArgminOperatorDesc, "max": dml.ArgmaxOperatorDesc}
_DTYPES = [np.float32, np.float16, jnp.bfloat16, np.float64, np.int32, np.int16, np.int8,
           np.uint32, np.uint16, np.uint8]  # fmt: skip
_INDEX = [np.int32, np.uint32, np.int64, np.uint64]
_X64 = {np.dtype(t) for t in (np.float64, np.int64, np.uint64)}
_DML_TYPES = {np.dtype(t) for t in (np.float32, np.float16, np.int32, np.int16, np.int8,
                                    np.uint32, np.uint16, np.uint8)}  # fmt: skip


@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(
    kind=st.sampled_from(["min", "max"]),
    dtype=st.sampled_from(_DTYPES),
    index=st.sampled_from(_INDEX),
    shape=st.lists(st.integers(1, 3), min_size=1, max_size=8),
    data=st.data(),
    last=st.booleans(),
    rng=helpers.seeds(),
)
def test_both_faces_are_the_reference_on_every_type_and_rank(
    kind, dtype, index, shape, data, last, rng
):
    # Values from a few, so that most groups hold ties.
    dtype, index = np.dtype(dtype), np.dtype(index)
    x = rng.integers(0, 2, size=shape, endpoint=True).astype(dtype)
    axes = tuple(data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1)))
    want = reference.arg_extreme(x, axes=axes, largest=kind == "max", last=last, dtype=index)
    with jax.enable_x64(dtype in _X64 or index in _X64):
        got = _FACES[kind](x, tuple(a - len(shape) for a in axes), last=last, dtype=index)
        np.testing.assert_array_equal(got, want, strict=True)
        if dtype not in _DML_TYPES:
            return  # the pages have no bfloat16 or float64 search
        desc = _DESCS[kind](
            input_tensor=dml.TensorDesc(data_type=T.from_dtype(dtype), sizes=tuple(shape)),
            output_tensor=dml.TensorDesc(data_type=T.from_dtype(index), sizes=want.shape),
            axes=axes, axis_direction=dml.AxisDirection(int(last)),
        )  # fmt: skip
        np.testing.assert_array_equal(dml.compile_operator(desc)(x), want, strict=True)


@pytest.mark.parametrize("kind", ["min", "max"])
def test_a_nan_is_the_extreme_first_or_last(kind):
    x = np.array([[1.0, np.nan, 7.0, np.nan], [np.inf, -np.inf, 2.0, 2.0]], np.float32)
    for last in (False, True):
        want = reference.arg_extreme(
            x, axes=(1,), largest=kind == "max", last=last, dtype=np.dtype(np.int32)
        )
        np.testing.assert_array_equal(_FACES[kind](x, 1, last=last), want)
    np.testing.assert_array_equal(dml.argmax(x, 1), [[1], [0]])
    np.testing.assert_array_equal(dml.argmin(x, 1, last=True), [[3], [1]])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16])
def test_signed_zeros_are_equal_and_a_nan_beats_an_infinity(dtype):
    def array(*values: float) -> np.ndarray:
        return np.array(values, np.float32).astype(dtype)

    assert int(dml.argmax(array(-0.0, 0.0))[0]) == 0
    assert int(dml.argmin(array(0.0, -0.0))[0]) == 0
    assert int(dml.argmax(array(np.inf, -np.nan, np.nan))[0]) == 1  # either sign
    assert int(dml.argmin(array(-np.inf, np.nan), last=True)[0]) == 1
    assert int(dml.argmin(array(-2.0, -3.0, 1.0))[0]) == 1  # negatives in order


def test_a_float32_subnormal_compares_as_the_backend_reads_it():
    # XLA:CPU reads it as a zero (the first of two equal elements wins); a GPU as itself.
    x = np.array([0.0, 1e-45], np.float32)
    want = 0 if jax.default_backend() == "cpu" else 1
    assert int(dml.argmax(x)[0]) == want


def test_the_axes_count_in_the_tensors_order_whatever_order_they_are_listed_in():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for axes in ((0, 2), (2, 0)):
        np.testing.assert_array_equal(dml.argmax(x, axes), [[[7], [7], [7]]])
    np.testing.assert_array_equal(dml.argmax(x, (0, 1, 2)), [[[23]]])


def _desc(kind: str = "max", **changes: Any) -> Any:
    fields: dict[str, Any] = dict(
        input_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(3, 3)),
        output_tensor=dml.TensorDesc(data_type=T.UINT32, sizes=(1, 3)),
        axes=(0,), axis_direction=dml.AxisDirection.INCREASING,
    )  # fmt: skip
    fields.update(changes)
    return _DESCS[kind](**fields)


def test_the_rules_are_refused_naming_the_field():
    rows = dml.TensorDesc(data_type=T.UINT32, sizes=(3, 1))
    floats = dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 3))
    cases: tuple[tuple[dict[str, Any], str], ...] = (
        ({"axes": (2,)}, "axes[0]"),
        ({"axes": (0, 0)}, "axes[1]"),
        ({"axes": ()}, "axes"),
        ({"output_tensor": rows}, "output_tensor.sizes"),
        ({"output_tensor": floats}, "output_tensor.data_type"),
    )
    for changes, field in cases:
        with pytest.raises(dml.errors.InvalidArgumentError) as e:
            dml.compile_operator(_desc(**changes))
        assert e.value.field == field, (changes, e.value)
    with pytest.raises(dml.errors.InvalidArgumentError) as e:
        _desc(axis_direction="SIDEWAYS")
    assert e.value.field == "axis_direction"
    helpers.refused(lambda: dml.argmax(np.ones(3, np.bool_)), field="x", match="bool")
    helpers.refused(lambda: dml.argmin(np.float32(1)), field="x", match="0-D")
    helpers.refused(lambda: dml.argmax(np.ones(3), (0, 0)), field="axes[1]", match="axis")
    helpers.refused(lambda: dml.argmax(np.ones(3), ()), field="axes", match="at least one")
    helpers.refused(
        lambda: dml.argmax(np.ones(3), 0, dtype=np.float32), field="dtype", match="index"
    )


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(
    kind=st.sampled_from(["min", "max"]),
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.uint8]),
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    data=st.data(),
    last=st.booleans(),
    rng=helpers.seeds(),
)
def test_argmin_and_argmax_match_onnxruntime(kind, dtype, shape, data, last, rng):
    dtype = np.dtype(dtype)
    x = rng.integers(0, 3, size=shape, endpoint=True).astype(dtype)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    op = "ArgMax" if kind == "max" else "ArgMin"
    attrs = (("axis", axis), ("keepdims", 1), ("select_last_index", int(last)))
    session = helpers.onnx_session(op, 13, attrs, (dtype,), np.dtype(np.int64))
    (want,) = session.run(None, {"i0": x})
    with jax.enable_x64(True):
        got = _FACES[kind](x, axis, last=last, dtype=np.int64)
    np.testing.assert_array_equal(got, want, strict=True)
