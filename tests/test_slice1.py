"""SLICE1 and SLICE: DML_SLICE1_OPERATOR_DESC, DML_SLICE_OPERATOR_DESC and dml.slice1."""

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
from dmljax._src.bench.hlo import entry_opcodes, kernel_count
from dmljax._src.checking import doc_examples, reference
from tests import descs, helpers

T = dml.DataType
FL = dml.FeatureLevel
InvalidArgumentError = dml.errors.InvalidArgumentError


slice1_desc = descs.slice1


slice_desc = descs.slice


# --- The DirectML doc examples --------------------------------------------------------------------


# Both faces give every worked example in test_conformance.py; here the NumPy references
# give them too, and SLICE's desc gives them at its first feature level as at the latest.
@pytest.mark.parametrize("example_id", ["slice1-ex1", "slice1-ex2", "slice-ex1", "slice-ex2"])
def test_the_references_give_the_doc_examples(example_id):
    entry = doc_examples.entry(example_id)
    attrs = entry["attrs"]
    x = doc_examples.tensor_of(entry["inputs"]["InputTensor"])
    expected = doc_examples.tensor_of(entry["expected"])
    if example_id.startswith("slice1"):
        window = {"offsets": attrs["InputWindowOffsets"], "sizes": attrs["InputWindowSizes"],
                  "strides": attrs["InputWindowStrides"]}  # fmt: skip
        got = reference.slice1(x, **window, output_sizes=expected.shape)
    else:
        got = reference.slice(
            x, offsets=attrs["Offsets"], sizes=attrs["Sizes"], strides=attrs["Strides"]
        )
        desc = doc_examples.build(entry).desc
        for level in (FL.FL_1_0, FL.LATEST):
            out = dml.compile_operator(desc, feature_level=level)(x)
            np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(got, expected)


# --- Every rule -----------------------------------------------------------------------------------


test_slice1_rule_violations_name_the_field = descs.rule_table_test(
    slice1_desc,
    [
        ({"offsets": (0, 0, 0)}, "input_window_offsets", "4 long"),
        ({"sizes": (1, 1, 4, 3, 1)}, "input_window_sizes", "4 long"),
        ({"strides": (1, 1, 2)}, "input_window_strides", "4 long"),
        ({"strides": (1, 1, 0, 2)}, "input_window_strides[2]", "non-zero"),
        ({"offsets": (0, 0, -1, 1)}, "input_window_offsets[2]", "non-negative"),
        ({"sizes": (1, 1, 0, 3)}, "input_window_sizes[2]", "windows are never empty"),
        ({"offsets": (0, 0, 1, 1)}, "input_window_sizes[2]", "stays inside the input"),
        ({"sizes": (1, 1, 4, 4)}, "input_window_sizes[3]", "stays inside the input"),
        ({"output_sizes": (1, 1, 3, 2)}, "output_tensor.sizes[2]", r"in \[1, 2\]"),
        ({"output_sizes": (1, 1, 4, 4)}, "output_tensor.sizes[2]", r"in \[1, 2\]"),
        ({"output_sizes": (1, 2, 2)}, "output_tensor.sizes", "DimensionCount must be equal"),
        ({"output_data_type": T.FLOAT16}, "output_tensor.data_type", "FLOAT32"),
    ],
)


def test_every_smaller_output_size_is_legal():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    for rows in (1, 2):
        for cols in (1, 2):
            op = dml.compile_operator(slice1_desc(output_sizes=(1, 1, rows, cols)))
            np.testing.assert_array_equal(
                op(x), np.asarray(x[:, :, 3::-2, 1::2][:, :, :rows, :cols])
            )


test_slice_rule_violations_name_the_field = descs.rule_table_test(
    slice_desc,
    [
        ({"offsets": (0, 0, 1)}, "offsets", "4 long"),
        ({"strides": (1, 1, 2, 3, 1)}, "strides", "4 long"),
        ({"sizes": (1, 1, 2, 1), "output_sizes": (1, 1, 2, 1), "strides": (1, 1, -1, 3)},
         "strides[2]", "non-negative"),
        ({"sizes": (1, 1, 3, 2), "output_sizes": (1, 1, 3, 2)}, "sizes[2]", "last read at 5"),
        ({"offsets": (0, 0, 1, 2)}, "sizes[3]", "last read at 5"),
        ({"output_sizes": (1, 1, 2, 1)}, "output_tensor.sizes", r"\(1, 1, 2, 2\) \(sizes\)"),
        ({"output_sizes": (1, 2, 2)}, "output_tensor.sizes", "DimensionCount must be equal"),
        ({"output_data_type": T.INT32}, "output_tensor.data_type", "FLOAT32"),
    ],
)  # fmt: skip


def test_slice1_needs_fl_2_1():
    with pytest.raises(InvalidArgumentError, match="FL_2_1 or higher") as e:
        dml.compile_operator(slice1_desc(), feature_level=FL.FL_1_0)
    assert e.value.field == "feature_level"
    assert "DML_OPERATOR_SLICE1 was introduced at FL_2_1" in str(e.value)


def test_six_dimensions_refused_at_fl_2_1_and_accepted_at_fl_3_0():
    sizes = (1, 1, 1, 1, 2, 3)
    d = slice1_desc(input_sizes=sizes, output_sizes=(1, 1, 1, 1, 2, 3), offsets=(0,) * 6,
                    sizes=sizes, strides=(1, 1, 1, 1, -1, 1))  # fmt: skip
    with pytest.raises(InvalidArgumentError, match="6 dimensions are supported from FL_3_0"):
        dml.compile_operator(d, feature_level=FL.FL_2_1)
    x = np.arange(6, dtype=np.float32).reshape(sizes)
    np.testing.assert_array_equal(
        dml.compile_operator(d, feature_level=FL.FL_3_0)(x), x[..., ::-1, :]
    )


# --- The functional face --------------------------------------------------------------------------


def test_functional_face_edges():
    x = jnp.arange(12).reshape(3, 4)
    assert dml.slice1(x, offsets=(0, 1), sizes=(0, 2), strides=(1, 1)).shape == (0, 2)
    assert dml.slice1(jnp.int8(5), offsets=(), sizes=(), strides=()) == 5
    np.testing.assert_array_equal(
        dml.slice1(x, offsets=(0, 0), sizes=(3, 4), strides=(-1, -1)), np.asarray(x)[::-1, ::-1]
    )
    np.testing.assert_array_equal(
        dml.slice1(x, offsets=(1, 0), sizes=(2, 4), strides=(1, 3), output_sizes=(1, 0)),
        np.zeros((1, 0)),
    )
    flags = jnp.array([True, False, True])
    np.testing.assert_array_equal(
        dml.slice1(flags, offsets=np.array([0]), sizes=[3], strides=(-2,)), [True, True]
    )


@pytest.mark.parametrize(
    ("kwargs", "field", "fragment"),
    [
        ({"offsets": (0,)}, "offsets", "2 long"),
        ({"strides": (1, 0)}, "strides[1]", "non-zero"),
        ({"sizes": (3, 5)}, "sizes[1]", "stays inside the input"),
        ({"offsets": (2, 0), "sizes": (2, 4)}, "sizes[0]", "stays inside the input"),
        ({"offsets": (-1, 0)}, "offsets[0]", "non-negative"),
        ({"sizes": (-1, 4)}, "sizes[0]", "non-negative"),
        ({"output_sizes": (3,)}, "output_sizes", "2 long"),
        ({"output_sizes": (4, 4)}, "output_sizes[0]", r"in \[0, 3\]"),
        ({"strides": (1, 1.5)}, "strides[1]", "an integer"),
    ],
)
def test_functional_face_refusals(kwargs, field, fragment):
    arguments = {"offsets": (0, 0), "sizes": (3, 4), "strides": (1, 1), **kwargs}
    with pytest.raises(InvalidArgumentError, match=fragment) as e:
        dml.slice1(jnp.ones((3, 4)), **arguments)
    assert e.value.op == "dmljax.slice1"
    assert e.value.field == field


def test_traced_windows_are_refused():
    @jax.jit
    def f(x, offset):
        return dml.slice1(x, offsets=(offset,), sizes=(2,), strides=(1,))

    helpers.refused(lambda: f(jnp.ones(4), 1), field="offsets[0]", match="traced value")


# --- Against the reference ------------------------------------------------------------------------


@st.composite
def windows(draw, min_rank=0, min_size=0):
    rank = draw(st.integers(min_rank, 8))
    max_dim = 6 if rank <= 3 else 3
    shape = tuple(
        draw(st.integers(max(min_size, 1 if min_size else 0), max_dim)) for _ in range(rank)
    )
    offsets, sizes, strides, output_sizes = [], [], [], []
    for dim in shape:
        offset = draw(st.integers(0, dim - min_size))
        size = draw(st.integers(min_size, dim - offset))
        stride = draw(st.sampled_from([1, 2, 3, 4, -1, -2, -3, -4]))
        largest = 0 if size == 0 else 1 + (size - 1) // abs(stride)
        output_sizes.append(draw(st.integers(min(min_size, largest), largest)))
        offsets.append(offset)
        sizes.append(size)
        strides.append(stride)
    hypothesis.assume(math.prod(shape) <= 4096)
    return shape, tuple(offsets), tuple(sizes), tuple(strides), tuple(output_sizes)


@hypothesis.given(windows(), st.sampled_from(helpers.FUNCTIONAL_DTYPES), helpers.seeds())
def test_functional_face_equals_the_reference(window, dtype, rng):
    shape, offsets, sizes, strides, output_sizes = window
    x = helpers.random_array(rng, shape, dtype)
    expected = reference.slice1(
        x, offsets=offsets, sizes=sizes, strides=strides, output_sizes=output_sizes
    )
    with jax.enable_x64(True):
        actual = dml.slice1(
            x, offsets=offsets, sizes=sizes, strides=strides, output_sizes=output_sizes
        )
    assert actual.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(actual), expected)


SLICE1_TYPES = helpers.documented_data_types("DML_OPERATOR_SLICE1")


@hypothesis.given(windows(min_rank=1, min_size=1), st.sampled_from(SLICE1_TYPES), helpers.seeds())
def test_desc_face_equals_the_reference(window, data_type, rng):
    shape, offsets, sizes, strides, output_sizes = window
    x = helpers.random_array(rng, shape, data_type.dtype)
    desc = slice1_desc(
        input_sizes=shape, output_sizes=output_sizes, offsets=offsets, sizes=sizes,
        strides=strides, data_type=data_type,
    )  # fmt: skip
    np.testing.assert_array_equal(
        descs.run_desc(desc, x),
        reference.slice1(
            x, offsets=offsets, sizes=sizes, strides=strides, output_sizes=output_sizes
        ),
    )


@st.composite
def slices(draw):
    rank = draw(st.integers(1, 8))
    shape, offsets, sizes, strides = [], [], [], []
    for _ in range(rank):
        dim = draw(st.integers(1, 6 if rank <= 3 else 3))
        offset = draw(st.integers(0, dim - 1))
        stride = draw(st.integers(1, 4))
        sizes.append(draw(st.integers(1, 1 + (dim - 1 - offset) // stride)))
        shape.append(dim)
        offsets.append(offset)
        strides.append(stride)
    return tuple(shape), tuple(offsets), tuple(sizes), tuple(strides)


@hypothesis.given(slices(), st.sampled_from(SLICE1_TYPES), helpers.seeds())
def test_slice_desc_equals_the_reference(case, data_type, rng):
    shape, offsets, sizes, strides = case
    x = helpers.random_array(rng, shape, data_type.dtype)
    desc = slice_desc(
        input_sizes=shape, output_sizes=sizes, offsets=offsets, sizes=sizes, strides=strides,
        data_type=data_type,
    )  # fmt: skip
    np.testing.assert_array_equal(
        descs.run_desc(desc, x), reference.slice(x, offsets=offsets, sizes=sizes, strides=strides)
    )


# --- Transformations and the compiled program -----------------------------------------------------


WINDOWS = [
    ((0, 1), (4, 5), (-1, 2), None),
    ((1, 0), (3, 6), (-2, -3), (1, 2)),
    ((0, 0), (4, 6), (1, 1), None),
]


@pytest.mark.parametrize(("offsets", "sizes", "strides", "output_sizes"), WINDOWS)
def test_gradients_are_slice_grad(offsets, sizes, strides, output_sizes):
    window = {"offsets": offsets, "sizes": sizes, "strides": strides, "output_sizes": output_sizes}
    with jax.enable_x64(True):
        x = jnp.asarray(np.random.default_rng(15).standard_normal((4, 6)))
        check_grads(lambda x: dml.slice1(x, **window), (x,), order=2, modes=("fwd", "rev"))
        # SLICE_GRAD: the cotangent lands where each output element was read, zeros elsewhere.
        out = dml.slice1(x, **window)
        cotangent = jnp.arange(1.0, out.size + 1.0).reshape(out.shape)
        (grad,) = jax.vjp(lambda x: dml.slice1(x, **window), x)[1](cotangent)
        expected = np.zeros((4, 6))
        copy_start = [
            o + (s - 1 if st < 0 else 0) for o, s, st in zip(offsets, sizes, strides, strict=True)
        ]
        for c in np.ndindex(*out.shape):
            source = tuple(b + st * i for b, st, i in zip(copy_start, strides, c, strict=True))
            expected[source] = cotangent[c]
        np.testing.assert_array_equal(grad, expected)


def test_a_window_spelled_as_lists_or_arrays_runs_one_program():
    rng = np.random.default_rng(16)
    xs = jnp.asarray(rng.standard_normal((5, 4, 6)), jnp.float32)
    window = {"offsets": (1, 0), "sizes": (3, 6), "strides": (-2, -3)}

    def f(x):
        return dml.slice1(x, **window)

    jitted = helpers.face_program(dml.slice1)
    f(xs[1])
    size = helpers.jit_cache_size(jitted)
    f(xs[2])
    dml.slice1(xs[3], offsets=[1, 0], sizes=np.array([3, 6]), strides=(-2, -3))
    assert helpers.jit_cache_size(jitted) == size


def numpy_slice(offset, size, stride, out):
    """The Python slice that reads what a SLICE1 window of this output size reads."""
    if stride > 0:
        return slice(offset, offset + (out - 1) * stride + 1, stride)
    start = offset + size - 1
    stop = start - (out - 1) * -stride - 1
    return slice(start, stop if stop >= 0 else None, stride)


@pytest.mark.parametrize(("offsets", "sizes", "strides", "output_sizes"), WINDOWS)
def test_no_gather_and_no_more_kernels_than_basic_indexing(offsets, sizes, strides, output_sizes):
    x = jnp.ones((4, 6), jnp.float32)
    window = {"offsets": offsets, "sizes": sizes, "strides": strides, "output_sizes": output_sizes}
    out = dml.slice1(x, **window).shape
    index = tuple(map(numpy_slice, offsets, sizes, strides, out))
    np.testing.assert_array_equal(dml.slice1(np.arange(24.0).reshape(4, 6), **window),
                                  np.arange(24.0).reshape(4, 6)[index])  # fmt: skip
    ours = jax.jit(lambda x: dml.slice1(x, **window)).lower(x).compile()
    theirs = jax.jit(lambda x: x[index]).lower(x).compile()
    assert "gather" not in entry_opcodes(ours.as_text() or "")
    assert "gather" not in (jax.jit(lambda x: dml.slice1(x, **window)).lower(x).as_text())
    assert kernel_count(ours) <= kernel_count(theirs)


def test_a_zero_slice_stride_reads_the_offset_at_every_coordinate():
    # SLICE's page types the strides UINT and forbids only reads outside the input.
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    desc = dml.SliceOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 4, 4)),
        output_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 3, 2)),
        offsets=(0, 0, 2, 1),
        sizes=(1, 1, 3, 2),
        strides=(1, 1, 0, 2),
    )
    expected = np.broadcast_to(x[:, :, 2:3, 1::2], (1, 1, 3, 2))
    np.testing.assert_array_equal(dml.compile_operator(desc)(x), expected)
    # The last read is still checked: the offset itself must be inside the input.
    with pytest.raises(InvalidArgumentError, match="last read at 4"):
        dml.compile_operator(dataclasses.replace(desc, offsets=(0, 0, 4, 1)))
