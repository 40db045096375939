"""The terminal form of a benchmark report: its tables and a verdict, within 120 columns."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

from dmljax._src.bench.results import (
    COMPILE_TARGET_RATIO,
    NUMPY_INT64,
    CaseResult,
    EagerResult,
    Report,
)
from dmljax._src.text import WIDTH, TableFormatter, column_widths, elide, format_table

__all__ = ["format_report", "short_operands", "speed_target"]


def _number(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _verdict(result: CaseResult | EagerResult) -> str:
    if result.error is not None:
        return "FAILED"
    return "MISS" if result.misses else "ok"


def speed_target(result: CaseResult) -> str:
    """A case's time target in words: ``"<= 1.050"`` (dmljax/jnp), or ``"reported"``
    for a cost shown and not held to jnp.

    >>> def case(**targets):
    ...     return CaseResult(name="c", operator="X", args=[], donated=False, **targets)
    >>> speed_target(case(target_ratio=None)), speed_target(case(target_ratio=1.05))
    ('reported', '<= 1.050')
    """
    return "reported" if result.target_ratio is None else f"<= {result.target_ratio:.3f}"


def _time_verdict(result: CaseResult, held: bool) -> str:
    if result.error is not None:
        return "FAILED"
    if not held or result.target_ratio is None or result.ratio is None:
        return "-"  # reported only: nothing to meet
    return "MISS" if result.ratio > result.target_ratio else "ok"


def _copy_verdict(result: CaseResult, held: bool) -> str:
    pct = result.pct_of_copy.get("dmljax")
    if result.error is not None:
        return "FAILED"
    if not held or result.min_pct_of_copy is None or pct is None:
        return "-"
    return "MISS" if pct < result.min_pct_of_copy else "ok"


def _compared_verdict(met: bool, result: CaseResult, held: bool) -> str:
    # A case that does more than its jnp form has no kernel or compile target.
    if not held or result.target_ratio is None or result.more_work:
        return "-"
    return "ok" if met else "MISS"


def _time_rows(cases: Sequence[CaseResult], held: bool) -> list[list[str]]:
    rows: list[list[str]] = []
    for r in cases:
        ms = {name: 1e3 * seconds for name, seconds in r.time_s.items()}
        rows.append(
            [
                r.name,
                _number(ms.get("dmljax"), 3),
                _number(ms.get("jnp"), 3),
                _number(ms.get("jnp_again"), 3),
                _number(ms.get("copy"), 3),
                _number(r.ratio, 3),
                _number(r.aa_ratio, 3),
                speed_target(r),
                _time_verdict(r, held),
            ]
        )
    return rows


def _bandwidth_rows(cases: Sequence[CaseResult], held: bool) -> list[list[str]]:
    return [
        [
            r.name,
            _number(r.bytes_moved / 2**20, 1) if r.bytes_moved else "-",
            _number(r.gbps.get("dmljax"), 0),
            _number(r.pct_of_copy.get("dmljax"), 0),
            _number(r.gbps.get("jnp"), 0),
            _number(r.pct_of_copy.get("jnp"), 0),
            "-" if r.min_pct_of_copy is None else f">= {r.min_pct_of_copy:.0f}",
            _copy_verdict(r, held),
        ]
        for r in cases
    ]


def _graph_rows(cases: Sequence[CaseResult], held: bool) -> list[list[str]]:
    rows: list[list[str]] = []
    for r in cases:
        ms = {name: 1e3 * seconds for name, seconds in r.time_s.items()}
        verdict = "-" if not held or r.separate_ratio is None else (
            "ok" if r.separate_ratio > r.min_separate_ratio else "MISS"
        )  # fmt: skip
        rows.append([r.name, _number(ms.get("dmljax"), 3), _number(ms.get("separate"), 3),
                     _number(r.separate_ratio, 2), f"> {r.min_separate_ratio:g}",
                     verdict])  # fmt: skip
    return rows


def _build_rows(cases: Sequence[CaseResult], held: bool) -> list[list[str]]:
    rows: list[list[str]] = []
    for r in cases:
        compile_ms = {name: 1e3 * seconds for name, seconds in r.compile_s.items()}
        kernels_ok = bool(r.kernels) and r.kernels["dmljax"] <= r.kernels["jnp"]
        compile_ok = r.compile_ratio is not None and r.compile_ratio <= COMPILE_TARGET_RATIO
        rows.append(
            [
                r.name,
                short_operands(r.args) or "-",
                str(r.kernels.get("dmljax", "-")),
                str(r.kernels.get("jnp", "-")),
                _compared_verdict(kernels_ok, r, held),
                _number(compile_ms.get("dmljax"), 1),
                _number(compile_ms.get("jnp"), 1),
                _number(r.compile_ratio, 2),
                _compared_verdict(compile_ok, r, held),
            ]
        )
    return _fitted(rows, _BUILD_HEADERS, column=1)


_BUILD_HEADERS = ["case", "operands", "kernels", "jnp", "ok", "compile", "jnp", "/jnp", "ok"]
_DTYPE_NAMES = re.compile(r"\b(b?)(float|uint|int)(\d+)\b")


def short_operands(args: Sequence[str]) -> str:
    """Operands with jnp's short dtype names, for a table.

    >>> short_operands(["float32[4096,16384]", "int32[4096]", "bfloat16[8]", "bool[2]"])
    'f32[4096,16384] i32[4096] bf16[8] bool[2]'
    """
    return _DTYPE_NAMES.sub(
        lambda m: f"{m[1]}{'f' if m[2] == 'float' else m[2][0]}{m[3]}", " ".join(args)
    )


def _fitted(rows: list[list[str]], headers: Sequence[str], column: int) -> list[list[str]]:
    """``rows`` with ``column`` elided in the middle where the table would pass
    :data:`WIDTH` (as :func:`format_table` lays it out)."""
    widths = column_widths(headers, rows)
    room = WIDTH - (sum(widths) - widths[column]) - 2 * (len(headers) - 1)
    room = max(room, 12)
    return [[*row[:column], elide(row[column], room), *row[column + 1 :]] for row in rows]


def _eager_verdict(r: EagerResult, mode: str, held: bool) -> str:
    if not held:
        return "-"
    return "MISS" if any(f" {mode} " in miss for miss in r.misses) else "ok"


def _eager_rows(eager: Sequence[EagerResult], held: bool) -> list[list[str]]:
    rows: list[list[str]] = []
    for r in eager:
        if r.error is not None or not r.us:
            rows.append([r.name, "-", "-", "-", "-", "-", "-", "-", "-", "FAILED"])
            continue
        for mode, us in r.us.items():
            rows.append(
                [
                    r.name,
                    mode,
                    _number(us.get("functional"), 1),
                    _number(us["desc"], 1),
                    _number(us["jnp"], 1),
                    _number(r.ratios[mode].get("functional"), 2),
                    _number(r.ratios[mode]["desc"], 2),
                    f"<= {r.target_ratio:.2f}",
                    _number(r.ratios[mode].get(NUMPY_INT64), 2),
                    _eager_verdict(r, mode, held),
                ]
            )
    return rows


def format_report(report: Report, table: TableFormatter = format_table) -> str:
    """The tables of a report and its closing verdict, ready to print; ``table`` draws
    each table (plain columns, or rich's on a terminal: :func:`table_formatter`)."""
    env = report.environment
    held = report.held_to_targets
    parts = [
        f"dmljax bench: {env.get('platform')} {env.get('device_kind')}, jax {env.get('jax')} "
        f"(jaxlib {env.get('jaxlib')}), {'quick' if env.get('small_sizes') else 'full'} sizes, "
        f"{env.get('date')}",
    ]
    if report.cases:
        parts += [
            "",
            "Time per call, ms (median of groups of back-to-back calls): dmljax, jnp, jnp again "
            "(A/A: the noise between two equal programs) and a copy of the same bytes; target "
            "'reported' = a cost shown, not held to jnp",
            table(
                ["case", "ms", "jnp ms", "A/A ms", "copy ms", "ms/jnp", "A/A", "target",
                 "verdict"],
                _time_rows(report.cases, held),
                1,
            ),
            "",
            "Bandwidth: ideal bytes moved over the time; %copy = of the copy's bandwidth over "
            "the same bytes; target: dmljax's least %copy",
            table(
                ["case", "MiB", "GB/s", "%copy", "jnp GB/s", "jnp %copy", "target", "verdict"],
                _bandwidth_rows(report.cases, held),
                1,
            ),
            "",
            f"Compiled programs: kernels (ENTRY instructions that run; ok: no more than jnp's) "
            f"and compile time in ms (median; ok: within {COMPILE_TARGET_RATIO}x jnp's)",
            table(
                _BUILD_HEADERS,
                _build_rows(report.cases, held),
                2,
            ),
        ]  # fmt: skip
    graphs = [r for r in report.cases if "separate" in r.time_s]
    if graphs:
        parts += [
            "",
            "Graphs: one program against their nodes' compiled operators called one by one",
            table(["case", "graph ms", "one by one ms", "one by one/graph", "target", "verdict"],
                  _graph_rows(graphs, held), 1),
        ]  # fmt: skip
    if report.eager:
        parts += [
            "",
            "Eager calls on tiny arrays, us per call: dmljax's functional (fn) and desc faces "
            "vs a jitted jnp call; np64/jnp: the functional face with NumPy int64 indices vs "
            "the jnp call with the same array (each copies it to the device)",
            table(
                ["case", "mode", "fn us", "desc us", "jnp us", "fn/jnp", "desc/jnp", "target",
                 "np64/jnp", "verdict"],
                _eager_rows(report.eager, held),
                2,
            ),
        ]  # fmt: skip
    parts.append("")
    if report.failures:
        parts.append(f"!!! {len(report.failures)} case(s) FAILED (no figures):")
        parts += [f"!!!   {failure}" for failure in report.failures]
    if report.misses:
        parts.append(f"!!! MISSED TARGETS ({len(report.misses)}):")
        parts += [f"!!!   {miss}" for miss in report.misses]
    if not held:
        parts.append(
            f"No targets on {env.get('platform')}: they are set for NVIDIA GPUs "
            "(docs/performance.md); the ratios above are for reference."
        )
    elif not report.failures and not report.misses:
        parts.append("All targets met.")
    return "\n".join(_wrapped(part) for part in parts)


def _wrapped(part: str) -> str:
    """Prose wrapped at :data:`WIDTH`; a table (several lines) as it is."""
    if "\n" in part or len(part) <= WIDTH:
        return part
    indent = "!!!     " if part.startswith("!!!   ") else ""
    return textwrap.fill(part, WIDTH, subsequent_indent=indent, break_on_hyphens=False)
