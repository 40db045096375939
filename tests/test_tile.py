"""TILE: DML_TILE_OPERATOR_DESC and dml.tile."""

import math
from typing import Any

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

TILE_TYPES = helpers.documented_data_types("DML_OPERATOR_TILE")


def tile_desc(data_type=T.FLOAT32, sizes=(1, 1, 2, 3), repeats=(1, 1, 3, 3), output_sizes=None,
              output_data_type=None):  # fmt: skip
    if output_sizes is None:
        output_sizes = tuple(s * r for s, r in zip(sizes, repeats, strict=False))
    return dml.TileOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=data_type, sizes=sizes),
        output_tensor=dml.TensorDesc(data_type=output_data_type or data_type, sizes=output_sizes),
        repeats=repeats,
    )


# --- The DirectML doc example -------------------------------------------------------------------


def test_doc_example_through_compile_operator_and_tile():
    example = doc_examples.entry("tile-ex1")
    x = doc_examples.tensor_of(example["inputs"]["InputTensor"])
    expected = doc_examples.tensor_of(example["expected"])
    repeats = tuple(example["attrs"]["Repeats"])
    assert example["attrs"]["RepeatsCount"] == len(repeats)
    desc = dml.TileOperatorDesc(
        input_tensor=doc_examples.tensor_desc_of(example["inputs"]["InputTensor"]),
        output_tensor=doc_examples.tensor_desc_of(example["expected"]),
        repeats=repeats,
    )
    for level in (FL.FL_1_0, FL.LATEST):
        np.testing.assert_array_equal(dml.compile_operator(desc, feature_level=level)(x), expected)
    np.testing.assert_array_equal(dml.tile(x, repeats), expected)
    np.testing.assert_array_equal(reference.tile(x, repeats), expected)


# --- Every rule of the page -----------------------------------------------------------------------


test_rule_violations_name_the_field = descs.rule_table_test(
    tile_desc,
    [
        ({"repeats": (1, 3, 3)}, "repeats", "RepeatsCount must equal"),
        ({"repeats": (1, 1, 3, 3, 1), "output_sizes": (1, 1, 6, 9)}, "repeats", "4 long"),
        ({"repeats": (1, 1, 0, 3), "output_sizes": (1, 1, 1, 9)}, "repeats[2]", "greater than 0"),
        ({"repeats": (1, -1, 3, 3), "output_sizes": (1, 1, 6, 9)}, "repeats[1]", "greater than 0"),
        ({"output_sizes": (1, 1, 6, 8)}, "output_tensor.sizes", r"\(1, 1, 6, 9\)"),
        ({"output_sizes": (1, 6, 9)}, "output_tensor.sizes", "input_tensor.sizes times repeats"),
        ({"output_data_type": T.FLOAT16}, "output_tensor.data_type", "FLOAT32"),
    ],
)


def test_desc_fields_must_have_the_right_types():
    good = tile_desc()
    with pytest.raises(dml.errors.ArgumentTypeError, match="input_tensor"):
        dml.TileOperatorDesc(
            input_tensor=(1, 1, 2, 3),  # pyright: ignore[reportArgumentType]
            output_tensor=good.output_tensor,
            repeats=(1, 1, 3, 3),
        )
    with pytest.raises(dml.errors.ArgumentTypeError, match="repeats"):
        dml.TileOperatorDesc(
            input_tensor=good.input_tensor,
            output_tensor=good.output_tensor,
            repeats=3,  # pyright: ignore[reportArgumentType]
        )
    with pytest.raises(InvalidArgumentError, match=r"repeats\[3\] must be an integer"):
        dml.TileOperatorDesc(
            input_tensor=good.input_tensor,
            output_tensor=good.output_tensor,
            repeats=(1, 1, 3, 3.0),  # pyright: ignore[reportArgumentType]
        )


def test_float64_is_never_supported():
    with jax.enable_x64(True), pytest.raises(InvalidArgumentError, match="never supports FLOAT64"):
        dml.compile_operator(tile_desc(T.FLOAT64))


# --- The functional face -----------------------------------------------------------------------


def test_any_rank_dtype_and_zero_repeats():
    assert dml.tile(jnp.float32(3.0), ()).shape == ()
    assert float(dml.tile(jnp.float32(3.0), ())) == 3.0
    assert dml.tile(jnp.ones((2, 3)), (0, 2)).shape == (0, 6)
    assert dml.tile(jnp.ones((0, 3)), (2, 2)).shape == (0, 6)
    np.testing.assert_array_equal(
        dml.tile(jnp.array([True, False]), (2,)), [True, False, True, False]
    )
    y = dml.tile(jnp.array([1.5, -2.0], jnp.bfloat16), (2,))
    assert y.dtype == jnp.bfloat16
    np.testing.assert_array_equal(y.astype(jnp.float32), [1.5, -2.0, 1.5, -2.0])
    assert dml.tile(2.5, ()).dtype == jnp.float32
    np.testing.assert_array_equal(dml.tile(np.arange(3), np.array([2])), [0, 1, 2, 0, 1, 2])


@pytest.mark.parametrize(
    ("repeats", "error", "field", "fragment"),
    [
        ((2,), InvalidArgumentError, "repeats", "2 long"),
        ((2, 2, 2), InvalidArgumentError, "repeats", "2 long"),
        ((2, -1), InvalidArgumentError, "repeats[1]", "non-negative"),
        ((2, 1.5), InvalidArgumentError, "repeats[1]", "an integer"),
        ((2, 2.0), InvalidArgumentError, "repeats[1]", "an integer"),
        ((2, True), InvalidArgumentError, "repeats[1]", "not a bool"),
        (np.array([[2, 2]]), InvalidArgumentError, "repeats", "1-D"),
        (-2, InvalidArgumentError, "repeats[1]", "non-negative"),
        (2.0, InvalidArgumentError, "repeats", "an integer"),
        (None, dml.errors.ArgumentTypeError, "repeats", "an integer or a tuple of integers"),
        ("22", dml.errors.ArgumentTypeError, "repeats", "a tuple of integers"),
    ],
)
def test_functional_face_refusals(repeats, error, field, fragment):
    with pytest.raises(error, match=fragment) as e:
        dml.tile(jnp.ones((2, 3)), repeats)
    assert e.value.op == "dmljax.tile"
    assert e.value.field == field


@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 1, 3)])
@pytest.mark.parametrize("repeats", [0, 1, 3, np.int64(2)])
def test_one_int_repeats_the_last_dimension_as_jnp_tile_does(shape, repeats):
    x = jnp.arange(math.prod(shape)).reshape(shape)
    np.testing.assert_array_equal(dml.tile(x, repeats), jnp.tile(x, int(repeats)))


def test_one_int_cannot_tile_a_0_d_array():
    # jnp.tile would return a vector: TILE keeps the rank.
    helpers.refused(
        lambda: dml.tile(jnp.float32(1), 2), field="repeats", match="no dimension to repeat"
    )


def test_traced_repeats_raise_a_clear_error_instead_of_leaking():
    @jax.jit
    def f(x, repeats):
        return dml.tile(x, repeats)

    with pytest.raises(InvalidArgumentError, match="traced value") as e:
        f(jnp.ones((2, 3)), jnp.array([2, 2]))
    assert e.value.field == "repeats"
    assert "static" in str(e.value)

    @jax.jit
    def g(x, r):
        return dml.tile(x, (r, 1))

    helpers.refused(lambda: g(jnp.ones((2, 3)), 2), field="repeats[0]", match="traced value")


@pytest.mark.parametrize("x", ["abc", [1, 2], None])
def test_non_array_x_is_a_type_error(x):
    with pytest.raises(dml.errors.ArgumentTypeError, match="x must be an array or a scalar"):
        dml.tile(x, (2,))  # pyright: ignore[reportArgumentType]


# --- Against the reference -----------------------------------------------------------------------


@st.composite
def tile_cases(draw):
    rank = draw(st.integers(0, 8))
    max_size = 3 if rank <= 4 else 2
    shape = tuple(draw(st.lists(st.integers(1, max_size), min_size=rank, max_size=rank)))
    repeats = tuple(draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank)))
    hypothesis.assume(math.prod(s * r for s, r in zip(shape, repeats, strict=True)) <= 4096)
    dtype = draw(st.sampled_from(helpers.FUNCTIONAL_DTYPES))
    x = helpers.random_array(draw(helpers.seeds()), shape, dtype)
    return x, repeats


@hypothesis.given(tile_cases())
def test_tile_equals_the_reference(case):
    x, repeats = case
    expected = reference.tile(x, repeats)
    with jax.enable_x64(True):
        actual = dml.tile(x, repeats)
        assert actual.dtype == x.dtype
        np.testing.assert_array_equal(np.asarray(actual), expected)
        representable = (
            x.ndim >= 1 and min(repeats) >= 1 and x.dtype in {t.dtype for t in helpers.DATA_TYPES}
            and dml.DataType.from_dtype(x.dtype) in TILE_TYPES
        )  # fmt: skip
        if representable:
            input_desc = dml.TensorDesc.from_array(x)
            desc = dml.TileOperatorDesc(
                input_tensor=input_desc,
                output_tensor=dml.TensorDesc(data_type=input_desc.data_type, sizes=expected.shape),
                repeats=repeats,
            )
            np.testing.assert_array_equal(np.asarray(dml.compile_operator(desc)(x)), expected)


# --- Transformations ------------------------------------------------------------------------------


# check_grads, vmap and one program per signature run on every operator in
# test_conformance.py; here, what is TILE's own.


@pytest.mark.parametrize("repeats", [(2, 3), (1, 4), (3, 1), (1, 1), (0, 2)])
def test_the_gradient_sums_the_copies(repeats):
    # Each input element is used prod(repeats) times, on both faces.
    x = jnp.asarray(np.random.default_rng(1).standard_normal((2, 3)), jnp.float32)
    faces: list[Any] = [lambda x: dml.tile(x, repeats)]
    if min(repeats) >= 1:  # a desc's repeats are at least 1
        faces.append(dml.compile_operator(tile_desc(T.FLOAT32, (2, 3), repeats)))
    for face in faces:
        grad = jax.grad(lambda x, face=face: face(x).sum())(x)
        np.testing.assert_array_equal(grad, np.full((2, 3), math.prod(repeats), np.float32))


def test_repeats_spelled_as_a_list_or_numpy_ints_run_one_program():
    x = jnp.ones((3, 5), jnp.float32)
    jitted = helpers.face_program(dml.tile)
    dml.tile(x, (2, 7))
    size = helpers.jit_cache_size(jitted)
    dml.tile(x * 2, [2, np.int64(7)])
    assert helpers.jit_cache_size(jitted) == size


@pytest.mark.parametrize(
    "repeats",
    [(2, 3), (4, 1), (1, 5), (1, 1), (9, 2), (2, 12), (0, 3)],
    ids=["concatenated", "major", "minor-only", "identity", "large-major", "large-minor", "zero"],
)
def test_every_lowering_form_equals_the_reference(repeats):
    x = helpers.random_array(np.random.default_rng(4), (3, 4), np.int32)
    np.testing.assert_array_equal(dml.tile(x, repeats), reference.tile(x, repeats))
