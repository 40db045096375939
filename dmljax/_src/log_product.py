"""Order-independent float32 products: signs, zeros, exponents and mantissa logarithms as integers.

A product of ``|u| = m * 2**e`` (``1 <= m < 2``) is ``2**(sum e + sum log2 m)``. Every
part of that is added as an integer: the exponents; ``log2 m`` as the limbs of a fixed
point with ``23 + guard`` fraction bits (:mod:`dmljax._src.exact_sum`); the negative
updates in the top bit of a count (its parity is the sign); zeros, infinities and NaNs
as counts. Integer sums ignore the order of the updates, so the product has the same
bits on every run and under any permutation. The logarithms are taken once per update
in float32 and the power once per target, so the result is within the float32 bound of
a product in any order (``count * 2**-24`` relative) plus ``2**-22`` for the logarithm
and the power.

>>> values = jnp.array([2.0, -1.5, 4.0, 0.5], jnp.float32)
>>> positions = jnp.array([0, 0, 1, 1])
>>> layout = exact_sum.limb_layout(2)
>>> words = encode(values, layout)
>>> decode(jnp.zeros((2, words.shape[-1]), jnp.int32).at[positions].add(words), layout)
Array([-3.,  2.], dtype=float32)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from dmljax._src import exact_sum

__all__ = ["MAX_COUNT", "decode", "encode"]

MAX_COUNT = 2**23
"""The most updates per target: their exponent sum (each at most 149) fits in int32."""
_SIGN = np.int32(-(2**31))  # added once per negative update: bit 31 keeps the parity
_COUNT = 0x7FFFFFFF
_LOG = 3  # words before the logarithm's limbs: signs and zeros, signs and infinities, exponents


def encode(values: jax.Array, layout: exact_sum.LimbLayout) -> jax.Array:
    """``values`` (float32, ``(n,)``) as ``(n, 3 + layout.limbs)`` int32 words to add up.

    Word 0: 1 per zero or NaN, plus ``-2**31`` per negative nonzero value. Word 1: 1 per
    infinity or NaN, plus ``-2**31`` per ``-0.0``. Word 2: the exponent. Then the limbs
    of ``log2`` of the mantissa.
    """
    negative, exponent, mantissa, field = exact_sum.fields(values)
    lead = lax.clz(mantissa) - 8  # a subnormal's mantissa moved up to bit 23
    normalised = mantissa << jnp.clip(lead, 0, 24)
    power = exponent - 127 - lead
    significand = lax.bitcast_convert_type((normalised & 0x7FFFFF) | 0x3F800000, jnp.float32)
    nonfinite = field == 0xFF
    zero = (mantissa == 0) & ~nonfinite
    nan = nonfinite & (mantissa != 0x800000)
    ordinary = ~zero & ~nonfinite
    signs = jnp.where(negative & ~zero, _SIGN, np.int32(0)) + (zero | nan).astype(np.int32)
    specials = jnp.where(negative & zero, _SIGN, np.int32(0)) + (nonfinite.astype(np.int32))
    logarithm = jnp.where(ordinary, jnp.log2(significand), np.float32(0))
    limbs = exact_sum.encode(logarithm, jnp.full(logarithm.shape, 127, np.int32), layout)
    counts = jnp.stack([signs, specials, jnp.where(ordinary, power, 0)], axis=-1)
    return jnp.concatenate([counts, limbs], axis=-1)


def _logarithm(sums: jax.Array, layout: exact_sum.LimbLayout) -> tuple[jax.Array, jax.Array]:
    """The whole and fractional parts of the logarithms' limb sums."""
    point = 23 + layout.guard
    whole = jnp.zeros(sums.shape[:-1], np.int32)
    fraction = jnp.zeros(sums.shape[:-1], np.float32)
    for k, limb in enumerate(exact_sum.carried(sums, layout)):  # every limb >= 0 here
        split = point - k * layout.bits
        if split <= 0:
            whole = whole + (limb << -split)
            continue
        if split < 31:
            whole = whole + (limb >> split)
            limb = limb & ((1 << split) - 1)
        fraction = fraction + limb.astype(np.float32) * np.float32(2.0**-split)
    return whole, fraction


def decode(sums: jax.Array, layout: exact_sum.LimbLayout) -> jax.Array:
    """The products of summed words ``(..., 3 + limbs)``."""
    signs, specials, power = sums[..., 0], sums[..., 1], sums[..., 2]
    whole, fraction = _logarithm(sums[..., _LOG:], layout)
    exponent = jnp.clip(power + whole, -252, 254)  # beyond, the power is 0 or inf anyway
    half = exponent >> 1
    magnitude = jnp.exp2(fraction) * exact_sum.power_of_two(half)
    magnitude = magnitude * exact_sum.power_of_two(exponent - half)
    finite = jnp.where(signs < 0, -magnitude, magnitude)
    zeros = signs & _COUNT
    infinities = specials & _COUNT
    negative = (signs < 0) != (specials < 0)
    inf = jnp.where(negative, np.float32(-np.inf), np.float32(np.inf))
    return jnp.where(
        (zeros > 0) & (infinities > 0),
        np.float32(np.nan),
        jnp.where(
            infinities > 0,
            inf,
            jnp.where(zeros > 0, jnp.where(negative, np.float32(-0.0), np.float32(0.0)), finite),
        ),
    )
