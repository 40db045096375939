"""The element-wise family: each row against its NumPy reference on both faces, with the
values the sweeps leave out (NaN, infinities, -0.0, subnormals, integer extremes), zero
strides, ScaleBias, and the rules and faces the family shares. Transformations, support
tables and examples are tests/test_conformance.py's, from the rows."""

from __future__ import annotations

import dataclasses
import enum
import inspect
import pathlib
import re
import typing
from collections.abc import Sequence
from typing import Any

import hypothesis
import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dmljax as dml
from dmljax._src import contract
from dmljax._src.checking import family_names, selftest
from dmljax._src.checking.operators import element_wise as checking
from dmljax._src.ops import element_wise
from dmljax._src.ops.element_wise import ROWS, ElementWise
from tests import helpers

T = dml.DataType
ROOT = pathlib.Path(__file__).parents[1]
BY_NAME = {row.kind: row for row in ROWS}


def _jax_dtypes(row: ElementWise) -> list[np.dtype[Any]]:
    """The row's latest types that JAX holds without x64, and bfloat16 with its floats."""
    return sorted(_small(element_wise.face_dtypes(row)), key=str)


def _values(dtype: np.dtype[Any]) -> st.SearchStrategy[Any]:
    if jnp.issubdtype(dtype, jnp.floating):
        info = jnp.finfo(dtype)
        special = st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.0, float(info.tiny) / 4,
                                   float(info.max), float(info.min), 1.0, -1.0])  # fmt: skip
        ordinary = st.floats(-1e4, 1e4, width=32).map(lambda v: float(np.asarray(v, dtype)))
        return st.one_of(special, ordinary)
    info = np.iinfo(dtype)
    extremes = st.sampled_from([int(info.min), int(info.max), 0, 1, -1 if info.min else 2])
    return st.one_of(extremes, st.integers(int(info.min), int(info.max)))


def _expected(row: ElementWise, xs: Sequence[np.ndarray], values: Sequence[Any] = ()) -> np.ndarray:
    return row.reference(*np.broadcast_arrays(*xs), *values)


def _flushed_values(values: Sequence[Any], dtype: np.dtype[Any]) -> list[Any]:
    """Float attributes as a flushing backend reads them, in the arrays' float type (a
    mode, ROUND's, is no number: it stays as it is)."""
    if not jnp.issubdtype(dtype, jnp.floating):
        return list(values)
    with np.errstate(over="ignore"):  # a float32 bound beyond float16's range: infinity
        return [
            v if isinstance(v, str | enum.Enum) else float(helpers.flushed(np.asarray(v, dtype)))
            for v in values
        ]


def _assert_matches(
    row: ElementWise,
    got: Any,
    expected: np.ndarray,
    xs: Sequence[np.ndarray] = (),
    values: Sequence[Any] = (),
) -> None:
    """``got`` is ``expected`` (within the row's ulps), or, given the inputs ``xs`` and
    attributes ``values``, what the row gives with subnormals flushed to zero where
    float32 and bfloat16 may flush."""
    got = np.asarray(got)
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    if row.bitwise:  # bits, whatever they encode (NaN payloads, signalling ones too)
        unsigned = f"uint{got.dtype.itemsize * 8}"
        np.testing.assert_array_equal(got.view(unsigned), expected.view(unsigned))
    elif jnp.issubdtype(expected.dtype, jnp.floating):
        # A result that may cancel (LINEAR's) is held to ulps of its terms' magnitude.
        magnitude = row.magnitude(*xs, *values) if row.magnitude and xs else None
        within = selftest.within_ulps(got, expected, row.ulps, magnitude)
        if xs:
            flushed_xs = [helpers.flushed(x) for x in xs]
            flushed_values = _flushed_values(values, np.dtype(xs[0].dtype))
            bound = row.flush_bound_at(values)
            flushed = helpers.flushed(_expected(row, flushed_xs, flushed_values), bound)
            within |= selftest.within_ulps(got, flushed, row.ulps, magnitude)
            # A subnormal result may be written as a zero too (ELU's select passes a
            # subnormal x that a flushed x >= 0 let through).
            within |= selftest.within_ulps(helpers.flushed(got), flushed, row.ulps, magnitude)
            expected = np.where(within, got, expected)
        assert within.all(), (got[~within], expected[~within])
        zero = np.asarray(expected, np.float64) == 0
        if row.ulps == 0:  # the sign of a zero is part of the result
            np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(expected[zero]))
    elif xs and row.kind.startswith("ELEMENT_WISE_LOGICAL_"):  # a comparison may flush a subnormal
        flushed = _expected(row, [helpers.flushed(x) for x in xs], values)
        same = (got == expected) | (got == flushed)
        assert same.all(), (got[~same], expected[~same])
    else:
        np.testing.assert_array_equal(got, expected)


def _attribute_values(row: ElementWise, dtype: np.dtype[Any]) -> st.SearchStrategy[Any]:
    """Values of the row's attributes: a float32 for a C FLOAT (any float for a float
    tensor, no NaN for an integer one), a value of the tensor's dtype for a scalar union."""
    if not row.attributes:
        return st.just(())
    floating = bool(jnp.issubdtype(dtype, jnp.floating))
    if row.attributes[0] in element_wise.ENUM_ATTRIBUTES:  # a member or its name
        members = list(element_wise.ENUM_ATTRIBUTES[row.attributes[0]])
        return st.tuples(st.sampled_from(members + [m.function_name for m in members]))
    if "min_max_data_type" in row.shape.__dataclass_fields__:
        one = _values(dtype)
    else:
        one = st.floats(width=32, allow_nan=floating) | st.sampled_from([2.5, -2.5, 0.5, 1e10])
    return st.tuples(*(one.filter(lambda v: _readable(row, v, dtype)) for _ in row.attributes))


def _readable(row: ElementWise, value: Any, dtype: np.dtype[Any]) -> bool:
    """Whether the row takes ``value`` (CELU refuses an alpha of 0: it divides by it)."""
    try:
        row.constants((value,) * len(row.attributes), dtype, op="test")
    except dml.errors.InvalidArgumentError:
        return False
    return True


# Rows by name: hypothesis prints a strategy's arguments in its notes, and the rows
# themselves print as every field of every row.
FACED = tuple(row.kind for row in ROWS if not row.served_by)


@st.composite
def _case(
    draw: st.DrawFn, names: Sequence[str] = FACED
) -> tuple[ElementWise, tuple[np.ndarray, ...], tuple[Any, ...]]:
    row = BY_NAME[draw(st.sampled_from(names))]
    dtype = draw(st.sampled_from(_jax_dtypes(row)))
    # An input apart (IF's condition, POW's exponent) in any dtype of its field's.
    dtypes = [
        draw(st.sampled_from(sorted(_small(row.field_dtypes(i)), key=str)))
        if i in row.apart
        else dtype
        for i in range(row.arity)
    ]
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=3)))
    arrays = [draw(hnp.arrays(dtypes[0], shape, elements=_values(dtypes[0])))]
    for other_dtype in dtypes[1:]:  # the other operands the same shape, or broadcast
        other = shape[draw(st.integers(0, len(shape))) :]
        other = tuple(1 if draw(st.booleans()) else s for s in other)
        arrays.append(draw(hnp.arrays(other_dtype, other, elements=_values(other_dtype))))
    return row, tuple(arrays), draw(_attribute_values(row, dtype))


def _small(dtypes: frozenset[np.dtype[Any]]) -> list[np.dtype[Any]]:
    """The dtypes JAX holds without x64."""
    return [t for t in dtypes if t.itemsize < 8]


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(_case())
def test_the_face_matches_the_reference_on_every_value(case):
    row, xs, values = case
    function = element_wise.FUNCTIONS[row.face]
    expected = _expected(row, xs, values)
    _assert_matches(row, function(*xs, *values), expected, xs, values)
    jitted = jax.jit(function, static_argnums=tuple(range(len(xs), len(xs) + len(values))))
    _assert_matches(row, jitted(*xs, *values), expected, xs, values)


def _strided_desc(
    row: ElementWise, xs: tuple[np.ndarray, ...], out_shape: tuple[int, ...], values: Any = ()
) -> Any:
    """The row's desc for ``xs``, each input read at the output's sizes with zero strides
    where it broadcasts (as DirectML broadcasts), at rank 4 at least."""
    rank = max(4, len(out_shape))
    sizes = (1,) * (rank - len(out_shape)) + out_shape
    fields = [f for f in row.shape.__dataclass_fields__ if f.endswith("_tensor")]
    tensors = {}
    for field, x in zip(fields, xs, strict=False):  # each of its own type (IF's condition)
        aligned = (1,) * (rank - x.ndim) + x.shape
        packed = [int(np.prod(aligned[d + 1 :])) for d in range(rank)]
        strides = tuple(0 if a != s else p for a, s, p in zip(aligned, sizes, packed, strict=True))
        tensors[field] = dml.TensorDesc(
            data_type=T.from_dtype(x.dtype), sizes=sizes, strides=strides
        )
    shared = xs[row.first_shared].dtype
    out_type = T.from_dtype(row.output_dtype(shared))  # a test's: UINT8
    tensors[row.output_field] = dml.TensorDesc(data_type=out_type, sizes=sizes)
    data_type = T.from_dtype(shared)
    attributes = checking.attributes_of(row, data_type, values)
    return element_wise.DESCS[row.kind](**tensors, **attributes)


@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(_case(tuple(BY_NAME)))
def test_the_desc_face_reads_broadcast_inputs_through_zero_strides(case):
    row, xs, values = case
    if any(jnp.dtype(x.dtype) == jnp.bfloat16 for x in xs):
        return  # DirectML has no bfloat16
    expected = _expected(row, xs, values)
    desc = _strided_desc(row, xs, expected.shape, values)
    compiled = dml.compile_operator(desc)
    # Each strided input is the buffer its strides walk: the array as it is, flattened, and
    # padded to its tensor's total size (DirectML rounds a buffer up to 4 bytes).
    tensors = [t for _, t in contract.bound_tensors(desc, contract.Role.INPUT)]
    buffers = [
        np.pad(np.ravel(x), (0, t.total_tensor_size_in_bytes // x.itemsize - x.size))
        for x, t in zip(xs, tensors, strict=True)
    ]
    got = compiled(*buffers)
    _assert_matches(row, np.asarray(got).reshape(expected.shape), expected, xs, values)


@pytest.mark.parametrize("name", ["ELEMENT_WISE_IDENTITY", "ELEMENT_WISE_ABS"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_scale_bias_applies_to_the_input_first_in_float32(name, dtype):
    row = BY_NAME[name]
    x = np.array([-3.0, -0.5, 0.0, 0.1, 2.5, 1000.0], dtype)
    tensor = dml.TensorDesc(data_type=T.from_dtype(np.dtype(dtype)), sizes=x.shape)
    desc = element_wise.DESCS[name](
        input_tensor=tensor, output_tensor=tensor, scale_bias=dml.ScaleBias(0.1, -0.25)
    )
    # x * scale + bias in float32: a multiply then an add, or one fused multiply-add (XLA
    # contracts them where the backend has one, as a GPU's shader does).
    wide = x.astype(np.float32)
    separate = (wide * np.float32(0.1) + np.float32(-0.25)).astype(dtype)
    fused = (wide.astype(np.float64) * np.float32(0.1) - 0.25).astype(np.float32).astype(dtype)
    got = np.asarray(dml.compile_operator(desc)(x))
    either = selftest.within_ulps(got, row.reference(separate), 0) | selftest.within_ulps(
        got, row.reference(fused), 0
    )
    assert either.all(), (got, row.reference(separate), row.reference(fused))


@pytest.mark.parametrize("bias", [0.0, -0.0])
def test_a_zero_bias_adds_as_ieee_adds_under_jit(bias):
    # -0.0 * 2 + 0.0 is 0.0 and -0.0 * 2 + -0.0 is -0.0; XLA deletes an added 0.0.
    tensor = dml.TensorDesc(data_type=T.FLOAT32, sizes=(3,))
    desc = dml.ElementWiseRecipOperatorDesc(
        input_tensor=tensor, output_tensor=tensor, scale_bias=dml.ScaleBias(2.0, bias)
    )
    got = np.asarray(jax.jit(dml.compile_operator(desc))(jnp.array([-0.0, 0.0, 0.25])))
    sign = -1.0 if np.signbit(bias) else 1.0
    np.testing.assert_array_equal(got, [sign * np.inf, np.inf, 2.0])


def test_max_and_min_ignore_a_nan_operand_and_mean_never_forms_the_sum():
    nan = jnp.float32(jnp.nan)
    a, b = jnp.array([nan, 1.0, nan, -0.0]), jnp.array([2.0, nan, nan, 0.0])
    for function in (dml.maximum, jax.jit(dml.maximum)):
        np.testing.assert_array_equal(function(a, b), [2.0, 1.0, np.nan, 0.0])
        assert not np.signbit(function(a, b)[3])
    np.testing.assert_array_equal(dml.minimum(a, b), [2.0, 1.0, np.nan, -0.0])
    assert np.signbit(dml.minimum(a, b)[3])
    big = np.array([2147483647, -2147483648, -2147483648, -3], np.int32)
    other = np.array([2147483647, -2147483648, 2147483647, 0], np.int32)
    np.testing.assert_array_equal(jax.jit(dml.mean)(big, other), [2147483647, -2147483648, 0, -1])
    np.testing.assert_array_equal(
        dml.mean(np.array([4294967295, 3], np.uint32), np.array([4294967295, 0], np.uint32)),
        [4294967295, 1],
    )


def test_scale_bias_is_coerced_from_its_spellings_and_refused_on_integers():
    tensor = dml.TensorDesc(data_type=T.INT32, sizes=(2,))
    desc: Any = dml.ElementWiseAbsOperatorDesc  # called with loose spellings, as JSON gives
    assert desc(input_tensor=tensor, output_tensor=tensor, scale_bias=(2, 1)).scale_bias == (
        dml.ScaleBias(2.0, 1.0)
    )
    assert desc(input_tensor=tensor, output_tensor=tensor, scale_bias={"Scale": 3}).scale_bias == (
        dml.ScaleBias(3.0, 0.0)
    )
    identity = desc(input_tensor=tensor, output_tensor=tensor, scale_bias=dml.ScaleBias())
    np.testing.assert_array_equal(
        dml.compile_operator(identity)(np.array([-2, 3], np.int32)), [2, 3]
    )
    helpers.refused(
        lambda: dml.compile_operator(
            desc(input_tensor=tensor, output_tensor=tensor, scale_bias=(2, 0))
        ),
        field="scale_bias",
        match="INT32",
    )
    helpers.refused(
        lambda: desc(input_tensor=tensor, output_tensor=tensor, scale_bias="twice"),
        field="scale_bias",
        match="ScaleBias",
        error=dml.errors.ArgumentTypeError,
    )
    helpers.refused(
        lambda: desc(input_tensor=tensor, output_tensor=tensor, scale_bias=("a", 1)),
        field="scale_bias.scale",
        match="scale",
    )


F32_2x3 = dml.TensorDesc(data_type=T.FLOAT32, sizes=(2, 3))


@pytest.mark.parametrize(
    ("b_tensor", "output_tensor", "field", "match"),
    [
        (dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 3)), F32_2x3, "b_tensor.sizes",
         r"\(2, 3\)"),
        (dml.TensorDesc(data_type=T.INT32, sizes=(2, 3)), F32_2x3, "b_tensor.data_type", "INT32"),
        (F32_2x3, dml.TensorDesc(data_type=T.FLOAT32, sizes=(3, 2)), "output_tensor.sizes",
         "a_tensor"),
    ],
)  # fmt: skip
def test_binary_descs_need_one_size_and_one_data_type(b_tensor, output_tensor, field, match):
    desc = dml.ElementWiseAddOperatorDesc(
        a_tensor=F32_2x3, b_tensor=b_tensor, output_tensor=output_tensor
    )
    helpers.refused(lambda: dml.compile_operator(desc), field=field, match=match)


def test_integer_division_is_defined_for_every_divisor():
    for dtype in (np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32):
        info = np.iinfo(dtype)
        values = np.array([info.min, info.max, 7, 0], dtype)
        a = np.repeat(values, 4)
        b = np.tile(np.array([0, 1, 3, info.max], dtype), 4)
        if info.min < 0:
            b[::4] = np.array(-1, dtype)
        np.testing.assert_array_equal(
            dml.divide(a, b), element_wise._reference_divide(a, b), err_msg=str(dtype)
        )
    assert int(dml.divide(np.int32(-(2**31)), np.int32(-1))) == -(2**31)
    assert int(dml.divide(np.uint32(5), np.uint32(0))) == 2**32 - 1
    assert int(dml.divide(np.int8(5), np.int8(0))) == -1


def test_the_binary_faces_broadcast_and_keep_one_dtype():
    a = jnp.arange(6, dtype=jnp.float16).reshape(2, 3)
    assert dml.add(a, 1.5).dtype == jnp.float16
    assert dml.multiply(2, jnp.arange(3, dtype=jnp.uint8)).dtype == jnp.uint8
    np.testing.assert_array_equal(dml.subtract(a, a[0]), np.asarray(a) - np.asarray(a)[0])
    helpers.refused(
        lambda: dml.add(a, jnp.ones(3, jnp.float32)),
        field="b",
        match="float16.*float32",
        op="dmljax.add",
    )
    helpers.refused(lambda: dml.add(a, jnp.ones(4, jnp.float16)), field="b", match="broadcast")
    helpers.refused(lambda: dml.negative(jnp.ones(2, jnp.uint8)), field="x", match="uint8")
    helpers.refused(lambda: dml.abs(jnp.ones(2, bool)), field="x", match="bool")


def test_a_broadcast_face_call_is_a_graph_node_with_zero_strides():
    g = dml.GraphBuilder()
    a = g.input(dml.TensorDesc(data_type=T.FLOAT32, sizes=(2, 3)))
    b = g.input(dml.TensorDesc(data_type=T.FLOAT32, sizes=(3,)))
    out = g.divide(g.add(a, b), b)
    graph = g.build([out])
    add_desc: Any = graph.nodes[0].operator  # pyright: ignore[reportAttributeAccessIssue]
    assert add_desc.b_tensor.sizes == (2, 3)
    assert add_desc.b_tensor.strides == (0, 1)
    x, y = np.arange(6.0, dtype=np.float32).reshape(2, 3), np.array([1.0, 2.0, 4.0], np.float32)
    (got,) = g.compile([out])(x, y)
    np.testing.assert_array_equal(got, (x + y) / y)


def test_the_names_module_is_written_from_the_rows():
    written = (ROOT / family_names.MODULE).read_text()
    assert written == family_names.render(), "stale: run python docs/generate.py"
    for row in ROWS:
        assert getattr(dml, row.face) is element_wise.FUNCTIONS[row.face]
        assert getattr(dml, row.desc_name) is element_wise.DESCS[row.kind]


# Each activation's attributes in the bound test: the typical ones and others.
_PARAMETERIZED = {
    "ACTIVATION_ELU": [(1.0,), (0.01,), (2.5,)],
    "ACTIVATION_CELU": [(1.0,), (0.01,), (2.5,)],
    "ACTIVATION_SCALED_ELU": [(1.6732632, 1.050701), (0.01, 2.5), (2.5, 0.3)],
    "ACTIVATION_SCALED_TANH": [(1.0, 0.5), (2.5, -2.0), (0.3, 0.01)],
    "ACTIVATION_LINEAR": [(0.01, -0.5), (1.7, 3.3), (-3e-5, 1e-3)],
    "ACTIVATION_HARD_SIGMOID": [(0.2, 0.5), (1 / 6, 0.5), (-0.01, 0.37)],
    "ACTIVATION_HARD_SWISH": [(1 / 6, 0.5), (0.2, 0.5), (-0.01, 0.37)],
    "ACTIVATION_SWISH": [(1.0,), (1.702,), (-2.0,), (0.01,)],
    "ACTIVATION_SOFTPLUS": [(1.0,), (3.7,), (1e6,)],
    "ACTIVATION_PARAMETRIC_SOFTPLUS": [(1.0, 1.0), (2.0, -0.3), (3.0, 0.01), (0.5, 2.0)],
    "ELEMENT_WISE_CONSTANT_POW": [(2.0,), (0.5,), (-1.5,), (3.0,), (1 / 3,), (7.25,), (-11.0,)],
}


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.float32], ids=str)
@pytest.mark.parametrize("name", sorted(_PARAMETERIZED))
def test_the_parameterized_rows_meet_their_stated_bound_against_float64(name, dtype):
    # Every finite 16-bit value, and 2**20 float32 ones over [-90, 0] (the exponential's
    # range; x >= 0 is x itself, or one product), fewer over [0, 90], 2**18 over [-4, 4]
    # (where tanh is not yet 1), and every power of two down to the subnormals: 1 ulp for
    # the 16-bit types, which compute in float32 and round once, and the row's ulps for
    # float32 (expm1's 5 or tanh's 6, and the attributes' products).
    row, function = BY_NAME[name], element_wise.FUNCTIONS[BY_NAME[name].face]
    if np.dtype(dtype).itemsize == 2:
        x = np.arange(2**16, dtype=np.uint16).view(dtype)
        with np.errstate(invalid="ignore"):  # bfloat16's NaNs, left out
            x = helpers.flushed(x[np.isfinite(x.astype(np.float64))])  # the flush rule
        bound = 1
    else:
        x = -np.linspace(0, 90, 2**20, dtype=np.float32)
        tiny = np.ldexp(-1.0, -np.arange(150)).astype(np.float32)
        x = np.concatenate([x, tiny, -x[::7], np.linspace(-4, 4, 2**18, dtype=np.float32)])
        bound = row.ulps
    for values in _PARAMETERIZED[name]:
        got, want = np.asarray(function(x, *values)), row.reference(x, *values)
        magnitude = row.magnitude(x, *values) if row.magnitude else None  # LINEAR's terms
        within = selftest.within_ulps(got, want, bound, magnitude)
        # The values not within: their reference again with the flush rule (computed for
        # those only, the reference being most of the test's time).
        off = ~within
        x_off, got_off, want_off = x[off], got[off], want[off]
        magnitude_off = None if magnitude is None else magnitude[off]
        flush = row.flush_bound_at(values)  # subnormal results (SCALED_ELU's intermediate)
        flushed = selftest.within_ulps(got_off, helpers.flushed(want_off, flush), bound,
                                       magnitude_off)  # fmt: skip
        # Subnormal inputs read as zeros, subnormal results written as zeros (XLA:CPU
        # compares a flushed x >= 0 and then selects x's own bits).
        flushed_want = helpers.flushed(row.reference(helpers.flushed(x_off), *values), flush)
        flushed |= selftest.within_ulps(helpers.flushed(got_off), flushed_want, bound,
                                        magnitude_off)  # fmt: skip
        within[off] = flushed
        assert within.all(), (values, x[~within][:5], got[~within][:5], want[~within][:5])


def test_constant_pow_is_jnp_pow_of_a_float32_exponent():
    x = np.concatenate([np.linspace(-30, 30, 2**12, dtype=np.float32), [-0.0, np.nan, -np.inf]])
    for exponent in (2.0, 0.5, -1.5, 3.0, 1 / 3, -11.0, float("nan")):
        got = np.asarray(dml.constant_pow(x, exponent))
        want = np.asarray(jax.jit(lambda x, e=exponent: jnp.pow(x, np.float32(e)))(x))
        np.testing.assert_array_equal(got, want)  # a NaN's sign bit is the backend's
        np.testing.assert_array_equal(np.signbit(got[got == 0]), np.signbit(want[want == 0]))


@pytest.mark.parametrize("dtype", [np.float32, jnp.bfloat16], ids=str)
def test_log_reads_a_subnormal_as_a_zero_wherever_it_lies(dtype):
    # XLA:CPU's float32 log gave log(2**-150) for a subnormal in a loop's scalar tail
    # (jax 0.10.2: jnp.log of [1, 1, 3e-39] ends in -103.97) and -inf in its vector body.
    for size in range(1, 10):
        x = np.ones(size, dtype)
        x[-1] = 2.938736e-39
        assert np.asarray(dml.log(jnp.asarray(x)))[-1] == -np.inf, size
        assert np.asarray(dml.log(jnp.asarray(-x)))[-1] == -np.inf, size  # log(-0.0)


def test_pow_takes_an_exponent_of_its_own_type_from_fl_3_0():
    x = np.array([2.0, -2.0, 0.5, -1.0], np.float32).reshape(1, 1, 2, 2)
    e = np.array([3, 3, -2, 16777217], np.int32).reshape(1, 1, 2, 2)
    t, exponent = dml.TensorDesc.from_array(x), dml.TensorDesc.from_array(e)
    desc = dml.ElementWisePowOperatorDesc(input_tensor=t, exponent_tensor=exponent, output_tensor=t)
    half = dataclasses.replace(
        desc, exponent_tensor=dataclasses.replace(exponent, data_type=T.FLOAT16)
    )
    for spoiled, match in ((desc, "one of FLOAT32, FLOAT16"), (half, "until FL_3_0")):
        helpers.refused(
            lambda d=spoiled: dml.compile_operator(d, feature_level=dml.FeatureLevel.FL_2_1),
            field="exponent_tensor.data_type",
            match=match,
        )
    # (-1) ** (2**24 + 1) is -1: the parity is the integer's, which float32 cannot hold.
    want = np.array([8.0, -8.0, 4.0, -1.0], np.float32).reshape(x.shape)
    np.testing.assert_array_equal(dml.compile_operator(desc)(x, e), want)
    np.testing.assert_array_equal(dml.pow(x, e), want)


def test_where_takes_a_uint8_or_bool_condition_only():
    a, b = np.array([1.0, 2.0], np.float32), np.array([-1.0, -2.0], np.float32)
    want = np.array([1.0, -2.0], np.float32)
    np.testing.assert_array_equal(dml.where(np.array([7, 0], np.uint8), a, b), want)
    np.testing.assert_array_equal(dml.where(np.array([True, False]), a, b), want)
    np.testing.assert_array_equal(dml.where(np.array([True, False]), a, 5.0), [1.0, 5.0])
    truth = np.array([1, 0], np.uint8)
    helpers.refused(lambda: dml.where(truth.astype(np.float32), a, b), field="condition",
                    match="uint8")  # fmt: skip
    helpers.refused(lambda: dml.where(truth, a, b.astype(np.float16)), field="b",
                    match="float32")  # fmt: skip


def test_relu_grad_is_the_pullback_of_jax_nn_relu():
    # (Not at subnormal x: the family's rule lets a backend read them as zeros.)
    x = np.array([np.nan, 0.0, -0.0, 2.0, -1.0, np.inf, 2e-38], np.float32)
    dy = np.array([5.0, 5.0, 5.0, -0.0, 5.0, np.nan, 3.0], np.float32)
    want = np.asarray(jax.vjp(jax.nn.relu, x)[1](dy)[0])
    got = np.asarray(dml.relu_grad(x, dy))
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_clip_grad_is_the_pullback_of_dml_clip_off_its_bounds():
    # At a bound jax's pullback gives half the gradient (a tie of max or min); DirectML 0.
    x = np.array([-3.0, -1.0, 0.5, 1.5, 4.0, -0.0], np.float32)
    dy = np.array([5.0, -6.0, 7.0, 8.0, 9.0, -0.0], np.float32)
    want = np.asarray(jax.vjp(lambda v: dml.clip(v, -2.0, 2.0), x)[1](dy)[0])
    np.testing.assert_array_equal(dml.clip_grad(x, dy, -2.0, 2.0), want)
    at = np.array([-2.0, 2.0], np.float32)
    np.testing.assert_array_equal(dml.clip_grad(at, np.ones_like(at), -2.0, 2.0), [0.0, 0.0])


@pytest.mark.parametrize("steepness", [0.5, 0.0, -1.0, float("nan")])
def test_softplus_refuses_a_steepness_below_1(steepness):
    x = jnp.linspace(-2.0, 2.0, 5)
    helpers.refused(lambda: dml.softplus(x, steepness), field="steepness", match="at least 1")


def test_softplus_and_swish_are_jax_nn_s_at_their_defaults():
    x = np.linspace(-120, 120, 2**16, dtype=np.float32)
    for face, namesake in ((dml.softplus, jax.nn.softplus), (dml.swish, jax.nn.swish)):
        got, want = np.asarray(face(x)), np.asarray(namesake(x))
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_selu_is_jax_nn_selu_at_its_defaults():
    x = np.concatenate([np.linspace(-90, 90, 2**16, dtype=np.float32), [-0.0, np.nan, np.inf]])
    x = x.astype(np.float32)
    got, want = np.asarray(dml.selu(x)), np.asarray(jax.nn.selu(x))
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))  # -0.0's sign


def test_keywords_and_defaults_bind_as_positions_do_without_inspect(monkeypatch):
    # inspect.Signature.bind takes about as long as the call (9 us); only a malformed
    # call, for Python's message, reaches it.
    x = jnp.linspace(-2.0, 2.0, 5)
    rows = [r for r in ROWS if r.attributes and len(r.defaults) == len(r.attributes)]
    expected = [getattr(dml, row.face)(x, *row.defaults) for row in rows]
    monkeypatch.setattr(inspect.Signature, "bind", None)
    for row, want in zip(rows, expected, strict=True):
        face, named = getattr(dml, row.face), dict(zip(row.attributes, row.defaults, strict=True))
        for got in (face(x), face(x=x), face(x, **named), face(**named, x=x)):
            np.testing.assert_array_equal(got, want)
    monkeypatch.undo()
    for call, message in [
        (lambda: dml.elu(), "missing a required argument: 'x'"),
        (lambda: dml.elu(x, 1.0, 2.0), "too many positional arguments"),
        (lambda: dml.elu(x, beta=1.0), "got an unexpected keyword argument 'beta'"),
        (lambda: dml.elu(x, x=x), "multiple values for argument 'x'"),
        (lambda: dml.elu(x, 0.5, alpha=1.0), "multiple values for argument 'alpha'"),
    ]:
        with pytest.raises(TypeError, match=re.escape(f"dmljax.elu(): {message}")):
            call()


@pytest.mark.parametrize("alpha", [0.0, -0.0, float("nan"), 1e-45, -1e-40, float("inf"), -1e39])
def test_celu_refuses_an_alpha_it_cannot_divide_by(alpha):
    # A float32 subnormal alpha reads as 0 where the device flushes subnormals: the
    # quotient x / alpha would then be infinite or NaN depending on the machine.
    x = jnp.linspace(-2.0, 2.0, 5, dtype=jnp.float16)
    helpers.refused(lambda: dml.celu(x, alpha), field="alpha", match="normal float32")
    t = dml.TensorDesc(data_type=T.FLOAT16, sizes=(5,))
    desc = dml.ActivationCeluOperatorDesc(input_tensor=t, output_tensor=t, alpha=alpha)
    helpers.refused(lambda: dml.compile_operator(desc), field="alpha", match="normal float32")
    assert np.isfinite(np.asarray(dml.celu(x, float(np.finfo(np.float32).tiny)))).all()


ROUNDING = [row.kind for row in ROWS if not row.exact and not row.attributes]


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.float32], ids=str)
@pytest.mark.parametrize("name", ROUNDING)
def test_each_function_that_rounds_meets_its_stated_bound_against_float64(name, dtype):
    # Every finite 16-bit value; for float32, 3 * 2**16 values: random bit patterns (every
    # magnitude), and uniform over [-1e4, 1e4] and [-4, 4]. Each result within the row's
    # ulps of the float64 result rounded to the type, or one that flushes (the family's
    # rule, to flush_bound smallest normals).
    row, function = BY_NAME[name], element_wise.FUNCTIONS[BY_NAME[name].face]
    if np.dtype(dtype).itemsize == 2:
        x = np.arange(2**16, dtype=np.uint16).view(dtype)
    else:
        rng = rng_of(row)
        bits = rng.integers(0, 2**32, size=2**16, dtype=np.uint64).astype(np.uint32)
        x = np.concatenate([bits.view(np.float32), rng.uniform(-1e4, 1e4, 2**16).astype(dtype),
                            rng.uniform(-4, 4, 2**16).astype(dtype)])  # fmt: skip
    with np.errstate(invalid="ignore"):  # NaNs, left out
        x = x[np.isfinite(x.astype(np.float64))]
    # A function of two (ATAN_YX): each value against the others in two orders.
    pairs = np.tile(x, 2)
    xs = (x,) if row.arity == 1 else (pairs, pairs[rng_of(row).permutation(pairs.size)])
    got, want = np.asarray(function(*xs)), row.reference(*xs)
    magnitude = row.magnitude(x.astype(np.float64)) if row.magnitude else None  # GELU's
    within = selftest.within_ulps(got, want, row.ulps, magnitude)
    flush = row.flush_bound_at(())
    flushed_want = helpers.flushed(row.reference(*map(helpers.flushed, xs)), flush)
    within |= selftest.within_ulps(got, flushed_want, row.ulps, magnitude)
    within |= selftest.within_ulps(got, helpers.flushed(want, flush), row.ulps, magnitude)
    assert within.all(), ([x[~within][:5] for x in xs], got[~within][:5], want[~within][:5])
    # jax's own function, value for value (widened: NumPy's NaN test lacks bfloat16), in
    # float32 where the row computes 16-bit floats so.
    wide = getattr(row.formula, "in_float32", False) and np.dtype(dtype).itemsize == 2
    # A row without a namesake (GELU): the jax expression the bench times it against.
    namesake = _namesake(row) if row.namesake else checking.jnp_expression(row)
    namesakes = namesake(*(x.astype(np.float32) if wide else x for x in xs))
    with np.errstate(over="ignore"):  # a float32 result beyond float16's range
        namesakes = np.asarray(namesakes).astype(dtype)
    # Where XLA:CPU's own is wrong (row.differs): atan2 of two subnormals, pow and log of
    # one.
    tiny = float(jnp.finfo(dtype).tiny)
    subnormal = [(np.abs(x.astype(np.float64)) < tiny) & (x != 0) for x in xs]
    wrong = {
        "ELEMENT_WISE_ATAN_YX": lambda: np.all(subnormal, axis=0),
        "ELEMENT_WISE_POW": lambda: np.any(subnormal, axis=0),
        "ELEMENT_WISE_LOG": lambda: subnormal[0],
    }.get(row.kind, lambda: np.zeros(got.shape, bool))()
    got, namesakes = got[~wrong], namesakes[~wrong]
    np.testing.assert_array_equal(got.astype(np.float32), namesakes.astype(np.float32))


def rng_of(row: ElementWise) -> np.random.Generator:
    """A generator seeded by the row's name: each row draws its own values, every run the
    same."""
    return np.random.default_rng(sum(map(ord, row.name)))


def _namesake(row: ElementWise) -> Any:
    module = {"jnp": jnp, "jax.nn": jax.nn, "jax.scipy.special": jax.scipy.special}
    return getattr(module[row.namesake_module], row.face)


# Every activation but PARAMETERIZED_RELU and RELU_GRAD, which have tensors of their own.
FUSABLE = [row.kind for row in ROWS if issubclass(row.shape, element_wise.Activation)]


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=str)
@pytest.mark.parametrize("name", FUSABLE)
def test_a_fused_activation_is_the_activation_of_the_sum(name, dtype):
    # ADD1's fused activation (through element_wise.apply_fused_activation) gives what the
    # activation's own face gives on ADD's result, bit for bit.
    row = BY_NAME[name]
    # The face's defaults where it has them all (SOFTPLUS refuses a steepness of 0.5).
    full = len(row.defaults) == len(row.attributes)
    values = row.defaults if full else (0.5,) * len(row.attributes)
    activation = element_wise.DESCS[name](**dict(zip(row.attributes, values, strict=True)))
    a = np.linspace(-4, 4, 24).astype(dtype).reshape(2, 3, 4)
    b = np.linspace(3, -2, 24).astype(dtype).reshape(2, 3, 4)
    t = dml.TensorDesc(data_type=T.from_dtype(np.dtype(dtype)), sizes=a.shape)
    desc = dml.ElementWiseAdd1OperatorDesc(
        a_tensor=t, b_tensor=t, output_tensor=t, fused_activation=activation
    )
    want = element_wise.FUNCTIONS[row.face](dml.add(a, b), *values)
    np.testing.assert_array_equal(dml.compile_operator(desc)(a, b), want)


def test_a_fused_activation_is_refused_where_the_page_refuses_it():
    t = dml.TensorDesc(data_type=T.FLOAT32, sizes=(2,))
    helpers.refused(
        lambda: dml.ElementWiseAdd1OperatorDesc(
            a_tensor=t, b_tensor=t, output_tensor=t,
            fused_activation=dml.ActivationReluOperatorDesc(input_tensor=t),
        ),
        field="fused_activation.input_tensor",
        match="reads and writes the operator's own output",
    )  # fmt: skip
    helpers.refused(
        lambda: dml.ElementWiseAdd1OperatorDesc(
            a_tensor=t, b_tensor=t, output_tensor=t, fused_activation=typing.cast(Any, "relu")
        ),
        field="fused_activation",
        match="an activation desc",
        error=dml.errors.ArgumentTypeError,
    )
    prelu = dml.ActivationParameterizedReluOperatorDesc(
        input_tensor=t, slope_tensor=t, output_tensor=t
    )
    helpers.refused(
        lambda: dml.ElementWiseAdd1OperatorDesc(
            a_tensor=t, b_tensor=t, output_tensor=t, fused_activation=typing.cast(Any, prelu)
        ),
        field="fused_activation",
        match="an activation desc",
        error=dml.errors.ArgumentTypeError,
    )
    # Only the activations with tensors of their own are not fusable.
    others = {row.kind for row in ROWS if row.family == "ACTIVATION"} - set(FUSABLE)
    assert others == {"ACTIVATION_PARAMETERIZED_RELU", "ACTIVATION_RELU_GRAD"}
    helpers.refused(
        lambda: dml.compile_operator(dml.ActivationReluOperatorDesc()),
        field="input_tensor",
        match="only a fused activation has none",
    )


# Every row whose output can take its first input's buffer: all but the tests (their
# output is UINT8 or UINT32) and IF (its first input is the UINT8 condition).
IN_PLACE = [row.kind for row in ROWS if not row.uint_output and row.first_shared == 0]


@pytest.mark.parametrize("name", IN_PLACE)
def test_a_row_runs_in_place_on_its_first_input(name):
    # The pages let the output alias an input; compile_operator's donate_input gives the
    # first input's buffer to the result, which XLA then writes in place.
    row = BY_NAME[name]
    table = checking.DOCUMENTED_SUPPORT[name]
    data_type = helpers.support_data_type(table[max(table)])  # FLOAT32 where it has it
    case = checking.CHECKS[ROWS.index(row)].support_case
    assert case is not None
    desc, inputs = case(4, data_type, data_type)  # POW's exponent of the data's type
    want = dml.compile_operator(desc)(*inputs)
    first = jnp.asarray(inputs[0])
    got = dml.compile_operator(desc, donate_input=True)(first, *inputs[1:])
    np.testing.assert_array_equal(got, want)
    assert first.is_deleted()
