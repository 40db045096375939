"""``python -m dmljax selftest``: is dmljax right on this machine's default device?

Two parts. Every DirectML doc example of an implemented operator (see
:mod:`dmljax._src.checking.doc_examples`), and a short property sweep: random shapes,
dtypes and indices through each operator's functional face, compared with the
NumPy reference (:mod:`dmljax._src.checking.reference`) eagerly, under ``jax.jit`` and
under ``jax.vmap``, and, for floating dtypes, its derivatives under ``jax.jvp``
and ``jax.grad``. Every operator here moves data without computing on it, so
it is linear in its floating operands: the forward derivative must be the
operator itself, and the gradient must be its transpose,
``<f(x), c> == <x, grad_x <f(x), c>>``. With small integer values in
floating dtypes every such sum is exact, so all comparisons are exact.

Every operator of :data:`dmljax.OPERATORS` with a functional face is swept, by
the function ``(rng, dtype) -> SweepCase`` its companion declares
(``OperatorChecks(sweep=...)``),
gathered in :data:`SWEEPS`.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import json
import pathlib
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO

import jax
import jax.numpy as jnp
import numpy as np

import dmljax as dml
from dmljax._src.bench.environment import environment
from dmljax._src.checking import doc_examples
from dmljax._src.checking.operators import all_checks
from dmljax._src.checking.sweeps import (
    DATA_DTYPES,
    SweepCase,
    draw_values as _values,
    label as _name,
)
from dmljax._src.text import (
    TableFormatter,
    describe_device,
    describe_error,
    either_filter,
    elide,
    format_table,
    matches_filters,
    table_formatter,
)

__all__ = [
    "DATA_DTYPES",
    "SWEEPS",
    "WIDTH",
    "CheckResult",
    "SweepCase",
    "check_sweep_case",
    "floating_outputs",
    "selftest",
    "within_ulps",
]


# Each operator's companion declares its sweep (OperatorChecks(sweep=...)): one case of the
# given data dtype; the dtypes take turns draw by draw. SLICE and GATHER_ND1 have no
# functional face of their own: SLICE1's and GATHER_ND's sweeps run their lowerings.
SWEEPS: dict[str, Callable[[np.random.Generator, np.dtype[Any]], SweepCase]] = {
    name: checks.sweep for name, checks in all_checks().items() if checks.sweep is not None
}


def _require_equal(
    what: str, actual: Any, expected: Any, ulps: int = 0, magnitude: float = 0.0
) -> None:
    """``actual`` equals ``expected``: arrays, or tuples of them (SPLIT's parts); floats
    within ``ulps`` units in the last place (of ``max(|expected|, magnitude)``) where that
    is not 0."""
    if isinstance(expected, tuple):
        if not isinstance(actual, tuple | list) or len(actual) != len(expected):
            count = len(actual) if isinstance(actual, tuple | list) else "not a tuple"
            raise AssertionError(f"{what}: got {count} outputs, expected {len(expected)}")
        for k, (a, e) in enumerate(zip(actual, expected, strict=True)):
            _require_equal(f"{what} output {k}", a, e, ulps, magnitude)
        return
    actual = np.asarray(actual)
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        raise AssertionError(
            f"{what}: got {_name(actual.shape, actual.dtype)}, "
            f"expected {_name(expected.shape, expected.dtype)}"
        )
    if ulps and jnp.issubdtype(expected.dtype, jnp.floating):
        size = np.full(expected.shape, magnitude) if magnitude else None
        wrong = int(np.sum(~within_ulps(actual, expected, ulps, size)))
        if wrong:
            raise AssertionError(f"{what}: {wrong} of {expected.size} elements beyond {ulps} ulps")
        return
    if not np.array_equal(
        actual, expected, equal_nan=bool(jnp.issubdtype(expected.dtype, jnp.floating))
    ):
        wrong = int(np.sum(actual != expected))
        raise AssertionError(f"{what}: {wrong} of {expected.size} elements differ")


def within_ulps(
    actual: Any, expected: np.ndarray, ulps: float, magnitude: np.ndarray | None = None
) -> np.ndarray:
    """Where float ``actual`` is within ``ulps`` units in the last place of ``expected``,
    in ``expected``'s type (NaN where it is NaN; infinities equal), or of ``magnitude``
    where that is larger: the size of the terms of a result that may cancel
    (``|alpha * x| + |beta|`` for ``alpha * x + beta``).

    >>> one_up = np.nextafter(np.float32(1), np.float32(2))
    >>> within_ulps(np.float32([1, 1]), np.array([one_up, 2], np.float32), 1)
    array([ True, False])
    >>> within_ulps(np.float32([1e-7]), np.float32([0.0]), 1, magnitude=np.float64([2.0]))
    array([ True])
    """
    info = jnp.finfo(expected.dtype)
    with np.errstate(invalid="ignore"):  # a signalling NaN (a bit operation's) widens too
        wide = np.asarray(actual).astype(np.float64)
        want = np.asarray(expected).astype(np.float64)
        scale = want if magnitude is None else np.fmax(np.abs(want), magnitude)
        _, exponent = np.frexp(scale)
        ulp = np.ldexp(1.0, np.maximum(exponent - 1, info.minexp) - info.nmant)
        same = (wide == want) | (np.isnan(wide) & np.isnan(want))
        return same | (np.abs(wide - want) <= ulps * ulp)


def floating_outputs(result: Any) -> Any:
    """The outputs of ``result`` that have derivatives: an array as it is, or of a tuple
    its floating members (TOP_K's values, not its indices), one alone as an array.

    >>> floating_outputs((jnp.ones(2), jnp.zeros(2, jnp.uint32))).dtype
    dtype('float32')
    """
    if not isinstance(result, tuple | list):
        return result
    kept = tuple(y for y in result if jnp.issubdtype(y.dtype, jnp.floating))
    return kept[0] if len(kept) == 1 else kept


def _of_data(case: SweepCase) -> tuple[Callable[..., Any], tuple[jax.Array, ...]]:
    """``case.fn`` of its data operands alone (the others as the first draw has them),
    with its outputs that have derivatives (:func:`floating_outputs`), and those operands
    of the first draw."""
    args = case.batch[0]

    def f(*operands: jax.Array) -> Any:
        full: list[Any] = list(args)
        for position, operand in zip(case.linear_argnums, operands, strict=True):
            full[position] = operand
        return floating_outputs(case.fn(*full))

    return f, tuple(jnp.asarray(args[i]) for i in case.linear_argnums)


# One check of check_sweep_case in two parts: what to compute (traced inside its one
# program) on which operands, and the check of what it computed.
_Step = tuple[Callable[..., Any], tuple[Any, ...], Callable[[Any], None]]


def _derivatives_agree(case: SweepCase, out: Any) -> _Step:
    """A function that is not linear: its jvp and its vjp are one derivative,
    ``<J t, c> == <t, J^T c>`` within float32's rounding (check_grads, in the conformance
    suite, holds both to finite differences). ``out``: the floating outputs of the first
    draw, eagerly."""
    f, primals = _of_data(case)
    rng = np.random.default_rng(0)
    tangents = tuple(
        jnp.asarray(rng.integers(-3, 3, size=p.shape, endpoint=True), p.dtype) for p in primals
    )
    # Each output (a tuple's too: RNN's sequence and last state) paired with a cotangent.
    cotangent = jax.tree.map(
        lambda y: jnp.asarray(rng.integers(-3, 3, size=y.shape, endpoint=True), y.dtype), out
    )

    def compute(primals: tuple[Any, ...], tangents: tuple[Any, ...], cotangent: Any) -> Any:
        _, tangent_out = jax.jvp(f, primals, tangents)
        _, pullback = jax.vjp(jax.jit(f), *primals)
        return tangent_out, pullback(cotangent)

    def verify(computed: Any) -> None:
        tangent_out, backward = computed
        pairs = list(zip(jax.tree.leaves(tangent_out), jax.tree.leaves(cotangent), strict=True))
        terms = [np.asarray(t, np.float64) * np.asarray(c, np.float64) for t, c in pairs]
        forward_sum = float(sum(np.sum(term) for term in terms))
        backward_sum = sum(
            float(np.sum(np.asarray(t, np.float64) * np.asarray(g, np.float64)))
            for t, g in zip(tangents, backward, strict=True)
        )
        # Both sums round each term once in the operands' type: a few ulps of their magnitude.
        magnitude = float(sum(np.sum(np.abs(term)) for term in terms))
        ulp = float(jnp.finfo(jax.tree.leaves(out)[0].dtype).eps)
        if not np.isclose(forward_sum, backward_sum, rtol=0, atol=8 * ulp * max(magnitude, 1.0)):
            raise AssertionError(
                f"jvp and vjp disagree: <J t, c> = {forward_sum}, <t, J^T c> = {backward_sum}"
            )

    return compute, (primals, tangents, cotangent), verify


def _derivatives_of_linear(case: SweepCase, out: Any) -> _Step:
    """A linear function: its gradient is its transpose, ``<f(x), c> == <x, grad_x <f(x),
    c>>``, and its jvp in any direction is the function applied to that direction.
    ``out``: the floating outputs of the first draw, eagerly."""
    f, primals = _of_data(case)
    outs = [np.asarray(y) for y in jax.tree.leaves(out)]
    rng = np.random.default_rng(0)
    # grad: <f(x), c> == <x, grad_x <f(x), c>>, summed in float32 (exact for these integers).
    cotangents = [
        jnp.asarray(rng.integers(-3, 3, size=y.shape, endpoint=True), jnp.float32) for y in outs
    ]
    tangents = tuple(jnp.asarray(_values(rng, p.shape, np.dtype(p.dtype))) for p in primals)

    def pairing(*operands: jax.Array) -> jax.Array:
        leaves = jax.tree.leaves(f(*operands))
        pairs = zip(leaves, cotangents, strict=True)
        products = [jnp.sum(y.astype(jnp.float32) * c) for y, c in pairs]
        return sum(products, jnp.float32(0))

    def compute(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> Any:
        # The gradient of a jitted function, as a training step takes it; and the
        # derivative is traced after the operator's own trace, where a tracer it closed
        # over would leak.
        grads = jax.grad(jax.jit(pairing), argnums=tuple(range(len(primals))))(*primals)
        _, tangent_out = jax.jvp(f, primals, tangents)
        return grads, tangent_out, f(*tangents)

    def verify(computed: Any) -> None:
        grads, tangent_out, applied = computed
        forward = sum(
            float(np.sum(y.astype(np.float64) * np.asarray(c, np.float64)))
            for y, c in zip(outs, cotangents, strict=True)
        )
        backward = sum(
            float(np.sum(np.asarray(p, np.float64) * np.asarray(g, np.float64)))
            for p, g in zip(primals, grads, strict=True)
        )
        if forward != backward:
            raise AssertionError(f"grad: <f(x), c> = {forward} but <x, grad> = {backward}")
        # jvp: a linear map's derivative in any direction is the map applied to it.
        _require_equal("jvp", tangent_out, jax.tree.map(np.asarray, applied))

    return compute, (primals, tangents), verify


def in_one_program(calls: Sequence[tuple[Callable[..., Any], Sequence[Any]]]) -> list[Any]:
    """``[fn(*args) for fn, args in calls]``, computed in one jitted program.

    XLA:CPU takes about 40 ms to compile a small program, most of it the same whatever
    the program holds: ten small functions compile about three times faster as one
    program than as ten. A check that compares several programs of an operator (its
    exports, its vmaps, its graph) runs them in one; the operator's jitted program is
    the same inside an enclosing jit, and the checks of eager calls stay eager.

    >>> in_one_program([(jnp.sin, (np.zeros(2),)), (jnp.add, (1.0, 2.0))])[1]
    Array(3., dtype=float32, weak_type=True)
    """
    functions = [fn for fn, _ in calls]
    program = jax.jit(
        lambda arguments: [fn(*a) for fn, a in zip(functions, arguments, strict=True)]
    )
    return program([list(arguments) for _, arguments in calls])


def check_sweep_case(case: SweepCase) -> list[str]:
    """Runs one draw eagerly, under jit, under vmap and (floats in, floats out) under jvp
    and grad (a test's 1 or 0 has no derivative).

    Each draw runs eagerly, as a user calls the face; the checks under jit, vmap, jvp and
    grad run in one jitted program. XLA compiles a program in about 40 ms, most of it
    the same whatever the program holds, and the face's own jitted program is the same
    inside it: one program instead of five or six per draw.

    Returns:
        The transformations checked, e.g. ``["eager", "jit", "vmap", "jvp+grad"]``.

    Raises:
        AssertionError (or the operator's own error): the first check that failed.
    """
    eager = [case.fn(*args) for args in case.batch]
    for got, expected in zip(eager, case.expected, strict=True):
        _require_equal("eager", got, expected, case.ulps, case.magnitude)
    stacked = tuple(np.stack(column) for column in zip(*case.batch, strict=True))
    # A generator (no arrays) is vmapped by the batch's size: its result, stacked.
    size = None if stacked else len(case.batch)
    linear_dtypes = [case.batch[0][i].dtype for i in case.linear_argnums]
    out_dtypes = [np.asarray(y).dtype for y in jax.tree.leaves(case.expected[0])]
    # Derivatives of the floating outputs: TOP_K's indices beside its values have none.
    floats = all(jnp.issubdtype(d, jnp.floating) for d in linear_dtypes) and any(
        jnp.issubdtype(d, jnp.floating) for d in out_dtypes
    )
    stacked_expected = jax.tree.map(lambda *members: np.stack(members), *case.expected)

    def each(batch: Any) -> list[Any]:
        return [case.fn(*args) for args in batch]

    def check_each(results: list[Any]) -> None:
        for got, expected in zip(results, case.expected, strict=True):
            _require_equal("jit", got, expected, case.ulps, case.magnitude)

    def batched(stacked: Any) -> Any:
        return jax.vmap(case.fn, axis_size=size)(*stacked)

    def check_batched(result: Any) -> None:
        _require_equal("vmap", result, stacked_expected, case.ulps, case.magnitude)

    steps: dict[str, _Step] = {
        "jit": (each, (case.batch,), check_each),
        "vmap": (batched, (stacked,), check_batched),
    }
    if linear_dtypes and floats and case.differentiable:
        of = _derivatives_of_linear if case.linear else _derivatives_agree
        steps["jvp+grad"] = of(case, floating_outputs(eager[0]))
    try:
        results = in_one_program([(fn, operands) for fn, operands, _ in steps.values()])
    except Exception:  # a transformation fn lacks: one program each, to name the first
        results = None
    for k, (fn, operands, verify) in enumerate(steps.values()):
        verify(jax.jit(fn)(*operands) if results is None else results[k])
    return ["eager", *steps]


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """One row of the selftest table."""

    kind: str  # "doc example" or "sweep"
    op: str
    case: str
    passed: bool | None  # None: skipped
    detail: str


def _doc_rows(filters: Sequence[str] | None) -> Iterator[CheckResult]:
    for e in doc_examples.entries():
        if not matches_filters(e["op"], filters):
            continue
        outcome = doc_examples.check(e)
        yield CheckResult(
            "doc example", outcome.op, f"{outcome.id} ({outcome.status})", outcome.passed,
            outcome.detail,
        )  # fmt: skip


def _sweep_rows(seed: int, draws: int, filters: Sequence[str] | None) -> Iterator[CheckResult]:
    swept = [operator.name for operator in dml.OPERATORS if operator.function is not None]
    for number, op in enumerate(swept):
        if not matches_filters(op, filters):
            continue  # numbered among all: a filtered run draws the cases a full one does
        rng = np.random.default_rng([seed, number])
        sweep = SWEEPS.get(op)
        if sweep is None:
            yield CheckResult("sweep", op, "-", False, "no sweep in selftest.SWEEPS")
            continue
        dtypes = all_checks()[op].sweep_dtypes
        for draw in range(draws):
            try:
                case = sweep(rng, dtypes[draw % len(dtypes)])
            except Exception as error:  # a broken sweep is a failure to report, not a crash
                yield CheckResult("sweep", op, "drawing a case", False, describe_error(error))
                continue
            try:
                checked = check_sweep_case(case)
            except Exception as error:  # report every failing draw, not only the first
                yield CheckResult("sweep", op, case.label, False, describe_error(error))
            else:
                yield CheckResult("sweep", op, case.label, True, " ".join(checked))


WIDTH = 100
"""The widest line the selftest prints (its table's cases are elided to fit)."""

_KINDS = {"doc example": "doc", "sweep": "sweep"}


def _table(rows: Sequence[CheckResult], table: TableFormatter = format_table) -> str:
    # Four columns of 5, at most 30 (the operator's name, elided beyond: ELEMENT_WISE_...)
    # and 4 characters, and three gaps of 2: the case gets the rest.
    names = [elide(r.op.removeprefix("DML_OPERATOR_"), 30) for r in rows]
    case_width = WIDTH - 5 - max(map(len, names), default=0) - 4 - 3 * 2
    cells = [
        [
            _KINDS[r.kind],
            name,
            "PASS" if r.passed else "FAIL",
            elide(r.case, case_width),
        ]
        for r, name in zip(rows, names, strict=True)
    ]
    return table(["check", "operator", "ok?", "case"], cells, 4)


def _wrapped(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ")


class _Progress:
    """On a terminal, one line rewritten as each check finishes; elsewhere (a CI log, a
    pipe into ``tee``), one line per operator as its checks finish, with the time so far.

    >>> import io
    >>> log = io.StringIO()
    >>> progress = _Progress(log)
    >>> for case in ("(2,)", "(3,)"):
    ...     progress(CheckResult("doc example", "DML_OPERATOR_TILE", case, True, ""))
    >>> progress.done()
    >>> log.getvalue().split("] ")[1].rstrip()
    'doc examples TILE: 2 checks'
    """

    def __init__(self, out: TextIO | None) -> None:
        isatty = getattr(out, "isatty", None)
        self._terminal = isatty is not None and isatty()
        self._out = out
        self._count = 0
        self._group: tuple[str, str] | None = None
        self._in_group = 0
        self._start = time.perf_counter()

    def __call__(self, row: CheckResult) -> None:
        self._count += 1
        if self._out is None:
            return
        op = row.op.removeprefix("DML_OPERATOR_")
        if self._terminal:
            line = elide(f"[{self._count:4d}] {_KINDS[row.kind]} {op} {row.case}", WIDTH - 1)
            print(f"\r{line:<{WIDTH - 1}}", end="", file=self._out, flush=True)
            return
        if (row.kind, op) != self._group:
            self._finish_group()
            self._group, self._in_group = (row.kind, op), 0
        self._in_group += 1

    def _finish_group(self) -> None:
        if self._group is not None and self._out is not None:
            kind, op = self._group
            elapsed = time.perf_counter() - self._start
            label = "doc examples" if kind == "doc example" else "sweep"
            checks = f"{self._in_group} check{'s' if self._in_group != 1 else ''}"
            print(f"[{elapsed:6.1f}s] {label} {op}: {checks}", file=self._out, flush=True)

    def done(self) -> None:
        if self._out is None:
            return
        if self._terminal:
            print(f"\r{'':<{WIDTH - 1}}\r", end="", file=self._out, flush=True)
        else:
            self._finish_group()
            self._group = None


def selftest(
    *,
    seed: int = 0,
    draws: int = len(DATA_DTYPES),
    out: TextIO | None = None,
    progress_out: TextIO | None = None,
    json_path: str | None = None,
    filters: Sequence[str] | None = None,
) -> int:
    """Runs the doc examples and the sweep, prints the table; returns the exit status.

    With ``filters``, only the operators whose DirectML name contains one of them
    (case-insensitive, as ``bench --filter``): ``filters=["TILE"]`` checks TILE alone.

    Progress goes to ``progress_out`` (standard error): a line rewritten on a
    terminal, a line per operator elsewhere; the table, in lines of at most
    :data:`WIDTH` characters, to ``out``; every check with its full case and detail to
    ``json_path``.

    Returns:
        0 when everything passed, 1 on any failure, 2 when ``filters`` match nothing.
    """
    out = out or sys.stdout
    if filters and not any(
        matches_filters(op, filters) for op in (*(e["op"] for e in doc_examples.entries()), *SWEEPS)
    ):
        wanted = either_filter(filters)
        print(f"dmljax selftest: no operator name contains {wanted}", file=sys.stderr)
        return 2
    progress = _Progress(sys.stderr if progress_out is None else progress_out)
    header = f"dmljax {dml.__version__} selftest on {describe_device()}, jax {jax.__version__}"
    print(header, file=out)
    print(
        f"doc examples: {doc_examples.PATH.name}; sweep: {draws} draws per operator, seed {seed}",
        file=out,
    )
    if filters:
        chosen = f"only operators whose name contains {either_filter(filters)}"
        print(elide(chosen, WIDTH), file=out)
    print(file=out, flush=True)
    rows = []
    for row in itertools.chain(_doc_rows(filters), _sweep_rows(seed, draws, filters)):
        progress(row)
        rows.append(row)
    progress.done()
    ran = [r for r in rows if r.passed is not None]
    skipped = [r for r in rows if r.passed is None]
    print(_table(ran, table_formatter(out, width=WIDTH)), file=out)
    if skipped:
        by_reason = collections.Counter((r.op, r.detail) for r in skipped)
        print(f"\nskipped {len(skipped)} doc examples:", file=out)
        for (op, reason), count in sorted(by_reason.items()):
            print("\n".join(_wrapped(f"{op} x{count}: {reason}", "  ")), file=out)
    failed = [r for r in ran if not r.passed]
    if failed:
        print(f"\n!!! {len(failed)} FAILED:", file=out)
        for r in failed:
            print("\n".join(_wrapped(f"{r.kind} {r.op} {r.case}: {r.detail}", "!!! ")), file=out)
    passed = len(ran) - len(failed)
    verdict = "FAILED" if failed else "passed"
    summary = f"selftest {verdict}: {passed} passed, {len(failed)} failed, {len(skipped)} skipped"
    print(f"\n{summary}", file=out, flush=True)  # the device is in the first line
    if json_path is not None:
        document = {
            "format": "dmljax-selftest",
            "environment": {
                k: v
                for k, v in environment(quick=False, small=False).items()
                if k not in ("quick", "small_sizes")  # a bench run's settings
            },
            "seed": seed,
            "draws": draws,
            "filters": list(filters or ()),
            "passed": not failed,
            "counts": {"passed": passed, "failed": len(failed), "skipped": len(skipped)},
            "checks": [dataclasses.asdict(r) for r in rows],
        }
        pathlib.Path(json_path).write_text(json.dumps(document, indent=2) + "\n")
        print(f"wrote {json_path}", file=out, flush=True)
    return 1 if failed else 0
