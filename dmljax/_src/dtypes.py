"""DirectML's ``DML_TENSOR_DATA_TYPE`` and its mapping to NumPy/JAX dtypes."""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = ["DataType", "accumulator", "require_x64", "require_x64_for_axis", "x64_enabled"]


class _TypeInfo(NamedTuple):
    dtype: np.dtype[Any]
    bit_width: int
    kind: str  # "float", "signed" or "unsigned"


class DataType(enum.IntEnum):
    """A ``DML_TENSOR_DATA_TYPE``, with DirectML's numeric values.

    DirectML has no ``bool`` or ``bfloat16``; the functional faces accept them,
    the desc face cannot express them. ``UINT4``/``INT4`` (FL 6_3) exist for
    (de)quantization only; every data-movement operator refuses them.

    >>> import dmljax as dml
    >>> dml.DataType.INT32.dtype, dml.DataType.INT32.bit_width, dml.DataType.INT32.is_signed
    (dtype('int32'), 32, True)
    >>> dml.DataType.from_dtype("float16")
    <DataType.FLOAT16: 2>
    """

    UNKNOWN = 0
    FLOAT32 = 1
    FLOAT16 = 2
    UINT32 = 3
    UINT16 = 4
    UINT8 = 5
    INT32 = 6
    INT16 = 7
    INT8 = 8
    FLOAT64 = 9
    UINT64 = 10
    INT64 = 11
    UINT4 = 12
    INT4 = 13

    @property
    def _info(self) -> _TypeInfo:
        if self is DataType.UNKNOWN:
            raise InvalidArgumentError(
                "DataType", "data_type", "a concrete type (UNKNOWN is never valid)", "UNKNOWN"
            )
        return _INFO[self]

    @property
    def dtype(self) -> np.dtype[Any]:
        """The NumPy dtype of an element (``int4``/``uint4`` from ml_dtypes)."""
        return self._info.dtype

    @property
    def bit_width(self) -> int:
        """The bits per element (4, 8, 16, 32 or 64)."""
        return self._info.bit_width

    @property
    def is_floating(self) -> bool:
        """True for FLOAT16, FLOAT32 and FLOAT64."""
        return self._info.kind == "float"

    @property
    def is_integer(self) -> bool:
        """True for the signed and unsigned integer types."""
        return self._info.kind != "float"

    @property
    def is_signed(self) -> bool:
        """True if the type can hold negative values (floats and signed integers)."""
        return self._info.kind != "unsigned"

    @property
    def is_64_bit(self) -> bool:
        """True for the types that need ``jax_enable_x64``."""
        return self._info.bit_width == 64

    @classmethod
    def from_dtype(cls, dtype: Any) -> DataType:
        """The DataType of a NumPy/JAX dtype (or anything ``np.dtype`` accepts).

        Raises:
            InvalidArgumentError: for dtypes DirectML has no type for (``bool``,
                ``bfloat16``, complex, ...).
        """
        try:
            dt = np.dtype(dtype)
        except TypeError as e:
            raise ArgumentTypeError("DataType", "dtype", "a NumPy/JAX dtype", repr(dtype)) from e
        found = _BY_DTYPE.get(dt)
        if found is None:
            raise InvalidArgumentError(
                "DataType",
                "dtype",
                "one DirectML has a DML_TENSOR_DATA_TYPE for",
                dt.name,
                hint="The functional faces (dmljax.tile, ...) accept any JAX dtype.",
            )
        return found

    @classmethod
    def coerce(cls, value: Any, *, op: str, field: str) -> DataType:
        """A desc's ``DML_TENSOR_DATA_TYPE`` field: a DataType (or its int value).

        A NumPy or JAX dtype, or a name, is refused with the DataType to write
        instead: a desc spells DirectML's types, which are not JAX's dtypes.

        >>> DataType.coerce(DataType.INT8, op="TensorDesc", field="data_type")
        <DataType.INT8: 8>
        """
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentTypeError(op, field, "a dmljax.DataType", repr(value),
                                    hint=_data_type_hint(value))  # fmt: skip
        try:
            return cls(value)
        except ValueError:
            raise InvalidArgumentError(
                op, field, "a DML_TENSOR_DATA_TYPE value (0 ... 13)", value
            ) from None

    def __str__(self) -> str:
        return self.name


def _data_type_hint(value: Any) -> str | None:
    """What to write for a dtype or a type's name given where a DataType belongs."""
    if isinstance(value, str) and value.upper() in DataType.__members__:
        return f"Write dml.DataType.{value.upper()}."
    if value is None:
        return None
    try:
        dtype = np.dtype(value)
    except TypeError:
        return None
    found = _BY_DTYPE.get(dtype)
    if found is None:
        return (
            f"DirectML has no DML_TENSOR_DATA_TYPE for {dtype.name}; the functional faces "
            "(dmljax.tile, ...) take it."
        )
    return (
        f"Write dml.DataType.{found.name} (dml.DataType.from_dtype converts a NumPy or JAX dtype)."
    )


def _type_info(data_type: DataType) -> _TypeInfo:
    # Each DirectML name, lowercased, is its NumPy (or ml_dtypes) dtype's name.
    dtype = jnp.dtype(data_type.name.lower())
    if jnp.issubdtype(dtype, jnp.floating):
        return _TypeInfo(dtype, jnp.finfo(dtype).bits, "float")
    kind = "signed" if jnp.issubdtype(dtype, jnp.signedinteger) else "unsigned"
    return _TypeInfo(dtype, jnp.iinfo(dtype).bits, kind)


_INFO = {t: _type_info(t) for t in DataType if t is not DataType.UNKNOWN}
_BY_DTYPE: dict[np.dtype[Any], DataType] = {info.dtype: t for t, info in _INFO.items()}


_HALF_FLOATS = frozenset({np.dtype(np.float16), np.dtype(jnp.bfloat16)})


def accumulator(dtype: Any) -> np.dtype[Any]:
    """The type a sum, product or normalization of ``dtype`` computes in: float32 for
    float16 and bfloat16 (rounded once to the type at the end, as DirectML's
    half-precision shaders compute), ``dtype`` itself otherwise (integers wrap in it).

    >>> accumulator(jnp.bfloat16), accumulator(np.int8)
    (dtype('float32'), dtype('int8'))
    """
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype in _HALF_FLOATS else dtype


def x64_enabled() -> bool:
    """Whether 64-bit types are on, honouring ``with jax.enable_x64(...)`` scopes."""
    return bool(jax.config.jax_enable_x64)  # pyright: ignore[reportAttributeAccessIssue]


_X64_HINT = (
    "{} need jax_enable_x64: call jax.config.update('jax_enable_x64', True) at startup, "
    "set JAX_ENABLE_X64=1, or wrap the code in `with jax.enable_x64(True):`."
)


def require_x64(data_type: DataType, *, op: str, field: str) -> None:
    """Raises unless JAX can hold ``data_type`` under the current x64 setting."""
    if data_type.is_64_bit and not x64_enabled():
        raise InvalidArgumentError(
            op,
            field,
            "a type JAX can hold while jax_enable_x64 is off",
            data_type.name,
            hint=_X64_HINT.format("64-bit types"),
        )


def index_type(largest: Any) -> np.dtype[Any]:
    """The int type of positions up to ``largest``: int32 where it holds them, else int64;
    for a :func:`jax.export` symbol, int64 where x64 is on and int32 otherwise.

    >>> index_type(2**31 - 1), index_type(2**31)
    (dtype('int32'), dtype('int64'))
    """
    if not isinstance(largest, (int, np.integer)):
        return np.dtype(np.int64 if x64_enabled() else np.int32)
    return np.dtype(np.int32 if largest <= np.iinfo(np.int32).max else np.int64)


def require_x64_for_axis(length: int, *, op: str, field: str) -> None:
    """Raises for an indexed axis longer than int32 can count while x64 is off.

    Its indices need a 64-bit type; without x64 JAX would narrow them to int32
    and silently wrap, so the far end of the axis would be unreachable.
    """
    if not isinstance(length, (int, np.integer)):
        return  # a jax.export symbol, which int32 indices count as far as they reach
    if length > np.iinfo(np.int32).max and not x64_enabled():
        raise InvalidArgumentError(
            op,
            field,
            f"at most {np.iinfo(np.int32).max} (int32 indices) while jax_enable_x64 is off",
            length,
            hint=_X64_HINT.format("Indices into longer axes"),
        )
