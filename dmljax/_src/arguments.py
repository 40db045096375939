"""Conversion of user-given static values (axes, repeats, windows) to Python ints.

Values that decide shapes must be known while tracing. These helpers turn
Python and NumPy integers (and concrete JAX scalars) into ``int`` and refuse
everything else with a message that names the op and the field, instead of a
tracer leak or a failure deep inside JAX.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, SupportsIndex, TypeAlias

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import Tracer

from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "ExactFloat",
    "IntOrStaticInts",
    "StaticInts",
    "as_array",
    "normalize_axis",
    "one_spelling",
    "require_length",
    "static_bool",
    "static_int",
    "static_int_tuple",
    "static_number",
]

StaticInts: TypeAlias = Sequence[SupportsIndex] | np.ndarray
"""A sequence (or 1-D NumPy array) of integers known while tracing: repeats, offsets, ..."""
IntOrStaticInts: TypeAlias = SupportsIndex | StaticInts
"""One integer, or :data:`StaticInts` (``dml.tile``'s repeats, ``dml.split``'s sizes)."""

_TRACED_HINT = (
    "It decides the output shape, so it must be known while tracing: pass Python "
    "integers, or mark the argument static (jax.jit(..., static_argnames=...))."
)


def _describe(value: Any) -> str:
    if isinstance(value, Tracer):
        return f"a traced value ({value.aval.str_short()})"
    if isinstance(value, np.ndarray | jax.Array):
        return f"an array of dtype {value.dtype}"
    return repr(value)


def static_int(value: Any, *, op: str, field: str) -> int:
    """``value`` as a Python int; bools, floats and traced values are refused."""
    if type(value) is int:  # most are: the checks below take about a microsecond
        return value
    if isinstance(value, Tracer):
        raise InvalidArgumentError(
            op, field, "a static integer", _describe(value), hint=_TRACED_HINT
        )
    if isinstance(value, bool | np.bool_):
        raise InvalidArgumentError(op, field, "an integer, not a bool", repr(value))
    if isinstance(value, np.ndarray | jax.Array) and (
        value.ndim != 0 or not np.issubdtype(value.dtype, np.integer)
    ):
        raise InvalidArgumentError(op, field, "an integer scalar", _describe(value))
    try:
        return operator.index(value)
    except TypeError:
        raise InvalidArgumentError(op, field, "an integer", _describe(value)) from None
    except Exception as error:  # a user type whose __index__ fails
        raise InvalidArgumentError(
            op, field, "an integer", f"{_describe(value)}, whose __index__ raised {error!r}"
        ) from error


def static_bool(value: Any, *, op: str, field: str) -> bool:
    """``value`` if it is a Python bool; traced values and other types are refused."""
    if isinstance(value, Tracer):
        raise InvalidArgumentError(
            op,
            field,
            "a static bool",
            _describe(value),
            hint="It decides how the operation is lowered, so it must be known while tracing: "
            "pass True or False, or mark the argument static (jax.jit(..., static_argnames=...)).",
        )
    if not isinstance(value, bool):
        raise ArgumentTypeError(op, field, "a bool", repr(value))
    return value


_copysign, _isnan = math.copysign, math.isnan


class ExactFloat(float):
    """A float that tells ``-0.0`` from ``0.0`` and finds every NaN equal to every NaN.

    Static values are compared by ``==``: jit's cache and ``compile_operator``'s
    would hand a program built for ``0.0`` to a call with ``-0.0`` (the pad value
    would lose its sign), and never reuse one built for a NaN. Against an int it
    compares as a float does.

    >>> ExactFloat(-0.0) == 0.0, ExactFloat("nan") == float("nan"), ExactFloat(2.0) == 2
    (False, True, True)
    """

    def __eq__(self, other: object) -> bool:
        # Called on every jit cache lookup of a face with a float static: no hex() strings.
        if isinstance(other, float):
            if float.__eq__(self, other):
                return float.__ne__(self, 0.0) or _copysign(1.0, self) == _copysign(1.0, other)
            return _isnan(self) and _isnan(other)
        return float.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return 0 if _isnan(self) else float.__hash__(self)

    def __repr__(self) -> str:
        return float.__repr__(self)


def exact_float(value: float) -> float:
    """``value`` as a static that jit's cache tells apart from every other float: the
    float itself where ``==`` already does (a nonzero number, an infinity), hashed and
    compared in C, and an :class:`ExactFloat` for ``0.0``, ``-0.0`` and NaN. An eager call
    with two float statics pays about 0.5 us for ExactFloat's Python ``__hash__`` and
    ``__eq__`` in jit's cache lookup (measured on the CPU, where a call takes 5 us).

    >>> type(exact_float(0.5)).__name__, type(exact_float(-0.0)).__name__
    ('float', 'ExactFloat')
    """
    return value if value and value == value else ExactFloat(value)


def static_number(value: Any, *, op: str, field: str) -> int | float:
    """``value`` (a Python or NumPy real number, or a concrete 0-d array) as an int or a
    float (:func:`exact_float`); bools count as 0 and 1, traced values are refused."""
    if isinstance(value, Tracer):
        raise InvalidArgumentError(
            op,
            field,
            "a static number",
            _describe(value),
            hint="It is a constant of the lowering: pass a Python number (jax.lax.pad takes "
            "a traced padding value).",
        )
    if isinstance(value, np.ndarray | jax.Array | np.generic):
        if np.ndim(value) != 0 or not (
            np.issubdtype(value.dtype, np.number) or value.dtype == np.bool_
        ):
            raise InvalidArgumentError(op, field, "a real number", _describe(value))
        value = np.asarray(value).item()
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return exact_float(float(value))
    raise InvalidArgumentError(op, field, "a real number (int or float)", _describe(value))


def static_int_tuple(values: Any, *, op: str, field: str) -> tuple[int, ...]:
    """``values`` (a sequence or 1-D array of integers) as a tuple of Python ints."""
    kind = type(values)
    if (kind is tuple or kind is list) and all(type(v) is int for v in values):
        return tuple(values)  # ``[2, 2]``: 6.6 us through the checks below, 0.3 so
    if isinstance(values, Tracer):
        raise InvalidArgumentError(
            op, field, "a tuple of static integers", _describe(values), hint=_TRACED_HINT
        )
    if isinstance(values, np.ndarray | jax.Array):
        if values.ndim != 1:
            raise InvalidArgumentError(
                op, field, "a 1-D sequence of integers", f"an array of shape {values.shape}"
            )
        values = list(values)
    elif not isinstance(values, Sequence) or isinstance(values, str | bytes):
        raise ArgumentTypeError(op, field, "a tuple of integers", _describe(values))
    return tuple(static_int(v, op=op, field=f"{field}[{i}]") for i, v in enumerate(values))


def normalize_axis(axis: Any, ndim: int, *, op: str, field: str = "axis") -> int:
    """A static axis of an ``ndim``-D array in ``[-ndim, ndim)``, as a value in ``[0, ndim)``."""
    axis = static_int(axis, op=op, field=field)
    if ndim == 0:
        raise InvalidArgumentError(
            op,
            field,
            "an axis of the array, which has none (it is 0-D)",
            axis,
            hint="Give the array at least one dimension, e.g. x[None].",
        )
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(
            op, field, f"in [{-ndim}, {ndim}) for an array of {ndim} dimensions", axis
        )
    return axis % ndim


def one_spelling(axis: int, ndim: int) -> int:
    """A negative axis in range as its non-negative twin, so both share one jitted program.

    Out-of-range axes are left as they are, for the checks to report as given.

    >>> one_spelling(-1, 3), one_spelling(2, 3), one_spelling(-4, 3)
    (2, 2, -4)
    """
    return axis + ndim if -ndim <= axis < 0 else axis


def _jax_can_hold(dtype: np.dtype[Any]) -> bool:
    """Numbers and bools, but not dates and durations (NumPy counts ``timedelta64`` as an
    integer) nor floats wider than float64 (``longdouble`` where it is wider)."""
    if dtype.kind in "mM":
        return False
    if (dtype.kind == "f" and dtype.itemsize > 8) or (dtype.kind == "c" and dtype.itemsize > 16):
        return False
    return bool(jnp.issubdtype(dtype, jnp.number) or dtype == np.bool_)


def _numpy_dtypes_jax_holds() -> frozenset[np.dtype[Any]]:
    names = ("bool_", "int4", "int8", "int16", "int32", "int64", "uint4", "uint8", "uint16",
             "uint32", "uint64", "bfloat16", "float16", "float32", "float64", "complex64",
             "complex128", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
             "float8_e5m2", "float8_e5m2fnuz", "float8_e4m3", "float8_e3m4", "float8_e8m0fnu",
             "float4_e2m1fn")  # fmt: skip
    return frozenset(np.dtype(getattr(jnp, name)) for name in names if hasattr(jnp, name))


NUMPY_DTYPES_JAX_HOLDS = _numpy_dtypes_jax_holds()
"""The dtypes (native byte order) of NumPy arrays that a face may hand to jit as they are:
the slow path would pass them on unchanged."""


def native_byte_order(x: Any) -> Any:
    """A NumPy array of the other byte order converted to this machine's, which is the
    only one JAX holds; anything else as it is.

    >>> native_byte_order(np.arange(2, dtype=">i4")).dtype.isnative
    True
    """
    if isinstance(x, np.ndarray) and not x.dtype.isnative:
        return x.astype(x.dtype.newbyteorder("="))
    return x


def as_array(x: Any, *, op: str, field: str) -> jax.Array | np.ndarray:
    """``x`` as an array, for the functional faces: arrays as they are, scalars converted.

    Like :mod:`jax.numpy`, lists and tuples are refused rather than converted
    element by element, and so are arrays of strings, objects or dates, which
    JAX cannot hold.
    """
    if isinstance(x, jax.Array):
        if jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
            raise ArgumentTypeError(
                op,
                field,
                "an array of numbers or bools (typed PRNG keys move only where jax.numpy "
                "moves them: no reductions, no fill values)",
                f"a key array of dtype {x.dtype}",
                hint="Move the raw key data, jax.random.key_data(k), and rewrap the result "
                "with jax.random.wrap_key_data(...); its last axis holds each key's words.",
            )
        return x
    if isinstance(x, np.ma.MaskedArray):
        raise ArgumentTypeError(
            op,
            field,
            "a plain array (JAX would drop a masked array's mask)",
            "a numpy.ma.MaskedArray",
            hint="Pass x.filled(value) to choose what the masked elements hold.",
        )
    if isinstance(x, np.ndarray | np.generic):
        # NumPy scalars stay NumPy, like arrays: JAX would silently wrap a 64-bit
        # scalar to 32 bits here, before the index rules could saturate it.
        x = np.asarray(x)
        if not _jax_can_hold(x.dtype):
            raise ArgumentTypeError(
                op,
                field,
                "an array of numbers or bools of a dtype JAX holds",
                f"an array of dtype {x.dtype}",
                hint="Dates, durations and extended-precision floats have no JAX dtype.",
            )
        return native_byte_order(x)
    if isinstance(x, int | float | complex):
        try:
            return jnp.asarray(x)
        except OverflowError:
            raise InvalidArgumentError(
                op,
                field,
                "a Python scalar that fits JAX's default integer type",
                repr(x),
                hint="Pass an array of an explicit dtype (64-bit ones need jax_enable_x64).",
            ) from None
    raise ArgumentTypeError(
        op, field, "an array or a scalar", type(x).__name__, hint="Wrap it in jnp.asarray(...)."
    )


def require_length(
    values: Sequence[Any] | np.ndarray, length: int, *, op: str, field: str, why: str
) -> None:
    """``values`` (repeats, a window, ...) must have ``length`` entries, for the reason ``why``.

    >>> require_length((1, 2), 3, op="dmljax.tile", field="repeats", why="one per dimension")
    Traceback (most recent call last):
    dmljax.errors.InvalidArgumentError: dmljax.tile: repeats must be 3 long (one per ...
    """
    if len(values) != length:
        shown = tuple(v.item() if isinstance(v, np.generic) else v for v in values[:_SHOWN])
        listed = f"{shown}" if len(values) <= _SHOWN else f"{str(shown)[:-1]}, ...)"
        raise InvalidArgumentError(
            op, field, f"{length} long ({why})", f"{len(values)} entries {listed}"
        )


_SHOWN = 8  # entries of a too long tuple an error prints (a range(10**7) prints 89 MB whole)
