"""Element-wise index tensors along one axis: what GATHER_ELEMENTS and SCATTER share.

An element-wise index tensor has the rank of the data tensor, and its element
``c`` names the data element ``c`` with ``c[axis] := indices[c]``. DirectML
requires its sizes to equal the data's on every other axis; ONNX and PyTorch
allow them to be smaller, and so do dmljax's functional faces.

Both operators are lowered the same way: the element coordinates become flat
row-major offsets into ``data.reshape(-1)`` and a one-dimensional gather or
scatter does the work. Along a non-minor axis the data is first transposed so
that the axis is last (measured on an H100: 3.0x faster for gathers and 1.9x
for scatters along axis 0 of a 4096x16384 array than the direct form, whose
accesses stride across rows).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from dmljax.errors import InvalidArgumentError

__all__ = [
    "check_index_shape",
    "flat_offsets",
    "from_minor_axis",
    "to_minor_axis",
    "uses_minor_axis_form",
]


def check_index_shape(
    data_shape: Sequence[int],
    index_shape: Sequence[int],
    axis: int,
    *,
    op: str,
    data_field: str,
    index_field: str,
    exact: bool,
) -> None:
    """The index tensor has the data's rank and, off ``axis``, equal (or, unless ``exact``,
    smaller) sizes."""
    if len(index_shape) != len(data_shape):
        raise InvalidArgumentError(
            op,
            index_field,
            f"{len(data_shape)} dimensions long, like {data_field}",
            f"{len(index_shape)} dimensions {tuple(index_shape)}",
        )
    for d, (data_size, index_size) in enumerate(zip(data_shape, index_shape, strict=True)):
        if d == axis:
            continue
        if index_size > data_size or (exact and index_size != data_size):
            relation = "equal to" if exact else "at most"
            raise InvalidArgumentError(
                op,
                f"{index_field}[{d}]",
                f"{relation} {data_field}[{d}] = {data_size} (every dimension but axis {axis})",
                index_size,
            )


def uses_minor_axis_form(ndim: int, axis: int) -> bool:
    """Whether to move ``axis`` last around the element-wise gather or scatter."""
    return axis != ndim - 1


def to_minor_axis(x: jax.Array, axis: int) -> jax.Array:
    return jnp.moveaxis(x, axis, -1)


def from_minor_axis(x: jax.Array, axis: int) -> jax.Array:
    return jnp.moveaxis(x, -1, axis)


def flat_offsets(data_shape: Sequence[int], axis_indices: jax.Array, axis: int) -> jax.Array:
    """Row-major offsets into ``data.reshape(-1)`` of each element named by ``axis_indices``.

    ``axis_indices`` holds in-range indices along ``axis``, or ``data_shape[axis]``
    for an index to drop; those map to ``prod(data_shape)``, past the end, so a
    scatter in a dropping mode skips them.
    """
    size = math.prod(data_shape)
    dtype = np.dtype(np.int32 if size < np.iinfo(np.int32).max else np.int64)
    strides = [math.prod(data_shape[d + 1 :]) for d in range(len(data_shape))]
    shape = axis_indices.shape
    offsets = axis_indices.astype(dtype) * jnp.asarray(strides[axis], dtype)
    for d, stride in enumerate(strides):
        if d != axis and shape[d] > 1:
            offsets = offsets + lax.broadcasted_iota(dtype, shape, d) * jnp.asarray(stride, dtype)
    dropped = axis_indices == jnp.asarray(data_shape[axis], axis_indices.dtype)
    return jnp.where(dropped, jnp.asarray(size, dtype), offsets)
