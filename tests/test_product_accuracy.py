"""Float products as accurate as the pairwise bound, on every plan: 2**22 factors near 1.

A float32 product of ``n`` factors near 1 rounds ``n`` times and the roundings do not
cancel (2**22 factors ``exp2(N(0, 1) * 2**-12)``: 2e-2 off through a pairwise tree, 1e-4
in sequence). The plans for long products compute them as integer sums of logarithms;
each target's product must be within ``(ceil(log2 n) + 2) * 2**-24`` of the exact one.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from dmljax._src import reductions

N = 2**22


def _factors(targets: int, order: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng([targets, len(order)])
    x = rng.uniform(0.5, 2, targets).astype(np.float32)
    factors = np.exp2(rng.standard_normal(N) * 2**-12).astype(np.float32)
    if order == "random":
        indices = rng.integers(0, targets, N)
    elif order == "equal":
        indices = np.full(N, targets // 2)
    else:  # Zipf-skewed: most factors meet the first targets
        indices = np.minimum(rng.zipf(1.5, N) - 1, targets - 1)
    return x, indices.astype(np.int32), factors


def _exact(x: np.ndarray, indices: np.ndarray, factors: np.ndarray) -> np.ndarray:
    """The float64 product, through float64 sums of float64 logarithms (2**-31 at most)."""
    logs = np.bincount(indices, np.log(factors.astype(np.float64)), minlength=x.size)
    return x.astype(np.float64) * np.exp(logs)


def _bound(indices: np.ndarray, targets: int) -> np.ndarray:
    counts = np.bincount(indices, minlength=targets)
    return (np.ceil(np.log2(np.maximum(counts, 1))) + 2) * 2.0**-24


@functools.partial(jax.jit, static_argnames="deterministic")
def _scatter_mul(x, indices, factors, deterministic):
    return dml.scatter(x, indices, factors, axis=0, reduction="mul", deterministic=deterministic)


PLANS = [("cpu", False), ("gpu", False), ("gpu", True)]  # the CPU plan ignores deterministic


@pytest.mark.parametrize(
    ("targets", "backend", "deterministic"),
    [(targets, *plan) for targets in (3, 7, 100) for plan in PLANS] + [(7, "cpu", True)],
)
def test_long_products_are_within_the_pairwise_bound(targets, backend, deterministic):
    with reductions.plan_as(backend):
        plan = reductions.plan_reduction(jnp.float32, "mul", targets=targets, updates=N)
        assert plan.log_product
        for order in ("random", "equal", "zipf"):
            x, indices, factors = _factors(targets, order)
            out = np.asarray(_scatter_mul(x, indices, factors, deterministic), np.float64)
            error = np.abs(out / _exact(x, indices, factors) - 1)
            bound = _bound(indices, targets)
            assert (error <= bound).all(), (order, error.max(), bound.min())


@pytest.mark.parametrize(("backend", "deterministic"), PLANS)
def test_a_product_whose_partial_products_are_float32_is_exact(backend, deterministic):
    # 3**7 into target 0, among enough other factors (1.0) to take the log product.
    indices = np.array([0] * 7 + [1] * 64, np.int32)
    factors = np.array([3.0] * 7 + [1.0] * 64, np.float32)
    x = np.array([1.0, -2.0], np.float32)
    with reductions.plan_as(backend):
        assert reductions.plan_reduction(jnp.float32, "mul", targets=2, updates=71).log_product
        out = _scatter_mul(x, indices, factors, deterministic)
    np.testing.assert_array_equal(out, [2187.0, -2.0])


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_16_bit_products_round_once_from_float32(backend):
    # Each 16-bit product is the float32 product of the same (16-bit) values, rounded
    # once: 2**16 factors exp2(N(0, 1) * 2**-6), far enough from 1 for bfloat16.
    rng = np.random.default_rng(16)
    x = rng.uniform(0.5, 2, 100)
    indices = rng.integers(0, 100, 2**16).astype(np.int32)
    factors = np.exp2(rng.standard_normal(2**16) * 2**-6)
    with reductions.plan_as(backend):
        for dtype in (jnp.float16, jnp.bfloat16):
            narrow_x, narrow_factors = x.astype(dtype), factors.astype(dtype)
            out = _scatter_mul(narrow_x, indices, narrow_factors, False)
            wide = _scatter_mul(
                narrow_x.astype(np.float32), indices, narrow_factors.astype(np.float32), False
            )
            assert out.dtype == dtype
            np.testing.assert_array_equal(np.asarray(out), np.asarray(wide).astype(dtype))
            exact = _exact(narrow_x.astype(np.float32), indices, narrow_factors.astype(np.float32))
            ulp = float(jnp.finfo(dtype).eps) / 2 + _bound(indices, 100) * 2
            assert (np.abs(np.asarray(out, np.float64) / exact - 1) <= ulp).all()
