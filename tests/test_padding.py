"""PADDING and PADDING1: their descs, dml.PaddingMode and dml.pad."""

import math
from typing import Any

import chex
import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st

import dmljax as dml
from dmljax._src.checking import doc_examples, reference
from dmljax._src.ops import padding as padding_module
from tests import descs, helpers

T = dml.DataType
FL = dml.FeatureLevel
Mode = dml.PaddingMode
InvalidArgumentError = dml.errors.InvalidArgumentError
MODES = tuple(mode.function_name for mode in Mode)


def padding_desc(sizes=(2, 3), start=(1, 0), end=(0, 2), mode=Mode.CONSTANT, value=0.0,
                 data_type=T.FLOAT32, one=False, **tensor_kwargs):  # fmt: skip
    out = tuple(n + a + b for n, a, b in zip(sizes, start, end, strict=True))
    common: dict[str, Any] = dict(
        input_tensor=dml.TensorDesc(data_type=data_type, sizes=sizes),
        output_tensor=dml.TensorDesc(data_type=data_type, sizes=out, **tensor_kwargs),
        padding_mode=mode,
        padding_value=value,
        start_padding=start,
        end_padding=end,
    )
    if one:
        return dml.Padding1OperatorDesc(**common, padding_value_data_type=data_type)
    return dml.PaddingOperatorDesc(**common)


# --- The DirectML doc examples ---------------------------------------------------------------

EXAMPLES = [
    e for op in ("DML_OPERATOR_PADDING", "DML_OPERATOR_PADDING1") for e in doc_examples.entries(op)
]


def test_both_pages_have_their_four_examples():
    assert len(EXAMPLES) == 8


@pytest.mark.parametrize("entry", EXAMPLES, ids=lambda e: e["id"])
def test_the_reference_and_the_first_level_give_the_doc_examples(entry):
    # Both faces give every example in test_conformance.py.
    example = doc_examples.build(entry)
    mode = example.desc.padding_mode
    expected = reference.pad(example.inputs[0], example.desc.start_padding,
                             example.desc.end_padding, mode=mode.function_name,
                             value=example.desc.padding_value)  # fmt: skip
    np.testing.assert_array_equal(expected, example.expected)
    # The examples hold at the first level each mode and operator allows.
    first = max(mode.since, FL.FL_5_0 if entry["op"].endswith("1") else FL.FL_1_0)
    op = dml.compile_operator(example.desc, feature_level=first)
    np.testing.assert_array_equal(op(*example.inputs), example.expected)


def test_the_modes_have_directmls_values_and_levels():
    assert [(m.name, int(m)) for m in Mode] == [
        ("CONSTANT", 0), ("EDGE", 1), ("REFLECTION", 2), ("SYMMETRIC", 3), ("WRAP", 4),
    ]  # fmt: skip
    assert [m.since for m in Mode] == [FL.FL_1_0] * 3 + [FL.FL_3_0, FL.FL_6_4]
    assert Mode.coerce("DML_PADDING_MODE_WRAP", op="t", field="f") is Mode.WRAP
    assert Mode.coerce("reflection", op="t", field="f") is Mode.REFLECTION
    assert padding_desc(mode=3).padding_mode is Mode.SYMMETRIC  # pyright: ignore[reportArgumentType]


# --- Feature levels ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", list(Mode))
@pytest.mark.parametrize("one", [False, True], ids=["PADDING", "PADDING1"])
def test_each_mode_from_its_feature_level(mode, one):
    desc = padding_desc((1, 1, 2, 3), (0, 0, 1, 2), (0, 0, 1, 2), mode=mode, one=one)
    first = max(mode.since, FL.FL_5_0 if one else FL.FL_1_0)
    before = [level for level in FL if level < first and level >= (FL.FL_5_0 if one else FL.FL_1_0)]
    dml.compile_operator(desc, feature_level=first)
    for level in before:
        helpers.refused(
            lambda level=level: dml.compile_operator(desc, feature_level=level),
            field="padding_mode",
            match=mode.since.name,
        )


# --- The value --------------------------------------------------------------------------------


def test_padding_value_is_a_float32():
    desc = padding_desc(value=0.1)
    assert desc.padding_value == float(np.float32(0.1))
    out = dml.compile_operator(desc)(np.zeros((2, 3), np.float32))
    assert out[0, 0] == np.float32(0.1)


@pytest.mark.parametrize(
    ("data_type", "value", "expected"),
    [(T.INT32, 10.6, 10), (T.INT32, -10.6, -10), (T.UINT8, 255.9, 255), (T.INT8, -128.5, -128)],
)
def test_padding_truncates_the_value_for_integer_tensors(data_type, value, expected):
    desc = padding_desc(data_type=data_type, value=value)
    out = dml.compile_operator(desc)(np.zeros((2, 3), data_type.dtype))
    assert out[0, 0] == expected
    assert out.dtype == data_type.dtype


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 256.0, -1.0, 1e30])
def test_padding_refuses_a_value_no_uint8_holds(value):
    desc = padding_desc(data_type=T.UINT8, value=value)
    with pytest.raises(InvalidArgumentError, match="padding_value"):
        dml.compile_operator(desc)
    # Other modes ignore the value, as the page says.
    dml.compile_operator(padding_desc(data_type=T.UINT8, value=value, mode=Mode.EDGE))


@pytest.mark.parametrize(
    ("data_type", "value"),
    [
        (T.INT64, -(2**63)),
        (T.INT64, 2**63 - 1),
        (T.UINT64, 2**64 - 1),
        (T.UINT32, 2**32 - 1),
        (T.FLOAT64, -math.inf),
        (T.FLOAT64, 1e300),
        (T.FLOAT32, math.inf),
        (T.FLOAT16, -math.inf),
        (T.FLOAT64, 2.0**-1074),
    ],
)
def test_padding1_holds_the_value_exactly(data_type, value):
    desc = padding_desc(data_type=data_type, value=value, one=True)
    with jax.enable_x64(True):
        out = np.asarray(dml.compile_operator(desc)(np.zeros((2, 3), data_type.dtype)))
    assert out.dtype == data_type.dtype
    assert out[0, 0] == np.array(value, data_type.dtype)
    assert out[0, 0] == value


def test_padding1_keeps_nan_and_the_sign_of_zero():
    nan = padding_desc(value=float("nan"), one=True)
    assert np.isnan(dml.compile_operator(nan)(np.zeros((2, 3), np.float32))[0, 0])
    assert nan == padding_desc(value=float("nan"), one=True)  # one compiled program for NaN
    negative_zero = padding_desc(value=-0.0, one=True)
    assert negative_zero != padding_desc(value=0.0, one=True)
    out = dml.compile_operator(negative_zero)(np.ones((2, 3), np.float32))
    assert np.signbit(out[0, 0])
    out = dml.compile_operator(padding_desc(value=0.0, one=True))(np.ones((2, 3), np.float32))
    assert not np.signbit(out[0, 0])


def test_functional_value_keeps_the_sign_of_zero_across_calls():
    x = jnp.ones(2)
    assert not np.signbit(dml.pad(x, (1,), (0,), value=0.0)[0])
    assert np.signbit(dml.pad(x, (1,), (0,), value=-0.0)[0])
    assert not np.signbit(dml.pad(x, (1,), (0,), value=0.0)[0])


def test_functional_value_in_the_arrays_dtype():
    assert dml.pad(jnp.zeros(1, jnp.uint8), (1,), (0,), value=255)[0] == 255
    assert dml.pad(jnp.zeros(1, bool), (1,), (0,), value=True)[0]
    assert dml.pad(jnp.zeros(1, jnp.int32), (1,), (0,), value=7.0)[0] == 7
    assert dml.pad(jnp.zeros(1, jnp.float16), (1,), (0,), value=1e6)[0] == np.inf
    with jax.enable_x64(True):
        x = jnp.zeros(1, jnp.uint64)
        assert dml.pad(x, (1,), (0,), value=2**64 - 1)[0] == np.uint64(2**64 - 1)
        assert dml.pad(x, (1,), (0,), value=np.uint64(7))[0] == 7


# --- Large paddings and negative ones ------------------------------------------------------------


@pytest.mark.parametrize("mode", ["edge", "reflection", "symmetric", "wrap"])
@pytest.mark.parametrize(("start", "end"), [(3, 3), (4, 5), (13, 2), (0, 30)])
def test_paddings_past_the_dimension_repeat_as_the_pages_say(mode, start, end):
    # The pages: REFLECTION may pad >= the size, SYMMETRIC > the size, folding over and over;
    # numpy's modes of those names do exactly that.
    x = np.arange(1, 5, dtype=np.float32)
    numpy_mode: Any = {"reflection": "reflect"}.get(mode, mode)
    expected = np.pad(x, (start, end), mode=numpy_mode)
    np.testing.assert_array_equal(dml.pad(x, (start,), (end,), mode=mode), expected)
    np.testing.assert_array_equal(reference.pad(x, (start,), (end,), mode=mode), expected)


def test_numpy_and_enum_spellings_of_the_mode_share_a_program():
    x = jnp.arange(4.0)
    expected = dml.pad(x, (2,), (2,), mode="reflection")
    program = helpers.face_program(dml.pad)
    size = helpers.jit_cache_size(program)
    chex.assert_trees_all_equal(dml.pad(x, (2,), (2,), mode="reflect"), expected)
    chex.assert_trees_all_equal(dml.pad(x, (2,), (2,), mode=Mode.REFLECTION), expected)
    assert helpers.jit_cache_size(program) == size


@pytest.mark.parametrize("mode", MODES)
def test_negative_paddings_crop_first(mode):
    x = np.arange(1, 7, dtype=np.float32)
    out = dml.pad(x, (-2,), (3,), mode=mode, value=-1)
    expected = reference.pad(x[2:], (0,), (3,), mode=mode, value=-1)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(dml.pad(x, (-2,), (-4,), mode=mode), np.zeros(0))


def test_constant_mode_is_lax_pad_with_negative_paddings():
    x = jnp.arange(12.0).reshape(3, 4)
    chex.assert_trees_all_equal(
        dml.pad(x, (-1, 2), (1, -3), value=5),
        jax.lax.pad(x, jnp.float32(5), [(-1, 1, 0), (2, -3, 0)]),
    )
    # A crop past the dimension too: each element is the one it lands on, or the value.
    for start, end, size in ((-4, 3, 3), (-4, 1, 3), (-1, 2, 0), (2, -3, 1)):
        x = jnp.arange(float(size))
        chex.assert_trees_all_equal(
            dml.pad(x, (start,), (end,), value=7),
            jax.lax.pad(x, jnp.float32(7), [(start, end, 0)]),
        )


@pytest.mark.parametrize("mode", MODES)
def test_a_crop_past_an_empty_result_gives_the_empty_result(mode):
    # onnxruntime's Pad gives the empty result for pads (-1, 1) of an empty dimension.
    assert dml.pad(jnp.zeros((0, 2)), (-1, 0), (1, 0), mode=mode).shape == (0, 2)
    out = jax.jit(lambda x: dml.pad(x, (0, -4), (0, 1), mode=mode))(jnp.ones((2, 3)))
    chex.assert_trees_all_equal(out, jnp.zeros((2, 0)))
    grad = jax.grad(lambda x: dml.pad(x, (-4,), (1,), mode=mode).sum())(jnp.ones(3))
    chex.assert_trees_all_equal(grad, jnp.zeros(3))


def test_empty_arrays_and_scalars():
    assert dml.pad(jnp.zeros((0, 2)), (1, 0), (2, 1), value=3).tolist() == [[3.0] * 3] * 3
    assert dml.pad(jnp.float32(4), (), ()) == 4
    assert dml.pad(jnp.zeros((0, 2)), (0, 1), (0, 1), mode="edge").shape == (0, 4)


def test_long_borders_are_one_gather():
    # 40 folds of a two-element dimension: a gather, not a concatenate of 40 pieces.
    text = jax.jit(lambda x: dml.pad(x, (80,), (0,), mode="reflection")).lower(jnp.ones(2))
    hlo = text.as_text()
    assert "gather" in hlo
    assert "concatenate" not in hlo
    np.testing.assert_array_equal(
        dml.pad(jnp.array([1.0, 2.0]), (80,), (0,), mode="reflection"),
        np.pad(np.array([1.0, 2.0], np.float32), (80, 0), mode="reflect"),
    )


def test_source_positions_are_directmls_rule():
    for mode in ("edge", "reflection", "symmetric", "wrap"):
        for n in (2, 3, 5):
            positions = padding_module.source_positions(Mode[mode.upper()], n, 11, 7)
            x = np.arange(n)
            np.testing.assert_array_equal(positions, reference.pad(x, (11,), (7,), mode=mode))


# --- Property tests against the reference ---------------------------------------------------------

DESC_DATA_TYPES = helpers.documented_data_types("DML_OPERATOR_PADDING1")


@st.composite
def desc_cases(draw):
    rank = draw(st.integers(1, 8))
    max_size = 3 if rank <= 4 else 2
    sizes = tuple(draw(st.lists(st.integers(1, max_size), min_size=rank, max_size=rank)))
    mode = draw(st.sampled_from(list(Mode)))
    smallest = 2 if mode is Mode.REFLECTION else 1
    pads = st.integers(0, 2 * max_size + 1)
    start = tuple(draw(pads) if n >= smallest else 0 for n in sizes)
    end = tuple(draw(pads) if n >= smallest else 0 for n in sizes)
    out = [n + a + b for n, a, b in zip(sizes, start, end, strict=True)]
    hypothesis.assume(math.prod(out) <= 4096)
    data_type = draw(st.sampled_from(DESC_DATA_TYPES))
    one = draw(st.booleans())
    if one:
        x_info = np.iinfo(data_type.dtype) if data_type.is_integer else None
        value = draw(
            st.integers(int(x_info.min), int(x_info.max)) if x_info
            else st.floats(allow_nan=False, width=min(data_type.bit_width, 64))
        )  # fmt: skip
    else:
        value = float(draw(st.integers(0, 100) if data_type.is_integer else st.floats(-1e4, 1e4)))
    rng = draw(helpers.seeds())
    x = helpers.random_array(rng, sizes, data_type.dtype)
    return padding_desc(sizes, start, end, mode, value, data_type, one=one), x


@hypothesis.given(desc_cases())
def test_desc_face_equals_the_reference(case):
    desc, x = case
    mode = desc.padding_mode.function_name
    value = desc.padding_value
    if isinstance(desc, dml.PaddingOperatorDesc) and desc.input_tensor.data_type.is_integer:
        value = math.trunc(value)
    expected = reference.pad(x, desc.start_padding, desc.end_padding, mode=mode,
                             value=np.array(value, x.dtype))  # fmt: skip
    np.testing.assert_array_equal(descs.run_desc(desc, x), expected)


@st.composite
def functional_cases(draw):
    rank = draw(st.integers(0, 8))
    max_size = 3 if rank <= 4 else 2
    shape = tuple(draw(st.lists(st.integers(0, max_size), min_size=rank, max_size=rank)))
    mode = draw(st.sampled_from(MODES))
    start, end = [], []
    for n in shape:
        a = draw(st.integers(-n, 2 * max_size + 1))
        b = draw(st.integers(-(n - max(-a, 0)), 2 * max_size + 1))
        kept = n - max(-a, 0) - max(-b, 0)
        if mode != "constant" and kept < (2 if mode == "reflection" else 1):
            a, b = min(a, 0), min(b, 0)  # a mode that copies needs elements to copy
        start.append(a)
        end.append(b)
    out = [max(n + a + b, 0) for n, a, b in zip(shape, start, end, strict=True)]
    hypothesis.assume(math.prod(out) <= 4096)
    rng = draw(helpers.seeds())
    dtype = draw(st.sampled_from(helpers.FUNCTIONAL_DTYPES))
    x = helpers.random_array(rng, shape, dtype)
    value = draw(st.integers(0, 1))
    return x, tuple(start), tuple(end), mode, value


@hypothesis.given(functional_cases())
def test_functional_face_equals_the_reference(case):
    x, start, end, mode, value = case
    expected = reference.pad(x, start, end, mode=mode, value=value)
    with jax.enable_x64(True):
        actual = dml.pad(x, start, end, mode=mode, value=value)
    assert actual.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(actual), expected)


# --- Transformations ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["edge", "reflection", "symmetric", "wrap"])
def test_gradient_sums_the_copies(mode):
    x = jnp.arange(4.0)
    grad = jax.grad(lambda x: dml.pad(x, (6,), (5,), mode=mode).sum())(x)
    counts = np.bincount(padding_module.source_positions(Mode[mode.upper()], 4, 6, 5), minlength=4)
    np.testing.assert_array_equal(grad, counts)


def test_strided_input_and_output_through_buffers():
    # An input read from a padded-row buffer and an output written into one, as DirectML binds.
    f32 = T.FLOAT32
    desc = dml.PaddingOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 3), strides=(4, 1)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(3, 5), strides=(1, 3)),
        padding_mode=Mode.WRAP,
        start_padding=(1, 0),
        end_padding=(0, 2),
    )
    buffer = np.arange(8, dtype=np.float32)
    x = reference.read_strided(buffer, (2, 3), (4, 1))
    out = dml.compile_operator(desc)(buffer)
    expected = reference.pad(x, (1, 0), (0, 2), mode="wrap")
    np.testing.assert_array_equal(dml.from_strided_buffer(out, desc.output_tensor), expected)


def test_no_more_kernels_than_jnp_pad():
    from dmljax._src.bench.hlo import kernel_count

    x = jnp.ones((64, 32), jnp.float32)
    for mode, numpy_mode in zip(MODES, ("constant", "edge", "reflect", "symmetric", "wrap"),
                                strict=True):  # fmt: skip
        ours = jax.jit(lambda x, mode=mode: dml.pad(x, (3, 5), (2, 7), mode=mode))
        theirs = jax.jit(lambda x, m=numpy_mode: jnp.pad(x, ((3, 2), (5, 7)), mode=m))
        assert kernel_count(ours.lower(x).compile()) <= kernel_count(theirs.lower(x).compile())


# --- jnp.pad's forms ------------------------------------------------------------------------

_JNP_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")
_PAD_WIDTHS = (2, (1,), (1, 2), ((2, 1),), ((1, 0), (0, 3)), np.array([[0, 2], [1, 1]]))


@pytest.mark.parametrize("mode", _JNP_MODES)
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.int8, jnp.bfloat16])
def test_every_jnp_pad_width_gives_jnp_pads_result(mode, dtype):
    x = jnp.arange(12).reshape(3, 4).astype(dtype)
    # Every form in one program each (one compilation, not one per form).
    got = jax.jit(lambda x: [dml.pad(x, width, mode) for width in _PAD_WIDTHS])(x)
    want = jax.jit(lambda x: [jnp.pad(x, width, mode) for width in _PAD_WIDTHS])(x)
    chex.assert_trees_all_equal(got, want)
    chex.assert_trees_all_equal(dml.pad(x, _PAD_WIDTHS[-1], mode=mode), want[-1])  # eager


@pytest.mark.parametrize(
    "constant_values",
    [7, -2.5, (1, 2), ((1, 2),), ((1, 2), (3, 4)), np.array([[5], [6]])],
    ids=repr,
)
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.int32, jnp.float16])
def test_every_jnp_constant_values_form_gives_jnp_pads_result(constant_values, dtype):
    x = jnp.arange(6).reshape(2, 3).astype(dtype)
    width = ((1, 2), (2, 1))
    want = jnp.pad(x, width, constant_values=constant_values)
    chex.assert_trees_all_equal(dml.pad(x, width, constant_values=constant_values), want)
    chex.assert_trees_all_equal(
        dml.pad(x, (1, 2), (2, 1), constant_values=constant_values), want
    )  # DirectML's paddings with jnp's values


def test_a_traced_constant_is_one_program_and_differentiable():
    x = jnp.arange(6.0).reshape(2, 3)
    traces = []

    @jax.jit
    def padded(x, c):
        traces.append(c)
        return dml.pad(x, ((1, 1), (0, 2)), constant_values=c)

    for c in (3.0, -1.5):
        chex.assert_trees_all_equal(padded(x, c), jnp.pad(x, ((1, 1), (0, 2)), constant_values=c))
    assert len(traces) == 1
    # A JAX scalar as DirectML's value too.
    chex.assert_trees_all_equal(
        jax.jit(lambda c: dml.pad(x, (1, 0), (0, 1), value=c))(jnp.float32(4)),
        jnp.pad(x, ((1, 0), (0, 1)), constant_values=4.0),
    )
    # d/dc of the sum is the number of border elements (jnp.pad's own transpose fails
    # where only the value is differentiated).
    assert jax.grad(lambda c: dml.pad(x, 1, constant_values=c).sum())(1.0) == 20 - 6
    assert jax.grad(lambda c: dml.pad(x, 1, constant_values=(c, 2 * c)).sum())(1.0) == 21
    gx = jax.grad(lambda x: (dml.pad(x, 1, constant_values=jnp.float32(2)) ** 2).sum())(x)
    chex.assert_trees_all_close(gx, 2 * x)
    batched = jax.vmap(lambda c: dml.pad(x, 1, constant_values=c))(jnp.arange(3.0))
    chex.assert_trees_all_equal(
        batched, jnp.stack([jnp.pad(x, 1, constant_values=float(c)) for c in range(3)])
    )


def test_a_traced_constant_keeps_its_bits():
    nan = np.array(0x7FC00123, np.uint32).view(np.float32)
    x = jnp.zeros(2, jnp.bfloat16)
    got = dml.pad(x, 1, constant_values=jnp.asarray(nan).astype(jnp.bfloat16))
    assert np.asarray(got).view(np.uint16)[0] == np.asarray(
        jnp.asarray(nan).astype(jnp.bfloat16)
    ).view(np.uint16)
