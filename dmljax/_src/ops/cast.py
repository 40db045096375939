"""CAST: ``DML_CAST_OPERATOR_DESC`` and :func:`dmljax.cast`.

``out[c] = cast(in[c])``: each element converted to the output's data type, the
sizes unchanged. DirectML's page does not say how values convert; dmljax makes
every conversion defined, with the rules DirectML states for its scalar casts
(``ELEMENT_WISE_CLIP``'s page: integers truncate toward zero, floats round to
nearest even) and Direct3D's for the rest:

* float to float rounds to nearest even; beyond the type's range gives an infinity;
* float to integer truncates toward zero and saturates: beyond the range (infinities
  included) gives the type's minimum or maximum, and NaN gives 0;
* integer to float rounds to nearest even (beyond float16's range: an infinity);
* integer to integer keeps the low bits (two's complement), as C and ONNX do;
* a float32 or bfloat16 subnormal read or written may be a zero of its sign, as
  Direct3D allows and XLA:CPU does (``docs/semantics.md``, Subnormals).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, dtypes, face as faces, feature_levels as fl
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["CAST", "CastOperatorDesc", "cast", "cast_lowering"]

_FUNCTION = "dmljax.cast"


class CastOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_CAST_OPERATOR_DESC``: converts each element to the output's data type.

    The rules (checked by :func:`dmljax.compile_operator`): input and output have
    the same sizes; their data types are independent. Introduced at FL 1_0 (4-D;
    FLOAT32, FLOAT16 and 8- and 16-bit integers); 32- and 64-bit integers from
    3_0, 1 to 8 dimensions from 3_1, FLOAT64 from 4_1. How values convert: see
    :func:`dmljax.cast`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> desc = dml.CastOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(1, 1, 1, 4)),
    ...     output_tensor=dml.TensorDesc(data_type=dml.DataType.INT8, sizes=(1, 1, 1, 4)))
    >>> dml.compile_operator(desc)(jnp.array([[[[-2.7, 0.5, 300.0, jnp.nan]]]]))
    Array([[[[  -2,    0,  127,    0]]]], dtype=int8)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")


_T = DataType
_INTS_8_16 = frozenset({_T.INT16, _T.INT8, _T.UINT16, _T.UINT8})
_INTS_32_64 = frozenset({_T.INT64, _T.INT32, _T.UINT64, _T.UINT32})
_CAST_SUPPORT = (
    fl.band(FL.FL_1_0, (4, 4), fl.FLOATS_16_32 | _INTS_8_16),
    fl.band(FL.FL_3_0, (4, 4), fl.FLOATS_16_32 | _INTS_8_16 | _INTS_32_64),
    fl.band(FL.FL_3_1, (1, 8), fl.FLOATS_16_32 | _INTS_8_16 | _INTS_32_64),
    fl.band(FL.FL_4_1, (1, 8), fl.TYPES_8_64),
)


def _cast_rules(desc: CastOperatorDesc, level: FL) -> None:
    del desc, level  # the table and the output sizes are CAST's only rules


def _cast_output_sizes(desc: CastOperatorDesc) -> tuple[tuple[int, ...], str]:
    return desc.input_tensor.sizes, "input_tensor.sizes"


def _is_float(dtype: np.dtype[Any]) -> bool:
    return bool(jnp.issubdtype(dtype, jnp.floating))


def _float_to_int(x: jax.Array, dtype: np.dtype[Any]) -> jax.Array:
    """Truncation toward zero, saturated to ``dtype``'s range, NaN to 0.

    The conversion itself truncates every in-range value (StableHLO's rule); what is
    out of range is first clamped to the nearest value in range, and NaN replaced by 0,
    with bounds chosen from the two types alone. Clamping costs what a hand-written
    ``jnp.where(jnp.isnan(x), 0, jnp.clip(x, lo, hi)).astype(dtype)`` costs.
    """
    info, finfo = jnp.iinfo(dtype), jnp.finfo(x.dtype)
    signed = info.min < 0
    value_bits = info.bits - 1 if signed else info.bits
    zero = np.zeros((), x.dtype)
    if 2.0**value_bits <= float(finfo.max):
        low = np.asarray(-(2.0**value_bits) if signed else 0.0, x.dtype)  # exact
        # Clamped to the largest float below 2**value_bits, which converts in range.
        high = np.asarray(2.0**value_bits - 2.0 ** (value_bits - finfo.nmant - 1), x.dtype)
        inside = lax.convert_element_type(
            jnp.where(jnp.isnan(x), zero, lax.clamp(low, x, high)), dtype
        )
        if finfo.nmant + 1 >= value_bits:
            return inside  # that float truncates to info.max (float32 to 16-bit integers)
        # Coarser floats near the bound (float32 to INT32): above it is info.max.
        bound = np.asarray(2.0**value_bits, x.dtype)
        return jnp.where(x >= bound, np.asarray(info.max, dtype), inside)
    # Every finite value is below 2**value_bits (float16 to 32- and 64-bit integers and
    # to UINT16): only infinities saturate, and for an unsigned type the negatives.
    finite = jnp.where(jnp.isfinite(x), x, zero)
    if not signed:
        finite = lax.max(finite, zero)
    inside = lax.convert_element_type(finite, dtype)
    saturated = jnp.where(x > 0, np.asarray(info.max, dtype), np.asarray(info.min, dtype))
    return jnp.where(jnp.isinf(x), saturated, inside)


def cast_lowering(x: jax.Array, *, dtype: np.dtype[Any]) -> jax.Array:
    """The one implementation of CAST, shared by both faces.

    Float to integer needs its own code: StableHLO leaves out-of-range and NaN
    conversions to the implementation (XLA:CPU saturates them today, which no
    backend promises). Every other pair is one
    :func:`jax.lax.convert_element_type`, which rounds to nearest even and keeps
    an integer's low bits on every backend.
    """
    if x.dtype == dtype:
        return x
    if _is_float(x.dtype) and jnp.issubdtype(dtype, jnp.integer):
        return _float_to_int(x, dtype)
    return lax.convert_element_type(x, dtype)


def _lower_cast(desc: CastOperatorDesc, options: contract.LoweringOptions) -> Any:
    del options
    return functools.partial(cast_lowering, dtype=desc.output_tensor.data_type.dtype)


def cast(x: ArrayLike, dtype: Any) -> jax.Array:
    """Converts ``x`` to ``dtype`` element by element (DirectML CAST).

    The functional face of :class:`CastOperatorDesc`, with every conversion
    defined where StableHLO leaves some to the backend: float to
    integer truncates toward zero, saturates at the type's range (infinities
    included) and turns NaN into 0; float to float and integer to float round to
    nearest even; integer to integer keeps the low bits. Any rank, and any JAX
    dtype including ``bool`` (nonzero is True) and ``bfloat16``.

    Args:
        x: the array to convert.
        dtype: the result's dtype: a NumPy or JAX dtype or its name (``jnp.int8``,
            ``"float16"``). A 64-bit dtype needs ``jax_enable_x64``.

    Returns:
        An array of ``x``'s shape and of ``dtype``.

    Raises:
        InvalidArgumentError: a dtype that is not a number or bool (complex
            included: DirectML has none), or a 64-bit dtype while x64 is off.
        ArgumentTypeError: ``dtype`` is not a dtype.

    Differentiable from float to float (the derivative converts the tangent);
    usable under :func:`jax.jit` and :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.cast(jnp.array([-1.5, 2.5, 1e10, -jnp.inf, jnp.nan]), jnp.int32)
    Array([         -1,           2,  2147483647, -2147483648,           0], dtype=int32)
    >>> dml.cast(jnp.array([255, 256, -1]), jnp.uint8)
    Array([255,   0, 255], dtype=uint8)
    """
    return _CAST_FACE.call(x, dtype)


def _is_number_or_bool(dtype: np.dtype[Any]) -> bool:
    return any(jnp.issubdtype(dtype, kind) for kind in (jnp.bool_, jnp.integer, jnp.floating))


def _checked_cast(x: jax.Array, dtype: np.dtype[Any]) -> jax.Array:
    """:func:`cast`'s checks, while tracing, then the lowering."""
    if not _is_number_or_bool(x.dtype):
        raise InvalidArgumentError(
            _FUNCTION, "x", "an array of numbers or bools (DirectML has no complex)", x.dtype.name
        )
    if not _is_number_or_bool(dtype):
        raise InvalidArgumentError(
            _FUNCTION, "dtype", "a dtype of numbers or bools (DirectML has no complex)", dtype.name
        )
    if dtype.itemsize == 8:
        dtypes.require_x64(DataType.from_dtype(dtype), op=_FUNCTION, field="dtype")
    return cast_lowering(x, dtype=dtype)


def _cast_node(call: NodeCall) -> CastOperatorDesc:
    return CastOperatorDesc(input_tensor=call.arrays["x"], output_tensor=call.outputs[0])


_CAST_FACE = faces.FunctionalFace(
    cast, _checked_cast, faces.Data("x"), faces.DType("dtype"), graph_node=_cast_node
)


CAST = contract.Operator(
    "DML_OPERATOR_CAST",
    CastOperatorDesc,
    support=_CAST_SUPPORT,
    same_dimension_count=True,
    same_data_type=(),  # converting between types is the point
    rules=_cast_rules,
    output_sizes=_cast_output_sizes,
    lower=_lower_cast,
    face=_CAST_FACE,
)
