"""``python -m dmljax bench --group adversarial``: the rows, their checks and their targets."""

import io
import json

import pytest

from dmljax.__main__ import main
from dmljax._src.bench import adversarial
from dmljax._src.bench.adversarial import Row, RowResult


def test_the_rows_cover_every_distribution_the_planner_must_survive():
    rows = adversarial.rows(quick=False)
    scatters = {(r.reduction, r.dtype, r.targets, r.order) for r in rows if r.reduction != "grad"}
    for reduction in ("add", "max", "mul"):
        for dtype in ("float32", "float16", "bfloat16", "int32"):
            for targets in (2**20, 1024, 16):
                for order in ("random", "sorted"):
                    assert (reduction, dtype, targets, order) in scatters
            assert (reduction, dtype, 1024, "equal") in scatters
            assert (reduction, dtype, 1, "equal") in scatters
    assert {r.updates for r in rows if r.reduction != "grad"} == {2**20}
    gradients = {(r.dtype, r.targets, r.updates, r.width) for r in rows if r.reduction == "grad"}
    assert gradients == {
        (d, v, 2**18, 128) for d in ("float32", "bfloat16") for v in (65536, 256, 4)
    }
    assert len({r.name for r in rows}) == len(rows)


def _run(text, tmp_path):
    out = io.StringIO()
    path = tmp_path / "adversarial.json"
    status = adversarial.adversarial(quick=True, json_path=str(path), filters=[text],
                                     seed=0, out=out, progress_out=io.StringIO())  # fmt: skip
    return status, out.getvalue(), json.loads(path.read_text())


def test_each_row_times_dmljax_jnp_and_every_candidate(tmp_path):
    status, text, document = _run("bfloat16 targets=16 sorted", tmp_path)
    assert status == 0
    names = [row["name"] for row in document["rows"]]
    assert names == [f"{r} bfloat16 targets=16 sorted" for r in ("add", "max", "mul")]
    for row in document["rows"]:
        assert row["failure"] is None
        expected = {"dmljax", "jnp", "f32acc", "priv32", "priv1024", "sortseg"}
        if row["reduction"] == "add":
            expected.add("onehot")
        if row["reduction"] in ("add", "mul"):
            # The deterministic plan, then each of its lowerings forced.
            expected |= {"dmljax_det", "dmljax_det_limbs", "dmljax_det_lanes", "dmljax_det_sort"}
        assert set(row["ms"]) == expected
        assert all(ms > 0 for ms in row["ms"].values())
        assert row["error"]["dmljax"] < 2**-6  # the bound itself failed no row
    assert "max bfloat16 targets=16 sorted" in text
    assert document["environment"]["jax"]


def test_rows_held_to_jnp_time_jnp_twice(tmp_path):
    status, _, document = _run("add float32 targets=16384 random", tmp_path)
    assert status == 0
    (row,) = document["rows"]
    assert {"dmljax", "jnp", "jnp_again", "sortseg"} <= set(row["ms"])


def test_embedding_gradient_rows(tmp_path):
    status, _, document = _run("grad gather bfloat16 vocab=4", tmp_path)
    assert status == 0
    (row,) = document["rows"]
    assert {"dmljax", "jnp", "segsum_f32", "priv32", "priv1024"} == set(row["ms"])
    assert row["error"]["dmljax"] < 2**-6


def test_a_row_misses_against_the_best_candidate_and_jnp():
    row = Row("float32", "add", 2**20, 2**20, "random")
    result = RowResult(row.name, "plan", ms={"dmljax": 1.2, "jnp": 1.0, "priv32": 0.5})
    assert result.misses(row) == ["2.40x priv32 (target 2.0x)", "1.200x jnp (target 1.05x)"]
    fine = RowResult(row.name, "plan", ms={"dmljax": 1.0, "jnp": 1.0, "priv32": 0.6})
    assert fine.misses(row) == []
    assert RowResult(row.name, "plan", failure="boom").misses(row) == ["boom"]


def test_a_wrong_dmljax_result_fails_the_row(monkeypatch):
    monkeypatch.setattr(adversarial, "_allowed", lambda row, args, expected: expected * 0 - 1)
    result = adversarial.run_row(Row("float32", "add", 16, 256, "random"), 0, groups=1, calls=1)
    assert result.failure
    assert "more than its rounding-error bound allows" in result.failure


def test_the_command_line_lists_rows_and_refuses_plots(capsys):
    assert main(["bench", "--group", "adversarial", "--list", "--filter", "grad"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 6
    with pytest.raises(SystemExit):
        main(["bench", "--group", "adversarial", "--plot", "x.png"])
