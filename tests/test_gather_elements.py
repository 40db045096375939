"""GATHER_ELEMENTS: DML_GATHER_ELEMENTS_OPERATOR_DESC and dml.gather_elements."""

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st
from jax.test_util import check_grads

import dmljax as dml
from dmljax._src.checking import doc_examples, reference
from tests import descs, helpers

T = dml.DataType
FL = dml.FeatureLevel
InvalidArgumentError = dml.errors.InvalidArgumentError


desc = descs.gather_elements


def test_doc_example():
    example = doc_examples.entry("gather_elements-ex1")
    assert example["status"] == "corrected"  # the page labels the output UINT32
    x = doc_examples.tensor_of(example["inputs"]["InputTensor"])
    indices = doc_examples.tensor_of(example["inputs"]["IndicesTensor"])
    expected = doc_examples.tensor_of(example["expected"])
    op = dml.compile_operator(
        dml.GatherElementsOperatorDesc(
            input_tensor=doc_examples.tensor_desc_of(example["inputs"]["InputTensor"]),
            indices_tensor=doc_examples.tensor_desc_of(example["inputs"]["IndicesTensor"]),
            output_tensor=doc_examples.tensor_desc_of(example["expected"]),
            axis=example["attrs"]["Axis"],
        )
    )
    np.testing.assert_array_equal(op(x, indices), expected)
    np.testing.assert_array_equal(dml.gather_elements(x, indices, axis=0), expected)
    np.testing.assert_array_equal(reference.gather_elements(x, indices, axis=0), expected)


test_rule_violations_name_the_field = descs.rule_table_test(
    desc,
    [
        # Rules shared with SCATTER are in test_elements.py.
        ({"indices_sizes": (1, 2, 3)}, "indices_tensor.sizes", "4 dimensions long"),
        ({"output_sizes": (1, 2, 3)}, "output_tensor.sizes", "4 dimensions long"),
        ({"output_sizes": (1, 1, 3, 3)}, "output_tensor.sizes", "indices_tensor.sizes"),
        ({"output_data_type": T.INT32}, "output_tensor.data_type", "FLOAT32"),
    ],
)


def test_larger_axis_dimension_in_the_indices_is_allowed():
    op = dml.compile_operator(desc(indices_sizes=(1, 1, 5, 3)))  # axis 2: any size
    assert op.output_desc.sizes == (1, 1, 5, 3)


_INDICES = set(helpers.DML_INDEX_TYPES)


def test_introduced_at_fl_2_1():
    helpers.refused(
        lambda: dml.compile_operator(desc(), feature_level=FL.FL_2_0),
        field="feature_level",
        match="FL_2_1 or higher",
    )


def test_negative_indices_wrap_from_fl_3_0_and_out_of_range_clamps():
    x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    signed = np.array([[[[-1, 0, 7], [-4, 2, -2]]]], np.int32)
    op = dml.compile_operator(desc(index_type=T.INT32), feature_level=FL.FL_3_0)
    np.testing.assert_array_equal(op(x, signed), [[[[6, 1, 8], [0, 7, 5]]]])
    unsigned = np.array([[[[2**32 - 1, 0, 1], [2, 2**31, 0]]]], np.uint32)
    op = dml.compile_operator(desc(), feature_level=FL.FL_2_1)
    np.testing.assert_array_equal(op(x, unsigned), [[[[6, 1, 5], [6, 7, 2]]]])


# --- The functional face --------------------------------------------------------------------------


def test_functional_face_shapes():
    x = jnp.arange(24).reshape(2, 3, 4)
    assert dml.gather_elements(x, jnp.zeros((2, 5, 4), jnp.int8), axis=1).shape == (2, 5, 4)
    smaller = dml.gather_elements(x, jnp.array([[[3], [0]]]), axis=-1)  # smaller off the axis
    np.testing.assert_array_equal(smaller, [[[3], [4]]])
    assert dml.gather_elements(x, jnp.zeros((2, 0, 4), jnp.int32), axis=1).shape == (2, 0, 4)
    assert dml.gather_elements(jnp.zeros((0, 3)), jnp.zeros((0, 2), jnp.int32), axis=1).shape == (
        0,
        2,
    )


@pytest.mark.parametrize(
    ("indices", "axis", "field", "fragment"),
    [
        (jnp.zeros((2, 3), jnp.float32), 0, "indices", "integer dtype"),
        (jnp.zeros((2,), jnp.int32), 0, "indices.shape", "2 dimensions long"),
        (jnp.zeros((2, 5), jnp.int32), 0, "indices.shape[1]", "at most x.shape"),
        (jnp.zeros((4, 3), jnp.int32), 1, "indices.shape[0]", "at most x.shape"),
        (jnp.zeros((2, 3), jnp.int32), 2, "axis", r"in \[-2, 2\)"),
    ],
)
def test_functional_face_refusals(indices, axis, field, fragment):
    with pytest.raises(InvalidArgumentError, match=fragment) as e:
        dml.gather_elements(jnp.ones((3, 4)), indices, axis=axis)
    assert e.value.op == "dmljax.gather_elements"
    assert e.value.field == field


def test_functional_face_refuses_an_empty_axis():
    with pytest.raises(InvalidArgumentError, match="nothing to gather"):
        dml.gather_elements(jnp.zeros((2, 0)), jnp.zeros((2, 1), jnp.int32), axis=1)


# --- Against the reference ------------------------------------------------------------------------

GATHER_ELEMENTS_TYPES = helpers.documented_data_types("DML_OPERATOR_GATHER_ELEMENTS")


def cases(functional):
    # Gathering from an empty axis is refused: its tests draw no such case.
    drawn = helpers.element_index_cases(functional=functional, data_types=GATHER_ELEMENTS_TYPES)
    return drawn.filter(lambda c: c[0].shape[c[2]] > 0 or c[1].size == 0)


@hypothesis.given(cases(functional=False))
def test_desc_face_equals_the_reference(case):
    x, indices, axis = case
    with jax.enable_x64(True):
        op = dml.compile_operator(
            dml.GatherElementsOperatorDesc(
                input_tensor=dml.TensorDesc.from_array(x),
                indices_tensor=dml.TensorDesc.from_array(indices),
                output_tensor=dml.TensorDesc(data_type=T.from_dtype(x.dtype), sizes=indices.shape),
                axis=axis,
            )
        )
        actual = op(x, indices)
    np.testing.assert_array_equal(actual, reference.gather_elements(x, indices, axis=axis))


@hypothesis.given(cases(functional=True), st.booleans())
def test_functional_face_equals_the_reference(case, negative_axis):
    x, indices, axis = case
    with jax.enable_x64(True):
        actual = dml.gather_elements(x, indices, axis=axis - x.ndim if negative_axis else axis)
    assert actual.dtype == x.dtype
    assert actual.shape == indices.shape
    np.testing.assert_array_equal(actual, reference.gather_elements(x, indices, axis=axis))


# --- Transformations ------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_gradients_with_duplicate_indices(axis):
    rng = np.random.default_rng(9)
    index_shape = [3, 4, 2]
    index_shape[axis] = 5
    indices = jnp.asarray(rng.integers(-3, 3, index_shape), jnp.int32)
    with jax.enable_x64(True):
        x = jnp.asarray(rng.standard_normal((3, 4, 3)))
        check_grads(
            lambda x: dml.gather_elements(x, indices, axis=axis),
            (x,),
            order=2,
            modes=("fwd", "rev"),
        )


def test_a_non_minor_axis_is_moved_last():
    x = jnp.ones((8, 16), jnp.float32)
    i = jnp.zeros((8, 16), jnp.int32)
    major = jax.jit(lambda x, i: dml.gather_elements(x, i, axis=0)).lower(x, i).as_text()
    minor = jax.jit(lambda x, i: dml.gather_elements(x, i, axis=1)).lower(x, i).as_text()
    assert "transpose" in major
    assert "transpose" not in minor
