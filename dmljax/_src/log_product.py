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
(:mod:`dmljax._src.float_pairs`, about 46 bits; a 16-bit factor's is read from a table of
1024, within ``2**-47``) and kept to :func:`fraction_bits` bits,
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

__all__ = ["MAX_COUNT", "decode", "encode", "fraction_bits", "has_nan_factor", "limb_layout"]

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
# A 16-bit float has at most 11 significant bits: its log2 m is one of 1024, kept as
# floor(log2(1 + i/1024) * 2**48) in two 24-bit halves. float64's log2 is within an ulp
# (at most 2**-53 here), so each is within 2**-48 + 2**-53 of the exact logarithm
# (2**-47 at most), inside the float pairs' 2**-46; exact where that is 0.
_TABLE_BITS = 10
_FIXED_LOG2 = np.floor(np.log2(1 + np.arange(1 << _TABLE_BITS) / (1 << _TABLE_BITS)) * 2.0**48)
_LOG2_HIGH = (_FIXED_LOG2 // 2**24).astype(np.int32)
_LOG2_LOW = (_FIXED_LOG2 % 2**24).astype(np.int32)


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


def _significand(values: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``|v| = significand * 2**power`` with ``significand`` in ``[1, 2)`` for nonzero
    finite float32 ``values``, subnormals included; and the significand's 24 bits
    (``normalised``, an integer with bit 23 set)."""
    _, exponent, mantissa, _ = exact_sum.fields(values)
    lead = lax.clz(mantissa) - 8  # a subnormal's mantissa moved up to bit 23
    normalised = mantissa << jnp.clip(lead, 0, 24)
    significand = lax.bitcast_convert_type((normalised & 0x7FFFFF) | 0x3F800000, jnp.float32)
    return exponent - 127 - lead, significand, normalised


def encode(
    values: jax.Array, layout: exact_sum.LimbLayout, *, significand_bits: int = 24
) -> jax.Array:
    """``values`` (float32, ``(n,)``) as ``(n, 3 + layout.limbs)`` int32 words to add up.

    Word 0: 1 per zero or NaN, plus ``-2**31`` per negative nonzero value. Word 1: 1 per
    infinity or NaN, plus ``-2**31`` per ``-0.0``. Word 2: the exponent. Then the limbs
    of ``log2`` of the mantissa, each in ``[0, 2**bits)``.

    ``significand_bits``: the most significant bits a value has (a float16 widened to
    float32 has 11, a bfloat16 8). With 11 or fewer the logarithms come from a table of
    1024, which a GPU reads faster than it computes them in pairs (the same bound); a
    value with more would be read wrongly, so only a 16-bit type's caller says so.

    >>> halves = jnp.array([1.5, 3.0, 0.1], jnp.bfloat16).astype(jnp.float32)
    >>> decode(encode(halves, limb_layout(3), significand_bits=8), limb_layout(3))
    Array([1.5       , 3.        , 0.10009766], dtype=float32)
    """
    negative, _, mantissa, field = exact_sum.fields(values)
    power, significand, normalised = _significand(values)
    nonfinite = field == 0xFF
    zero = (mantissa == 0) & ~nonfinite
    nan = nonfinite & (mantissa != 0x800000)
    ordinary = ~zero & ~nonfinite
    signs = jnp.where(negative & ~zero, _SIGN, np.int32(0)) + (zero | nan).astype(np.int32)
    specials = jnp.where(negative & zero, _SIGN, np.int32(0)) + (nonfinite.astype(np.int32))
    if significand_bits <= _TABLE_BITS + 1:
        # The fraction's top ten bits: all a 16-bit value's, subnormals included.
        k = (normalised >> (23 - _TABLE_BITS)) & ((1 << _TABLE_BITS) - 1)
        high, low = jnp.asarray(_LOG2_HIGH)[k], jnp.asarray(_LOG2_LOW)[k]
    else:
        high, low = _fixed_point(_log2(significand, normalised))
    # One expression over a word axis, not a concatenation of columns: XLA's GPU emitter
    # writes a concatenation column by column, a row's length apart, and the scatter that
    # adds the words evaluates it in that form. Deterministic products of 2**20 float32
    # factors into 2**20 targets on an H200: 0.118-0.122 ms before, 0.103-0.107 ms so
    # (with 2**22, where the scatter's atomics take most of the time, the same).
    word = jnp.arange(_LOG + layout.limbs, dtype=np.int32)[None, :]
    limbs = _limbs(jnp.where(ordinary, high, 0)[:, None], jnp.where(ordinary, low, 0)[:, None],
                   word - _LOG, layout)  # fmt: skip
    exponents = jnp.where(ordinary, power, 0)[:, None]
    words = jnp.where(word == 2, exponents, limbs)
    words = jnp.where(word == 1, specials[:, None], words)
    return jnp.where(word == 0, signs[:, None], words)


def _fixed_point(pair: Pair) -> tuple[jax.Array, jax.Array]:
    """``floor((hi + lo) * 2**48)`` for a pair in ``[0, 1)``, as its top and bottom 24 bits
    (int32): float conversions of exact float32 values, no more."""
    scaled = pair[0] * np.float32(2.0**24)  # exact; below 2**24, so its ulp is at most 1
    whole = jnp.floor(scaled)
    # The fraction is exact; adding lo rounds only below 2**-24 of it, 2**-48 of the value.
    rest = ((scaled - whole) + pair[1] * np.float32(2.0**24)) * np.float32(2.0**24)
    low = jnp.floor(rest)
    borrow = jnp.where(low < 0, 1, 0) - jnp.where(low >= 2.0**24, 1, 0)
    high = whole.astype(np.int32) - borrow
    return high, low.astype(np.int32) + borrow * (1 << 24)


def _limbs(
    high: jax.Array, low: jax.Array, k: jax.Array, layout: exact_sum.LimbLayout
) -> jax.Array:
    """Limb ``k`` of the fixed point of ``high * 2**24 + low`` (48 fraction bits) with
    ``23 + guard`` fraction bits, as ``bits`` bits, limb 0 the lowest; broadcast over
    ``k`` (a limb number out of range gives bits that the caller does not keep)."""
    start = k * layout.bits + (48 - (23 + layout.guard))  # the limb's lowest bit in the 48
    from_high = high >> jnp.clip(start - 24, 0, 31)
    from_low = jnp.where(start >= 0, low >> jnp.clip(start, 0, 31), low << jnp.clip(-start, 0, 31))
    spliced = jnp.where(start >= 24, from_high, from_low | (high << jnp.clip(24 - start, 0, 31)))
    return spliced & ((1 << layout.bits) - 1)


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


def decode(
    sums: jax.Array,
    layout: exact_sum.LimbLayout,
    x: jax.Array | None = None,
    first_nan: jax.Array | None = None,
) -> jax.Array:
    """The products of summed words ``(..., 3 + limbs)``, times ``x`` (float32, of the
    sums' leading shape) if given, each rounded to float32 once.

    ``x`` multiplies the product in pairs before the one rounding. The special values are
    IEEE multiplication's, and NaNs are the ones a serial product (XLA:CPU's scatter)
    gives: ``x`` if it is a NaN, else the first NaN factor, ``first_nan`` (per target,
    anything where there is none; without it, a NaN factor is taken for an invalid
    ``0 * inf``), else for a zero times an infinity the NaN this backend's ``0 * inf``
    gives at run time.
    """
    signs, specials, power = sums[..., 0], sums[..., 1], sums[..., 2]
    limbs = exact_sum.carried(sums[..., _LOG:], layout)
    point = 23 + layout.guard
    hi, lo = _exp2(_field(limbs, layout.bits, point - 24, 24),
                   _field(limbs, layout.bits, point - 48, 24))  # fmt: skip
    exponent = power + _whole(limbs, layout.bits, point)
    if x is None:
        x = jnp.ones(hi.shape, np.float32)
    x_negative, _, x_mantissa, x_field = exact_sum.fields(x)
    x_power, x_significand, _ = _significand(x)
    # A NaN factor counts as a zero and an infinity: both counts are then positive.
    zeros = ((signs & _COUNT) > 0) | ((x_mantissa == 0) & (x_field != 0xFF))
    infinities = ((specials & _COUNT) > 0) | (x_field == 0xFF)
    negative = ((signs < 0) != (specials < 0)) != x_negative  # -0.0 and x included
    # x's significand times the product's, in pairs: one rounding for x and the factors.
    hi, lo = float_pairs.mul_float((hi, lo), x_significand)
    exponent = jnp.clip(exponent + x_power, -252, 254)  # beyond: 0 or inf
    half = exponent >> 1
    # Rounded once at 2**half, where it stays normal: the same rounding as at the final
    # scale wherever the result is normal (a power of two commutes with it).
    magnitude = hi * exact_sum.power_of_two(half) + lo * exact_sum.power_of_two(half)
    magnitude = magnitude * exact_sum.power_of_two(exponent - half)
    signed_zero = jnp.where(negative, np.float32(-0.0), np.float32(0.0))
    signed_inf = jnp.where(negative, np.float32(-np.inf), np.float32(np.inf))
    result = jnp.where(negative, -magnitude, magnitude)
    result = jnp.where(zeros, signed_zero, jnp.where(infinities, signed_inf, result))
    result = jnp.where(zeros & infinities, _invalid(x), result)
    if first_nan is not None:
        result = jnp.where(jnp.isnan(first_nan), first_nan * np.float32(1), result)
    return jnp.where(jnp.isnan(x), x, result)


def has_nan_factor(sums: jax.Array) -> jax.Array:
    """Whether summed words ``(..., 3 + limbs)`` hold a NaN factor, or a zero and an
    infinity: both special counts are then positive."""
    return ((sums[..., 0] & _COUNT) > 0) & ((sums[..., 1] & _COUNT) > 0)


def _invalid(x: jax.Array) -> jax.Array:
    """NaN as this backend's ``0 * inf`` gives it at run time (x86 sets the sign bit),
    from ``x * 0``: a zero LLVM cannot prove (a zero it can prove, even one made of
    bits, it folds into its own NaN, whose sign bit is clear)."""
    return (x * np.float32(0)) * np.float32(np.inf)
