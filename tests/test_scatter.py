"""SCATTER: DML_SCATTER_OPERATOR_DESC (SCATTER_ELEMENTS) and dml.scatter."""

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


desc = descs.scatter


def desc_of_example(example):
    inputs = example["inputs"]
    return dml.ScatterOperatorDesc(
        input_tensor=doc_examples.tensor_desc_of(inputs["InputTensor"]),
        indices_tensor=doc_examples.tensor_desc_of(inputs["IndicesTensor"]),
        updates_tensor=doc_examples.tensor_desc_of(inputs["UpdatesTensor"]),
        output_tensor=doc_examples.tensor_desc_of(example["expected"]),
        axis=example["attrs"]["Axis"],
    )


def example_arrays(example):
    inputs = example["inputs"]
    return tuple(
        doc_examples.tensor_of(inputs[name])
        for name in ("InputTensor", "IndicesTensor", "UpdatesTensor")
    )


# --- The DirectML doc examples --------------------------------------------------------------------


def test_doc_example_1_with_its_duplicate_index():
    example = doc_examples.entry("scatter-ex1")
    arrays = example_arrays(example)
    expected = doc_examples.tensor_of(example["expected"])  # the page's sequential result: 7 wins
    deterministic = dml.compile_operator(desc_of_example(example), deterministic=True)
    for _ in range(100):
        np.testing.assert_array_equal(deterministic(*arrays), expected)
    default = np.asarray(dml.compile_operator(desc_of_example(example))(*arrays))
    assert default[3] in (5.0, 7.0)  # DirectML: one of the duplicates wins
    np.testing.assert_array_equal(np.delete(default, 3), np.delete(expected, 3))
    np.testing.assert_array_equal(dml.scatter(*arrays, axis=0, deterministic=True), expected)
    np.testing.assert_array_equal(reference.scatter(*arrays, axis=0), expected)


def test_doc_example_2_corrected_and_as_written():
    example = doc_examples.entry("scatter-ex2-corrected")
    arrays = example_arrays(example)
    expected = doc_examples.tensor_of(example["expected"])
    np.testing.assert_array_equal(dml.compile_operator(desc_of_example(example))(*arrays), expected)
    np.testing.assert_array_equal(dml.scatter(*arrays, axis=0), expected)
    as_written = doc_examples.entry("scatter-ex2-doc-as-written")
    assert as_written["status"] == "doc-as-written-invalid"
    assert as_written["inputs"]["InputTensor"]["sizes"] == [2, 3]
    with pytest.raises(InvalidArgumentError, match=r"\(2, 3\)") as e:
        dml.compile_operator(desc_of_example(as_written))
    assert e.value.field == "output_tensor.sizes"


# --- Every rule -----------------------------------------------------------------------------------


test_rule_violations_name_the_field = descs.rule_table_test(
    desc,
    [
        # Rules shared with GATHER_ELEMENTS are in test_elements.py.
        ({"indices_sizes": (1, 2, 3)}, "indices_tensor.sizes", "DimensionCount must be equal"),
        ({"updates_sizes": (1, 2, 3)}, "updates_tensor.sizes", "DimensionCount must be equal"),
        ({"output_sizes": (1, 3, 3)}, "output_tensor.sizes", "DimensionCount must be equal"),
        ({"updates_sizes": (1, 1, 1, 3)}, "updates_tensor.sizes", "indices_tensor.sizes"),
        ({"output_sizes": (1, 1, 2, 3)}, "output_tensor.sizes", "input_tensor.sizes"),
        ({"updates_data_type": T.FLOAT16}, "updates_tensor.data_type", "FLOAT32"),
        ({"output_data_type": T.FLOAT16}, "output_tensor.data_type", "FLOAT32"),
    ],
)


def test_scatter_elements_is_the_same_desc_and_function():
    assert dml.ScatterElementsOperatorDesc is dml.ScatterOperatorDesc
    assert dml.scatter_elements is dml.scatter


def test_introduced_at_fl_2_0_not_at_fl_1_0():
    with pytest.raises(InvalidArgumentError, match="FL_2_0 or higher") as e:
        dml.compile_operator(desc(), feature_level=FL.FL_1_0)
    assert e.value.field == "feature_level"
    assert "DML_OPERATOR_SCATTER was introduced at FL_2_0" in str(e.value)
    dml.compile_operator(desc(), feature_level=FL.FL_2_0)


_FLOATS = {T.FLOAT32, T.FLOAT16}
_INDICES = set(helpers.DML_INDEX_TYPES)


def test_negative_indices_wrap_from_fl_3_0_and_out_of_range_updates_are_dropped():
    x = np.zeros((1, 1, 3, 3), np.float32)
    updates = np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3)
    signed = np.array([[[[-1, 5, -4], [0, -3, 2]]]], np.int32)  # 5 and -4 are out of range
    op = dml.compile_operator(desc(index_type=T.INT32), feature_level=FL.FL_3_0)
    np.testing.assert_array_equal(op(x, signed, updates), [[[[4, 5, 0], [0, 0, 0], [1, 0, 6]]]])
    unsigned = np.array([[[[2**32 - 1, 1, 2], [3, 0, 2**31]]]], np.uint32)  # never negative
    op = dml.compile_operator(desc(), feature_level=FL.FL_2_0)
    np.testing.assert_array_equal(op(x, unsigned, updates), [[[[0, 5, 0], [0, 2, 0], [0, 0, 3]]]])


# --- Donation -------------------------------------------------------------------------------------


def test_donate_input_scatters_into_the_input_buffer():
    d = desc(input_sizes=(4, 8), indices_sizes=(4, 2), axis=1)
    op = dml.compile_operator(d, donate_input=True)
    assert op.donate_input
    assert "donate_input=True" in repr(op)
    x = jnp.zeros((4, 8), jnp.float32)
    result = op(x, jnp.ones((4, 2), jnp.uint32), jnp.full((4, 2), 3.0, jnp.float32))
    np.testing.assert_array_equal(result[:, 1], [3.0] * 4)
    assert x.is_deleted()


def test_donate_input_needs_an_output_like_the_input():
    gather = dml.GatherOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(3, 2)),
        indices_tensor=dml.TensorDesc(data_type=T.UINT32, sizes=(1, 4)),
        output_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(4, 2)),
        axis=0,
        index_dimensions=1,
    )
    helpers.refused(
        lambda: dml.compile_operator(gather, donate_input=True),
        field="donate_input",
        match="cannot reuse the buffer",
    )
    with pytest.raises(dml.errors.ArgumentTypeError, match="deterministic must be a bool"):
        dml.compile_operator(desc(), deterministic=1)  # pyright: ignore[reportArgumentType, reportCallIssue]


# --- The functional face --------------------------------------------------------------------------


def test_functional_face_smaller_indices_and_empty_arrays():
    x = jnp.zeros((3, 4), jnp.int32)
    out = dml.scatter(x, jnp.array([[3], [0]]), jnp.array([[7], [8]]), axis=1)
    np.testing.assert_array_equal(out, [[0, 0, 0, 7], [8, 0, 0, 0], [0, 0, 0, 0]])
    assert (
        dml.scatter(x, jnp.zeros((0, 4), jnp.int32), jnp.zeros((0, 4), jnp.int32), axis=0)
        is not None
    )
    empty = jnp.zeros((0, 3))
    assert dml.scatter(empty, jnp.zeros((0, 2), jnp.int8), jnp.zeros((0, 2)), axis=1).shape == (
        0,
        3,
    )
    np.testing.assert_array_equal(
        dml.scatter(jnp.zeros((2, 0)), jnp.zeros((2, 1), jnp.int32), jnp.ones((2, 1)), axis=1),
        np.zeros((2, 0)),
    )  # every index is out of range of an empty axis: dropped
    flags = dml.scatter(jnp.zeros(3, bool), jnp.array([1, 1]), jnp.array([True, False]), axis=0,
                        reduction="max")  # fmt: skip
    np.testing.assert_array_equal(flags, [False, True, False])


@pytest.mark.parametrize(
    ("kwargs", "field", "fragment"),
    [
        ({"indices": jnp.zeros((2, 3), jnp.float32)}, "indices", "integer dtype"),
        ({"indices": jnp.zeros((2,), jnp.int32), "updates": jnp.zeros((2,))}, "indices.shape",
         "2 dimensions long"),
        ({"indices": jnp.zeros((2, 5), jnp.int32), "updates": jnp.zeros((2, 5))},
         "indices.shape[1]", "at most x.shape"),
        ({"updates": jnp.zeros((2, 2))}, "updates.shape", r"\(2, 3\)"),
        ({"updates": jnp.zeros((2, 3), jnp.int32)}, "updates.dtype", "float32"),
        ({"reduction": "sum"}, "reduction", "one of 'none', 'add'"),
        ({"axis": 2}, "axis", r"in \[-2, 2\)"),
    ],
)  # fmt: skip
def test_functional_face_refusals(kwargs, field, fragment):
    arguments = {
        "x": jnp.ones((3, 4)),
        "indices": jnp.zeros((2, 3), jnp.int32),
        "updates": jnp.zeros((2, 3)),
        "axis": 0,
        **kwargs,
    }
    with pytest.raises(InvalidArgumentError, match=fragment) as e:
        dml.scatter(**arguments)
    assert e.value.op == "dmljax.scatter"
    assert e.value.field == field


@pytest.mark.parametrize("reduction", ["add", "mul"])
def test_bool_add_and_mul_are_refused(reduction):
    with pytest.raises(InvalidArgumentError, match="logical or") as e:
        dml.scatter(jnp.zeros(3, bool), jnp.array([1]), jnp.array([True]), axis=0,
                    reduction=reduction)  # fmt: skip
    assert e.value.field == "reduction"


def test_deterministic_must_be_a_bool():
    with pytest.raises(dml.errors.ArgumentTypeError, match="deterministic"):
        dml.scatter(jnp.zeros(3), jnp.array([1]), jnp.array([1.0]), axis=0, deterministic=1)  # pyright: ignore[reportArgumentType]


# --- Against the reference ------------------------------------------------------------------------

SCATTER_TYPES = helpers.documented_data_types("DML_OPERATOR_SCATTER")


def targets_of(indices, axis, dim):
    """Where each element of an element-wise index tensor lands (None when dropped)."""
    out = {}
    for c in np.ndindex(*indices.shape):
        v = int(indices[c])
        v = v + dim if v < 0 else v
        out[c] = (*c[:axis], v, *c[axis + 1 :]) if 0 <= v < dim else None
    return out


def assert_one_of_the_duplicates_won(actual, x, indices, updates, axis):
    candidates = {}
    for c, target in targets_of(indices, axis, x.shape[axis]).items():
        if target is not None:
            candidates.setdefault(target, []).append(updates[c])
    for position in np.ndindex(*x.shape):
        allowed = candidates.get(position, [x[position]])
        assert any(np.array_equal(actual[position], v) for v in allowed), position


def assert_reduction_matches(actual, x, indices, updates, axis, reduction):
    if reduction in ("add", "mul") and jnp.issubdtype(x.dtype, jnp.floating):
        # The combining order is unspecified: compare with the exact result, allowing a few
        # roundings of the magnitudes involved (and underflow to the smallest normal).
        wide_x, wide_updates = x.astype(np.float64), updates.astype(np.float64)
        exact = reference.scatter(wide_x, indices, wide_updates, axis=axis, reduction=reduction)
        magnitude = reference.scatter(
            np.abs(wide_x), indices, np.abs(wide_updates), axis=axis, reduction=reduction
        )
        info = jnp.finfo(x.dtype)
        error = np.abs(np.asarray(actual, np.float64) - exact)
        np.testing.assert_array_less(error, 8 * float(info.eps) * magnitude + float(info.tiny))
        return
    expected = reference.scatter(x, indices, updates, axis=axis, reduction=reduction)
    np.testing.assert_array_equal(actual, expected)


def cases(functional):
    return helpers.element_index_cases(
        functional=functional, data_types=SCATTER_TYPES, updates=True
    )


@hypothesis.given(cases(functional=False), st.booleans())
def test_desc_face_equals_the_reference(case, deterministic):
    x, indices, updates, axis = case
    with jax.enable_x64(True):
        op = dml.compile_operator(
            dml.ScatterOperatorDesc(
                input_tensor=dml.TensorDesc.from_array(x),
                indices_tensor=dml.TensorDesc.from_array(indices),
                updates_tensor=dml.TensorDesc.from_array(updates),
                output_tensor=dml.TensorDesc.from_array(x),
                axis=axis,
            ),
            deterministic=deterministic,
        )
        actual = np.asarray(op(x, indices, updates))
    if deterministic:
        np.testing.assert_array_equal(actual, reference.scatter(x, indices, updates, axis=axis))
    else:
        assert_one_of_the_duplicates_won(actual, x, indices, updates, axis)


@hypothesis.given(
    cases(functional=True),
    st.sampled_from(["none", "none-deterministic", "add", "mul", "max", "min"]),
    st.booleans(),
)
def test_functional_face_equals_the_reference(case, mode, negative_axis):
    x, indices, updates, axis = case
    reduction = mode.removesuffix("-deterministic")
    hypothesis.assume(not (x.dtype == np.bool_ and reduction in ("add", "mul")))
    with jax.enable_x64(True):
        actual = dml.scatter(
            x,
            indices,
            updates,
            axis=axis - x.ndim if negative_axis else axis,
            deterministic=mode.endswith("-deterministic"),
            reduction=reduction,
        )
    assert actual.dtype == x.dtype
    actual = np.asarray(actual)
    if mode == "none":
        assert_one_of_the_duplicates_won(actual, x, indices, updates, axis)
    else:
        assert_reduction_matches(actual, x, indices, updates, axis, reduction)


# --- Transformations ------------------------------------------------------------------------------


def unique_indices_along(axis, shape, rng):
    """Element-wise indices of ``shape`` with no duplicate target (a permutation per line)."""
    moved = np.moveaxis(np.zeros(shape, np.int32), axis, -1)
    for line in np.ndindex(*moved.shape[:-1]):
        moved[line] = rng.permutation(moved.shape[-1])
    return np.moveaxis(moved, -1, axis)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("deterministic", [False, True])
def test_gradients_with_unique_indices(axis, deterministic):
    rng = np.random.default_rng(11)
    indices = jnp.asarray(unique_indices_along(axis, (3, 4), rng))
    with jax.enable_x64(True):
        x = jnp.asarray(rng.standard_normal((3, 4)))
        updates = jnp.asarray(rng.standard_normal((3, 4)))
        check_grads(
            lambda x, u: dml.scatter(x, indices, u, axis=axis, deterministic=deterministic),
            (x, updates),
            order=2,
            modes=("fwd", "rev"),
        )


@pytest.mark.parametrize("axis", [0, 1])
def test_deterministic_gradients_agree_with_the_forward_value_on_duplicates(axis):
    rng = np.random.default_rng(12)
    index_shape = (5, 4) if axis == 0 else (3, 6)
    indices = jnp.asarray(rng.integers(-3, 3, index_shape), jnp.int32)  # many duplicates
    with jax.enable_x64(True):
        x = jnp.asarray(rng.standard_normal((3, 4)))
        updates = jnp.asarray(rng.standard_normal(index_shape))

        def f(x, u):
            return dml.scatter(x, indices, u, axis=axis, deterministic=True)

        check_grads(f, (x, updates), order=2, modes=("fwd", "rev"))
        # Only the last update per target reaches the output; it has gradient 1, the rest 0.
        grad_x, grad_updates = jax.grad(lambda x, u: f(x, u).sum(), argnums=(0, 1))(x, updates)
        written = np.zeros((3, 4), bool)
        last = {}
        for c, target in targets_of(np.asarray(indices), axis, x.shape[axis]).items():
            written[target] = True
            last[target] = c
        np.testing.assert_array_equal(grad_x, np.where(written, 0.0, 1.0))  # zero where written
        expected = np.zeros(index_shape)
        for c in last.values():
            expected[c] = 1.0
        np.testing.assert_array_equal(grad_updates, expected)


@pytest.mark.parametrize("axis", [0, 1])
def test_hints_only_on_the_overwrite_path(axis):
    x = jnp.ones((8, 16), jnp.float32)
    i = jnp.zeros((8, 16), jnp.int32)
    u = jnp.ones((8, 16), jnp.float32)

    def hlo(**kwargs):
        return jax.jit(lambda x, i, u: dml.scatter(x, i, u, axis=axis, **kwargs)).lower(x, i, u)

    assert "unique_indices = true" in hlo().as_text()
    # deterministic=True overwrites through a scatter-max and one select pass: no hint.
    deterministic = hlo(deterministic=True).as_text()
    assert "unique_indices = true" not in deterministic
    assert deterministic.count('"stablehlo.scatter"(') == 1
    for reduction in ("add", "mul", "max", "min"):
        text = hlo(reduction=reduction).as_text()
        assert "unique_indices = true" not in text
        assert "indices_are_sorted = true" not in text
    assert ("transpose" in hlo().as_text()) == (axis == 0)  # a non-minor axis is moved last


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16])
def test_16_bit_sums_accumulate_in_float32_and_round_once(dtype):
    # 1 + 1024 * 2**-9 is 3 exactly; rounding to the 16-bit type after each update would
    # leave 1 in bfloat16, where 2**-9 is under half an ulp of 1.
    x = jnp.ones((2,), dtype)
    indices = jnp.zeros((1024,), jnp.int32)
    updates = jnp.full((1024,), 2.0**-9, dtype)
    out = dml.scatter(x, indices, updates, axis=0, reduction="add")
    assert out.dtype == dtype
    assert out.tolist() == [3.0, 1.0]
    # Products too: 1.01 ** 16 rounded once.
    product = dml.scatter(jnp.ones((1,), dtype), jnp.zeros((16,), jnp.int32),
                          jnp.full((16,), 1.0625, dtype), axis=0, reduction="mul")  # fmt: skip
    assert float(product[0]) == float(np.array(1.0625**16, np.float32).astype(dtype))
