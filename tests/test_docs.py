"""The documentation covers the public API and every operator, and its pages run.

The pages' ``>>>`` examples run as doctests (``--doctest-glob='*.md'`` over ``docs/``);
the feature-level tables, the DirectML doc examples and the API entries are written into
the pages from the code by ``python docs/generate.py``. These tests check the sources.
"""

from __future__ import annotations

import json
import pathlib
import re
import struct

import pytest

import dmljax as dml
from dmljax._src import feature_levels
from dmljax._src.bench import plot
from dmljax._src.checking import doc_examples, doc_pages
from dmljax._src.face import Indices
from dmljax._src.ops.element_wise import ROWS

DOCS = pathlib.Path(__file__).parents[1] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)
API = DOCS / "api.md"

# ".. autofunction:: dmljax.tile" inside {eval-rst}, or "```{py:class} dmljax.X".
_DOCUMENTED = re.compile(
    r"^(?:\.\. auto(?:function|class|module|data|exception)::|```\{py:(?:class|function|data)\})"
    r"\s+(dmljax(?:\.[A-Za-z_][A-Za-z0-9_]*)+)",
    re.MULTILINE,
)
_SUPPORT_TABLE = re.compile(r"^<!-- dml:support-table (\w+) -->$", re.MULTILINE)
_DOC_EXAMPLES = re.compile(r"^<!-- dml:doc-examples (\w+)(?: deterministic)? -->$", re.MULTILINE)
# The element-wise page renders every row of the family's table, each with its support
# table and examples, from one marker.
_ROWS = "<!-- dml:element-wise-rows -->"


def _tables_on(text: str) -> list[str]:
    """The support tables a page renders, by operator name without DML_OPERATOR_."""
    rows = [row.kind for row in ROWS] if _ROWS in text else []
    return _SUPPORT_TABLE.findall(text) + rows


def _examples_on(text: str) -> list[str]:
    """The operators whose doc examples a page renders."""
    rows = [row.operator_name for row in ROWS] if _ROWS in text else []
    return _DOC_EXAMPLES.findall(text) + rows


# One page per operator family; which operators a page covers is read from its tables.
OPERATOR_PAGES = sorted((DOCS / "operators").glob("*.md"))


_GENERATED = re.compile(r"<!-- dml:[\w -]+ -->.*?<!-- dml:end -->", re.DOTALL)


def _documented_names() -> list[str]:
    # Written entries, and those the operator-api markers hold (from OPERATORS, kept
    # current by test_every_generated_part_of_a_page_is_current).
    return _DOCUMENTED.findall(API.read_text())


def test_every_public_name_has_an_api_entry():
    documented = _documented_names()
    top_level = [name.removeprefix("dmljax.") for name in documented if name.count(".") == 1]
    missing = sorted(set(dml.__all__) - set(top_level))
    assert not missing, f"docs/api.md documents no {missing}"
    unknown = sorted(set(top_level) - set(dml.__all__))
    assert not unknown, f"docs/api.md documents names outside dmljax.__all__: {unknown}"
    duplicated = sorted({name for name in top_level if top_level.count(name) > 1})
    assert not duplicated, f"docs/api.md documents {duplicated} twice"


def test_the_errors_module_is_documented_with_its_members():
    text = API.read_text()
    assert re.search(r"^\.\. automodule:: dmljax\.errors$", text, re.MULTILINE)
    # automodule's members are the module's __all__: every public error and warning class.
    assert set(dml.errors.__all__) == {
        "ArgumentError",
        "ArgumentTypeError",
        "InvalidArgumentError",
        "NarrowedIndicesWarning",
    }


@pytest.mark.parametrize("page", OPERATOR_PAGES, ids=lambda page: page.name)
def test_each_operator_page_renders_the_doc_examples_of_its_support_tables(page):
    text = page.read_text()
    tables = set(_tables_on(text))
    assert tables, f"{page.name} renders no support table"
    names = {
        doc_examples.name_in_examples(operator)
        for operator in dml.OPERATORS
        if operator.name.removeprefix("DML_OPERATOR_") in tables
    }
    assert set(_examples_on(text)) == {name for name in names if doc_examples.entries(name)}


def _support_tables() -> dict[str, feature_levels.OperatorSupport]:
    return {
        operator.name.removeprefix("DML_OPERATOR_"): operator.support for operator in dml.OPERATORS
    }


def test_every_support_table_in_the_code_is_on_exactly_one_operator_page():
    on_pages = [name for page in OPERATOR_PAGES for name in _tables_on(page.read_text())]
    assert sorted(on_pages) == sorted(_support_tables())


def test_every_doc_example_of_an_implemented_operator_is_on_a_page():
    implemented = {doc_examples.name_in_examples(operator) for operator in dml.OPERATORS}
    # The strides page's views are read with dml.from_strided_buffer.
    implemented |= {"BUFFER_TENSOR_VIEW"}
    # The examples file's and those the companions declare (OperatorChecks.examples).
    examples = {e["op"] for e in doc_examples.entries()}
    on_pages = {op for page in PAGES for op in _examples_on(page.read_text())}
    assert examples & implemented <= on_pages
    assert on_pages <= examples
    assert set(doc_examples.BUILDERS) <= on_pages


def test_every_page_with_code_runs_some_examples():
    for page in PAGES:
        if page.name == "changelog.md":
            continue  # only includes CHANGELOG.md
        text = page.read_text()
        if "```" in text:
            assert re.search(r"^```pycon\n>>> ", text, re.MULTILINE), f"{page} runs no example"


def test_the_performance_page_shows_the_committed_runs():
    page = (DOCS / "performance.md").read_text()
    png = (DOCS / "_static" / "bench-h100.png").read_bytes()
    assert "_static/bench-h100.png" in page
    # Drawn at the page's width, so that its text reads at its displayed size.
    width, height = struct.unpack(">II", png[16:24])
    assert width == plot.WIDTH_PX
    assert height < 2 * width
    for run in (
        "bench-h100.json",
        "bench-h100-nd.json",
        "bench-h100-layout.json",
        "bench-h100-generators.json",
        "bench-h100-element-wise.json",
        "bench-h100-element-wise-2.json",
        "bench-h100-element-wise-3.json",
        "bench-h100-element-wise-4.json",
        "bench-h100-element-wise-5.json",
        "bench-h100-element-wise-6.json",
        "bench-h100-element-wise-7.json",
        "bench-h100-element-wise-8.json",
        "bench-h100-softmax-quantize.json",
        "bench-h100-softmax-quantize-2.json",
        "bench-h100-eager-statics.json",
        "bench-h200-cumulative.json",
        "bench-h200-argminmax.json",
        "bench-h200-reduce.json",
        "bench-h200-gemm.json",
        "bench-h200-convolution.json",
        "bench-h200-convolution-backward.json",
        "bench-h200-topk-resample.json",
        "bench-h200-rnn.json",
        "bench-h200-lstm-gru.json",
        "bench-h200-lstm-gru-eager.json",
        "bench-h200-rnn-eager.json",
    ):
        bench = json.loads((DOCS / run).read_text())
        assert bench["environment"]["device_kind"] in page
        assert f"{{download}}`{run}`" in page
        for case in bench["cases"]:
            if case.get("error"):  # a failed case has no figures: the page says so
                assert f"`{case['name']}` row failed" in page, case["name"]
                continue
            row = f"| {case['name']} | {1e3 * case['time_s']['dmljax']:.3f} |"
            assert row in page, case["name"]
            assert f"| {case['ratio']:.3f} |" in page
    graph = json.loads((DOCS / "bench-h100-graph.json").read_text())
    assert "{download}`bench-h100-graph.json`" in page
    (case,) = graph["cases"]
    ms = {name: 1e3 * seconds for name, seconds in case["time_s"].items()}
    assert (
        f"| H100 | {ms['dmljax']:.3f} | {ms['jnp']:.3f} | {case['ratio']:.3f} | "
        f"{case['aa_ratio']:.3f} |" in page
    )
    assert f"| {ms['separate']:.3f} | {case['separate_ratio']:.2f} |" in page
    adversarial = json.loads((DOCS / "bench-h100-adversarial.json").read_text())
    assert "{download}`bench-h100-adversarial.json`" in page
    for row in adversarial["rows"]:
        ms = row["ms"]
        fastest = min(ms, key=ms.__getitem__)
        shown = f"| {row['name']} | {ms['dmljax']:.3f} | "
        assert shown in page, row["name"]
        assert f"| {fastest} {ms[fastest]:.3f} | {ms['dmljax'] / ms[fastest]:.2f}x |" in page
    deterministic = json.loads((DOCS / "bench-h100-deterministic.json").read_text())
    assert "{download}`bench-h100-deterministic.json`" in page
    for row in deterministic["rows"]:
        ms = row["ms"]
        cost = ms["dmljax_det"] / ms["dmljax"]
        assert (
            f"| {row['name']} | {ms['dmljax']:.3f} | {ms['dmljax_det']:.3f} | {cost:.2f}x |" in page
        )
    scatter = json.loads((DOCS / "bench-h100-scatter.json").read_text())
    assert "{download}`bench-h100-scatter.json`" in page
    ms = {case["name"]: 1e3 * case["time_s"]["dmljax"] for case in scatter["cases"]}
    for name in (name for name in ms if name.endswith(" deterministic")):
        default, chosen = ms[name.removesuffix(" deterministic")], ms[name]
        row = f"| {name} | {default:.3f} | {chosen:.3f} | {chosen / default:.2f}x |"
        assert row in page, name
    scaling = json.loads((DOCS / "scaling-h200x2.json").read_text())
    for result in scaling["results"]:
        assert f"| {result['time_ms']:.3f} | {result['scaling']:.2f}x |" in page


def test_every_page_of_an_operator_with_indices_says_what_jit_does_to_int64_ones():
    # Issue 19: under the caller's jax.jit with x64 off, JAX wraps NumPy int64 indices
    # to 32 bits before dmljax sees them; each page with index rules says so.
    names = {
        op.name.removeprefix("DML_OPERATOR_")
        for op in dml.OPERATORS
        if op.face is not None and any(isinstance(spec, Indices) for spec in op.face._arrays)
    }
    pages = [page for page in OPERATOR_PAGES if set(_tables_on(page.read_text())) & names]
    assert len(pages) == len(names)
    for page in pages:
        assert "#64-bit-indices-while-jax_enable_x64-is-off" in page.read_text(), page.name


def test_every_python_snippet_of_the_readme_runs_in_order():
    readme = DOCS.parent / "README.md"
    blocks = re.findall(r"^```python\n(.*?)^```$", readme.read_text(), flags=re.M | re.S)
    assert len(blocks) >= 2
    namespace: dict[str, object] = {}
    for block in blocks:  # later snippets use what earlier ones defined, as a reader would
        exec(compile(block, str(readme), "exec"), namespace)


def test_the_intersphinx_inventories_are_written_locally(tmp_path):
    # The docs link to JAX's and NumPy's pages without downloading their inventories; the
    # docs build (-W) fails if Sphinx cannot read them.
    import sys
    import zlib

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        from local_inventories import write_inventories  # pyright: ignore[reportMissingImports]
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    mapping = write_inventories(tmp_path)
    for project, line in (
        ("jax", "jax.numpy.take py:function 1 _autosummary/jax.numpy.take.html#jax.numpy.take -"),
        ("numpy", "numpy.take py:function 1 reference/generated/numpy.take.html#numpy.take -"),
    ):
        data = pathlib.Path(mapping[project][1]).read_bytes()
        header, _, compressed = data.partition(b"zlib.\n")
        assert header.startswith(b"# Sphinx inventory version 2\n")
        assert line in zlib.decompress(compressed).decode().splitlines()


def test_the_readme_and_the_guides_list_no_operators_by_hand():
    # dml.OPERATORS and the generated operator table are the lists; a hand-kept table or
    # prose list of every operator would go stale with the next operator.
    faces = {f"dml.{op.function.__name__}" for op in dml.OPERATORS if op.function}
    for page in [DOCS.parent / "README.md", DOCS / "index.md", DOCS / "getting-started.md"]:
        text = _GENERATED.sub("", page.read_text())  # the generated table is no hand list
        rows = re.findall(r"^\| `DML_\w+_OPERATOR_DESC`", text, re.M)
        assert not rows, f"{page.name} lists operators by hand: {rows}"
        named = {face for face in faces if f"`{face}`" in text}
        assert len(named) < len(faces) // 2, f"{page.name} lists the faces by hand: {named}"


def test_the_porting_guide_says_how_every_functional_face_differs_from_its_namesake():
    text = (DOCS / "porting.md").read_text()
    section = text.split("## For jnp users", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `dml.")]
    listed = {name for row in rows for name in re.findall(r"`dml\.(\w+)", row.split("|")[1])}
    faces = {op.function.__name__ for op in dml.OPERATORS if op.function is not None}
    assert sorted(faces - listed) == []
    assert sorted(listed - faces) == []
    # Each listed function appears in the examples after the table or says it has none.
    examples = section.split("```python", 1)[1]
    for row in rows:
        names = re.findall(r"`dml\.(\w+)", row.split("|")[1])
        assert "none" in row.split("|")[2] or any(f"dml.{n}(" in examples for n in names), row


def test_no_page_or_module_cites_a_note_that_is_not_shipped():
    # The project's research notes live beside the repository, not in it: a reader of the
    # docs or the code cannot follow a citation of one.
    shipped = [*PAGES, DOCS.parent / "README.md", *sorted((DOCS.parent / "dmljax").rglob("*.py"))]
    citing = [
        f"{path.relative_to(DOCS.parent)}:{number}"
        for path in shipped
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if re.search(r"\bresearch\b|spec/", line, re.IGNORECASE)
    ]
    assert citing == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_every_generated_part_of_a_page_is_current(page):
    # Tables, doc examples and API entries are written into the pages as Markdown by
    # `python docs/generate.py`; a change to the code that changes them fails here.
    text = page.read_text()
    assert doc_pages.render_page(text) == text, "stale: run python docs/generate.py"
