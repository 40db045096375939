"""QUANTIZE_LINEAR, DEQUANTIZE_LINEAR and QUANTIZED_LINEAR_ADD: the NumPy references,
dmljax's worked examples (the pages have none), the sweeps, the bench cases and the
restated support tables of what :mod:`dmljax._src.ops.quantize` declares, loaded on use
only.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking import sweeps
from dmljax._src.checking.operator_checks import (
    FLOATS,
    INTS_8_32,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops import quantize
from dmljax._src.tensor_desc import TensorDesc

_T = DataType
_FL = FeatureLevel
_Q8 = frozenset({_T.INT8, _T.UINT8})
_F32 = frozenset({_T.FLOAT32})


# --- The references: NumPy, value by value ---------------------------------------------------


def reference_quantize(real: np.ndarray, zero_point: Any, dtype: Any) -> np.ndarray:
    """The page's ``clamp(round(real) + zero_point, Min, Max)``: NumPy's round (halves to
    even), a NaN Min."""
    info = np.iinfo(dtype)
    with np.errstate(invalid="ignore"):
        shifted = np.round(np.asarray(real, np.float64)) + (
            0 if zero_point is None else np.asarray(zero_point, np.float64)
        )
    clamped = np.clip(shifted, info.min, info.max)
    return np.where(np.isnan(clamped), info.min, clamped).astype(dtype)


def reference_quantize_linear(
    x: np.ndarray, scale: np.ndarray, zero_point: Any, dtype: Any
) -> np.ndarray:
    """QUANTIZE_LINEAR: the quotient in float32 (the scale's type if wider), then
    :func:`reference_quantize`."""
    wide = np.promote_types(scale.dtype, np.float32)
    with np.errstate(all="ignore"):
        real = x.astype(wide) / scale.astype(wide)
    return reference_quantize(real, zero_point, dtype)


def reference_dequantize_linear(q: np.ndarray, scale: np.ndarray, zero_point: Any) -> np.ndarray:
    """DEQUANTIZE_LINEAR: the exact difference (Python integers), rounded to float32, times
    the scale in float32, rounded to the scale's type."""
    zp = np.zeros_like(q) if zero_point is None else np.broadcast_to(zero_point, q.shape)
    exact = np.array([int(a) - int(b) for a, b in zip(q.ravel(), zp.ravel(), strict=True)], object)
    wide = np.promote_types(scale.dtype, np.float32)
    difference = np.array([wide.type(v) for v in exact], wide).reshape(q.shape)
    with np.errstate(over="ignore"):  # a float16 product beyond its range is inf
        return (difference * scale.astype(wide)).astype(scale.dtype)


def reference_quantized_linear_add(
    a: np.ndarray, a_scale: Any, a_zero_point: Any,
    b: np.ndarray, b_scale: Any, b_zero_point: Any,
    output_scale: Any, output_zero_point: Any, dtype: Any,
) -> np.ndarray:  # fmt: skip
    """QUANTIZED_LINEAR_ADD as the page writes it, each step a float32 rounding."""
    f32 = np.float32
    a_value = reference_dequantize_linear(a, np.asarray(a_scale, f32), a_zero_point)
    b_value = reference_dequantize_linear(b, np.asarray(b_scale, f32), b_zero_point)
    with np.errstate(all="ignore"):
        real = (a_value + b_value) / np.asarray(output_scale, f32)
    return reference_quantize(real, output_zero_point, dtype)


# --- The restated support tables ------------------------------------------------------------


# QUANTIZE_LINEAR's page: the output's (and zero point's) types, then the input's (the
# scale has the input's type, FLOAT32 for INT32). FL 6_2 lets the zero point out.
QUANTIZE_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    _FL.FL_1_0: ((4, 4), frozenset({_T.UINT8}), _F32),
    _FL.FL_2_1: ((4, 4), _Q8, _F32 | {_T.INT32}),
    _FL.FL_3_0: ((1, 8), _Q8, _F32 | {_T.INT32}),
    _FL.FL_6_0: ((1, 8), _Q8, FLOATS | {_T.INT32}),
}
# DEQUANTIZE_LINEAR's page: the input's (and zero point's) types, then the scale's and
# the output's.
DEQUANTIZE_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    _FL.FL_1_0: ((4, 4), frozenset({_T.UINT8}), _F32),
    _FL.FL_2_1: ((4, 4), INTS_8_32, _F32),
    _FL.FL_3_0: ((1, 8), INTS_8_32, _F32),
    _FL.FL_6_0: ((1, 8), INTS_8_32, FLOATS),
}
# QUANTIZED_LINEAR_ADD's page: the quantized tensors' types, then the scales'.
ADD_SUPPORT: dict[FeatureLevel, DocumentedBand] = {_FL.FL_4_0: ((1, 8), _Q8, _F32)}


def _tensor(data_type: DataType, sizes: tuple[int, ...]) -> TensorDesc:
    return TensorDesc(data_type=data_type, sizes=sizes)


def _sizes(rank: int) -> tuple[int, ...]:
    return (2,) + (1,) * (rank - 2) + (3,) if rank > 1 else (3,)


def _quantize_case(rank: int, data_type: DataType, index_type: DataType) -> Any:
    """Values 0 to 6 of ``index_type`` over a scale of 1 into ``data_type``: exact."""
    sizes = _sizes(rank)
    scale_type = _T.FLOAT32 if index_type == _T.INT32 else index_type
    desc = quantize.ElementWiseQuantizeLinearOperatorDesc(
        input_tensor=_tensor(index_type, sizes),
        scale_tensor=_tensor(scale_type, sizes),
        zero_point_tensor=_tensor(data_type, sizes),
        output_tensor=_tensor(data_type, sizes),
    )
    ones = np.ones(sizes, scale_type.dtype)
    return desc, (data_of(sizes, index_type), ones, np.zeros(sizes, data_type.dtype))


def _dequantize_case(rank: int, data_type: DataType, index_type: DataType) -> Any:
    sizes = _sizes(rank)
    desc = quantize.ElementWiseDequantizeLinearOperatorDesc(
        input_tensor=_tensor(data_type, sizes),
        scale_tensor=_tensor(index_type, sizes),
        zero_point_tensor=_tensor(data_type, sizes),
        output_tensor=_tensor(index_type, sizes),
    )
    ones = np.ones(sizes, index_type.dtype)
    return desc, (data_of(sizes, data_type), ones, np.zeros(sizes, data_type.dtype))


def _add_case(rank: int, data_type: DataType, index_type: DataType) -> Any:
    """Values 0 to 6, each scale 0.5 or 1 and each zero point 0: sums exact in both types."""
    sizes, one = _sizes(rank), (1,) * rank
    q, scale, point = _tensor(data_type, sizes), _tensor(index_type, one), _tensor(data_type, one)
    desc = quantize.ElementWiseQuantizedLinearAddOperatorDesc(
        a_tensor=q, a_scale_tensor=scale, a_zero_point_tensor=point,
        b_tensor=q, b_scale_tensor=scale, b_zero_point_tensor=point,
        output_scale_tensor=scale, output_zero_point_tensor=point, output_tensor=q,
    )  # fmt: skip
    half, whole = np.full(one, 0.5, index_type.dtype), np.ones(one, index_type.dtype)
    zero, data = np.zeros(one, data_type.dtype), data_of(sizes, data_type)
    return desc, (data, half, zero, data, half, zero, whole, zero)


# --- dmljax's worked examples ----------------------------------------------------------------


def _page(kind: str) -> str:
    stem = f"dml_element_wise_{kind.lower()}_operator_desc"
    return (
        f"dmljax: the DML_ELEMENT_WISE_{kind}_OPERATOR_DESC page (MicrosoftDocs/sdk-api, "
        f"sdk-api-src/content/directml/ns-directml-{stem}.md) has no example"
    )


def _t(data_type: str, data: list[Any]) -> dict[str, Any]:
    return {"sizes": [1, len(data)], "dtype": data_type, "data": [data]}


EXAMPLES: dict[str, tuple[dict[str, Any], ...]] = {
    "QUANTIZE_LINEAR": (
        {
            "id": "quantize-linear-dmljax-1",
            "op": "DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR",
            "source": _page("QUANTIZE_LINEAR"),
            "attrs": {},
            "inputs": {
                "InputTensor": _t("FLOAT32", [-300, -2.5, 0.5, 1.5, 7.75, 300]),
                "ScaleTensor": _t("FLOAT32", [1, 1, 1, 1, 0.25, 2]),
                "ZeroPointTensor": _t("INT8", [0, 0, 0, 0, -3, 5]),
            },
            "expected": _t("INT8", [-128, -2, 0, 2, 28, 127]),
            "notes": "Worked by hand: halves round to even (-2.5 to -2, 0.5 to 0, 1.5 to 2); "
            "7.75 / 0.25 = 31, less 3; 300 / 2 + 5 and -300 saturate.",
            "status": "dmljax",
        },
    ),
    "DEQUANTIZE_LINEAR": (
        {
            "id": "dequantize-linear-dmljax-1",
            "op": "DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR",
            "source": _page("DEQUANTIZE_LINEAR"),
            "attrs": {},
            "inputs": {
                "InputTensor": _t("UINT8", [0, 128, 255, 7]),
                "ScaleTensor": _t("FLOAT32", [0.5, 0.5, 0.5, 4]),
                "ZeroPointTensor": _t("UINT8", [128, 128, 128, 0]),
            },
            "expected": _t("FLOAT32", [-64, 0, 63.5, 28]),
            "notes": "Worked by hand: (q - zero_point) * scale.",
            "status": "dmljax",
        },
    ),
    "QUANTIZED_LINEAR_ADD": (
        {
            "id": "quantized-linear-add-dmljax-1",
            "op": "DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD",
            "source": _page("QUANTIZED_LINEAR_ADD"),
            "attrs": {},
            "inputs": {
                "ATensor": _t("UINT8", [10, 200, 0]),
                "AScaleTensor": {"sizes": [1, 1], "dtype": "FLOAT32", "data": [[0.5]]},
                "BTensor": _t("UINT8", [1, 100, 255]),
                "BScaleTensor": {"sizes": [1, 1], "dtype": "FLOAT32", "data": [[0.5]]},
                "OutputScaleTensor": {"sizes": [1, 1], "dtype": "FLOAT32", "data": [[2.0]]},
            },
            "expected": _t("UINT8", [3, 75, 64]),
            "notes": "Worked by hand: (5 + 0.5) / 2 = 2.75 rounds to 3; (100 + 50) / 2 = 75; "
            "(0 + 127.5) / 2 = 63.75 rounds to 64.",
            "status": "dmljax",
        },
    ),
}


# --- The sweeps: each face against its reference ------------------------------------------------


_QUANTIZE_SWEPT = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(jnp.bfloat16))


def _quantize_sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> Any:
    """``dml.quantize_linear`` of 0 to 3 dimensions: values around the representable
    range and beyond it, halves, a broadcast scale and a zero point of either type."""
    shape = sweeps.draw_shape(rng, int(rng.integers(0, 3, endpoint=True)), 1, 4)
    out = np.dtype(np.int8 if rng.random() < 0.5 else np.uint8)
    # Powers of two: x / scale is exact however a backend divides (XLA:GPU by a reciprocal).
    scale = np.asarray(rng.choice([0.25, 0.5, 1.0, 4.0]), dtype)
    zero_point = np.asarray(
        rng.integers(-8, 9) % 256 if out == np.uint8 else rng.integers(-8, 9), out
    )

    def draw() -> np.ndarray:
        halves = rng.integers(-600, 600, size=shape) / 2  # halves, exact in every float type
        return (halves * float(scale)).astype(dtype)

    members = tuple((draw(),) for _ in range(batch))
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} scale {float(scale)} zero point {zero_point!r}",
        fn=lambda x: quantize.quantize_linear(x, scale, zero_point),
        batch=members,
        expected=tuple(reference_quantize_linear(x, scale, zero_point, out) for (x,) in members),
        linear_argnums=(0,),
        differentiable=False,
    )


def _dequantize_sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> Any:
    """``dml.dequantize_linear`` of 0 to 3 dimensions: integers of ``dtype`` across their
    range, a broadcast float32 scale and zero point."""
    shape = sweeps.draw_shape(rng, int(rng.integers(0, 3, endpoint=True)), 1, 4)
    info = np.iinfo(dtype)
    scale = np.float32(rng.choice([0.1, 0.5, 3.0]))
    zero_point = np.asarray(rng.integers(int(info.min), int(info.max), endpoint=True), dtype)

    def draw() -> np.ndarray:
        return rng.integers(int(info.min), int(info.max), size=shape, endpoint=True).astype(dtype)

    members = tuple((draw(),) for _ in range(batch))
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} scale {scale} zero point {zero_point!r}",
        fn=lambda q: quantize.dequantize_linear(q, scale, zero_point),
        batch=members,
        expected=tuple(
            reference_dequantize_linear(q, np.asarray(scale), zero_point) for (q,) in members
        ),
        linear_argnums=(0,),
        differentiable=False,
    )


def _add_sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> Any:
    """``dml.quantized_linear_add`` of ``dtype`` arrays (int8 or uint8), the output of
    the other type now and then, with zero points."""
    shape = sweeps.draw_shape(rng, int(rng.integers(0, 3, endpoint=True)), 1, 4)
    info = np.iinfo(dtype)
    out = np.dtype(np.int8 if rng.random() < 0.5 else np.uint8)
    scales = tuple(np.float32(rng.choice([0.25, 0.5, 2.0])) for _ in range(3))
    points = (
        np.asarray(rng.integers(int(info.min), int(info.max)), dtype),
        None,
        np.asarray(rng.integers(0, 100), out),
    )

    def draw() -> np.ndarray:
        return rng.integers(int(info.min), int(info.max), size=shape, endpoint=True).astype(dtype)

    members = tuple((draw(), draw()) for _ in range(batch))

    def fn(a: Any, b: Any) -> Any:
        return quantize.quantized_linear_add(
            a, scales[0], points[0], b, scales[1], points[1], scales[2], points[2]
        )

    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} scales {scales} out {out.name}",
        fn=fn,
        batch=members,
        expected=tuple(
            reference_quantized_linear_add(
                a, scales[0], points[0], b, scales[1], points[1], scales[2], points[2], out
            )
            for a, b in members
        ),
        linear_argnums=(0, 1),
        differentiable=False,
    )


# --- The bench cases ----------------------------------------------------------------------------

_SCALE, _POINT = 0.0625, 3  # a power of two: x / scale is x * (1 / scale), as XLA rewrites jnp's


def _jnp_quantize(x: jax.Array, scale: Any, zero_point: Any) -> jax.Array:
    """The hand-written form of QUANTIZE_LINEAR into int8."""
    shifted = jnp.round(x / scale) + zero_point.astype(jnp.float32)
    return jnp.clip(shifted, -128, 127).astype(jnp.int8)


def _jnp_dequantize(q: jax.Array, scale: Any, zero_point: Any) -> jax.Array:
    return (q.astype(jnp.int32) - zero_point.astype(jnp.int32)).astype(jnp.float32) * scale


def _jnp_add(a: jax.Array, a_scale: Any, b: jax.Array, b_scale: Any, scale: Any) -> jax.Array:
    total = a.astype(jnp.float32) * a_scale + b.astype(jnp.float32) * b_scale
    return jnp.clip(jnp.round(total / scale), 0, 255).astype(jnp.uint8)


def _described(*arrays: jax.Array) -> list[TensorDesc]:
    return [TensorDesc.from_array(x) for x in arrays]


def _quantize_bench() -> list[Case | EagerCase]:
    """QUANTIZE_LINEAR of a 4096x4096 float32 into int8 (a scalar scale and zero point)
    against its jnp form, and eagerly on 8x8 with full scale and zero-point tensors."""
    scale, point = jnp.float32(_SCALE), jnp.int8(_POINT)

    def eager_args(key: jax.Array) -> tuple[jax.Array, ...]:
        x = operands.normal(key, (8, 8))
        return x, jnp.full((8, 8), scale), jnp.full((8, 8), point)

    def desc(x: jax.Array, s: jax.Array, z: jax.Array) -> Any:
        tx, ts, tz = _described(x, s, z)
        return quantize.ElementWiseQuantizeLinearOperatorDesc(
            input_tensor=tx, scale_tensor=ts, zero_point_tensor=tz, output_tensor=tz
        )

    return [
        Case(
            name="quantize_linear float32",
            operator="ELEMENT_WISE_QUANTIZE_LINEAR",
            make_args=lambda key, quick: (
                operands.normal(key, (512, 512) if quick else (4096, 4096)),
            ),
            dmljax_fn=lambda x: quantize.quantize_linear(x, scale, point),
            jnp_fn=lambda x: _jnp_quantize(x, scale, point),
            bytes_moved=lambda args: args[0].nbytes + args[0].size,
        ),
        EagerCase(
            name="quantize_linear eager",
            operator="ELEMENT_WISE_QUANTIZE_LINEAR",
            desc=desc,
            functional=quantize.quantize_linear,
            jnp_fn=_jnp_quantize,
            make_args=eager_args,
        ),
    ]


def _int8(key: jax.Array, shape: tuple[int, ...]) -> jax.Array:
    return operands.randint(key, shape, -128, 128, np.int8)


def _dequantize_bench() -> list[Case | EagerCase]:
    """DEQUANTIZE_LINEAR of a 4096x4096 int8 into float32 against its jnp form, and
    eagerly on 8x8."""
    scale, point = jnp.float32(_SCALE), jnp.int8(_POINT)

    def eager_args(key: jax.Array) -> tuple[jax.Array, ...]:
        return _int8(key, (8, 8)), jnp.full((8, 8), scale), jnp.full((8, 8), point)

    def desc(q: jax.Array, s: jax.Array, z: jax.Array) -> Any:
        tq, ts, tz = _described(q, s, z)
        return quantize.ElementWiseDequantizeLinearOperatorDesc(
            input_tensor=tq, scale_tensor=ts, zero_point_tensor=tz, output_tensor=ts
        )

    return [
        Case(
            name="dequantize_linear int8",
            operator="ELEMENT_WISE_DEQUANTIZE_LINEAR",
            make_args=lambda key, quick: (_int8(key, (512, 512) if quick else (4096, 4096)),),
            dmljax_fn=lambda q: quantize.dequantize_linear(q, scale, point),
            jnp_fn=lambda q: _jnp_dequantize(q, scale, point),
            bytes_moved=lambda args: 5 * args[0].size,
        ),
        EagerCase(
            name="dequantize_linear eager",
            operator="ELEMENT_WISE_DEQUANTIZE_LINEAR",
            desc=desc,
            functional=quantize.dequantize_linear,
            jnp_fn=_jnp_dequantize,
            make_args=eager_args,
        ),
    ]


def _add_bench() -> list[Case | EagerCase]:
    """QUANTIZED_LINEAR_ADD of two 4096x4096 uint8 (one scale throughout) against its jnp
    form, and eagerly on 8x8."""
    scale = jnp.float32(_SCALE)

    def uint8(key: jax.Array, shape: tuple[int, ...]) -> tuple[jax.Array, jax.Array]:
        k1, k2 = jax.random.split(key)
        return (
            operands.randint(k1, shape, 0, 256, np.uint8),
            operands.randint(k2, shape, 0, 256, np.uint8),
        )

    def function(a: jax.Array, b: jax.Array) -> jax.Array:
        return quantize.quantized_linear_add(a, scale, None, b, scale, None, scale)

    def eager_args(key: jax.Array) -> tuple[jax.Array, ...]:
        a, b = uint8(key, (8, 8))
        one = jnp.full((1, 1), scale)
        return a, one, b, one, one

    def add_desc(a: jax.Array, s: jax.Array, b: jax.Array, t: jax.Array, o: jax.Array) -> Any:
        ta, ts, tb, tt, to = _described(a, s, b, t, o)
        return quantize.ElementWiseQuantizedLinearAddOperatorDesc(
            a_tensor=ta, a_scale_tensor=ts, b_tensor=tb, b_scale_tensor=tt,
            output_scale_tensor=to, output_tensor=ta,
        )  # fmt: skip

    return [
        Case(
            name="quantized_linear_add uint8",
            operator="ELEMENT_WISE_QUANTIZED_LINEAR_ADD",
            make_args=lambda key, quick: uint8(key, (512, 512) if quick else (4096, 4096)),
            dmljax_fn=function,
            jnp_fn=lambda a, b: _jnp_add(a, scale, b, scale, scale),
            bytes_moved=lambda args: 3 * args[0].size,
        ),
        EagerCase(
            name="quantized_linear_add eager",
            operator="ELEMENT_WISE_QUANTIZED_LINEAR_ADD",
            desc=add_desc,
            functional=lambda a, s, b, t, o: quantize.quantized_linear_add(
                a, s, None, b, t, None, o
            ),
            jnp_fn=_jnp_add,
            make_args=eager_args,
        ),
    ]


# --- The checks -----------------------------------------------------------------------------------


CHECKS = (
    OperatorChecks(
        quantize.ELEMENT_WISE_QUANTIZE_LINEAR,
        sweep=_quantize_sweep,
        bench=_quantize_bench,
        documented_support=QUANTIZE_SUPPORT,
        support_case=_quantize_case,
        computes="a division and a rounding, checked against its NumPy reference "
        "(tests/test_quantize.py)",
        face_dtypes=frozenset(_QUANTIZE_SWEPT),
        not_smooth="a staircase of integers, with no derivative",
        examples=EXAMPLES["QUANTIZE_LINEAR"],
    ),
    OperatorChecks(
        quantize.ELEMENT_WISE_DEQUANTIZE_LINEAR,
        sweep=_dequantize_sweep,
        bench=_dequantize_bench,
        documented_support=DEQUANTIZE_SUPPORT,
        support_case=_dequantize_case,
        computes="a subtraction and a product, checked against its NumPy reference "
        "(tests/test_quantize.py)",
        face_dtypes=frozenset(np.dtype(t.dtype) for t in INTS_8_32),
        not_smooth="a function of integers, which have no derivative",
        examples=EXAMPLES["DEQUANTIZE_LINEAR"],
    ),
    OperatorChecks(
        quantize.ELEMENT_WISE_QUANTIZED_LINEAR_ADD,
        sweep=_add_sweep,
        bench=_add_bench,
        documented_support=ADD_SUPPORT,
        support_case=_add_case,
        computes="dequantized sums requantized, checked against its NumPy reference "
        "(tests/test_quantize.py)",
        face_dtypes=frozenset({np.dtype(np.int8), np.dtype(np.uint8)}),
        not_smooth="a function of integers, which have no derivative",
        examples=EXAMPLES["QUANTIZED_LINEAR_ADD"],
    ),
)
