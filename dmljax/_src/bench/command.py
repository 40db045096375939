"""``python -m dmljax bench``: run the suite (or load a saved run), print, save, plot."""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Sequence
from typing import TextIO

import jax

from dmljax._src.bench import cases as cases_module, plot
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.bench.environment import environment
from dmljax._src.bench.report import format_report
from dmljax._src.bench.results import CaseResult, EagerResult, Report, targets_apply
from dmljax._src.bench.run import FULL, QUICK, run_case, run_eager
from dmljax._src.text import (
    describe_device,
    describe_error,
    either_filter,
    matches_filters,
    table_formatter,
)

__all__ = ["bench", "select_cases"]


def select_cases(
    all_cases: Sequence[Case | EagerCase], filters: Sequence[str] | None
) -> list[Case | EagerCase]:
    """The cases whose name contains any of ``filters`` (case-insensitive); all for none."""
    return [case for case in all_cases if matches_filters(case.name, filters)]


def _run(
    selected: Sequence[Case | EagerCase], *, quick: bool, seed: int, progress_out: TextIO
) -> Report:
    small = quick or jax.default_backend() == "cpu"
    settings = QUICK if small else FULL
    started = time.perf_counter()

    def progress(message: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f}s] {message}", file=progress_out, flush=True)

    progress(f"device {describe_device()}; {'quick' if small else 'full'} sizes; {settings}")
    key = jax.random.key(seed)
    held = targets_apply(jax.default_backend())  # the targets are a GPU's
    case_results: list[CaseResult] = []
    eager_results: list[EagerResult] = []
    for number, case in enumerate(selected, start=1):
        progress(f"case {number}/{len(selected)}: {case.name}")
        case_key = jax.random.fold_in(key, number)
        result: CaseResult | EagerResult
        if isinstance(case, Case):
            timed = run_case(case, case_key, small=small, settings=settings, progress=progress)
            result = timed if held else dataclasses.replace(timed, misses=[])
            case_results.append(result)
        else:
            eager = run_eager(case, case_key, settings=settings, progress=progress)
            result = eager if held else dataclasses.replace(eager, misses=[])
            eager_results.append(result)
        verdict = result.error or ("; ".join(result.misses) if result.misses else "ok")
        progress(f"{case.name}: {verdict}")
    return Report(
        environment=environment(quick=quick, small=small),
        settings={**dataclasses.asdict(settings), "seed": seed},
        cases=case_results,
        eager=eager_results,
    )


def bench(
    *,
    quick: bool = False,
    json_path: str | None = None,
    plot_path: str | None = None,
    from_json: str | None = None,
    filters: Sequence[str] | None = None,
    list_only: bool = False,
    seed: int = 0,
    out: TextIO | None = None,
    progress_out: TextIO | None = None,
) -> int:
    """The ``bench`` command; returns the exit status.

    0 when every selected case ran and agreed with jnp, whether or not it met
    its targets (misses are printed in a closing block); 1 when a case failed
    to run or its output differed from jnp's; 2 when ``--plot`` cannot work.
    """
    out = out or sys.stdout
    if list_only:
        for case in select_cases(cases_module.all_cases(), filters):
            kind = "timed" if isinstance(case, Case) else "eager"
            print(f"{case.name}\t{case.operator}\t{kind}", file=out)
        return 0
    if plot_path is not None:
        try:
            plot.require_matplotlib()  # fail before a long run, not after it
        except plot.PlotUnavailableError as error:
            print(f"dmljax bench: {error}", file=sys.stderr)
            return 2
    if from_json is not None:
        try:
            report = Report.read(from_json).select(filters)
        except (OSError, ValueError, KeyError, TypeError) as error:
            reason = error.strerror if isinstance(error, OSError) else describe_error(error)
            print(f"dmljax bench: --from-json {from_json}: {reason}", file=sys.stderr)
            return 2
    else:
        selected = select_cases(cases_module.all_cases(), filters)
        if not selected:
            wanted = either_filter(filters)
            print(f"dmljax bench: no case name contains {wanted}; see --list.", file=sys.stderr)
            return 2
        report = _run(selected, quick=quick, seed=seed, progress_out=progress_out or sys.stderr)
    print(format_report(report, table_formatter(out)), file=out, flush=True)
    if json_path is not None:
        report.write(json_path)
        print(f"wrote {json_path}", file=out, flush=True)
    if plot_path is not None:
        drawn = plot.plot_report(report, plot_path)
        print(f"wrote {plot_path} ({drawn} cases)", file=out, flush=True)
    return 1 if report.failures else 0
