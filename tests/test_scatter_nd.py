"""SCATTER_ND: DML_SCATTER_ND_OPERATOR_DESC and dml.scatter_nd."""

import math
from typing import Any

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st
from jax.test_util import check_grads

import dmljax as dml
from dmljax._src.checking import doc_examples, reference
from dmljax._src.checking.operators.scatter_nd import unique_tuples
from tests import descs, helpers

T = dml.DataType
FL = dml.FeatureLevel
InvalidArgumentError = dml.errors.InvalidArgumentError
REDUCTIONS = ("none", "add", "mul", "max", "min")


nd_desc = descs.scatter_nd


# --- The DirectML doc examples ---------------------------------------------------------------


def test_the_corrected_doc_example_on_both_faces():
    entry = doc_examples.entry("scatter_nd-ex1-corrected")
    example = doc_examples.build(entry)
    x, indices, updates = example.inputs
    np.testing.assert_array_equal(
        dml.compile_operator(example.desc)(x, indices, updates), example.expected
    )
    functional = dml.scatter_nd(x[0], indices, updates[0])  # the meaningful dimensions
    np.testing.assert_array_equal(functional, example.expected[0])
    expected = [1, 11, 3, 10, 9, 6, 7, 12]
    np.testing.assert_array_equal(reference.scatter_nd(x[0], indices, updates[0]), expected)


def test_the_doc_example_as_written_is_refused():
    entry = doc_examples.entry("scatter_nd-ex1-doc-as-written")
    desc = doc_examples.BUILDERS[entry["op"]](entry)
    helpers.refused(
        lambda: dml.compile_operator(desc),
        field="indices_tensor.data_type",
        match="never supports FLOAT32",
    )
    # With integer indices it still breaks the equal-DimensionCount rule.
    fixed = nd_desc(input_sizes=(8,), indices_sizes=(4, 1), updates_sizes=(4,),
                    input_dimension_count=1, indices_dimension_count=2)  # fmt: skip
    with pytest.raises(InvalidArgumentError, match="DimensionCount"):
        dml.compile_operator(fixed)


def test_the_size_formula_example_and_its_prose_version():
    entry = doc_examples.entry("scatter_nd-sizes-formula")
    desc = doc_examples.BUILDERS[entry["op"]](entry)
    assert desc.updates_tensor.sizes == (1, 1, 2, 6, 7)
    dml.compile_operator(desc)  # its prose version is refused: test_nd.py


def test_the_dimension_counts_are_inclusive():
    # The page prints [1, DimensionCount); the corrected example needs the full count.
    desc = nd_desc(indices_dimension_count=2, input_dimension_count=2)
    dml.compile_operator(desc)


# --- Every rule -----------------------------------------------------------------------------------


test_rule_violations_name_the_field = descs.rule_table_test(
    nd_desc,
    [
        # Rules the three index-tuple operators share are in test_nd.py.
        ({"output_sizes": (3, 3)}, "output_tensor.sizes", r"\(3, 2\)"),
        ({"updates_data_type": T.FLOAT16}, "updates_tensor.data_type", "FLOAT32"),
        ({"output_data_type": T.FLOAT16}, "output_tensor.data_type", "FLOAT32"),
    ],
)


_FOUR_D: dict[str, Any] = dict(
    input_sizes=(1, 1, 3, 2), indices_sizes=(1, 1, 2, 1), updates_sizes=(1, 1, 2, 2)
)


def test_deterministic_desc_lets_the_last_duplicate_win():
    desc = nd_desc(input_sizes=(4,), indices_sizes=(3, 1), updates_sizes=(1, 3),
                   input_dimension_count=1, indices_dimension_count=2)  # fmt: skip
    with pytest.raises(InvalidArgumentError, match="DimensionCount"):
        dml.compile_operator(desc)
    desc = nd_desc(input_sizes=(1, 4), indices_sizes=(3, 1), updates_sizes=(1, 3),
                   input_dimension_count=1, indices_dimension_count=2)  # fmt: skip
    op = dml.compile_operator(desc, deterministic=True)
    out = op(np.zeros((1, 4), np.float32), np.array([[1], [3], [1]], np.uint32),
             np.array([[5.0, 6.0, 7.0]], np.float32))  # fmt: skip
    np.testing.assert_array_equal(out, [[0, 7, 0, 6]])


# --- The functional face -------------------------------------------------------------------------


def test_functional_face_shapes_and_empty_arrays():
    x = jnp.zeros((2, 3, 4))
    assert dml.scatter_nd(x, jnp.zeros((5, 1), jnp.int32), jnp.ones((5, 3, 4))).shape == x.shape
    out = dml.scatter_nd(x, jnp.array([[1, 2, 3]]), jnp.array([9.0]))
    assert out[1, 2, 3] == 9
    assert out.sum() == 9
    np.testing.assert_array_equal(
        dml.scatter_nd(x, jnp.zeros((0, 2), jnp.int32), jnp.zeros((0, 4))), x
    )
    np.testing.assert_array_equal(
        dml.scatter_nd(x, jnp.zeros((1, 0), jnp.int32), jnp.ones((1, 2, 3, 4))), jnp.ones(x.shape)
    )
    empty = jnp.zeros((0, 3))
    np.testing.assert_array_equal(
        dml.scatter_nd(empty, jnp.array([[0], [1]]), jnp.ones((2, 3))), empty
    )
    np.testing.assert_array_equal(
        dml.scatter_nd(jnp.zeros(2, bool), jnp.array([[1]]), jnp.array([True])), [False, True]
    )
    np.testing.assert_array_equal(
        dml.scatter_nd(jnp.array([0, 1]), jnp.array([[1], [1]]), jnp.array([1, 1]),
                       reduction="max"),
        [0, 1],
    )  # fmt: skip


@pytest.mark.parametrize(
    ("kwargs", "field", "fragment"),
    [
        ({"indices": jnp.array([[0.0]])}, "indices", "integer dtype"),
        ({"indices": jnp.array(0)}, "indices.shape", "at least 1 dimensions"),
        ({"indices": jnp.zeros((2, 3), jnp.int32)}, "indices.shape[-1]", "at most 2"),
        ({"updates": jnp.zeros((2, 4))}, "updates.shape", r"\(2, 3\)"),
        ({"updates": jnp.zeros((2, 3), jnp.int32)}, "updates.dtype", "float32"),
        ({"reduction": "sum"}, "reduction", "one of 'none'"),
    ],
)
def test_functional_face_refusals(kwargs, field, fragment):
    arguments: dict[str, Any] = {
        "x": jnp.zeros((4, 3)),
        "indices": jnp.zeros((2, 1), jnp.int32),
        "updates": jnp.zeros((2, 3)),
        **kwargs,
    }
    with pytest.raises(InvalidArgumentError, match=fragment) as e:
        dml.scatter_nd(
            arguments.pop("x"), arguments.pop("indices"), arguments.pop("updates"), **arguments
        )
    assert e.value.op == "dmljax.scatter_nd"
    assert e.value.field == field


@pytest.mark.parametrize("reduction", ["add", "mul"])
def test_bool_add_and_mul_are_refused(reduction):
    helpers.refused(
        lambda: dml.scatter_nd(
            jnp.zeros(2, bool), jnp.array([[1]]), jnp.array([True]), reduction=reduction
        ),
        field="reduction",
        match="logical",
    )


def test_deterministic_must_be_a_bool():
    with pytest.raises(dml.errors.ArgumentTypeError) as e:
        dml.scatter_nd(jnp.zeros(2), jnp.array([[1]]), jnp.ones(1), deterministic=1)  # pyright: ignore[reportArgumentType]
    assert e.value.field == "deterministic"


def test_the_element_scatter_error_for_row_indices_suggests_scatter_nd():
    x = jnp.zeros((4, 3))
    helpers.refused(
        lambda: dml.scatter(x, jnp.array([0, 2, 0]), jnp.ones((3, 3)), axis=0, reduction="add"),
        field="indices.shape",
        match="scatter_nd",
    )
    rows = dml.scatter_nd(x, jnp.array([[0], [2], [0]]), jnp.ones((3, 3)), reduction="add")
    np.testing.assert_array_equal(rows[:, 0], [2, 0, 1, 0])


# --- Against the reference -----------------------------------------------------------------------

DESC_DATA_TYPES = helpers.documented_data_types("DML_OPERATOR_SCATTER_ND")


@st.composite
def desc_cases(draw):
    case = draw(helpers.index_tuple_cases(batched=False, unique=True, data_types=DESC_DATA_TYPES))
    index_dtype = case.index_type.dtype
    deterministic = draw(st.booleans())
    if deterministic:  # wild tuples, duplicates included
        indices = helpers.random_indices(case.rng, case.indices_sizes, index_dtype, min(case.dims))
    else:
        indices = unique_tuples(case.rng, case.positions, case.dims, index_dtype)
        indices = indices.reshape(case.indices_sizes)
    updates = helpers.random_array(case.rng, case.block_sizes, case.data_type.dtype)
    desc = nd_desc(**case.desc_keywords("updates"))
    return desc, case.x, indices, updates, deterministic


@hypothesis.given(desc_cases())
def test_desc_face_equals_the_reference(case):
    desc, x, indices, updates, deterministic = case
    n = desc.input_tensor.dimension_count
    meaningful = desc.input_tensor.sizes[n - desc.input_dimension_count :]
    index_part = desc.indices_tensor.sizes[n - desc.indices_dimension_count :]
    t = index_part[-1]
    expected = reference.scatter_nd(
        x.reshape(meaningful),
        indices.reshape(index_part),
        updates.reshape((*index_part[:-1], *meaningful[t:])),
    ).reshape(x.shape)
    actual = descs.run_desc(desc, x, indices, updates, deterministic=deterministic)
    np.testing.assert_array_equal(actual, expected)


@st.composite
def functional_cases(draw):
    rank = draw(st.integers(0, 8))
    t = draw(st.integers(0, rank))
    max_size = 3 if rank <= 4 else 2
    shape = tuple(draw(st.lists(st.integers(0, max_size), min_size=rank, max_size=rank)))
    dims = shape[:t]
    mode = draw(st.sampled_from(["unique", "deterministic", *REDUCTIONS[1:]]))
    positions = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=2)))
    if mode == "unique":
        hypothesis.assume(math.prod(positions) <= (2 * math.prod(dims) if dims else 1))
        hypothesis.assume(0 not in dims or math.prod(positions) == 0)
    hypothesis.assume(math.prod(positions) * math.prod(shape[t:]) <= 1024)
    dtype = draw(st.sampled_from(helpers.FUNCTIONAL_DTYPES))
    if dtype == np.bool_:
        hypothesis.assume(mode not in ("add", "mul"))
    rng = draw(helpers.seeds())
    index_dtype = draw(st.sampled_from(helpers.INDEX_DTYPES))
    if mode == "unique":
        indices = unique_tuples(rng, positions, dims, index_dtype)
    else:
        indices = helpers.random_indices(
            rng, (*positions, t), index_dtype, max(min(dims, default=1), 1)
        )
    x = helpers.random_array(rng, shape, dtype)
    updates = helpers.random_array(rng, (*positions, *shape[t:]), dtype)
    return x, indices, updates, mode


@hypothesis.given(functional_cases())
def test_functional_face_equals_the_reference(case):
    x, indices, updates, mode = case
    reduction = mode if mode in REDUCTIONS else "none"
    expected = reference.scatter_nd(x, indices, updates, reduction=reduction)
    with jax.enable_x64(True):
        actual = dml.scatter_nd(
            x, indices, updates, reduction=reduction, deterministic=mode == "deterministic"
        )
    assert actual.dtype == x.dtype
    if reduction in ("add", "mul") and jnp.issubdtype(x.dtype, jnp.floating):
        # Duplicates combine in an order the backend picks: equal up to rounding.
        np.testing.assert_allclose(
            np.asarray(actual, np.float64), expected.astype(np.float64), rtol=2e-2, atol=1e-2
        )
    else:
        np.testing.assert_array_equal(np.asarray(actual), expected)


# --- Transformations ------------------------------------------------------------------------------


@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("t", [1, 2])
def test_gradients_withunique_tuples(deterministic, t):
    rng = np.random.default_rng(11)
    indices = jnp.asarray(unique_tuples(rng, (5,), (3, 4)[:t], np.int32))
    with jax.enable_x64(True):
        x = jnp.asarray(rng.standard_normal((3, 4, 2)))
        updates = jnp.asarray(rng.standard_normal((5, *(4, 2)[t - 1 :])))
        check_grads(
            lambda x, u: dml.scatter_nd(x, indices, u, deterministic=deterministic),
            (x, updates),
            order=2,
            modes=("fwd", "rev"),
        )


def test_deterministic_gradients_agree_with_the_forward_value_on_duplicates():
    rng = np.random.default_rng(12)
    indices = jnp.asarray(rng.integers(-3, 3, (7, 1)), jnp.int32)  # many duplicates
    with jax.enable_x64(True):
        x = jnp.asarray(rng.standard_normal((3, 2)))
        updates = jnp.asarray(rng.standard_normal((7, 2)))

        def f(x, u):
            return dml.scatter_nd(x, indices, u, deterministic=True)

        check_grads(f, (x, updates), order=2, modes=("fwd", "rev"))
        grad_x, grad_updates = jax.grad(lambda x, u: f(x, u).sum(), argnums=(0, 1))(x, updates)
        rows = np.asarray(indices[:, 0]) % 3
        last = {int(row): p for p, row in enumerate(rows)}
        for p in range(7):
            np.testing.assert_array_equal(grad_updates[p], 1.0 if last[int(rows[p])] == p else 0.0)
        for row in range(3):
            np.testing.assert_array_equal(grad_x[row], 0.0 if row in last else 1.0)


@pytest.mark.parametrize("reduction", ["add", "max", "min"])
def test_reduction_gradients(reduction):
    rng = np.random.default_rng(13)
    indices = jnp.array([[0], [2], [0], [1]])
    with jax.enable_x64(True):
        x = jnp.asarray(rng.standard_normal((3, 2)))
        updates = jnp.asarray(rng.standard_normal((4, 2)))
        check_grads(
            lambda x, u: dml.scatter_nd(x, indices, u, reduction=reduction),
            (x, updates),
            order=2 if reduction == "add" else 1,
            modes=("fwd", "rev"),
        )


def test_vmap_of_a_scatter_add_equals_a_loop():
    rng = np.random.default_rng(14)
    xs = jnp.asarray(rng.standard_normal((4, 5, 3)), jnp.float32)
    idx = jnp.asarray(np.stack([unique_tuples(rng, (3,), (5,), np.int32) for _ in range(4)]))
    us = jnp.asarray(rng.standard_normal((4, 3, 3)), jnp.float32)
    add = jax.vmap(lambda x, i, u: dml.scatter_nd(x, i, u, reduction="add"))
    np.testing.assert_allclose(
        add(xs, idx, us),
        np.stack([dml.scatter_nd(xs[b], idx[b], us[b], reduction="add") for b in range(4)]),
    )


def test_16_bit_sums_accumulate_in_float32_and_round_once():
    rows = jnp.full((1024, 2), 2.0**-9, jnp.bfloat16)
    out = dml.scatter_nd(jnp.ones((3, 2), jnp.bfloat16), jnp.zeros((1024, 1), jnp.int32), rows,
                         reduction="add")  # fmt: skip
    assert out.tolist() == [[3.0, 3.0], [1.0, 1.0], [1.0, 1.0]]
