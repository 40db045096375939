"""What the bench cases are made of: random operands and byte models several operators share.

Each operator's companion declares its cases (``OperatorChecks(bench=...)``)
from these and :mod:`dmljax._src.bench.case`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = [
    "F32",
    "I32",
    "distinct_indices",
    "gather_bytes",
    "normal",
    "operand_and_indices",
    "output_nbytes",
    "permutation",
    "randint",
    "scatter_out_of_place_bytes",
    "tiny_operands",
    "uniform",
]

F32 = jnp.float32
I32 = jnp.int32


# --- Random operands -------------------------------------------------------------------------
#
# On an accelerator jax.random draws the operands where they are used, gigabytes in
# milliseconds. On the CPU, XLA compiles jax.random's generator anew for each shape, 0.2 to
# 0.5 s a shape (most cases run in less), and the host is where the CPU's arrays live:
# there NumPy draws them, from a generator seeded by the key's words, so a key still
# gives the same operands every run. The choice is the backend's, a static fact.


def _host_generator(key: jax.Array) -> np.random.Generator | None:
    """A NumPy generator for ``key`` where operands are drawn on the host (the CPU)."""
    if jax.default_backend() != "cpu":
        return None
    words = np.asarray(jax.random.key_data(key)).astype(np.uint32)
    return np.random.default_rng(words.ravel().tolist())


def normal(key: jax.Array, shape: tuple[int, ...], dtype: Any = F32) -> jax.Array:
    """Standard normal draws of ``shape``: :func:`jax.random.normal`, drawn on the host on
    the CPU.

    >>> normal(jax.random.key(0), (2, 3)).shape
    (2, 3)
    """
    host = _host_generator(key)
    if host is None:
        return jax.random.normal(key, shape, dtype)
    return jax.device_put(host.standard_normal(shape, np.float32).astype(dtype))


def uniform(key: jax.Array, shape: tuple[int, ...], dtype: Any = F32) -> jax.Array:
    """Draws in ``[0, 1)`` of ``shape``: :func:`jax.random.uniform`, on the host on the CPU."""
    host = _host_generator(key)
    if host is None:
        return jax.random.uniform(key, shape, dtype)
    return jax.device_put(host.random(shape, np.float32).astype(dtype))


def randint(
    key: jax.Array, shape: tuple[int, ...], low: int, high: int | np.ndarray, dtype: Any = I32
) -> jax.Array:
    """Integers in ``[low, high)`` of ``shape`` (``high`` may broadcast against it):
    :func:`jax.random.randint`, on the host on the CPU.

    >>> bool((randint(jax.random.key(0), (100,), 3, 5) >= 3).all())
    True
    """
    host = _host_generator(key)
    if host is None:
        return jax.random.randint(key, shape, low, high, dtype)
    return jax.device_put(host.integers(low, high, shape).astype(dtype))


def permutation(key: jax.Array, n: int) -> jax.Array:
    """A random order of ``range(n)`` as int32: :func:`jax.random.permutation`, on the host
    on the CPU."""
    host = _host_generator(key)
    if host is None:
        return jax.random.permutation(key, n).astype(I32)
    return jax.device_put(host.permutation(n).astype(np.int32))


def output_nbytes(fn: Callable[..., jax.Array], args: Sequence[jax.Array]) -> int:
    """The bytes ``fn(*args)`` returns, without running it."""
    out = jax.eval_shape(fn, *args)
    return out.size * out.dtype.itemsize


def operand_and_indices(
    key: jax.Array, shape: tuple[int, ...], index_shape: tuple[int, ...], bound: int
) -> tuple[jax.Array, jax.Array]:
    """A normal f32 array of ``shape`` and int32 indices of ``index_shape`` below ``bound``."""
    x_key, index_key = jax.random.split(key)
    return normal(x_key, shape), randint(index_key, index_shape, 0, bound)


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
    order = jnp.argsort(uniform(key, shape), axis=axis).astype(I32)
    return lax.slice_in_dim(order, 0, picked, axis=axis)


def scatter_out_of_place_bytes(args: Sequence[jax.Array]) -> int:
    """The byte model of a scatter ``fn(x, indices, updates)`` that copies ``x``: the
    operand read and written, the updates and indices read; the updates' writes land in
    the copy and are not counted twice (performance.md §5 item 7)."""
    x, idx, updates = args
    return 2 * x.nbytes + updates.nbytes + idx.nbytes
