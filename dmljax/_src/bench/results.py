"""The figures of a benchmark run, the targets they are held to, and their JSON form."""

from __future__ import annotations

import dataclasses
import json
import math
import pathlib
from collections.abc import Mapping, Sequence
from typing import Any

from dmljax._src.text import matches_filters

__all__ = [
    "COMPILE_TARGET_RATIO",
    "JNP_NUMPY_INT64",
    "NUMPY_INT64",
    "TARGET_PLATFORMS",
    "CaseResult",
    "EagerResult",
    "Report",
    "case_misses",
    "eager_misses",
    "ratio",
    "shape_of",
    "speed_misses",
    "targets_apply",
]

# performance.md §0: compiling a dmljax op may cost at most 1.2x the jnp form.
COMPILE_TARGET_RATIO = 1.2
FORMAT = "dmljax-bench"
# 2: target_ratio may be null (a case reported only), and min_pct_of_copy is recorded.
# 3: more_work is recorded (a version-2 file reads as more_work false).
# 4: separate_ratio and time_s["separate"] for graph cases (absent in older files).
# 5: min_separate_ratio (a version-4 file reads as 1).
FORMAT_VERSION = 5


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """``numerator / denominator``, or None when either is missing or the denominator is 0."""
    if numerator is None or denominator is None or denominator == 0:
        return None
    return numerator / denominator


@dataclasses.dataclass(frozen=True, kw_only=True)
class CaseResult:
    """Every figure of one timed case. Times are seconds per call (medians).

    Attributes:
        name, operator, target_ratio, min_pct_of_copy, more_work: from the case; a
            None target_ratio marks a case reported only, held to no target against
            jnp; ``more_work`` one whose time is held to its target, but not its
            kernels or compile time.
        args: the operands, e.g. ``["float32[4096,4096]"]``.
        donated: whether the case ran in place (output chained into the donated operand).
        bytes_moved: the ideal bytes of one call.
        equal: whether dmljax and jnp gave the same output (checked before timing).
        error: what went wrong, if the case could not run or its outputs differ.
        kernels: compiled ENTRY instructions that do work, of ``dmljax`` and ``jnp``.
        copy_ops: ``copy`` instructions in each ENTRY (an operand copy defeats donation).
        compile_s: median compile time of ``dmljax`` and ``jnp``; the samples are
            in ``compile_samples_s``, the first one cold.
        time_s: median per-call time of ``dmljax``, ``jnp``, ``jnp_again`` (the
            A/A row: the jnp program again) and ``copy`` (``x + 1`` over the same bytes).
        samples_s: the per-call time of each group, per contender.
        gbps: ``bytes_moved / time`` in GB/s (1e9 B/s) for each contender.
        pct_of_copy: ``dmljax`` and ``jnp`` bandwidth as % of the copy's.
        ratio: dmljax time / jnp time; ``aa_ratio``: jnp again / jnp (the noise).
        separate_ratio: for a graph, the time of its nodes compiled one by one
            (``time_s["separate"]``) over dmljax's; it must exceed
            ``min_separate_ratio`` (from the case).
        compile_ratio: dmljax compile time / jnp compile time.
        misses: each target this case missed, in words.
    """

    name: str
    operator: str
    target_ratio: float | None
    args: list[str]
    donated: bool
    min_pct_of_copy: float | None = None
    more_work: bool = False
    min_separate_ratio: float = 1.0
    bytes_moved: int = 0
    equal: bool = False
    error: str | None = None
    kernels: dict[str, int] = dataclasses.field(default_factory=dict)
    copy_ops: dict[str, int] = dataclasses.field(default_factory=dict)
    compile_s: dict[str, float] = dataclasses.field(default_factory=dict)
    compile_samples_s: dict[str, list[float]] = dataclasses.field(default_factory=dict)
    time_s: dict[str, float] = dataclasses.field(default_factory=dict)
    samples_s: dict[str, list[float]] = dataclasses.field(default_factory=dict)
    gbps: dict[str, float] = dataclasses.field(default_factory=dict)
    pct_of_copy: dict[str, float] = dataclasses.field(default_factory=dict)
    ratio: float | None = None
    aa_ratio: float | None = None
    separate_ratio: float | None = None
    compile_ratio: float | None = None
    misses: list[str] = dataclasses.field(default_factory=list)


def speed_misses(result: CaseResult) -> list[str]:
    """The speed targets a case missed: its time against jnp's and its share of the copy's."""
    misses: list[str] = []
    target = result.target_ratio
    if target is not None and result.ratio is not None and result.ratio > target:
        noise = f", A/A {result.aa_ratio:.3f}" if result.aa_ratio is not None else ""
        misses.append(f"time dmljax/jnp {result.ratio:.3f} > {target:.3f}{noise}")
    separate, least = result.separate_ratio, result.min_separate_ratio
    if separate is not None and separate <= least:
        misses.append(f"nodes one by one / graph {separate:.3f} <= {least:g}: the graph is "
                      "not that much faster")  # fmt: skip
    pct = result.pct_of_copy.get("dmljax")
    if result.min_pct_of_copy is not None and pct is not None and pct < result.min_pct_of_copy:
        misses.append(f"dmljax at {pct:.1f}% of copy < {result.min_pct_of_copy:.0f}%")
    return misses


def case_misses(result: CaseResult) -> list[str]:
    """The targets a case missed: speed, kernel count and compile time.

    A case reported only (no ``target_ratio``) is held to its copy target
    alone, and a case with ``more_work`` to its speed targets alone: their
    dmljax call does more than its jnp form, so neither its kernels nor its
    compile time are compared with jnp's.
    """
    misses = speed_misses(result)
    if result.target_ratio is None or result.more_work:
        return misses
    if result.kernels and result.kernels["dmljax"] > result.kernels["jnp"]:
        misses.append(f"kernels {result.kernels['dmljax']} > jnp's {result.kernels['jnp']}")
    if result.compile_ratio is not None and result.compile_ratio > COMPILE_TARGET_RATIO:
        misses.append(
            f"compile dmljax/jnp {result.compile_ratio:.2f} > {COMPILE_TARGET_RATIO:.2f} "
            f"({1e3 * result.compile_s['dmljax']:.1f} ms vs {1e3 * result.compile_s['jnp']:.1f} ms)"
        )
    return misses


@dataclasses.dataclass(frozen=True, kw_only=True)
class EagerResult:
    """The per-call cost of an operator on tiny arrays, in microseconds.

    Attributes:
        name, operator, target_ratio: from the case.
        calls: calls timed per contender and mode.
        equal: whether the three calls gave the same values.
        error: what went wrong, if anything.
        us: per-call microseconds, ``{mode: {contender: us}}`` with modes ``sync``
            (each call waited for) and ``pipelined`` (one wait per group), and
            contenders ``functional`` and ``desc`` (dmljax's two faces; a graph has
            only ``desc``) and ``jnp`` (a jitted, compiled jnp call).
        ratios: ``{mode: {face: face / jnp}}``, the median of the round-by-round
            ratios (:func:`~dmljax._src.bench.timing.paired_ratio`), so not always
            the ratio of the two medians in ``us``.
        misses: each target missed, in words.
    """

    name: str
    operator: str
    target_ratio: float
    calls: int = 0
    equal: bool = False
    error: str | None = None
    us: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict)
    ratios: dict[str, dict[str, float | None]] = dataclasses.field(default_factory=dict)
    misses: list[str] = dataclasses.field(default_factory=list)


NUMPY_INT64 = "numpy int64"
"""The contender of an eager case that passes its indices as a NumPy int64 array."""
JNP_NUMPY_INT64 = "jnp numpy int64"
"""Its baseline: the jitted jnp call with the same NumPy int64 array, which pays the same
copy of a host array to the device (on a GPU, most of the call)."""


def eager_misses(result: EagerResult) -> list[str]:
    """Each face and mode whose per-call time exceeds ``target_ratio`` times jnp's (a call
    with NumPy indices: times jnp's with the same NumPy indices)."""
    misses: list[str] = []
    for mode, faces in result.ratios.items():
        for face, value in faces.items():
            base = JNP_NUMPY_INT64 if face == NUMPY_INT64 else "jnp"
            if value is not None and value > result.target_ratio:
                misses.append(
                    f"{face} {mode} {result.us[mode][face]:.1f} us = {value:.2f}x {base} "
                    f"({result.us[mode][base]:.1f} us) > {result.target_ratio:.2f}x"
                )
    return misses


def _finite(value: Any) -> Any:
    # JSON has no NaN or infinity; a figure that is not finite is recorded as missing.
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _from_fields(cls: Any, data: Mapping[str, Any]) -> Any:
    names = {field.name for field in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


TARGET_PLATFORMS = frozenset({"gpu"})
"""The JAX platforms whose runs are held to the targets, which were set from NVIDIA H100 and
H200 measurements (docs/performance.md); elsewhere the ratios are reported for reference."""


def targets_apply(platform: str | None) -> bool:
    """Whether a run on ``platform`` (``jax.default_backend()``) is held to the targets."""
    return platform in TARGET_PLATFORMS


@dataclasses.dataclass(frozen=True, kw_only=True)
class Report:
    """A whole run: environment, settings, each case's figures and the misses."""

    environment: dict[str, Any]
    settings: dict[str, Any]
    cases: list[CaseResult]
    eager: list[EagerResult]

    @property
    def held_to_targets(self) -> bool:
        """Whether this run's platform has targets (the GPU's; none on the CPU)."""
        return targets_apply(self.environment.get("platform"))

    @property
    def misses(self) -> list[str]:
        """``"<case>: <miss>"`` for every target missed (none where no target applies)."""
        if not self.held_to_targets:
            return []
        return [
            f"{result.name}: {miss}"
            for result in (*self.cases, *self.eager)
            for miss in result.misses
        ]

    @property
    def failures(self) -> list[str]:
        """``"<case>: <error>"`` for every case that failed to run or disagreed with jnp."""
        return [
            f"{result.name}: {result.error}"
            for result in (*self.cases, *self.eager)
            if result.error is not None
        ]

    def to_json(self) -> dict[str, Any]:
        return _finite(
            {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                "environment": self.environment,
                "settings": self.settings,
                "cases": [dataclasses.asdict(result) for result in self.cases],
                "eager": [dataclasses.asdict(result) for result in self.eager],
                "misses": self.misses,
                "failures": self.failures,
            }
        )

    def write(self, path: str | pathlib.Path) -> None:
        """Writes the report as indented JSON."""
        text = json.dumps(self.to_json(), indent=2, allow_nan=False)
        pathlib.Path(path).write_text(text + "\n")

    @classmethod
    def read(cls, path: str | pathlib.Path) -> Report:
        """Reads a report written by :meth:`write`."""
        data = json.loads(pathlib.Path(path).read_text())
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f'{path} is not a dmljax bench result (no "format": "{FORMAT}").')
        return cls(
            environment=data["environment"],
            settings=data["settings"],
            cases=[_from_fields(CaseResult, item) for item in data["cases"]],
            eager=[_from_fields(EagerResult, item) for item in data["eager"]],
        )

    def select(self, filters: Sequence[str] | None) -> Report:
        """The cases whose name contains any of ``filters`` (case-insensitive); all for none."""
        return dataclasses.replace(
            self,
            cases=[result for result in self.cases if matches_filters(result.name, filters)],
            eager=[result for result in self.eager if matches_filters(result.name, filters)],
        )


def shape_of(array: Any) -> str:
    """``dtype[d0,d1,...]``, e.g. ``float32[4096,4096]``."""
    return f"{array.dtype}[{','.join(str(d) for d in array.shape)}]"
