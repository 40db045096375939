"""``python -m dmljax selftest``: is dmljax right on this machine's default device?

Two parts. Every DirectML doc example of an implemented operator (see
:mod:`dmljax._src.doc_examples`), and a short property sweep: random shapes,
dtypes and indices through each operator's functional face, compared with the
NumPy reference (:mod:`dmljax._src.reference`) eagerly, under ``jax.jit`` and
under ``jax.vmap``, and, for floating dtypes, its derivatives under ``jax.jvp``
and ``jax.grad``. Every operator here moves data without computing on it, so
it is linear in its floating operands: the forward derivative must be the
operator itself, and the gradient must be its transpose,
``<f(x), c> == <x, grad_x <f(x), c>>``. With small integer values in
floating dtypes every such sum is exact, so all comparisons are exact.

Every operator of :data:`dmljax.OPERATORS` with a functional face is swept; a new
one adds its function ``(rng, dtype) -> SweepCase`` to :data:`SWEEPS`.
"""

from __future__ import annotations

import collections
import dataclasses
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import jax
import jax.numpy as jnp
import numpy as np

import dmljax as dml
from dmljax._src import doc_examples, reference
from dmljax._src.sweeps import (
    DATA_DTYPES,
    INDEX_DTYPES as _INDEX_DTYPES,
    SweepCase,
    draw_indices as _indices,
    draw_shape as _shape,
    draw_values as _values,
    label as _name,
)
from dmljax._src.text import describe_device, describe_error, format_table

__all__ = ["DATA_DTYPES", "SWEEPS", "CheckResult", "SweepCase", "check_sweep_case", "selftest"]


def tile_sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> SweepCase:
    """``dml.tile`` of rank 1 to 4 with repeats 0 to 3."""
    shape = _shape(rng, int(rng.integers(1, 4, endpoint=True)), 1, 3)
    repeats = tuple(
        int(r) for r in rng.choice([0, 1, 2, 3], p=[0.05, 0.35, 0.3, 0.3], size=len(shape))
    )
    xs = tuple(_values(rng, shape, dtype) for _ in range(batch))
    return SweepCase(
        label=f"{_name(shape, dtype)} repeats {repeats}",
        fn=lambda x: dml.tile(x, repeats),
        batch=tuple((x,) for x in xs),
        expected=tuple(reference.tile(x, repeats) for x in xs),
        linear_argnums=(0,),
    )


def gather_sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> SweepCase:
    """``dml.gather`` of rank 1 to 3, indices of rank 0 to 2, any axis, wild indices."""
    shape = _shape(rng, int(rng.integers(1, 3, endpoint=True)), 1, 4)
    index_shape = _shape(rng, int(rng.integers(0, 2, endpoint=True)), 0, 3)
    axis = int(rng.integers(-len(shape), len(shape)))
    return _gather_case(
        rng, dtype, batch, shape, index_shape, axis,
        fn=lambda x, i: dml.gather(x, i, axis=axis),
        expected=lambda x, i: reference.take(x, i, axis),
    )  # fmt: skip


def _gather_case(
    rng: np.random.Generator,
    dtype: np.dtype[Any],
    batch: int,
    shape: tuple[int, ...],
    index_shape: tuple[int, ...],
    axis: int,
    *,
    fn: Callable[..., jax.Array],
    expected: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> SweepCase:
    """A gather of ``shape`` data at wild indices of ``index_shape`` and a drawn dtype."""
    index_dtype = _INDEX_DTYPES[rng.integers(len(_INDEX_DTYPES))]
    args = tuple(
        (_values(rng, shape, dtype), _indices(rng, index_shape, index_dtype, shape[axis]))
        for _ in range(batch)
    )
    return SweepCase(
        label=f"{_name(shape, dtype)} indices {_name(index_shape, index_dtype)} axis {axis}",
        fn=fn,
        batch=args,
        expected=tuple(expected(x, i) for x, i in args),
        linear_argnums=(0,),
    )


def _elements_index_shape(
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


def gather_elements_sweep(
    rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2
) -> SweepCase:
    """``dml.gather_elements`` of rank 1 to 3, indices smaller off ``axis``, wild indices."""
    shape = _shape(rng, int(rng.integers(1, 3, endpoint=True)), 1, 4)
    axis = int(rng.integers(-len(shape), len(shape)))
    index_shape = _elements_index_shape(rng, shape, axis)
    return _gather_case(
        rng, dtype, batch, shape, index_shape, axis,
        fn=lambda x, i: dml.gather_elements(x, i, axis=axis),
        expected=lambda x, i: reference.gather_elements(x, i, axis=axis % len(shape)),
    )  # fmt: skip


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


def scatter_sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> SweepCase:
    """``dml.scatter`` of rank 1 to 3, indices smaller off ``axis``.

    Half the data dtypes (``dtype`` is one of :data:`DATA_DTYPES`) run
    ``deterministic=True`` with wild indices, duplicates included; the others
    the default lowering with at most one update per target, which every
    lowering writes the same. Either way the reference's last-write-wins holds.
    The operator is linear in ``x`` and ``updates`` together, not in the indices.
    """
    shape = _shape(rng, int(rng.integers(1, 3, endpoint=True)), 1, 4)
    axis = int(rng.integers(-len(shape), len(shape)))
    index_shape = _elements_index_shape(rng, shape, axis)
    index_dtype = _INDEX_DTYPES[rng.integers(len(_INDEX_DTYPES))]
    # The two modes take turns over DATA_DTYPES, so that one draw per dtype (the
    # default) checks both, derivatives included.
    deterministic = DATA_DTYPES.index(dtype) % 2 == 0

    def draw_indices() -> np.ndarray:
        if deterministic:
            return _indices(rng, index_shape, index_dtype, shape[axis])
        return unique_targets(rng, index_shape, index_dtype, shape[axis], axis)

    args = tuple(
        (_values(rng, shape, dtype), draw_indices(), _values(rng, index_shape, dtype))
        for _ in range(batch)
    )
    targets = "deterministic=True" if deterministic else "unique targets"
    return SweepCase(
        label=f"{_name(shape, dtype)} indices {_name(index_shape, index_dtype)} axis {axis} "
        f"{targets}",
        fn=lambda x, i, u: dml.scatter(x, i, u, axis=axis, deterministic=deterministic),
        batch=args,
        expected=tuple(reference.scatter(x, i, u, axis=axis % len(shape)) for x, i, u in args),
        linear_argnums=(0, 2),
    )


def _window(rng: np.random.Generator, dim: int) -> tuple[int, int, int, int]:
    """One dimension's SLICE1 window inside ``[0, dim)``: offset, size, stride, output size.

    Windows of at least half of what follows their offset, strides of either
    sign up to 5 (now and then past the window: one element), and an output
    size anywhere in the page's range ``[1, 1 + (size - 1) // |stride|]``.
    """
    offset = int(rng.integers(0, dim // 2, endpoint=True))
    rest = dim - offset
    size = int(rng.integers(max(1, rest // 2), rest, endpoint=True))
    stride = int(rng.choice([-1, 1])) * int(rng.choice([1, 2, 3, 5], p=[0.4, 0.3, 0.2, 0.1]))
    output_size = int(rng.integers(1, 1 + (size - 1) // abs(stride), endpoint=True))
    return offset, size, stride, output_size


def slice1_sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> SweepCase:
    """``dml.slice1`` of rank 1 to 3: a window per dimension, strides of either sign.

    Output sizes are drawn in their legal range, now and then one of them 0 (an
    empty result, which the functional face allows); a third of the draws pass
    no output sizes and get the largest ones.
    """
    shape = _shape(rng, int(rng.integers(1, 3, endpoint=True)), 1, 6)
    offsets, sizes, strides, output_sizes = (
        tuple(column) for column in zip(*(_window(rng, dim) for dim in shape), strict=True)
    )
    if rng.random() < 1 / 3:
        output_sizes = tuple(1 + (s - 1) // abs(t) for s, t in zip(sizes, strides, strict=True))
        passed_sizes = None
    else:
        if rng.random() < 0.1:
            emptied = int(rng.integers(len(shape)))
            output_sizes = tuple(0 if d == emptied else o for d, o in enumerate(output_sizes))
        passed_sizes = output_sizes
    xs = tuple(_values(rng, shape, dtype) for _ in range(batch))
    window = dict(offsets=offsets, sizes=sizes, strides=strides)
    return SweepCase(
        label=f"{_name(shape, dtype)} offsets {offsets} sizes {sizes} strides {strides} "
        f"output {'largest ' if passed_sizes is None else ''}{output_sizes}",
        fn=lambda x: dml.slice1(x, **window, output_sizes=passed_sizes),
        batch=tuple((x,) for x in xs),
        expected=tuple(reference.slice1(x, **window, output_sizes=output_sizes) for x in xs),
        linear_argnums=(0,),
    )


# Each sweep draws one case of the given data dtype; the dtypes take turns draw by draw.
# SLICE has no functional face: it runs through SLICE1's lowering, swept here.
SWEEPS: dict[str, Callable[[np.random.Generator, np.dtype[Any]], SweepCase]] = {
    "DML_OPERATOR_TILE": tile_sweep,
    "DML_OPERATOR_GATHER": gather_sweep,
    "DML_OPERATOR_GATHER_ELEMENTS": gather_elements_sweep,
    "DML_OPERATOR_SCATTER": scatter_sweep,
    "DML_OPERATOR_SLICE1": slice1_sweep,
    # Operators that declare their sweep next to their desc (Operator(sweep=...)).
    **{op.name: op.sweep for op in dml.OPERATORS if op.sweep is not None},
}


def _require_equal(what: str, actual: Any, expected: np.ndarray) -> None:
    actual = np.asarray(actual)
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        raise AssertionError(
            f"{what}: got {_name(actual.shape, actual.dtype)}, "
            f"expected {_name(expected.shape, expected.dtype)}"
        )
    if not np.array_equal(actual, expected):
        wrong = int(np.sum(actual != expected))
        raise AssertionError(f"{what}: {wrong} of {expected.size} elements differ")


def _check_derivatives(case: SweepCase) -> None:
    args = case.batch[0]
    linear = case.linear_argnums

    def f(*operands: jax.Array) -> jax.Array:
        full: list[Any] = list(args)
        for position, operand in zip(linear, operands, strict=True):
            full[position] = operand
        return case.fn(*full)

    primals = tuple(jnp.asarray(args[i]) for i in linear)
    out = np.asarray(f(*primals))
    rng = np.random.default_rng(0)
    # grad: <f(x), c> == <x, grad_x <f(x), c>>, summed in float32 (exact for these integers).
    cotangent = jnp.asarray(rng.integers(-3, 3, size=out.shape, endpoint=True), jnp.float32)

    def pairing(*operands: jax.Array) -> jax.Array:
        return jnp.sum(f(*operands).astype(jnp.float32) * cotangent)

    grads = jax.grad(pairing, argnums=tuple(range(len(primals))))(*primals)
    forward = float(np.sum(out.astype(np.float64) * np.asarray(cotangent, np.float64)))
    backward = sum(
        float(np.sum(np.asarray(p, np.float64) * np.asarray(g, np.float64)))
        for p, g in zip(primals, grads, strict=True)
    )
    if forward != backward:
        raise AssertionError(f"grad: <f(x), c> = {forward} but <x, grad> = {backward}")
    # jvp: a linear map's derivative in any direction is the map applied to that direction.
    tangents = tuple(jnp.asarray(_values(rng, p.shape, np.dtype(p.dtype))) for p in primals)
    _, tangent_out = jax.jvp(f, primals, tangents)
    _require_equal("jvp", tangent_out, np.asarray(f(*tangents)))


def check_sweep_case(case: SweepCase) -> list[str]:
    """Runs one draw eagerly, under jit, under vmap and (floating) under jvp and grad.

    Returns:
        The transformations checked, e.g. ``["eager", "jit", "vmap", "jvp+grad"]``.

    Raises:
        AssertionError (or the operator's own error): the first check that failed.
    """
    jitted = jax.jit(case.fn)
    for args, expected in zip(case.batch, case.expected, strict=True):
        _require_equal("eager", case.fn(*args), expected)
        _require_equal("jit", jitted(*args), expected)
    stacked = tuple(np.stack(column) for column in zip(*case.batch, strict=True))
    _require_equal("vmap", jax.vmap(case.fn)(*stacked), np.stack(case.expected))
    checked = ["eager", "jit", "vmap"]
    linear_dtypes = [case.batch[0][i].dtype for i in case.linear_argnums]
    if linear_dtypes and all(jnp.issubdtype(d, jnp.floating) for d in linear_dtypes):
        _check_derivatives(case)
        checked.append("jvp+grad")
    return checked


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """One row of the selftest table."""

    kind: str  # "doc example" or "sweep"
    op: str
    case: str
    passed: bool | None  # None: skipped
    detail: str


def _doc_rows() -> list[CheckResult]:
    rows = []
    for e in doc_examples.entries():
        outcome = doc_examples.check(e)
        rows.append(
            CheckResult(
                "doc example", outcome.op, f"{outcome.id} ({outcome.status})", outcome.passed,
                outcome.detail,
            )
        )  # fmt: skip
    return rows


def _sweep_rows(seed: int, draws: int) -> list[CheckResult]:
    rows = []
    swept = [operator.name for operator in dml.OPERATORS if operator.function is not None]
    for number, op in enumerate(swept):
        rng = np.random.default_rng([seed, number])
        sweep = SWEEPS.get(op)
        if sweep is None:
            rows.append(CheckResult("sweep", op, "-", False, "no sweep in selftest.SWEEPS"))
            continue
        for draw in range(draws):
            try:
                case = sweep(rng, DATA_DTYPES[draw % len(DATA_DTYPES)])
            except Exception as error:  # a broken sweep is a failure to report, not a crash
                rows.append(
                    CheckResult("sweep", op, "drawing a case", False, describe_error(error))
                )
                continue
            try:
                checked = check_sweep_case(case)
            except Exception as error:  # report every failing draw, not only the first
                rows.append(CheckResult("sweep", op, case.label, False, describe_error(error)))
            else:
                rows.append(CheckResult("sweep", op, case.label, True, " ".join(checked)))
    return rows


def _table(rows: Sequence[CheckResult]) -> str:
    cells = [
        [
            r.kind,
            r.op.removeprefix("DML_OPERATOR_"),
            r.case,
            "PASS" if r.passed else "FAIL",
            r.detail,
        ]
        for r in rows
    ]
    return format_table(["check", "operator", "case", "result", "detail"], cells, left=5)


def selftest(*, seed: int = 0, draws: int = len(DATA_DTYPES), out: TextIO | None = None) -> int:
    """Runs the doc examples and the sweep, prints the table; returns the exit status.

    Returns:
        0 when everything passed, 1 on any failure.
    """
    out = out or sys.stdout
    print(
        f"dmljax {dml.__version__} selftest on {describe_device()}, jax {jax.__version__}", file=out
    )
    print(
        f"doc examples: {doc_examples.PATH.name}; sweep: {draws} draws per operator, seed {seed}\n",
        file=out,
        flush=True,
    )
    rows = _doc_rows() + _sweep_rows(seed, draws)
    ran = [r for r in rows if r.passed is not None]
    skipped = [r for r in rows if r.passed is None]
    print(_table(ran), file=out)
    if skipped:
        by_reason = collections.Counter((r.op, r.detail) for r in skipped)
        print(f"\nskipped {len(skipped)} doc examples:", file=out)
        for (op, reason), count in sorted(by_reason.items()):
            print(f"  {op} x{count}: {reason}", file=out)
    failed = [r for r in ran if not r.passed]
    if failed:
        print(f"\n!!! {len(failed)} FAILED:", file=out)
        for r in failed:
            print(f"!!!   {r.kind} {r.op} {r.case}: {r.detail}", file=out)
    passed = len(ran) - len(failed)
    verdict = "FAILED" if failed else "passed"
    print(
        f"\nselftest {verdict}: {passed} passed, {len(failed)} failed, {len(skipped)} skipped "
        f"on {describe_device()}",
        file=out,
        flush=True,
    )
    return 1 if failed else 0
