"""JOIN and SPLIT: their descs, dml.join and dml.split."""

import math

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
FL = dml.FeatureLevel
InvalidArgumentError = dml.errors.InvalidArgumentError


def parts_sizes(sizes, axis, along):
    return [tuple(n if d != axis else a for d, n in enumerate(sizes)) for a in along]


def join_desc(sizes, axis, along, data_type=T.FLOAT32):
    whole = tuple(n if d != axis else sum(along) for d, n in enumerate(sizes))
    return dml.JoinOperatorDesc(
        input_tensors=tuple(
            dml.TensorDesc(data_type=data_type, sizes=s) for s in parts_sizes(sizes, axis, along)
        ),
        output_tensor=dml.TensorDesc(data_type=data_type, sizes=whole),
        axis=axis,
    )


def split_desc(sizes, axis, along, data_type=T.FLOAT32):
    whole = tuple(n if d != axis else sum(along) for d, n in enumerate(sizes))
    return dml.SplitOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=data_type, sizes=whole),
        output_tensors=tuple(
            dml.TensorDesc(data_type=data_type, sizes=s) for s in parts_sizes(sizes, axis, along)
        ),
        axis=axis,
    )


# --- The DirectML doc examples ---------------------------------------------------------------

EXAMPLES = [
    e for op in ("DML_OPERATOR_JOIN", "DML_OPERATOR_SPLIT") for e in doc_examples.entries(op)
]


def test_the_pages_have_their_examples():
    assert len(EXAMPLES) == 9  # JOIN: 1 + 3 axes; SPLIT: 3 + 2 outputs


@pytest.mark.parametrize("entry", EXAMPLES, ids=lambda e: e["id"])
def test_doc_examples_hold_from_fl_1_0(entry):
    # Both faces give every example in test_conformance.py.
    example = doc_examples.build(entry)
    # The examples are 4-D float32: they hold from FL 1_0.
    op = dml.compile_operator(example.desc, feature_level=FL.FL_1_0)
    np.testing.assert_array_equal(example.shown(op(*example.inputs)), example.expected)


def test_split_returns_every_output_of_the_page_at_once():
    entries = [e for e in EXAMPLES if e["id"].startswith("split-ex1")]
    example = doc_examples.build(entries[0])
    outputs = dml.compile_operator(example.desc)(*example.inputs)
    assert isinstance(outputs, tuple)
    for e, output in zip(entries, outputs, strict=True):
        np.testing.assert_array_equal(output, doc_examples.tensor_of(e["expected"]))
    assert len(dml.compile_operator(example.desc).output_descs) == 3


# --- Feature levels ------------------------------------------------------------------------------


# --- Property tests against the reference ---------------------------------------------------------

DESC_DATA_TYPES = helpers.documented_data_types("DML_OPERATOR_JOIN")


@st.composite
def desc_cases(draw):
    rank = draw(st.integers(1, 8))
    sizes = helpers.small_sizes(draw, rank, smallest=1)
    axis = draw(st.integers(0, rank - 1))
    along = draw(st.lists(st.integers(1, 3), min_size=1, max_size=8))
    hypothesis.assume(math.prod(sizes) // sizes[axis] * sum(along) <= 4096)
    data_type = draw(st.sampled_from(DESC_DATA_TYPES))
    rng = draw(helpers.seeds())
    parts = [helpers.random_array(rng, s, data_type.dtype)
             for s in parts_sizes(sizes, axis, along)]  # fmt: skip
    return sizes, axis, along, data_type, parts


@hypothesis.given(desc_cases())
def test_join_desc_equals_the_reference(case):
    sizes, axis, along, data_type, parts = case
    actual = descs.run_desc(join_desc(sizes, axis, along, data_type), *parts)
    np.testing.assert_array_equal(actual, reference.join(parts, axis=axis))


@hypothesis.given(desc_cases())
def test_split_desc_equals_the_reference(case):
    sizes, axis, along, data_type, parts = case
    whole = reference.join(parts, axis=axis)
    actual = descs.run_desc(split_desc(sizes, axis, along, data_type), whole)
    expected = reference.split(whole, along, axis=axis)
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        np.testing.assert_array_equal(np.asarray(got), want)


@st.composite
def functional_cases(draw):
    rank = draw(st.integers(1, 8))
    shape = helpers.small_sizes(draw, rank, smallest=0)
    axis = draw(st.integers(-rank, rank - 1))
    along = draw(st.lists(st.integers(0, 3), min_size=1, max_size=8))
    hypothesis.assume(math.prod(shape) // max(shape[axis], 1) * sum(along) <= 4096)
    dtype = draw(st.sampled_from(helpers.FUNCTIONAL_DTYPES))
    rng = draw(helpers.seeds())
    parts = [helpers.random_array(rng, s, dtype)
             for s in parts_sizes(shape, axis % rank, along)]  # fmt: skip
    return axis, along, parts


@hypothesis.given(functional_cases())
def test_functional_faces_equal_the_reference(case):
    axis, along, parts = case
    whole = reference.join(parts, axis=axis)
    with jax.enable_x64(True):
        joined = dml.join(parts, axis=axis)
        split = dml.split(whole, tuple(along), axis=axis)
    assert joined.dtype == whole.dtype
    np.testing.assert_array_equal(np.asarray(joined), whole)
    for got, want in zip(split, reference.split(whole, along, axis=axis), strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("count", [1, 2, 3, 6])
def test_split_into_equal_parts(count):
    x = jnp.arange(24).reshape(4, 6)
    chex.assert_trees_all_equal(dml.split(x, count, axis=1), tuple(jnp.split(x, count, axis=1)))
    chex.assert_trees_all_equal(
        dml.split(jnp.zeros((0, 2)), count, axis=0), tuple(jnp.split(jnp.zeros((0, 2)), count))
    )


def test_empty_parts_as_jnp():
    a, b = jnp.zeros((2, 0)), jnp.arange(6.0).reshape(2, 3)
    chex.assert_trees_all_equal(dml.join([a, b, a], axis=1), jnp.concatenate([a, b, a], 1))
    chex.assert_trees_all_equal(dml.join([a], axis=1), a)
    parts = dml.split(b, (0, 3, 0), axis=1)
    assert [p.shape for p in parts] == [(2, 0), (2, 3), (2, 0)]


# --- Transformations ------------------------------------------------------------------------------


def test_an_axis_spelled_either_way_and_a_list_run_one_program():
    a, b = jnp.arange(6.0).reshape(2, 3), jnp.ones((2, 2))
    program = helpers.face_program(dml.join)
    dml.join((a, b), axis=1)
    size = helpers.jit_cache_size(program)
    dml.join((a + 1, b), axis=-1)  # the other spelling of the axis, new values
    dml.join([a, b + 1], axis=1)  # a list
    assert helpers.jit_cache_size(program) == size
    program = helpers.face_program(dml.split)
    dml.split(a, (1, 2), axis=1)
    size = helpers.jit_cache_size(program)
    dml.split(a + 1, (1, 2), axis=-1)
    assert helpers.jit_cache_size(program) == size


def test_strided_inputs_and_outputs_through_buffers():
    f32 = T.FLOAT32
    # JOIN: an NHWC-strided input and a packed one, joined along C into padded rows.
    nhwc = dml.TensorDesc(data_type=f32, sizes=(1, 2, 2, 3), strides=(12, 1, 6, 2))
    packed = dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 3))
    out = dml.TensorDesc(data_type=f32, sizes=(1, 3, 2, 3), strides=(24, 8, 4, 1))
    desc = dml.JoinOperatorDesc(input_tensors=(nhwc, packed), output_tensor=out, axis=1)
    buffer = np.arange(12, dtype=np.float32)
    b = np.arange(100, 106, dtype=np.float32).reshape(1, 1, 2, 3)
    result = dml.compile_operator(desc)(buffer, b)
    a = reference.read_strided(buffer, nhwc.sizes, (12, 1, 6, 2))
    np.testing.assert_array_equal(
        dml.from_strided_buffer(result, out), reference.join([a, b], axis=1)
    )
    # SPLIT: a broadcast input (stride 0) into a strided and a packed output.
    broadcast = dml.TensorDesc(data_type=f32, sizes=(3, 4), strides=(0, 1))
    first = dml.TensorDesc(data_type=f32, sizes=(3, 1), strides=(2, 1))
    rest = dml.TensorDesc(data_type=f32, sizes=(3, 3))
    desc = dml.SplitOperatorDesc(input_tensor=broadcast, output_tensors=(first, rest), axis=1)
    one, two = dml.compile_operator(desc)(np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(dml.from_strided_buffer(one, first), [[0.0]] * 3)
    np.testing.assert_array_equal(two, [[1.0, 2.0, 3.0]] * 3)
