"""TOP_K and TOP_K1: values and indices against the NumPy reference on every type and rank,
ties in index order both ways, NaNs and signed zeros kept bit for bit, the rules, and
onnxruntime's TopK.

The cross-cutting checks (doc examples, support tables, transformations, symbolic shapes,
graphs) come from the operators' declarations in tests/test_conformance.py and the files
beside it.
"""

from __future__ import annotations

import dataclasses

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
_DTYPES = [np.float32, np.float16, jnp.bfloat16, np.float64, np.int64, np.int32, np.int16,
           np.int8, np.uint64, np.uint32, np.uint16, np.uint8]  # fmt: skip
_X64 = {np.dtype(t) for t in (np.float64, np.int64, np.uint64)}
_DML_TYPES = {np.dtype(t) for t in _DTYPES} - {np.dtype(jnp.bfloat16), np.dtype(np.float64)}


def _values(rng, shape, dtype):
    """Values from a few (ties in most sequences), the type's extremes, and for floats
    NaNs of both signs, signed zeros and infinities."""
    dtype = np.dtype(dtype)
    if jnp.issubdtype(dtype, jnp.floating):
        pool = np.array([0.0, -0.0, 1.0, -1.0, 2.0, np.inf, -np.inf, np.nan], np.float64)
        x = pool[rng.integers(0, len(pool), size=shape)].astype(dtype)
        negative_nan = rng.random(shape) < 0.5  # x86's default NaN has its sign bit set
        return np.where(np.isnan(x) & negative_nan, -x, x).astype(dtype)
    info = np.iinfo(dtype)
    pool = np.array([info.min, info.max, 0, 1, 2], dtype)
    return pool[rng.integers(0, len(pool), size=shape)]


def _desc(x_shape, dtype, index, axis, k, largest, *, old=False):
    sizes = list(x_shape)
    sizes[axis] = k
    input_tensor = dml.TensorDesc(data_type=T.from_dtype(dtype), sizes=tuple(x_shape))
    values = dml.TensorDesc(data_type=T.from_dtype(dtype), sizes=tuple(sizes))
    indices = dml.TensorDesc(data_type=T.from_dtype(index), sizes=tuple(sizes))
    if old:
        return dml.TopKOperatorDesc(
            input_tensor=input_tensor, output_value_tensor=values, output_index_tensor=indices,
            axis=axis, k=k,
        )  # fmt: skip
    return dml.TopK1OperatorDesc(
        input_tensor=input_tensor, output_value_tensor=values, output_index_tensor=indices,
        axis=axis, k=k,
        axis_direction=dml.AxisDirection.DECREASING if largest else dml.AxisDirection.INCREASING,
    )  # fmt: skip


def _same(got, want):
    """Values bit for bit (a NaN's payload and sign, a zero's sign), indices equal."""
    (got_values, got_indices), (want_values, want_indices) = got, want
    np.testing.assert_array_equal(got_indices, want_indices, strict=True)
    got_values, want_values = np.asarray(got_values), np.asarray(want_values)
    assert got_values.dtype == want_values.dtype
    assert got_values.shape == want_values.shape
    width = f"u{want_values.dtype.itemsize}"
    np.testing.assert_array_equal(got_values.view(width), want_values.view(width))


@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(
    dtype=st.sampled_from(_DTYPES),
    index=st.sampled_from([np.uint32, np.uint64, np.int32, np.int64]),
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=8),
    data=st.data(),
    largest=st.booleans(),
    rng=helpers.seeds(),
)
def test_both_faces_are_the_reference_on_every_type_and_rank(
    dtype, index, shape, data, largest, rng
):
    dtype, index = np.dtype(dtype), np.dtype(index)
    x = _values(rng, shape, dtype)
    axis = data.draw(st.integers(0, len(shape) - 1))
    k = data.draw(st.integers(1, shape[axis]))
    want = reference.top_k(x, k, axis=axis, largest=largest, index_dtype=index)
    with jax.enable_x64(dtype in _X64 or index in _X64):
        _same(dml.top_k(x, k, axis - len(shape), largest=largest, dtype=index), want)
        if dtype not in _DML_TYPES or index.kind != "u":
            return  # the pages have no bfloat16 or float64 selection, and unsigned indices
        desc = _desc(shape, dtype, index, axis, k, largest)
        _same(dml.compile_operator(desc)(x), want)
        if largest:  # TOP_K is TOP_K1 DECREASING
            old = _desc(shape, dtype, index, axis, k, True, old=True)
            _same(dml.compile_operator(old)(x), want)


def test_ties_come_in_index_order_in_both_directions():
    x = jnp.array([5.0, 1.0, 5.0, 1.0, 5.0, -0.0, 0.0])
    values, indices = dml.top_k(x, 7)
    np.testing.assert_array_equal(indices, [0, 2, 4, 1, 3, 5, 6])
    values, indices = dml.top_k(x, 7, largest=False)
    np.testing.assert_array_equal(indices, [5, 6, 1, 3, 0, 2, 4])
    np.testing.assert_array_equal(np.signbit(values[:2]), [True, False])  # each zero as it was


def test_a_nan_comes_first_and_keeps_its_bits():
    payload = np.array([0x7FC00001, 0xFFC00000, 0x3F800000], np.uint32).view(np.float32)
    x = np.concatenate([[np.float32(np.inf)], payload])  # inf, NaN(1), -NaN, 1.0
    for largest in (True, False):
        values, indices = dml.top_k(x, 3, largest=largest)
        np.testing.assert_array_equal(indices, [1, 2, 0] if largest else [1, 2, 3])
        bits = np.asarray(values).view(np.uint32)[:2]
        np.testing.assert_array_equal(bits, [0x7FC00001, 0xFFC00000])


@pytest.mark.parametrize("largest", [True, False])
def test_k_of_one_is_argmax_or_argmin(largest):
    # The rule dmljax takes where the pages are silent, NaN first, agrees with its own
    # ARGMAX and ARGMIN (and jnp's).
    rng = np.random.default_rng(3)
    x = _values(rng, (6, 5), np.float32)
    _, indices = dml.top_k(x, 1, axis=1, largest=largest)
    search = dml.argmax if largest else dml.argmin
    np.testing.assert_array_equal(indices, search(x, 1, dtype=np.uint32))


def test_values_are_differentiable_and_batch_under_vmap():
    x = jnp.array([[3.0, 1.0, 4.0, 1.5], [9.0, 2.0, 6.0, 5.0]])
    grad = jax.grad(lambda x: jnp.sum(dml.top_k(x, 2, axis=1)[0] * jnp.array([[1.0, 10.0]])))(x)
    np.testing.assert_array_equal(grad, [[10, 0, 1, 0], [1, 0, 10, 0]])
    # vmap over the rows of a selection along the columns, and over columns along rows.
    rows = jax.vmap(lambda r: dml.top_k(r, 2))(x)
    values, indices = dml.top_k(x, 2, axis=1)
    np.testing.assert_array_equal(rows[0], values)
    np.testing.assert_array_equal(rows[1], indices)
    columns = jax.vmap(lambda c: dml.top_k(c, 1, largest=False), in_axes=1, out_axes=1)(x)
    np.testing.assert_array_equal(columns[1], dml.top_k(x, 1, axis=0, largest=False)[1])


def test_every_rule_is_refused_naming_its_field():
    good = _desc((1, 1, 3, 4), np.float32, np.uint32, 3, 2, True)
    assert dml.compile_operator(good)
    short_values = dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 3, 3))
    short_indices = dml.TensorDesc(data_type=T.UINT32, sizes=(1, 1, 3, 3))
    cases = (
        ({"k": 0}, "k", r"in \[1, 4\] \(input_tensor.sizes\[3\]\)"),
        ({"k": 5}, "k", r"in \[1, 4\]"),
        ({"axis": 4}, "axis", r"in \[0, 4\)"),
        ({"output_value_tensor": short_values}, "output_value_tensor.sizes", "k = 2 along axis 3"),
        ({"output_index_tensor": short_indices}, "output_index_tensor.sizes", "k = 2 along"),
        (
            {"output_value_tensor": dml.TensorDesc(data_type=T.FLOAT16, sizes=(1, 1, 3, 2))},
            "output_value_tensor.data_type",
            "FLOAT32",
        ),
        (
            {"output_index_tensor": dml.TensorDesc(data_type=T.INT32, sizes=(1, 1, 3, 2))},
            "output_index_tensor.data_type",
            "UINT32",
        ),
    )
    for changes, field, match in cases:
        changed = dataclasses.replace(good, **changes)
        helpers.refused(lambda changed=changed: dml.compile_operator(changed), field=field,
                        match=match, op="TopK1OperatorDesc")  # fmt: skip
    # TOP_K1 came at 2_1 (TOP_K at 2_0, floats only); 1 to 8 dimensions at 3_1.
    with pytest.raises(dml.errors.InvalidArgumentError, match="FL_2_1"):
        dml.compile_operator(good, feature_level=dml.FeatureLevel.FL_2_0)
    old = _desc((1, 1, 3, 4), np.float32, np.uint32, 3, 2, True, old=True)
    assert dml.compile_operator(old, feature_level=dml.FeatureLevel.FL_2_0)
    flat = _desc((4,), np.float32, np.uint32, 0, 2, True)
    with pytest.raises(dml.errors.InvalidArgumentError, match="dimension"):
        dml.compile_operator(flat, feature_level=dml.FeatureLevel.FL_3_0)
    assert dml.compile_operator(flat, feature_level=dml.FeatureLevel.FL_3_1)


def test_the_face_refuses_bad_arguments_naming_them():
    x = np.ones((2, 3), np.float32)
    helpers.refused(lambda: dml.top_k(x, 0), field="k", match="in \\[1, 3\\]")
    helpers.refused(lambda: dml.top_k(x, 4), field="k", match="in \\[1, 3\\]")
    helpers.refused(lambda: dml.top_k(x, 3, axis=0), field="k", match="x.shape\\[0\\]")
    helpers.refused(lambda: dml.top_k(x, 1, axis=2), field="axis", match="\\[-2, 2\\)")
    helpers.refused(lambda: dml.top_k(x, 1.5), field="k", match="integer")  # pyright: ignore[reportArgumentType]
    helpers.refused(lambda: dml.top_k(x, 1, dtype=np.float32), field="dtype", match="index")
    helpers.refused(lambda: dml.top_k(np.float32(1), 1), field="x", match="0-D")
    helpers.refused(lambda: dml.top_k(np.ones(3, np.bool_), 1), field="x", match="bool")
    helpers.refused(
        lambda: dml.top_k(x, 1, largest=1),  # pyright: ignore[reportArgumentType]
        field="largest", match="bool",
        error=dml.errors.ArgumentTypeError,
    )  # fmt: skip


def test_an_empty_batch_selects_nothing():
    values, indices = dml.top_k(np.zeros((0, 4), np.float32), 2)
    assert values.shape == indices.shape == (0, 2)


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64, np.uint8]),
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=4),
    data=st.data(),
    largest=st.booleans(),
    rng=helpers.seeds(),
)
def test_top_k_matches_onnxruntime(dtype, shape, data, largest, rng):
    # Values from a few (ties both ways), no NaN: onnxruntime's TopK leaves NaN's place open.
    dtype = np.dtype(dtype)
    x = rng.integers(0, 3, size=shape, endpoint=True).astype(dtype)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    k = data.draw(st.integers(1, shape[axis]))
    attrs = (("axis", axis), ("largest", int(largest)), ("sorted", 1))
    session = helpers.onnx_session(
        "TopK", 11, attrs, (dtype, np.dtype(np.int64)), (dtype, np.dtype(np.int64))
    )
    want_values, want_indices = session.run(None, {"i0": x, "i1": np.array([k], np.int64)})
    with jax.enable_x64(True):
        values, indices = dml.top_k(x, k, axis, largest=largest, dtype=np.int64)
    np.testing.assert_array_equal(values, want_values, strict=True)
    np.testing.assert_array_equal(indices, want_indices, strict=True)
