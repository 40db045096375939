"""A PNG chart of each case's time against jnp's, with its target, and its compile time apart.

matplotlib is an optional dependency (the ``plot`` extra); it is imported only
when a chart is drawn, so that ``bench`` runs without it and a saved JSON can
be plotted later on another machine.
"""

from __future__ import annotations

import pathlib
from typing import Any

from dmljax._src.bench.results import COMPILE_TARGET_RATIO, CaseResult, Report, speed_misses

__all__ = ["WIDTH_PX", "PlotUnavailableError", "plot_report", "require_matplotlib"]

_INSTALL_HINT = 'Install it with `pip install "dmljax[plot]"` (or `pip install matplotlib`).'


class PlotUnavailableError(RuntimeError):
    """matplotlib is not installed."""


def require_matplotlib() -> Any:
    """The ``matplotlib.figure`` module, or a PlotUnavailableError saying how to install it."""
    try:
        from matplotlib import figure  # pyright: ignore[reportMissingImports]
    except ImportError as error:
        raise PlotUnavailableError(f"--plot needs matplotlib. {_INSTALL_HINT}") from error
    return figure


WIDTH_PX = 800
"""The chart's width in pixels: a documentation page shows it at about this width, so its
text is read at the size it was drawn."""
_DPI = 100
_OK, _MISS, _REPORTED, _JNP = "#1f77b4", "#c62828", "#9e9e9e", "#555555"


def _color(result: CaseResult, held: bool, missed: bool) -> str:
    if result.target_ratio is None or not held:
        return _REPORTED
    return _MISS if missed else _OK


def plot_report(report: Report, path: str | pathlib.Path) -> int:
    """Draws the chart of ``report`` into ``path`` (PNG); returns the number of cases drawn.

    One row per case (failed ones are left out), two panels: the time of dmljax over
    jnp's with each case's target, and, apart, the compile time over jnp's with its
    target of :data:`COMPILE_TARGET_RATIO`. Bars are red where a target was missed, grey
    where none applies (a reported case, or a run on a platform without targets). The
    chart is :data:`WIDTH_PX` pixels wide, whatever the number of cases.
    """
    figure = require_matplotlib()
    cases = [r for r in report.cases if r.ratio is not None]
    held = report.held_to_targets
    height = 1.4 + 0.27 * max(len(cases), 1)
    fig = figure.Figure(figsize=(WIDTH_PX / _DPI, height), dpi=_DPI, layout="constrained")
    speed, build = fig.subplots(1, 2, sharey=True, width_ratios=(3, 2))
    rows = list(range(len(cases)))
    speed_colors = [_color(r, held, bool(speed_misses(r))) for r in cases]
    bars = speed.barh(rows, [r.ratio for r in cases], color=speed_colors, height=0.7)
    # In the bar's middle: its end meets the target's tick and the jnp line at 1.0.
    speed.bar_label(bars, fmt="%.2f", fontsize=7, label_type="center", color="white")
    targets = [(row, r.target_ratio) for row, r in zip(rows, cases, strict=True) if r.target_ratio]
    if targets:
        speed.scatter([t for _, t in targets], [row for row, _ in targets], marker="|", s=140,
                      color="black", linewidths=1.5, label="time target", zorder=3)  # fmt: skip
    speed.axvline(1.0, color=_JNP, linestyle="--", linewidth=0.8, label="jnp (1.0)")
    speed.set_xlabel("time: dmljax / jnp (lower is faster)", fontsize=9)
    speed.set_yticks(rows, [r.name for r in cases], fontsize=9)
    speed.invert_yaxis()  # the first case on top, as in the report
    compile_ratios = [r.compile_ratio or 0.0 for r in cases]
    build_colors = [
        _REPORTED if not held or r.target_ratio is None or r.more_work
        else (_MISS if (r.compile_ratio or 0.0) > COMPILE_TARGET_RATIO else _OK)
        for r in cases
    ]  # fmt: skip
    build.barh(rows, compile_ratios, color=build_colors, height=0.7)
    build.axvline(1.0, color=_JNP, linestyle="--", linewidth=0.8)
    build.axvline(COMPILE_TARGET_RATIO, color="black", linewidth=1.2,
                  label=f"compile target {COMPILE_TARGET_RATIO}")  # fmt: skip
    build.set_xlabel("compile time: dmljax / jnp", fontsize=9)
    for ax in (speed, build):
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
    env = report.environment
    sizes = "quick sizes" if env.get("small_sizes") else "full sizes"
    where = "" if held else f"; no targets on {env.get('platform')}"
    fig.suptitle(
        f"dmljax vs jnp on {env.get('device_kind')}, jax {env.get('jax')}, {sizes}{where}\n"
        "blue: target met, red: missed, grey: reported only",
        fontsize=9,
    )
    # Below the panels, never over a bar.
    fig.legend(fontsize=8, loc="outside lower center", ncols=3, frameon=False)
    fig.savefig(pathlib.Path(path), dpi=_DPI)
    return len(cases)
