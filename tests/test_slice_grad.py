"""SLICE_GRAD: its desc and dml.slice_grad, SLICE1's backward pass."""

import math

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


grad_desc = descs.slice_grad


# --- The DirectML doc example ---------------------------------------------------------------------


def test_doc_example_on_both_faces():
    (entry,) = doc_examples.entries("DML_OPERATOR_SLICE_GRAD")
    outcome = doc_examples.check(entry)
    assert outcome.passed, outcome.detail
    assert "also functional face" in outcome.detail
    example = doc_examples.build(entry)
    # 2-D needs FL 3_1; at FL 3_0 the same example runs padded to 4-D, as the entry notes.
    with pytest.raises(InvalidArgumentError, match="FL_3_1"):
        dml.compile_operator(example.desc, feature_level=FL.FL_3_0)
    padded = grad_desc(dy_sizes=(1, 1, 2, 2), sizes=(1, 1, 4, 4), offsets=(0, 0, 0, 0),
                       window=(1, 1, 4, 4), strides=(1, 1, 2, 2))  # fmt: skip
    out = dml.compile_operator(padded, feature_level=FL.FL_3_0)(example.inputs[0][None, None])
    np.testing.assert_array_equal(out[0, 0], example.expected)


# --- Rules and feature levels ---------------------------------------------------------------------


test_rule_violations_name_the_field = descs.rule_table_test(
    grad_desc,
    [
        ({"strides": (2, 0)}, "input_window_strides[1]", "non-zero"),
        ({"offsets": (1, 0)}, "input_window_sizes[0]", "inside the input"),
        ({"window": (4, 0)}, "input_window_sizes[1]", "never empty"),
        ({"window": (4,)}, "input_window_sizes", "one entry per dimension"),
        ({"dy_sizes": (3, 2)}, "input_gradient_tensor.sizes[0]", r"in \[1, 2\]"),
        ({"strides": (2, 2**31)}, "input_window_strides[1]", "INT"),
        ({"output_data_type": T.FLOAT16}, "output_gradient_tensor.data_type", "FLOAT32"),
    ],
)


# --- Equal to SLICE1's vjp, bit for bit -----------------------------------------------------------


@st.composite
def windows(draw, max_rank=8):
    rank = draw(st.integers(1, max_rank))
    max_size = 6 if rank <= 3 else 2
    shape, offsets, sizes, strides, out = [], [], [], [], []
    for _ in range(rank):
        dim = draw(st.integers(1, max_size))
        offset = draw(st.integers(0, dim - 1))
        size = draw(st.integers(1, dim - offset))
        stride = draw(st.sampled_from([1, -1, 2, -2, 3, -3, 7, -7]))
        largest = 1 + (size - 1) // abs(stride)
        shape.append(dim)
        offsets.append(offset)
        sizes.append(size)
        strides.append(stride)
        out.append(draw(st.integers(1, largest)))  # clipped output sizes too
    return tuple(shape), tuple(offsets), tuple(sizes), tuple(strides), tuple(out)


@hypothesis.given(windows(), st.sampled_from(helpers.FUNCTIONAL_DTYPES), helpers.seeds())
def test_functional_face_equals_the_reference_and_slice1s_vjp(window, dtype, rng):
    shape, offsets, sizes, strides, out = window
    hypothesis.assume(math.prod(shape) <= 4096)
    dy = helpers.random_array(rng, out, dtype)
    expected = reference.slice_grad(dy, shape, offsets=offsets, sizes=sizes, strides=strides)
    with jax.enable_x64(True):
        actual = dml.slice_grad(dy, shape, offsets=offsets, sizes=sizes, strides=strides)
        np.testing.assert_array_equal(np.asarray(actual), expected)
        if jnp.issubdtype(dtype, jnp.floating):
            _, vjp = jax.vjp(
                lambda x: dml.slice1(x, offsets=offsets, sizes=sizes, strides=strides,
                                     output_sizes=out),
                jnp.zeros(shape, dtype),
            )  # fmt: skip
            (through_slice1,) = vjp(jnp.asarray(dy))
            np.testing.assert_array_equal(
                np.asarray(through_slice1).view(np.uint8), np.asarray(actual).view(np.uint8)
            )


DESC_DATA_TYPES = tuple(t for t in helpers.DATA_TYPES if t not in (T.UINT4, T.INT4))


@hypothesis.given(windows(), st.sampled_from(DESC_DATA_TYPES), helpers.seeds())
def test_desc_face_equals_the_reference(window, data_type, rng):
    shape, offsets, sizes, strides, out = window
    hypothesis.assume(math.prod(shape) <= 4096)
    dy = helpers.random_array(rng, out, data_type.dtype)
    desc = grad_desc(dy_sizes=out, sizes=shape, offsets=offsets, window=sizes, strides=strides,
                     data_type=data_type)  # fmt: skip
    expected = reference.slice_grad(dy, shape, offsets=offsets, sizes=sizes, strides=strides)
    np.testing.assert_array_equal(descs.run_desc(desc, dy), expected)


@pytest.mark.parametrize("strides", [(1, 1), (-1, 2), (-3, -2), (5, -7)])
def test_slice1s_gradient_is_the_same_program(strides):
    window = dict(offsets=(1, 0), sizes=(8, 9), strides=strides)
    x = jnp.zeros((10, 9))
    y, vjp = jax.vjp(lambda x: dml.slice1(x, **window), x)
    dy = jnp.ones(y.shape)

    def primitives(jaxpr):  # each operator is a jit of its own: read inside it
        for e in jaxpr.eqns:
            if e.primitive.name in ("jit", "pjit"):
                yield from primitives(e.params["jaxpr"].jaxpr)
            else:
                yield e

    def program(fn):
        # slice_grad's guard of its batched size is an unused probe, compiled to nothing.
        guard = ("stop_gradient", "custom_vmap_call")
        return [(e.primitive.name, {k: str(v) for k, v in e.params.items()})
                for e in primitives(jax.make_jaxpr(fn)(dy).jaxpr)
                if e.primitive.name not in guard]  # fmt: skip

    def normalized(eqns):  # pad's config: the same numbers, whether int or np.int64
        return [(name, {k: v.replace("np.int64(", "").replace(")", "") for k, v in p.items()})
                for name, p in eqns]  # fmt: skip

    assert normalized(program(vjp)) == normalized(
        program(lambda dy: dml.slice_grad(dy, (10, 9), **window))
    )


def test_empty_windows_and_results():
    assert dml.slice_grad(jnp.zeros((0, 2)), (3, 4), offsets=(0, 0), sizes=(0, 4),
                          strides=(1, 2)).tolist() == [[0.0] * 4] * 3  # fmt: skip
    assert dml.slice_grad(jnp.zeros((0,)), (0,), offsets=(0,), sizes=(0,), strides=(1,)).shape == (
        0,
    )


# --- Transformations ------------------------------------------------------------------------------


def test_strided_output_through_a_buffer():
    desc = grad_desc(strides=(2, -2))
    desc = dml.SliceGradOperatorDesc(
        input_gradient_tensor=desc.input_gradient_tensor,
        output_gradient_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(4, 4), strides=(1, 5)),
        input_window_offsets=(0, 0),
        input_window_sizes=(4, 4),
        input_window_strides=(2, -2),
    )
    dy = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    out = dml.compile_operator(desc)(dy)
    expected = reference.slice_grad(dy, (4, 4), offsets=(0, 0), sizes=(4, 4), strides=(2, -2))
    np.testing.assert_array_equal(dml.from_strided_buffer(out, desc.output_gradient_tensor),
                                  expected)  # fmt: skip
