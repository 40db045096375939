"""DIAGONAL_MATRIX and DIAGONAL_MATRIX1: their descs and dml.diagonal_matrix."""

import chex
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
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def diagonal_desc(sizes=(1, 1, 3, 4), offset=0, value=1.0, data_type=T.FLOAT32):
    return dml.DiagonalMatrixOperatorDesc(
        output_tensor=dml.TensorDesc(data_type=data_type, sizes=sizes), offset=offset, value=value
    )


def diagonal1_desc(sizes=(3, 4), begin=0, end=1, value=1, data_type=T.FLOAT32, with_input=True,
                   input_sizes=None, input_data_type=None, value_data_type=None):  # fmt: skip
    return dml.DiagonalMatrix1OperatorDesc(
        input_tensor=dml.TensorDesc(data_type=input_data_type or data_type,
                                    sizes=input_sizes or sizes) if with_input else None,
        output_tensor=dml.TensorDesc(data_type=data_type, sizes=sizes),
        value_data_type=value_data_type or data_type,
        value=value,
        diagonal_fill_begin=begin,
        diagonal_fill_end=end,
    )  # fmt: skip


def shape_of(shape, dtype=jnp.float32):
    return jax.ShapeDtypeStruct(shape, dtype)


# --- The DirectML doc examples --------------------------------------------------------------------

_ENTRIES = [
    *doc_examples.entries("DML_OPERATOR_DIAGONAL_MATRIX"),
    *doc_examples.entries("DML_OPERATOR_DIAGONAL_MATRIX1"),
]


def test_each_page_has_its_four_examples():
    assert len(_ENTRIES) == 8


def test_the_identity_examples_value_as_written_fills_sevens():
    # The DIAGONAL_MATRIX1 page's first example says Value 7 and shows 1s: the entry is
    # corrected to Value 1; as written, the diagonal holds 7s.
    example = doc_examples.build(doc_examples.entry("diagonal_matrix1-ex1"))
    as_written = diagonal1_desc((4, 5), 0, 1, 7, with_input=False)
    out = dml.compile_operator(as_written)()
    np.testing.assert_array_equal(out, 7 * example.expected)


# --- Rules and feature levels ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("desc", "field", "fragment"),
    [
        (lambda: diagonal_desc(offset=2**31), "offset", "INT"),
        (lambda: diagonal_desc(value=float("nan"), data_type=T.INT32), "value", "finite"),
        (lambda: diagonal_desc(value=300.0, data_type=T.UINT8), "value", r"\[0, 255\]"),
        (lambda: diagonal_desc(sizes=(3, 4)), "output_tensor.sizes", "4 dimensions"),
    ],
)
def test_diagonal_matrix_rules_name_the_field(desc, field, fragment):
    with pytest.raises(InvalidArgumentError, match=fragment) as e:
        dml.compile_operator(desc())
    assert (e.value.op, e.value.field) == ("DiagonalMatrixOperatorDesc", field)


test_diagonal_matrix1_rules_name_the_field = descs.rule_table_test(
    diagonal1_desc,
    [
        ({"begin": INT32_MIN - 1}, "diagonal_fill_begin", "INT"),
        ({"end": INT32_MAX + 1}, "diagonal_fill_end", "INT"),
        ({"value_data_type": T.FLOAT16}, "value_data_type", "FLOAT32"),
        ({"input_sizes": (4, 3)}, "output_tensor.sizes", "input_tensor.sizes"),
        ({"input_data_type": T.FLOAT16}, "output_tensor.data_type", "FLOAT16"),
        ({"sizes": (3,)}, "input_tensor.sizes", "2 to 4 dimensions"),
        ({"sizes": (1, 1, 1, 2, 3)}, "input_tensor.sizes", "2 to 4 dimensions"),
        ({"data_type": T.INT8, "value": 200}, "value", r"\[-128, 127\]"),
    ],
)


def test_diagonal_matrix_truncates_its_float_value_for_integers():
    out = dml.compile_operator(diagonal_desc(value=10.6, data_type=T.INT16))()
    assert out.dtype == jnp.int16
    assert out[0, 0, 0, 0] == 10
    out = dml.compile_operator(diagonal_desc(value=-2.9, data_type=T.INT8))()
    assert out[0, 0, 1, 1] == -2


def test_diagonal_matrix1_holds_its_value_exactly():
    with jax.enable_x64(True):
        for data_type, value in [(T.INT64, -(2**63)), (T.UINT64, 2**64 - 1), (T.FLOAT32, -0.0)]:
            out = dml.compile_operator(diagonal1_desc((2, 2), 0, 1, value, data_type, False))()
            held = np.asarray(out)[0, 0]
            assert held == value
            assert np.signbit(held) == np.signbit(value)


_TYPES_8_32 = {T.FLOAT32, T.FLOAT16, T.INT32, T.INT16, T.INT8, T.UINT32, T.UINT16, T.UINT8}


# --- Against the reference, on both faces ---------------------------------------------------------

BOUNDS = st.one_of(st.integers(-6, 6), st.sampled_from([INT32_MIN, INT32_MAX, INT32_MIN + 1]))


@st.composite
def matrices(draw, min_rank=2, max_rank=8):
    rank = draw(st.integers(min_rank, max_rank))
    high = 5 if rank <= 3 else 2
    shape = tuple(draw(st.lists(st.integers(0, high), min_size=rank, max_size=rank)))
    return shape, draw(BOUNDS), draw(BOUNDS)


@hypothesis.given(
    matrices(), st.sampled_from(helpers.FUNCTIONAL_DTYPES), st.booleans(), helpers.seeds()
)
def test_functional_face_equals_the_reference(case, dtype, generated, rng):
    shape, begin, end = case
    value = int(rng.integers(0, 2))
    with jax.enable_x64(True):
        if generated:
            actual = dml.diagonal_matrix(shape_of(shape, dtype), value=value, fill_begin=begin,
                                         fill_end=end)  # fmt: skip
            expected = reference.diagonal_matrix(
                None, shape, value=value, fill_begin=begin, fill_end=end, dtype=dtype
            )
        else:
            x = helpers.random_array(rng, shape, dtype)
            actual = dml.diagonal_matrix(x, value=value, fill_begin=begin, fill_end=end)
            expected = reference.diagonal_matrix(
                x, shape, value=value, fill_begin=begin, fill_end=end
            )
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(actual).view(np.uint8), expected.view(np.uint8))


DESC_DATA_TYPES = tuple(helpers.documented_data_types("DML_OPERATOR_DIAGONAL_MATRIX1"))


@hypothesis.given(matrices(2, 4), st.sampled_from(DESC_DATA_TYPES), st.booleans(), helpers.seeds())
def test_desc_faces_equal_the_reference(case, data_type, with_input, rng):
    shape, begin, end = case
    hypothesis.assume(0 not in shape)
    value = int(rng.integers(0, 100))
    x = helpers.random_array(rng, shape, data_type.dtype) if with_input else None
    desc = diagonal1_desc(shape, begin, end, value, data_type, with_input)
    actual = descs.run_desc(desc, *(() if x is None else (x,)))
    expected = reference.diagonal_matrix(x, shape, value=value, fill_begin=begin, fill_end=end,
                                         dtype=data_type.dtype)  # fmt: skip
    np.testing.assert_array_equal(np.asarray(actual), expected)
    if len(shape) == 4 and data_type in _TYPES_8_32 and -(2**31) < begin < 2**31 - 1:
        old = dml.compile_operator(diagonal_desc(shape, begin, float(value), data_type))()
        expected = reference.diagonal_matrix(None, shape, value=value, fill_begin=begin,
                                             fill_end=begin + 1, dtype=data_type.dtype)  # fmt: skip
        np.testing.assert_array_equal(np.asarray(old), expected)


@pytest.mark.parametrize("k", [-3, -1, 0, 2, 7])
def test_eye_tril_and_triu_through_diagonal_matrix(k):
    x = jnp.arange(20.0).reshape(4, 5) + 1
    eye = dml.diagonal_matrix(shape_of((4, 5)), fill_begin=k, fill_end=k + 1)
    np.testing.assert_array_equal(eye, jnp.eye(4, 5, k))
    tril = dml.diagonal_matrix(x, value=0, fill_begin=k + 1, fill_end=INT32_MAX)
    np.testing.assert_array_equal(tril, jnp.tril(x, k))
    triu = dml.diagonal_matrix(x, value=0, fill_begin=INT32_MIN, fill_end=k)
    np.testing.assert_array_equal(triu, jnp.triu(x, k))


def test_bands_as_wide_as_python_ints_go():
    x = jnp.ones((2, 3), jnp.int32)
    everything = dml.diagonal_matrix(x, value=5, fill_begin=-(2**70), fill_end=2**70)
    assert everything.tolist() == [[5, 5, 5], [5, 5, 5]]
    assert dml.diagonal_matrix(x, value=5, fill_begin=3, fill_end=3).tolist() == x.tolist()


@pytest.mark.parametrize(
    ("call", "field", "fragment"),
    [
        (lambda: dml.diagonal_matrix(jnp.ones(3)), "x.shape", "at least 2 dimensions"),
        (lambda: dml.diagonal_matrix(shape_of((3,))), "x.shape", "at least 2 dimensions"),
        (lambda: dml.diagonal_matrix(jnp.ones((2, 2), jnp.uint8), value=-1), "value", "255"),
        (lambda: dml.diagonal_matrix(jnp.ones((2, 2)), fill_begin=0.5),  # pyright: ignore
         "fill_begin", "integer"),
    ],
)  # fmt: skip
def test_functional_errors_name_the_argument(call, field, fragment):
    with pytest.raises(InvalidArgumentError, match=fragment) as e:
        call()
    assert (e.value.op, e.value.field) == ("dmljax.diagonal_matrix", field)


# --- Transformations ------------------------------------------------------------------------------


def test_the_gradient_of_a_lower_triangle_is_the_lower_triangle_mask():
    op = dml.compile_operator(diagonal1_desc((3, 4), 1, INT32_MAX, 0))
    x = jnp.asarray(np.random.default_rng(2).standard_normal((3, 4)), jnp.float32)
    assert jax.grad(lambda x: op(x).sum())(x).tolist() == jnp.tril(jnp.ones((3, 4))).tolist()


def test_a_matrix_generated_from_a_shape_is_the_same_under_jit():
    band = dict(value=-1, fill_begin=-1, fill_end=1)
    generated = jax.jit(lambda: dml.diagonal_matrix(shape_of((3, 4)), **band))()
    chex.assert_trees_all_equal(generated, dml.diagonal_matrix(shape_of((3, 4)), **band))


def test_strided_input_and_output_through_buffers():
    desc = dml.DiagonalMatrix1OperatorDesc(
        input_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(3, 2), strides=(1, 3)),
        output_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(3, 2), strides=(2, 1)),
        value_data_type=T.FLOAT32,
        value=-1.0,
        diagonal_fill_begin=0,
        diagonal_fill_end=1,
    )
    buffer = np.arange(6.0, dtype=np.float32)
    out = dml.compile_operator(desc)(buffer)
    assert desc.input_tensor is not None
    x = np.asarray(dml.from_strided_buffer(buffer, desc.input_tensor))
    expected = reference.diagonal_matrix(x, (3, 2), value=-1.0, fill_begin=0, fill_end=1)
    np.testing.assert_array_equal(dml.from_strided_buffer(out, desc.output_tensor), expected)
