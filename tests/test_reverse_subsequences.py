"""REVERSE_SUBSEQUENCES: its desc and dml.reverse_subsequences."""

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
InvalidArgumentError = dml.errors.InvalidArgumentError


def reverse_desc(sizes=(3, 4), lengths=(3, 1), axis=1, data_type=T.FLOAT32,
                 length_type=T.UINT32, output=None, output_data_type=None):  # fmt: skip
    return dml.ReverseSubsequencesOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=data_type, sizes=sizes),
        sequence_lengths_tensor=dml.TensorDesc(data_type=length_type, sizes=lengths),
        output_tensor=dml.TensorDesc(
            data_type=output_data_type or data_type, sizes=output or sizes
        ),
        axis=axis,
    )


# --- The DirectML doc examples --------------------------------------------------------------------

_ENTRIES = doc_examples.entries("DML_OPERATOR_REVERSE_SUBSEQUENCES")


def test_the_page_has_its_two_examples():
    assert len(_ENTRIES) == 2


# --- Rules and feature levels ---------------------------------------------------------------------


test_rule_violations_name_the_field = descs.rule_table_test(
    reverse_desc,
    [
        ({"axis": 2}, "axis", r"in \[0, 2\)"),
        ({"lengths": (3, 4)}, "sequence_lengths_tensor.sizes", "with 1 at axis 1"),
        ({"lengths": (1, 1)}, "sequence_lengths_tensor.sizes", r"\(3, 1\)"),
        ({"lengths": (3,)}, "sequence_lengths_tensor.sizes", "DimensionCount"),
        ({"output": (3, 5)}, "output_tensor.sizes", "input_tensor.sizes"),
        ({"output_data_type": T.FLOAT16}, "output_tensor.data_type", "FLOAT32"),
        ({"length_type": T.INT32}, "sequence_lengths_tensor.data_type", "UINT32"),
    ],
)


_TYPES_8_32 = {T.FLOAT32, T.FLOAT16, T.INT32, T.INT16, T.INT8, T.UINT32, T.UINT16, T.UINT8}


def test_lengths_beyond_the_axis_clamp():
    x = np.arange(4, dtype=np.float32)[None]
    for length in (4, 5, 2**32 - 1):
        out = dml.compile_operator(reverse_desc((1, 4), (1, 1)))(x, np.array([[length]], np.uint32))
        assert out.tolist() == [[3.0, 2.0, 1.0, 0.0]]


def test_strided_input_and_lengths_through_buffers():
    # A transposed input view and lengths broadcast along the rows by a zero stride.
    desc = dml.ReverseSubsequencesOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(2, 3), strides=(1, 2)),
        sequence_lengths_tensor=dml.TensorDesc(data_type=T.UINT32, sizes=(2, 1), strides=(0, 1)),
        output_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(2, 3)),
        axis=1,
    )
    buffer = np.arange(6, dtype=np.float32)
    out = dml.compile_operator(desc)(buffer, np.array([2], np.uint32))
    x = dml.from_strided_buffer(buffer, desc.input_tensor)
    np.testing.assert_array_equal(
        out, reference.reverse_subsequences(np.asarray(x), np.array([[2], [2]]), axis=1)
    )


# --- Against the reference, on both faces ---------------------------------------------------------


@st.composite
def reverse_cases(draw, max_rank=8):
    rank = draw(st.integers(1, max_rank))
    high = 4 if rank <= 3 else 2
    shape = tuple(draw(st.lists(st.integers(0, high), min_size=rank, max_size=rank)))
    axis = draw(st.integers(-rank, rank - 1))
    # The lengths' shape: x.shape with 1 at axis, some dimensions 1 (broadcast), some dropped.
    target = [1 if i == axis % rank else size for i, size in enumerate(shape)]
    lengths = [size if draw(st.booleans()) else 1 for size in target]
    dropped = draw(st.integers(0, rank))
    return shape, axis, tuple(lengths[dropped:])


@hypothesis.given(
    reverse_cases(),
    st.sampled_from(helpers.FUNCTIONAL_DTYPES),
    st.sampled_from(helpers.INDEX_DTYPES),
    helpers.seeds(),
)
def test_functional_face_equals_the_reference(case, dtype, length_dtype, rng):
    shape, axis, length_shape = case
    x = helpers.random_array(rng, shape, dtype)
    lengths = helpers.random_indices(rng, length_shape, length_dtype, shape[axis] or 1)
    with jax.enable_x64(True):
        actual = dml.reverse_subsequences(x, lengths, axis=axis)
    at = axis % len(shape)
    target = tuple(1 if i == at else n for i, n in enumerate(shape))
    full = np.broadcast_to(lengths.reshape((1,) * (len(shape) - lengths.ndim) + lengths.shape),
                           target)  # fmt: skip
    expected = reference.reverse_subsequences(x, full, axis=at)
    np.testing.assert_array_equal(np.asarray(actual).view(np.uint8), expected.view(np.uint8))


DESC_DATA_TYPES = tuple(sorted(_TYPES_8_32))


@hypothesis.given(reverse_cases(), st.sampled_from(DESC_DATA_TYPES), helpers.seeds())
def test_desc_face_equals_the_reference(case, data_type, rng):
    shape, axis, _ = case
    hypothesis.assume(0 not in shape)
    at = axis % len(shape)
    lengths_sizes = tuple(1 if i == at else n for i, n in enumerate(shape))
    x = helpers.random_array(rng, shape, data_type.dtype)
    lengths = helpers.random_indices(rng, lengths_sizes, np.uint32, shape[at])
    desc = reverse_desc(shape, lengths_sizes, at, data_type)
    actual = descs.run_desc(desc, x, lengths)
    np.testing.assert_array_equal(actual, reference.reverse_subsequences(x, lengths, axis=at))


def test_negative_and_extreme_lengths():
    x = jnp.arange(4)
    assert dml.reverse_subsequences(x, jnp.array(-3), axis=0).tolist() == [0, 1, 2, 3]
    assert dml.reverse_subsequences(x, jnp.array(2**31 - 1), axis=0).tolist() == [3, 2, 1, 0]
    with jax.enable_x64(True):
        big = np.array(2**64 - 1, np.uint64)
        assert dml.reverse_subsequences(x, big, axis=0).tolist() == [3, 2, 1, 0]
        low = np.array(-(2**63), np.int64)
        assert dml.reverse_subsequences(x, low, axis=0).tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("call", "field", "fragment"),
    [
        (lambda: dml.reverse_subsequences(jnp.ones(3), jnp.ones(1), axis=0), "lengths", "integer"),
        (lambda: dml.reverse_subsequences(jnp.ones((2, 3)), jnp.ones((3,), jnp.int32), axis=1),
         "lengths.shape", r"\(2, 1\)"),
        (lambda: dml.reverse_subsequences(jnp.ones((2, 3)), jnp.ones((1, 2, 1), jnp.int32),
                                          axis=1), "lengths.shape", "broadcasts"),
        (lambda: dml.reverse_subsequences(jnp.ones(3), jnp.ones(1, jnp.int32), axis=1), "axis",
         r"\[-1, 1\)"),
        (lambda: dml.reverse_subsequences(jnp.ones(()), jnp.ones((), jnp.int32), axis=0), "x",
         "at least 1 dimension"),
    ],
)  # fmt: skip
def test_functional_errors_name_the_argument(call, field, fragment):
    with pytest.raises(InvalidArgumentError, match=fragment) as e:
        call()
    assert (e.value.op, e.value.field) == ("dmljax.reverse_subsequences", field)


# --- Transformations ------------------------------------------------------------------------------
