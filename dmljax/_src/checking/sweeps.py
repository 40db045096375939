"""What a selftest sweep draws: :class:`SweepCase` and the random draws it is made of.

Each operator's companion declares its sweep, ``(rng, dtype) -> SweepCase``,
from these draws (``OperatorChecks(sweep=...)``); ``python -m dmljax selftest``
and the tests run it (:func:`dmljax._src.checking.selftest.check_sweep_case`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

__all__ = [
    "DATA_DTYPES",
    "INDEX_DTYPES",
    "SweepCase",
    "draw_indices",
    "draw_shape",
    "draw_values",
    "elements_index_shape",
    "gather_case",
    "label",
    "unique_targets",
]


@dataclasses.dataclass(frozen=True)
class SweepCase:
    """One random draw of an operator, checked against the reference.

    Attributes:
        label: what was drawn, e.g. ``"float16[2,3] repeats (1,2)"``.
        fn: the dmljax call, a function of the arrays only.
        batch: two or more argument tuples of equal shapes and dtypes (the
            ``vmap`` batch); each is also checked on its own.
        expected: the reference output for each argument tuple: an array, or a
            tuple of arrays for a face that returns several (SPLIT).
        linear_argnums: the operands ``fn`` is jointly linear in (its data,
            not its indices); their derivatives are checked when all are floating.
        linear: False for a function that is not linear in those operands (an
            element-wise ``exp`` or ``a * b``): then its forward and reverse
            derivatives are checked against each other, not against ``fn``.
        ulps: how many units in the last place a floating output may be from the
            expected one (0: the same bits; NaNs where the expected ones are).
        differentiable: False where ``fn`` has no derivative even for floats (a bit
            operation, which reads their encoding): jvp and grad are not checked.
        magnitude: the smallest size whose ulps measure a float output's error: a
            result that cancels toward 0 (LOG_SOFTMAX's ``(x - max) - log(sum)``) is held
            within ``ulps`` of ``max(|expected|, magnitude)``; 0: of the expected value.
    """

    label: str
    fn: Callable[..., Any]
    batch: tuple[tuple[np.ndarray, ...], ...]
    expected: tuple[Any, ...]
    linear_argnums: tuple[int, ...]
    linear: bool = True
    ulps: int = 0
    differentiable: bool = True
    magnitude: float = 0.0


# The sweep keeps to dtypes JAX holds without x64, so it runs under the default settings.
DATA_DTYPES = tuple(
    np.dtype(t)
    for t in (
        np.float32,
        np.float16,
        jnp.bfloat16,
        np.int32,
        np.int8,
        np.uint8,
        np.uint32,
        np.bool_,
    )
)
INDEX_DTYPES = tuple(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.uint8, np.uint32))


def draw_values(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype[Any]
) -> np.ndarray:
    """Distinct (where they fit) small integers: exact in every floating dtype, bfloat16 too."""
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    info_low = 0 if dtype.kind in "ub" else -100
    pool = np.arange(info_low, info_low + 201)
    count = math.prod(shape)
    return rng.choice(pool, size=count, replace=count > pool.size).astype(dtype).reshape(shape)


def draw_indices(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype[Any], dim: int
) -> np.ndarray:
    """Indices in, below and above ``[0, dim)``, and each type's extremes now and then."""
    info = np.iinfo(dtype)
    low, high = max(-2 * dim - 1, int(info.min)), min(2 * dim + 1, int(info.max))
    values = rng.integers(low, high, size=shape, endpoint=True).astype(dtype)
    extremes = rng.random(shape) < 0.1
    values[extremes] = rng.choice(np.array([info.min, info.max], dtype), size=int(extremes.sum()))
    return values


def draw_shape(rng: np.random.Generator, rank: int, low: int, high: int) -> tuple[int, ...]:
    """``rank`` sizes, each in ``[low, high]``."""
    return tuple(int(s) for s in rng.integers(low, high, size=rank, endpoint=True))


def label(shape: Sequence[int], dtype: np.dtype[Any]) -> str:
    """``float32[2,3]``: an array as sweep labels and errors name it."""
    return f"{dtype.name}[{','.join(map(str, shape))}]"


def gather_case(
    rng: np.random.Generator,
    dtype: np.dtype[Any],
    batch: int,
    shape: tuple[int, ...],
    index_shape: tuple[int, ...],
    axis: int,
    *,
    fn: Callable[..., Any],
    expected: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> SweepCase:
    """A gather of ``shape`` data at wild indices of ``index_shape`` and a drawn dtype."""
    index_dtype = INDEX_DTYPES[rng.integers(len(INDEX_DTYPES))]
    args = tuple(
        (draw_values(rng, shape, dtype), draw_indices(rng, index_shape, index_dtype, shape[axis]))
        for _ in range(batch)
    )
    return SweepCase(
        label=f"{label(shape, dtype)} indices {label(index_shape, index_dtype)} axis {axis}",
        fn=fn,
        batch=args,
        expected=tuple(expected(x, i) for x, i in args),
        linear_argnums=(0,),
    )


def elements_index_shape(
    rng: np.random.Generator, shape: tuple[int, ...], axis: int
) -> tuple[int, ...]:
    """The shape of GATHER_ELEMENTS or SCATTER indices into an array of ``shape``.

    1 to ``shape[axis] + 2`` along ``axis`` (now and then 0: no indices at all),
    and no larger than ``shape`` elsewhere (the functional faces allow smaller).
    """
    axis %= len(shape)
    along = 0 if rng.random() < 0.05 else int(rng.integers(1, shape[axis] + 2, endpoint=True))
    return tuple(
        along if d == axis else int(rng.integers(1, size, endpoint=True))
        for d, size in enumerate(shape)
    )


def unique_targets(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype[Any], dim: int, axis: int
) -> np.ndarray:
    """Indices that hit each element of a line along ``axis`` at most once.

    Each line is a shuffle of ``[0, dim + shape[axis])``, whose values from
    ``dim`` up are out of range (their updates are dropped); signed types write
    half the values as the negative index of the same target, or, out of
    range, below ``-dim``. Any lowering then gives the reference's result.
    """
    axis %= len(shape)
    line_shape = shape[:axis] + shape[axis + 1 :]
    count = shape[axis]
    shuffles = np.argsort(rng.random((*line_shape, dim + count)), axis=-1)[..., :count]
    values = np.moveaxis(shuffles, -1, axis)
    if np.issubdtype(dtype, np.signedinteger):
        negative = rng.random(shape) < 0.5
        # v - dim names the same target as v; -v - 1 < -dim is as out of range as v >= dim.
        values = np.where(negative, np.where(values < dim, values - dim, -values - 1), values)
    return values.astype(dtype)
