"""Order-independent float32 sums: every update as integer limbs of one fixed point per target.

Float addition is not associative, so a scatter-add whose atomics land in a different
order can round differently. Integer addition is associative: written as integers, the
same updates give the same bits in any order, on any run. Each target's fixed point is
scaled to the largest exponent among its updates (found by an integer max, also exact
in any order); each update becomes ``limbs`` signed integers of ``bits`` bits, with
``guard`` bits below a float32 ulp of that largest update, and the limb sums, after
their carries, are rounded to float32 once. The width of a limb leaves room for the
static number of updates per target, so no limb sum can overflow.

The result does not depend on the order of the updates at all, and it is at least as
accurate as a float32 sum in any order: each update loses less than ``2**-guard`` of
an ulp of its target's largest update (only below that is anything cut), and the total
is rounded a few times at the end. A NaN, or infinities of both signs, among a
target's updates give NaN; infinities of one sign give that infinity.

>>> layout = limb_layout(2**20)
>>> layout
LimbLayout(bits=11, limbs=3, guard=9)
>>> values = jnp.array([1.5, -2.0**-30, 3.0, 0.25], jnp.float32)
>>> positions = jnp.array([0, 0, 1, 1])
>>> top = jnp.zeros(2, jnp.int32).at[positions].max(exponent_keys(values))
>>> limbs = encode(values, top[positions], layout)
>>> decode(jnp.zeros((2, 3), jnp.int32).at[positions].add(limbs), top, layout)
Array([1.5 , 3.25], dtype=float32)
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

__all__ = [
    "MAX_COUNT",
    "LimbLayout",
    "carried",
    "decode",
    "encode",
    "exponent_keys",
    "fields",
    "limb_layout",
    "power_of_two",
]

MAX_COUNT = 2**24
"""The most updates per target the limbs can hold (limbs of 7 bits)."""
_GUARD = 8
_MANTISSA = 24
_NONFINITE = 0xFF


@dataclasses.dataclass(frozen=True)
class LimbLayout:
    """How a target's fixed point is split: ``limbs`` integers of ``bits`` bits each."""

    bits: int
    limbs: int
    guard: int


def limb_layout(count: int) -> LimbLayout:
    """The limbs for sums of at most ``count`` updates per target.

    A limb sum is at most ``count * (2**bits - 1)``, which must stay below ``2**31``.

    >>> limb_layout(1), limb_layout(2**24)
    (LimbLayout(bits=16, limbs=2, guard=8), LimbLayout(bits=7, limbs=5, guard=11))
    """
    if not 1 <= count <= MAX_COUNT:
        raise ValueError(f"exact sums take 1 to {MAX_COUNT} updates per target, not {count}")
    bits = min(31 - max(1, (count - 1).bit_length()), 16)
    limbs = max(2, -(-(_MANTISSA + _GUARD) // bits))
    return LimbLayout(bits, limbs, limbs * bits - _MANTISSA)


def fields(values: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Sign, biased exponent (1 for subnormals), 24-bit integer mantissa and raw exponent
    field of float32 ``values``: ``value == ±mantissa * 2**(exponent - 150)``."""
    raw = jax.lax.bitcast_convert_type(values.astype(jnp.float32), jnp.int32)
    field = (raw >> 23) & _NONFINITE
    fraction = raw & 0x7FFFFF
    mantissa = jnp.where(field == 0, fraction, fraction | 0x800000)
    return raw < 0, jnp.maximum(field, 1), mantissa, field


def exponent_keys(values: jax.Array) -> jax.Array:
    """Per update: its exponent (0 for a zero, 255 for an infinity or a NaN), whose
    maximum over a target's updates scales that target's fixed point."""
    _, exponent, mantissa, field = fields(values)
    return jnp.where(field == _NONFINITE, _NONFINITE, jnp.where(mantissa == 0, 0, exponent))


def encode(values: jax.Array, top: jax.Array, layout: LimbLayout) -> jax.Array:
    """``values`` (float32, shape ``(n,)``) as limbs (int32, ``(n, limbs)``), lowest first,
    in the fixed point of ``top``, the maximum exponent key of each value's target.

    In a target whose top is 255 only the non-finite updates count: +inf in limb 0,
    -inf in limb 1, a NaN in both.
    """
    # One elementwise expression over a limb axis, not a stack of per-limb columns: XLA
    # computes a concatenation's operands again for every column, and with them
    # whatever computed ``values`` (a broadcast makes it keep an expensive producer).
    negative, exponent, mantissa, field = (a[..., None] for a in fields(values))
    top = top[..., None]
    k = jnp.arange(layout.limbs, dtype=np.int32).reshape((1,) * values.ndim + (-1,))
    right = k * layout.bits - layout.guard + (top - exponent)
    piece = jnp.where(
        right >= 0, mantissa >> jnp.clip(right, 0, 31), mantissa << jnp.clip(-right, 0, 31)
    )
    mask = (1 << layout.bits) - 1
    piece = jnp.where(negative, -(piece & mask), piece & mask)
    nan = (field == _NONFINITE) & (mantissa != 0x800000)
    special = nan | ((field == _NONFINITE) & (negative == (k == 1)))
    return jnp.where(top == _NONFINITE, jnp.where(special & (k < 2), 1, 0), piece)


def carried(sums: jax.Array, layout: LimbLayout) -> list[jax.Array]:
    """Limb sums ``(..., limbs)`` with their carries passed up: every limb but the last
    in ``[0, 2**bits)``, the last signed; the same integer, lowest limb first."""
    mask = (1 << layout.bits) - 1
    limbs = [sums[..., k] for k in range(layout.limbs)]
    for k in range(layout.limbs - 1):
        # No overflow: |carry| <= count, and count * 2**bits <= 2**31.
        carry = limbs[k] >> layout.bits
        limbs[k] = limbs[k] & mask
        limbs[k + 1] = limbs[k + 1] + carry
    return limbs


def power_of_two(exponent: jax.Array) -> jax.Array:
    """``2.0**exponent`` in float32, exactly, for exponents in [-126, 127]."""
    return jax.lax.bitcast_convert_type((exponent + 127) << 23, jnp.float32)


def decode(sums: jax.Array, top: jax.Array, layout: LimbLayout) -> jax.Array:
    """The float32 totals of limb sums ``(..., limbs)`` in the fixed points of ``top``."""
    limbs = [sums[..., k] for k in range(layout.limbs)]
    nonfinite = top == _NONFINITE
    special = jnp.where(
        (limbs[0] > 0) & (limbs[1] > 0),
        np.float32(np.nan),
        jnp.where(limbs[0] > 0, np.float32(np.inf), np.float32(-np.inf)),
    )
    limbs = carried(sums, layout)
    total = limbs[-1].astype(jnp.float32)
    step = np.float32(2.0**layout.bits)
    for limb in reversed(limbs[:-1]):
        total = total * step + limb.astype(jnp.float32)
    scale = top - 150 - layout.guard
    half = scale >> 1
    total = total * power_of_two(half) * power_of_two(scale - half)
    return jnp.where(nonfinite, special, total)
