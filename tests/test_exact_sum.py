"""Sums as integer limbs: the same bits in any order, and at least float32's accuracy."""

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import dmljax as dml
from dmljax._src import exact_sum, log_product, reductions


@functools.partial(jax.jit, static_argnames=("targets", "layout"))
def _limb_sums(v: jax.Array, p: jax.Array, *, targets: int, layout: Any) -> jax.Array:
    top = jnp.zeros(targets, jnp.int32).at[p].max(exact_sum.exponent_keys(v))
    limbs = exact_sum.encode(v, top[p], layout)
    sums = jnp.zeros((targets, layout.limbs), jnp.int32).at[p].add(limbs)
    return exact_sum.decode(sums, top, layout)


def _sums(values: np.ndarray, positions: np.ndarray, targets: int) -> np.ndarray:
    # One program per problem size: the tests' second call, in another order, reuses it.
    layout = exact_sum.limb_layout(values.size)
    return np.asarray(_limb_sums(jnp.asarray(values), jnp.asarray(positions),
                                 targets=targets, layout=layout))  # fmt: skip


def _values(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "normal":
        v = rng.standard_normal(n)
    elif kind == "every exponent":
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-40, 38, n)
    elif kind == "subnormal":
        v = rng.standard_normal(n) * 1e-42
    elif kind == "cancelling":
        v = rng.choice([1.0, -1.0, 3e38, -3e38, 1e-45, 0.0, -0.0], n)
    else:
        v = rng.standard_normal(n)
        v[rng.integers(0, n, 3)] = rng.choice([np.inf, -np.inf, np.nan], 3)
    return v.astype(np.float32)


def _problem(seed: int) -> tuple[np.random.Generator, int, int]:
    """A generator seeded with ``seed``, and a problem it drew: up to 3000 values reduced
    into up to 40 targets."""
    rng = np.random.default_rng(seed)
    return rng, int(rng.integers(1, 3000)), int(rng.integers(1, 40))


KINDS = ["normal", "every exponent", "subnormal", "cancelling", "non-finite"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(6))
def test_limb_sums_ignore_the_order_and_beat_a_float32_sum(kind, seed):
    rng, n, targets = _problem(seed)
    values, positions = _values(kind, n, rng), rng.integers(0, targets, n)
    out = _sums(values, positions, targets)
    order = rng.permutation(n)
    assert _sums(values[order], positions[order], targets).tobytes() == out.tobytes()
    exact, magnitude = np.zeros(targets), np.zeros(targets)
    with np.errstate(invalid="ignore"):
        np.add.at(exact, positions, values.astype(np.float64))
    np.add.at(magnitude, positions, np.abs(values.astype(np.float64)))
    with np.errstate(over="ignore"):
        rounded = exact.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(exact))
    infinite = np.isinf(exact)
    np.testing.assert_array_equal(out[infinite], exact[infinite])
    finite = np.isfinite(rounded)
    # A float32 sum in any order errs up to n * 2**-24 * sum|u|; limbs by far less.
    # XLA:CPU flushes subnormal results to zero, hence the 2**-126.
    bound = 2.0**-23 * np.abs(exact) + 2.0**-26 * magnitude + 2.0**-126
    assert (np.abs(out[finite] - exact[finite]) <= bound[finite]).all()


def test_limb_layouts_never_overflow_a_limb_sum():
    for count in (1, 2, 3, 1000, 2**20, 2**20 + 1, 2**24):
        layout = exact_sum.limb_layout(count)
        assert count * (2**layout.bits - 1) < 2**31
        assert layout.guard >= 8  # bits kept below a float32 ulp of the largest update
        assert layout.limbs * layout.bits == 24 + layout.guard
    with pytest.raises(ValueError, match="1 to 16777216 updates per target"):
        exact_sum.limb_layout(2**24 + 1)


def test_a_deterministic_sum_differentiates_like_a_sum():
    rng = np.random.default_rng(3)
    x = jnp.asarray(rng.standard_normal(64), jnp.float32)
    indices = jnp.asarray(rng.integers(-64, 80, 4096))  # negative, and dropped beyond 63
    updates = jnp.asarray(rng.standard_normal(4096), jnp.float32)
    with reductions.plan_as("gpu"):

        def f(x, u):
            return dml.scatter(x, indices, u, axis=0, reduction="add", deterministic=True)

        text = jax.jit(f).lower(x, updates).as_text()
        assert "stablehlo.bitcast_convert" in text
        check_grads(f, (x, updates), order=2, modes=["fwd", "rev"], atol=1e-2, rtol=1e-2)
        got = jax.vjp(f, x, updates)[1](jnp.arange(64.0, dtype=jnp.float32))
    want = jax.vjp(lambda x, u: dml.scatter(x, indices, u, axis=0, reduction="add"), x,
                   updates)[1](jnp.arange(64.0, dtype=jnp.float32))  # fmt: skip
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


@functools.partial(jax.jit, static_argnames=("targets", "layout"))
def _log_products(v: jax.Array, p: jax.Array, *, targets: int, layout: Any) -> jax.Array:
    words = log_product.encode(v, layout)
    sums = jnp.zeros((targets, words.shape[-1]), jnp.int32).at[p].add(words)
    return log_product.decode(sums, layout)


def _products(values: np.ndarray, positions: np.ndarray, targets: int) -> np.ndarray:
    layout = log_product.limb_layout(values.size)
    return np.asarray(_log_products(jnp.asarray(values), jnp.asarray(positions),
                                    targets=targets, layout=layout))  # fmt: skip


@pytest.mark.parametrize(("dtype", "bits"), [(jnp.float16, 11), (jnp.bfloat16, 8)], ids=str)
def test_a_16_bit_values_logarithm_from_the_table_is_the_computed_one(dtype, bits):
    # Every bit pattern of the type: the counts and exponents the same, the logarithm's
    # fixed point at most one unit of its last bit (2**-43 for 2**20 factors) apart.
    values = jnp.asarray(np.arange(2**16, dtype=np.uint16).view(jnp.dtype(dtype)), jnp.float32)
    layout = log_product.limb_layout(2**20)
    table, pairs = (np.asarray(jax.jit(functools.partial(log_product.encode, layout=layout,
                                                         significand_bits=b))(values))
                    for b in (bits, 24))  # fmt: skip
    np.testing.assert_array_equal(table[:, :3], pairs[:, :3])
    weights = 2 ** (layout.bits * np.arange(layout.limbs, dtype=np.int64))
    fixed = [words[:, 3:].astype(np.int64) @ weights for words in (table, pairs)]
    assert np.abs(fixed[0] - fixed[1]).max() <= 1


FACTORS = ["near one", "every exponent", "subnormal", "signed zeros", "non-finite"]


@pytest.mark.parametrize("kind", FACTORS)
@pytest.mark.parametrize("seed", range(6))
def test_log_products_ignore_the_order_within_float32_bounds(kind, seed):
    rng, n, targets = _problem(seed)
    values = np.exp(rng.normal(0, 1e-3, n))
    if kind == "every exponent":
        values = rng.choice([-1, 1], n) * 2.0 ** rng.integers(-20, 20, n) * rng.uniform(1, 2, n)
    elif kind == "subnormal":
        values[rng.integers(0, n, 4)] = [1e-40, -3e-44, 1e-45, 2e-39]
    elif kind == "signed zeros":
        values[rng.integers(0, n, 4)] = [0.0, -0.0, -0.0, -1.0]
    elif kind == "non-finite":
        values[rng.integers(0, n, 4)] = [np.inf, -np.inf, np.nan, 0.0]
    values, positions = values.astype(np.float32), rng.integers(0, targets, n)
    out = _products(values, positions, targets)
    order = rng.permutation(n)
    assert _products(values[order], positions[order], targets).tobytes() == out.tobytes()
    exact, counts = np.ones(targets), np.zeros(targets)
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        np.multiply.at(exact, positions, values.astype(np.float64))
    np.add.at(counts, positions, 1)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(exact))
    number = ~np.isnan(exact)  # a NaN's sign is unspecified
    np.testing.assert_array_equal(np.signbit(out[number]), np.signbit(exact[number]))
    with np.errstate(over="ignore"):
        rounded = exact.astype(np.float32)
    special = np.isinf(rounded) | (exact == 0)
    np.testing.assert_array_equal(out[special], rounded[special])
    # One rounding, and ceil(log2 count) * 2**-25 for the logarithms and the power (a
    # float32 product in any order errs by up to count * 2**-24). XLA:CPU flushes
    # subnormal results to zero.
    depth = np.ceil(np.log2(np.maximum(counts, 1)))
    bound = (2.0**-24 + depth * 2.0**-25) * np.abs(exact) + 2.0**-126
    finite = np.isfinite(rounded)
    assert (np.abs(out[finite] - exact[finite]) <= bound[finite]).all()
