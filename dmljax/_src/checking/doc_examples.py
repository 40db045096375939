"""The worked examples of DirectML's operator pages, as descs, arrays and checks.

``data/dml-doc-examples.json`` holds each example as data (see
``data/README.md``). A *builder* turns one entry into the operator desc it
describes; :data:`BUILDERS` maps each ``DML_OPERATOR_*`` name with an
implemented operator to its builder, and :func:`check` runs an entry the way
``python -m dmljax selftest`` and the tests do. Entries of operators without a
builder are skipped. To cover a new operator, add its builder to
:data:`BUILDERS`: a function of the entry that returns the desc, reading sizes
and data types only (never ``data``, which an as-written example may get wrong).
:data:`COMPILE_OPTIONS` holds the ``compile_operator`` options an operator's
examples need, and :data:`FUNCTIONAL_FACES` a second way to compute an
operator's examples, checked as well.

The strided buffer views of DirectML's strides page (``BUFFER_TENSOR_VIEW``)
are no operator: they are read through a TILE of repeats 1 whose input desc
has the view's sizes and strides, and through :func:`dmljax.from_strided_buffer`.

>>> example = build(entry("tile-ex1"))
>>> example.desc.repeats, [x.shape for x in example.inputs], example.expected.shape
((1, 1, 3, 3), [(1, 1, 2, 3)], (1, 1, 6, 9))
>>> check(entry("gather-ex3-doc-as-written")).passed
True
>>> outcome = check(entry("scatter-ex1"))  # index 3 is written twice: the last update wins
>>> outcome.passed, outcome.detail
(True, 'deterministic=True')
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import pathlib
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import jax
import numpy as np

import dmljax as dml
from dmljax._src.c_names import pascal_case
from dmljax._src.checking.doc_entries import Entry, tensor_desc_of, tensor_of
from dmljax._src.checking.operators import all_checks
from dmljax._src.dxdispatch.dispatchables import desc_of
from dmljax._src.text import describe_error

__all__ = [
    "BUILDERS",
    "CHECKED_STATUSES",
    "COMPILE_OPTIONS",
    "FUNCTIONAL_FACES",
    "OWN_STATUS",
    "PATH",
    "REFUSED_STATUS",
    "SIZES_ONLY_STATUS",
    "DocExample",
    "Outcome",
    "build",
    "check",
    "difference",
    "entries",
    "entry",
    "generic_builder",
    "name_in_examples",
    "tensor_desc_of",
    "tensor_of",
]

PATH = pathlib.Path(__file__).parent / "data" / "dml-doc-examples.json"

# An example of dmljax's own, declared in a companion for a page without any: its output
# worked out by hand from the page's rules, checked like the page's examples.
OWN_STATUS = "dmljax"
# Examples that must give their expected output, and the status of those that must be refused.
CHECKED_STATUSES = frozenset({"valid", "corrected", "encoded", OWN_STATUS})
REFUSED_STATUS = "doc-as-written-invalid"
# Examples of a size formula without data: their desc must compile, output sizes included.
SIZES_ONLY_STATUS = "shape-only"

DescBuilder = Callable[[Entry], Any]


@functools.cache
def _load() -> tuple[Entry, ...]:
    # The file's examples, then those the companions declare (OperatorChecks.examples).
    declared = [e for checks in all_checks().values() for e in checks.examples]
    return (*json.loads(PATH.read_text()), *declared)


def entries(op: str | None = None) -> list[Entry]:
    """Every doc example, or those of one ``DML_OPERATOR_*`` name, in file order."""
    return [e for e in _load() if op is None or e["op"] == op]


def entry(example_id: str) -> Entry:
    """One doc example by its id, e.g. ``"gather-ex1"``."""
    for e in _load():
        if e["id"] == example_id:
            return e
    raise KeyError(f"no DirectML doc example has the id {example_id!r}")


def _buffer_view(e: Entry) -> dml.TileOperatorDesc:
    """A TILE of repeats 1 whose input desc is the view: the operator copies what it reads."""
    view = dml.TensorDesc(
        data_type=dml.DataType[e["inputs"]["Buffer"]["dtype"]],
        sizes=tuple(e["attrs"]["Sizes"]),
        strides=tuple(e["attrs"]["Strides"]),
    )
    return dml.TileOperatorDesc(
        input_tensor=view,
        output_tensor=tensor_desc_of(e["expected"]),
        repeats=(1,) * view.dimension_count,
    )


def name_in_examples(operator: dml.Operator[Any]) -> str:
    """The name the examples file gives ``operator``: its own, or the alias its entries use.

    >>> scatter = next(op for op in dml.OPERATORS if op.name == "DML_OPERATOR_SCATTER")
    >>> name_in_examples(scatter)
    'DML_OPERATOR_SCATTER_ELEMENTS'
    """
    for name in (operator.name, *operator.aliases):
        if entries(name):
            return name
    return operator.name


def generic_builder(operator: dml.Operator[Any]) -> DescBuilder:
    """The builder of an operator whose examples name its C struct's fields: DxDispatch's
    reading of a desc object (:func:`dmljax._src.dxdispatch.dispatchables.desc_of`).

    An entry's inputs are its input tensors (``InputTensors[1]`` an element of a tensor
    array), ``expected`` its one output tensor, and its capitalized attributes the other
    fields; lower-case ones (``shape_only``) are notes for the checks.

    >>> tile = next(op for op in dml.OPERATORS if op.name == "DML_OPERATOR_TILE")
    >>> generic_builder(tile)(entry("tile-ex1")).repeats
    (1, 1, 3, 3)
    """
    (output,) = operator.output_fields

    def build(e: Entry) -> Any:
        fields: dict[str, Any] = {}
        for key, tensor in e["inputs"].items():
            described = {"DataType": tensor["dtype"], "Sizes": tensor["sizes"]}
            element = re.fullmatch(r"(\w+)\[\d+\]", key)
            if element is None:
                fields[key] = described
            else:
                fields.setdefault(element.group(1), []).append(described)
        expected = e["expected"]
        fields[pascal_case(output)] = {"DataType": expected["dtype"], "Sizes": expected["sizes"]}
        fields |= {key: value for key, value in e["attrs"].items() if key[:1].isupper()}
        return desc_of(operator, fields, e["id"])

    return build


BUILDERS: dict[str, DescBuilder] = {
    **{
        name_in_examples(checks.operator): checks.doc_example or generic_builder(checks.operator)
        for checks in all_checks().values()
        if entries(name_in_examples(checks.operator))
    },
    "BUFFER_TENSOR_VIEW": _buffer_view,
}

COMPILE_OPTIONS: dict[str, Mapping[str, Any]] = {
    name_in_examples(checks.operator): checks.doc_example_options
    for checks in all_checks().values()
    if checks.doc_example_options
}


@dataclasses.dataclass(frozen=True)
class DocExample:
    """A doc example ready to run.

    Attributes:
        id: the entry's id, e.g. ``"tile-ex1"``.
        desc: the operator desc the example describes.
        inputs: the input arrays in DirectML's binding order (the entry's order).
        expected: the documented output.
        options: the keyword arguments of ``dml.compile_operator`` it runs with.
        output_index: which output ``expected`` is, for an operator with several
            (SPLIT's pages show each output apart; None for one output).
    """

    id: str
    desc: Any
    inputs: tuple[np.ndarray, ...]
    expected: np.ndarray
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    output_index: int | None = None

    def shown(self, result: Any) -> np.ndarray:
        """The output of ``result`` (an operator's result) that the example shows."""
        if self.output_index is not None:
            result = result[self.output_index]
        return np.asarray(result)


def _read_view(example: DocExample) -> jax.Array:
    """The buffer of a BUFFER_TENSOR_VIEW example read without an operator."""
    return dml.from_strided_buffer(example.inputs[0], example.desc.input_tensor)


# A second computation of an operator's examples, named for the table, that must also give
# the documented output: the strided views are read by the function a port calls directly.
FUNCTIONAL_FACES: dict[str, tuple[str, Callable[[DocExample], Any]]] = {
    "BUFFER_TENSOR_VIEW": ("dml.from_strided_buffer", _read_view),
    **{
        name_in_examples(checks.operator): ("functional face", checks.doc_example_face)
        for checks in all_checks().values()
        if checks.doc_example_face is not None
    },
}


def build(e: Entry, builders: Mapping[str, DescBuilder] | None = None) -> DocExample:
    """The desc and arrays of an entry whose operator has a builder.

    Raises:
        KeyError: no builder for the entry's operator.
    """
    builder = (BUILDERS if builders is None else builders)[e["op"]]
    return DocExample(
        id=e["id"],
        desc=builder(e),
        inputs=tuple(tensor_of(tensor) for tensor in e["inputs"].values()),
        expected=tensor_of(e["expected"]),
        options=dict(COMPILE_OPTIONS.get(e["op"], {})),
        output_index=e["attrs"].get("output_index"),
    )


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What checking one entry gave.

    Attributes:
        id, op, status: the entry's.
        passed: True or False, or None when the entry was skipped.
        detail: why it failed or was skipped, or the refusal message of an
            example that had to be refused.
    """

    id: str
    op: str
    status: str
    passed: bool | None
    detail: str = ""


def _tensors(e: Entry) -> Iterable[Entry]:
    yield from e["inputs"].values()
    yield e["expected"]


def _x64_scope(e: Entry) -> contextlib.AbstractContextManager[Any]:
    # 64-bit examples need jax_enable_x64; the others run under the caller's setting.
    needs_x64 = any(dml.DataType[t["dtype"]].is_64_bit for t in _tensors(e))
    return jax.enable_x64(True) if needs_x64 else contextlib.nullcontext()


def check(e: Entry, builders: Mapping[str, DescBuilder] | None = None) -> Outcome:
    """Runs one entry through ``dml.compile_operator`` at ``FeatureLevel.LATEST``.

    A valid, corrected or encoded example passes when the compiled operator
    (with the operator's :data:`COMPILE_OPTIONS`), and its functional face in
    :data:`FUNCTIONAL_FACES` if it has one, give exactly the expected output
    (values, sizes and dtype); an example the docs get wrong
    (``doc-as-written-invalid``) passes when building or compiling its desc
    raises ``InvalidArgumentError``; a size-formula example without data
    (``shape-only``) passes when its desc, with the page's sizes, compiles.
    Never raises.
    """
    builders = BUILDERS if builders is None else builders
    outcome = functools.partial(Outcome, e["id"], e["op"], e["status"])
    if e["op"] not in builders:
        return outcome(None, "no builder for this operator")
    if e["status"] not in CHECKED_STATUSES | {REFUSED_STATUS, SIZES_ONLY_STATUS}:
        return outcome(None, f"status {e['status']} has nothing to run")
    try:
        with _x64_scope(e):
            if e["status"] == REFUSED_STATUS:
                return _check_refused(e, builders, outcome)
            if e["status"] == SIZES_ONLY_STATUS:
                desc = builders[e["op"]](e)
                dml.compile_operator(
                    desc, feature_level=dml.FeatureLevel.LATEST, **COMPILE_OPTIONS.get(e["op"], {})
                )
                return outcome(True, "sizes only: the desc with the page's sizes compiles")
            example = build(e, builders)
            op = dml.compile_operator(
                example.desc, feature_level=dml.FeatureLevel.LATEST, **example.options
            )
            actual = example.shown(op(*example.inputs))
    except Exception as error:  # any failure is the example's verdict, not a crash
        return outcome(False, describe_error(error))
    wrong = difference(actual, example.expected)
    if wrong:
        return outcome(False, wrong)
    notes = [f"{name}={value}" for name, value in example.options.items()]
    face = FUNCTIONAL_FACES.get(e["op"])
    if face is not None:
        name, compute = face
        wrong = _functional_difference(e, example, compute)
        if wrong:
            return outcome(False, f"{name}: {wrong}")
        notes.append(f"also {name}")
    return outcome(True, ", ".join(notes))


def difference(actual: np.ndarray, expected: np.ndarray) -> str:
    """How ``actual`` differs from the documented output; empty when it is exactly that."""
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return (
            f"got {actual.dtype}{list(actual.shape)}, expected {expected.dtype}"
            f"{list(expected.shape)}"
        )
    # The same values and signs (-0.0 is not 0.0), and a NaN where the docs have one (its
    # payload and sign are the backend's: IEEE's inf - inf).
    if np.issubdtype(expected.dtype, np.floating):
        nan = np.isnan(expected)
        equal = (actual == expected) & (np.signbit(actual) == np.signbit(expected))
        same = np.where(nan, np.isnan(actual), equal)
    else:
        same = actual == expected
    if not same.all():
        wrong = int(np.sum(~same))
        return f"{wrong} of {expected.size} elements differ from the docs"
    return ""


def _functional_difference(
    e: Entry, example: DocExample, compute: Callable[[DocExample], Any]
) -> str:
    """:func:`_difference` of a functional face's output, or the error it raised."""
    try:
        with _x64_scope(e):
            actual = example.shown(compute(example))
    except Exception as error:  # reported like a wrong value
        return describe_error(error)
    return difference(actual, example.expected)


def _check_refused(
    e: Entry, builders: Mapping[str, DescBuilder], outcome: Callable[..., Outcome]
) -> Outcome:
    try:
        desc = builders[e["op"]](e)
        dml.compile_operator(
            desc, feature_level=dml.FeatureLevel.LATEST, **COMPILE_OPTIONS.get(e["op"], {})
        )
    except dml.errors.InvalidArgumentError as error:
        return outcome(True, f"refused: {error}")
    return outcome(False, "accepted, but the docs' example breaks the operator's rules")
