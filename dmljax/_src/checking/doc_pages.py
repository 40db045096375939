"""The docs' generated parts, written into the Markdown pages themselves.

A page holds each generated part between markers, so that it reads as plain Markdown on
GitHub, on PyPI or in an editor, and Sphinx renders it as it renders the rest (ruff's
formatter leaves it alone: it is written inside ``<!-- fmt: off -->``)::

    <!-- dml:support-table GATHER -->
    ...the table, generated...
    <!-- dml:end -->

The kinds: ``desc-fields`` (every operator's C struct against its dmljax desc),
``support-table NAME`` (an operator's support table per feature level, the
one ``compile_operator`` checks), ``operator-summary`` (when each operator came and
widened), ``doc-examples OP [deterministic]`` (a DirectML page's worked examples, run
through dmljax when written: a disagreement is an error, not a page) and
``operator-api descs|functions|enums`` (the API page's autodoc entries) and
``element-wise-rows`` (every row of the element-wise table, each with its support table
and examples: adding a row adds its docs).
``python docs/generate.py`` rewrites every page; a test fails when one is stale.

>>> text = "Intro\\n<!-- dml:support-table TILE -->\\nold\\n<!-- dml:end -->\\n"
>>> print(render_page(text).splitlines()[4][:45])
`DML_OPERATOR_TILE` exists from FL_1_0. Each
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import re
import types
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import dmljax as dml
from dmljax._src import feature_levels
from dmljax._src.c_names import pascal_case
from dmljax._src.checking import doc_examples
from dmljax._src.checking.api_names import operator_api_names
from dmljax._src.contract import Role
from dmljax._src.enums import DmlEnum
from dmljax._src.ops import element_wise
from dmljax._src.ops.element_wise import ROWS

__all__ = ["desc_code", "render_page", "support_rows"]

_BLOCK = re.compile(r"(<!-- dml:([\w-]+)((?: [\w-]+)*) -->\n)(.*?)(<!-- dml:end -->)", re.DOTALL)
_OPERATORS = {op.name.removeprefix("DML_OPERATOR_"): op for op in dml.OPERATORS}
VIEW = "BUFFER_TENSOR_VIEW"


def render_page(text: str) -> str:
    """``text`` with every generated part written anew."""

    def replace(match: re.Match[str]) -> str:
        kind, arguments = match[2], match[3].split()
        render = _KINDS.get(kind)
        if render is None:
            raise ValueError(f"unknown generated part {kind!r}; one of {', '.join(_KINDS)}")
        # ruff formats the Python blocks of Markdown pages; generated code is as written.
        written = render(*arguments).strip()
        return f"{match[1]}<!-- fmt: off -->\n\n{written}\n\n<!-- fmt: on -->\n{match[5]}"

    return _BLOCK.sub(replace, text)


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + " --- |" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# --- Support tables ------------------------------------------------------------------------------


def _ranks(support: feature_levels.TensorSupport) -> str:
    low, high = support.dimension_counts
    return str(low) if low == high else f"{low} to {high}"


def _columns(support: feature_levels.OperatorSupport) -> list[tuple[str, ...]]:
    """The tensor fields, grouped where their data types agree in every band."""
    groups: list[list[str]] = []
    for field in support.bands[0].tensors:
        for group in groups:
            if all(b.tensors[field] == b.tensors[group[0]] for b in support.bands):
                group.append(field)
                break
        else:
            groups.append([field])
    return [tuple(group) for group in groups]


def support_rows(support: feature_levels.OperatorSupport) -> list[list[str]]:
    """One row per band: the level it starts at, the dimension counts, each group's types."""
    columns = _columns(support)
    return [
        [
            str(band.since),
            _ranks(band.tensors[columns[0][0]]),
            *(feature_levels.format_data_types(band.tensors[g[0]].data_types) for g in columns),
        ]
        for band in support.bands
    ]


def _declared_at(operator: dml.Operator[Any], name: str) -> str:
    """Where ``operator`` is declared: its module's attribute, or its row of a table."""
    module = operator.desc_type.__module__
    row = next((row for row in ROWS if row.operator_name == operator.name), None)
    return f"{module}.{name}" if row is None else f"{module}.ROWS, row {row.name}"


def _support_table(name: str) -> str:
    operator = _OPERATORS.get(name)
    if operator is None:
        raise ValueError(f"no operator {name!r}; one of {', '.join(_OPERATORS)}")
    support = operator.support
    headers = ["From", "Dimensions"]
    headers += [", ".join(f"`{field}`" for field in group) for group in _columns(support)]
    if operator.support_by is None:
        intro = (
            f"`{support.operator}` exists from {support.introduced}. Each row applies from "
            "its level up to the next row's; every level in between (and every level above "
            f"the last row) accepts what the row lists. Generated from "
            f"`{_declared_at(operator, name)}`, the table compile_operator checks."
        )
        return f"{intro}\n\n{_table(headers, support_rows(support))}"
    field, tables = operator.support_by
    intro = (
        f"`{support.operator}` exists from {support.introduced}. Its `{field}` picks the "
        "table a desc is checked against: one per group of values, as the page gives them. "
        "Each row applies from its level up to the next row's; every level in between (and "
        "every level above the last row) accepts what the row lists. Generated from "
        f"`{_declared_at(operator, name)}` (its `support=`), the tables compile_operator "
        "checks."
    )
    parts = [intro]
    for values, table in tables.items():
        names = [f"`{value}`" for value in values]
        heading = " and ".join([", ".join(names[:-1]), names[-1]] if names[1:] else names)
        headers = ["From", "Dimensions"]
        headers += [", ".join(f"`{f}`" for f in group) for group in _columns(table)]
        parts += [f"**{field} {heading}**", _table(headers, support_rows(table))]
    return "\n\n".join(parts)


# --- The operators page --------------------------------------------------------------------------


def _first_level(support: feature_levels.OperatorSupport, test: Callable[[Any], bool]) -> str:
    for band in support.bands:
        if all(test(tensor) for tensor in band.tensors.values()):
            return str(band.since)
    return "never"


def _first_64_bit_data(support: feature_levels.OperatorSupport) -> str:
    data_field = next(iter(support.bands[0].tensors))  # input_tensor: the data
    for band in support.bands:
        types = band.tensors[data_field].data_types
        if any(t.is_64_bit for t in types):
            found = feature_levels.format_data_types(t for t in types if t.is_64_bit)
            return f"{band.since} ({found})"
    return "never"


def _face_of(operator: dml.Operator[Any]) -> str:
    """The functional face that runs the operator: its own, or its server's."""
    server = _OPERATORS[(operator.served_by or operator.name).removeprefix("DML_OPERATOR_")]
    assert server.function is not None, server.name
    return f"dml.{server.function.__name__}"


def _operator_summary() -> str:
    rows = [
        [
            f"`{name}`",
            f"`{operator.desc_type.__name__}`",
            f"`{_face_of(operator)}`",
            str(operator.support.introduced),
            _first_level(operator.support, lambda t: t.allows_rank(1) and t.allows_rank(8)),
            _first_64_bit_data(operator.support),
        ]
        for name, operator in _OPERATORS.items()
    ]
    headers = ["Operator", "dmljax desc", "Function", "Since", "1-8 dims", "64-bit data"]
    return _table(headers, rows)


def _operator_api(kind: str) -> str:
    directive = {"descs": "autoclass", "functions": "autofunction", "enums": "autoclass"}[kind]
    options = ["   :members:", "   :undoc-members:"] if kind == "enums" else []
    blocks = [
        "\n".join(["```{eval-rst}", f".. {directive}:: dmljax.{name}", *options, "```"])
        for name in operator_api_names(kind)
    ]
    return "\n\n".join(blocks)


# --- DirectML doc examples -----------------------------------------------------------------------

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


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _value_code(value: Any) -> str:
    if isinstance(value, dml.TensorDesc):
        strides = "" if value.strides is None else f", strides={value.strides}"
        return (
            f"dml.TensorDesc(data_type=dml.DataType.{value.data_type.name}, "
            f"sizes={value.sizes}{strides})"
        )
    if dataclasses.is_dataclass(value) and type(value).__name__ in dml.__all__:
        return f"dml.{value!r}"  # a public value type: dml.ScaleBias(scale=2.0, bias=1.0)
    return repr(value)


def desc_code(desc: Any, name: str = "desc") -> str:
    """Python source that builds ``desc``, one field per line.

    >>> t = dml.TensorDesc(data_type=dml.DataType.INT8, sizes=(2,))
    >>> print(desc_code(dml.TileOperatorDesc(input_tensor=t, output_tensor=t, repeats=(1,))))
    desc = dml.TileOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=dml.DataType.INT8, sizes=(2,)),
        output_tensor=dml.TensorDesc(data_type=dml.DataType.INT8, sizes=(2,)),
        repeats=(1,),
    )
    """
    lines = [f"{name} = dml.{type(desc).__name__}("]
    for field in dataclasses.fields(desc):
        value = getattr(desc, field.name)
        if value is None and field.default is None:
            continue  # an optional field left out, as a caller leaves it
        lines.append(f"    {field.name}={_value_code(value)},")
    lines.append(")")
    return "\n".join(lines)


def _array_code(name: str, array: np.ndarray) -> str:
    prefix = f"{name} = np.array("
    body = np.array2string(array, separator=", ", prefix=prefix)
    return f"{prefix}{body}, np.{array.dtype.name})"


def _array_text(array: np.ndarray) -> str:
    return np.array2string(np.asarray(array), separator=", ")


def _code(text: str, language: str = "python") -> str:
    return f"```{language}\n{text}\n```"


def _title(e: doc_examples.Entry) -> str:
    """The example's heading, e.g. ``"Example 1. 1D remapping"``."""
    for part in e["source"].split(";"):
        if "(" in part and ")" in part:
            return part[part.index("(") + 1 : part.rindex(")")].strip()
    return e["id"]


def _header(e: doc_examples.Entry) -> list[str]:
    status = str(e["status"])
    match = re.search(r"https://\S+", e["source"])
    source = f"[the DirectML documentation]({match.group(0)})" if match else "the DirectML docs"
    out = [
        f"**{_title(e)}**",
        f"{_STATUS.get(status, status)} Source: {source}; example `{e['id']}` of "
        "dml-doc-examples.json.",
    ]
    if e.get("notes"):
        out.append(f"The examples file notes: {e['notes']}")
    return out


def _x64_scope(e: doc_examples.Entry) -> contextlib.AbstractContextManager[Any]:
    tensors = [*e["inputs"].values(), e["expected"]]
    needs_x64 = any(dml.DataType[t["dtype"]].is_64_bit for t in tensors)
    return jax.enable_x64(True) if needs_x64 else contextlib.nullcontext()


def _doc_examples(op: str, *flags: str) -> str:
    if op != VIEW and op not in doc_examples.BUILDERS:
        raise ValueError(f"no desc builder for {op!r}")
    found = doc_examples.entries(op)
    if not found:
        raise ValueError(f"no DirectML doc example of {op!r}")
    shown = doc_examples.CHECKED_STATUSES | {
        doc_examples.REFUSED_STATUS,
        doc_examples.SIZES_ONLY_STATUS,
    }
    parts: list[str] = []
    for e in found:
        if e["status"] not in shown:
            continue
        parts += _header(e)
        with _x64_scope(e):
            if e["op"] == VIEW:
                parts += _view(e)
            elif e["status"] == doc_examples.REFUSED_STATUS:
                parts += _refused(e)
            elif e["status"] == doc_examples.SIZES_ONLY_STATUS:
                parts += _sizes_only(e)
            else:
                parts += _run(e, deterministic="deterministic" in flags)
    return "\n\n".join(parts)


def _run(e: doc_examples.Entry, *, deterministic: bool) -> list[str]:
    example = doc_examples.build(e, doc_examples.BUILDERS)
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
    op = dml.compile_operator(example.desc, deterministic=deterministic)
    actual = example.shown(op(*example.inputs))
    expected = example.expected
    if doc_examples.difference(actual, expected):
        raise AssertionError(
            f"{e['id']}: dmljax gives {_array_text(actual)} ({actual.dtype}), the page "
            f"{_array_text(expected)} ({expected.dtype})"
        )
    return [
        _code(source),
        f"output ({actual.dtype.name}, shape {actual.shape}), computed by dmljax when this "
        "page was written; it equals the page's:",
        _code(_array_text(actual), "text"),
    ]


def _refused(e: doc_examples.Entry) -> list[str]:
    desc = doc_examples.BUILDERS[e["op"]](e)
    try:
        dml.compile_operator(desc)
    except dml.errors.InvalidArgumentError as error:
        return [
            _code(desc_code(desc) + "\ndml.compile_operator(desc)"),
            "dmljax raises InvalidArgumentError:",
            _code(str(error), "text"),
        ]
    raise AssertionError(f"{e['id']}: dmljax accepts an example the DirectML page gets wrong")


def _sizes_only(e: doc_examples.Entry) -> list[str]:
    desc = doc_examples.BUILDERS[e["op"]](e)
    dml.compile_operator(desc)  # the page's sizes must compile: an error otherwise
    return [
        _code(desc_code(desc) + "\ndml.compile_operator(desc)"),
        "dmljax accepts these sizes.",
    ]


def _view(e: doc_examples.Entry) -> list[str]:
    attrs = e["attrs"]
    buffer = doc_examples.tensor_of(e["inputs"]["Buffer"])
    expected = doc_examples.tensor_of(e["expected"])
    desc = dml.TensorDesc(
        data_type=dml.DataType[e["expected"]["dtype"]],
        sizes=tuple(attrs["Sizes"]),
        strides=tuple(attrs["Strides"]),
    )
    actual = np.asarray(dml.from_strided_buffer(buffer, desc))
    if actual.shape != expected.shape or not np.array_equal(actual, expected):
        raise AssertionError(f"{e['id']}: dmljax reads {_array_text(actual)}")
    source = "\n".join(
        [
            f"desc = {_value_code(desc)}",
            _array_code("buffer", buffer),
            "view = dml.from_strided_buffer(buffer, desc)",
        ]
    )
    out = [_code(source)]
    if attrs.get("letters"):
        out.append(f"Letters as numbers: {attrs['letters']}.")
    out += [
        "view, computed by dmljax when this page was written; it equals the page's:",
        _code(_array_text(actual), "text"),
    ]
    return out


# --- Every desc's fields, C++ against Python ------------------------------------------------------

_ENUMS = {
    "PaddingMode": "`dml.PaddingMode` (`DML_PADDING_MODE_*`)",
    "DepthSpaceOrder": "`dml.DepthSpaceOrder` (`DML_DEPTH_SPACE_ORDER_*`)",
    "DataType": "`dml.DataType` (`DML_TENSOR_DATA_TYPE_*`)",
}


# The count fields of the arrays that are not one per dimension, and what arrays hold.
_COUNTS = {"repeats": "RepeatsCount", "activation_descs": "ActivationDescCount"}
_ELEMENTS = {"Activation": "activation descs", "float": "floats"}


def _field_rows(desc_type: type) -> list[list[str]]:
    """One row per C struct field group: the C fields, the dmljax field, what it holds."""
    rows = []
    names = {field.name for field in dataclasses.fields(desc_type)}
    counted = False
    for field in dataclasses.fields(desc_type):
        c_name = f"`{pascal_case(field.name)}`"
        kind = str(field.type)
        if field.metadata.get("role") in (Role.INPUT, Role.OUTPUT):
            if field.metadata["many"]:
                count = "InputCount" if field.metadata["role"] is Role.INPUT else "OutputCount"
                rows.append([f"`{count}`, {c_name}", f"`{field.name}`",
                             "a tuple of `TensorDesc` (the count is its length)"])  # fmt: skip
                continue
            held = "`TensorDesc`"
            if field.metadata["optional"]:
                held += ", or None for a null pointer"
            rows.append([c_name, f"`{field.name}`", held])
        elif kind.startswith("tuple"):
            count = _COUNTS.get(field.name, "DimensionCount")
            cells = c_name if counted else f"`{count}`, {c_name}"
            counted = counted or count == "DimensionCount"
            element = next((v for k, v in _ELEMENTS.items() if k in kind), "ints")
            held = f"a tuple of {element} (the count is its length)"
            rows.append([cells, f"`{field.name}`", held])
        elif f"{field.name}_data_type" in names:
            rows.append([c_name, f"`{field.name}`", f"a Python number: the "
                         f"`DML_SCALAR_UNION` member `{field.name}_data_type` names"])  # fmt: skip
        else:
            rows.append([c_name, f"`{field.name}`", _ENUMS.get(kind, f"`{kind}`")])
    return rows


def _desc_fields() -> str:
    """Every operator's C struct against its dmljax desc, field by field."""
    sections = []
    for name, operator in _OPERATORS.items():
        struct = f"DML_{name}_OPERATOR_DESC"
        heading = f"**`{struct}`**: `dml.{operator.desc_type.__name__}`"
        table = _table(["C fields", "dmljax field", "holds"], _field_rows(operator.desc_type))
        sections.append(f"{heading}\n\n{table}")
    return "\n\n".join(sections)


def _element_wise_rows() -> str:
    """Every row of the element-wise table: its formula, its face, what dmljax defines
    where the page is silent, its support table and its worked example."""
    parts: list[str] = []
    for row in ROWS:
        name = row.kind
        parts += [
            f"### {name}",
            f"`{row.page}`: {{py:class}}`dmljax.{row.desc_name}`, {{py:func}}`dmljax.{row.face}`.",
        ]
        parts += [row.notes] if row.notes else []
        parts += [_support_table(name), _doc_examples(row.operator_name)]
    return "\n\n".join(parts)


def _jnp_array_code(array: np.ndarray) -> str:
    """``jnp.array([...], jnp.<dtype>)`` for a small array (infinities and NaNs spelled)."""
    return element_wise.array_code(np.ravel(array).tolist(), np.dtype(array.dtype).name)


def _argument_code(value: Any) -> str:
    """An attribute as a face's argument: an enum member as its lower-case name."""
    return repr(value.function_name if isinstance(value, DmlEnum) else value)


def _takes_arrays_only(row: element_wise.ElementWise) -> bool:
    """Whether the row's namesake takes its arrays alone, the face's attributes being its
    constants (jax.nn.selu's alpha and scale are dml.selu's defaults)."""
    if not row.attributes or row.namesake_module != "jax.nn":
        return False
    return len(inspect.signature(getattr(jax.nn, row.face)).parameters) == row.arity


def _element_wise_porting() -> str:
    """A table row per element-wise face against its jax.numpy namesake, and the calls
    side by side on each row's worked example (outputs computed as the page is written)."""
    rows, calls = [], [">>> import jax.numpy as jnp, dmljax as dml"]
    for row in ROWS:
        if row.served_by:
            continue  # its server's face, on the server's row
        names = tuple(inspect.signature(element_wise.FUNCTIONS[row.face]).parameters)
        face = f"`dml.{row.face}({', '.join(names)})`"
        namesake = row.namesake
        common = "mixed dtypes are refused (jnp promotes)" if row.arity > 1 else ""
        differs = "; ".join(part for part in (row.differs, common) if part) or "nothing"
        namesake_name = f"{row.namesake_module}.{row.face}"
        rows.append([face, f"`{namesake_name}`" if namesake else "none", differs])
        (entry,) = [e for e in doc_examples.entries(row.operator_name)][:1]
        example = doc_examples.build(entry, doc_examples.BUILDERS)
        values = [_argument_code(getattr(example.desc, name)) for name in row.attributes]
        arguments = ", ".join([*(_jnp_array_code(x) for x in example.inputs), *values])
        # jnp's namesake takes no DirectML mode (jnp.round's second argument is decimals),
        # and its bit functions no floats.
        modes = any(name in element_wise.ENUM_ATTRIBUTES for name in row.attributes)
        modes |= row.bitwise and any(jnp.issubdtype(x.dtype, jnp.floating) for x in example.inputs)
        if namesake and _takes_arrays_only(row):  # jax.nn.selu: the face's defaults are its
            arguments = ", ".join(_jnp_array_code(x) for x in example.inputs)
        for caller in (f"dml.{row.face}", namesake_name if namesake and not modes else None):
            if caller is None:
                continue
            # The rows' faces, not dmljax's exports: a new row is exported once its names
            # module is written, in the same run of docs/generate.py.
            faces = types.SimpleNamespace(**element_wise.FUNCTIONS)
            result = eval(f"{caller}({arguments})", {"jnp": jnp, "jax": jax, "dml": faces})
            calls += [f">>> {caller}({arguments})", repr(result)]
    table = _table(["dmljax", "namesake", "what differs"], rows)
    return f"{table}\n\n```python\n" + "\n".join(calls) + "\n\n```"


_KINDS: dict[str, Callable[..., str]] = {
    "element-wise-porting": _element_wise_porting,
    "element-wise-rows": _element_wise_rows,
    "desc-fields": _desc_fields,
    "support-table": _support_table,
    "operator-summary": _operator_summary,
    "operator-api": _operator_api,
    "doc-examples": _doc_examples,
}
