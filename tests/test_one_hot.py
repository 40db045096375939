"""ONE_HOT: its desc and dml.one_hot."""

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st

import dmljax as dml
from dmljax._src.checking import doc_examples, reference
from tests import descs, helpers

T = dml.DataType
FL = dml.FeatureLevel
InvalidArgumentError = dml.errors.InvalidArgumentError


def one_hot_desc(indices=(3, 1), values=(1, 2), output=(3, 4), axis=1, data_type=T.FLOAT32,
                 index_type=T.UINT32, output_data_type=None):  # fmt: skip
    return dml.OneHotOperatorDesc(
        indices_tensor=dml.TensorDesc(data_type=index_type, sizes=indices),
        values_tensor=dml.TensorDesc(data_type=data_type, sizes=values),
        output_tensor=dml.TensorDesc(data_type=output_data_type or data_type, sizes=output),
        axis=axis,
    )


# --- The DirectML doc examples --------------------------------------------------------------------


def test_the_page_has_its_four_examples():
    assert len(doc_examples.entries("DML_OPERATOR_ONE_HOT")) == 4


def test_negative_indices_wrap_from_fl_3_0_only():
    # Example 4's INT32 indices need FL 3_0; the rule that reads them is 3_0's.
    example = doc_examples.build(doc_examples.entry("one_hot-ex4"))
    with pytest.raises(InvalidArgumentError, match="FL_3_0"):
        dml.compile_operator(example.desc, feature_level=FL.FL_2_1)
    out = dml.compile_operator(example.desc, feature_level=FL.FL_3_0)(*example.inputs)
    np.testing.assert_array_equal(out, example.expected)


# --- Rules and feature levels ---------------------------------------------------------------------


test_rule_violations_name_the_field = descs.rule_table_test(
    one_hot_desc,
    [
        ({"axis": 2}, "axis", r"in \[0, 2\)"),
        ({"indices": (3, 2)}, "indices_tensor.sizes", r"\(3, 1\)"),
        ({"indices": (2, 1)}, "indices_tensor.sizes", "with 1 at axis 1"),
        ({"values": (1, 1)}, "values_tensor.sizes", "at least 2 elements"),
        ({"values": (2,)}, "values_tensor.sizes", "DimensionCount"),
        ({"output_data_type": T.FLOAT16}, "output_tensor.data_type", "FLOAT32"),
        ({"index_type": T.FLOAT32}, "indices_tensor.data_type", "UINT32"),
    ],
)


_FLOATS = {T.FLOAT32, T.FLOAT16}
_TYPES_8_32 = _FLOATS | {T.INT32, T.INT16, T.INT8, T.UINT32, T.UINT16, T.UINT8}


def test_on_value_is_the_second_element_whatever_the_values_shape():
    # "the 1st element along the fastest-changing dimension of size > 1": row-major element 1.
    indices = np.array([[[[1]]]], np.uint32)
    for sizes in ((1, 1, 1, 3), (1, 1, 3, 1), (1, 3, 1, 1), (1, 1, 2, 2)):
        values = np.arange(7.0, 7.0 + np.prod(sizes), dtype=np.float32).reshape(sizes)
        desc = one_hot_desc((1, 1, 1, 1), sizes, (1, 1, 1, 3), 3)
        out = dml.compile_operator(desc)(indices, values)
        assert out.reshape(-1).tolist() == [7.0, 8.0, 7.0]


def test_strided_values_are_read_through_the_buffer():
    # Values (off, on) = (5, 9) held two elements apart in a buffer.
    desc = dml.OneHotOperatorDesc(
        indices_tensor=dml.TensorDesc(data_type=T.UINT32, sizes=(2, 1)),
        values_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 2), strides=(0, 2)),
        output_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(2, 3), strides=(1, 2)),
        axis=1,
    )
    buffer = np.array([5.0, -1.0, 9.0], np.float32)
    out = dml.compile_operator(desc)(np.array([[2], [0]], np.uint32), buffer)
    np.testing.assert_array_equal(
        dml.from_strided_buffer(out, desc.output_tensor), [[5.0, 5.0, 9.0], [9.0, 5.0, 5.0]]
    )


# --- Against the reference, on both faces ---------------------------------------------------------


@st.composite
def one_hot_cases(draw, max_rank=8):
    rank = draw(st.integers(0, max_rank - 1))
    shape = tuple(draw(st.lists(st.integers(1, 3 if rank <= 3 else 2), min_size=rank,
                                max_size=rank)))  # fmt: skip
    depth = draw(st.integers(1, 6))
    axis = draw(st.integers(-rank - 1, rank))
    values_shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    hypothesis.assume(np.prod(values_shape) >= 2)
    return shape, depth, axis, values_shape


@hypothesis.given(
    one_hot_cases(),
    st.sampled_from(helpers.FUNCTIONAL_DTYPES),
    st.sampled_from(helpers.INDEX_DTYPES),
    helpers.seeds(),
)
def test_functional_face_equals_the_reference(case, dtype, index_dtype, rng):
    shape, depth, axis, values_shape = case
    indices = helpers.random_indices(rng, shape, index_dtype, depth)
    values = helpers.random_array(rng, values_shape, dtype)
    at = axis % (len(shape) + 1)
    with jax.enable_x64(True):
        actual = dml.one_hot(indices, values, depth=depth, axis=axis)
    expected = reference.one_hot(np.expand_dims(indices, at), values, depth=depth, axis=at)
    assert actual.dtype == values.dtype
    np.testing.assert_array_equal(np.asarray(actual), expected)


# Every data type the page supports (8 to 32 bits); the functional face takes any dtype.
DESC_DATA_TYPES = tuple(sorted(_TYPES_8_32))


@hypothesis.given(
    one_hot_cases(),
    st.sampled_from(DESC_DATA_TYPES),
    st.sampled_from(helpers.DML_INDEX_TYPES),
    helpers.seeds(),
)
def test_desc_face_equals_the_reference(case, data_type, index_type, rng):
    shape, depth, axis, _ = case
    at = axis % (len(shape) + 1)
    indices = np.expand_dims(helpers.random_indices(rng, shape, index_type.dtype, depth), at)
    out_sizes = (*indices.shape[:at], depth, *indices.shape[at + 1 :])
    values_sizes = (1,) * (len(out_sizes) - 1) + (2,)
    values = helpers.random_array(rng, values_sizes, data_type.dtype)
    desc = one_hot_desc(indices.shape, values_sizes, out_sizes, at, data_type, index_type)
    expected = reference.one_hot(indices, values, depth=depth, axis=at)
    np.testing.assert_array_equal(descs.run_desc(desc, indices, values), expected)


@pytest.mark.parametrize("index_dtype", [np.int8, np.uint8, np.int64, np.uint64])
def test_extreme_indices_are_out_of_range(index_dtype):
    info = np.iinfo(index_dtype)
    negatives = np.array([-3, -4], np.int64).astype(index_dtype)  # wrapped if unsigned
    indices = np.array([info.min, info.max, *negatives, 2], index_dtype)
    with jax.enable_x64(True):
        out = dml.one_hot(indices, jnp.array([0, 1]), depth=3)
    expected = reference.one_hot(indices[:, None], np.array([0, 1]), depth=3, axis=1)
    np.testing.assert_array_equal(out, expected)
    # Signed: min and max are out of range, -3 wraps to 0, -4 is below -depth. Unsigned: the
    # minimum is 0, and -3 and -4 were converted to large values, out of range.
    hot = [0, 0, 1, 0, 1] if info.min < 0 else [1, 0, 0, 0, 1]
    assert np.asarray(out).sum(axis=1).tolist() == hot


def test_like_jax_nn_one_hot_for_labels_in_range():
    labels = jnp.array([[0, 3], [2, 1]])
    for axis in (-1, 0, 1, 2, -3):
        np.testing.assert_array_equal(
            dml.one_hot(labels, jnp.array([0.0, 1.0]), depth=4, axis=axis),
            jax.nn.one_hot(labels, 4, axis=axis),
        )


@pytest.mark.parametrize("dtype", [None, jnp.bfloat16, jnp.int8, jnp.bool_], ids=str)
def test_without_values_it_is_jax_nn_one_hot_for_labels_in_range(dtype):
    labels = jnp.array([[0, 3], [2, 1]])
    typed = {} if dtype is None else {"dtype": dtype}
    for axis in (-1, 0, 2):
        want = jax.nn.one_hot(labels, 4, axis=axis, **typed)
        got = jax.jit(lambda i, axis=axis: dml.one_hot(i, depth=4, axis=axis, **typed))(labels)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    # The one difference DirectML makes: -1 is the last class, not none.
    np.testing.assert_array_equal(dml.one_hot(jnp.array(-1), depth=3), [0.0, 0.0, 1.0])
    assert not jax.nn.one_hot(jnp.array(-1), 3).any()


def test_a_dtype_converts_the_values_given():
    got = dml.one_hot(jnp.array([1]), jnp.array([2.5, 7.0]), depth=2, dtype=jnp.int32)
    assert got.dtype == jnp.int32
    np.testing.assert_array_equal(got, [[2, 7]])


def test_empty_depth_scalars_and_empty_indices():
    assert dml.one_hot(jnp.array([1, 2]), jnp.zeros(2), depth=0).shape == (2, 0)
    assert dml.one_hot(jnp.array(1), jnp.array([3, 4]), depth=3).tolist() == [3, 4, 3]
    assert dml.one_hot(jnp.zeros((0, 2), jnp.int32), jnp.zeros(2), depth=3, axis=1).shape == (
        0,
        3,
        2,
    )


@pytest.mark.parametrize(
    ("call", "field", "fragment"),
    [
        (lambda: dml.one_hot(jnp.array([1]), jnp.zeros(2), depth=-1), "depth", "non-negative"),
        (lambda: dml.one_hot(jnp.array([1]), jnp.zeros(1), depth=2), "values", "at least 2"),
        (lambda: dml.one_hot(jnp.array([1]), jnp.zeros(2), depth=2, axis=2), "axis", r"\[-2, 2\)"),
        (lambda: dml.one_hot(jnp.array([1.0]), jnp.zeros(2), depth=2), "indices", "integer"),
    ],
)
def test_functional_errors_name_the_argument(call, field, fragment):
    with pytest.raises(InvalidArgumentError, match=fragment) as e:
        call()
    assert (e.value.op, e.value.field) == ("dmljax.one_hot", field)


# --- Transformations ------------------------------------------------------------------------------


def test_the_gradient_counts_each_value_where_it_is_written():
    labels = jnp.array([[0, -1], [5, 2]])
    grad = jax.grad(lambda v: dml.one_hot(labels, v, depth=3).sum())(jnp.array([0.0, 1.0, 9.0]))
    # 12 elements: 3 sequences hold one on each, the out-of-range one (5) none.
    assert grad.tolist() == [9.0, 3.0, 0.0]
