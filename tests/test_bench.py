"""`python -m dmljax bench`: the suite's cases, the figures it records, and its command line.

These tests check what the benchmark does and reports, never how fast anything is.
"""

import dataclasses
import json
import math
import pathlib
import re
import sys

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax
from dmljax.__main__ import main
from dmljax._src.bench import cases, operands, plot
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.bench.command import select_cases
from dmljax._src.bench.report import format_report
from dmljax._src.bench.results import (
    CaseResult,
    EagerResult,
    Report,
    case_misses,
    eager_misses,
    speed_misses,
)
from dmljax._src.bench.run import QUICK, run_case
from dmljax._src.checking import selftest
from tests import helpers

ALL_CASES = cases.all_cases()
TIMED = [case for case in ALL_CASES if isinstance(case, Case)]
EAGER = [case for case in ALL_CASES if isinstance(case, EagerCase)]
REPO = pathlib.Path(dmljax.__file__).parents[1]
# The command's run covers each kind of case: timed against a copy, donated, a graph, and
# eager with NumPy indices. Every case's operands and agreement with jnp are checked below
# in-process, case by case.
QUICK_FILTERS = ("donated", "graph", "gather rows", "gather eager")
QUICK_CASES = select_cases(ALL_CASES, QUICK_FILTERS)


# --- The suite ------------------------------------------------------------------------------------


def _registered_operators():
    """DirectML's name of every operator compile_operator knows, e.g. ``"TILE"``."""
    return {operator.name.removeprefix("DML_OPERATOR_") for operator in dmljax.OPERATORS}


def test_case_names_are_unique_and_every_operator_has_both_kinds():
    names = [case.name for case in ALL_CASES]
    assert len(names) == len(set(names))
    registered = _registered_operators()
    assert {"TILE", "GATHER", "GATHER_ELEMENTS", "SCATTER", "SLICE1"} <= registered
    # An operator without a face of its own (SLICE, GATHER_ND1) lowers through the operator
    # whose face serves it, and that one's cases time it; it may add cases of its own.
    served = {
        (operator.served_by or operator.name).removeprefix("DML_OPERATOR_")
        for operator in dmljax.OPERATORS
    }
    assert served | {"GRAPH"} <= {case.operator for case in ALL_CASES} <= registered | {"GRAPH"}
    for operator in served | {"GRAPH"}:
        assert any(case.operator == operator for case in TIMED), operator
        assert any(case.operator == operator for case in EAGER), operator


@pytest.mark.parametrize(
    ("name", "least", "copy"),
    [("graph 6 nodes", 1.0, None), ("graph 8 element-wise nodes", 4.0, 90.0)],
)
def test_the_graph_rows_time_one_program_against_jnp_and_its_nodes_one_by_one(name, least, copy):
    (graph,) = [case for case in TIMED if case.name == name]
    (eager,) = [case for case in EAGER if case.name == f"{name} eager"]
    assert (graph.target_ratio, eager.target_ratio) == (1.05, 1.1)
    assert (graph.min_separate_ratio, graph.min_pct_of_copy) == (least, copy)
    assert graph.separate_fn is not None
    assert eager.functional is None
    result = run_case(graph, jax.random.key(0), small=True, settings=QUICK, progress=lambda _: None)
    assert result.error is None
    assert result.equal
    # Reported and held to its least ratio by the bench, never by a timed test.
    assert result.separate_ratio == pytest.approx(
        result.time_s["separate"] / result.time_s["dmljax"]
    )
    slower = dataclasses.replace(result, separate_ratio=least * 0.9)
    slower = dataclasses.replace(slower, misses=case_misses(slower))
    text = format_report(Report(environment={"platform": "gpu"}, settings={}, cases=[slower],
                                eager=[]))  # fmt: skip
    assert "one by one" in text
    assert f"<= {least:g}: the graph is not that much faster" in text


def test_the_suite_holds_each_regime_and_its_target():
    targets = {case.name: (case.target_ratio, case.min_pct_of_copy) for case in TIMED}
    assert targets["gather rows"] == (1.05, 85.0)
    assert targets["gather_elements axis 1"] == (1.05, None)
    assert targets["gather_elements axis 0"] == (pytest.approx(1 / 2.5), None)
    assert targets["scatter axis 1"] == (1.05, None)
    assert targets["scatter axis 1 donated"] == (1.05, None)
    assert targets["scatter axis 0"] == (pytest.approx(1 / 1.8), None)
    assert targets["scatter axis 1 deterministic"] == (1.5, None)
    assert targets["scatter axis 1 donated deterministic"] == (1.5, None)
    assert targets["scatter axis 0 deterministic"] == (pytest.approx(1.5 / 1.8), None)
    assert targets["gather_nd rows"] == (1.05, 85.0)
    assert targets["gather_nd points"] == (1.05, None)
    assert targets["scatter_nd rows"] == (1.05, None)
    assert targets["scatter_nd rows deterministic"] == (1.5, None)
    assert targets["scatter_nd segment sum"] == (1.05, None)
    more_work = [case.name for case in TIMED if case.more_work]
    assert more_work == [
        "scatter axis 1 deterministic",
        "scatter axis 1 donated deterministic",
        "scatter axis 0 deterministic",
        "scatter_nd rows deterministic",
    ]
    assert targets["slice1 reversal"] == (1.05, 85.0)
    assert targets["slice1 [::-2, ::-2]"] == (1.05, None)
    assert targets["tile NHWC-strided input"] == (1.1, None)
    assert targets["slice1 NHWC-strided input"] == (1.1, None)
    donated = [case.name for case in TIMED if case.donated is not None]
    assert donated == ["scatter axis 1 donated", "scatter axis 1 donated deterministic"]


@pytest.mark.parametrize(
    "case", [c for c in TIMED if c.operator == "SCATTER"], ids=lambda case: case.name
)
def test_scatter_cases_write_each_target_once(case):
    # Unique targets make every correct scatter write the same output: the bit-for-bit check
    # against jnp then means something, and no duplicate decides a winner.
    x, idx, _ = case.make_args(jax.random.key(5), True)
    axis = next(d for d in range(x.ndim) if idx.shape[d] != x.shape[d])  # half of each line
    lines = np.sort(np.moveaxis(np.asarray(idx), axis, -1), axis=-1)
    assert np.all(np.diff(lines, axis=-1) > 0)
    assert lines.min() >= 0
    assert lines.max() < x.shape[axis]


@pytest.mark.parametrize("case", TIMED, ids=lambda case: case.name)
def test_timed_case_builds_small_random_operands_and_agrees_with_jnp(case):
    args = case.make_args(jax.random.key(1), True)
    assert all(isinstance(a, jax.Array) for a in args)
    assert sum(a.nbytes for a in args) <= 16 * 2**20  # quick sizes stay a few MiB
    floats = [a for a in args if jnp.issubdtype(a.dtype, jnp.floating)]
    assert all(np.any(np.asarray(a) != 0) for a in floats)  # random data, never zeros
    ours, theirs = selftest.in_one_program([(case.dmljax_fn, args), (case.jnp_fn, args)])
    chex.assert_trees_all_equal(ours, theirs)  # an array, or a tuple (SPLIT)
    assert case.bytes_moved(args) >= sum(x.nbytes for x in jax.tree.leaves(ours))
    if case.donated is not None:
        assert (ours.shape, ours.dtype) == (args[case.donated].shape, args[case.donated].dtype)


@pytest.mark.parametrize("case", EAGER, ids=lambda case: case.name)
def test_eager_case_faces_agree_on_tiny_operands(case):
    args = case.make_args(jax.random.key(2))
    assert sum(a.size for a in args) <= 1024
    # The values, raveled: a desc face may hold them in a padded (4-D) shape.
    expected = _raveled(jax.jit(case.jnp_fn)(*args))
    desc_args = case.operands_of_desc(args)
    desc = case.desc(*desc_args)
    if isinstance(desc, dmljax.GraphDesc):
        assert case.functional is None  # a graph has no functional face
        np.testing.assert_array_equal(_raveled(dmljax.compile_graph(desc)(*desc_args)), expected)
        return
    np.testing.assert_array_equal(_raveled(case.functional(*args)), expected)
    np.testing.assert_array_equal(_raveled(dmljax.compile_operator(desc)(*desc_args)), expected)
    if case.numpy_indices is not None:
        position = case.numpy_indices
        assert jnp.issubdtype(args[position].dtype, jnp.integer)
        numpy_args = [np.asarray(a, np.int64) if i == position else a for i, a in enumerate(args)]
        np.testing.assert_array_equal(_raveled(case.functional(*numpy_args)), expected)


def test_the_eager_check_takes_a_nan_where_jnp_has_a_nan():
    # BIT_OR of two random floats makes NaNs; the faces agree where both give one.
    from dmljax._src.bench.run import _same_values

    values = np.array([np.nan, 1.0], np.float32)
    assert _same_values(values, values.copy())
    assert not _same_values(values, np.array([np.nan, 2.0], np.float32))
    assert not _same_values(values.astype(np.float16), values)
    assert _same_values(np.array([1, 2], np.uint8), np.array([1, 2], np.uint8))


def test_every_eager_case_of_an_operator_with_indices_times_numpy_indices():
    from dmljax._src.face import Indices

    with_indices = {
        op.name.removeprefix("DML_OPERATOR_")
        for op in dmljax.OPERATORS
        if op.face is not None and any(isinstance(s, Indices) for s in op.face._arrays)
    }
    assert with_indices
    for case in EAGER:
        assert (case.numpy_indices is not None) == (case.operator in with_indices), case.name


def _raveled(output):
    """Every value of an output (an array or a tuple of them), in order."""
    return np.concatenate([np.ravel(x) for x in jax.tree.leaves(output)])


def _trivial_case(**fields):
    """A Case of no operands, with ``fields`` changed: for checks of its own fields."""
    return Case(name="t", operator="X", make_args=lambda key, quick: (),
                dmljax_fn=lambda: jnp.zeros(1), jnp_fn=lambda: jnp.zeros(1),
                bytes_moved=lambda args: 0, **fields)  # fmt: skip


def test_a_case_donates_at_most_one_operand():
    with pytest.raises(ValueError, match="at most one operand"):
        _trivial_case(donate_argnums=(0, 1))


def _scatter_rows(key, quick):
    del quick
    x_key, index_key, update_key = jax.random.split(key, 3)
    x = operands.normal(x_key, (256, 16))
    rows = operands.permutation(index_key, 256)[:64]
    return x, rows, operands.normal(update_key, (64, 16))


def test_a_donated_case_chains_each_output_into_the_next_call():
    # A call on a deleted (donated) buffer raises, so a clean run shows the chaining works.
    case = Case(
        name="scatter rows in place",
        operator="SCATTER",
        make_args=_scatter_rows,
        dmljax_fn=lambda x, i, u: x.at[i].set(u, unique_indices=True),
        jnp_fn=lambda x, i, u: x.at[i].set(u),
        bytes_moved=lambda args: 2 * args[2].nbytes + args[1].nbytes,
        donate_argnums=(0,),
    )
    result = run_case(case, jax.random.key(3), small=True, settings=QUICK, progress=lambda m: None)
    assert result.error is None
    assert result.equal
    assert result.donated
    assert set(result.time_s) == {"dmljax", "jnp", "jnp_again", "copy"}


def test_an_unequal_case_is_a_failure_without_figures():
    case = Case(
        name="wrong",
        operator="TILE",
        make_args=lambda key, quick: (operands.normal(key, (8, 8)),),
        dmljax_fn=lambda x: x + 1,
        jnp_fn=lambda x: x,
        bytes_moved=lambda args: 2 * args[0].nbytes,
    )
    result = run_case(case, jax.random.key(4), small=True, settings=QUICK, progress=lambda m: None)
    assert result.error == "dmljax and jnp outputs differ in 64 of 64 elements"
    assert not result.equal
    assert not result.time_s


# --- Targets --------------------------------------------------------------------------------------


def _result(**figures):
    base = CaseResult(name="c", operator="TILE", target_ratio=1.05, args=[], donated=False)
    return dataclasses.replace(base, **figures)


def test_a_case_target_is_positive_or_none_and_a_copy_share_is_a_percentage():
    case = _trivial_case
    assert case(target_ratio=None).target_ratio is None
    assert case(min_pct_of_copy=85.0).min_pct_of_copy == 85.0
    with pytest.raises(ValueError, match="target_ratio must be > 0 or None"):
        case(target_ratio=0.0)
    for pct in (0.0, 101.0):
        with pytest.raises(ValueError, match=r"min_pct_of_copy must be in \(0, 100\]"):
            case(min_pct_of_copy=pct)


def test_case_misses_name_each_target_missed():
    met = _result(
        ratio=1.04, aa_ratio=1.0, kernels={"dmljax": 1, "jnp": 1}, compile_ratio=1.2,
        compile_s={"dmljax": 0.12, "jnp": 0.1},
    )  # fmt: skip
    assert case_misses(met) == []
    missed = _result(
        ratio=1.2, aa_ratio=1.01, kernels={"dmljax": 2, "jnp": 1}, compile_ratio=1.5,
        compile_s={"dmljax": 0.15, "jnp": 0.1},
    )  # fmt: skip
    assert case_misses(missed) == [
        "time dmljax/jnp 1.200 > 1.050, A/A 1.010",
        "kernels 2 > jnp's 1",
        "compile dmljax/jnp 1.50 > 1.20 (150.0 ms vs 100.0 ms)",
    ]
    assert case_misses(_result(ratio=0.5, target_ratio=1 / 1.8)) == []
    assert case_misses(_result(ratio=0.6, target_ratio=1 / 1.8))[0].startswith("time")


def test_a_copy_share_below_its_target_is_a_miss():
    at_target = _result(ratio=1.0, min_pct_of_copy=85.0, pct_of_copy={"dmljax": 85.0, "jnp": 90.0})
    assert case_misses(at_target) == []
    below = dataclasses.replace(at_target, pct_of_copy={"dmljax": 84.9, "jnp": 90.0})
    assert case_misses(below) == ["dmljax at 84.9% of copy < 85%"]
    # jnp's share is no target: only dmljax's own bandwidth counts.
    assert case_misses(dataclasses.replace(below, min_pct_of_copy=None)) == []


def test_a_case_reported_only_misses_nothing_against_jnp():
    # Deterministic scatter does more work than its jnp form: slower, more kernels, longer
    # compiles are its cost, shown but never a miss. A share of the copy still is.
    costly = _result(
        target_ratio=None, ratio=1.9, aa_ratio=1.0, kernels={"dmljax": 4, "jnp": 2},
        compile_ratio=1.4, compile_s={"dmljax": 0.14, "jnp": 0.1},
        pct_of_copy={"dmljax": 16.0, "jnp": 31.0},
    )  # fmt: skip
    assert case_misses(costly) == []
    held = dataclasses.replace(costly, min_pct_of_copy=20.0)
    assert case_misses(held) == ["dmljax at 16.0% of copy < 20%"]
    assert speed_misses(held) == case_misses(held)


def test_a_case_with_more_work_is_held_to_its_time_only():
    # deterministic=True scatter_nd: within 1.5x of the plain overwrite, with the kernels and
    # compile time of its extra scatter-max and gather shown but never a miss.
    costly = _result(
        target_ratio=1.5, more_work=True, ratio=1.2, aa_ratio=1.0,
        kernels={"dmljax": 4, "jnp": 2}, compile_ratio=1.4,
        compile_s={"dmljax": 0.14, "jnp": 0.1},
    )  # fmt: skip
    assert case_misses(costly) == []
    slow = dataclasses.replace(costly, ratio=1.6)
    assert case_misses(slow) == ["time dmljax/jnp 1.600 > 1.500, A/A 1.000"]


def test_the_report_shows_each_kind_of_target(capsys):
    figures = {
        "ratio": 1.0, "aa_ratio": 1.0, "kernels": {"dmljax": 4, "jnp": 2}, "compile_ratio": 1.4,
        "compile_s": {"dmljax": 0.14, "jnp": 0.1},
    }  # fmt: skip
    reported = _result(name="reported case", target_ratio=None, **figures)
    floor = _result(
        name="floor case", min_pct_of_copy=85.0, pct_of_copy={"dmljax": 50.0, "jnp": 95.0},
        **{**figures, "kernels": {"dmljax": 1, "jnp": 1}, "compile_ratio": 1.0},
    )  # fmt: skip
    results = [dataclasses.replace(r, misses=case_misses(r)) for r in (reported, floor)]
    report = Report(environment={"platform": "gpu"}, settings={}, cases=results, eager=[])
    lines = format_report(report).splitlines()
    speed, bandwidth, build = [line for line in lines if line.startswith("reported case")]
    assert speed.split()[-2:] == ["reported", "-"]
    assert bandwidth.split()[-2:] == ["-", "-"]
    assert build.split()[-5:] == ["-", "140.0", "100.0", "1.40", "-"]  # no kernel/compile verdict
    _, floor_bandwidth, _ = [line for line in lines if line.startswith("floor case")]
    assert floor_bandwidth.split()[-3:] == [">=", "85", "MISS"]
    assert "!!!   floor case: dmljax at 50.0% of copy < 85%" in lines
    assert not any(line.startswith("!!!   reported case") for line in lines)


def test_a_run_where_no_target_applies_says_so_and_misses_nothing():
    result = CaseResult(
        name="slow case", operator="TILE", args=[], donated=False, target_ratio=1.05, ratio=2.0
    )
    result = dataclasses.replace(result, misses=case_misses(result))
    assert result.misses  # on a GPU this would be a miss
    for platform, held in (("gpu", True), ("cpu", False), ("tpu", False)):
        report = Report(environment={"platform": platform}, settings={}, cases=[result], eager=[])
        text = format_report(report)
        assert report.held_to_targets is held
        assert bool(report.misses) is held
        assert ("MISSED TARGETS" in text) is held
        assert (f"No targets on {platform}" in text) is not held


def test_eager_misses_name_the_face_and_mode():
    result = EagerResult(
        name="e",
        operator="TILE",
        target_ratio=1.1,
        us={
            "sync": {"functional": 12.0, "desc": 10.0, "jnp": 10.0},
            "pipelined": {"functional": 5.0, "desc": 6.0, "jnp": 5.0},
        },
        ratios={
            "sync": {"functional": 1.2, "desc": 1.0},
            "pipelined": {"functional": 1.0, "desc": 1.2},
        },
    )
    assert eager_misses(result) == [
        "functional sync 12.0 us = 1.20x jnp (10.0 us) > 1.10x",
        "desc pipelined 6.0 us = 1.20x jnp (5.0 us) > 1.10x",
    ]
    numpy = dataclasses.replace(
        result,
        us={
            "sync": {
                "functional": 5.0,
                "desc": 5.0,
                "jnp": 5.0,
                "numpy int64": 13.0,
                "jnp numpy int64": 10.0,
            }
        },
        ratios={"sync": {"functional": 1.0, "desc": 1.0, "numpy int64": 1.3}},
    )
    assert eager_misses(numpy) == [
        "numpy int64 sync 13.0 us = 1.30x jnp numpy int64 (10.0 us) > 1.10x"
    ]


# --- The command line -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """One `bench --quick` of a case of each kind, with --json and --plot."""
    folder = tmp_path_factory.mktemp("bench")
    json_path, png_path = folder / "bench.json", folder / "bench.png"
    argv = ["bench", "--quick", "--json", str(json_path)]
    for text in QUICK_FILTERS:
        argv += ["--filter", text]
    has_matplotlib = _has_matplotlib()
    if has_matplotlib:
        argv += ["--plot", str(png_path)]
    with pytest.MonkeyPatch.context() as mp:
        captured = _Capture(mp)
        status = main(argv)
    return {
        "status": status,
        "stdout": captured.stdout(),
        "stderr": captured.stderr(),
        "json": json.loads(json_path.read_text()),
        "json_path": json_path,
        "png": png_path if has_matplotlib else None,
    }


class _Capture:
    """sys.stdout/sys.stderr into strings, for a module-scoped fixture (capsys is per test)."""

    def __init__(self, mp):
        import io

        self._out, self._err = io.StringIO(), io.StringIO()
        mp.setattr(sys, "stdout", self._out)
        mp.setattr(sys, "stderr", self._err)

    def stdout(self):
        return self._out.getvalue()

    def stderr(self):
        return self._err.getvalue()


def _has_matplotlib():
    try:
        plot.require_matplotlib()
    except plot.PlotUnavailableError:
        return False
    return True


def test_the_quick_run_holds_each_kind_of_case():
    kinds = {(isinstance(c, EagerCase), c.operator == "GRAPH") for c in QUICK_CASES}
    assert kinds == {(False, False), (False, True), (True, False), (True, True)}
    assert any(isinstance(c, Case) and c.donated is not None for c in QUICK_CASES)
    assert any(isinstance(c, EagerCase) and c.numpy_indices is not None for c in QUICK_CASES)


def test_quick_bench_exits_0_and_prints_every_chosen_case(quick_run):
    assert quick_run["status"] == 0
    out = quick_run["stdout"]
    for case in QUICK_CASES:
        assert case.name in out
    for case in ALL_CASES:  # e.g. "scatter axis 1" is in "scatter axis 1 donated"'s row
        if not any(case.name in chosen.name for chosen in QUICK_CASES):
            assert case.name not in out
    if jax.default_backend() == "gpu":
        assert "All targets met." in out or "MISSED TARGETS" in out
    else:  # the targets are a GPU's: a CPU run is held to none and says so
        assert f"No targets on {jax.default_backend()}" in out
        assert "MISS" not in out
    assert "FAILED" not in out
    # Progress lines go to stderr while it runs, one set per case.
    for number, case in enumerate(QUICK_CASES, start=1):
        assert f"case {number}/{len(QUICK_CASES)}: {case.name}" in quick_run["stderr"]


def test_quick_bench_json_holds_the_environment(quick_run):
    data = quick_run["json"]
    env = data["environment"]
    for key in ("jax", "jaxlib", "platform", "device_kind", "python", "date", "quick"):
        assert env[key] not in (None, "")
    assert "XLA_FLAGS" in env["environment_variables"]
    assert env["jax"] == jax.__version__
    assert env["platform"] == jax.default_backend()
    assert env["quick"] is True
    assert env["small_sizes"] is True
    assert data["settings"]["groups"] >= 1
    assert data["settings"]["calls"] >= 1


def _positive(value):
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def test_quick_bench_json_holds_every_figure_of_every_case(quick_run):
    data = quick_run["json"]
    assert [r["name"] for r in data["cases"]] == [c.name for c in QUICK_CASES if c in TIMED]
    assert [r["name"] for r in data["eager"]] == [c.name for c in QUICK_CASES if c in EAGER]
    settings = data["settings"]
    for r in data["cases"]:
        assert r["error"] is None
        assert r["equal"] is True
        assert r["bytes_moved"] > 0
        assert r["args"]
        for contender in ("dmljax", "jnp"):
            assert r["kernels"][contender] >= 1
            assert _positive(r["compile_s"][contender])
            assert len(r["compile_samples_s"][contender]) == settings["compiles"]
            assert _positive(r["pct_of_copy"][contender])
        for contender in ("dmljax", "jnp", "jnp_again", "copy"):
            assert _positive(r["time_s"][contender])
            assert _positive(r["gbps"][contender])
            assert len(r["samples_s"][contender]) == settings["groups"]
        for figure in ("ratio", "aa_ratio", "compile_ratio"):
            assert _positive(r[figure])
        case = next(case for case in TIMED if case.name == r["name"])
        assert (r["target_ratio"], r["min_pct_of_copy"]) == (
            case.target_ratio,
            case.min_pct_of_copy,
        )
        if r["donated"]:  # chained in place: XLA wrote into the donated buffer, no copy
            assert r["copy_ops"]["dmljax"] == 0
        held = data["environment"]["platform"] == "gpu"
        assert r["misses"] == (case_misses(CaseResult(**r)) if held else [])
    for r in data["eager"]:
        assert r["error"] is None
        assert r["calls"] == settings["eager_rounds"] * settings["eager_calls"]
        case = next(case for case in EAGER if case.name == r["name"])
        numpy = ("numpy int64",) if case.numpy_indices is not None else ()
        for mode in ("sync", "pipelined"):
            functional = ("functional",) if case.functional is not None else ()
            faces = (*functional, "desc", *numpy)
            timed = (*faces, "jnp", *(f"jnp {face}" for face in numpy))
            assert all(_positive(r["us"][mode][face]) for face in timed)
            assert all(_positive(r["ratios"][mode][face]) for face in faces)
    every_miss = [f"{r['name']}: {m}" for r in data["cases"] + data["eager"] for m in r["misses"]]
    assert data["misses"] == every_miss
    assert data["failures"] == []


def test_quick_bench_plot_is_a_png(quick_run):
    if quick_run["png"] is None:
        pytest.skip("matplotlib is not installed")
    png = quick_run["png"].read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png[16:20], "big") == plot.WIDTH_PX  # as wide as a docs page


def test_from_json_prints_and_replots_without_running(quick_run, tmp_path, capsys, monkeypatch):
    def no_running(*args, **kwargs):
        raise AssertionError("--from-json must not run the suite")

    monkeypatch.setattr(cases, "all_cases", no_running)
    argv = ["bench", "--from-json", str(quick_run["json_path"]), "--filter", "gather"]
    if _has_matplotlib():
        argv += ["--plot", str(tmp_path / "again.png")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "gather rows" in out
    assert "gather eager" in out
    assert "donated" not in out
    if _has_matplotlib():
        assert (tmp_path / "again.png").read_bytes()[:4] == b"\x89PNG"


def test_a_report_survives_its_json(quick_run, tmp_path):
    report = Report.read(quick_run["json_path"])
    report.write(tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text()) == quick_run["json"]


def test_from_json_refuses_other_files(tmp_path):
    path = tmp_path / "other.json"
    path.write_text("{}")
    with pytest.raises(ValueError, match="not a dmljax bench result"):
        Report.read(path)


def test_list_and_filter(capsys):
    assert main(["bench", "--list", "--filter", "GATHER"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"{case.name}\t{case.operator}\t{'timed' if isinstance(case, Case) else 'eager'}"
        for case in ALL_CASES
        if "gather" in case.name
    ]
    # Given again, a filter adds the cases it matches, in the suite's order.
    assert main(["bench", "--list", "--filter", "tile (", "--filter", "GATHER_ND "]) == 0
    names = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    assert names == [c.name for c in ALL_CASES if "tile (" in c.name or "gather_nd " in c.name]
    assert len(names) == 6


def test_a_filter_that_matches_nothing_exits_2(capsys):
    assert main(["bench", "--filter", "no such case"]) == 2
    assert "see --list" in capsys.readouterr().err


def test_from_json_with_running_options_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["bench", "--from-json", "x.json", "--quick"])
    assert e.value.code == 2
    assert "--from-json" in capsys.readouterr().err


def test_plot_without_matplotlib_says_how_to_install(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    monkeypatch.setattr(cases, "all_cases", lambda: pytest.fail("must fail before running"))
    assert main(["bench", "--quick", "--plot", str(tmp_path / "p.png")]) == 2
    assert 'pip install "dmljax[plot]"' in capsys.readouterr().err


def test_a_failing_case_exits_1_and_is_listed(monkeypatch, capsys, tmp_path):
    broken = Case(
        name="broken tile",
        operator="TILE",
        make_args=lambda key, quick: (operands.normal(key, (4, 4)),),
        dmljax_fn=lambda x: dmljax.tile(x, (1, 2)),
        jnp_fn=lambda x: jnp.tile(x, (2, 1)),
        bytes_moved=lambda args: 3 * args[0].nbytes,
    )
    monkeypatch.setattr(cases, "OPERATORS", (lambda: [broken],))
    json_path = tmp_path / "failed.json"
    assert main(["bench", "--quick", "--json", str(json_path)]) == 1
    out = capsys.readouterr().out
    assert "!!! 1 case(s) FAILED" in out
    assert "broken tile: dmljax gives float32[4,8], jnp gives float32[8,4]" in out
    assert json.loads(json_path.read_text())["failures"] == [
        "broken tile: dmljax gives float32[4,8], jnp gives float32[8,4]"
    ]


def test_python_dash_m_dmljax_runs_the_command_line():
    done = helpers.run_python("-m", "dmljax", "bench", "--list", timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"{ALL_CASES[0].name}\t{ALL_CASES[0].operator}\ttimed"


@pytest.mark.skipif(len(jax.devices()) < 2, reason="scaling needs several devices")
def test_scaling_runs_on_every_device_without_collectives(tmp_path, capsys):
    path = tmp_path / "scaling.json"
    assert main(["scaling", "--quick", "--json", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "GATHER" in printed
    assert "SCATTER" in printed
    record = json.loads(path.read_text())
    devices = {row["devices"] for row in record["results"]}
    assert devices == {1, len(jax.devices())}
    assert len(devices) == 2
    assert all(row["collectives"] == [] for row in record["results"])
    assert record["environment"]["jax"]


@pytest.mark.parametrize(
    "path", sorted((helpers.REPO / "docs").glob("bench-h*.json")), ids=lambda p: p.name
)
def test_saved_reports_print_within_120_columns_with_every_column_headed(path):
    document = json.loads(path.read_text())
    if document.get("format") != "dmljax-bench":
        pytest.skip("an adversarial or scaling run: printed as it runs, not from JSON")
    text = format_report(Report.read(str(path)))
    assert max(map(len, text.splitlines())) <= 120
    lines = text.splitlines()
    rules = [i for i, line in enumerate(lines) if line and set(line) <= {"-", " "}]
    assert rules  # each table's rule, under its header
    for i in rules:
        for run in re.finditer("-+", lines[i]):  # each column's span
            assert lines[i - 1][run.start() : run.end()].strip(), (lines[i - 1], run.span())
