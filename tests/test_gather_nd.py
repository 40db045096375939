"""GATHER_ND and GATHER_ND1: their descs and dml.gather_nd."""

import math

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st

import dmljax as dml
from dmljax._src.bench.hlo import kernel_count
from dmljax._src.checking import doc_examples, reference
from dmljax._src.ops import gather_nd as gather_nd_module
from tests import descs, helpers

T = dml.DataType
FL = dml.FeatureLevel
InvalidArgumentError = dml.errors.InvalidArgumentError


def nd_desc(batch_dimension_count=None, **overrides):
    """GATHER_ND's desc, or GATHER_ND1's where a batch_dimension_count is given."""
    if batch_dimension_count is None:
        return descs.gather_nd(**overrides)
    return descs.gather_nd1(batch_dimension_count=batch_dimension_count, **overrides)


# --- The DirectML doc examples ---------------------------------------------------------------


EXAMPLES = [
    e
    for op in ("DML_OPERATOR_GATHER_ND", "DML_OPERATOR_GATHER_ND1")
    for e in doc_examples.entries(op)
]


@pytest.mark.parametrize("entry", EXAMPLES, ids=lambda e: e["id"])
def test_doc_examples_on_both_faces(entry):
    desc = doc_examples.BUILDERS[entry["op"]](entry)
    assert type(desc).__name__ == (
        "GatherNd1OperatorDesc" if entry["op"].endswith("ND1") else "GatherNdOperatorDesc"
    )
    if entry["status"] == doc_examples.SIZES_ONLY_STATUS:
        # The pages' size formula: input {3,4,5,6,7}, 3-tuples in a {1,2} array -> {1,1,2,6,7}.
        op = dml.compile_operator(desc)
        shapes = [
            jax.ShapeDtypeStruct(t.sizes, t.dtype) for t in (desc.input_tensor, desc.indices_tensor)
        ]
        assert jax.eval_shape(op, *shapes).shape == (1, 1, 2, 6, 7) == desc.output_tensor.sizes
        return
    example = doc_examples.build(entry)
    x, indices = example.inputs
    np.testing.assert_array_equal(dml.compile_operator(desc)(x, indices), example.expected)
    layout = gather_nd_module.desc_layout(desc)
    functional = dml.gather_nd(
        x.reshape(layout.input), indices.reshape(layout.indices), batch_dims=layout.batch
    )
    np.testing.assert_array_equal(np.asarray(functional).reshape(example.expected.shape),
                                  example.expected)  # fmt: skip
    reference_out = reference.gather_nd(
        x.reshape(layout.input), indices.reshape(layout.indices), batch_dims=layout.batch
    )
    np.testing.assert_array_equal(reference_out.reshape(example.expected.shape), example.expected)


# --- Every rule -----------------------------------------------------------------------------------


test_rule_violations_name_the_field = descs.rule_table_test(
    nd_desc,
    [
        # Rules the three index-tuple operators share are in test_nd.py.
        ({"output_data_type": T.FLOAT16}, "output_tensor.data_type", "FLOAT32"),
        (
            {"indices_sizes": (4, 1), "batch_dimension_count": 2},
            "batch_dimension_count",
            r"in \[0, 1\]",
        ),
        (
            {"input_sizes": (3, 2), "indices_sizes": (4, 1), "batch_dimension_count": 1},
            "indices_tensor.sizes",
            r"batch sizes \(3,\)",
        ),
        (
            {
                "input_sizes": (4, 2),
                "indices_sizes": (4, 2),
                "output_sizes": (1, 4),
                "batch_dimension_count": 1,
            },
            "indices_tensor.sizes[1]",
            "at most 1",
        ),
    ],
)


def test_without_wrapping_negative_coordinates_clamp_to_zero():
    x = jnp.arange(6.0).reshape(2, 3)
    result = gather_nd_module.gather_nd_lowering(
        x, jnp.array([[-1, -1], [1, 5]]), batch=0, wrap_negative=False
    )
    np.testing.assert_array_equal(result, [0.0, 5.0])


# --- The functional face -------------------------------------------------------------------------


def test_functional_face_shapes():
    x = jnp.arange(24).reshape(2, 3, 4)
    assert dml.gather_nd(x, jnp.zeros((5, 1), jnp.int32)).shape == (5, 3, 4)
    assert dml.gather_nd(x, jnp.zeros((5, 6, 3), jnp.int8)).shape == (5, 6)
    assert dml.gather_nd(x, jnp.zeros((2, 5, 1), jnp.int32), batch_dims=1).shape == (2, 5, 4)
    assert dml.gather_nd(x, jnp.zeros((2, 3, 1), jnp.int32), batch_dims=2).shape == (2, 3)
    assert dml.gather_nd(x, jnp.zeros((2, 0), jnp.int32)).shape == (2, 2, 3, 4)
    assert dml.gather_nd(x, jnp.zeros((0, 2), jnp.int32)).shape == (0, 4)
    assert dml.gather_nd(x, jnp.zeros((2,), jnp.int32)).shape == (4,)  # one tuple
    assert dml.gather_nd(jnp.zeros((0, 3)), jnp.zeros((0, 1), jnp.int32)).shape == (0, 3)
    assert dml.gather_nd(jnp.zeros((2, 0)), jnp.zeros((3, 1), jnp.int32)).shape == (3, 0)
    np.testing.assert_array_equal(
        dml.gather_nd(jnp.float32(7), jnp.zeros((2, 0), jnp.int32)), [7, 7]
    )
    np.testing.assert_array_equal(
        dml.gather_nd(jnp.array([True, False]), jnp.array([[1], [1], [0]])), [False, False, True]
    )


@pytest.mark.parametrize(
    ("x_shape", "indices", "batch_dims", "field", "fragment"),
    [
        ((3, 4), jnp.array([[0.0]]), 0, "indices", "integer dtype"),
        ((3, 4), jnp.array(0), 0, "indices.shape", "at least 1 dimensions"),
        ((3, 4), jnp.zeros((2, 3), jnp.int32), 0, "indices.shape[-1]", "at most 2"),
        ((3, 4), jnp.zeros((3, 2), jnp.int32), 1, "indices.shape[-1]", "at most 1"),
        ((3, 4), jnp.zeros((2, 1), jnp.int32), 1, "indices.shape[:1]", r"\(3,\)"),
        ((3, 4), jnp.zeros((3, 1), jnp.int32), -1, "batch_dims", "at least 0"),
        ((3, 4), jnp.zeros((3, 1), jnp.int32), 1.0, "batch_dims", "an integer"),
        ((0, 4), jnp.zeros((1, 1), jnp.int32), 0, "x.shape[0:1]", "nothing to gather"),
    ],
)
def test_functional_face_refusals(x_shape, indices, batch_dims, field, fragment):
    with pytest.raises(InvalidArgumentError, match=fragment) as e:
        dml.gather_nd(jnp.ones(x_shape), indices, batch_dims=batch_dims)
    assert e.value.op == "dmljax.gather_nd"
    assert e.value.field == field


@pytest.mark.filterwarnings("ignore::dmljax.errors.NarrowedIndicesWarning")
def test_numpy_int64_indices_keep_their_meaning_without_x64():
    x = jnp.arange(10).reshape(5, 2)
    with jax.enable_x64(False):
        indices = np.array([[2**40, 0], [-(2**40), 1], [-1, 2**32 + 1]], np.int64)
        np.testing.assert_array_equal(dml.gather_nd(x, indices), [8, 1, 9])


# --- Against the reference -----------------------------------------------------------------------

DESC_DATA_TYPES = helpers.documented_data_types("DML_OPERATOR_GATHER_ND")


@st.composite
def desc_cases(draw):
    case = draw(helpers.index_tuple_cases(batched=True, unique=False, data_types=DESC_DATA_TYPES))
    indices = helpers.random_indices(
        case.rng, case.indices_sizes, case.index_type.dtype, min(case.dims)
    )
    batch = case.batch if case.batch or draw(st.booleans()) else None  # GATHER_ND1 or not
    desc = nd_desc(**case.desc_keywords("output"), batch_dimension_count=batch)
    return desc, case.x, indices


@hypothesis.given(desc_cases())
def test_desc_face_equals_the_reference(case):
    desc, x, indices = case
    layout = gather_nd_module.desc_layout(desc)
    expected = reference.gather_nd(
        x.reshape(layout.input), indices.reshape(layout.indices), batch_dims=layout.batch
    ).reshape(desc.output_tensor.sizes)
    np.testing.assert_array_equal(descs.run_desc(desc, x, indices), expected)


@st.composite
def functional_cases(draw):
    rank = draw(st.integers(0, 8))
    batch = draw(st.integers(0, min(rank, 2)))
    t = draw(st.integers(0, rank - batch))
    shape = helpers.small_sizes(draw, rank, smallest=0)
    positions = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=2)))
    index_shape = (*shape[:batch], *positions, t)
    addressed = shape[batch : batch + t]
    hypothesis.assume(0 not in addressed or math.prod(index_shape[:-1]) == 0)
    hypothesis.assume(math.prod(index_shape[:-1]) * math.prod(shape[batch + t :]) <= 1024)
    rng = draw(helpers.seeds())
    x = helpers.random_array(rng, shape, draw(st.sampled_from(helpers.FUNCTIONAL_DTYPES)))
    index_dtype = draw(st.sampled_from(helpers.INDEX_DTYPES))
    dim = min(addressed, default=1)
    return x, helpers.random_indices(rng, index_shape, index_dtype, max(dim, 1)), batch


@hypothesis.given(functional_cases())
def test_functional_face_equals_the_reference(case):
    x, indices, batch = case
    expected = reference.gather_nd(x, indices, batch_dims=batch)
    with jax.enable_x64(True):
        actual = dml.gather_nd(x, indices, batch_dims=batch)
    assert actual.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(actual), expected)


# --- Transformations ------------------------------------------------------------------------------


def test_gradient_counts_repeated_rows():
    x = jnp.zeros((4, 2))
    grad = jax.grad(lambda x: dml.gather_nd(x, jnp.array([[1], [1], [-1], [9]])).sum())(x)
    np.testing.assert_array_equal(grad[:, 0], [0, 2, 0, 2])  # -1 and 9 both land on row 3


@pytest.mark.parametrize("batch_dims", [0, 1])
def test_empty_index_tuples_read_every_block_and_count_each_read_in_the_gradient(batch_dims):
    # Each empty tuple reads all of x[b]; XLA:CPU's scatter-add over empty index vectors
    # (the transpose of lax.gather) once kept one read of four.
    x = jnp.arange(6.0).reshape(2, 3)
    indices = jnp.zeros((2, 4, 0), jnp.int32)
    y = dml.gather_nd(x, indices, batch_dims=batch_dims)
    expected = np.broadcast_to(x[:, None] if batch_dims else x, y.shape)
    np.testing.assert_array_equal(y, expected)
    grad = jax.grad(lambda x: dml.gather_nd(x, indices, batch_dims=batch_dims).sum())(x)
    np.testing.assert_array_equal(grad, np.full(x.shape, 4.0 if batch_dims else 8.0))


def test_vmap_of_a_batched_gather_is_one_more_batch_dimension():
    rng = np.random.default_rng(7)
    xs = jnp.asarray(rng.standard_normal((4, 5, 3, 2)), jnp.float32)
    per_row = jnp.asarray(rng.integers(-3, 3, (4, 5, 6, 1)), jnp.int32)
    batched = jax.vmap(lambda x, i: dml.gather_nd(x, i, batch_dims=1))(xs, per_row)
    np.testing.assert_array_equal(batched, dml.gather_nd(xs, per_row, batch_dims=2))


@pytest.mark.parametrize("t", [1, 2])
@pytest.mark.parametrize("index_dtype", [jnp.int32, jnp.uint32, jnp.int8])
def test_no_more_kernels_than_jnp_indexing(t, index_dtype):
    x = jnp.ones((64, 32), jnp.float32)
    i = jnp.zeros((16, t), index_dtype)
    ours = jax.jit(dml.gather_nd).lower(x, i).compile()
    theirs = jax.jit(lambda x, i: x[tuple(i.T)]).lower(x, i).compile()
    assert kernel_count(ours) <= kernel_count(theirs)
    assert "gather" in (ours.as_text() or "")
