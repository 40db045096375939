"""DirectML's index rules, shared by GATHER, GATHER_ELEMENTS and SCATTER.

* From FL 3_0, negative values of a *signed* index type count from the end of
  the axis (``-1`` is the last element). Unsigned values are never negative:
  a UINT32 of ``2**32 - 1`` is simply out of range.
* DirectML promises only that invalid indices never read or write outside the
  tensor. dmljax makes that exact: gathers clamp each index to ``[0, dim - 1]``
  after wrapping; scatters drop updates whose index is out of range.

The helpers return indices in JAX's index dtype (int32, or int64 for axes of
more than 2**31 - 1 elements), computed without overflow for any integer
input type, so a lowering can hand them to ``lax.gather``/``lax.scatter``.
"""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import Tracer

from dmljax._src.arguments import NUMPY_DTYPES_JAX_HOLDS, as_array
from dmljax._src.dtypes import index_type, x64_enabled
from dmljax._src.feature_levels import FeatureLevel
from dmljax.errors import InvalidArgumentError, NarrowedIndicesWarning

__all__ = [
    "NEGATIVE_INDICES_SINCE",
    "NUMPY_NARROW_INDICES",
    "NUMPY_WIDE_INDICES",
    "as_index_array",
    "clamp_indices",
    "drop_out_of_range_indices",
    "index_constant",
    "narrowed_numpy_indices",
    "wraps_negative_indices",
]

NEGATIVE_INDICES_SINCE = FeatureLevel.FL_3_0


def wraps_negative_indices(level: FeatureLevel) -> bool:
    """Whether signed negative indices count from the end at this feature level."""
    return level >= NEGATIVE_INDICES_SINCE


def _is_index_dtype(dtype: Any) -> bool:
    dtype = np.dtype(dtype)
    return dtype != np.bool_ and jnp.issubdtype(dtype, jnp.integer)


def as_index_array(indices: Any, *, op: str, field: str) -> jax.Array | np.ndarray:
    """``indices`` as an integer array of any width, for the functional faces.

    A NumPy array of 64-bit integers (``np.arange`` makes them), or a JAX one made
    while ``jax_enable_x64`` was on, would be truncated by JAX while it is off; its
    values are saturated to 32 bits instead, which keeps every out-of-range index out
    of range and every negative index negative.
    """
    indices = as_array(indices, op=op, field=field)
    if not _is_index_dtype(indices.dtype):
        raise InvalidArgumentError(
            op,
            field,
            "an array of an integer dtype",
            f"an array of dtype {np.dtype(indices.dtype).name}",
            hint="Indices cannot be floats, bools or complex numbers; convert them with "
            ".astype(jnp.int32) if the values are whole numbers.",
        )
    wide = indices.dtype.itemsize == 8 and not x64_enabled()
    if wide and isinstance(indices, jax.Array) and not isinstance(indices, Tracer):
        # Made while x64 was on and used after it: JAX would wrap it at a jit boundary.
        indices = np.asarray(indices)
    if wide and isinstance(indices, np.ndarray):
        narrow = np.dtype(np.int32 if np.issubdtype(indices.dtype, np.signedinteger) else np.uint32)
        info = np.iinfo(narrow)
        saturated = np.clip(indices, info.min, info.max)
        if indices.size and not np.array_equal(saturated, indices):
            warnings.warn(
                f"{op}: {field} holds 64-bit values beyond {narrow.name}; dmljax keeps them "
                "out of range here, but a jax.jit around this call would wrap them to "
                f"{narrow.name} before dmljax sees them (2**32 + 1 becomes 1). Enable "
                "jax_enable_x64 or pass int32 indices.",
                NarrowedIndicesWarning,
                stacklevel=4,
            )
        indices = saturated.astype(narrow)
    return indices


# Each 64-bit index dtype: its 32-bit one and that one's bounds (np.iinfo costs a microsecond).
_NARROWER = {
    np.dtype(wide): (np.dtype(narrow), int(np.iinfo(narrow).min), int(np.iinfo(narrow).max))
    for wide, narrow in ((np.int64, np.int32), (np.uint64, np.uint32))
}
_minimum, _maximum = np.minimum.reduce, np.maximum.reduce
NUMPY_NARROW_INDICES = frozenset(
    d for d in NUMPY_DTYPES_JAX_HOLDS if _is_index_dtype(d) and d.itemsize < 8
)
"""Index dtypes of NumPy arrays that jit takes as they are, whatever jax_enable_x64 says."""
NUMPY_WIDE_INDICES = frozenset(_NARROWER)


def narrowed_numpy_indices(x: Any) -> Any:
    """NumPy 64-bit indices whose values all fit 32 bits, as 32-bit ones while
    jax_enable_x64 is off (a cheap test for the fast path); anything else unchanged, for
    :func:`as_index_array` to saturate and warn.

    >>> narrowed_numpy_indices(np.arange(3)).dtype
    dtype('int32')
    """
    if type(x) is not np.ndarray or x.dtype not in _NARROWER or x64_enabled():
        return x
    narrow, low, high = _NARROWER[x.dtype]
    if _SAME_VALUE_CASTS:  # one pass, refused where a value changes: 0.4 us, not 3
        try:
            return x.astype(narrow, casting="same_value")  # pyright: ignore[reportArgumentType]
        except ValueError:
            return x
    # The ufuncs' reductions, not x.min(): a NumPy method's wrapper costs a microsecond.
    if x.size and (_minimum(x, axis=None) < low or _maximum(x, axis=None) > high):
        return x
    return x.astype(narrow)


def _casts_same_value() -> bool:
    """Whether this NumPy's ``astype`` takes ``casting="same_value"`` (2.4 and later)."""
    try:
        np.zeros(1, np.int64).astype(np.int32, casting="same_value")  # pyright: ignore[reportArgumentType]
    except (TypeError, ValueError):
        return False
    return True


_SAME_VALUE_CASTS = _casts_same_value()


Dims = int | tuple[int, ...]
"""One dimension's size, or one per index component along the indices' last axis (ND ops)."""


def _static(dim: Any) -> bool:
    """Whether a size is a known integer rather than a :func:`jax.export` symbol."""
    return isinstance(dim, (int, np.integer))


def _jax_index_dtype(dim: Dims) -> np.dtype[Any]:
    sizes = dim if isinstance(dim, tuple) else (dim,)
    symbol = next((d for d in sizes if not _static(d)), None)
    return index_type(max(sizes, default=0) if symbol is None else symbol)


def _each(dim: Dims, fn: Any) -> Any:
    """``fn(d)`` of one dimension, or a tuple of ``fn(d)`` for each of a tuple."""
    return tuple(fn(d) for d in dim) if isinstance(dim, tuple) else fn(dim)


def index_constant(values: Any, dtype: Any, ndim: int) -> jax.Array:
    """``values`` as a constant of ``dtype``: a scalar, or a vector along the last of
    ``ndim`` axes (shaped to broadcast without rank promotion)."""
    items = values if isinstance(values, tuple) else (values,)
    if all(_static(v) or isinstance(v, (bool, np.bool_)) for v in items):
        constant = np.asarray(values, dtype=np.dtype(dtype))
        if constant.ndim:
            constant = constant.reshape((1,) * (ndim - 1) + constant.shape)
        return jnp.asarray(constant)
    # A jax.export symbol among them: its value is only known when the program runs.
    known = [jnp.asarray(v).astype(dtype) for v in items]
    if not isinstance(values, tuple):
        return known[0]
    return jnp.stack(known).reshape((1,) * (ndim - 1) + (len(known),))


def _widened_signed(indices: jax.Array, dim: Dims) -> jax.Array:
    """Signed indices in a type that holds them and ``dim``, so ``i + dim`` cannot overflow."""
    wide = _jax_index_dtype(dim)
    # Not jnp.promote_types: it refuses to promote the 2- and 4-bit integer types.
    if jnp.iinfo(indices.dtype).bits > 8 * wide.itemsize:
        wide = np.dtype(indices.dtype)
    return indices.astype(wide)


def _last_valid_unsigned(indices: jax.Array, dim: Dims) -> tuple[Any, bool]:
    """The largest valid index of each dimension in the unsigned index type (the type's
    largest value where the dimension is longer), and whether that clips anything."""
    top = int(jnp.iinfo(indices.dtype).max)
    if not all(_static(d) for d in (dim if isinstance(dim, tuple) else (dim,))):
        return _each(dim, lambda d: min(max(d - 1, 0), top) if _static(d) else d - 1), True
    last = _each(dim, lambda d: min(max(d - 1, 0), top))
    return last, min(last if isinstance(last, tuple) else (last,), default=top) < top


def clamp_indices(indices: jax.Array, dim: Dims, *, wrap_negative: bool) -> jax.Array:
    """Gather indices: wrap signed negatives (if allowed), then clamp to ``[0, dim - 1]``.

    A tuple ``dim`` holds one size per component of the indices' last axis (the
    index tuples of GATHER_ND), each component clamped into its own dimension.
    """
    index_dtype = _jax_index_dtype(dim)
    if jnp.issubdtype(indices.dtype, jnp.unsignedinteger):
        # Clamp in the unsigned type: converting first would turn 2**32 - 1 into -1.
        last, clips = _last_valid_unsigned(indices, dim)
        if clips:
            indices = jnp.minimum(indices, index_constant(last, indices.dtype, indices.ndim))
        return indices.astype(index_dtype)
    wide = _widened_signed(indices, dim)
    if wrap_negative:
        wide = jnp.where(wide < 0, wide + index_constant(dim, wide.dtype, indices.ndim), wide)
    last = _each(dim, lambda d: max(d - 1, 0))
    wide = jnp.clip(
        wide, jnp.asarray(0, wide.dtype), index_constant(last, wide.dtype, indices.ndim)
    )
    return wide.astype(index_dtype)


def drop_out_of_range_indices(indices: jax.Array, dim: Dims, *, wrap_negative: bool) -> jax.Array:
    """Scatter indices: wrap signed negatives (if allowed); the out-of-range become ``dim``.

    ``dim`` is out of range for every scatter mode that drops, so the update
    at such an index is never written. A tuple ``dim`` holds one size per
    component of the indices' last axis (SCATTER_ND's index tuples): a tuple
    with any component out of range is out of range, and its update dropped.
    """
    index_dtype = _jax_index_dtype(dim)
    size = index_constant(dim, index_dtype, indices.ndim)
    if jnp.issubdtype(indices.dtype, jnp.unsignedinteger):
        # Compare in the unsigned type, then convert: what the conversion would
        # wrap to a negative number is out of range and replaced.
        last, clips = _last_valid_unsigned(indices, dim)
        if not clips:
            return indices.astype(index_dtype)
        out = indices > index_constant(last, indices.dtype, indices.ndim)
        if 0 in (dim if isinstance(dim, tuple) else (dim,)):  # nothing is in an empty axis
            out = out | index_constant(_each(dim, lambda d: d == 0), np.bool_, indices.ndim)
        return jnp.where(out, size, indices.astype(index_dtype))
    wide = _widened_signed(indices, dim)
    wide_size = index_constant(dim, wide.dtype, indices.ndim)
    if wrap_negative:
        wide = jnp.where(wide < 0, wide + wide_size, wide)
    in_range = (wide >= 0) & (wide < wide_size)
    return jnp.where(in_range, wide, wide_size).astype(index_dtype)
