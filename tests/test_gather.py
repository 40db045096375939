"""GATHER: DML_GATHER_OPERATOR_DESC and dml.gather."""

import dataclasses
import math

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st
from jax.test_util import check_grads

import dmljax as dml
from dmljax._src.bench.hlo import kernel_count
from dmljax._src.checking import doc_examples, reference
from dmljax._src.ops import gather as gather_module
from dmljax._src.rules import right_align
from tests import descs, helpers

T = dml.DataType
FL = dml.FeatureLevel
InvalidArgumentError = dml.errors.InvalidArgumentError


gather_desc = descs.gather


def desc_of_example(example):
    return gather_desc(
        input_sizes=tuple(example["inputs"]["InputTensor"]["sizes"]),
        indices_sizes=tuple(example["inputs"]["IndicesTensor"]["sizes"]),
        output_sizes=tuple(example["expected"]["sizes"]),
        axis=example["attrs"]["Axis"],
        index_dimensions=example["attrs"]["IndexDimensions"],
        data_type=T[example["inputs"]["InputTensor"]["dtype"]],
        index_type=T[example["inputs"]["IndicesTensor"]["dtype"]],
    )


# --- The DirectML doc examples ---------------------------------------------------------------


@pytest.mark.parametrize(
    "example_id",
    ["gather-ex1", "gather-ex2", "gather-ex3-corrected", "gather-ex4", "gather-ex5"],
)
def test_doc_examples(example_id):
    example = doc_examples.entry(example_id)
    x = doc_examples.tensor_of(example["inputs"]["InputTensor"])
    indices = doc_examples.tensor_of(example["inputs"]["IndicesTensor"])
    expected = doc_examples.tensor_of(example["expected"])
    desc = desc_of_example(example)
    np.testing.assert_array_equal(dml.compile_operator(desc)(x, indices), expected)
    k, axis = desc.index_dimensions, desc.axis
    np.testing.assert_array_equal(
        reference.gather(x, indices, axis=axis, index_dimensions=k), expected
    )
    # The functional face, with the index dimensions that hold indices.
    index_block = indices.reshape(indices.shape[indices.ndim - k :])
    np.testing.assert_array_equal(
        np.asarray(dml.gather(x, index_block, axis=axis)).reshape(expected.shape), expected
    )


def test_doc_example_3_as_written_is_refused_for_its_index_dimensions():
    example = doc_examples.entry("gather-ex3-doc-as-written")
    assert example["status"] == "doc-as-written-invalid"
    with pytest.raises(InvalidArgumentError, match="index_dimensions") as e:
        dml.compile_operator(desc_of_example(example))
    assert e.value.field == "index_dimensions"
    assert e.value.given == 2


# --- Every rule -----------------------------------------------------------------------------------


test_rule_violations_name_the_field = descs.rule_table_test(
    gather_desc,
    [
        ({"indices_sizes": (1, 1, 4)}, "indices_tensor.sizes", "4 dimensions long"),
        ({"output_sizes": (1, 4, 2)}, "output_tensor.sizes", "4 dimensions long"),
        ({"axis": 4}, "axis", r"in \[0, 4\)"),
        ({"axis": -1}, "axis", r"in \[0, 4\)"),
        ({"index_dimensions": 5}, "index_dimensions", r"in \[0, 4\]"),
        ({"index_dimensions": -1}, "index_dimensions", r"in \[0, 4\]"),
        ({"indices_sizes": (1, 2, 1, 4)}, "indices_tensor.sizes", "1 in the first 3"),
        (
            {
                "indices_sizes": (1, 1, 2, 4),
                "index_dimensions": 2,
                "input_sizes": (2, 2, 3, 2),
                "output_sizes": (2, 2, 4, 2),
            },
            "index_dimensions",
            "dropping leading 1s of input_tensor.sizes",
        ),
        ({"output_sizes": (1, 1, 2, 4)}, "output_tensor.sizes", r"\(1, 1, 4, 2\)"),
        ({"output_data_type": T.FLOAT16}, "output_tensor.data_type", "FLOAT32"),
        ({"index_type": T.FLOAT32}, "indices_tensor.data_type", "one of INT64, INT32"),
        ({"index_type": T.INT16}, "indices_tensor.data_type", "one of"),
    ],
)


def test_every_legal_index_dimensions_of_a_4d_gather():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    for k in range(5):
        for axis in range(4):
            # K sizes chosen so that the leading k-1 entries of the full sizes are 1. Where
            # some of them come from the indices (k - 1 > axis), the page refuses the desc:
            # it crops only the input's leading 1s.
            k_sizes = (1,) * max(k - 1 - axis, 0) + (2,) * (k - max(k - 1 - axis, 0))
            full = (*x.shape[:axis], *k_sizes, *x.shape[axis + 1 :])
            input_sizes = tuple(
                1 if i < min(axis, max(k - 1, 0)) else s for i, s in enumerate(x.shape)
            )
            full = (*input_sizes[:axis], *k_sizes, *input_sizes[axis + 1 :])
            output = right_align(full, 4)
            assert output is not None
            desc = gather_desc(
                input_sizes=input_sizes,
                indices_sizes=(1,) * (4 - k) + k_sizes,
                output_sizes=output,
                axis=axis,
                index_dimensions=k,
                index_type=T.INT32,
            )
            if k - 1 > axis:
                with pytest.raises(dml.errors.InvalidArgumentError, match="leading 1s"):
                    dml.compile_operator(desc)
                continue
            xi = x[tuple(slice(0, s) for s in input_sizes)]
            indices = np.full(desc.indices_tensor.sizes, -1, np.int32)
            np.testing.assert_array_equal(
                dml.compile_operator(desc)(xi, indices),
                reference.gather(xi, indices, axis=axis, index_dimensions=k),
            )


_INDICES = {T.INT64, T.INT32, T.UINT64, T.UINT32}


def test_negative_indices_wrap_from_fl_3_0_and_unsigned_never_wrap():
    x = np.arange(6, dtype=np.float32).reshape(1, 1, 3, 2)
    # Below 3_0 signed indices do not exist; at 3_0 they count from the end.
    with pytest.raises(InvalidArgumentError, match="supported from FL_3_0"):
        dml.compile_operator(gather_desc(index_type=T.INT32), feature_level=FL.FL_2_1)
    op = dml.compile_operator(gather_desc(index_type=T.INT32), feature_level=FL.FL_3_0)
    signed = np.array([[[[-1, -3, -4, 5]]]], np.int32)  # -4 and 5 are out of range: clamped
    np.testing.assert_array_equal(op(x, signed), x[:, :, [2, 0, 0, 2]])
    for level in (FL.FL_1_0, FL.FL_2_1, FL.FL_3_0):
        op = dml.compile_operator(gather_desc(), feature_level=level)
        unsigned = np.array([[[[2**32 - 1, 2**31, 1, 0]]]], np.uint32)  # huge, never -1
        np.testing.assert_array_equal(op(x, unsigned), x[:, :, [2, 2, 1, 0]])


def test_without_wrapping_negative_indices_clamp_to_zero():
    x = jnp.arange(4.0)
    result = gather_module.gather_lowering(x, jnp.array([-1, 3]), axis=0, wrap_negative=False)
    np.testing.assert_array_equal(result, [0.0, 3.0])


# --- The functional face -------------------------------------------------------------------------


def test_functional_face_shapes_and_axes():
    x = jnp.arange(24).reshape(2, 3, 4)
    assert dml.gather(x, jnp.array([[0, 1]]), axis=1).shape == (2, 1, 2, 4)
    assert dml.gather(x, jnp.array([[0, 1]]), axis=-1).shape == (2, 3, 1, 2)
    assert dml.gather(x, 2, axis=2).shape == (2, 3)  # 0-D indices drop the axis
    np.testing.assert_array_equal(dml.gather(x, 2, axis=2), x[:, :, 2])
    assert dml.gather(x, jnp.zeros((0,), jnp.int32), axis=0).shape == (0, 3, 4)
    assert dml.gather(x, jnp.zeros((2, 0), jnp.int32), axis=1).shape == (2, 2, 0, 4)
    assert dml.gather(jnp.zeros((2, 0, 4)), jnp.array([1]), axis=0).shape == (1, 0, 4)
    assert dml.gather(jnp.zeros((2, 0, 4)), jnp.zeros((0,), jnp.int8), axis=1).shape == (2, 0, 4)
    np.testing.assert_array_equal(
        dml.gather(jnp.array([True, False]), jnp.array([1, 1, 0]), axis=0), [False, False, True]
    )


@pytest.mark.parametrize(
    ("indices", "axis", "error", "field", "fragment"),
    [
        (jnp.array([0.0, 1.0]), 0, InvalidArgumentError, "indices", "integer dtype"),
        (jnp.array([True]), 0, InvalidArgumentError, "indices", "integer dtype"),
        (jnp.array([1 + 0j]), 0, InvalidArgumentError, "indices", "integer dtype"),
        (jnp.array([0]), 2, InvalidArgumentError, "axis", r"in \[-2, 2\)"),
        (jnp.array([0]), -3, InvalidArgumentError, "axis", r"in \[-2, 2\)"),
        (jnp.array([0]), 1.0, InvalidArgumentError, "axis", "an integer"),
        (jnp.array([0]), None, InvalidArgumentError, "axis", "an integer"),
        ([0, 1], 0, dml.errors.ArgumentTypeError, "indices", "an array"),
    ],
)
def test_functional_face_refusals(indices, axis, error, field, fragment):
    with pytest.raises(error, match=fragment) as e:
        dml.gather(jnp.ones((3, 4)), indices, axis=axis)
    assert e.value.op == "dmljax.gather"
    assert e.value.field == field


def test_functional_face_refuses_an_empty_axis_and_traced_axes():
    helpers.refused(
        lambda: dml.gather(jnp.zeros((2, 0)), jnp.array([0]), axis=1),
        field="x.shape[axis]",
        match="nothing to gather",
    )

    @jax.jit
    def f(x, axis):
        return dml.gather(x, jnp.array([0]), axis=axis)

    helpers.refused(lambda: f(jnp.ones((2, 3)), 1), field="axis", match="traced value")


@pytest.mark.filterwarnings("ignore::dmljax.errors.NarrowedIndicesWarning")
def test_numpy_int64_indices_keep_their_meaning_without_x64():
    x = jnp.arange(5)
    with jax.enable_x64(False):
        indices = np.array([2**40, -(2**40), 2**32 + 1, -1, 3], np.int64)
        np.testing.assert_array_equal(dml.gather(x, indices, axis=0), [4, 0, 4, 4, 3])
        unsigned = np.array([2**63, 2**32 + 1, 1], np.uint64)
        np.testing.assert_array_equal(dml.gather(x, unsigned, axis=0), [4, 4, 1])


# --- Against the reference -----------------------------------------------------------------------

GATHER_DATA_TYPES = helpers.documented_data_types("DML_OPERATOR_GATHER")


@st.composite
def desc_cases(draw):
    n = draw(st.integers(1, 8))
    axis = draw(st.integers(0, n - 1))
    k = draw(st.integers(0, axis + 1))  # k - 1 leading 1s of the input before the axis
    max_size = 3 if n <= 4 else 2
    input_sizes = [draw(st.integers(1, max_size)) for _ in range(n)]
    k_sizes = [draw(st.integers(1, max_size)) for _ in range(k)]
    # The full sizes in[:axis] ++ K ++ in[axis+1:] have n - 1 + k entries; the first k - 1
    # are dropped by right-alignment: the page allows only the input's leading 1s there.
    for i in range(max(k - 1, 0)):
        input_sizes[i] = 1
    full = (*input_sizes[:axis], *k_sizes, *input_sizes[axis + 1 :])
    hypothesis.assume(math.prod(full) <= 1024)
    output_sizes = right_align(full, n)
    assert output_sizes is not None
    data_type = draw(st.sampled_from(GATHER_DATA_TYPES))
    index_type = draw(st.sampled_from(sorted(_INDICES)))
    rng = draw(helpers.seeds())
    x = helpers.random_array(rng, tuple(input_sizes), data_type.dtype)
    indices_sizes = (1,) * (n - k) + tuple(k_sizes)
    indices = helpers.random_indices(rng, indices_sizes, index_type.dtype, input_sizes[axis])
    desc = gather_desc(
        input_sizes=tuple(input_sizes), indices_sizes=indices_sizes, output_sizes=output_sizes,
        axis=axis, index_dimensions=k, data_type=data_type, index_type=index_type,
    )  # fmt: skip
    return desc, x, indices


@hypothesis.given(desc_cases())
def test_desc_face_equals_the_reference(case):
    desc, x, indices = case
    expected = reference.gather(x, indices, axis=desc.axis, index_dimensions=desc.index_dimensions)
    np.testing.assert_array_equal(descs.run_desc(desc, x, indices), expected)


@st.composite
def functional_cases(draw):
    n = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    q = draw(st.integers(0, 3))
    index_shape = tuple(draw(st.lists(st.integers(0, 3), min_size=q, max_size=q)))
    axis = draw(st.integers(-n, n - 1))
    hypothesis.assume(shape[axis] > 0 or math.prod(index_shape) == 0)
    hypothesis.assume(math.prod(shape) * max(math.prod(index_shape), 1) <= 1024)
    rng = draw(helpers.seeds())
    x = helpers.random_array(rng, shape, draw(st.sampled_from(helpers.FUNCTIONAL_DTYPES)))
    index_dtype = draw(st.sampled_from(helpers.INDEX_DTYPES))
    return x, helpers.random_indices(rng, index_shape, index_dtype, shape[axis]), axis


@hypothesis.given(functional_cases())
def test_functional_face_equals_the_reference(case):
    x, indices, axis = case
    expected = reference.take(x, indices, axis)
    with jax.enable_x64(True):
        actual = dml.gather(x, indices, axis=axis)
    assert actual.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(actual), expected)


# --- Transformations ------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_gradients_with_duplicate_indices(axis):
    indices = jnp.array([[1, 0], [1, 1], [2, -1]])  # duplicates: the adjoint adds them up
    with jax.enable_x64(True):
        x = jnp.asarray(np.random.default_rng(5).standard_normal((3, 4, 3)))
        check_grads(
            lambda x: dml.gather(x, indices, axis=axis), (x,), order=2, modes=("fwd", "rev")
        )
        counts = np.zeros(x.shape[axis])
        np.add.at(counts, np.asarray(indices) % x.shape[axis], 1)
        grad = jax.grad(lambda x: dml.gather(x, indices, axis=axis).sum())(x)
        np.testing.assert_array_equal(np.moveaxis(np.asarray(grad), axis, 0)[:, 0, 0], counts)


def test_an_axis_spelled_either_way_runs_one_program():
    rng = np.random.default_rng(8)
    x = jnp.asarray(rng.standard_normal((6, 7)), jnp.float32)
    i = jnp.asarray(rng.integers(0, 7, (3,)), jnp.uint32)
    jitted = helpers.face_program(dml.gather)
    dml.gather(x, i, axis=1)
    size = helpers.jit_cache_size(jitted)
    dml.gather(x + 1, i + 1, axis=-1)  # same program: axis normalised, new values
    assert helpers.jit_cache_size(jitted) == size


@pytest.mark.parametrize(
    ("shape", "index_shape", "axis"), [((64, 32), (16,), 0), ((64, 32), (8, 2), 1)]
)
@pytest.mark.parametrize("index_dtype", [jnp.int32, jnp.uint32, jnp.int8])
def test_no_more_kernels_than_jnp_take(shape, index_shape, axis, index_dtype):
    x = jnp.ones(shape, jnp.float32)
    i = jnp.zeros(index_shape, index_dtype)
    ours = jax.jit(lambda x, i: dml.gather(x, i, axis=axis)).lower(x, i).compile()
    theirs = jax.jit(lambda x, i: jnp.take(x, i, axis=axis)).lower(x, i).compile()
    assert kernel_count(ours) <= kernel_count(theirs)
    assert "gather" in (ours.as_text() or "")


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16])
def test_16_bit_gradients_accumulate_in_float32(dtype):
    # 4096 lookups of one row, each cotangent 2**-11: the float32 sum, 2, rounds to 2 exactly;
    # a 16-bit scatter-add (jnp.take's gradient) stalls once 2**-11 is half an ulp or less.
    table = jnp.zeros((4, 3), dtype)
    ids = jnp.zeros((4096,), jnp.int32)

    def loss(take):
        return lambda t: (take(t).astype(jnp.float32) * 2.0**-11).sum()

    grad = jax.grad(loss(lambda t: dml.gather(t, ids, axis=0)))(table)
    assert grad.dtype == dtype
    assert grad[0].tolist() == [2.0, 2.0, 2.0]
    assert grad[1:].tolist() == [[0.0] * 3] * 3
    assert float(jax.grad(loss(lambda t: jnp.take(t, ids, axis=0)))(table)[0, 0]) < 2.0
    # The values are jnp's, and so are the gradients where no rounding differs.
    x = jnp.asarray(np.random.default_rng(0).standard_normal((5, 3)), dtype)
    some = jnp.array([4, 0, 4, 2])
    np.testing.assert_array_equal(dml.gather(x, some, axis=0), jnp.take(x, some, axis=0))
    weights = jnp.arange(3.0)[None]
    wide = jax.grad(lambda t: (dml.gather(t, some, axis=0) * weights).sum())(x.astype(jnp.float32))
    narrow = jax.grad(lambda t: (dml.gather(t, some, axis=0).astype(jnp.float32)
                                 * weights).sum())(x)  # fmt: skip
    np.testing.assert_array_equal(narrow, wide.astype(dtype))


def test_16_bit_gradients_through_the_other_gathers():
    table = jnp.zeros((2, 3), jnp.bfloat16)
    ids = jnp.zeros((4096, 1), jnp.int32)
    nd = jax.grad(lambda t: (dml.gather_nd(t, ids).astype(jnp.float32) * 2.0**-11).sum())(table)
    assert nd[0].tolist() == [2.0, 2.0, 2.0]
    column = jnp.zeros((4, 1), jnp.bfloat16)
    rows = jnp.zeros((4, 4096), jnp.int32)
    elements = jax.grad(
        lambda t: (dml.gather_elements(t, rows, axis=1).astype(jnp.float32) * 2.0**-11).sum()
    )(column)
    assert elements.tolist() == [[2.0]] * 4


def test_16_bit_gather_derivatives_of_order_2():
    # Numerical differences in bfloat16 mean nothing; the derivatives are compared exactly
    # with jnp.take's, whose sums of small integers round alike.
    x = jnp.asarray(np.random.default_rng(1).standard_normal((4, 3)), jnp.bfloat16)
    ids = jnp.array([3, 1, 3])
    tangent = jnp.ones_like(x)
    _, dy = jax.jvp(lambda t: dml.gather(t, ids, axis=0), (x,), (tangent,))
    np.testing.assert_array_equal(dy, jnp.take(tangent, ids, axis=0))

    def squares(take):
        return lambda t: (take(t).astype(jnp.float32) ** 2).sum()

    np.testing.assert_array_equal(
        jax.hessian(squares(lambda t: dml.gather(t, ids, axis=0)))(x),
        jax.hessian(squares(lambda t: jnp.take(t, ids, axis=0)))(x),
    )


def test_a_leading_1_of_the_indices_is_not_cropped():
    # full = indices[N-k:] ++ input[1:] = (1, 2, 2): its leading 1 comes from the indices,
    # and the page crops only the input's (its rank 2 + k 2 - 1 = 3 > 2 dimensions).
    desc = dml.GatherOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(3, 2)),
        indices_tensor=dml.TensorDesc(data_type=dml.DataType.UINT32, sizes=(1, 2)),
        output_tensor=dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(2, 2)),
        axis=0,
        index_dimensions=2,
    )
    helpers.refused(
        lambda: dml.compile_operator(desc),
        field="index_dimensions",
        match="leading 1s of input_tensor",
    )
    # The same indices with index_dimensions 1 read the same rows, as the page allows.
    ok = dml.compile_operator(dataclasses.replace(desc, index_dimensions=1))
    np.testing.assert_array_equal(ok(np.arange(6.0, dtype=np.float32).reshape(3, 2),
                                     np.array([[2, 0]], np.uint32)), [[4, 5], [0, 1]])  # fmt: skip
