"""The package reads as its architecture: the runtime apart from what checks and measures it.

``dmljax/_src/checking/`` (reference, sweeps, doc examples, selftest, each operator's
companion) and ``dmljax/_src/bench/`` ship, but load on use only.
"""

import ast
import json
import pathlib

import pytest

import dmljax as dml
from dmljax._src.checking.operators import all_checks
from tests import helpers

PACKAGE = helpers.REPO / "dmljax"
# What checks and measures the runtime: never imported by it.
OFF_THE_RUNTIME_PATH = ("dmljax._src.checking", "dmljax._src.bench")
# The command line loads each command's modules when that command runs.
LOADS_ON_USE = {"__main__.py", "_src/checking", "_src/bench"}


def _runtime_modules() -> list[pathlib.Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if not any(str(path.relative_to(PACKAGE)).startswith(part) for part in LOADS_ON_USE)
    ]


def _imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            found += [(node.lineno, node.module)]
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def test_import_dmljax_loads_no_checking_or_bench_module():
    script = (
        "import json, sys, dmljax\n"
        "exported = [getattr(dmljax, name) for name in dmljax.__all__]\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('dmljax'))))"
    )
    done = helpers.run_python("-c", script, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert "dmljax._src.ops.tile" in loaded  # the check sees the runtime's modules
    assert [m for m in loaded if m.startswith(OFF_THE_RUNTIME_PATH)] == []


@pytest.mark.parametrize("path", _runtime_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_runtime_modules_never_import_checking_or_bench_code(path):
    imports = _imported_modules(ast.parse(path.read_text()))
    assert [(line, m) for line, m in imports if m.startswith(OFF_THE_RUNTIME_PATH)] == []


@pytest.mark.parametrize("path", _runtime_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_runtime_modules_import_at_the_top_only(path):
    # An import inside a function hides a cycle or a layering the module should not have;
    # optional extras (rich for tables, Pillow for images) are the one reason to import late.
    tree = ast.parse(path.read_text())
    late = [
        (sub.lineno, ast.unparse(sub))
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for sub in ast.walk(node)
        if isinstance(sub, ast.Import | ast.ImportFrom)
    ]
    extras = ("rich", "PIL")
    assert [(line, text) for line, text in late if not any(e in text for e in extras)] == []


def test_every_operator_has_a_companion_and_every_companion_an_operator():
    assert sorted(all_checks()) == sorted(op.name for op in dml.OPERATORS)
    for operator in dml.OPERATORS:
        assert all_checks()[operator.name].operator is operator


def test_each_companion_is_named_after_the_module_of_its_operator():
    for name, checks in all_checks().items():
        ops_module = checks.operator.desc_type.__module__.rsplit(".", 1)[-1]
        companion = PACKAGE / "_src" / "checking" / "operators" / f"{ops_module}.py"
        assert companion.exists(), f"{name}: no companion {companion.name}"
