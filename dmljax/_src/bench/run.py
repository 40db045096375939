"""Running the cases: compile, check, time, and turn the times into figures."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import dmljax as dml
from dmljax._src.bench import hlo, operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.bench.results import (
    JNP_NUMPY_INT64,
    NUMPY_INT64,
    CaseResult,
    EagerResult,
    case_misses,
    eager_misses,
    ratio,
    shape_of,
)
from dmljax._src.bench.timing import (
    Contender,
    compile_seconds,
    interleave,
    paired_ratio,
    per_call_seconds,
)
from dmljax._src.text import describe_error

__all__ = ["FULL", "QUICK", "Settings", "run_case", "run_eager"]

Progress = Callable[[str], None]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Settings:
    """How long to measure.

    Attributes:
        groups: timed groups per contender (the median is over these).
        calls: back-to-back calls per group, ended by one block_until_ready.
        compiles: compilations per program (the median is over these).
        eager_rounds: rounds of eager calls per contender and mode.
        eager_calls: eager calls per round.
    """

    groups: int
    calls: int
    compiles: int
    eager_rounds: int
    eager_calls: int


# performance.md §5: R=5 groups of K=20 calls and 2000 eager calls; a few more groups are
# cheap. Eager ratios are medians of round-by-round ratios, and on a GPU a round of
# pipelined calls varies by several percent: contenders that run equal programs (a face's
# call jitted bare against jnp's) came out 0.95 to 1.04 apart over 15 rounds on an H200,
# so 45 rounds (9000 calls a contender, about 1.5 minutes for every eager case there).
FULL = Settings(groups=7, calls=20, compiles=5, eager_rounds=45, eager_calls=200)
QUICK = Settings(groups=7, calls=10, compiles=3, eager_rounds=9, eager_calls=40)


def _fresh(args: Sequence[jax.Array], donated: int | None) -> list[jax.Array]:
    # A donated operand is consumed by the call; give each call its own copy.
    fresh = list(args)
    if donated is not None:
        fresh[donated] = jnp.array(args[donated], copy=True)
    return fresh


def _copy_operand(key: jax.Array, nbytes: int) -> jax.Array:
    # `x + 1` over f32 reads and writes nbytes/2 each: the same traffic as the case.
    return operands.normal(key, (max(nbytes // 8, 1),))


def run_case(
    case: Case, key: jax.Array, *, small: bool, settings: Settings, progress: Progress
) -> CaseResult:
    """Compiles, checks and times one case; never raises for a failing case."""
    args_key, copy_key = jax.random.split(key)
    partial = CaseResult(
        name=case.name,
        operator=case.operator,
        target_ratio=case.target_ratio,
        min_pct_of_copy=case.min_pct_of_copy,
        min_separate_ratio=case.min_separate_ratio,
        more_work=case.more_work,
        args=[],
        donated=case.donated is not None,
    )
    try:
        args = case.make_args(args_key, small)
        jax.block_until_ready(args)
        partial = dataclasses.replace(partial, args=[shape_of(a) for a in args])
        return _measure(case, args, copy_key, partial, settings, progress)
    except Exception as error:  # a broken case is reported, and the others still run
        return dataclasses.replace(partial, error=describe_error(error))


def _measure(
    case: Case,
    args: tuple[jax.Array, ...],
    copy_key: jax.Array,
    result: CaseResult,
    settings: Settings,
    progress: Progress,
) -> CaseResult:
    donated = case.donated
    nbytes = int(case.bytes_moved(args))
    progress(f"{case.name}: {', '.join(result.args)}; {nbytes / 2**20:.1f} MiB moved per call")

    progress(f"{case.name}: compiling dmljax and jnp ({settings.compiles}x each)")
    fns = {"dmljax": case.dmljax_fn, "jnp": case.jnp_fn}
    compiled: dict[str, Any] = {}
    compile_samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(settings.compiles):
        for name, fn in fns.items():
            seconds, program = compile_seconds(fn, args, case.donate_argnums)
            compile_samples[name].append(seconds)
            compiled.setdefault(name, program)  # time the first, like a user's first jit
    result = dataclasses.replace(
        result, bytes_moved=nbytes, **_compile_figures(compiled, compile_samples)
    )

    ours = compiled["dmljax"](*_fresh(args, donated))
    theirs = compiled["jnp"](*_fresh(args, donated))
    difference = _difference(ours, theirs, case.relative_tolerance)
    if difference:
        return dataclasses.replace(result, error=difference)
    if donated is not None and shape_of(ours) != shape_of(args[donated]):
        return dataclasses.replace(
            result,
            equal=True,
            error=f"the output {shape_of(ours)} cannot be donated back as "
            f"operand {donated} ({shape_of(args[donated])})",
        )
    separate = case.separate_fn
    if separate is not None:
        difference = _difference(separate(*_fresh(args, donated)), theirs)
        if difference:
            return dataclasses.replace(result, error=f"nodes one by one: {difference}")
    del ours, theirs

    copy_x = _copy_operand(copy_key, nbytes)
    _, copy_program = compile_seconds(lambda x: x + 1, (copy_x,))
    contenders = {
        "dmljax": Contender(compiled["dmljax"], args, donated),
        "jnp": Contender(compiled["jnp"], args, donated),
        "jnp_again": Contender(compiled["jnp"], args, donated),
        "copy": Contender(copy_program, (copy_x,)),
    }
    if separate is not None:  # called as a user calls compiled operators, each jitted alone
        contenders["separate"] = Contender(separate, args, donated)
    progress(
        f"{case.name}: timing {settings.groups} groups x {settings.calls} calls "
        f"({', '.join(contenders)})"
    )
    samples = interleave(contenders, groups=settings.groups, calls=settings.calls)
    time_s = {name: per_call_seconds(values) for name, values in samples.items()}
    result = dataclasses.replace(
        result,
        equal=True,
        time_s=time_s,
        samples_s=samples,
        separate_ratio=ratio(time_s.get("separate"), time_s["dmljax"]),
        **_speed_figures(time_s, nbytes),
    )
    return dataclasses.replace(result, misses=case_misses(result))


def _compile_figures(programs: dict[str, Any], samples: dict[str, list[float]]) -> dict[str, Any]:
    """The kernels and operand copies in each compiled program, and its compile times."""
    compile_s = {name: per_call_seconds(values) for name, values in samples.items()}
    return {
        "kernels": {name: hlo.kernel_count(p) for name, p in programs.items()},
        "copy_ops": {name: hlo.entry_opcodes(p.as_text())["copy"] for name, p in programs.items()},
        "compile_s": compile_s,
        "compile_samples_s": samples,
        "compile_ratio": ratio(compile_s["dmljax"], compile_s["jnp"]),
    }


def _is_nan(x: Any) -> Any:
    return jnp.isnan(x) if jnp.issubdtype(x.dtype, jnp.inexact) else jnp.zeros(x.shape, bool)


def _same_values(ours: np.ndarray, theirs: np.ndarray) -> bool:
    """Whether two faces' outputs are equal, a NaN where the other has a NaN (a bit
    operation on random floats makes some: BIT_OR of two normals)."""
    nan_aware = bool(jnp.issubdtype(theirs.dtype, jnp.inexact))
    return ours.dtype == theirs.dtype and np.array_equal(ours, theirs, equal_nan=nan_aware)


def _apart(a: Any, b: Any, tolerance: float) -> Any:
    """Where ``a`` is not ``b`` (beyond ``tolerance`` times ``b``'s largest magnitude)."""
    if not tolerance:
        return a != b
    return jnp.abs(a - b) > tolerance * jnp.max(jnp.abs(b))


def _difference(ours: Any, theirs: Any, tolerance: float = 0.0) -> str:
    """How dmljax's output (an array, or a tuple of them: SPLIT) differs from jnp's:
    anywhere, or (``tolerance``) by more than that times jnp's largest magnitude."""
    ours_leaves, theirs_leaves = jax.tree.leaves(ours), jax.tree.leaves(theirs)
    ours_shapes = [shape_of(x) for x in ours_leaves]
    theirs_shapes = [shape_of(x) for x in theirs_leaves]
    if ours_shapes != theirs_shapes:
        return f"dmljax gives {', '.join(ours_shapes)}, jnp gives {', '.join(theirs_shapes)}"
    mismatches = sum(
        int(jnp.sum((_apart(a, b, tolerance)) & ~(_is_nan(a) & _is_nan(b))))  # NaN where jnp's
        for a, b in zip(ours_leaves, theirs_leaves, strict=True)
        if not bool(jnp.array_equal(a, b, equal_nan=True))
    )
    if mismatches:
        size = sum(x.size for x in ours_leaves)
        return f"dmljax and jnp outputs differ in {mismatches} of {size} elements"
    return ""


def _speed_figures(time_s: dict[str, float], nbytes: int) -> dict[str, Any]:
    """Bandwidth, share of the copy's, and the time ratios, from the median times."""
    return {
        "gbps": {name: nbytes / seconds / 1e9 for name, seconds in time_s.items()},
        "pct_of_copy": {name: 100 * time_s["copy"] / time_s[name] for name in ("dmljax", "jnp")},
        "ratio": ratio(time_s["dmljax"], time_s["jnp"]),
        "aa_ratio": ratio(time_s["jnp_again"], time_s["jnp"]),
    }


def run_eager(
    case: EagerCase, key: jax.Array, *, settings: Settings, progress: Progress
) -> EagerResult:
    """Times dmljax's two faces against a compiled jnp call on tiny arrays; never raises."""
    partial = EagerResult(name=case.name, operator=case.operator, target_ratio=case.target_ratio)
    try:
        return _measure_eager(case, key, partial, settings, progress)
    except Exception as error:  # a broken case is reported, and the others still run
        return dataclasses.replace(partial, error=describe_error(error))


def _measure_eager(
    case: EagerCase, key: jax.Array, result: EagerResult, settings: Settings, progress: Progress
) -> EagerResult:
    args = case.make_args(key)
    desc_args = case.operands_of_desc(args)
    # A plain jax.jit object, as user code calls it; the first call below compiles it.
    desc = case.desc(*desc_args)
    callables: dict[str, Callable[..., Any]] = {
        "desc": dml.compile_graph(desc)
        if isinstance(desc, dml.GraphDesc)
        else dml.compile_operator(desc),
        "jnp": jax.jit(case.jnp_fn),
    }
    if case.functional is not None:
        callables = {"functional": case.functional, **callables}
    arguments: dict[str, tuple[Any, ...]] = dict.fromkeys(callables, args)
    arguments["desc"] = desc_args
    if case.numpy_indices is not None and case.functional is not None:
        position = case.numpy_indices
        numpy_args = tuple(
            np.asarray(a, np.int64) if i == position else a for i, a in enumerate(args)
        )
        callables[NUMPY_INT64], callables[JNP_NUMPY_INT64] = case.functional, callables["jnp"]
        arguments[NUMPY_INT64] = arguments[JNP_NUMPY_INT64] = numpy_args
    outputs = {
        name: np.concatenate([np.ravel(x) for x in jax.tree.leaves(fn(*arguments[name]))])
        for name, fn in callables.items()
    }
    if not all(_same_values(out, outputs["jnp"]) for out in outputs.values()):
        return dataclasses.replace(result, error=f"{', '.join(callables)} give different values")
    calls = settings.eager_rounds * settings.eager_calls
    progress(f"{case.name}: {calls} calls per face, sync-per-call and pipelined")
    us: dict[str, dict[str, float]] = {}
    ratios: dict[str, dict[str, float | None]] = {}
    for mode, sync_each in (("sync", True), ("pipelined", False)):
        contenders = {name: Contender(fn, arguments[name]) for name, fn in callables.items()}
        samples = interleave(
            contenders,
            groups=settings.eager_rounds,
            calls=settings.eager_calls,
            sync_each=sync_each,
        )
        us[mode] = {name: 1e6 * per_call_seconds(values) for name, values in samples.items()}
        # Round by round: a tiny call's time drifts with the host by more than the
        # 10 % the target allows, and both calls of a round drift together.
        ratios[mode] = {
            face: paired_ratio(samples[face], samples["jnp"])
            for face in ("functional", "desc")
            if face in samples
        }
        if NUMPY_INT64 in samples:  # against jnp given the same host array
            ratios[mode][NUMPY_INT64] = paired_ratio(samples[NUMPY_INT64], samples[JNP_NUMPY_INT64])
    result = dataclasses.replace(result, calls=calls, equal=True, us=us, ratios=ratios)
    return dataclasses.replace(result, misses=eager_misses(result))
