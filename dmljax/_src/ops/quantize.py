"""Linear quantization: ELEMENT_WISE_QUANTIZE_LINEAR, DEQUANTIZE_LINEAR and
QUANTIZED_LINEAR_ADD.

A quantized tensor holds small integers ``q`` standing for the reals
``(q - zero_point) * scale``. QUANTIZE_LINEAR makes them from reals,
``clamp(round(x / scale) + zero_point, Min, Max)`` (Min and Max the INT8 or UINT8
output's range, ``round`` to nearest, halves to even); DEQUANTIZE_LINEAR gives the reals
back, ``(q - zero_point) * scale``; QUANTIZED_LINEAR_ADD dequantizes two tensors, adds
them and quantizes the sum with the output's scale and zero point. A zero point may be
left out from FL 6_2 (it is then 0). Every tensor has the output's sizes (a broadcast one
has zero strides), but QUANTIZED_LINEAR_ADD's scales and zero points, which hold one
value each.

>>> import jax.numpy as jnp, dmljax as dml
>>> q = dml.quantize_linear(jnp.array([-1.0, 0.25, 0.3, 100.0]), 0.1, jnp.int8(10))
>>> q
Array([  0,  12,  13, 127], dtype=int8)
>>> dml.dequantize_linear(q, 0.1, jnp.int8(10))
Array([-1. ,  0.2,  0.3, 11.7], dtype=float32)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.ops.element_wise import broadcast_into, first_input_sizes, jax_dtypes
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "ELEMENT_WISE_DEQUANTIZE_LINEAR",
    "ELEMENT_WISE_QUANTIZED_LINEAR_ADD",
    "ELEMENT_WISE_QUANTIZE_LINEAR",
    "ElementWiseDequantizeLinearOperatorDesc",
    "ElementWiseQuantizeLinearOperatorDesc",
    "ElementWiseQuantizedLinearAddOperatorDesc",
    "dequantize",
    "dequantize_linear",
    "quantize",
    "quantize_linear",
    "quantized_linear_add",
]

_T = DataType
_Q8 = frozenset({_T.INT8, _T.UINT8})
_F32 = frozenset({_T.FLOAT32})
_FLOATS = fl.FLOATS_16_32
_INTS_8_32 = fl.INTEGERS_8_32
# QUANTIZE_LINEAR's and DEQUANTIZE_LINEAR's zero point may be left out (then 0) from FL 6_2.
_OPTIONAL_ZERO_POINTS = FL.FL_6_2


# --- The arithmetic, each rule once -------------------------------------------------------------


def quantize(real: jax.Array, zero_point: jax.Array | None, dtype: Any) -> jax.Array:
    """``clamp(round(real) + zero_point, Min, Max)`` in ``dtype`` (INT8 or UINT8):
    halves round to even, as ONNX's QuantizeLinear rounds; ``real`` is a float array (the
    quotient ``x / scale``). A NaN becomes Min, as onnxruntime's kernel gives and HLSL's
    ``clamp`` (whose ``max`` returns the operand that is no NaN); infinities saturate.

    >>> quantize(jnp.array([2.5, 3.5, jnp.nan, -jnp.inf]), None, np.int8)
    Array([   2,    4, -128, -128], dtype=int8)
    """
    info = np.iinfo(dtype)
    shifted = jnp.round(real)
    if zero_point is not None:
        shifted = shifted + zero_point.astype(real.dtype)  # exact: |round(...)| is clamped next
    clamped = jnp.clip(shifted, float(info.min), float(info.max))
    return jnp.where(jnp.isnan(clamped), float(info.min), clamped).astype(dtype)


def dequantize(q: jax.Array, zero_point: jax.Array | None, scale: jax.Array) -> jax.Array:
    """``(q - zero_point) * scale`` in float32 (``scale``'s type if wider), rounded to
    ``scale``'s type. The difference is exact for 8- and 16-bit integers (so float32
    results are correctly rounded); a 32-bit one rounds to float32 first.

    >>> dequantize(jnp.array([0, 255], jnp.uint8), jnp.array(128, jnp.uint8), jnp.float32(0.5))
    Array([-64. ,  63.5], dtype=float32)
    """
    wide = jnp.promote_types(scale.dtype, np.float32)
    difference = _difference(q, zero_point).astype(wide)
    return (difference * scale.astype(wide)).astype(scale.dtype)


def _difference(q: jax.Array, zero_point: jax.Array | None) -> jax.Array:
    """``q - zero_point``: exact in int32 for 8- and 16-bit integers; for 32-bit ones the
    float32 nearest the exact difference (which int32 may not hold), from its 16-bit
    halves: ``hi * 2**16`` and ``lo`` are exact in float32, and their sum rounds once."""
    if zero_point is None:
        return q  # converted to the float type next: exact up to 24 bits, rounded beyond
    if np.dtype(q.dtype).itemsize < 4:
        return q.astype(np.int32) - zero_point.astype(np.int32)

    def halves(v: jax.Array) -> tuple[jax.Array, jax.Array]:
        return (v >> 16).astype(np.int32), (v & 0xFFFF).astype(np.int32)

    (q_hi, q_lo), (z_hi, z_lo) = halves(q), halves(zero_point.astype(q.dtype))
    return (q_hi - z_hi).astype(np.float32) * np.float32(2**16) + (q_lo - z_lo).astype(np.float32)


def _quotient(x: jax.Array, scale: jax.Array) -> jax.Array:
    """``x / scale`` in float32 (the scale's type if wider): an INT32 input converts to
    float32 first (beyond 2**24 it rounds), a FLOAT16 one exactly.

    Where the scale is one value broadcast, XLA computes ``x * (1 / scale)`` on every
    backend, within 1 ulp of the quotient (DirectML's float32 division is itself within
    2.5 ulps, Direct3D's bound): that moves a result by 1 only where the exact quotient
    is a hair from a half. An IEEE division there (``element_wise.float_divide``'s
    barrier) costs a second kernel and 1.55x the time on an H100."""
    wide = jnp.promote_types(scale.dtype, np.float32)
    return x.astype(wide) / scale.astype(wide)


# --- The descs ----------------------------------------------------------------------------------


# The compiled operators take the required arrays, then the zero points that are present.
class ElementWiseQuantizeLinearOperatorDesc(
    contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike, *tuple[ArrayLike, ...]]
):
    """``DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC``: ``clamp(round(input / scale) +
    zero_point, Min, Max)``, Min and Max the INT8 or UINT8 output's range.

    ``scale_tensor`` has the input's data type, FLOAT32 for an INT32 input;
    ``zero_point_tensor`` the output's, and may be None from FL 6_2 (then 0: the
    compiled operator takes the input and the scale). Every tensor has the output's sizes.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f, u = (dml.TensorDesc(data_type=t, sizes=(3,)) for t in (dml.DataType.FLOAT32,
    ...                                                           dml.DataType.UINT8))
    >>> desc = dml.ElementWiseQuantizeLinearOperatorDesc(
    ...     input_tensor=f, scale_tensor=f, zero_point_tensor=u, output_tensor=u)
    >>> x, ones, zero_point = jnp.array([-1.0, 2.5, 3.5]), jnp.ones(3), jnp.full(3, 1, jnp.uint8)
    >>> dml.compile_operator(desc)(x, ones, zero_point)
    Array([0, 3, 5], dtype=uint8)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    scale_tensor: TensorDesc = contract.tensor_field("input")
    zero_point_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    output_tensor: TensorDesc = contract.tensor_field("output")


class ElementWiseDequantizeLinearOperatorDesc(
    contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike, *tuple[ArrayLike, ...]]
):
    """``DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC``: ``(input - zero_point) * scale``.

    ``zero_point_tensor`` has the input's integer type, and may be None from FL 6_2
    (then 0); ``scale_tensor`` the output's float type. Every tensor has the output's
    sizes.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f, u = (dml.TensorDesc(data_type=t, sizes=(2,)) for t in (dml.DataType.FLOAT32,
    ...                                                           dml.DataType.UINT8))
    >>> desc = dml.ElementWiseDequantizeLinearOperatorDesc(
    ...     input_tensor=u, scale_tensor=f, output_tensor=f)
    >>> dml.compile_operator(desc)(jnp.array([3, 200], jnp.uint8), jnp.full(2, 0.5))
    Array([  1.5, 100. ], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    scale_tensor: TensorDesc = contract.tensor_field("input")
    zero_point_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    output_tensor: TensorDesc = contract.tensor_field("output")


class ElementWiseQuantizedLinearAddOperatorDesc(
    contract.OperatorDesc[
        jax.Array, ArrayLike, ArrayLike, ArrayLike, ArrayLike, ArrayLike, *tuple[ArrayLike, ...]
    ]
):
    """``DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC``: ``a`` and ``b`` dequantized,
    added in float32 and quantized with the output's scale and zero point.

    ``a_tensor``, ``b_tensor`` and ``output_tensor`` are INT8 or UINT8 (each its own),
    of one size; each scale is a FLOAT32 tensor of one element, each zero point one
    element of its tensor's type, and may be None (0). Every tensor has the output's
    DimensionCount. Introduced at FL 4_0.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> q, one = (dml.TensorDesc(data_type=dml.DataType.UINT8, sizes=(2,)),
    ...           dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(1,)))
    >>> desc = dml.ElementWiseQuantizedLinearAddOperatorDesc(
    ...     a_tensor=q, a_scale_tensor=one, b_tensor=q, b_scale_tensor=one,
    ...     output_scale_tensor=one, output_tensor=q)
    >>> a, b, half, one_ = jnp.array([10, 200], jnp.uint8), jnp.array([1, 100], jnp.uint8), \\
    ...     jnp.array([0.5]), jnp.array([1.0])
    >>> dml.compile_operator(desc)(a, half, b, half, one_)
    Array([  6, 150], dtype=uint8)
    """

    a_tensor: TensorDesc = contract.tensor_field("input")
    a_scale_tensor: TensorDesc = contract.tensor_field("input")
    a_zero_point_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    b_tensor: TensorDesc = contract.tensor_field("input")
    b_scale_tensor: TensorDesc = contract.tensor_field("input")
    b_zero_point_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    output_scale_tensor: TensorDesc = contract.tensor_field("input")
    output_zero_point_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    output_tensor: TensorDesc = contract.tensor_field("output")


# --- The rules ----------------------------------------------------------------------------------


def _require(op: str, field: str, expected: str, given: Any, ok: bool) -> None:
    if not ok:
        raise InvalidArgumentError(op, field, expected, given)


def _check_zero_point(
    desc: Any, field: str, like: str, level: FL, *, op: str, optional_from: FL
) -> None:
    """A zero point: required before ``optional_from``; of ``like``'s data type."""
    zero_point = getattr(desc, field)
    if zero_point is None:
        _require(
            op, field, f"a TensorDesc before {optional_from.name} (optional from it)",
            None, level >= optional_from,
        )  # fmt: skip
        return
    data_type = getattr(desc, like).data_type
    _require(
        op, f"{field}.data_type", f"{data_type} ({like}'s data type)", zero_point.data_type,
        zero_point.data_type == data_type,
    )  # fmt: skip


def _check_same_sizes(desc: Any, fields: Sequence[str], *, op: str) -> None:
    sizes = desc.output_tensor.sizes
    for field in fields:
        tensor = getattr(desc, field)
        if tensor is not None:
            _require(
                op, f"{field}.sizes", f"{sizes} (output_tensor's sizes)", tensor.sizes,
                tensor.sizes == sizes,
            )  # fmt: skip


def _quantize_rules(desc: ElementWiseQuantizeLinearOperatorDesc, level: FL) -> None:
    op = type(desc).__name__
    _check_zero_point(
        desc,
        "zero_point_tensor",
        "output_tensor",
        level,
        op=op,
        optional_from=_OPTIONAL_ZERO_POINTS,
    )
    wanted = _T.FLOAT32 if desc.input_tensor.data_type == _T.INT32 else desc.input_tensor.data_type
    _require(
        op, "scale_tensor.data_type", f"{wanted} (input_tensor's, FLOAT32 for an INT32 input)",
        desc.scale_tensor.data_type, desc.scale_tensor.data_type == wanted,
    )  # fmt: skip
    _check_same_sizes(desc, ("input_tensor", "scale_tensor", "zero_point_tensor"), op=op)


def _dequantize_rules(desc: ElementWiseDequantizeLinearOperatorDesc, level: FL) -> None:
    op = type(desc).__name__
    _check_zero_point(
        desc, "zero_point_tensor", "input_tensor", level, op=op, optional_from=_OPTIONAL_ZERO_POINTS
    )
    _require(
        op, "scale_tensor.data_type", f"{desc.output_tensor.data_type} (output_tensor's)",
        desc.scale_tensor.data_type, desc.scale_tensor.data_type == desc.output_tensor.data_type,
    )  # fmt: skip
    _check_same_sizes(desc, ("input_tensor", "scale_tensor", "zero_point_tensor"), op=op)


_ADD_SCALARS = (
    "a_scale_tensor",
    "a_zero_point_tensor",
    "b_scale_tensor",
    "b_zero_point_tensor",
    "output_scale_tensor",
    "output_zero_point_tensor",
)


def _add_rules(desc: ElementWiseQuantizedLinearAddOperatorDesc, level: FL) -> None:
    op = type(desc).__name__
    for stem in ("a", "b", "output"):
        # Optional from the operator's introduction (_Maybenull_ on its page).
        _check_zero_point(
            desc, f"{stem}_zero_point_tensor", f"{stem}_tensor", level, op=op,
            optional_from=FL.FL_4_0,
        )  # fmt: skip
    _check_same_sizes(desc, ("a_tensor", "b_tensor"), op=op)
    for field in _ADD_SCALARS:
        tensor = getattr(desc, field)
        if tensor is not None:
            _require(
                op, f"{field}.sizes", "one element (every size 1), as the page expects",
                tensor.sizes, math.prod(tensor.sizes) == 1,
            )  # fmt: skip


# --- The lowerings --------------------------------------------------------------------------------


def _lower_quantize(desc: ElementWiseQuantizeLinearOperatorDesc, options: Any) -> Any:
    del options
    out = desc.output_tensor.dtype

    def lowered(x: jax.Array, scale: jax.Array, zero_point: jax.Array | None = None) -> jax.Array:
        return quantize(_quotient(x, scale), zero_point, out)

    return lowered


def _lower_dequantize(desc: ElementWiseDequantizeLinearOperatorDesc, options: Any) -> Any:
    del options

    def lowered(q: jax.Array, scale: jax.Array, zero_point: jax.Array | None = None) -> jax.Array:
        return dequantize(q, zero_point, scale)

    return lowered


def quantized_add(
    a: jax.Array,
    a_scale: jax.Array,
    a_zero_point: jax.Array | None,
    b: jax.Array,
    b_scale: jax.Array,
    b_zero_point: jax.Array | None,
    output_scale: jax.Array,
    output_zero_point: jax.Array | None,
    dtype: Any,
) -> jax.Array:
    """QUANTIZED_LINEAR_ADD on arrays, the scales and zero points broadcast: each value
    dequantized in float32 (exact differences, one rounding each), summed (one rounding),
    divided by the output's scale (one more) and quantized."""
    total = dequantize(a, a_zero_point, a_scale.astype(np.float32)) + dequantize(
        b, b_zero_point, b_scale.astype(np.float32)
    )
    return quantize(_quotient(total, output_scale), output_zero_point, dtype)


def _lower_add(desc: ElementWiseQuantizedLinearAddOperatorDesc, options: Any) -> Any:
    del options
    present = [
        getattr(desc, f.name) is not None
        for f in contract.tensor_fields(type(desc), contract.Role.INPUT)
    ]
    out = desc.output_tensor.dtype

    def lowered(*arrays: jax.Array) -> jax.Array:
        given = iter(arrays)

        def scalar(here: bool = True) -> jax.Array | None:
            # A scale or zero point holds one element (the rules): read as a scalar.
            return next(given).reshape(()) if here else None

        a, a_scale, a_zero_point = next(given), next(given).reshape(()), scalar(present[2])
        b, b_scale, b_zero_point = next(given), next(given).reshape(()), scalar(present[5])
        out_scale, out_zero_point = next(given).reshape(()), scalar(present[7])
        return quantized_add(
            a, a_scale, a_zero_point, b, b_scale, b_zero_point, out_scale, out_zero_point, out
        )

    return lowered


# --- The functional faces ----------------------------------------------------------------------


_FLOAT_DTYPES = jax_dtypes(_FLOATS)
_QUANTIZED = frozenset({np.dtype(np.int8), np.dtype(np.uint8)})


def _own(x: Any, dtype: Any) -> Any:
    """A Python scalar (weakly typed) in ``dtype``; an array as it is."""
    return jnp.asarray(x, dtype) if x is not None and rules.is_weak(x) else x


def _broadcast(*arrays: Any, names: Sequence[str], op: str) -> list[Any]:
    """The arrays (None left out) broadcast together by NumPy's rules; the first that does
    not broadcast with those before it is named."""
    shape: tuple[Any, ...] = ()
    for name, x in zip(names, arrays, strict=True):
        if x is None:
            continue
        try:
            shape = jnp.broadcast_shapes(shape, x.shape)
        except ValueError:
            raise InvalidArgumentError(
                op, name, f"a shape that broadcasts with {shape} (NumPy's rules)", tuple(x.shape)
            ) from None
    return [None if x is None else jnp.broadcast_to(x, shape) for x in arrays]


_QUANTIZE_INPUTS = _FLOAT_DTYPES | {np.dtype(np.int32)}


def _checked_quantize(x: Any, scale: Any, zero_point: Any, dtype: Any) -> jax.Array:
    op = "dmljax.quantize_linear"
    rules.require_array_dtype(x, _QUANTIZE_INPUTS, op=op, field="x", why="QUANTIZE_LINEAR's inputs")
    wanted = np.dtype(np.float32) if x.dtype == np.int32 else np.dtype(x.dtype)
    scale = _own(scale, wanted)
    if np.dtype(scale.dtype) != wanted:
        raise InvalidArgumentError(
            op, "scale", f"an array of {wanted.name} (x's dtype, float32 for int32 x)",
            f"an array of {np.dtype(scale.dtype).name}",
        )  # fmt: skip
    out = _output_dtype(zero_point, dtype, op=op)
    zero_point = _own(zero_point, out)
    if zero_point is not None:
        rules.require_array_dtype(
            zero_point, frozenset({out}), op=op, field="zero_point", why="dtype's"
        )
    x, scale, zero_point = _broadcast(
        x, scale, zero_point, names=("x", "scale", "zero_point"), op=op
    )
    return quantize(_quotient(x, scale), zero_point, out)


def _output_dtype(zero_point: Any, dtype: Any, *, op: str) -> np.dtype[Any]:
    """The quantized dtype: ``dtype``, else the zero point's, else uint8 (ONNX's default)."""
    if dtype is not None:
        if np.dtype(dtype) not in _QUANTIZED:
            raise InvalidArgumentError(op, "dtype", "int8 or uint8", np.dtype(dtype).name)
        return np.dtype(dtype)
    if zero_point is not None and not rules.is_weak(zero_point):
        rules.require_array_dtype(
            zero_point, _QUANTIZED, op=op, field="zero_point", why="the quantized types"
        )
        return np.dtype(zero_point.dtype)
    return np.dtype(np.uint8)


def _checked_dequantize(q: Any, scale: Any, zero_point: Any) -> jax.Array:
    op = "dmljax.dequantize_linear"
    ints = jax_dtypes(_INTS_8_32)
    rules.require_array_dtype(q, ints, op=op, field="x", why="DEQUANTIZE_LINEAR's inputs")
    scale = _own(scale, np.float32)
    rules.require_array_dtype(
        scale, _FLOAT_DTYPES, op=op, field="scale", why="DEQUANTIZE_LINEAR's scales"
    )
    zero_point = _own(zero_point, q.dtype)
    if zero_point is not None:
        rules.require_array_dtype(
            zero_point, frozenset({np.dtype(q.dtype)}), op=op, field="zero_point", why="x's dtype"
        )
    q, scale, zero_point = _broadcast(
        q, scale, zero_point, names=("x", "scale", "zero_point"), op=op
    )
    return dequantize(q, zero_point, scale)


def _checked_add(
    a: Any,
    a_scale: Any,
    a_zero_point: Any,
    b: Any,
    b_scale: Any,
    b_zero_point: Any,
    output_scale: Any,
    output_zero_point: Any,
    dtype: Any,
) -> jax.Array:
    op = "dmljax.quantized_linear_add"
    for name, x in (("a", a), ("b", b)):
        rules.require_array_dtype(
            x, _QUANTIZED, op=op, field=name, why="QUANTIZED_LINEAR_ADD's inputs"
        )
    out = _output_dtype(output_zero_point, dtype, op=op)
    f32 = np.dtype(np.float32)
    scalars = [
        _one_value(value, like, op=op, name=name)
        for name, value, like in (
            ("a_scale", a_scale, f32),
            ("b_scale", b_scale, f32),
            ("output_scale", output_scale, f32),
            ("a_zero_point", a_zero_point, a.dtype),
            ("b_zero_point", b_zero_point, b.dtype),
            ("output_zero_point", output_zero_point, out),
        )
    ]
    a_s, b_s, out_s, a_z, b_z, out_z = scalars
    a, b = _broadcast(a, b, names=("a", "b"), op=op)
    return quantized_add(a, a_s, a_z, b, b_s, b_z, out_s, out_z, out)


def _one_value(value: Any, dtype: Any, *, op: str, name: str) -> Any:
    """A scale or zero point of QUANTIZED_LINEAR_ADD: one value of ``dtype`` (a Python
    number takes it), as a 0-D array; None stays None."""
    value = _own(value, dtype)
    if value is None:
        return None
    rules.require_array_dtype(
        value, frozenset({np.dtype(dtype)}), op=op, field=name, why="its tensor's type"
    )
    if value.size != 1:
        raise InvalidArgumentError(
            op, name, "one value (the page's scales and zero points hold one)",
            f"an array of shape {tuple(value.shape)}",
        )  # fmt: skip
    return value.reshape(())


def _node(desc_type: type, fields: Sequence[tuple[str, str]]) -> Any:
    """The face's call as a node: arrays named as the face names them, each read at the
    output's sizes (zero strides where it broadcasts) but one-element scalars."""

    def node(call: NodeCall) -> Any:
        out = call.aligned(call.outputs[0])
        scalars = set(_ADD_SCALARS)
        tensors: dict[str, Any] = {}
        for field, name in fields:
            tensor = call.arrays.get(name)
            if tensor is None:
                continue
            if field in scalars:
                tensors[field] = dataclasses.replace(
                    tensor, sizes=(1,) * out.dimension_count, strides=None
                )
            else:
                tensors[field] = broadcast_into(call.aligned(tensor), out.sizes)
        return desc_type(**tensors, output_tensor=out)

    return node


def quantize_linear(
    x: ArrayLike, scale: ArrayLike, zero_point: ArrayLike | None = None, dtype: Any = None
) -> jax.Array:
    """``clamp(round(x / scale) + zero_point, Min, Max)``: DirectML's QUANTIZE_LINEAR.

    ONNX's QuantizeLinear with NumPy broadcasting: ``x`` float32, float16 (and bfloat16,
    float64) or int32; ``scale`` of x's float dtype (float32 for int32 x; a Python number
    takes it); ``zero_point`` int8 or uint8, or None (0). The result has ``dtype``, else
    the zero point's, else uint8 (ONNX's default). Halves round to even; NaN becomes
    Min; infinities saturate; a scale of 0 (undefined on the page) gives IEEE's quotient
    quantized so.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.quantize_linear(jnp.array([0.5, 1.5, 300.0, -1.0]), 1.0)
    Array([  0,   2, 255,   0], dtype=uint8)
    """
    return _QUANTIZE_FACE.call(x, scale, zero_point, dtype)


def dequantize_linear(
    x: ArrayLike, scale: ArrayLike, zero_point: ArrayLike | None = None
) -> jax.Array:
    """``(x - zero_point) * scale``: DirectML's DEQUANTIZE_LINEAR.

    ONNX's DequantizeLinear with NumPy broadcasting: ``x`` an integer array of 8 to 32
    bits, ``zero_point`` of its dtype (or None: 0), ``scale`` float32 or float16 (and
    bfloat16, float64; a Python number is float32), the result's dtype. Computed in
    float32: correctly rounded for 8- and 16-bit x.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.dequantize_linear(jnp.array([0, 128, 255], jnp.uint8), 0.5, jnp.uint8(128))
    Array([-64. ,   0. ,  63.5], dtype=float32)
    """
    return _DEQUANTIZE_FACE.call(x, scale, zero_point)


def quantized_linear_add(
    a: ArrayLike,
    a_scale: ArrayLike,
    a_zero_point: ArrayLike | None,
    b: ArrayLike,
    b_scale: ArrayLike,
    b_zero_point: ArrayLike | None,
    output_scale: ArrayLike,
    output_zero_point: ArrayLike | None = None,
    dtype: Any = None,
) -> jax.Array:
    """``a`` and ``b`` dequantized, added and quantized: DirectML's QUANTIZED_LINEAR_ADD.

    The arguments in DirectML's order, which is ONNX's QLinearAdd's (com.microsoft):
    ``a`` and ``b`` int8 or uint8 (each its own), broadcasting as in NumPy; each scale
    one float32 value, each zero point one value of its tensor's dtype or None (0). The
    result has ``dtype``, else the output zero point's, else uint8. Each dequantized
    value, their sum and its quotient by ``output_scale`` are float32 roundings, as the
    page's formula computes them.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> a, b = jnp.array([10, 200], jnp.uint8), jnp.array([1, 100], jnp.uint8)
    >>> dml.quantized_linear_add(a, 0.5, None, b, 0.5, None, 1.0)
    Array([  6, 150], dtype=uint8)
    """
    return _ADD_FACE.call(
        a, a_scale, a_zero_point, b, b_scale, b_zero_point, output_scale, output_zero_point, dtype
    )


# QUANTIZE_LINEAR's and DEQUANTIZE_LINEAR's desc fields, each with the face's argument.
_LINEAR_TENSORS = (
    ("input_tensor", "x"), ("scale_tensor", "scale"), ("zero_point_tensor", "zero_point")
)  # fmt: skip
_QUANTIZE_FACE = faces.FunctionalFace(
    quantize_linear,
    _checked_quantize,
    faces.Data("x"),
    faces.Data("scale"),
    faces.Data("zero_point", optional=True),
    faces.DType("dtype", optional=True),
    graph_node=_node(ElementWiseQuantizeLinearOperatorDesc, _LINEAR_TENSORS),
)
_DEQUANTIZE_FACE = faces.FunctionalFace(
    dequantize_linear,
    _checked_dequantize,
    faces.Data("x"),
    faces.Data("scale"),
    faces.Data("zero_point", optional=True),
    graph_node=_node(ElementWiseDequantizeLinearOperatorDesc, _LINEAR_TENSORS),
)
_ADD_FACE = faces.FunctionalFace(
    quantized_linear_add,
    _checked_add,
    faces.Data("a"),
    faces.Data("a_scale"),
    faces.Data("a_zero_point", optional=True),
    faces.Data("b"),
    faces.Data("b_scale"),
    faces.Data("b_zero_point", optional=True),
    faces.Data("output_scale"),
    faces.Data("output_zero_point", optional=True),
    faces.DType("dtype", optional=True),
    graph_node=_node(
        ElementWiseQuantizedLinearAddOperatorDesc,
        tuple(
            (f"{n}_tensor", n)
            for n in (
                "a",
                "a_scale",
                "a_zero_point",
                "b",
                "b_scale",
                "b_zero_point",
                "output_scale",
                "output_zero_point",
            )
        ),
    ),
)


# --- The operators ------------------------------------------------------------------------------


ELEMENT_WISE_QUANTIZE_LINEAR = contract.Operator(
    "DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR",
    ElementWiseQuantizeLinearOperatorDesc,
    support=(
        fl.band(FL.FL_1_0, (4, 4), frozenset({_T.UINT8}), input_tensor=_F32, scale_tensor=_F32),
        fl.band(FL.FL_2_1, (4, 4), _Q8, input_tensor=_F32 | {_T.INT32}, scale_tensor=_F32),
        fl.band(FL.FL_3_0, (1, 8), _Q8, input_tensor=_F32 | {_T.INT32}, scale_tensor=_F32),
        fl.band(FL.FL_6_0, (1, 8), _Q8, input_tensor=_FLOATS | {_T.INT32}, scale_tensor=_FLOATS),
    ),
    same_dimension_count=True,
    same_data_type=("zero_point_tensor", "output_tensor"),
    rules=_quantize_rules,
    output_sizes=first_input_sizes,
    lower=_lower_quantize,
    face=_QUANTIZE_FACE,
)

DEQUANTIZE_LINEAR_BANDS = (
    fl.band(FL.FL_1_0, (4, 4), frozenset({_T.UINT8}), scale_tensor=_F32, output_tensor=_F32),
    fl.band(FL.FL_2_1, (4, 4), _INTS_8_32, scale_tensor=_F32, output_tensor=_F32),
    fl.band(FL.FL_3_0, (1, 8), _INTS_8_32, scale_tensor=_F32, output_tensor=_F32),
    fl.band(FL.FL_6_0, (1, 8), _INTS_8_32, scale_tensor=_FLOATS, output_tensor=_FLOATS),
)
ELEMENT_WISE_DEQUANTIZE_LINEAR = contract.Operator(
    "DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR",
    ElementWiseDequantizeLinearOperatorDesc,
    support=DEQUANTIZE_LINEAR_BANDS,
    same_dimension_count=True,
    same_data_type=("input_tensor", "zero_point_tensor"),
    rules=_dequantize_rules,
    output_sizes=first_input_sizes,
    lower=_lower_dequantize,
    face=_DEQUANTIZE_FACE,
)

ELEMENT_WISE_QUANTIZED_LINEAR_ADD = contract.Operator(
    "DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD",
    ElementWiseQuantizedLinearAddOperatorDesc,
    support=(
        fl.band(
            FL.FL_4_0,
            (1, 8),
            _Q8,
            a_scale_tensor=_F32,
            b_scale_tensor=_F32,
            output_scale_tensor=_F32,
        ),
    ),
    same_dimension_count=True,
    # A, B and the output may each be INT8 or UINT8: each ties to its zero point only.
    same_data_type=("output_zero_point_tensor", "output_tensor"),
    rules=_add_rules,
    output_sizes=first_input_sizes,
    lower=_lower_add,
    face=_ADD_FACE,
)
