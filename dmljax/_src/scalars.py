"""DirectML's scalar fields: a ``FLOAT`` value, and a ``DML_SCALAR_UNION`` with its data type.

PADDING and DIAGONAL_MATRIX hold their value as a C ``FLOAT``, truncated toward
zero for integer tensors (their pages' "10.6 will become 10"); PADDING1 and
DIAGONAL_MATRIX1 hold it in a union read as a ``DML_TENSOR_DATA_TYPE``, exact in
the tensor's type. The functional faces take a Python number held exactly by the
array's dtype. Each rule is written once here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from dmljax._src.arguments import exact_float, static_number
from dmljax._src.dtypes import DataType
from dmljax.errors import InvalidArgumentError

__all__ = [
    "data_type_attribute",
    "exact_value",
    "float32_attribute",
    "float32_tuple_attribute",
    "require_union_type",
    "truncated_value",
    "value_in",
]


def float32_attribute(value: Any, *, op: str, field: str) -> float:
    """A C ``FLOAT`` field (PADDING's ``PaddingValue``): the number rounded to float32.

    >>> float32_attribute(0.1, op="Desc", field="value") == float(np.float32(0.1))
    True
    """
    number = static_number(value, op=op, field=field)
    try:
        as_float = float(number)
    except OverflowError:
        raise InvalidArgumentError(op, field, "a number a FLOAT can hold", repr(number)) from None
    with np.errstate(over="ignore"):  # C rounds beyond float32's range to infinity too
        return exact_float(float(np.float32(as_float)))


def float32_tuple_attribute(values: Any, *, op: str, field: str) -> tuple[float, ...]:
    """A C ``FLOAT`` array field (RESAMPLE1's ``Scales``): each number rounded to float32.

    >>> float32_tuple_attribute([2, 0.5], op="Desc", field="scales")
    (2.0, 0.5)
    """
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        raise InvalidArgumentError(op, field, "a sequence of numbers", repr(values)[:80])
    return tuple(
        float32_attribute(value, op=op, field=f"{field}[{i}]") for i, value in enumerate(values)
    )


def data_type_attribute(value: Any, *, op: str, field: str) -> DataType:
    """A ``DML_TENSOR_DATA_TYPE`` field (PADDING1's ``PaddingValueDataType``)."""
    return DataType.coerce(value, op=op, field=field)


def require_union_type(desc: Any, field: str, *, op: str, output: str = "output_tensor") -> None:
    """A ``DML_SCALAR_UNION``'s data type ``field`` (PADDING1's ``PaddingValueDataType``,
    CLIP1's ``MinMaxDataType``) is the type of the ``output`` tensor, as every page with
    one requires (CLIP_GRAD1's output is its ``output_gradient_tensor``)."""
    data_type = getattr(desc, field)
    want = getattr(desc, output).data_type
    if data_type != want:
        raise InvalidArgumentError(op, field, f"{output}.data_type ({want})", str(data_type))


def value_in(value: int | float, dtype: Any, *, op: str, field: str) -> np.ndarray:
    """``value`` as a 0-d array of ``dtype``: exact for integers (refused out of range or
    with a fraction), rounded to nearest for floating types, 0 or 1 for ``bool``.

    >>> value_in(-2, np.int8, op="f", field="value")
    array(-2, dtype=int8)
    """
    dtype = np.dtype(dtype)
    if dtype == np.bool_ or jnp.issubdtype(dtype, jnp.integer):
        info = (0, 1) if dtype == np.bool_ else (jnp.iinfo(dtype).min, jnp.iinfo(dtype).max)
        low, high = int(info[0]), int(info[1])
        if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
            raise InvalidArgumentError(
                op, field, f"an integer in [{low}, {high}] (dtype {dtype.name})", repr(value)
            )
        if not low <= int(value) <= high:
            raise InvalidArgumentError(
                op, field, f"an integer in [{low}, {high}] (dtype {dtype.name})", repr(value)
            )
        return np.array(int(value), dtype)
    try:
        with np.errstate(over="ignore"):  # rounding past the type's range gives an infinity
            return np.array(value, dtype)
    except OverflowError:
        raise InvalidArgumentError(
            op, field, f"a number dtype {dtype.name} can hold", repr(value)
        ) from None


def truncated_value(
    value: float, data_type: DataType, *, op: str, field: str, exact_desc: str
) -> np.ndarray:
    """A ``FLOAT`` value in ``data_type``: integers truncated toward zero (the pages' "10.6
    will become 10"), refused where no integer of the type is meant (NaN, an infinity, 300
    for UINT8); the hint names ``exact_desc``, the desc whose value has the tensor's type."""
    if data_type.is_floating:
        return value_in(value, data_type.dtype, op=op, field=field)
    if not math.isfinite(value):
        raise InvalidArgumentError(
            op,
            field,
            f"a finite value for {data_type} tensors",
            repr(value),
            hint=f"{exact_desc} holds a value of the tensor's own type.",
        )
    return value_in(math.trunc(value), data_type.dtype, op=op, field=field)


def exact_value(value: Any, data_type: DataType, *, op: str, field: str) -> int | float:
    """A ``DML_SCALAR_UNION`` read as ``data_type``: the number that type holds, exactly
    (an INT64 or UINT64 extreme, -inf, a NaN), refused where the type cannot hold it.
    A data type no union holds is left to the rules, which compare it with the tensor's."""
    number = static_number(value, op=op, field=field)
    if data_type is DataType.UNKNOWN or data_type in (DataType.UINT4, DataType.INT4):
        return number
    held = value_in(number, data_type.dtype, op=op, field=field).item()
    return static_number(held, op="", field="")
