"""`python -m dmljax selftest` and the doc-example builders it shares with the tests."""

import io
import json
import pathlib
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.custom_batching import custom_vmap

import dmljax as dml
from dmljax.__main__ import main
from dmljax._src.checking import doc_examples, reference, selftest, sweeps
from tests import helpers

REPO = pathlib.Path(dml.__file__).parents[1]
BUILT = [e for e in doc_examples.entries() if e["op"] in doc_examples.BUILDERS]

# The doc examples of DirectML features dmljax does not implement: the only ones skipped.
UNIMPLEMENTED = {
    "DML_TENSOR_DATA_TYPE_UINT4_PACKING",
}


def _registered_operators():
    """DirectML's name of every operator compile_operator knows, e.g. ``"DML_OPERATOR_TILE"``."""
    return {operator.name for operator in dml.OPERATORS}


# --- The doc-example builders ---------------------------------------------------------------------


def test_builders_cover_tile_and_gather_and_match_the_test_helpers():
    assert {"DML_OPERATOR_TILE", "DML_OPERATOR_GATHER"} <= set(doc_examples.BUILDERS)
    example = doc_examples.build(doc_examples.entry("gather-ex5"))
    raw = doc_examples.entry("gather-ex5")
    np.testing.assert_array_equal(
        example.inputs[0], doc_examples.tensor_of(raw["inputs"]["InputTensor"])
    )
    np.testing.assert_array_equal(
        example.inputs[1], doc_examples.tensor_of(raw["inputs"]["IndicesTensor"])
    )
    np.testing.assert_array_equal(example.expected, doc_examples.tensor_of(raw["expected"]))
    assert example.desc.index_dimensions == 2
    assert example.desc.indices_tensor.data_type is dml.DataType.UINT32


def test_every_implemented_operator_and_the_strided_views_have_a_builder():
    registered = _registered_operators()
    assert {"DML_OPERATOR_TILE", "DML_OPERATOR_SCATTER", "DML_OPERATOR_SLICE"} <= registered
    documented = {doc_examples.name_in_examples(op) for op in dml.OPERATORS}
    documented |= {"BUFFER_TENSOR_VIEW"}
    assert documented == set(doc_examples.BUILDERS)
    for op in documented:
        assert doc_examples.entries(op), f"no doc example of {op}"


def test_only_the_unimplemented_operators_are_skipped():
    without_builder = {e["op"] for e in doc_examples.entries()} - set(doc_examples.BUILDERS)
    assert without_builder == UNIMPLEMENTED
    runnable = doc_examples.CHECKED_STATUSES | {
        doc_examples.REFUSED_STATUS,
        doc_examples.SIZES_ONLY_STATUS,
    }
    assert [e["id"] for e in BUILT if e["status"] not in runnable] == []


def test_the_scatter_example_with_a_duplicate_index_runs_deterministic():
    example = doc_examples.build(doc_examples.entry("scatter-ex1"))
    x, indices, updates = example.inputs
    assert np.unique(indices).size < indices.size  # the docs write one element twice
    assert example.options == {"deterministic": True}
    # The docs' output is the reference's last-write-wins.
    np.testing.assert_array_equal(reference.scatter(x, indices, updates, axis=0), example.expected)
    op = dml.compile_operator(example.desc, **example.options)
    np.testing.assert_array_equal(op(*example.inputs), example.expected)


@pytest.mark.parametrize("entry", doc_examples.entries("BUFFER_TENSOR_VIEW"), ids=lambda e: e["id"])
def test_a_strided_view_is_read_through_a_strided_input_desc(entry):
    desc = doc_examples.build(entry).desc
    assert isinstance(desc, dml.TileOperatorDesc)
    assert desc.input_tensor.strides == tuple(entry["attrs"]["Strides"])
    assert desc.input_tensor.sizes == tuple(entry["attrs"]["Sizes"])
    assert set(desc.repeats) == {1}
    assert desc.output_tensor.strides is None
    assert doc_examples.check(entry).detail == "also dml.from_strided_buffer"


def test_a_wrong_functional_face_fails_with_its_name(monkeypatch):
    entry = doc_examples.entry("strides-colmajor")

    def packed(example):  # ignores the strides: reads the buffer row-major
        return example.inputs[0].reshape(example.expected.shape)

    monkeypatch.setitem(doc_examples.FUNCTIONAL_FACES, "BUFFER_TENSOR_VIEW", ("packed", packed))
    outcome = doc_examples.check(entry)
    assert outcome.passed is False
    assert outcome.detail.startswith("packed: ")
    assert outcome.detail.endswith("elements differ from the docs")

    def broken(example):
        raise RuntimeError("no buffer")

    monkeypatch.setitem(doc_examples.FUNCTIONAL_FACES, "BUFFER_TENSOR_VIEW", ("broken", broken))
    outcome = doc_examples.check(entry)
    assert outcome.passed is False
    assert outcome.detail == "broken: RuntimeError: no buffer"


def test_entries_without_a_builder_are_skipped_and_sizes_only_ones_compile():
    outcome = doc_examples.check(doc_examples.entries("DML_TENSOR_DATA_TYPE_UINT4_PACKING")[0])
    assert outcome.passed is None
    assert outcome.detail == "no builder for this operator"
    shape_only = {**doc_examples.entry("tile-ex1"), "status": "shape-only"}
    assert doc_examples.check(shape_only).passed is True
    wrong_sizes = {**shape_only, "expected": {**shape_only["expected"], "sizes": [1, 1, 6, 8]}}
    outcome = doc_examples.check(wrong_sizes)
    assert outcome.passed is False
    assert "output_tensor.sizes" in outcome.detail
    outcome = doc_examples.check({**shape_only, "status": "unchecked"})
    assert outcome.passed is None
    assert outcome.detail == "status unchecked has nothing to run"


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


def test_a_sweep_exists_for_every_registered_operator():
    # An operator without a face of its own is swept through the face that serves it.
    swept = {op.served_by or op.name for op in dml.OPERATORS}
    assert swept == set(selftest.SWEEPS)
    assert {"DML_OPERATOR_SLICE", "DML_OPERATOR_GATHER_ND1"} <= _registered_operators() - swept


def _has_duplicate_targets(indices, dim, axis):
    """Whether two in-range indices of a line along ``axis`` name the same element."""
    wrapped = np.where(indices < 0, indices.astype(np.int64) + dim, indices)
    lines = np.moveaxis(wrapped, axis, -1)
    for coordinate in np.ndindex(*lines.shape[:-1]):
        line = lines[coordinate]
        targets = line[(line >= 0) & (line < dim)]
        if np.unique(targets).size < targets.size:
            return True
    return False


@pytest.mark.parametrize("index_dtype", [np.int8, np.int32, np.uint8, np.uint32], ids=str)
def test_unique_targets_write_each_element_at_most_once(index_dtype):
    shape, dim, axis = (3, 7, 2), 4, 1  # 7 indices per line for 4 targets: some dropped
    indices = sweeps.unique_targets(
        np.random.default_rng(3), shape, np.dtype(index_dtype), dim, axis
    )
    assert indices.dtype == index_dtype
    assert indices.shape == shape
    assert not _has_duplicate_targets(indices, dim, axis)
    wrapped = np.where(indices < 0, indices.astype(np.int64) + dim, indices)
    assert ((wrapped < 0) | (wrapped >= dim)).any()
    assert (indices < 0).any() == np.issubdtype(index_dtype, np.signedinteger)


def test_the_scatter_sweep_checks_both_lowerings_with_derivatives():
    rng = np.random.default_rng(5)
    floating = [
        selftest.SWEEPS["DML_OPERATOR_SCATTER"](rng, dtype)
        for dtype in selftest.DATA_DTYPES
        if jnp.issubdtype(dtype, jnp.floating)
    ]
    assert any(case.label.endswith("deterministic=True") for case in floating)
    assert any(case.label.endswith("unique targets") for case in floating)
    assert all(case.linear_argnums == (0, 2) for case in floating)


def _label_axis(label):
    match = re.search(r" axis (-?\d+) ", label)
    assert match, label
    return int(match.group(1))


def test_deterministic_scatter_draws_hold_duplicates():
    float32 = np.dtype(np.float32)
    cases = [
        selftest.SWEEPS["DML_OPERATOR_SCATTER"](np.random.default_rng(seed), float32)
        for seed in range(10)
    ]
    assert all(case.label.endswith("deterministic=True") for case in cases)
    assert any(
        _has_duplicate_targets(indices, x.shape[axis], axis)
        for case in cases
        for x, indices, _ in case.batch
        for axis in [_label_axis(case.label) % x.ndim]
    )


@jax.custom_jvp
def _doubled_gradient(x):
    return x[::-1]


@_doubled_gradient.defjvp
def _doubled_derivative(primals, tangents):  # linear, so grad transposes it: doubled too
    (x,), (t,) = primals, tangents
    return x[::-1], 2 * t[::-1]


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


def test_python_dash_m_dmljax_selftest_passes(tmp_path):
    # The command end to end, on two operator families and two draws per operator (a float
    # and a half). Every doc example runs in-process below and in test_conformance.py, and
    # every sweep's draws for every dtype in test_conformance.py.
    path = tmp_path / "selftest.json"
    done = helpers.run_python(
        "-m", "dmljax", "selftest", "--draws", "2", "--filter", "TILE", "--filter", "scatter",
        "--json", str(path), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert max(map(len, out.splitlines())) <= selftest.WIDTH
    # A pipe gets a line per operator and kind as its checks finish, timed.
    progress = done.stderr.splitlines()
    assert progress
    assert all(re.fullmatch(r"\[ *\d+\.\ds\] (doc examples|sweep) \w+: \d+ checks?", line)
               for line in progress)  # fmt: skip
    assert any(line.endswith("sweep TILE: 2 checks") for line in progress)
    document = json.loads(path.read_text())
    assert document["passed"] is True
    assert document["filters"] == ["TILE", "scatter"]
    assert document["environment"]["platform"] == jax.default_backend()
    checks = document["checks"]
    assert document["counts"]["passed"] == sum(c["passed"] is True for c in checks)
    assert out.splitlines()[-1] == f"wrote {path}"
    assert f"on {jax.default_backend()}: " in out.splitlines()[0]
    assert out.splitlines()[2] == "only operators whose name contains 'TILE' or 'scatter'"
    chosen = {op for op in _registered_operators() if "TILE" in op or "SCATTER" in op}
    assert {c["op"] for c in checks} == chosen | {"DML_OPERATOR_SCATTER_ELEMENTS"}
    for entry in BUILT:
        assert (f" {entry['id']} " in out) == (entry["op"] in {c["op"] for c in checks})
    assert "FAIL " not in out
    assert out.rstrip().splitlines()[-2].startswith("selftest passed: ")
    for op in chosen & set(selftest.SWEEPS):
        sweep_rows = [
            line for line in out.splitlines()
            if line.startswith("sweep") and line.split()[1] == op.removeprefix("DML_OPERATOR_")
        ]  # fmt: skip
        assert len(sweep_rows) == 2
        details = [c["detail"] for c in checks if c["kind"] == "sweep" and c["op"] == op]
        assert len(details) == 2
        assert any("jvp+grad" in detail for detail in details)


def test_a_filtered_selftest_draws_the_cases_it_draws_among_others():
    # Each operator's draws are seeded by its place among all operators, not among those
    # chosen: TILE alone draws what TILE draws after GATHER's and the others' draws.
    def sweep_rows(*filters):
        out = io.StringIO()
        assert selftest.selftest(draws=2, out=out, filters=filters) == 0
        rows = [line.split() for line in out.getvalue().splitlines()]
        return [row for row in rows if row[:2] == ["sweep", "TILE"]]

    alone = sweep_rows("TILE")
    assert len(alone) == 2
    assert alone == sweep_rows("GATHER", "TILE")


def test_a_filter_that_matches_no_operator_exits_2(capsys):
    assert main(["selftest", "--filter", "no such operator"]) == 2
    assert "no operator name contains 'no such operator'" in capsys.readouterr().err


def test_selftest_shows_progress_on_a_terminal_and_in_a_log(capsys):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal, pipe = Terminal(), io.StringIO()
    assert selftest.selftest(draws=0, progress_out=terminal) == 0
    assert selftest.selftest(draws=0, progress_out=pipe) == 0
    shown = terminal.getvalue().split("\r")
    assert any(line.startswith("[   1] doc GATHER ") for line in shown)
    assert all(len(line) < selftest.WIDTH for line in shown)
    logged = pipe.getvalue().splitlines()
    assert "\r" not in pipe.getvalue()
    assert logged[0].endswith("doc examples GATHER: " + logged[0].split(": ")[1])
    assert len(logged) == len({line.split("] ")[1].split(":")[0] for line in logged})
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= selftest.WIDTH
    # Every doc example is a row, and the skipped ones are counted by reason.
    for entry in BUILT:
        assert entry["id"] in out
    skipped = [e for e in doc_examples.entries() if e["op"] in UNIMPLEMENTED]
    assert f"skipped {len(skipped)} doc examples:" in out
    assert "DML_TENSOR_DATA_TYPE_UINT4_PACKING x1: no builder for this operator" in out
    for op in doc_examples.BUILDERS:
        assert f"  {op} x" not in out


def test_a_broken_builder_makes_the_exit_status_1(monkeypatch, capsys):
    def swapped(e):  # repeats in the wrong order: the output desc no longer fits
        return dml.TileOperatorDesc(
            input_tensor=doc_examples.tensor_desc_of(e["inputs"]["InputTensor"]),
            output_tensor=doc_examples.tensor_desc_of(e["expected"]),
            repeats=tuple(reversed(e["attrs"]["Repeats"])),
        )

    monkeypatch.setitem(doc_examples.BUILDERS, "DML_OPERATOR_TILE", swapped)
    assert main(["selftest", "--draws", "0", "--filter", "TILE"]) == 1
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "tile-ex1" in line)
    assert "FAIL" in row
    # The reason in the failure list, wrapped to the width.
    reason = out[out.index("!!! doc example DML_OPERATOR_TILE tile-ex1") :]
    assert "InvalidArgumentError" in reason
    assert "selftest FAILED: " in out
    assert max(map(len, out.splitlines())) <= selftest.WIDTH


def test_a_broken_sweep_makes_the_exit_status_1(monkeypatch, capsys):
    tile_sweep = selftest.SWEEPS["DML_OPERATOR_TILE"]

    def off_by_one(rng, dtype):
        case = tile_sweep(rng, dtype)
        wrong = tuple(e[None] for e in case.expected)  # an extra leading dimension
        return selftest.SweepCase(case.label, case.fn, case.batch, wrong, case.linear_argnums)

    monkeypatch.setitem(selftest.SWEEPS, "DML_OPERATOR_TILE", off_by_one)
    assert main(["selftest", "--draws", "1", "--filter", "TILE"]) == 1
    out = capsys.readouterr().out
    failed = [line for line in out.splitlines() if line.startswith("sweep") and " FAIL " in line]
    assert len(failed) == 1
    assert all("TILE" in line for line in failed)
    assert out.count("!!! sweep DML_OPERATOR_TILE") == 1
    assert "eager: got" in out[out.index("!!! sweep DML_OPERATOR_TILE") :]


def test_negative_draws_is_a_usage_error():
    with pytest.raises(SystemExit) as e:
        main(["selftest", "--draws", "-1"])
    assert e.value.code == 2
