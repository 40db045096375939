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

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from dmljax._src.arguments import as_array
from dmljax._src.dtypes import x64_enabled
from dmljax._src.feature_levels import FeatureLevel
from dmljax.errors import InvalidArgumentError

__all__ = [
    "NEGATIVE_INDICES_SINCE",
    "as_index_array",
    "clamp_indices",
    "drop_out_of_range_indices",
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

    A NumPy array of 64-bit integers (``np.arange`` makes them) would be
    truncated by JAX while ``jax_enable_x64`` is off; its values are saturated
    to 32 bits instead, which keeps every out-of-range index out of range and
    every negative index negative.
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
    if isinstance(indices, np.ndarray) and indices.dtype.itemsize == 8 and not x64_enabled():
        narrow = np.dtype(np.int32 if np.issubdtype(indices.dtype, np.signedinteger) else np.uint32)
        info = np.iinfo(narrow)
        indices = np.clip(indices, info.min, info.max).astype(narrow)
    return indices


def _jax_index_dtype(dim: int) -> np.dtype[Any]:
    return np.dtype(np.int32 if dim <= np.iinfo(np.int32).max else np.int64)


def _widened_signed(indices: jax.Array, dim: int) -> jax.Array:
    """Signed indices in a type that holds them and ``dim``, so ``i + dim`` cannot overflow."""
    wide = _jax_index_dtype(dim)
    # Not jnp.promote_types: it refuses to promote the 2- and 4-bit integer types.
    if jnp.iinfo(indices.dtype).bits > 8 * wide.itemsize:
        wide = np.dtype(indices.dtype)
    return indices.astype(wide)


def clamp_indices(indices: jax.Array, dim: int, *, wrap_negative: bool) -> jax.Array:
    """Gather indices: wrap signed negatives (if allowed), then clamp to ``[0, dim - 1]``."""
    index_dtype = _jax_index_dtype(dim)
    last = max(dim - 1, 0)
    if jnp.issubdtype(indices.dtype, jnp.unsignedinteger):
        # Clamp in the unsigned type: converting first would turn 2**32 - 1 into -1.
        if last < jnp.iinfo(indices.dtype).max:
            indices = jnp.minimum(indices, jnp.asarray(last, indices.dtype))
        return indices.astype(index_dtype)
    wide = _widened_signed(indices, dim)
    if wrap_negative:
        wide = jnp.where(wide < 0, wide + jnp.asarray(dim, wide.dtype), wide)
    wide = jnp.clip(wide, jnp.asarray(0, wide.dtype), jnp.asarray(last, wide.dtype))
    return wide.astype(index_dtype)


def drop_out_of_range_indices(indices: jax.Array, dim: int, *, wrap_negative: bool) -> jax.Array:
    """Scatter indices: wrap signed negatives (if allowed); the out-of-range become ``dim``.

    ``dim`` is out of range for every scatter mode that drops, so the update
    at such an index is never written.
    """
    index_dtype = _jax_index_dtype(dim)
    if jnp.issubdtype(indices.dtype, jnp.unsignedinteger):
        if dim <= jnp.iinfo(indices.dtype).max:
            limit = jnp.asarray(dim, indices.dtype)
            indices = jnp.where(indices < limit, indices, limit)
        return indices.astype(index_dtype)
    wide = _widened_signed(indices, dim)
    size = jnp.asarray(dim, wide.dtype)
    if wrap_negative:
        wide = jnp.where(wide < 0, wide + size, wide)
    in_range = (wide >= 0) & (wide < size)
    return lax.select(in_range, wide, jnp.broadcast_to(size, wide.shape)).astype(index_dtype)
