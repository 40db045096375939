"""Float32 pairs: a value as ``hi + lo``, about 48 bits, from float32 arithmetic alone.

JAX has no float64 unless x64 is on, and TPUs have none at all, so the few places that
need more than float32 (the logarithms and powers of :mod:`dmljax._src.log_product`)
carry an unevaluated sum of two float32s. The products are exact by construction: each
factor is split into two halves of at most 12 significant bits (by masking its bits,
not by Veltkamp's multiply-and-subtract), so every partial product fits 24 bits, and
the sums are Knuth's two-sum, which has no multiply. Nothing here then depends on
whether the compiler fuses a multiply into an add (XLA:GPU does): fusing an exact
product changes no rounding.

Every function works elementwise on float32 arrays of any shape; inputs are assumed
finite and away from the subnormal range (the callers pass mantissas and logarithms).

>>> hi, lo = mul(from_float64(1 / 3), from_float64(3.0))
>>> float(hi), abs(float(hi) + float(lo) - 1.0) < 2**-46
(1.0, True)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = [
    "Pair",
    "add",
    "add_float",
    "constant",
    "exact_product",
    "from_float64",
    "mul",
    "mul_float",
    "split",
    "take",
    "two_sum",
]

Pair = tuple[jax.Array, jax.Array]
"""``(hi, lo)``: the value ``hi + lo``, with ``|lo|`` at most half an ulp of ``hi`` after
:func:`two_sum` (before it, anything smaller than ``hi``)."""

_LOW_12 = np.int32(-(1 << 12))  # clears a float32's 12 lowest mantissa bits


def from_float64(value: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A float64 constant (or table) as a pair of NumPy float32 arrays: its float32
    rounding and the rest (NumPy, so that importing a table starts no backend).

    >>> [float(v) for v in from_float64(0.1)]
    [0.10000000149011612, -1.4901161415892261e-09]
    """
    wide = np.asarray(value, np.float64)
    hi = wide.astype(np.float32)
    return hi, (wide - hi.astype(np.float64)).astype(np.float32)


def constant(pair: tuple[np.ndarray, np.ndarray]) -> Pair:
    """A pair made by :func:`from_float64`, as JAX arrays (constants of the program)."""
    return jnp.asarray(pair[0]), jnp.asarray(pair[1])


def take(table: tuple[np.ndarray, np.ndarray], index: jax.Array) -> Pair:
    """Entries ``index`` of a table of pairs made by :func:`from_float64`."""
    return jnp.asarray(table[0])[index], jnp.asarray(table[1])[index]


def split(a: jax.Array) -> Pair:
    """``a`` as its top 12 significant bits and the rest (at most 12 bits), exactly.

    >>> [float(v) for v in split(jnp.float32(1 + 2**-23))]
    [1.0, 1.1920928955078125e-07]
    """
    bits = lax.bitcast_convert_type(a, np.int32)
    hi = lax.bitcast_convert_type(bits & _LOW_12, np.float32)
    return hi, a - hi  # a and hi share their exponent: the difference is exact


def two_sum(a: jax.Array, b: jax.Array) -> Pair:
    """``a + b`` rounded, and its rounding error, exactly (Knuth; any magnitudes)."""
    s = a + b
    b_virtual = s - a
    a_virtual = s - b_virtual
    return s, (a - a_virtual) + (b - b_virtual)


def exact_product(a: jax.Array, b: jax.Array) -> Pair:
    """``a * b`` as a pair: four exact partial products of 12-bit halves, summed.

    The pair is within ``2**-47`` of the product, relatively (its ``lo`` is a float32
    sum of three partial products' roundings).
    """
    a_hi, a_lo = split(a)
    b_hi, b_lo = split(b)
    hi, err = two_sum(a_hi * b_hi, a_hi * b_lo)
    hi, err2 = two_sum(hi, a_lo * b_hi)
    hi, err3 = two_sum(hi, a_lo * b_lo)
    return two_sum(hi, err + err2 + err3)


def add(x: Pair, y: Pair) -> Pair:
    """``x + y`` as a pair (relative error about ``2**-47`` without cancellation)."""
    hi, err = two_sum(x[0], y[0])
    return two_sum(hi, err + (x[1] + y[1]))


def add_float(x: Pair, y: jax.Array) -> Pair:
    """``x + y`` for a float32 ``y``."""
    hi, err = two_sum(x[0], y)
    return two_sum(hi, err + x[1])


def mul(x: Pair, y: Pair) -> Pair:
    """``x * y`` as a pair (relative error about ``2**-46``)."""
    hi, lo = exact_product(x[0], y[0])
    return two_sum(hi, lo + (x[0] * y[1] + x[1] * y[0]))


def mul_float(x: Pair, y: jax.Array) -> Pair:
    """``x * y`` for a float32 ``y``."""
    hi, lo = exact_product(x[0], y)
    return two_sum(hi, lo + x[1] * y)
