"""A PNG bar chart of each case's bandwidth as % of a copy, dmljax beside jnp.

matplotlib is an optional dependency (the ``plot`` extra); it is imported only
when a chart is drawn, so that ``bench`` runs without it and a saved JSON can
be plotted later on another machine.
"""

from __future__ import annotations

import pathlib
import textwrap
from collections.abc import Sequence
from typing import Any

from dmljax._src.bench.results import CaseResult, Report

__all__ = ["PlotUnavailableError", "plot_report", "require_matplotlib"]

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


def _ratio_label(result: CaseResult) -> str:
    """``"1.02x"``, or ``"1.31x reported"`` for a case held to no time target."""
    text = "-" if result.ratio is None else f"{result.ratio:.2f}x"
    return text if result.target_ratio is not None else f"{text} reported"


def _draw_copy_targets(
    ax: Any, cases: Sequence[CaseResult], centres: Sequence[float], width: float
) -> None:
    """A red tick across each dmljax bar whose case must reach a share of the copy's."""
    targets = [
        (centre, r.min_pct_of_copy)
        for centre, r in zip(centres, cases, strict=True)
        if r.min_pct_of_copy is not None
    ]
    if targets:
        ax.hlines(
            [pct for _, pct in targets],
            [centre - width / 2 for centre, _ in targets],
            [centre + width / 2 for centre, _ in targets],
            color="#b00000",
            linewidth=1.5,
            label="dmljax target (% of copy)",
        )


def plot_report(report: Report, path: str | pathlib.Path) -> int:
    """Draws the chart of ``report`` into ``path`` (PNG); returns the number of cases drawn.

    Cases without figures (failed ones) are left out. The dashed line at 100 %
    is the copy of the same bytes, the practical ceiling.
    """
    figure = require_matplotlib()
    cases = [r for r in report.cases if r.pct_of_copy]
    fig = figure.Figure(figsize=(max(6.0, 1.3 * len(cases) + 3.0), 4.8), layout="constrained")
    ax = fig.add_subplot()
    width = 0.38
    positions = list(range(len(cases)))
    for offset, name, color in ((-width / 2, "dmljax", "#1f77b4"), (width / 2, "jnp", "#bbbbbb")):
        values = [r.pct_of_copy[name] for r in cases]
        bars = ax.bar([p + offset for p in positions], values, width, label=name, color=color)
        ax.bar_label(bars, fmt="%.0f", fontsize=7, padding=2)
    ax.axhline(100, color="#555", linestyle="--", linewidth=0.8, label="copy (same bytes)")
    _draw_copy_targets(ax, cases, [p - width / 2 for p in positions], width)
    # Long names wrap, so that neighbouring labels never run into each other.
    labels = [f"{textwrap.fill(r.name, 15)}\n{_ratio_label(r)}" for r in cases]
    ax.set_xticks(positions, labels, fontsize=8)
    for label, r in zip(ax.get_xticklabels(), cases, strict=True):
        label.set_color("#b00000" if r.misses else "black")  # a missed target shows in red
    ax.set_ylabel("% of copy bandwidth")
    env = report.environment
    sizes = "quick sizes" if env.get("small_sizes") else "full sizes"
    ax.set_title(
        f"dmljax vs jnp: {env.get('device_kind')} ({env.get('platform')}), jax {env.get('jax')}, "
        f"{sizes}\n(under each case: dmljax/jnp time, red where a target was missed, "
        "'reported' where none applies)",
        fontsize=9,
    )
    fig.legend(fontsize=8, loc="outside right upper")  # beside the bars, never over one
    top = max([100.0, *(max(r.pct_of_copy.values()) for r in cases)])
    ax.set_ylim(0, top * 1.15)
    fig.savefig(pathlib.Path(path), dpi=150)
    return len(cases)
