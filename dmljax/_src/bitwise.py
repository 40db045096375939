"""Data movement that keeps every bit on every backend.

XLA:CPU computes ``bfloat16`` and float8 concatenates, pads, selects and
scatters in float32, which replaces each NaN's payload with the canonical NaN
(jax 0.10.2). The same movement of the same-width unsigned integers moves the
same bits untouched: :func:`exactly` runs a movement that way where it matters.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = ["bits", "concatenate", "exactly", "is_negative_zero", "may_change_bits"]

_NATIVE_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_UNSIGNED = {
    1: np.dtype(np.uint8),
    2: np.dtype(np.uint16),
    4: np.dtype(np.uint32),
    8: np.dtype(np.uint64),
}

Move = Callable[..., jax.Array]
"""``move(*operands, fill, *using)``: slices, reversals, concatenates, pads with ``fill`` (a
0-d array of the operands' dtype, or None), placed by the arrays ``using`` (indices, masks)
that it reads but does not move: a function of the operands' bits alone."""


def may_change_bits(dtype: Any) -> bool:
    """Whether XLA may move ``dtype`` through float32 on the default backend (the CPU's
    bfloat16 and float8 types).

    >>> may_change_bits(np.float32)
    False
    """
    dtype = np.dtype(dtype)
    return (
        bool(jnp.issubdtype(dtype, jnp.floating))
        and dtype not in _NATIVE_FLOATS
        # Sub-byte floats (float4_e2m1fn) have no NaN, and float32 holds each value.
        and jnp.finfo(dtype).bits >= 8
        and jax.default_backend() == "cpu"
    )


def exactly(
    move: Move, *operands: jax.Array, fill: Any = None, using: Sequence[jax.Array] = ()
) -> jax.Array:
    """``move(*operands, fill, *using)``, every bit of the operands and of ``fill`` kept.

    Where :func:`may_change_bits`, the movement runs on the operands' bits as
    unsigned integers; its derivative is the same movement of the tangents, with
    a fill of 0, so it differentiates (forward and reverse) as ``move`` does.
    Arrays the movement reads (indices, masks) go in ``using``, never in ``move``'s
    closure: the derivative is traced later, where a closed-over tracer of the
    operator's own trace would have leaked (``jax.grad`` of a ``jax.jit``).

    >>> exactly(lambda x, fill: jax.lax.pad(x, fill, [(1, 0, 0)]), jnp.ones(2), fill=-1.0)
    Array([-1.,  1.,  1.], dtype=float32)
    """
    dtype = operands[0].dtype
    fill_value = None if fill is None else np.asarray(fill, dtype)
    if not may_change_bits(dtype):
        return move(*operands, fill_value, *using)
    return _move_bits(move, fill_value, len(operands), *operands, *using)


def bits(x: jax.Array) -> jax.Array:
    """``x``'s bits, as unsigned integers of its width.

    >>> bits(jnp.array([-0.0, 1.0]))
    Array([2147483648, 1065353216], dtype=uint32)
    """
    return lax.bitcast_convert_type(x, _UNSIGNED[np.dtype(x.dtype).itemsize])


def is_negative_zero(x: jax.Array) -> jax.Array:
    """Where a float array holds ``-0.0``, by its bits (``-0.0 == 0.0`` as numbers).

    >>> is_negative_zero(jnp.array([-0.0, 0.0, 1.0]))
    Array([ True, False, False], dtype=bool)
    """
    return bits(x) == bits(jnp.array(-0.0, x.dtype))


@functools.partial(jax.custom_jvp, nondiff_argnums=(0, 1, 2))
def _move_bits(move: Move, fill: np.ndarray | None, count: int, *arrays: jax.Array) -> jax.Array:
    operands, using = arrays[:count], arrays[count:]
    dtype = operands[0].dtype
    unsigned = _UNSIGNED[np.dtype(dtype).itemsize]
    # The barriers keep XLA's simplifier from moving the bitcasts past the movement, which
    # would float-convert it again (jax 0.10.2 fuses slices feeding the concatenate so).
    words = lax.optimization_barrier([bits(x) for x in operands])
    moved = move(*words, None if fill is None else fill.view(unsigned), *using)
    return lax.bitcast_convert_type(lax.optimization_barrier(moved), dtype)


@_move_bits.defjvp
def _move_bits_jvp(
    move: Move,
    fill: np.ndarray | None,
    count: int,
    primals: tuple[Any, ...],
    tangents: tuple[Any, ...],
) -> tuple[jax.Array, jax.Array]:
    zero = None if fill is None else np.zeros((), tangents[0].dtype)
    using = primals[count:]
    return _move_bits(move, fill, count, *primals), move(*tangents[:count], zero, *using)


def concatenate(operands: Sequence[jax.Array], dimension: int) -> jax.Array:
    """:func:`jax.lax.concatenate` that keeps every bit, NaN payloads included.

    >>> concatenate([jnp.zeros(1), jnp.ones(2)], 0)
    Array([0., 1., 1.], dtype=float32)
    """
    if len(operands) == 1:
        return operands[0]
    return exactly(functools.partial(_concatenate, dimension), *operands)


def _concatenate(dimension: int, *operands_and_fill: Any) -> jax.Array:
    return lax.concatenate(list(operands_and_fill[:-1]), dimension)
