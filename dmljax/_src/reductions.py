"""Reducing scatters, planned from static facts: where SCATTER and SCATTER_ND combine
duplicate targets.

The plan reads the data type and the reduction only, never index values. So far:

* float16 and bfloat16 ``add`` and ``mul`` run in float32 and round once. That is at least
  as accurate as rounding after every update (what XLA's 16-bit atomics do, and
  onnxruntime's float16 ScatterND), and it trades XLA:GPU's compare-and-swap loops on
  16-bit words for native float32 atomics: 34.6 ms against 0.142 ms for 2**20 bfloat16
  updates into 1024 random targets on the H100 (``reduction-cliffs-h100.md``). Untouched
  elements keep their value exactly (the widening is exact both ways; a signalling NaN
  comes back quiet).
* ``max`` and ``min``, and every other type, run as XLA's scatter in the data type: exact.

The gradients of GATHER, GATHER_ELEMENTS and GATHER_ND are scatter-adds JAX derives
by transposing the gather; :func:`gather` shapes that transpose by the same plan, so a
float16 or bfloat16 embedding's gradient accumulates in float32 too (2**16 lookups of
128-wide bfloat16 rows over a vocabulary of 4: 10.7 ms as a 16-bit scatter-add, 0.46 ms
in float32, on the H100).
"""

from __future__ import annotations

import functools
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = ["REDUCTIONS", "Reduction", "accumulator_dtype", "gather", "scatter_reduce"]

Reduction = Literal["none", "add", "mul", "max", "min"]
REDUCTIONS: tuple[Reduction, ...] = ("none", "add", "mul", "max", "min")

_COMBINERS = {
    "add": lax.scatter_add,
    "mul": lax.scatter_mul,
    "max": lax.scatter_max,
    "min": lax.scatter_min,
}
_HALF_FLOATS = (np.dtype(np.float16), np.dtype(jnp.bfloat16))


def accumulator_dtype(dtype: Any, reduction: Reduction) -> np.dtype[Any]:
    """The type a reduction of ``dtype`` data accumulates in (the plan's first rule).

    >>> accumulator_dtype(jnp.bfloat16, "add"), accumulator_dtype(jnp.bfloat16, "max")
    (dtype('float32'), dtype(bfloat16))
    """
    dtype = np.dtype(dtype)
    if reduction in ("add", "mul") and dtype in _HALF_FLOATS:
        return np.dtype(np.float32)
    return dtype


def scatter_reduce(
    x: jax.Array,
    indices: jax.Array,
    updates: jax.Array,
    dimension_numbers: lax.ScatterDimensionNumbers,
    reduction: Reduction,
    *,
    mode: lax.GatherScatterMode,
) -> jax.Array:
    """``x`` with ``updates`` combined into it by ``reduction``, in the planned type.

    Duplicates are combined, so no unique or sorted indices are ever promised.
    """
    combine = _COMBINERS[reduction]
    wide = accumulator_dtype(x.dtype, reduction)
    if wide == x.dtype:
        return combine(x, indices, updates, dimension_numbers, mode=mode)
    out = combine(x.astype(wide), indices, updates.astype(wide), dimension_numbers, mode=mode)
    return out.astype(x.dtype)


def gather(
    x: jax.Array,
    indices: jax.Array,
    dimension_numbers: lax.GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    *,
    mode: lax.GatherScatterMode,
) -> jax.Array:
    """:func:`jax.lax.gather`, whose gradient (a scatter-add) accumulates as the plan says.

    The values are the gather's, bit for bit. For a 16-bit float ``x`` the derivative
    gathers the tangent in float32 and rounds it, the same values, so that its transpose
    adds the cotangents into a float32 table and rounds each sum once.
    """
    if accumulator_dtype(x.dtype, "add") == x.dtype:
        return lax.gather(x, indices, dimension_numbers, slice_sizes, mode=mode)
    return _gather_accumulating_wide(x, indices, dimension_numbers, slice_sizes, mode)


@functools.partial(jax.custom_jvp, nondiff_argnums=(2, 3, 4))
def _gather_accumulating_wide(
    x: jax.Array,
    indices: jax.Array,
    dimension_numbers: lax.GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    mode: lax.GatherScatterMode,
) -> jax.Array:
    return lax.gather(x, indices, dimension_numbers, slice_sizes, mode=mode)


@_gather_accumulating_wide.defjvp
def _gather_accumulating_wide_jvp(
    dimension_numbers: lax.GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    mode: lax.GatherScatterMode,
    primals: tuple[jax.Array, jax.Array],
    tangents: tuple[jax.Array, Any],
) -> tuple[jax.Array, jax.Array]:
    x, indices = primals
    wide = accumulator_dtype(x.dtype, "add")
    y = _gather_accumulating_wide(x, indices, dimension_numbers, slice_sizes, mode)
    dy = lax.gather(tangents[0].astype(wide), indices, dimension_numbers, slice_sizes, mode=mode)
    return y, dy.astype(x.dtype)
