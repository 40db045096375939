"""QUANTIZE_LINEAR, DEQUANTIZE_LINEAR and QUANTIZED_LINEAR_ADD: what is specific to them.

Their values against the NumPy references, bit for bit, over every type the pages allow
and their edges (halves, saturation, NaN and infinities, a zero scale, 32-bit integer
extremes); the rules of the pages on the desc face, the faces' arguments, the optional
zero points, and onnxruntime's QuantizeLinear and DequantizeLinear. The conformance suite
runs the rest (support tables, examples, transformations, sharding) from the declarations.
"""

from __future__ import annotations

import json
import math
from typing import Any

import hypothesis
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st

import dmljax as dml
from dmljax._src.checking.operators import quantize as checking
from tests import descs, helpers

T = dml.DataType
SPECIALS = [np.nan, np.inf, -np.inf, -0.0, 1e-40, 0.5, 1.5, 2.5, -2.5, 127.5, -128.5, 255.5, 3e38]


# Ranks 1 to 8, at most 256 elements.
_shapes = (
    st.lists(st.integers(1, 4), min_size=1, max_size=8)
    .map(tuple)
    .filter(lambda shape: math.prod(shape) <= 256)
)


@st.composite
def _quantize_case(draw: Any) -> tuple[np.ndarray, np.ndarray, Any, Any]:
    dtype = np.dtype(draw(st.sampled_from([np.float32, np.float16, jnp.bfloat16, np.int32])))
    out = np.dtype(draw(st.sampled_from([np.int8, np.uint8])))
    shape = draw(_shapes)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if dtype == np.int32:
        x = rng.integers(-(2**31), 2**31 - 1, size=shape, endpoint=True).astype(dtype)
        x.flat[:2] = [2**31 - 1, -(2**31)][: x.size]
        scale_dtype = np.dtype(np.float32)
    else:
        with np.errstate(over="ignore"):  # 3e38 is inf in float16
            x = (rng.standard_normal(shape) * rng.choice([1, 100, 1000])).astype(dtype)
            picked = rng.random(shape) < 0.3
            x[picked] = rng.choice(SPECIALS, size=int(picked.sum())).astype(dtype)
        scale_dtype = dtype
    with np.errstate(over="ignore"):
        scale = np.asarray(rng.choice([1.0, 0.5, 3.0, -2.0, 1e-3, 0.0, 1e30]), scale_dtype)
    if float(scale) == 0 and dtype != np.int32:
        # The Subnormals rule lets a backend read a subnormal as 0 (XLA:CPU's float32
        # does), which over a zero scale is NaN rather than an infinity.
        tiny = float(jnp.finfo(dtype).tiny)
        x = np.where(np.abs(x.astype(np.float64)) < tiny, 0, x).astype(dtype)
    info = np.iinfo(out)
    zero_point = None if draw(st.booleans()) else np.asarray(rng.integers(info.min, info.max), out)
    return x, scale, zero_point, out


@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(_quantize_case())
def test_quantize_linear_is_the_reference_bit_for_bit(case):
    x, scale, zero_point, out = case
    got = dml.quantize_linear(x, scale, zero_point, dtype=out)
    want = checking.reference_quantize_linear(x, scale, zero_point, out)
    assert got.dtype == out
    with np.errstate(all="ignore"):
        real = x.astype(np.float64) / float(scale)
    # x / scale is x * (1 / scale) where the scale is one value (XLA's rewrite).
    _assert_quantized(np.asarray(got), want, real, rounded_quotient=scale.size == 1)


def _assert_quantized(got: Any, want: Any, real: Any, *, rounded_quotient: bool) -> None:
    """``got`` is ``want``; or, where a step before the rounding may round once more
    (XLA's ``x * (1 / scale)``, a fused multiply-add), 1 away from it where the exact
    quotient ``real`` is a hair from a half, where that decides the rounding."""
    if not rounded_quotient:
        np.testing.assert_array_equal(got, want)
        return
    got, want = np.asarray(got, np.int64), np.asarray(want, np.int64)
    with np.errstate(invalid="ignore"):
        near_half = np.abs(np.abs(real - np.floor(real)) - 0.5) < 1e-6 * np.maximum(1, np.abs(real))
    differ = got != want
    assert np.all(np.abs(got - want)[differ] == 1)
    assert np.all(near_half[differ])


@pytest.mark.parametrize(
    ("x", "want"),
    [
        ([0.5, 1.5, 2.5, -0.5, -1.5], [0, 2, 2, 0, -2]),  # halves to even
        ([np.nan, np.inf, -np.inf, 1e30, -1e30], [-128, 127, -128, 127, -128]),  # NaN is Min
        ([-0.0, 1e-45, 127.49, 127.5, -128.5], [0, 0, 127, 127, -128]),
    ],
)
def test_quantize_linear_edges(x, want):
    np.testing.assert_array_equal(
        dml.quantize_linear(np.array(x, np.float32), 1.0, np.int8(0)), want
    )


def test_a_zero_scale_is_ieee_s_quotient_quantized():
    # The page leaves it undefined: x / 0 is +-inf (saturating) or NaN (Min).
    x = np.array([3.0, -3.0, 0.0], np.float32)
    np.testing.assert_array_equal(dml.quantize_linear(x, 0.0, np.uint8(5)), [255, 0, 0])


def test_int32_inputs_convert_to_float32_first():
    # 2**24 + 1 is 2**24 in float32: over a scale of 2**18 it is 64, not 64.000004.
    x = np.array([2**24 + 1, 2**31 - 1], np.int32)
    np.testing.assert_array_equal(dml.quantize_linear(x, np.float32(2**18), np.int8(0)), [64, 127])


@st.composite
def _dequantize_case(draw: Any) -> tuple[np.ndarray, np.ndarray, Any]:
    dtype = np.dtype(
        draw(st.sampled_from([np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32]))
    )
    info = np.iinfo(dtype)
    shape = draw(_shapes)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    q = rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    q.flat[:2] = [info.max, info.min][: q.size]
    scale_dtype = draw(st.sampled_from([np.float32, np.float16]))
    scale = (rng.standard_normal(shape) * 10).astype(scale_dtype)
    zero_point = None
    if draw(st.booleans()):
        zero_point = np.asarray(draw(st.sampled_from([info.min, info.max, 0, 7])), dtype)
    return q, scale, zero_point


@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(_dequantize_case())
def test_dequantize_linear_is_the_reference_bit_for_bit(case):
    q, scale, zero_point = case
    got = np.asarray(dml.dequantize_linear(q, scale, zero_point))
    want = checking.reference_dequantize_linear(q, scale, zero_point)
    assert got.dtype == scale.dtype
    np.testing.assert_array_equal(got, want)


def test_dequantize_linear_of_32_bit_extremes_is_the_nearest_float():
    # 4294967295 - 0 and 0 - 4294967295 are beyond int32: the nearest float32 of each.
    q = np.array([2**32 - 1, 0], np.uint32)
    want = [np.float32(2**32 - 1), np.float32(-(2**32 - 1))]
    got = dml.dequantize_linear(q, np.float32(1), np.array([0, 2**32 - 1], np.uint32))
    np.testing.assert_array_equal(got, want)
    i = np.array([2**31 - 1, -(2**31)], np.int32)
    got = dml.dequantize_linear(i, np.float32(1), np.array([-(2**31), 2**31 - 1], np.int32))
    np.testing.assert_array_equal(got, [np.float32(2**32 - 1), np.float32(-(2**32 - 1))])


@hypothesis.settings(max_examples=150, deadline=None)
@hypothesis.given(
    st.sampled_from([np.int8, np.uint8]),
    st.sampled_from([np.int8, np.uint8]),
    st.sampled_from([np.int8, np.uint8]),
    st.integers(0, 2**32 - 1),
)
def test_quantized_linear_add_is_the_reference_bit_for_bit(a_type, b_type, out, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 4, size=rng.integers(1, 9)))  # ranks 1 to 8
    a = rng.integers(-128, 256, size=shape).astype(a_type)
    b = rng.integers(-128, 256, size=shape).astype(b_type)
    scales = [np.float32(rng.choice([0.01, 0.5, 2.0, 0.125])) for _ in range(3)]
    points = [
        None if rng.random() < 0.3 else np.asarray(rng.integers(-128, 256), t).astype(t)
        for t in (a_type, b_type, out)
    ]
    args = (a, scales[0], points[0], b, scales[1], points[1], scales[2], points[2])
    got = dml.quantized_linear_add(*args, dtype=out)
    want = checking.reference_quantized_linear_add(*args, out)
    # The page's float32 steps, up to the backend's fused multiply-add (XLA:CPU contracts
    # a * s + b * t).
    real = sum(
        (q.astype(np.float64) - (0 if z is None else float(z))) * float(s)
        for q, z, s in ((a, points[0], scales[0]), (b, points[1], scales[1]))
    ) / float(scales[2])
    _assert_quantized(got, want, real, rounded_quotient=True)


# --- The desc face: optional zero points, the rules ------------------------------------------


def _tensor(data_type: Any, sizes: tuple[int, ...] = (2, 3)) -> dml.TensorDesc:
    return dml.TensorDesc(data_type=data_type, sizes=sizes)


def test_a_zero_point_left_out_is_0_from_feature_level_6_2():
    desc = dml.ElementWiseQuantizeLinearOperatorDesc(
        input_tensor=_tensor(T.FLOAT32), scale_tensor=_tensor(T.FLOAT32),
        output_tensor=_tensor(T.INT8),
    )  # fmt: skip
    x = np.linspace(-200, 200, 6, dtype=np.float32).reshape(2, 3)
    scale = np.full((2, 3), 1.5, np.float32)
    got = dml.compile_operator(desc, feature_level=dml.FeatureLevel.FL_6_2)(x, scale)
    np.testing.assert_array_equal(got, dml.quantize_linear(x, scale, dtype=np.int8))
    with pytest.raises(dml.errors.InvalidArgumentError, match="before FL_6_2") as error:
        dml.compile_operator(desc, feature_level=dml.FeatureLevel.FL_6_1)
    assert error.value.field == "zero_point_tensor"


_QUANTIZE = descs.desc_builder(
    dml.ElementWiseQuantizeLinearOperatorDesc,
    input_sizes=(2, 3), scale_sizes=(2, 3), zero_point_sizes=(2, 3), output_sizes=(2, 3),
    data_type=T.INT8, input_data_type=T.FLOAT32, scale_data_type=T.FLOAT32,
)  # fmt: skip
_DEQUANTIZE = descs.desc_builder(
    dml.ElementWiseDequantizeLinearOperatorDesc,
    input_sizes=(2, 3), scale_sizes=(2, 3), zero_point_sizes=(2, 3), output_sizes=(2, 3),
    data_type=T.UINT8, scale_data_type=T.FLOAT32, output_data_type=T.FLOAT32,
)  # fmt: skip
_ONE = (1, 1)
_ADD = descs.desc_builder(
    dml.ElementWiseQuantizedLinearAddOperatorDesc,
    a_sizes=(2, 3), b_sizes=(2, 3), output_sizes=(2, 3), a_scale_sizes=_ONE,
    b_scale_sizes=_ONE, output_scale_sizes=_ONE, data_type=T.UINT8, a_data_type=T.UINT8,
    b_data_type=T.INT8, a_scale_data_type=T.FLOAT32, b_scale_data_type=T.FLOAT32,
    output_scale_data_type=T.FLOAT32,
)  # fmt: skip

test_quantize_rules_name_the_field = descs.rule_table_test(
    _QUANTIZE,
    [
        ({"scale_data_type": T.FLOAT16}, "scale_tensor.data_type", "FLOAT32"),
        ({"input_data_type": T.INT32, "scale_data_type": T.FLOAT16}, "scale_tensor.data_type",
         "FLOAT32 for an INT32 input"),
        ({"zero_point_data_type": T.UINT8}, "zero_point_tensor.data_type", "INT8"),
        ({"zero_point_sizes": (1, 3)}, "zero_point_tensor.sizes", r"\(2, 3\)"),
        ({"scale_sizes": (2, 1)}, "scale_tensor.sizes", r"\(2, 3\)"),
        ({"output_data_type": T.INT16, "zero_point_data_type": T.INT16},
         "zero_point_tensor.data_type", "INT8"),
        ({"input_data_type": T.UINT8, "scale_data_type": T.UINT8}, "input_tensor.data_type",
         "FLOAT"),
    ],
)  # fmt: skip

test_dequantize_rules_name_the_field = descs.rule_table_test(
    _DEQUANTIZE,
    [
        ({"scale_data_type": T.FLOAT16}, "scale_tensor.data_type", "FLOAT32"),
        ({"zero_point_data_type": T.INT8}, "zero_point_tensor.data_type", "UINT8"),
        ({"scale_sizes": (1, 3)}, "scale_tensor.sizes", r"\(2, 3\)"),
        ({"data_type": T.FLOAT32}, "input_tensor.data_type", "INT"),
    ],
)

test_quantized_add_rules_name_the_field = descs.rule_table_test(
    _ADD,
    [
        ({"a_scale_sizes": (1, 2)}, "a_scale_tensor.sizes", "one element"),
        ({"output_scale_sizes": (2, 3)}, "output_scale_tensor.sizes", "one element"),
        ({"a_zero_point_sizes": _ONE, "a_zero_point_data_type": T.INT8},
         "a_zero_point_tensor.data_type", "UINT8"),
        ({"b_zero_point_sizes": _ONE, "b_zero_point_data_type": T.UINT8},
         "b_zero_point_tensor.data_type", "INT8"),
        ({"b_sizes": (2, 2)}, "b_tensor.sizes", r"\(2, 3\)"),
        ({"a_scale_data_type": T.FLOAT16}, "a_scale_tensor.data_type", "FLOAT32"),
    ],
)  # fmt: skip


# --- The faces' arguments -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "field", "fragment"),
    [
        (lambda: dml.quantize_linear(np.ones(2, np.float32), np.float16(1)), "scale", "float32"),
        (lambda: dml.quantize_linear(np.ones(2, np.int16), 1.0), "x", "int32"),
        (lambda: dml.quantize_linear(np.ones(2), 1.0, np.int8(0), dtype=np.uint8), "zero_point",
         "uint8"),
        (lambda: dml.quantize_linear(np.ones(2), 1.0, dtype=np.int16), "dtype", "int8 or uint8"),
        (lambda: dml.quantize_linear(np.ones(2), np.ones(3, np.float32)), "scale", "broadcast"),
        (lambda: dml.dequantize_linear(np.ones(2, np.float32), 1.0), "x", "int"),
        (lambda: dml.dequantize_linear(np.ones(2, np.uint8), 1.0, np.int8(0)), "zero_point",
         "uint8"),
        (lambda: dml.dequantize_linear(np.ones(2, np.uint8), np.int32(1)), "scale", "float"),
        (lambda: dml.quantized_linear_add(np.ones(2, np.uint8), np.ones(2, np.float32), None,
                                          np.ones(2, np.uint8), 1.0, None, 1.0),
         "a_scale", "one value"),
        (lambda: dml.quantized_linear_add(np.ones(2, np.int16), 1.0, None, np.ones(2, np.uint8),
                                          1.0, None, 1.0), "a", "int8"),
        # JAX arrays take the faces' fast path, which passes a None on to jit's trace.
        (lambda: dml.quantized_linear_add(jnp.ones(2, jnp.uint8), None, None,  # pyright: ignore[reportArgumentType]
                                          jnp.ones(2, jnp.uint8), jnp.float32(1), None,
                                          jnp.float32(1)), "a_scale", "an array or a scalar"),
    ],
)  # fmt: skip
def test_the_faces_refuse_bad_arguments_naming_them(call, field, fragment):
    with pytest.raises(dml.errors.ArgumentError, match=fragment) as error:
        call()
    assert error.value.field == field


def test_python_numbers_take_the_dtypes_they_stand_for():
    x = np.array([1.0, 2.0], np.float16)
    assert dml.quantize_linear(x, 0.5).dtype == np.uint8  # ONNX's default
    assert dml.quantize_linear(x, 0.5, 3, dtype=np.int8).dtype == np.int8
    np.testing.assert_array_equal(dml.quantize_linear(x, 0.5, 3, dtype=np.int8), [5, 7])
    assert dml.dequantize_linear(np.array([1], np.int16), 0.5, 1).dtype == np.float32


# --- DxDispatch and onnxruntime ------------------------------------------------------------------


def test_a_dxdispatch_model_may_leave_the_zero_point_out():
    model = json.dumps({
        "resources": {
            "x": {"initialValuesDataType": "FLOAT32", "initialValues": [-1, 0.5, 1.5, 400]},
            "s": {"initialValuesDataType": "FLOAT32", "initialValues": [0.5, 0.5, 0.5, 0.5]},
            "y": {"initialValuesDataType": "UINT8", "initialValues": [0, 0, 0, 0]},
        },
        "dispatchables": {"q": {"type": "DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [4]},
            "ScaleTensor": {"DataType": "FLOAT32", "Sizes": [4]},
            "OutputTensor": {"DataType": "UINT8", "Sizes": [4]}}}},
        "commands": [
            {"type": "dispatch", "dispatchable": "q",
             "bindings": {"InputTensor": "x", "ScaleTensor": "s", "OutputTensor": "y"}},
            {"type": "print", "resource": "y"},
        ],
    })  # fmt: skip
    assert dml.load_dxdispatch(model).run() == ["Resource 'y': 0, 1, 3, 255"]


@pytest.mark.parametrize("out", [np.int8, np.uint8])
def test_onnxruntime_quantize_linear_agrees(out):
    # Ordinary values, halves, saturation, infinities and NaN (Min in both). onnxruntime
    # 1.32 has no CPU kernel for an int32 input at opset 13.
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(512) * 200).astype(np.float32)
    x[: len(SPECIALS)] = SPECIALS
    x[-64:] = np.round(x[-64:]) + 0.5
    scale, zero_point = np.float32(1.0), np.asarray(7, out)
    f32 = np.dtype(np.float32)
    session = helpers.onnx_session(
        "QuantizeLinear", 13, (), (f32, f32, np.dtype(out)), np.dtype(out)
    )
    theirs = session.run(None, {"i0": x, "i1": np.asarray(scale), "i2": zero_point})[0]
    np.testing.assert_array_equal(dml.quantize_linear(x, scale, zero_point), theirs)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32])
def test_onnxruntime_dequantize_linear_agrees(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(2)
    q = rng.integers(info.min, info.max, size=512, endpoint=True).astype(dtype)
    # onnxruntime's int32 difference wraps beyond int32 (C++ overflow): keep inside it.
    zero_point = np.asarray(0 if dtype == np.int32 else info.max // 3, dtype)
    scale = np.float32(0.37)
    session = helpers.onnx_session(
        "DequantizeLinear", 13, (), (np.dtype(dtype), np.dtype(np.float32), np.dtype(dtype)),
        np.dtype(np.float32),
    )  # fmt: skip
    theirs = session.run(None, {"i0": q, "i1": np.asarray(scale), "i2": zero_point})[0]
    np.testing.assert_array_equal(dml.dequantize_linear(q, scale, zero_point), theirs)


def test_the_desc_face_reads_a_per_tensor_scale_through_zero_strides():
    # DirectML broadcasts a per-tensor scale and zero point with zero strides: their
    # buffers hold one value (padded to 4 bytes).
    sizes, zero = (1, 1, 2, 3), (0, 0, 0, 0)
    desc = dml.ElementWiseQuantizeLinearOperatorDesc(
        input_tensor=_tensor(T.FLOAT32, sizes),
        scale_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=sizes, strides=zero),
        zero_point_tensor=dml.TensorDesc(data_type=T.UINT8, sizes=sizes, strides=zero),
        output_tensor=_tensor(T.UINT8, sizes),
    )
    x = np.array([-1.0, 0.0, 0.25, 0.75, 20.0, 90.0], np.float32)
    got = dml.compile_operator(desc)(
        x.reshape(sizes), np.array([0.5], np.float32), np.array([100, 0, 0, 0], np.uint8)
    )
    want = dml.quantize_linear(x, np.float32(0.5), np.uint8(100))
    np.testing.assert_array_equal(np.ravel(got), want)
    np.testing.assert_array_equal(want, [98, 100, 100, 102, 140, 255])
