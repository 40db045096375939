"""`python -m dmljax selftest` and the doc-example builders it shares with the tests."""

import os
import pathlib
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.custom_batching import custom_vmap

import dmljax as dml
from dmljax.__main__ import main
from dmljax._src import doc_examples, selftest
from tests import helpers

REPO = pathlib.Path(dml.__file__).parents[1]
BUILT = [e for e in doc_examples.entries() if e["op"] in doc_examples.BUILDERS]


# --- The doc-example builders ---------------------------------------------------------------------


@pytest.mark.parametrize("entry", BUILT, ids=lambda e: e["id"])
def test_every_doc_example_with_a_builder_checks_out(entry):
    outcome = doc_examples.check(entry)
    assert outcome.passed, outcome.detail
    if entry["status"] == doc_examples.REFUSED_STATUS:
        assert outcome.detail.startswith("refused: ")


def test_builders_cover_tile_and_gather_and_match_the_test_helpers():
    assert {"DML_OPERATOR_TILE", "DML_OPERATOR_GATHER"} <= set(doc_examples.BUILDERS)
    example = doc_examples.build(doc_examples.entry("gather-ex5"))
    raw = helpers.doc_example("gather-ex5")
    np.testing.assert_array_equal(
        example.inputs[0], helpers.tensor_of(raw["inputs"]["InputTensor"])
    )
    np.testing.assert_array_equal(
        example.inputs[1], helpers.tensor_of(raw["inputs"]["IndicesTensor"])
    )
    np.testing.assert_array_equal(example.expected, helpers.tensor_of(raw["expected"]))
    assert example.desc.index_dimensions == 2
    assert example.desc.indices_tensor.data_type is dml.DataType.UINT32


def test_entries_without_a_builder_or_without_data_are_skipped():
    outcome = doc_examples.check(doc_examples.entries("DML_OPERATOR_SPLIT")[0])
    assert outcome.passed is None
    assert outcome.detail == "no builder for this operator"
    shape_only = {**doc_examples.entry("tile-ex1"), "status": "shape-only"}
    outcome = doc_examples.check(shape_only)
    assert outcome.passed is None
    assert outcome.detail == "status shape-only has nothing to run"


def test_a_wrong_expected_output_fails_with_a_count():
    entry = doc_examples.entry("tile-ex1")
    expected = {**entry["expected"], "data": np.zeros((1, 1, 6, 9)).tolist()}
    outcome = doc_examples.check({**entry, "expected": expected})
    assert outcome.passed is False
    assert outcome.detail == "54 of 54 elements differ from the docs"


def test_an_accepted_as_written_example_fails():
    def lenient(e):  # builds the corrected desc whatever the entry says
        return doc_examples.BUILDERS["DML_OPERATOR_GATHER"](
            {**e, "attrs": {**e["attrs"], "IndexDimensions": 1}}
        )

    outcome = doc_examples.check(
        doc_examples.entry("gather-ex3-doc-as-written"), {"DML_OPERATOR_GATHER": lenient}
    )
    assert outcome.passed is False
    assert "accepted" in outcome.detail


# --- The sweep ------------------------------------------------------------------------------------


@pytest.mark.parametrize("op", sorted(selftest.SWEEPS))
@pytest.mark.parametrize("dtype", selftest.DATA_DTYPES, ids=str)
def test_each_sweep_draws_a_case_that_passes(op, dtype):
    case = selftest.SWEEPS[op](np.random.default_rng(11), dtype)
    assert len(case.batch) >= 2
    assert case.batch[0][case.linear_argnums[0]].dtype == dtype
    checked = selftest.check_sweep_case(case)
    assert checked[:3] == ["eager", "jit", "vmap"]
    assert ("jvp+grad" in checked) == bool(jnp.issubdtype(dtype, jnp.floating))


@jax.custom_vjp
def _doubled_gradient(x):
    return x[::-1]


def _forward(x):
    return x[::-1], None


def _backward(residual, cotangent):
    del residual
    return (2 * cotangent[::-1],)


_doubled_gradient.defvjp(_forward, _backward)


def _reverse_case(fn):
    xs = tuple(np.arange(4, dtype=np.float32) + k for k in range(2))
    return selftest.SweepCase(
        label="reverse",
        fn=fn,
        batch=tuple((x,) for x in xs),
        expected=tuple(x[::-1] for x in xs),
        linear_argnums=(0,),
    )


def test_the_sweep_catches_a_wrong_gradient():
    assert selftest.check_sweep_case(_reverse_case(lambda x: x[::-1])) == [
        "eager", "jit", "vmap", "jvp+grad"
    ]  # fmt: skip
    with pytest.raises(AssertionError, match="grad"):
        selftest.check_sweep_case(_reverse_case(_doubled_gradient))


@custom_vmap
def _unbatchable_reverse(x):
    return x[::-1]


@_unbatchable_reverse.def_vmap
def _forgets_to_reverse(axis_size, in_batched, x):  # right for one array, wrong for a batch
    del axis_size
    return x, in_batched[0]


def test_the_sweep_catches_a_wrong_value_under_vmap():
    with pytest.raises(AssertionError, match="vmap"):
        selftest.check_sweep_case(_reverse_case(_unbatchable_reverse))


# --- The command ----------------------------------------------------------------------------------


def test_python_dash_m_dmljax_selftest_passes():
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "dmljax", "selftest"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert f"on {jax.default_backend()}: " in out.splitlines()[0]
    for entry in BUILT:
        assert entry["id"] in out
    assert "FAIL " not in out
    assert "DML_OPERATOR_SPLIT x5: no builder for this operator" in out
    assert out.rstrip().splitlines()[-1].startswith("selftest passed: ")
    for op in selftest.SWEEPS:
        sweep_rows = [
            line for line in out.splitlines()
            if line.startswith("sweep") and op.removeprefix("DML_OPERATOR_") in line
        ]  # fmt: skip
        assert len(sweep_rows) == len(selftest.DATA_DTYPES)
        assert any("jvp+grad" in row for row in sweep_rows)


def test_a_broken_builder_makes_the_exit_status_1(monkeypatch, capsys):
    def swapped(e):  # repeats in the wrong order: the output desc no longer fits
        return dml.TileOperatorDesc(
            input_tensor=doc_examples.tensor_desc_of(e["inputs"]["InputTensor"]),
            output_tensor=doc_examples.tensor_desc_of(e["expected"]),
            repeats=tuple(reversed(e["attrs"]["Repeats"])),
        )

    monkeypatch.setitem(doc_examples.BUILDERS, "DML_OPERATOR_TILE", swapped)
    assert main(["selftest", "--draws", "0"]) == 1
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "tile-ex1" in line)
    assert "FAIL" in row
    assert "InvalidArgumentError" in row
    assert "selftest FAILED: " in out


def test_a_broken_sweep_makes_the_exit_status_1(monkeypatch, capsys):
    def off_by_one(rng, dtype):
        case = selftest.tile_sweep(rng, dtype)
        wrong = tuple(e[None] for e in case.expected)  # an extra leading dimension
        return selftest.SweepCase(case.label, case.fn, case.batch, wrong, case.linear_argnums)

    monkeypatch.setitem(selftest.SWEEPS, "DML_OPERATOR_TILE", off_by_one)
    assert main(["selftest", "--draws", "2"]) == 1
    out = capsys.readouterr().out
    failed = [line for line in out.splitlines() if line.startswith("sweep") and " FAIL " in line]
    assert len(failed) == 2
    assert all("TILE" in line and "eager: got" in line for line in failed)


def test_negative_draws_is_a_usage_error():
    with pytest.raises(SystemExit) as e:
        main(["selftest", "--draws", "-1"])
    assert e.value.code == 2
