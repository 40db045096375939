"""The reduction planner: its rules from static facts, and every plan's results.

Each plan is run on the CPU: ``reductions.plan_as("gpu")`` makes the planner choose as
it does on a GPU (private lanes, 32-bit accumulators), so the GPU's lowerings are
checked here against the reference, exactly.
"""

import functools
import re
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import dmljax as dml
from dmljax._src import exact_sum, log_product, reductions
from dmljax._src.checking import reference
from dmljax._src.reductions import ReductionPlan, plan_reduction
from tests import helpers

F32 = np.dtype(np.float32)


def test_the_cpu_keeps_xla_and_widens_only_16_bit_sums():
    for dtype in (jnp.float32, jnp.int8, jnp.int32, jnp.bfloat16):
        for reduction in ("add", "mul", "max", "min"):
            plan = plan_reduction(dtype, reduction, targets=1, updates=2**24, backend="cpu")
            assert plan.lanes == 1
            wide = reduction in ("add", "mul") and dtype == jnp.bfloat16
            assert plan.accumulator == (F32 if wide else np.dtype(dtype))


def test_a_gpu_widens_every_narrow_type():
    expected = {jnp.bfloat16: F32, jnp.float16: F32, jnp.int8: np.int32, jnp.uint16: np.uint32,
                jnp.bool_: np.int32, jnp.float32: F32, jnp.int64: np.int64}  # fmt: skip
    for dtype, accumulator in expected.items():
        plan = plan_reduction(dtype, "max", targets=2**20, updates=2**20, backend="gpu")
        assert plan == ReductionPlan(np.dtype(accumulator), 1)


@pytest.mark.parametrize("reduction", ["add", "mul", "max", "min"])
@pytest.mark.parametrize("targets", [1, 16, 1024, 65536, 2**20])
@pytest.mark.parametrize("updates", [2**10, 2**20, 2**24])
def test_lanes_follow_the_contention_within_the_budget(reduction, targets, updates):
    plan = plan_reduction(jnp.float32, reduction, targets=targets, updates=updates,
                          backend="gpu")  # fmt: skip
    lanes = plan.lanes
    assert lanes & (lanes - 1) == 0  # a power of two
    contended = updates >= reductions.CONTENDED * targets
    if reduction == "mul" and updates <= log_product.MAX_COUNT:
        # A float32 product as long as this is as accurate only as a log product.
        assert plan.log_product == contended
        assert lanes == 1
        return
    assert not plan.log_product
    if not contended:
        assert lanes == 1
        return
    assert lanes * targets <= reductions.LANE_BUDGET
    if reduction == "mul":
        # Short chains even if every update meets one target, as far as the budget goes.
        assert 2 * lanes > min(updates, reductions.LANE_BUDGET // targets)
        assert lanes <= updates
    else:
        assert lanes <= min(1024, updates // targets)
        assert 2 * lanes > min(updates // targets, reductions.LANE_BUDGET // targets, 1024)


def test_rows_privatise_only_under_heavy_contention():
    # An embedding gradient, 2**18 lookups of 128-wide rows: a warp's atomics fall on 32
    # addresses, so a vocabulary of 256 (1024 lookups per row) stays with XLA's scatter.
    def lanes(vocabulary, window=128):
        size, lookups = vocabulary * window, 2**18 * window
        plan = plan_reduction(
            jnp.float32, "add", targets=size, updates=lookups, window=window, backend="gpu"
        )
        return plan.lanes

    assert lanes(65536) == lanes(256) == 1
    assert lanes(4) == 1024
    assert lanes(256, window=1) > 1


def _operands(dtype, reduction, targets, order, rng, *, count=2048, width=None):
    """x, indices (some negative, some out of range) and updates whose results are exact
    in every accumulator: dyadic sums far inside float32's 24 bits, products of powers of 2."""
    shape = (targets,) if width is None else (targets, width)
    # Element 0 is never addressed (0 and -targets would reach it): it holds a -0.0.
    indices = rng.integers(1 - targets, targets + 3, count)
    indices[indices == 0] = targets + 1
    if order == "sorted":
        indices.sort()
    elif order == "equal":
        indices[:] = targets - 1
    ushape = (count,) if width is None else (count, width)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5, indices, rng.random(ushape) < 0.5
    if reduction == "mul":
        # Signs everywhere, and few enough factors of 2 and 1/2 to stay inside float16.
        values = rng.choice([-1.0, 1.0], ushape)
        values.flat[rng.choice(values.size, 16, replace=False)] = [2.0] * 8 + [0.5] * 8
        if jnp.issubdtype(dtype, jnp.integer):
            values = np.where(values == 0.5, 2.0, values)  # 2**16 wraps in 8 and 16 bits
    elif jnp.issubdtype(dtype, jnp.unsignedinteger):
        values = rng.integers(0, 9, ushape)
    else:
        values = rng.integers(-8, 9, ushape) * (0.25 if jnp.issubdtype(dtype, jnp.floating) else 1)
    x = rng.integers(0, 5, shape)
    if jnp.issubdtype(dtype, jnp.floating):
        x = x - 2.5
        x.flat[0] = -0.0  # untouched, so it must come through as it is
    return x.astype(dtype), indices, values.astype(dtype)


def _expected(x, indices, updates, reduction, scatter):
    wide = np.float64 if jnp.issubdtype(x.dtype, jnp.floating) else x.dtype
    exact = scatter(x.astype(wide), indices, updates.astype(wide), reduction=reduction)
    return exact.astype(x.dtype)


def _assert_same(out, expected):
    out = np.asarray(out)
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out, expected)
    if jnp.issubdtype(out.dtype, jnp.floating):
        np.testing.assert_array_equal(np.signbit(out), np.signbit(expected))


DTYPES = [jnp.float32, jnp.bfloat16, jnp.float16, jnp.int32, jnp.int8, jnp.uint8, jnp.bool_]


@pytest.mark.parametrize("backend", ["gpu", "cpu"])
@pytest.mark.parametrize("reduction", ["add", "mul", "max", "min"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_scatter_plans_equal_the_reference(dtype, reduction, backend):
    if dtype == jnp.bool_ and reduction in ("add", "mul"):
        pytest.skip("bool takes max and min only")
    scatter = lambda *a, reduction: reference.scatter(*a, axis=0, reduction=reduction)
    # The three orders are operands of one shape: one plan_as (which clears JAX's caches)
    # and one compiled program for the three.
    with reductions.plan_as(backend):
        for order in ("random", "sorted", "equal"):
            seed = zlib.crc32(f"{np.dtype(dtype).name} {reduction} {order}".encode())
            x, indices, updates = _operands(dtype, reduction, 16, order,
                                            np.random.default_rng(seed))  # fmt: skip
            plan = plan_reduction(dtype, reduction, targets=x.size, updates=updates.size)
            if reduction == "mul" and jnp.issubdtype(dtype, jnp.floating):
                assert plan.log_product  # on every backend: long float products
            else:
                assert (plan.lanes > 1) == (backend == "gpu")
            # device_put, not jnp.asarray: no program per shape (plan_as clears the caches).
            operands = jax.device_put((x, indices, updates))
            out = dml.scatter(*operands, axis=0, reduction=reduction)
            _assert_same(out, _expected(x, indices, updates, reduction, scatter))


@pytest.mark.parametrize("reduction", ["add", "mul", "max", "min"])
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16, jnp.int32], ids=str)
def test_scatter_nd_rows_and_batched_elements_through_lanes(dtype, reduction):
    rng = np.random.default_rng(3)
    x, rows, updates = _operands(dtype, reduction, 4, "random", rng, count=512, width=3)
    with reductions.plan_as("gpu"):
        # Operands shaped by NumPy: eager jnp indexing would compile a program per step.
        out = dml.scatter_nd(*jax.device_put((x, rows[:, None], updates)), reduction=reduction)
        # SCATTER along axis 1 of a (3, 4) tensor: every row is a batch of its own.
        along_rows = jax.device_put((x.T, rows.reshape(1, -1).repeat(3, 0), updates.T))
        columns = dml.scatter(*along_rows, axis=1, reduction=reduction)
    nd = lambda *a, reduction: reference.scatter_nd(*a, reduction=reduction)
    _assert_same(out, _expected(x, rows[:, None], updates, reduction, nd))
    elements = lambda *a, reduction: reference.scatter(*a, axis=1, reduction=reduction)
    expected = _expected(x.T, rows.reshape(1, -1).repeat(3, 0), updates.T, reduction, elements)
    _assert_same(columns, expected)


def test_the_gpu_plan_privatises_into_lanes():
    x, i, u = jnp.zeros(16), jnp.zeros(4096, jnp.int32), jnp.ones(4096)
    with reductions.plan_as("gpu"):
        text = jax.jit(lambda *a: dml.scatter(*a, axis=0, reduction="add")).lower(x, i, u).as_text()
    assert "tensor<256x16xf32>" in text  # 4096 / 16 updates per target: 256 lanes
    with reductions.plan_as("cpu"):
        text = jax.jit(lambda *a: dml.scatter(*a, axis=0, reduction="add")).lower(x, i, u).as_text()
    assert "256x16" not in text


def test_16_bit_sums_round_once_through_lanes():
    x, i = jnp.ones((2,), jnp.bfloat16), jnp.zeros((1024,), jnp.int32)
    with reductions.plan_as("gpu"):
        out = dml.scatter(x, i, jnp.full((1024,), 2.0**-9, jnp.bfloat16), axis=0, reduction="add")
    assert out.tolist() == [3.0, 1.0]


GATHERS = {
    "gather": (lambda t, i: dml.gather(t, i, axis=0), lambda t, i: jnp.take(t, i, axis=0)),
    "gather_nd": (lambda t, i: dml.gather_nd(t, i[:, None]), lambda t, i: t[i]),
    "gather_elements": (
        lambda t, i: dml.gather_elements(
            t, jnp.broadcast_to(i[:, None], (i.size, t.shape[1])), axis=0
        ),
        lambda t, i: jnp.take_along_axis(
            t, jnp.broadcast_to(i[:, None], (i.size, t.shape[1])), axis=0
        ),
    ),
}


@pytest.mark.parametrize("name", GATHERS)
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16], ids=str)
def test_gather_gradients_through_lanes_equal_jnp(name, dtype):
    ours, theirs = GATHERS[name]
    rng = np.random.default_rng(5)
    table = jnp.asarray(rng.standard_normal((4, 3)), dtype)
    ids = jnp.asarray(rng.integers(0, 4, 1024))
    weights = jnp.asarray(rng.integers(-4, 5, (1024, 3)), jnp.float32)  # sums exact in float32

    def loss(take):
        return lambda t: (take(t, ids).astype(jnp.float32) * weights).sum()

    with reductions.plan_as("gpu"):
        assert plan_reduction(dtype, "add", targets=12, updates=3072).lanes == 256
        np.testing.assert_array_equal(ours(table, ids), theirs(table, ids))
        program = jax.jit(jax.grad(loss(ours)))
        grad, text = program(table), program.lower(table).as_text()
    assert re.search(r"tensor<256x(4x3|3x4)xf32>", text)  # GATHER_ELEMENTS moves its axis last
    expected = jax.jit(jax.grad(loss(theirs)))(table.astype(jnp.float32)).astype(dtype)
    np.testing.assert_array_equal(grad, expected)


@pytest.mark.parametrize("name", GATHERS)
def test_gather_derivatives_through_lanes_of_order_2(name):
    ours, _ = GATHERS[name]
    rng = np.random.default_rng(6)
    table = jnp.asarray(rng.standard_normal((2, 3)), jnp.float32)
    ids = jnp.asarray(rng.integers(0, 2, 64))
    with reductions.plan_as("gpu"):
        assert plan_reduction(jnp.float32, "add", targets=6, updates=192).lanes == 32
        # Jitted: one program per derivative, where eager runs compile each operation.
        check_grads(jax.jit(lambda t: ours(t, ids) ** 2), (table,), order=2,
                    modes=("fwd", "rev"))  # fmt: skip
        grad = jax.jit(jax.grad(lambda t: (ours(t, ids) ** 2).sum()))
        batched = jax.jit(jax.vmap(grad))(jnp.stack([table] * 2))
    np.testing.assert_allclose(batched[1], grad(table), rtol=1e-6)


DETERMINISTIC_CASES = [
    # (targets, updates): a lane per index (targets * updates <= 2**24), or a sort.
    pytest.param(16, 2048, id="lanes"),
    pytest.param(8192, 4096, id="sorted"),
]


@pytest.mark.parametrize(("targets", "count"), DETERMINISTIC_CASES)
@pytest.mark.parametrize("reduction", ["add", "mul"])
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16, jnp.float16], ids=str)
def test_deterministic_sums_and_products_equal_the_reference(dtype, reduction, targets, count):
    scatter = lambda *a, reduction: reference.scatter(*a, axis=0, reduction=reduction)
    # The three orders are operands of one shape: one program for the three.
    with reductions.plan_as("gpu"):
        fn = jax.jit(lambda *a: dml.scatter(*a, axis=0, reduction=reduction, deterministic=True))
        for order in ("random", "sorted", "equal"):
            rng = np.random.default_rng(zlib.crc32(f"{reduction} {order} {targets}".encode()))
            x, indices, updates = _operands(dtype, reduction, targets, order, rng, count=count)
            args = (jnp.asarray(x), jnp.asarray(indices), jnp.asarray(updates))
            _assert_same(fn(*args), _expected(x, indices, updates, reduction, scatter))
        text = fn.lower(*args).as_text()
    lowering = reductions.fixed_order_lowering(jnp.float32, reduction, windows=count,
                                               targets=targets)  # fmt: skip
    assert lowering == "limbs"
    layout = exact_sum.limb_layout(count) if reduction == "add" else log_product.limb_layout(count)
    words = layout.limbs + (0 if reduction == "add" else 3)
    assert f"{targets}x{words}xi32>" in text  # the integer sums
    assert "stablehlo.sort" not in text


@pytest.mark.parametrize("lowering", ["limbs", "lanes", "sort"])
@pytest.mark.parametrize("reduction", ["add", "mul"])
def test_each_fixed_order_lowering_equals_the_reference(reduction, lowering):
    # float64 and more than 2**23 updates per target take the lanes or the sort.
    rng = np.random.default_rng(zlib.crc32(f"{reduction} {lowering}".encode()))
    x, indices, updates = _operands(jnp.float32, reduction, 64, "random", rng, count=512)
    keep = (indices >= 0) & (indices < 64)
    flat = jax.lax.ScatterDimensionNumbers((), (0,), (0,))
    drop = jax.lax.GatherScatterMode.FILL_OR_DROP

    @jax.jit
    def run(x, indices, updates):
        return reductions.scatter_reduce(
            x, indices[:, None], updates, flat, reduction, mode=drop, deterministic=True,
            fixed_order=lowering,
        )  # fmt: skip

    with reductions.plan_as("gpu"):
        out = run(jnp.asarray(x), jnp.asarray(indices[keep]), jnp.asarray(updates[keep]))
    scatter = lambda *a, reduction: reference.scatter(*a, axis=0, reduction=reduction)
    _assert_same(out, _expected(x, indices[keep], updates[keep], reduction, scatter))


def _sign_bits(values: jax.Array) -> list[int]:
    return [int(b) >> 31 for b in np.asarray(values, np.float32).view(np.uint32)]


@pytest.mark.parametrize("how", [None, "plain", "limbs", "lanes", "sort"])
@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_zeros_have_the_sign_ieee_addition_gives(backend, how):
    # -0.0 targets: one gets 64 updates of +0.0 (x + sum is +0.0), one 64 of -0.0 (stays
    # -0.0), one 1.0 and -1.0 (+0.0), one nothing (keeps -0.0). Every plan: the backend's
    # default (lanes on the GPU for this contention) and each fixed order.
    x = jnp.full(4, -0.0, jnp.float32)
    indices = jnp.array([0] * 64 + [1] * 64 + [2, 2], jnp.int32)
    updates = jnp.array([0.0] * 64 + [-0.0] * 64 + [1.0, -1.0], jnp.float32)
    flat = jax.lax.ScatterDimensionNumbers((), (0,), (0,))
    drop = jax.lax.GatherScatterMode.FILL_OR_DROP

    fixed = None if how in (None, "plain") else how

    @jax.jit
    def run(x, indices, updates):
        return reductions.scatter_reduce(
            x, indices[:, None], updates, flat, "add", mode=drop,
            deterministic=fixed is not None, fixed_order=fixed,
        )  # fmt: skip

    with reductions.plan_as(backend):
        got = (
            dml.scatter(x, indices, updates, axis=0, reduction="add")
            if how is None
            else run(x, indices, updates)
        )
    assert _sign_bits(got) == [0, 1, 0, 1]
    np.testing.assert_array_equal(got, np.zeros(4))


@pytest.mark.parametrize("reduction", ["add", "mul"])
def test_deterministic_rows_through_the_sort(reduction):
    rng = np.random.default_rng(8)
    x, rows, updates = _operands(jnp.float32, reduction, 2048, "random", rng, count=4096, width=8)
    with reductions.plan_as("gpu"):
        out = dml.scatter_nd(jnp.asarray(x), jnp.asarray(rows)[:, None], jnp.asarray(updates),
                             reduction=reduction, deterministic=True)  # fmt: skip
    nd = lambda *a, reduction: reference.scatter_nd(*a, reduction=reduction)
    _assert_same(out, _expected(x, rows[:, None], updates, reduction, nd))


def test_deterministic_sums_repeat_their_bits_and_differentiate():
    rng = np.random.default_rng(9)
    x = jnp.asarray(rng.standard_normal(4096), jnp.float32)
    indices = jnp.asarray(rng.integers(0, 64, 2**14))
    updates = jnp.asarray(rng.standard_normal(2**14), jnp.float32)
    with reductions.plan_as("gpu"):
        fn = jax.jit(lambda x, u: dml.scatter(x, indices, u, axis=0, reduction="add",
                                              deterministic=True))  # fmt: skip
        first = np.asarray(fn(x, updates))
        assert all(np.array_equal(first, np.asarray(fn(x, updates))) for _ in range(5))
        gx, gu = jax.grad(lambda x, u: (fn(x, u) * jnp.arange(4096.0)).sum(), (0, 1))(x, updates)
    np.testing.assert_allclose(
        first,
        reference.scatter(
            np.asarray(x, np.float64),
            np.asarray(indices),
            np.asarray(updates, np.float64),
            axis=0,
            reduction="add",
        ),
        rtol=1e-5,
        atol=1e-4,
    )
    np.testing.assert_array_equal(gx, np.arange(4096.0))
    np.testing.assert_array_equal(gu, np.asarray(indices, np.float32))


@pytest.mark.parametrize("targets", [16, 4096])
@pytest.mark.parametrize("reduction", ["add", "mul"])
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16], ids=str)
def test_deterministic_sums_give_the_same_bits_over_100_runs(dtype, reduction, targets):
    # On the default backend: on a GPU this is the atomics' race the plan removes.
    rng = np.random.default_rng(10)
    n = 2**16
    x = jnp.asarray(rng.standard_normal(targets), dtype)
    indices = jnp.asarray(np.sort(rng.integers(0, targets, n)))  # heavy duplication
    factors = rng.standard_normal(n) if reduction == "add" else np.exp(rng.normal(0, 1e-3, n))
    updates = jnp.asarray(factors, dtype)

    def run(deterministic):
        return jax.jit(lambda x, i, u: dml.scatter(x, i, u, axis=0, reduction=reduction,
                                                   deterministic=deterministic))  # fmt: skip

    fn = run(True)
    first = np.asarray(fn(x, indices, updates))
    for _ in range(99):
        assert np.asarray(fn(x, indices, updates)).tobytes() == first.tobytes()
    if jax.default_backend() != "cpu":  # XLA:CPU's serial scatter keeps the given order
        # The same bits whatever the order of the updates, too.
        order = rng.permutation(n)
        assert np.asarray(fn(x, indices[order], updates[order])).tobytes() == first.tobytes()
    default = np.asarray(run(False)(x, indices, updates), np.float32)
    eps = float(jnp.finfo(dtype).eps)
    if reduction == "add":
        scale = np.abs(np.asarray(updates, np.float32)).sum()
        tolerance = 2.0**-24 * n * scale + eps * np.abs(default).max()
        np.testing.assert_allclose(first.astype(np.float32), default, rtol=0, atol=tolerance)
    else:  # both within n * 2**-24 (relative) of the exact product, and 2**-22 for the logs
        np.testing.assert_allclose(first.astype(np.float32), default,
                                   rtol=2 * (2.0**-24 * n + 2.0**-22) + 2 * eps)  # fmt: skip


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
@pytest.mark.parametrize("deterministic", [False, True])
def test_products_differentiate_with_respect_to_the_updates(backend, deterministic):
    # JAX's scatter-mul does so only with unique indices; duplicates and zeros here.
    rng = np.random.default_rng(12)
    x = jnp.asarray(rng.uniform(0.5, 1.5, 8), jnp.float32)
    indices = rng.integers(-8, 10, 200)
    updates = rng.uniform(0.9, 1.1, 200)
    indices[:3] = 5
    updates[[0, 1, 7]] = 0.0  # two zeros meet at 5; one zero alone somewhere else
    indices, updates = jnp.asarray(indices), jnp.asarray(updates, jnp.float32)

    def f(x, u):
        return dml.scatter(x, indices, u, axis=0, reduction="mul", deterministic=deterministic)

    with reductions.plan_as(backend):
        if deterministic and backend == "gpu":  # the log product: sums of limbs, no sort
            assert "stablehlo.sort" not in jax.jit(f).lower(x, updates).as_text()
        # In float64: finite differences of float32 products that a GPU's atomics combine
        # in any order are noise at second order.
        with jax.enable_x64(True):
            wide = (x.astype(jnp.float64), updates.astype(jnp.float64))
            check_grads(jax.jit(f), wide, order=2, modes=["fwd", "rev"], atol=1e-5, rtol=1e-5)
        got = jax.jit(jax.jacrev(f, (0, 1)))(x, updates)  # one program, not op by op
    want = helpers.product_jacobians(x, indices, updates)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def _nan_products() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Targets: 0 * inf; -0.0 * inf; a -NaN x; a +NaN factor; a -NaN factor times -1; a
    -NaN then a +NaN factor (a serial product keeps the first); an untouched NaN x with a
    payload. 16 ones each as well, enough for the log product."""
    negative_nan = np.float32(np.nan) * np.float32(-1)
    payload = np.array(0x7FC00123, np.uint32).view(np.float32)
    x = np.array([1.0, -0.0, negative_nan, 1.0, 1.0, 1.0, payload], np.float32)
    factors = [[0.0, np.inf], [np.inf], [2.0], [np.nan], [negative_nan, -1.0],
               [negative_nan, np.nan]]  # fmt: skip
    ones = np.ones(112, np.float32)
    indices = np.concatenate([[t] * len(f) for t, f in enumerate(factors)] + [np.arange(112) % 6])
    updates = np.concatenate([np.array(f, np.float32) for f in factors] + [ones])
    return x, indices.astype(np.int32), updates


@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_nans_from_a_product_are_the_ones_jnp_gives(backend, deterministic):
    x, indices, updates = _nan_products()
    with reductions.plan_as(backend):
        assert plan_reduction(jnp.float32, "mul", targets=7, updates=updates.size).log_product
        got = jax.jit(
            lambda x, i, u: dml.scatter(
                x, i, u, axis=0, reduction="mul", deterministic=deterministic
            )
        )(x, indices, updates)
    want = jax.jit(lambda x, i, u: x.at[i].multiply(u))(x, indices, updates)
    assert np.isnan(got).all()
    # The same bits: x86's NaNs carry their signs through a product (the first NaN wins,
    # 0 * inf sets the sign bit); CUDA's products give one canonical NaN. Both keep an
    # untouched NaN x as it is.
    got_bits = np.asarray(got).view(np.uint32)
    np.testing.assert_array_equal(got_bits, np.asarray(want).view(np.uint32))


def test_the_gpu_log_product_gives_every_nan_product_the_canonical_nan():
    # The GPU's log product, run here: CUDA's one NaN for every touched target, the
    # untouched NaN x as it is (what jnp's scatter-mul gives on an H200).
    x, indices, updates = _nan_products()
    layout = log_product.limb_layout(updates.size)
    canonical = functools.partial(
        reductions._log_product_canonical,
        layout=layout,
        significand_bits=24,  # float32's
    )
    got = jax.jit(canonical)(x, indices, updates)
    want = np.array([0x7FFFFFFF] * 6 + [0x7FC00123], np.uint32)
    np.testing.assert_array_equal(np.asarray(got).view(np.uint32), want)
