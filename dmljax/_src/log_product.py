"""Order-independent float32 products: signs, zeros, exponents and mantissa logarithms as integers.

A product of ``|u| = m * 2**e`` (``1 <= m < 2``) is ``2**(sum e + sum log2 m)``. Every
part of that is added as an integer, and integer sums ignore the order of the updates,
so the product has the same bits on every run and under any permutation: the exponents;
``log2 m`` as the limbs of a fixed point (:mod:`dmljax._src.exact_sum`); the negative
factors in the top bit of a count (its parity is the sign); zeros, infinities and NaNs
as counts.

Accuracy is what a float32 product in any order cannot give. A float32 product of ``n``
factors rounds ``n`` times, and the roundings of factors near 1 do not cancel: 2**22
factors ``exp2(N(0, 1) * 2**-12)`` come out 2e-2 off through a pairwise tree and 1e-4
to 5e-4 off in sequence. Here each ``log2 m`` is computed in float32 pairs
(:mod:`dmljax._src.float_pairs`, about 46 bits) and kept to :func:`fraction_bits` bits,
so the sum of ``n`` logarithms is off by at most ``n * 2**-(fraction_bits - 1)``, which
the fraction bits keep below ``ceil(log2 n) * 2**-26`` for every ``n`` up to the static
count; the power is taken once, in pairs, and rounded to float32 once. A target's
product (``x`` included) is within ``2**-24 + ceil(log2 n) * 2**-25`` of the exact one,
relatively, away from overflow and underflow, and exact where the exact product is a
float32 (``3.0**7``).

>>> values = jnp.array([2.0, -1.5, 4.0, 0.5, 3.0, 3.0, 3.0], jnp.float32)
>>> positions = jnp.array([0, 0, 1, 1, 2, 2, 2])
>>> layout = limb_layout(3)
>>> words = encode(values, layout)
>>> decode(jnp.zeros((3, words.shape[-1]), jnp.int32).at[positions].add(words), layout)
Array([-3.,  2., 27.], dtype=float32)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from dmljax._src import exact_sum, float_pairs
from dmljax._src.float_pairs import Pair

__all__ = ["MAX_COUNT", "decode", "encode", "fraction_bits", "limb_layout"]

MAX_COUNT = 2**23
"""The most factors per target: their exponent sum (each at most 150) fits in int32."""
_SIGN = np.int32(-(2**31))  # added once per negative update: bit 31 keeps the parity
_COUNT = 0x7FFFFFFF
_LOG = 3  # words before the logarithm's limbs: signs and zeros, signs and infinities, exponents

# log2 m = log2 c + log2(1 + (m - c) / c), c the middle of m's 1/128 of [1, 2).
_CENTRES = 1 + (np.arange(128) + 0.5) / 128
_LOG2_CENTRE = float_pairs.from_float64(np.log2(_CENTRES))
_INVERSE_CENTRE = float_pairs.from_float64(1 / _CENTRES)
_INV_LN2 = float_pairs.from_float64(1 / np.log(2))
_LN2 = float_pairs.from_float64(np.log(2))
# 2**f = 2**(j / 64) * exp(g * ln 2), j the top 6 bits of f.
_POWERS = float_pairs.from_float64(2 ** (np.arange(64) / 64))


def fraction_bits(count: int) -> int:
    """The fraction bits a fixed point of ``log2 m`` keeps for sums of up to ``count``
    logarithms: enough that ``count * 2**-fraction_bits`` is below
    ``ceil(log2 count) * 2**-26``.

    >>> fraction_bits(1), fraction_bits(2**20), fraction_bits(2**23)
    (26, 42, 45)
    """
    depth = max(1, (count - 1).bit_length())
    return 26 + (count - 1).bit_length() - (depth.bit_length() - 1)


def limb_layout(count: int) -> exact_sum.LimbLayout:
    """The limbs for sums of up to ``count`` logarithms (``x`` counts as one factor).

    >>> limb_layout(2**20)
    LimbLayout(bits=11, limbs=4, guard=20)
    """
    if not 1 <= count <= MAX_COUNT:
        raise ValueError(f"log products take 1 to {MAX_COUNT} factors per target, not {count}")
    bits = min(31 - max(1, (count - 1).bit_length()), 16)
    # A logarithm is below 1: one bit above the fraction, and the point at 23 + guard.
    limbs = -(-(fraction_bits(count) + 1) // bits)
    return exact_sum.LimbLayout(bits, limbs, limbs * bits - 24)


def _log2(significand: jax.Array, normalised: jax.Array) -> Pair:
    """``log2`` of ``significand`` in ``[1, 2)`` (its 24-bit integer ``normalised``), as a
    pair within about ``2**-46``."""
    k = (normalised >> 16) & 0x7F
    centre = 1 + (k.astype(np.float32) + np.float32(0.5)) * np.float32(1 / 128)
    d = significand - centre  # exact: both in [1, 2)
    u = float_pairs.mul_float(float_pairs.take(_INVERSE_CENTRE, k), d)  # |u| < 2**-8
    # ln(1 + u) = u - u**2/2 + u**3/3 - ...; the terms from u**3 are below 2**-25.
    square = float_pairs.mul(u, u)
    h = u[0]
    tail = (
        h
        * h
        * h
        * (
            np.float32(1 / 3)
            - h * (np.float32(1 / 4) - h * (np.float32(1 / 5) - h * np.float32(1 / 6)))
        )
    )
    natural = float_pairs.add(u, (-0.5 * square[0], -0.5 * square[1]))
    natural = float_pairs.add_float(natural, tail)
    return float_pairs.add(
        float_pairs.take(_LOG2_CENTRE, k), float_pairs.mul(natural, float_pairs.constant(_INV_LN2))
    )


def _kept(pair: Pair, positive: jax.Array) -> Pair:
    """``pair`` divided by a 1.0 that XLA cannot see is one (``positive`` is >= 0).

    XLA fuses cheap elementwise work into every consumer, however often that duplicates
    it: fused into the limbs' concatenation, the logarithm was computed again for every
    limb, 25 times its cost on the CPU (an optimization barrier is removed before
    fusion). A division is expensive, so XLA computes it, and what it reads, once.
    """
    one = (positive >> 31).astype(np.float32) + np.float32(1)
    return pair[0] / one, pair[1] / one


def encode(values: jax.Array, layout: exact_sum.LimbLayout) -> jax.Array:
    """``values`` (float32, ``(n,)``) as ``(n, 3 + layout.limbs)`` int32 words to add up.

    Word 0: 1 per zero or NaN, plus ``-2**31`` per negative nonzero value. Word 1: 1 per
    infinity or NaN, plus ``-2**31`` per ``-0.0``. Word 2: the exponent. Then the limbs
    of ``log2`` of the mantissa, carried (all but the last in ``[0, 2**bits)``).
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
    hi, lo = _kept(_log2(significand, normalised), normalised)
    scale = jnp.full(hi.shape, 127, np.int32)  # the fixed point of 2**0
    limbs = exact_sum.encode(jnp.where(ordinary, hi, 0), scale, layout)
    limbs = limbs + exact_sum.encode(jnp.where(ordinary, lo, 0), scale, layout)
    # Carried here, so that each limb a scatter adds is below 2**bits, as the layout needs.
    limbs = jnp.stack(exact_sum.carried(limbs, layout), axis=-1)
    counts = jnp.stack([signs, specials, jnp.where(ordinary, power, 0)], axis=-1)
    return jnp.concatenate([counts, limbs], axis=-1)


def _field(limbs: list[jax.Array], bits: int, low: int, width: int) -> jax.Array:
    """Bits ``[low, low + width)`` (``width <= 24``; ``low`` may be negative, below which
    the bits are zero) of ``sum(limbs[k] * 2**(k * bits))``, whose limbs below the last
    are in ``[0, 2**bits)``."""
    mask = (1 << width) - 1
    total = jnp.zeros(limbs[0].shape, np.int32)
    for k, limb in enumerate(limbs):
        shift = k * bits - low
        if shift >= width or (shift <= -bits and k < len(limbs) - 1):
            continue  # above the field, or wholly below it
        part = limb << shift if shift >= 0 else limb >> -shift
        total = total + (part & mask)
    return total & mask


def _whole(limbs: list[jax.Array], bits: int, point: int) -> jax.Array:
    """``floor(sum(limbs[k] * 2**(k * bits)) / 2**point)``, for sums below ``2**31``."""
    total = jnp.zeros(limbs[0].shape, np.int32)
    for k, limb in enumerate(limbs):
        shift = k * bits - point
        if shift >= 0:
            total = total + (limb << shift)
        elif shift > -bits or k == len(limbs) - 1:
            total = total + (limb >> -shift)
    return total


def _exp2(high: jax.Array, low: jax.Array) -> Pair:
    """``2**f`` for ``f = high * 2**-24 + low * 2**-48`` (24-bit integers), a pair in
    ``[1, 2)`` within about ``2**-45``."""
    j = high >> 18
    g = ((high & 0x3FFFF).astype(np.float32) * np.float32(2.0**-24),
         low.astype(np.float32) * np.float32(2.0**-48))  # fmt: skip
    t = float_pairs.mul(g, float_pairs.constant(_LN2))  # below 2**-6 * ln 2
    square = float_pairs.mul(t, t)
    h = t[0]
    tail = (
        h
        * h
        * h
        * (
            np.float32(1 / 6)
            + h * (np.float32(1 / 24) + h * (np.float32(1 / 120) + h * np.float32(1 / 720)))
        )
    )
    series = float_pairs.add(t, (0.5 * square[0], 0.5 * square[1]))
    series = float_pairs.add_float(series, tail)
    power = float_pairs.take(_POWERS, j)
    return float_pairs.add(power, float_pairs.mul(power, series))


def decode(sums: jax.Array, layout: exact_sum.LimbLayout, x: jax.Array | None = None) -> jax.Array:
    """The products of summed words ``(..., 3 + limbs)``, times ``x`` (float32, of the
    sums' leading shape) if given, each rounded to float32 once.

    ``x`` is one more factor, added to the sums after their carries (so the layout of
    ``count`` updates holds it too); a NaN ``x`` comes back with its bits, as IEEE
    multiplication propagates it.
    """
    limbs = exact_sum.carried(sums[..., _LOG:], layout)
    if x is not None:
        own = encode(x.reshape(-1), layout).reshape((*x.shape, -1))
        counts = sums[..., :_LOG] + own[..., :_LOG]
        limbs = [
            a + b for a, b in zip(limbs, exact_sum.carried(own[..., _LOG:], layout), strict=True)
        ]
        return jnp.where(jnp.isnan(x), x, _product(counts, limbs, layout))
    return _product(sums[..., :_LOG], limbs, layout)


def _product(counts: jax.Array, limbs: list[jax.Array], layout: exact_sum.LimbLayout) -> jax.Array:
    signs, specials, power = counts[..., 0], counts[..., 1], counts[..., 2]
    limbs = exact_sum.carried(jnp.stack(limbs, axis=-1), layout)
    point = 23 + layout.guard
    whole = _whole(limbs, layout.bits, point)
    hi, lo = _exp2(_field(limbs, layout.bits, point - 24, 24),
                   _field(limbs, layout.bits, point - 48, 24))  # fmt: skip
    exponent = jnp.clip(power + whole, -252, 254)  # beyond, the power is 0 or inf anyway
    half = exponent >> 1
    # Rounded once at 2**half, where it stays normal: the same rounding as at the final
    # scale wherever the product is normal (a power of two commutes with it).
    magnitude = hi * exact_sum.power_of_two(half) + lo * exact_sum.power_of_two(half)
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
