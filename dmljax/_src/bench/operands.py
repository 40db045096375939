"""What the bench cases are made of: random operands and byte models several operators share.

Each operator's companion declares its cases (``OperatorChecks(bench=...)``)
from these and :mod:`dmljax._src.bench.case`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
from jax import lax

__all__ = [
    "F32",
    "I32",
    "distinct_indices",
    "gather_bytes",
    "operand_and_indices",
    "output_nbytes",
    "scatter_out_of_place_bytes",
    "tiny_operands",
]

F32 = jnp.float32
I32 = jnp.int32


def output_nbytes(fn: Callable[..., jax.Array], args: Sequence[jax.Array]) -> int:
    """The bytes ``fn(*args)`` returns, without running it."""
    out = jax.eval_shape(fn, *args)
    return out.size * out.dtype.itemsize


def operand_and_indices(
    key: jax.Array, shape: tuple[int, ...], index_shape: tuple[int, ...], bound: int
) -> tuple[jax.Array, jax.Array]:
    """A normal f32 array of ``shape`` and int32 indices of ``index_shape`` below ``bound``."""
    x_key, index_key = jax.random.split(key)
    x = jax.random.normal(x_key, shape, F32)
    return x, jax.random.randint(index_key, index_shape, 0, bound, I32)


def tiny_operands(
    key: jax.Array, index_shape: tuple[int, ...] | None = None
) -> tuple[jax.Array, ...]:
    """An eager case's operands: an 8x8 f32 and, given a shape, int32 indices below 8."""
    x, idx = operand_and_indices(key, (8, 8), index_shape or (), 8)
    return (x,) if index_shape is None else (x, idx)


def gather_bytes(fn: Callable[..., jax.Array]) -> Callable[[Sequence[jax.Array]], int]:
    """The byte model of a gather ``fn(x, indices)``: its output read and written, and the
    indices read."""

    def bytes_moved(args: Sequence[jax.Array]) -> int:
        # Read the gathered slices, write them, read the indices: 2·out + idx.
        return 2 * output_nbytes(fn, args) + args[1].nbytes

    return bytes_moved


def distinct_indices(key: jax.Array, shape: tuple[int, int], picked: int, axis: int) -> jax.Array:
    """``picked`` distinct random indices into each line of ``shape`` along ``axis``.

    A random permutation per line (argsort of uniform noise, on the device), cut
    to its first ``picked``: unique targets, so that every scatter writes the
    same output and dmljax's can be checked bit for bit against jnp's.
    """
    order = jnp.argsort(jax.random.uniform(key, shape, F32), axis=axis).astype(I32)
    return lax.slice_in_dim(order, 0, picked, axis=axis)


def scatter_out_of_place_bytes(args: Sequence[jax.Array]) -> int:
    """The byte model of a scatter ``fn(x, indices, updates)`` that copies ``x``: the
    operand read and written, the updates and indices read; the updates' writes land in
    the copy and are not counted twice (performance.md §5 item 7)."""
    x, idx, updates = args
    return 2 * x.nbytes + updates.nbytes + idx.nbytes
