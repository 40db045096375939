"""The edges of ``python -m dmljax``: each ends in one line on standard error and a non-zero
exit status, before any long run, never in a traceback."""

import io
import json
import os
import re
import subprocess
import sys

import pytest

from dmljax.__main__ import main
from tests import helpers


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "--quick", "--json", "{missing}/bench.json"],
        ["bench", "--quick", "--plot", "{missing}/bench.png"],
        ["bench", "--group", "adversarial", "--json", "{missing}/rows.json"],
        ["selftest", "--json", "{missing}/selftest.json"],
        ["scaling", "--json", "{missing}/scaling.json"],
        ["bench", "--quick", "--json", "{folder}"],
    ],
)
def test_an_output_that_cannot_be_written_is_refused_before_the_run(argv, tmp_path, capsys):
    paths = {"missing": tmp_path / "no" / "such", "folder": tmp_path}
    argv = [arg.format(**paths) for arg in argv]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing ran
    (line,) = captured.err.splitlines()
    assert line.startswith(f"python -m dmljax {argv[0]}: --")
    assert "no folder" in line or "is a folder" in line


def test_from_json_of_a_missing_or_foreign_file_is_one_line(tmp_path, capsys):
    missing = tmp_path / "missing.json"
    assert main(["bench", "--from-json", str(missing)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == f"dmljax bench: --from-json {missing}: No such file or directory"
    for text in ("{not json", '{"format": "something else"}', '{"format": "dmljax-bench"}'):
        foreign = tmp_path / "foreign.json"
        foreign.write_text(text)
        assert main(["bench", "--from-json", str(foreign)]) == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"dmljax bench: --from-json {foreign}: ")


def test_output_into_a_closed_pipe_ends_quietly():
    # `python -m dmljax bench --list | head -1`: the reader is gone before the writer is done.
    read, write = os.pipe()
    os.close(read)
    env = {**os.environ, "PYTHONPATH": str(helpers.REPO)}
    done = subprocess.run([sys.executable, "-m", "dmljax", "bench", "--list"], stdout=write,
                          stderr=subprocess.PIPE, text=True, env=env, cwd=helpers.REPO,
                          timeout=120, check=False)  # fmt: skip
    os.close(write)
    assert done.returncode == 141
    assert done.stderr == ""


def test_scaling_on_one_device_says_how_to_get_several():
    # The tests' conftest asks for eight CPU devices; this process gets JAX's default, one.
    done = helpers.run_python("-m", "dmljax", "scaling", "--quick", timeout=120,
                              env={"XLA_FLAGS": "", "JAX_PLATFORMS": "cpu"})  # fmt: skip
    assert done.returncode == 1
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "needs several devices" in line
    assert "XLA_FLAGS=--xla_force_host_platform_device_count=8" in line


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_tables_are_plain_on_a_pipe_and_drawn_by_rich_on_a_terminal():
    from dmljax._src import text

    assert text.table_formatter(io.StringIO()) is text.format_table
    pytest.importorskip("rich")
    rich_table = text.table_formatter(_Terminal(), width=60)
    assert rich_table is not text.format_table
    drawn = rich_table(["case", "ms"], [["tile", "0.149"], ["gather rows", "MISS"]], 1)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", drawn)  # rich's colours
    assert plain.split("\n")[1].split() == ["case", "ms"]
    assert "gather rows" in plain
    assert max(map(len, plain.splitlines())) <= 60


def test_without_rich_a_terminal_gets_the_plain_tables(monkeypatch):
    from dmljax._src import text

    monkeypatch.setitem(sys.modules, "rich", None)  # as if the cli extra were not installed
    assert text.table_formatter(_Terminal()) is text.format_table


MODELS = helpers.REPO / "tests" / "data" / "dxdispatch"


def test_run_prints_what_a_dxdispatch_model_prints(tmp_path, capsys):
    written = tmp_path / "join.json"
    assert main(["run", str(MODELS / "dml_join.json"), "--json", str(written)]) == 0
    assert capsys.readouterr().out == "Resource 'Out': 1, 2, 3, 100, 115, 5, 6, 7, 8, 9\n"
    document = json.loads(written.read_text())
    assert document["resources"]["Out"] == [1, 2, 3, 100, 115, 5, 6, 7, 8, 9]
    assert main(["run", str(MODELS / "dml_slice.json")]) == 0
    assert capsys.readouterr().out == "Resource 'output': 7, 9, 12, 14, 17, 19\n"
    assert main(["run", str(MODELS / "dml_split.json")]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Resource 'Out1': 1, 2",
        "Resource 'Out2': 3, 4",
        "Resource 'Out3': 5, 6",
    ]


def test_run_refuses_the_unmerged_branchs_toy_graph_for_its_wiring(capsys):
    assert main(["run", str(MODELS / "dml_graph_quadratic.json")]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "dispatchables.graph.desc.IntermediateEdges[0]" in line
    assert "InputEdges[1] feeds it already" in line


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{not json", "a JSON model"),
        ('{"resources": {}, "dispatchables": {"s": {"type": "hlsl"}}, "commands": []}',
         "dispatchables.s.type"),
    ],
)  # fmt: skip
def test_run_refuses_a_model_it_cannot_run_in_one_line(text, fragment, tmp_path, capsys):
    path = tmp_path / "model.json"
    path.write_text(text)
    assert main(["run", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith("python -m dmljax run: ")
    assert fragment in line


def test_version_names_the_installed_version(capsys):
    import dmljax

    with pytest.raises(SystemExit) as exit_status:
        main(["--version"])
    assert exit_status.value.code == 0
    assert capsys.readouterr().out.strip() == f"python -m dmljax {dmljax.__version__}"


def test_the_package_declares_its_licence_and_console_script():
    from importlib import metadata

    assert metadata.metadata("dmljax")["License-Expression"] == "Apache-2.0"
    head = (helpers.REPO / "LICENSE").read_text()[:200]
    assert "Apache License" in head
    assert "Version 2.0, January 2004" in head
    scripts = metadata.entry_points(group="console_scripts", name="dmljax")
    assert [script.value for script in scripts] == ["dmljax.__main__:run"]


def test_dir_of_the_errors_module_is_its_errors():
    import dmljax as dml

    assert dir(dml.errors) == sorted(dml.errors.__all__)


def test_help_answers_in_under_a_second_without_importing_jax():
    script = (
        "import sys, time\n"
        "start = time.perf_counter()\n"
        "import dmljax.__main__\n"
        "try:\n"
        "    dmljax.__main__.main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(time.perf_counter() - start, 'jax' in sys.modules, file=sys.stderr)\n"
    )
    done = helpers.run_python("-c", script, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "selftest" in done.stdout
    seconds, jax_loaded = done.stderr.split()
    assert jax_loaded == "False"
    assert float(seconds) < 1.0


def test_the_package_loads_each_name_on_first_use():
    script = (
        "import sys, dmljax\n"
        "assert 'jax' not in sys.modules\n"
        "from dmljax import tile\n"
        "assert tile is dmljax.tile and 'jax' in sys.modules\n"
        "assert set(dmljax.__all__) <= set(dir(dmljax))\n"
        "try:\n"
        "    dmljax.no_such_name\n"
        "except AttributeError as error:\n"
        "    print(error)\n"
    )
    done = helpers.run_python("-c", script, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "module 'dmljax' has no attribute 'no_such_name'"
