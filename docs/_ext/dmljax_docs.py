"""Sphinx directives that render dmljax's own tables and examples when the docs are built.

Nothing here is written out by hand, so the pages cannot drift from the code:

``dml-support-table NAME``
    The feature-level support table of one operator of :data:`dmljax.OPERATORS`,
    named as DirectML names it without ``DML_OPERATOR_`` (``TILE``, ``GATHER``, ...).
``dml-operator-summary``
    One row per operator: where it was introduced, and from which level it
    takes 1 to 8 dimensions and 64-bit data.
``dml-operator-api descs`` / ``functions`` / ``enums``
    The API entries (autodoc) of every operator's desc class, of every
    functional face, or of every enum a desc field takes, in
    :data:`dmljax.OPERATORS`' order, each once.
``dml-doc-examples OP``
    Every worked example of one DirectML page (``DML_OPERATOR_GATHER``, ...,
    or ``BUFFER_TENSOR_VIEW`` for the strides page) from the packaged
    ``dml-doc-examples.json``: the desc dmljax builds for it, its inputs, and
    the output dmljax computes while the docs are built. An output that differs
    from the page's, or an as-written example that dmljax accepts, is a build
    warning (and so, with ``-W``, a failed build). With ``:deterministic:`` the
    operators are compiled with ``deterministic=True``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import jax
import numpy as np
from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

import dmljax as dml
from dmljax._src import feature_levels
from dmljax._src.checking import doc_examples
from dmljax._src.checking.api_names import operator_api_names

logger = logging.getLogger(__name__)
PACKAGE = pathlib.Path(dml.__file__).parent


def _depend_on_the_code(directive: SphinxDirective) -> None:
    """Rebuild the page when the package or the examples file changes (incremental builds)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        directive.env.note_dependency(str(path))
    directive.env.note_dependency(str(doc_examples.PATH))


# Every operator, by DirectML's name without its prefix (TILE, GATHER, ...).
OPERATORS: dict[str, dml.Operator] = {
    operator.name.removeprefix("DML_OPERATOR_"): operator for operator in dml.OPERATORS
}


# --- Tables --------------------------------------------------------------------------------------


def _cell(content: str | nodes.Node) -> nodes.entry:
    entry = nodes.entry()
    if isinstance(content, nodes.Node):
        entry += nodes.paragraph("", "", content)
    else:
        entry += nodes.paragraph(text=content)
    return entry


def _table(headers: Sequence[str | nodes.Node], rows: Iterable[Sequence[str | nodes.Node]]):
    table = nodes.table(classes=["dmljax-generated"])
    tgroup = nodes.tgroup(cols=len(headers))
    table += tgroup
    for _ in headers:
        tgroup += nodes.colspec(colwidth=1)
    head = nodes.thead()
    tgroup += head
    header_row = nodes.row()
    for header in headers:
        header_row += _cell(header)
    head += header_row
    body = nodes.tbody()
    tgroup += body
    for cells in rows:
        row = nodes.row()
        for content in cells:
            row += _cell(content)
        body += row
    return table


def _ranks(support: feature_levels.TensorSupport) -> str:
    low, high = support.dimension_counts
    return str(low) if low == high else f"{low} to {high}"


def support_columns(support: feature_levels.OperatorSupport) -> list[tuple[str, ...]]:
    """The tensor fields, grouped where their data types agree in every band."""
    fields = list(support.bands[0].tensors)
    groups: list[list[str]] = []
    for field in fields:
        for group in groups:
            if all(b.tensors[field] == b.tensors[group[0]] for b in support.bands):
                group.append(field)
                break
        else:
            groups.append([field])
    return [tuple(group) for group in groups]


def support_rows(support: feature_levels.OperatorSupport) -> list[list[str]]:
    """One row per band: the level it starts at, the dimension counts, each group's types."""
    columns = support_columns(support)
    rows = []
    for band in support.bands:
        first = band.tensors[columns[0][0]]
        rows.append(
            [
                str(band.since),
                _ranks(first),
                *(feature_levels.format_data_types(band.tensors[g[0]].data_types) for g in columns),
            ]
        )
    return rows


def _literal_header(names: Sequence[str]) -> nodes.Node:
    para = nodes.inline()
    for i, name in enumerate(names):
        if i:
            para += nodes.Text(", ")
        para += nodes.literal(text=name)
    return para


class SupportTable(SphinxDirective):
    """``dml-support-table NAME``: one operator's support table, from the code."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        _depend_on_the_code(self)
        name = self.arguments[0]
        operator = OPERATORS.get(name)
        if operator is None:
            raise self.error(f"no operator {name!r}; one of {', '.join(OPERATORS)}")
        support = operator.support
        columns = support_columns(support)
        headers: list[str | nodes.Node] = [
            "From",
            "Dimensions",
            *(_literal_header(group) for group in columns),
        ]
        intro = nodes.paragraph()
        intro += nodes.literal(text=support.operator)
        intro += nodes.Text(
            f" exists from {support.introduced}. Each row applies from its level up to the "
            "next row's; every level in between (and every level above the last row) accepts "
            "what the row lists. Generated from "
        )
        intro += nodes.literal(text=f"{operator.desc_type.__module__}.{name}")
        intro += nodes.Text(", the table compile_operator checks.")
        return [intro, _table(headers, support_rows(support))]


def _first_level(support: feature_levels.OperatorSupport, test: Any) -> str:
    for band in support.bands:
        if all(test(tensor) for tensor in band.tensors.values()):
            return str(band.since)
    return "never"


class OperatorSummary(SphinxDirective):
    """``dml-operator-summary``: when each operator appeared and widened, from the code."""

    def run(self) -> list[nodes.Node]:
        _depend_on_the_code(self)
        rows = []
        for name, operator in OPERATORS.items():
            support = operator.support
            # Short cells, so that the table fits the page's width: the operator's name
            # (its struct is DML_<name>_OPERATOR_DESC) and the desc's class name.
            rows.append(
                [
                    nodes.literal(text=name),
                    nodes.literal(text=operator.desc_type.__name__),
                    nodes.literal(text=_face_of(operator)),
                    str(support.introduced),
                    _first_level(support, lambda t: t.allows_rank(1) and t.allows_rank(8)),
                    _first_64_bit_data(support),
                ]
            )
        headers = ["Operator", "dmljax desc", "Function", "Since", "1-8 dims", "64-bit data"]
        return [_table(headers, rows)]


def _face_of(operator: dml.Operator) -> str:
    """The functional face that runs the operator: its own, or its server's."""
    server = OPERATORS[(operator.served_by or operator.name).removeprefix("DML_OPERATOR_")]
    assert server.function is not None, server.name
    return f"dml.{server.function.__name__}"


class OperatorApi(SphinxDirective):
    """``dml-operator-api descs|functions|enums``: one autodoc entry per operator's class,
    face, or enum of a desc field."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        _depend_on_the_code(self)
        kind = self.arguments[0]
        directive = {"descs": "autoclass", "functions": "autofunction", "enums": "autoclass"}
        options = ["   :members:", "   :undoc-members:"] if kind == "enums" else []
        source = StringList()
        for name in operator_api_names(kind):
            # The pages are MyST, whose nested parse reads Markdown: an eval-rst block each.
            block = ("```{eval-rst}", f".. {directive[kind]}:: dmljax.{name}", *options, "```", "")
            for line in block:
                source.append(line, "<dml-operator-api>")
        container = nodes.Element()
        self.state.nested_parse(source, self.content_offset, container)
        return list(container.children)


def _first_64_bit_data(support: feature_levels.OperatorSupport) -> str:
    data_field = next(iter(support.bands[0].tensors))  # input_tensor: the data
    for band in support.bands:
        types = band.tensors[data_field].data_types
        if any(t.is_64_bit for t in types):
            found = feature_levels.format_data_types(t for t in types if t.is_64_bit)
            return f"{band.since} ({found})"
    return "never"


# --- DirectML doc examples -----------------------------------------------------------------------


# The package's builders, shared with `python -m dmljax selftest`: one desc per example.
BUILDERS: Mapping[str, doc_examples.DescBuilder] = doc_examples.BUILDERS
VIEW = "BUFFER_TENSOR_VIEW"


def _title(e: doc_examples.Entry) -> str:
    """The example's heading on its page, e.g. ``"Example 1. 1D remapping"``."""
    for part in e["source"].split(";"):
        if "(" in part and ")" in part:
            return part[part.index("(") + 1 : part.rindex(")")].strip()
    return e["id"]


def _url(e: doc_examples.Entry) -> str | None:
    match = re.search(r"https://\S+", e["source"])
    return match.group(0) if match else None


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _value_code(value: Any) -> str:
    if isinstance(value, dml.TensorDesc):
        strides = "" if value.strides is None else f", strides={value.strides}"
        return (
            f"dml.TensorDesc(data_type=dml.DataType.{value.data_type.name}, "
            f"sizes={value.sizes}{strides})"
        )
    return repr(value)


def desc_code(desc: Any, name: str = "desc") -> str:
    """Python source that builds ``desc``, one field per line."""
    lines = [f"{name} = dml.{type(desc).__name__}("]
    for field in dataclasses.fields(desc):
        lines.append(f"    {field.name}={_value_code(getattr(desc, field.name))},")
    lines.append(")")
    return "\n".join(lines)


def _array_code(name: str, array: np.ndarray) -> str:
    prefix = f"{name} = np.array("
    body = np.array2string(array, separator=", ", prefix=prefix)
    return f"{prefix}{body}, np.{array.dtype.name})"


def _array_text(array: np.ndarray) -> str:
    return np.array2string(np.asarray(array), separator=", ")


def _x64_scope(e: doc_examples.Entry) -> contextlib.AbstractContextManager[Any]:
    tensors = [*e["inputs"].values(), e["expected"]]
    needs_x64 = any(dml.DataType[t["dtype"]].is_64_bit for t in tensors)
    return jax.enable_x64(True) if needs_x64 else contextlib.nullcontext()


def _code(text: str, language: str = "python") -> nodes.literal_block:
    block = nodes.literal_block(text, text)
    block["language"] = language
    return block


def _para(*parts: str | nodes.Node) -> nodes.paragraph:
    para = nodes.paragraph()
    for part in parts:
        para += nodes.Text(part) if isinstance(part, str) else part
    return para


_STATUS: dict[str, str] = {
    "valid": "As printed on the DirectML page.",
    "corrected": "Corrected: the page has a typo, fixed as the notes say.",
    "encoded": "The page writes the values as letters; here they are numbers.",
    doc_examples.REFUSED_STATUS: "As printed on the DirectML page, this example breaks the "
    "page's own rules, and dmljax refuses it, as DirectML's validation must.",
    doc_examples.SIZES_ONLY_STATUS: "A size formula, without data: the desc with the "
    "page's sizes must compile.",
    doc_examples.OWN_STATUS: "The DirectML page has no worked example: this one is "
    "dmljax's, its output worked out by hand from the rules above.",
}


class DocExamples(SphinxDirective):
    """``dml-doc-examples OP``: a DirectML page's worked examples, run while building."""

    required_arguments = 1
    option_spec = {"deterministic": directives.flag}  # noqa: RUF012

    def run(self) -> list[nodes.Node]:
        _depend_on_the_code(self)
        op = self.arguments[0]
        if op != VIEW and op not in BUILDERS:
            raise self.error(f"no desc builder for {op!r}")
        found = doc_examples.entries(op)
        if not found:
            raise self.error(f"no DirectML doc example of {op!r}")
        out: list[nodes.Node] = []
        for e in found:
            out += self._render(e)
        return out

    def _warn(self, message: str) -> None:
        logger.warning(message, location=(self.env.docname, self.lineno))

    def _header(self, e: doc_examples.Entry) -> list[nodes.Node]:
        rubric = nodes.rubric(text=_title(e))
        status_name = str(e["status"])
        status = _para(_STATUS.get(status_name, status_name), " Source: ")
        url = _url(e)
        if url:
            status += nodes.reference("", "the DirectML documentation", refuri=url)
        else:
            status += nodes.Text("the DirectML documentation")
        status += nodes.Text("; example ")
        status += nodes.literal(text=e["id"])
        status += nodes.Text(" of dml-doc-examples.json.")
        out: list[nodes.Node] = [rubric, status]
        if e.get("notes"):
            out.append(_para("The examples file notes: " + e["notes"]))
        return out

    def _render(self, e: doc_examples.Entry) -> list[nodes.Node]:
        shown = doc_examples.CHECKED_STATUSES | {
            doc_examples.REFUSED_STATUS,
            doc_examples.SIZES_ONLY_STATUS,
        }
        if e["status"] not in shown:
            return []
        out = self._header(e)
        with _x64_scope(e):
            if e["op"] == VIEW:
                out += self._render_view(e)
            elif e["status"] == doc_examples.REFUSED_STATUS:
                out += self._render_refused(e)
            elif e["status"] == doc_examples.SIZES_ONLY_STATUS:
                out += self._render_sizes_only(e)
            else:
                out += self._render_run(e)
        return out

    def _render_run(self, e: doc_examples.Entry) -> list[nodes.Node]:
        example = doc_examples.build(e, BUILDERS)
        deterministic = "deterministic" in self.options
        names = [_snake(name) for name in e["inputs"]]
        options = ", deterministic=True" if deterministic else ""
        source = "\n".join(
            [
                desc_code(example.desc),
                *(_array_code(n, a) for n, a in zip(names, example.inputs, strict=True)),
                f"output = dml.compile_operator(desc{options})({', '.join(names)})"
                + ("" if example.output_index is None else f"[{example.output_index}]"),
            ]
        )
        try:
            op = dml.compile_operator(example.desc, deterministic=deterministic)
            actual = example.shown(op(*example.inputs))
        except Exception as error:
            self._warn(f"{e['id']}: dmljax failed: {error}")
            return [_code(source)]
        expected = example.expected
        if (
            actual.dtype != expected.dtype
            or actual.shape != expected.shape
            or not np.array_equal(actual, expected)
        ):
            self._warn(
                f"{e['id']}: dmljax gives {_array_text(actual)} ({actual.dtype}), the page "
                f"{_array_text(expected)} ({expected.dtype})"
            )
        return [
            _code(source),
            _para(
                f"output ({actual.dtype.name}, shape {actual.shape}), computed by dmljax when "
                "this page was built; it equals the page's:"
            ),
            _code(_array_text(actual), "text"),
        ]

    def _render_refused(self, e: doc_examples.Entry) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        try:
            desc = BUILDERS[e["op"]](e)
            out.append(_code(desc_code(desc) + "\ndml.compile_operator(desc)"))
            dml.compile_operator(desc)
        except dml.errors.InvalidArgumentError as error:
            out.append(_para("dmljax raises InvalidArgumentError:"))
            out.append(_code(str(error), "text"))
            return out
        self._warn(f"{e['id']}: dmljax accepts an example the DirectML page gets wrong")
        return out

    def _render_sizes_only(self, e: doc_examples.Entry) -> list[nodes.Node]:
        desc = BUILDERS[e["op"]](e)
        out: list[nodes.Node] = [_code(desc_code(desc) + "\ndml.compile_operator(desc)")]
        try:
            dml.compile_operator(desc)
        except dml.errors.InvalidArgumentError as error:
            self._warn(f"{e['id']}: dmljax refuses the page's sizes: {error}")
            return out
        out.append(_para("dmljax accepts these sizes when this page is built."))
        return out

    def _render_view(self, e: doc_examples.Entry) -> list[nodes.Node]:
        attrs = e["attrs"]
        buffer = doc_examples.tensor_of(e["inputs"]["Buffer"])
        expected = doc_examples.tensor_of(e["expected"])
        desc = dml.TensorDesc(
            data_type=dml.DataType[e["expected"]["dtype"]],
            sizes=tuple(attrs["Sizes"]),
            strides=tuple(attrs["Strides"]),
        )
        source = "\n".join(
            [
                f"desc = {_value_code(desc)}",
                _array_code("buffer", buffer),
                "view = dml.from_strided_buffer(buffer, desc)",
            ]
        )
        actual = np.asarray(dml.from_strided_buffer(buffer, desc))
        if actual.shape != expected.shape or not np.array_equal(actual, expected):
            self._warn(f"{e['id']}: dmljax reads {_array_text(actual)}")
        out: list[nodes.Node] = [_code(source)]
        if attrs.get("letters"):
            out.append(_para(f"Letters as numbers: {attrs['letters']}."))
        out += [
            _para("view, computed by dmljax when this page was built; it equals the page's:"),
            _code(_array_text(actual), "text"),
        ]
        return out


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("dml-support-table", SupportTable)
    app.add_directive("dml-operator-summary", OperatorSummary)
    app.add_directive("dml-operator-api", OperatorApi)
    app.add_directive("dml-doc-examples", DocExamples)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
