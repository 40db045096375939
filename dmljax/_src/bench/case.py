"""The two kinds of benchmark case: a timed kernel and an eager-dispatch probe.

A :class:`Case` is one operator call big enough to be bound by memory
bandwidth, timed against the best hand-written ``jax.numpy`` form of the same
computation and against a copy of the same number of bytes. An
:class:`EagerCase` is the same operator on tiny arrays, where only the cost of
dispatching a call is measured.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import jax

__all__ = ["Case", "EagerCase"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Case:
    """A kernel timed against its hand-written ``jax.numpy`` equivalent.

    Attributes:
        name: a short unique name, e.g. ``"tile (2,2)"``; ``--filter`` matches it.
        operator: the DirectML operator, e.g. ``"TILE"``.
        make_args: builds the operands on the default device from a
            ``jax.random`` key; with ``quick`` true (``--quick``, or any CPU run)
            they total a few MiB, otherwise at least 256 MiB.
        dmljax_fn: the dmljax call, a function of the operands only.
        jnp_fn: the best hand-written ``jax.numpy``/``jax.lax`` form; it must give
            the same output, bit for bit.
        bytes_moved: the ideal bytes one call reads and writes (the byte models of
            performance.md §5 item 7), from the operands.
        donate_argnums: operands given to the output; at most one, and the output
            must have its shape and dtype, because each timed call's output is
            passed in as the next call's donated operand.
        target_ratio: the largest dmljax/jnp time ratio that meets the target
            (1.05, or less where an operator must beat the plain jnp form); None
            for a case reported only, whose dmljax call does more than its jnp
            form (deterministic scatter): then no target compares it with jnp,
            neither time nor kernels nor compile time.
        more_work: the dmljax call does more than its jnp form by design
            (``deterministic=True`` against a plain overwrite): its time is held
            to ``target_ratio``, but its kernel count and compile time are not
            compared with jnp's.
        separate_fn: for a graph, the same computation as its nodes' compiled
            operators called one after another (never jitted together), or None:
            it is timed too, and the dmljax call must be faster (its time over
            dmljax's, ``separate_ratio``, above ``min_separate_ratio``).
        min_separate_ratio: how many times faster than its nodes one by one a graph
            must be: 1 (faster at all), or more where fusion must pay (8 element-wise
            nodes: 4).
        relative_tolerance: how far dmljax's and jnp's outputs may be apart, relative
            to jnp's largest magnitude: 0 (equal bits) except for a sum whose order the
            backend's autotuner picks per program (a transposed convolution on a GPU:
            cuDNN's algorithms add in different orders), where both meet a bound.
        min_pct_of_copy: the least bandwidth, in % of the copy's over the same
            bytes, that dmljax must reach; None for no such target. It suits
            cases whose ideal bytes are what the hardware moves (row gathers,
            reversals), not those bound by sectors or random access.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> case = Case(
    ...     name="tile (1,2)", operator="TILE",
    ...     make_args=lambda key, quick: (jax.random.normal(key, (4, 4), jnp.float32),),
    ...     dmljax_fn=lambda x: dml.tile(x, (1, 2)),
    ...     jnp_fn=lambda x: jnp.tile(x, (1, 2)),
    ...     bytes_moved=lambda args: 3 * args[0].nbytes)
    >>> case.bytes_moved(case.make_args(jax.random.key(0), True))
    192
    """

    name: str
    operator: str
    make_args: Callable[[jax.Array, bool], tuple[jax.Array, ...]]
    dmljax_fn: Callable[..., Any]  # an array, or a tuple of arrays (SPLIT)
    jnp_fn: Callable[..., Any]
    bytes_moved: Callable[[Sequence[jax.Array]], int]
    donate_argnums: tuple[int, ...] = ()
    target_ratio: float | None = 1.05
    min_pct_of_copy: float | None = None
    more_work: bool = False
    separate_fn: Callable[..., Any] | None = None
    min_separate_ratio: float = 1.0
    relative_tolerance: float = 0.0

    def __post_init__(self) -> None:
        if len(self.donate_argnums) > 1:
            raise ValueError(
                f"Case {self.name!r}: donate_argnums must hold at most one operand (the one "
                f"each call's output replaces); got {self.donate_argnums}."
            )
        if self.target_ratio is not None and self.target_ratio <= 0:
            raise ValueError(
                f"Case {self.name!r}: target_ratio must be > 0 or None; got {self.target_ratio}."
            )
        if self.min_pct_of_copy is not None and not 0 < self.min_pct_of_copy <= 100:
            raise ValueError(
                f"Case {self.name!r}: min_pct_of_copy must be in (0, 100] or None; "
                f"got {self.min_pct_of_copy}."
            )

    @property
    def donated(self) -> int | None:
        """The position of the donated operand, or None."""
        return self.donate_argnums[0] if self.donate_argnums else None


@dataclasses.dataclass(frozen=True, kw_only=True)
class EagerCase:
    """The per-call cost of an operator on tiny arrays, outside any ``jax.jit``.

    Attributes:
        name: a short unique name, e.g. ``"tile eager"``.
        operator: the DirectML operator, e.g. ``"TILE"``.
        make_args: builds tiny operands (a few dozen elements) from a key.
        functional: the functional-face call, e.g. ``dml.tile(x, (2, 2))``, or
            None where there is none (a graph).
        desc: the desc of the same computation for the operands, an operator's
            or a :class:`dmljax.GraphDesc`; it is compiled once
            (``dml.compile_operator`` or ``dml.compile_graph``), before timing,
            and called with the same operands.
        jnp_fn: the hand-written form; it is jitted and compiled before timing.
        target_ratio: the largest dmljax/jnp per-call ratio that meets the target.
        numpy_indices: the position of the index array among the operands, for
            operators that take one: the functional face is then also timed with
            those indices as a NumPy int64 array (NumPy's default integers),
            against the jnp call with the same array (both pay its copy to the
            device), to at most ``target_ratio`` times its cost.
        desc_operands: the desc face's operands from the operands, where its layout
            differs (RNN's desc holds ONNX's arrays with a leading 1), computed once
            before timing; None: the same operands.
    """

    name: str
    operator: str
    make_args: Callable[[jax.Array], tuple[jax.Array, ...]]
    functional: Callable[..., Any] | None
    desc: Callable[..., Any]
    jnp_fn: Callable[..., Any]
    target_ratio: float = 1.1
    numpy_indices: int | None = None
    desc_operands: Callable[..., tuple[jax.Array, ...]] | None = None

    def operands_of_desc(self, args: tuple[jax.Array, ...]) -> tuple[jax.Array, ...]:
        """The operands the desc face is built for and called with."""
        return args if self.desc_operands is None else self.desc_operands(*args)
