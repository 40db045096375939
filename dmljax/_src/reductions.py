"""Reducing scatters and gather gradients, planned from static facts: where SCATTER and
SCATTER_ND combine duplicate targets, and where JAX transposes a gather into a scatter-add.

:func:`plan_reduction` reads the data type, the reduction, the number of target
elements, the number of update elements and the backend, never index values. Its rules
(the measurements behind them are in ``docs/performance.md``, "The reduction plan"):

* **Accumulator.** float16, bfloat16 and the float8 types add and multiply in float32
  and round once: at least as accurate as rounding after every update (what XLA's 16-bit
  atomics and onnxruntime's float16 ScatterND do). On a GPU every type narrower than 32
  bits also takes ``max`` and ``min`` in its 32-bit widening (exact both ways), because
  XLA:GPU has no 8- or 16-bit atomics and loops compare-and-swap on the enclosing word.
  Integers wrap the same way wide or narrow, so widening them is exact for every
  reduction.
* **Lanes (GPU only).** Where many updates meet few targets, atomics on one address
  serialise (2**20 float32 adds into 16 sorted targets: 1.9 ms against 0.1). With at
  least :data:`CONTENDED` update elements per target element the plan privatises: update
  ``j`` goes into lane ``j % lanes`` of a ``(lanes, *x.shape)`` accumulator holding the
  reduction's identity, then one reduction over the lanes and one combine with ``x``.
  Windows of :data:`WIDE` elements or more (rows) spread a warp's atomics over as many
  addresses, so they privatise only from :data:`CONTENDED_WIDE` updates per element
  (an embedding gradient over a vocabulary of 4, not of 256).
  The lane count is the contention rounded down to a power of two, within a budget of
  :data:`LANE_BUDGET` accumulator elements and at most 1024 lanes. An integer (or
  float64) ``mul`` loops compare-and-swap, so its chains must stay short whatever the
  index order (the planner cannot see it): it takes as many lanes as the budget
  allows, up to one per update (2**20 float32 products into 1024 equal targets: 2.3 ms
  in 1024 lanes, 2 243 ms as XLA's scatter). XLA:CPU's scatter is a serial loop with no
  contention cliff, so the CPU keeps XLA's scatter.
* **Log product (every backend).** A float32 product (16-bit floats in float32) with the
  same contention, at most :data:`log_product.MAX_COUNT` indices, is summed as integers:
  exponents, signs and ``log2`` of the mantissas in a fixed point
  (:mod:`dmljax._src.log_product`). A float32 product of ``n`` factors rounds ``n``
  times, in lanes, a tree or in sequence (2**22 factors near 1: 2e-2 off through lanes,
  1e-4 in sequence); the log product rounds once and keeps the pairwise bound
  ``(ceil(log2 n) + 2) * 2**-24``, in any order, with the same bits on every run.

>>> plan_reduction(jnp.bfloat16, "add", targets=16, updates=2**20, backend="gpu")
ReductionPlan(accumulator=dtype('float32'), lanes=1024, log_product=False)
>>> plan_reduction(jnp.float32, "add", targets=2**20, updates=2**20, backend="gpu")
ReductionPlan(accumulator=dtype('float32'), lanes=1, log_product=False)
>>> plan_reduction(jnp.float32, "add", targets=16, updates=2**20, backend="cpu")
ReductionPlan(accumulator=dtype('float32'), lanes=1, log_product=False)
>>> plan_reduction(jnp.float32, "mul", targets=16, updates=2**20, backend="cpu").describe()
'log product, float32'

Untouched elements keep their value exactly: the identity each lane starts from leaves
``x`` as it is. A float sum gives an element that received an update other than ``-0.0``
``x + total``, as IEEE addition does (``-0.0`` plus updates that sum to zero is ``+0.0``),
and leaves the bits of the others, untouched or given only ``-0.0`` (a signalling NaN
comes back quiet where a float is widened or combined).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from dmljax._src import bitwise, exact_sum, log_product

__all__ = [
    "CONTENDED",
    "CONTENDED_WIDE",
    "DETERMINISTIC_LANE_BUDGET",
    "LANE_BUDGET",
    "REDUCTIONS",
    "WIDE",
    "FixedOrder",
    "Reduction",
    "ReductionPlan",
    "fixed_order_lowering",
    "gather",
    "order_matters",
    "plan_as",
    "plan_reduction",
    "scatter_reduce",
]

Reduction = Literal["none", "add", "mul", "max", "min"]
REDUCTIONS: tuple[Reduction, ...] = ("none", "add", "mul", "max", "min")

CONTENDED = 16
"""Update elements per target element from which a GPU plan privatises into lanes."""
CONTENDED_WIDE = 4096
"""The same for windows of at least :data:`WIDE` elements (rows of an embedding)."""
WIDE = 32
LANE_BUDGET = 2**22
"""The most elements a privatised accumulator may hold (16 MiB of 32-bit values)."""
DETERMINISTIC_LANE_BUDGET = 2**24
"""The most elements of a deterministic plan's one-lane-per-index accumulator."""
_MAX_LANES = 1024

_SCATTERS: dict[str, Callable[..., jax.Array]] = {
    "add": lax.scatter_add,
    "mul": lax.scatter_mul,
    "max": lax.scatter_max,
    "min": lax.scatter_min,
}
_COMBINE: dict[str, Callable[[Any, Any], Any]] = {
    "add": lax.add,
    "mul": lax.mul,
    "max": lax.max,
    "min": lax.min,
}

_backend_override: str | None = None


@dataclasses.dataclass(frozen=True)
class ReductionPlan:
    """How a reducing scatter runs: in which type, into how many private lanes.

    ``lanes == 1`` is XLA's scatter as it is (in ``accumulator``).
    """

    accumulator: np.dtype[Any]
    lanes: int = 1
    log_product: bool = False
    """A float32 product as integer sums of logarithms (:mod:`dmljax._src.log_product`)."""

    def describe(self) -> str:
        """A short label for reports, e.g. ``'1024 lanes, float32'``.

        >>> ReductionPlan(np.dtype(np.float32), 1024).describe()
        '1024 lanes, float32'
        """
        where = "XLA's scatter" if self.lanes == 1 else f"{self.lanes} lanes"
        if self.log_product:
            where = "log product"
        return f"{where}, {self.accumulator.name}"


@contextlib.contextmanager
def plan_as(backend: str) -> Iterator[None]:
    """Plan as if the default backend were ``backend`` (tests and benchmarks only).

    JAX's caches are cleared on entry and exit, since a traced plan is cached with
    the function that traced it.
    """
    global _backend_override
    previous, _backend_override = _backend_override, backend
    jax.clear_caches()
    try:
        yield
    finally:
        _backend_override = previous
        jax.clear_caches()


def _backend() -> str:
    return _backend_override or jax.default_backend()


def _widened(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The 32-bit type of the same kind (unchanged for 32- and 64-bit types)."""
    if dtype.itemsize >= 4:
        return dtype
    if dtype == np.bool_:
        return np.dtype(np.int32)
    if jnp.issubdtype(dtype, jnp.floating):
        return np.dtype(np.float32)
    return np.dtype(np.int32 if jnp.issubdtype(dtype, jnp.signedinteger) else np.uint32)


def plan_reduction(
    dtype: Any,
    reduction: Reduction,
    *,
    targets: int,
    updates: int,
    window: int = 1,
    backend: str | None = None,
) -> ReductionPlan:
    """The plan for ``updates`` elements combined by ``reduction`` into ``targets`` elements.

    Args:
        dtype: the data type of the target and the updates.
        reduction: ``"add"``, ``"mul"``, ``"max"`` or ``"min"``.
        targets: the number of elements of the target tensor.
        updates: the number of update elements.
        window: the elements each index writes (1 for SCATTER, a row for an embedding).
        backend: ``"cpu"``, ``"gpu"`` or ``"tpu"``; the default backend for None.
    """
    dtype = np.dtype(dtype)
    backend = backend or _backend()
    on_cpu = backend == "cpu"
    accumulator = dtype
    narrow_float = jnp.issubdtype(dtype, jnp.floating) and dtype.itemsize < 4
    if (narrow_float and reduction in ("add", "mul")) or not on_cpu:
        accumulator = _widened(dtype)
    contended = (
        targets > 0 and updates >= (CONTENDED_WIDE if window >= WIDE else CONTENDED) * targets
    )
    if (
        contended
        and reduction == "mul"
        and accumulator == np.float32
        and updates // max(window, 1) <= log_product.MAX_COUNT
    ):
        # Long float32 products round too often in any order, on every backend.
        return ReductionPlan(accumulator, log_product=True)
    if on_cpu or not contended:
        return ReductionPlan(accumulator)
    if reduction == "mul":
        # Compare-and-swap chains: hedge against every update meeting one target.
        most = min(LANE_BUDGET // targets, updates)
    else:
        most = min(LANE_BUDGET // targets, _MAX_LANES, updates // targets)
    lanes = 1 << (most.bit_length() - 1)
    return ReductionPlan(accumulator, lanes)


def _identity(dtype: np.dtype[Any], reduction: Reduction) -> Any:
    if reduction == "add":
        return -0.0 if jnp.issubdtype(dtype, jnp.floating) else 0
    if reduction == "mul":
        return 1
    if jnp.issubdtype(dtype, jnp.floating):
        return -np.inf if reduction == "max" else np.inf
    info = jnp.iinfo(dtype)
    return info.min if reduction == "max" else info.max


def _lane_coordinates(batch_shape: tuple[int, ...], lanes: int, dtype: Any) -> jax.Array:
    """``j % lanes`` for the ``j``-th index of ``batch_shape``, row-major, as a last axis."""
    count = math.prod(batch_shape)
    lane = lax.rem(lax.iota(np.int32, count), np.int32(lanes)).astype(dtype)
    return lane.reshape((*batch_shape, 1))


def _with_lanes(indices: jax.Array, lanes: int) -> jax.Array:
    """``indices`` with a lane coordinate in front of each index vector."""
    dtype = indices.dtype
    if jnp.iinfo(dtype).max < lanes:
        dtype = np.int32  # narrow index types hold small coordinates; int32 holds both
    lane = _lane_coordinates(indices.shape[:-1], lanes, dtype)
    return lax.concatenate([lane, indices.astype(dtype)], indices.ndim - 1)


def _shifted(dims: Sequence[int]) -> tuple[int, ...]:
    return tuple(d + 1 for d in dims)


def _privatised(
    x: jax.Array,
    indices: jax.Array,
    updates: jax.Array,
    dimension_numbers: lax.ScatterDimensionNumbers,
    reduction: Reduction,
    lanes: int,
    mode: lax.GatherScatterMode,
) -> jax.Array:
    identity = _identity(x.dtype, reduction)
    accumulator = jnp.full((lanes, *x.shape), identity, x.dtype)
    lane_numbers = lax.ScatterDimensionNumbers(
        update_window_dims=dimension_numbers.update_window_dims,
        inserted_window_dims=(0, *_shifted(dimension_numbers.inserted_window_dims)),
        scatter_dims_to_operand_dims=(0, *_shifted(dimension_numbers.scatter_dims_to_operand_dims)),
        operand_batching_dims=_shifted(dimension_numbers.operand_batching_dims),
        scatter_indices_batching_dims=dimension_numbers.scatter_indices_batching_dims,
    )
    accumulator = _SCATTERS[reduction](
        accumulator, _with_lanes(indices, lanes), updates, lane_numbers, mode=mode
    )
    combine = _COMBINE[reduction]
    total = lax.reduce(accumulator, np.array(identity, x.dtype), combine, (0,))
    if reduction == "add" and jnp.issubdtype(x.dtype, jnp.inexact):
        # Lanes start at -0.0, which IEEE addition keeps only while every update added is
        # -0.0 too; x + (-0.0 + ... + -0.0) is x. Elsewhere the element gets x + total,
        # +0.0 where the updates sum to zero (-0.0 + +0.0 is +0.0). The lanes' bits decide,
        # not the total: XLA's reductions may start from +0.0 whatever the init value.
        moved = jnp.any(~bitwise.is_negative_zero(accumulator), axis=0)
        return lax.select(moved, x + total, x)
    return combine(x, total)


def order_matters(dtype: Any, reduction: Reduction) -> bool:
    """Whether the order of combining can change the bits of a reduction's result.

    Only float sums and products: max and min are exact, and integers wrap the same
    way in any order (a NaN's payload aside: which of several NaNs a max keeps is
    unspecified).

    >>> order_matters(jnp.float32, "add"), order_matters(jnp.float32, "max")
    (True, False)
    """
    return reduction in ("add", "mul") and jnp.issubdtype(dtype, jnp.inexact)


def _update_targets(
    x: jax.Array,
    indices: jax.Array,
    updates: jax.Array,
    dimension_numbers: lax.ScatterDimensionNumbers,
    mode: lax.GatherScatterMode,
) -> jax.Array:
    """The flat position in ``x`` each update element lands on (``x.size`` if dropped):
    the scatter's transpose, a gather, applied to the positions of ``x``."""
    dn = dimension_numbers
    single = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window = iter(updates.shape[d] for d in dn.update_window_dims)
    slice_sizes = tuple(1 if d in single else next(window) for d in range(x.ndim))
    gather_numbers = lax.GatherDimensionNumbers(
        offset_dims=tuple(dn.update_window_dims),
        collapsed_slice_dims=tuple(dn.inserted_window_dims),
        start_index_map=tuple(dn.scatter_dims_to_operand_dims),
        operand_batching_dims=tuple(dn.operand_batching_dims),
        start_indices_batching_dims=tuple(dn.scatter_indices_batching_dims),
    )
    positions = lax.iota(np.int32, x.size).reshape(x.shape)
    return lax.gather(positions, indices, gather_numbers, slice_sizes, mode=mode, fill_value=x.size)


FixedOrder = Literal["limbs", "lanes", "sort"]


def fixed_order_lowering(
    dtype: Any, reduction: Reduction, *, windows: int, targets: int
) -> FixedOrder:
    """How ``deterministic=True`` combines a float sum or product, from sizes only.

    ``"limbs"``: a float32 sum or product (16-bit floats accumulate in float32) written
    as integers: a sum as the limbs of a fixed point per target
    (:mod:`dmljax._src.exact_sum`), a product as counts, exponents and the limbs of its
    factors' logarithms (:mod:`dmljax._src.log_product`). Integer atomics give the same
    bits in any order, so the result ignores the updates' order too.
    ``"lanes"``: a lane per scatter index where ``windows * targets`` fits in
    :data:`DETERMINISTIC_LANE_BUDGET`, reduced by XLA in a fixed order. ``"sort"``: a
    stable sort by target, a segmented scan and one scatter with unique indices.

    >>> fixed_order_lowering(jnp.float32, "add", windows=2**20, targets=2**20)
    'limbs'
    >>> fixed_order_lowering(jnp.float64, "mul", windows=2**20, targets=2**20)
    'sort'
    """
    if np.dtype(dtype) == np.float32:
        most = exact_sum.MAX_COUNT if reduction == "add" else log_product.MAX_COUNT
        if windows <= most:
            return "limbs"
    if windows * targets <= DETERMINISTIC_LANE_BUDGET:
        return "lanes"
    return "sort"


def _in_fixed_order(
    x: jax.Array,
    indices: jax.Array,
    updates: jax.Array,
    dimension_numbers: lax.ScatterDimensionNumbers,
    reduction: Reduction,
    mode: lax.GatherScatterMode,
    lowering: FixedOrder | None = None,
    significand_bits: int = 24,
) -> jax.Array:
    """The reduction with every target's updates combined in an order fixed by the
    indices and the updates' order (or, for ``"limbs"``, in no order at all).
    ``significand_bits``: the most significant bits of an update (those of the type it
    came from; a product of 16-bit factors takes their logarithms from a table).

    See :func:`fixed_order_lowering`: with lanes no two updates meet in one cell, so no
    atomic decides an order; with the sort, each target's run is combined by a
    segmented scan (a fixed tree) and each total is combined into ``x`` once.
    """
    windows = math.prod(indices.shape[:-1])
    if lowering is None:
        lowering = fixed_order_lowering(x.dtype, reduction, windows=windows, targets=x.size)
    if lowering == "lanes":
        return _privatised(x, indices, updates, dimension_numbers, reduction, windows, mode)
    targets = _update_targets(x, indices, updates, dimension_numbers, mode).reshape(-1)
    values = updates.reshape(-1)
    if lowering == "limbs":
        if reduction == "add":
            return _exact_sum(x, targets, values, windows).reshape(x.shape)
        return _log_product(x, targets, values, windows, significand_bits).reshape(x.shape)
    targets, values = lax.sort((targets, values), num_keys=1, is_stable=True)
    starts = jnp.concatenate([jnp.ones((1,), bool), targets[1:] != targets[:-1]])
    combine = _COMBINE[reduction]

    def segmented(
        left: tuple[jax.Array, jax.Array], right: tuple[jax.Array, jax.Array]
    ) -> tuple[jax.Array, jax.Array]:
        return left[0] | right[0], jnp.where(right[0], right[1], combine(left[1], right[1]))

    _, running = lax.associative_scan(segmented, (starts, values))
    ends = jnp.concatenate([targets[1:] != targets[:-1], jnp.ones((1,), bool)])
    last = jnp.where(ends, targets, x.size)  # one total per target; the rest dropped
    drop = lax.GatherScatterMode.FILL_OR_DROP
    if reduction == "add" and jnp.issubdtype(x.dtype, jnp.inexact):
        # The scan's sums of -0.0 come back +0.0 (XLA starts them from +0.0), so a target
        # whose updates are all -0.0 keeps x's bits, as IEEE's x + -0.0 + ... does; the
        # others get x + total (see _privatised).
        moved = ~bitwise.is_negative_zero(values)
        _, moved = lax.associative_scan(
            lambda left, right: (left[0] | right[0], right[1] | (~right[0] & left[1])),
            (starts, moved),
        )
        flat = x.reshape(-1)
        totals = jnp.zeros_like(flat).at[last].set(running, mode="drop", unique_indices=True)
        touched = jnp.zeros(flat.shape, bool).at[last].set(moved, mode="drop", unique_indices=True)
        return lax.select(touched, flat + totals, flat).reshape(x.shape)
    totals = _SCATTERS[reduction](
        x.reshape(-1), last[:, None], running, _FLAT, mode=drop, unique_indices=True
    )
    return totals.reshape(x.shape)


_FLAT = lax.ScatterDimensionNumbers((), (0,), (0,))
_FLAT_ROWS = lax.ScatterDimensionNumbers((1,), (0,), (0,))


def _integer_scatter(
    target: jax.Array,
    positions: jax.Array,
    values: jax.Array,
    reduction: Reduction,
) -> jax.Array:
    """A flat integer scatter (exact in any order), privatised where the plan says so."""
    dn = _FLAT if target.ndim == 1 else _FLAT_ROWS
    window = math.prod(target.shape[1:])
    drop = lax.GatherScatterMode.FILL_OR_DROP
    plan = plan_reduction(
        target.dtype, reduction, targets=target.size, updates=values.size, window=window
    )
    return _planned(target, positions[:, None], values, dn, reduction, plan.lanes, drop)


@functools.partial(jax.custom_jvp, nondiff_argnums=(3,))
def _exact_sum(x: jax.Array, positions: jax.Array, values: jax.Array, count: int) -> jax.Array:
    """Flat float32 ``x`` plus ``values`` summed at ``positions`` (``x.size``: dropped) as
    integer limbs, at most ``count`` per target: the same bits in any order.

    Its derivative is the sum's, written as a scatter-add of the tangents, whose
    transpose (the gradient) is a gather: deterministic as well.
    """
    flat = x.reshape(-1)
    layout = exact_sum.limb_layout(count)
    # One scatter-max gives each target its scale and whether any update that is not -0.0
    # arrived: 2 * (key + 1) + 1 for such an update, 2 * (key + 1) for a -0.0 (key 0).
    # Where one did, the target gets x + total (+0.0 for a total of zero, as IEEE adds
    # -0.0 and +0.0); elsewhere x, whose bits -0.0 updates leave as they are.
    not_negative_zero = ~bitwise.is_negative_zero(values)
    marks = 2 * (exact_sum.exponent_keys(values) + 1) + not_negative_zero.astype(np.int32)
    marked = _integer_scatter(jnp.zeros(flat.shape, np.int32), positions, marks, "max")
    top = jnp.maximum(marked // 2 - 1, 0)
    scale = jnp.take(top, positions, mode="clip")  # a dropped update's scale is never used
    limbs = exact_sum.encode(values, scale, layout)
    sums = _integer_scatter(jnp.zeros((*flat.shape, layout.limbs), np.int32), positions,
                            limbs, "add")  # fmt: skip
    total = exact_sum.decode(sums, top, layout)
    return lax.select(marked >= 3, flat + total, flat)


@_exact_sum.defjvp
def _exact_sum_jvp(
    count: int, primals: tuple[jax.Array, jax.Array, jax.Array], tangents: tuple[Any, Any, Any]
) -> tuple[jax.Array, jax.Array]:
    x, positions, values = primals
    dx, _, dvalues = tangents
    out = _exact_sum(x, positions, values, count)
    drop = lax.GatherScatterMode.FILL_OR_DROP
    return out, lax.scatter_add(dx.reshape(-1), positions[:, None], dvalues, _FLAT, mode=drop)


def scatter_reduce(
    x: jax.Array,
    indices: jax.Array,
    updates: jax.Array,
    dimension_numbers: lax.ScatterDimensionNumbers,
    reduction: Reduction,
    *,
    mode: lax.GatherScatterMode,
    deterministic: bool = False,
    fixed_order: FixedOrder | None = None,
) -> jax.Array:
    """``x`` with ``updates`` combined into it by ``reduction``, as :func:`plan_reduction` says.

    The arguments are :func:`jax.lax.scatter_add`'s (indices with their index vectors
    on the last axis). Duplicates are combined, so no unique or sorted indices are
    ever promised. With ``deterministic`` a float sum or product combines each
    target's updates in an order fixed by the indices and the updates' order, so
    the bits are the same on every run (XLA:CPU's scatter is a serial loop, and
    already so); ``fixed_order`` overrides :func:`fixed_order_lowering` (for benchmarks).
    """
    window = math.prod(updates.shape[d] for d in dimension_numbers.update_window_dims)
    plan = plan_reduction(x.dtype, reduction, targets=x.size, updates=updates.size, window=window)
    wide = plan.accumulator
    x_wide, updates_wide = x.astype(wide), updates.astype(wide)
    how: int | FixedOrder = "limbs" if plan.log_product else plan.lanes
    if deterministic and order_matters(x.dtype, reduction) and _backend() != "cpu":
        windows = math.prod(indices.shape[:-1])
        how = fixed_order or fixed_order_lowering(wide, reduction, windows=windows,
                                                  targets=x.size)  # fmt: skip
    if reduction == "mul" and jnp.issubdtype(wide, jnp.inexact):
        bits = jnp.finfo(x.dtype).nmant + 1  # the updates' own, before their widening
        out = _product(x_wide, indices, updates_wide, dimension_numbers, mode, how, bits)
    elif isinstance(how, str):
        out = _in_fixed_order(x_wide, indices, updates_wide, dimension_numbers, reduction,
                              mode, how)  # fmt: skip
    else:
        out = _planned(x_wide, indices, updates_wide, dimension_numbers, reduction, plan.lanes,
                       mode)  # fmt: skip
    return out.astype(x.dtype)


def _planned(
    x: jax.Array,
    indices: jax.Array,
    updates: jax.Array,
    dimension_numbers: lax.ScatterDimensionNumbers,
    reduction: Reduction,
    lanes: int,
    mode: lax.GatherScatterMode,
) -> jax.Array:
    if lanes == 1:
        return _SCATTERS[reduction](x, indices, updates, dimension_numbers, mode=mode)
    return _privatised(x, indices, updates, dimension_numbers, reduction, lanes, mode)


@functools.partial(jax.custom_jvp, nondiff_argnums=(3, 4, 5, 6))
def _product(
    x: jax.Array,
    indices: jax.Array,
    updates: jax.Array,
    dimension_numbers: lax.ScatterDimensionNumbers,
    mode: lax.GatherScatterMode,
    how: int | FixedOrder,
    significand_bits: int,
) -> jax.Array:
    """The planned scatter-mul (in ``how`` lanes, or in a fixed order), differentiable
    with respect to the updates as well (JAX's scatter-mul is so only with unique
    indices). ``significand_bits``: the updates' type's (see :func:`_in_fixed_order`)."""
    if isinstance(how, str):
        return _in_fixed_order(x, indices, updates, dimension_numbers, "mul", mode, how,
                               significand_bits)  # fmt: skip
    return _planned(x, indices, updates, dimension_numbers, "mul", how, mode)


@_product.defjvp
def _product_jvp(
    dimension_numbers: lax.ScatterDimensionNumbers,
    mode: lax.GatherScatterMode,
    how: int | FixedOrder,
    significand_bits: int,
    primals: tuple[jax.Array, jax.Array, jax.Array],
    tangents: tuple[Any, Any, Any],
) -> tuple[jax.Array, jax.Array]:
    x, indices, updates = primals
    dx, _, dupdates = tangents
    positions = _update_targets(x, indices, updates, dimension_numbers, mode).reshape(-1)
    ones = jnp.ones_like(x)

    def product_of(values: jax.Array) -> jax.Array:
        values = values.reshape(updates.shape)
        # The updates, or 1 in place of a zero: of the updates' type still.
        return _product(ones, indices, values, dimension_numbers, mode, how,
                        significand_bits).reshape(-1)  # fmt: skip

    product, dproduct = _product_tangent(
        positions, updates.reshape(-1), dupdates.reshape(-1), product_of
    )
    flat = x.reshape(-1)
    return (flat * product).reshape(x.shape), (dx.reshape(-1) * product + flat * dproduct).reshape(
        x.shape
    )


def _product_tangent(
    positions: jax.Array,
    values: jax.Array,
    dvalues: jax.Array,
    product_of: Callable[[jax.Array], jax.Array],
) -> tuple[jax.Array, jax.Array]:
    """Each target's product of ``values`` (flat, by ``positions``) and its tangent for
    ``dvalues``: the sum over its updates of ``dvalue`` times the product of the other
    factors. ``product_of`` must differentiate, and the other factors are written so
    that they do too (to first order, enough for second derivatives): the nonzero
    factors' product, times the zero factors (their sum where there is one zero, the
    other zero where there are two, 0 beyond)."""
    drop = lax.GatherScatterMode.FILL_OR_DROP
    product = product_of(values)
    nonzero = product_of(jnp.where(values != 0, values, 1))
    is_zero = values == 0
    zeros = _integer_scatter(jnp.zeros(product.shape, np.int32), positions,
                             is_zero.astype(np.int32), "add")  # fmt: skip
    zero_sum = lax.scatter_add(jnp.zeros_like(product), positions[:, None],
                               jnp.where(is_zero, values, 0), _FLAT, mode=drop)  # fmt: skip
    at = lambda table: jnp.take(table, positions, mode="clip")
    count, zero_factors = at(zeros), at(zero_sum)
    other_zeros = jnp.where(
        is_zero,
        jnp.where(count == 1, 1, jnp.where(count == 2, zero_factors - values, 0)),
        jnp.where(count == 0, 1, jnp.where(count == 1, zero_factors, 0)),
    )
    others = at(nonzero) / jnp.where(is_zero, 1, values) * other_zeros
    dproduct = lax.scatter_add(
        jnp.zeros_like(product), positions[:, None], others * dvalues, _FLAT, mode=drop
    )
    return product, dproduct


def gather(
    x: jax.Array,
    indices: jax.Array,
    dimension_numbers: lax.GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    *,
    mode: lax.GatherScatterMode,
) -> jax.Array:
    """:func:`jax.lax.gather`, whose gradient (a scatter-add) runs as the plan says.

    The values are the gather's, bit for bit. The derivative is written so that its
    transpose is the planned scatter-add: it gathers the tangent in the plan's
    accumulator type (the same values, rounded back), from ``lanes`` broadcast copies
    when the plan privatises, so that JAX's transpose adds the cotangents into a
    ``(lanes, *x.shape)`` table and sums the lanes.
    """
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return lax.gather(x, indices, dimension_numbers, slice_sizes, mode=mode)
    return _planned_gather(x, indices, dimension_numbers, slice_sizes, mode)


def _gather_plan(x: jax.Array, indices: jax.Array, slice_sizes: tuple[int, ...]) -> ReductionPlan:
    window = math.prod(slice_sizes)
    lookups = math.prod(indices.shape[:-1]) * window
    return plan_reduction(x.dtype, "add", targets=x.size, updates=lookups, window=window)


@functools.partial(jax.custom_jvp, nondiff_argnums=(2, 3, 4))
def _planned_gather(
    x: jax.Array,
    indices: jax.Array,
    dimension_numbers: lax.GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    mode: lax.GatherScatterMode,
) -> jax.Array:
    return lax.gather(x, indices, dimension_numbers, slice_sizes, mode=mode)


@_planned_gather.defjvp
def _planned_gather_jvp(
    dimension_numbers: lax.GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    mode: lax.GatherScatterMode,
    primals: tuple[jax.Array, jax.Array],
    tangents: tuple[jax.Array, Any],
) -> tuple[jax.Array, jax.Array]:
    x, indices = primals
    y = _planned_gather(x, indices, dimension_numbers, slice_sizes, mode)
    plan = _gather_plan(x, indices, slice_sizes)
    dx = tangents[0].astype(plan.accumulator)
    if plan.lanes == 1:
        dy = lax.gather(dx, indices, dimension_numbers, slice_sizes, mode=mode)
        return y, dy.astype(x.dtype)
    copies = lax.broadcast_in_dim(dx, (plan.lanes, *x.shape), tuple(range(1, x.ndim + 1)))
    lane_numbers = lax.GatherDimensionNumbers(
        offset_dims=dimension_numbers.offset_dims,
        collapsed_slice_dims=(0, *_shifted(dimension_numbers.collapsed_slice_dims)),
        start_index_map=(0, *_shifted(dimension_numbers.start_index_map)),
        operand_batching_dims=_shifted(dimension_numbers.operand_batching_dims),
        start_indices_batching_dims=dimension_numbers.start_indices_batching_dims,
    )
    dy = lax.gather(
        copies, _with_lanes(indices, plan.lanes), lane_numbers, (1, *slice_sizes), mode=mode
    )
    return y, dy.astype(x.dtype)


def _log_product(
    x: jax.Array, positions: jax.Array, values: jax.Array, count: int, significand_bits: int
) -> jax.Array:
    """Flat float32 ``x`` times ``values`` multiplied at ``positions`` (``x.size``:
    dropped), as integers, at most ``count`` per target: the same bits in any order.
    ``values`` have at most ``significand_bits`` significant bits (see
    :func:`log_product.encode`). :func:`_product` differentiates it.
    """
    flat = x.reshape(-1)
    layout = log_product.limb_layout(count)
    if jax.default_backend() == "gpu":
        return _log_product_canonical(flat, positions, values, layout, significand_bits)
    words = log_product.encode(values, layout, significand_bits=significand_bits)
    sums = _word_sums(flat.size, positions, words)
    # One scatter-min: the first NaN factor of each target, which a serial product returns
    # (quieted), or last - 1 where factors but no NaN arrived, or last where none did.
    last = np.int32(np.iinfo(np.int32).max)
    order = jnp.where(jnp.isnan(values), lax.iota(np.int32, values.size), last - 1)
    first = _integer_scatter(jnp.full(flat.shape, last), positions, order, "min")
    first_nan = jnp.where(first < last - 1, jnp.take(values, first, mode="clip"), 0)
    return log_product.decode(sums, layout, flat, first_nan)


def _word_sums(targets: int, positions: jax.Array, words: jax.Array) -> jax.Array:
    """The log product's words ``(n, 3 + limbs)`` summed per target (``targets``: dropped)."""
    zeros = jnp.zeros((targets, words.shape[-1]), np.int32)
    return _integer_scatter(zeros, positions, words, "add")


def _log_product_canonical(
    flat: jax.Array,
    positions: jax.Array,
    values: jax.Array,
    layout: exact_sum.LimbLayout,
    significand_bits: int,
) -> jax.Array:
    """:func:`_log_product` where arithmetic returns one canonical NaN, as CUDA's does:
    jnp's scatter-mul on an H200 gives 0x7FFFFFFF for every NaN product, a NaN ``x`` it
    multiplies included, and keeps an untouched NaN ``x`` as it is.

    No scatter-min for the first NaN factor (a tenth of the time with as many targets as
    updates): an update meeting a NaN ``x`` counts as a NaN factor, so "a NaN factor
    arrived" (both special counts positive) also says that a NaN ``x`` was touched.
    """
    meets_nan = jnp.isnan(jnp.take(flat, positions, mode="fill", fill_value=0))
    factors = jnp.where(meets_nan, np.float32(np.nan), values)
    words = log_product.encode(factors, layout, significand_bits=significand_bits)
    sums = _word_sums(flat.size, positions, words)
    product = log_product.decode(sums, layout, flat)
    nan_factor = log_product.has_nan_factor(sums)
    canonical = lax.bitcast_convert_type(np.int32(0x7FFFFFFF), np.float32)
    return jnp.where(nan_factor | (jnp.isnan(product) & ~jnp.isnan(flat)), canonical, product)
