"""Timing compiled programs the way performance.md §5 prescribes.

JAX dispatches asynchronously, so a call returns before the device is done. A
*group* of back-to-back calls ended by one :func:`jax.block_until_ready` hides
the dispatch cost behind the kernels; the figure per call is the group's wall
time over its length, and the reported figure is the median over groups. The
contenders of a case take turns group by group, each round starting with the
next contender, so that drift in clocks or temperature is shared evenly.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["Contender", "compile_seconds", "interleave", "paired_ratio", "per_call_seconds"]


class Contender:
    """A callable and its operands, called back to back.

    With ``donated`` set, each call's output is passed in as the next call's
    operand at that position, which is how an in-place update runs; the
    contender then owns a private copy of that operand.
    """

    def __init__(
        self, fn: Callable[..., Any], args: Sequence[jax.Array], donated: int | None = None
    ) -> None:
        self._fn = fn
        self._args = list(args)
        self._donated = donated
        if donated is not None:
            self._args[donated] = jnp.array(args[donated], copy=True)

    def run(self, calls: int, *, sync_each: bool = False) -> float:
        """Makes ``calls`` calls; returns the wall time until the last one finished."""
        start = time.perf_counter()
        out: Any = None
        for _ in range(calls):
            out = self._fn(*self._args)
            if self._donated is not None:
                self._args[self._donated] = out
            if sync_each:
                jax.block_until_ready(out)
        jax.block_until_ready(out)
        return time.perf_counter() - start


def interleave(
    contenders: Mapping[str, Contender], *, groups: int, calls: int, sync_each: bool = False
) -> dict[str, list[float]]:
    """Seconds per call of each contender, one figure per group, taking turns.

    One untimed group per contender warms up caches, allocators and clocks. Python's
    garbage collector is off meanwhile, as :mod:`timeit` turns it off.

    >>> import jax.numpy as jnp
    >>> x = jnp.ones(16, jnp.float32)
    >>> f = jax.jit(lambda x: x + 1)
    >>> samples = interleave({"a": Contender(f, (x,)), "b": Contender(f, (x,))}, groups=3, calls=2)
    >>> sorted(samples), len(samples["a"])
    (['a', 'b'], 3)
    """
    names = list(contenders)
    samples: dict[str, list[float]] = {name: [] for name in names}
    # Python's garbage collector off while timing, as timeit does: a collection pauses for
    # as long as a few tiny calls take, in whichever contender's group it falls.
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for name in names:
            contenders[name].run(calls, sync_each=sync_each)
        for group in range(groups):
            shift = group % len(names)
            for name in names[shift:] + names[:shift]:
                samples[name].append(contenders[name].run(calls, sync_each=sync_each) / calls)
    finally:
        if collecting:
            gc.enable()
    return samples


def per_call_seconds(samples: Sequence[float]) -> float:
    """The median of per-call figures."""
    return statistics.median(samples)


def paired_ratio(numerators: Sequence[float], denominators: Sequence[float]) -> float | None:
    """The median of the group-by-group ratios of two contenders' figures from one
    :func:`interleave`: each group's pair ran in the same round, so a machine that
    speeds up or slows down between rounds (CPU clocks, a neighbour's load) moves both
    figures of a pair and leaves their ratio; a ratio of the two medians keeps that
    drift. None when a denominator is 0.

    >>> paired_ratio([2.0, 4.0, 6.0], [1.0, 4.0, 5.0])
    1.2
    """
    if len(numerators) != len(denominators) or not numerators:
        raise ValueError("paired_ratio needs figures from the same groups")
    if any(d == 0 for d in denominators):
        return None
    return statistics.median(n / d for n, d in zip(numerators, denominators, strict=True))


def compile_seconds(
    fn: Callable[..., Any], args: Sequence[jax.Array], donate_argnums: tuple[int, ...] = ()
) -> tuple[float, Any]:
    """Seconds to trace, lower and compile ``fn`` for ``args``, and the compiled program.

    ``fn`` is wrapped in a new function each time, so that no cache keyed on
    the function (JAX's tracing and compilation caches) is hit: the figure is
    what a user's first ``jax.jit`` of code calling ``fn`` costs, once any
    jitted helpers inside ``fn`` have been traced before.
    """

    def fresh(*operands: Any) -> Any:
        return fn(*operands)

    start = time.perf_counter()
    compiled = jax.jit(fresh, donate_argnums=donate_argnums).lower(*args).compile()
    return time.perf_counter() - start, compiled
