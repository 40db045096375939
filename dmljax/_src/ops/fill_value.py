"""FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE: generators, whose one tensor is the output.

FILL_VALUE_CONSTANT writes ``Value`` into every element; FILL_VALUE_SEQUENCE writes
``ValueStart + i * ValueDelta`` into element ``i`` in row-major order. Each value is a
``DML_SCALAR_UNION`` read as ``ValueDataType``, which must be the output's type, so every
value of the type is held exactly (an INT64 extreme, a NaN, -0.0). Integers wrap in the
type, as C's unsigned arithmetic does (UINT8 10 with delta 254, that is -2: 10, 8, 6, ...);
floating types compute ``start + i * delta`` with ``i`` in float32 (float64 for FLOAT64)
and round once to the type (FLOAT16 through float32).

>>> import jax.numpy as jnp, dmljax as dml
>>> dml.fill_value_sequence((2, 2), 10, -2, dtype=jnp.uint8)
Array([[10,  8],
       [ 6,  4]], dtype=uint8)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import DTypeLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules, scalars
from dmljax._src.arguments import static_number
from dmljax._src.dtypes import DataType, accumulator, index_type
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "FACE_DTYPES",
    "FILL_VALUE_CONSTANT",
    "FILL_VALUE_SEQUENCE",
    "FillValueConstantOperatorDesc",
    "FillValueSequenceOperatorDesc",
    "fill_value_constant",
    "fill_value_sequence",
    "sequence_lowering",
]


def _hold_unions(desc: Any, fields: tuple[str, ...]) -> None:
    """Keeps each union field of ``desc`` as the number its ``value_data_type`` holds (a
    delta wrapped into an integer type first, as C's conversion does)."""
    for field in fields:
        value = getattr(desc, field)
        data_type = desc.value_data_type
        if field == "value_delta" and data_type.is_integer:
            value = wrapped(value, data_type.dtype, op=type(desc).__name__, field=field).item()
        held = scalars.exact_value(value, data_type, op=type(desc).__name__, field=field)
        object.__setattr__(desc, field, held)


def wrapped(value: Any, dtype: Any, *, op: str, field: str) -> np.ndarray:
    """An integer step in an integer ``dtype``, modulo ``2**bits`` as C converts it: -2 is
    254 in uint8, whose sums then step down by 2 (the page's example). Any integer from
    ``-2**(bits - 1)`` to ``2**bits - 1`` is taken.

    >>> wrapped(-2, np.uint8, op="f", field="delta")
    array(254, dtype=uint8)
    """
    dtype = np.dtype(dtype)
    bits = dtype.itemsize * 8
    low, high = -(2 ** (bits - 1)), 2**bits - 1
    number = static_number(value, op=op, field=field)
    if isinstance(number, float) or not low <= number <= high:
        raise InvalidArgumentError(
            op, field, f"an integer in [{low}, {high}] (dtype {dtype.name}, taken modulo "
            f"2**{bits})", repr(value),
        )  # fmt: skip
    unsigned = np.dtype(f"u{dtype.itemsize}")
    return np.array(number % 2**bits, unsigned).view(dtype)


class FillValueConstantOperatorDesc(contract.OperatorDesc[jax.Array]):
    """``DML_FILL_VALUE_CONSTANT_OPERATOR_DESC``: ``value`` in every element of the output.

    ``value`` is a ``DML_SCALAR_UNION`` read as ``value_data_type``, the output's type. A
    generator: the compiled operator takes no arrays. Introduced at FL 2_1 (4-D, 8- to
    32-bit types); 1 to 8 dimensions from 4_0; FLOAT64 and 64-bit integers from 4_1. Its
    functional face is :func:`dmljax.fill_value_constant`.

    >>> import dmljax as dml
    >>> desc = dml.FillValueConstantOperatorDesc(
    ...     output_tensor=dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(1, 1, 2, 4)),
    ...     value_data_type=dml.DataType.FLOAT32, value=13.0)
    >>> dml.compile_operator(desc)()[0, 0]
    Array([[13., 13., 13., 13.],
           [13., 13., 13., 13.]], dtype=float32)
    """

    output_tensor: TensorDesc = contract.tensor_field("output")
    value_data_type: DataType = contract.attribute(scalars.data_type_attribute)
    value: int | float = contract.attribute(static_number, default=0)

    def __post_init__(self) -> None:
        super().__post_init__()
        _hold_unions(self, ("value",))


class FillValueSequenceOperatorDesc(contract.OperatorDesc[jax.Array]):
    """``DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC``: ``value_start + i * value_delta`` in
    element ``i`` (row-major) of the output.

    Both values are ``DML_SCALAR_UNION``\\ s read as ``value_data_type``, the output's
    type. A generator: the compiled operator takes no arrays. Introduced at FL 2_1 (4-D,
    8- to 32-bit types); 1 to 8 dimensions from 4_0; 64-bit integers from 5_0 (no
    FLOAT64). Its functional face is :func:`dmljax.fill_value_sequence`.

    >>> import dmljax as dml
    >>> desc = dml.FillValueSequenceOperatorDesc(
    ...     output_tensor=dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(1, 1, 1, 3)),
    ...     value_data_type=dml.DataType.FLOAT32, value_start=3, value_delta=2)
    >>> dml.compile_operator(desc)()[0, 0, 0]
    Array([3., 5., 7.], dtype=float32)
    """

    output_tensor: TensorDesc = contract.tensor_field("output")
    value_data_type: DataType = contract.attribute(scalars.data_type_attribute)
    value_start: int | float = contract.attribute(static_number, default=0)
    value_delta: int | float = contract.attribute(static_number, default=0)

    def __post_init__(self) -> None:
        super().__post_init__()
        _hold_unions(self, ("value_start", "value_delta"))


def sequence_lowering(
    shape: tuple[int, ...], dtype: Any, *, start: np.ndarray, delta: np.ndarray
) -> jax.Array:
    """``start + i * delta`` for each element ``i`` of ``shape`` (row-major), as the module
    says: integers wrap in the type, floats compute in the accumulator and round once."""
    count = math.prod(shape)
    dtype = np.dtype(dtype)
    if jnp.issubdtype(dtype, jnp.integer):
        # The flat index wraps to the type first: (i mod 2**bits) * delta wraps alike.
        i = lax.convert_element_type(lax.iota(index_type(count), count), dtype)
        flat = i * delta.astype(dtype) + start.astype(dtype)  # + commutes exactly
    else:
        wide = accumulator(dtype)
        i = lax.iota(wide, count)
        flat = (i * delta.astype(wide) + start.astype(wide)).astype(dtype)
    return flat.reshape(shape)


def _constant_lowering(shape: tuple[int, ...], dtype: Any, *, value: np.ndarray) -> jax.Array:
    return lax.full(shape, value, dtype)


_FACE_TYPES = (np.float32, np.float16, jnp.bfloat16, np.float64, np.int8, np.int16, np.int32,
               np.int64, np.uint8, np.uint16, np.uint32, np.uint64)  # fmt: skip
FACE_DTYPES: frozenset[np.dtype[Any]] = frozenset(np.dtype(t) for t in _FACE_TYPES)
"""The faces' dtypes: the pages' types, and bfloat16 as the family's faces take it."""


# --- The rules ----------------------------------------------------------------------------------


def _rules(desc: Any, level: FL) -> None:
    del level
    scalars.require_union_type(desc, "value_data_type", op=type(desc).__name__)


def _held(desc: Any, field: str) -> np.ndarray:
    return scalars.value_in(
        getattr(desc, field), desc.output_tensor.dtype, op=type(desc).__name__, field=field
    )


def _lower_constant(desc: Any, options: contract.LoweringOptions) -> Any:
    del options
    output = desc.output_tensor
    return functools.partial(
        _constant_lowering, output.sizes, output.dtype, value=_held(desc, "value")
    )


def _lower_sequence(desc: Any, options: contract.LoweringOptions) -> Any:
    del options
    output = desc.output_tensor
    return functools.partial(
        sequence_lowering,
        output.sizes,
        output.dtype,
        start=_held(desc, "value_start"),
        delta=_held(desc, "value_delta"),
    )


# --- The functional faces ------------------------------------------------------------------------


def _checked_shape(op: str, shape: tuple[int, ...], dtype: Any) -> np.dtype[Any]:
    dtype = np.dtype(dtype)
    if dtype not in FACE_DTYPES:
        raise InvalidArgumentError(
            op, "dtype", "a DirectML data type (or bfloat16)", dtype.name,
        )  # fmt: skip
    for i, size in enumerate(shape):
        if size < 0:
            raise InvalidArgumentError(op, f"shape[{i}]", "non-negative", size)
    rules.require_fits_xla(shape, dtype, op=op, field="shape", given=str(shape))
    nbytes = math.prod(shape) * dtype.itemsize
    rules.require_fits_memory(nbytes, op=op, field="shape", given=f"{shape} ({nbytes} bytes)")
    return dtype


def _checked_constant(shape: tuple[int, ...], value: int | float, dtype: Any) -> jax.Array:
    op = "dmljax.fill_value_constant"
    dtype = _checked_shape(op, shape, dtype)
    held = scalars.value_in(value, dtype, op=op, field="value")
    return _constant_lowering(shape, dtype, value=held)


def _checked_sequence(
    shape: tuple[int, ...], start: int | float, delta: int | float, dtype: Any
) -> jax.Array:
    op = "dmljax.fill_value_sequence"
    dtype = _checked_shape(op, shape, dtype)
    held = scalars.value_in(start, dtype, op=op, field="start")
    if jnp.issubdtype(dtype, jnp.integer):
        step = wrapped(delta, dtype, op=op, field="delta")
    else:
        step = scalars.value_in(delta, dtype, op=op, field="delta")
    return sequence_lowering(shape, dtype, start=held, delta=step)


def _constant_node(call: NodeCall) -> Any:
    output = call.outputs[0]
    return FillValueConstantOperatorDesc(
        output_tensor=output, value_data_type=output.data_type, value=call.statics["value"]
    )


def _sequence_node(call: NodeCall) -> Any:
    output = call.outputs[0]
    return FillValueSequenceOperatorDesc(
        output_tensor=output, value_data_type=output.data_type,
        value_start=call.statics["start"], value_delta=call.statics["delta"],
    )  # fmt: skip


def fill_value_constant(
    shape: Sequence[int], value: int | float, *, dtype: DTypeLike = jnp.float32
) -> jax.Array:
    """An array of ``shape`` whose every element is ``value`` (DirectML
    FILL_VALUE_CONSTANT): ``jnp.full(shape, value, dtype)``.

    The functional face of :class:`FillValueConstantOperatorDesc`. ``value`` is a Python
    number ``dtype`` holds (an integer exactly: ``2**63 - 1`` for int64, refused for
    int8; a float rounded to the type).

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.fill_value_constant((2, 3), 7, dtype=jnp.int8)
    Array([[7, 7, 7],
           [7, 7, 7]], dtype=int8)
    """
    return CONSTANT_FACE.call(shape, value, dtype)


def fill_value_sequence(
    shape: Sequence[int],
    start: int | float,
    delta: int | float,
    *,
    dtype: DTypeLike = jnp.float32,
) -> jax.Array:
    """``start + i * delta`` in element ``i`` (row-major) of an array of ``shape``
    (DirectML FILL_VALUE_SEQUENCE): ``(start + jnp.arange(n) * delta).reshape(shape)``.

    The functional face of :class:`FillValueSequenceOperatorDesc`. Integers wrap in
    ``dtype`` (an integer ``delta`` is taken modulo ``2**bits``: -2 steps a uint8 down);
    floats compute in float32 (float64 for float64) and round once.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.fill_value_sequence((1, 4), 3.0, 0.5)
    Array([[3. , 3.5, 4. , 4.5]], dtype=float32)
    """
    return SEQUENCE_FACE.call(shape, start, delta, dtype)


CONSTANT_FACE = faces.FunctionalFace(
    fill_value_constant,
    _checked_constant,
    faces.IntTuple("shape"),
    faces.Number("value"),
    faces.DType("dtype"),
    graph_node=_constant_node,
)

SEQUENCE_FACE = faces.FunctionalFace(
    fill_value_sequence,
    _checked_sequence,
    faces.IntTuple("shape"),
    faces.Number("start"),
    faces.Number("delta"),
    faces.DType("dtype"),
    graph_node=_sequence_node,
)

_INTEGERS_64 = frozenset({DataType.INT64, DataType.UINT64})

FILL_VALUE_CONSTANT: contract.Operator[FillValueConstantOperatorDesc] = contract.Operator(
    "DML_OPERATOR_FILL_VALUE_CONSTANT",
    FillValueConstantOperatorDesc,
    support=(
        fl.band(FL.FL_2_1, (4, 4), fl.TYPES_8_32),
        fl.band(FL.FL_4_0, (1, 8), fl.TYPES_8_32),
        fl.band(FL.FL_4_1, (1, 8), fl.TYPES_8_64),
    ),
    same_dimension_count=False,  # one tensor
    same_data_type=(),
    rules=_rules,
    output_sizes=None,  # a generator: the output's sizes are the desc's choice
    lower=_lower_constant,
    face=CONSTANT_FACE,
)

FILL_VALUE_SEQUENCE: contract.Operator[FillValueSequenceOperatorDesc] = contract.Operator(
    "DML_OPERATOR_FILL_VALUE_SEQUENCE",
    FillValueSequenceOperatorDesc,
    support=(
        fl.band(FL.FL_2_1, (4, 4), fl.TYPES_8_32),
        fl.band(FL.FL_4_0, (1, 8), fl.TYPES_8_32),
        fl.band(FL.FL_5_0, (1, 8), fl.TYPES_8_32 | _INTEGERS_64),
    ),
    same_dimension_count=False,  # one tensor
    same_data_type=(),
    rules=_rules,
    output_sizes=None,  # a generator: the output's sizes are the desc's choice
    lower=_lower_sequence,
    face=SEQUENCE_FACE,
)
