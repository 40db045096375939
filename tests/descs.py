"""Test descs: how they are built, run and refused, and a valid desc of the operators
several test files share.

:func:`desc_builder` makes a builder of one desc type whose every field is overridable
by keyword: ``scatter()`` below is valid as it stands and ``scatter(axis=4)`` breaks
one rule. :func:`rule_table_test` turns an operator's rule table into a test. Operators
that share rules (``ops/elements.py``, ``ops/nd.py``) check them on the builders here,
each rule once for all of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest

import dmljax as dml
from dmljax._src.contract import tensor_fields
from dmljax._src.ops import OPERATORS
from tests.helpers import refused


@dataclasses.dataclass(frozen=True)
class SameAs:
    """A :func:`desc_builder` default that is another keyword's value, as built."""

    keyword: str


def desc_builder(
    desc_type: type, /, *, aliases: dict[str, str] | None = None, **valid: Any
) -> Callable[..., Any]:
    """A builder of ``desc_type`` descs for tests, valid as it stands, each field overridable.

    Keywords name what a rule table spoils: ``<t>_sizes`` for the tensor field
    ``<t>_tensor`` (None leaves an optional tensor out); ``data_type`` for the
    operator's data tensors (``Operator.same_data_type``, FLOAT32 by default),
    ``index_type`` for its other tensors (UINT32 by default); ``<t>_data_type`` for
    one tensor's own; an attribute by its field name. A default may be
    ``SameAs("<keyword>")``: the value that keyword has in the same call. ``aliases``
    gives keywords shorter names (``{"offsets": "input_window_offsets"}``). A tensor
    field's own name sets the whole field (a TensorDesc, a tuple of them, or anything
    a bad-input test spoils it with); None there means the sizes keywords build it.
    Positional arguments are whole fields, in the desc's order.

    >>> build = desc_builder(dml.TileOperatorDesc, input_sizes=(2,),
    ...                      output_sizes=SameAs("input_sizes"), repeats=(1,))
    >>> out = build(input_sizes=(3,), output_data_type=dml.DataType.INT8).output_tensor
    >>> out.sizes, out.data_type.name
    ((3,), 'INT8')
    """
    operator = next(op for op in OPERATORS if op.desc_type is desc_type)
    in_order = [field.name for field in dataclasses.fields(desc_type)]
    tensors = {field.name: field.name.removesuffix("_tensor") for field in tensor_fields(desc_type)}
    attributes = set(in_order) - set(tensors)
    per_tensor = (f"{stem}{end}" for stem in tensors.values() for end in ("_sizes", "_data_type"))
    known = {"data_type", "index_type", *attributes, *tensors, *per_tensor}
    renamed = aliases or {}

    def build(*positional: Any, **overrides: Any) -> Any:
        overrides = {**dict(zip(in_order, positional, strict=False)), **overrides}
        given = {"data_type": dml.DataType.FLOAT32, "index_type": dml.DataType.UINT32,
                 **valid, **overrides}  # fmt: skip
        given = {renamed.get(keyword, keyword): v for keyword, v in given.items()}
        unknown = sorted(set(given) - known)
        if unknown:
            raise TypeError(f"{desc_type.__name__} has no field for {unknown}")

        def value(keyword: str) -> Any:
            v = given.get(keyword)
            return value(v.keyword) if isinstance(v, SameAs) else v

        fields = {name: value(name) for name in attributes if name in given}
        for name, stem in tensors.items():
            whole, sizes = value(name), value(f"{stem}_sizes")
            if whole is not None:
                fields[name] = whole
            elif sizes is not None:
                kind = "data_type" if name in operator.same_data_type else "index_type"
                data_type = value(f"{stem}_data_type") or value(kind)
                fields[name] = dml.TensorDesc(data_type=data_type, sizes=sizes)
        return desc_type(**fields)

    return build


def run_desc(desc: Any, *arrays: Any, **options: Any) -> Any:
    """``compile_operator(desc, **options)(*arrays)`` with 64-bit types enabled (a
    desc's 64-bit tensors need them), as NumPy arrays (a tuple for several outputs)."""
    with jax.enable_x64(True):
        return jax.tree.map(np.asarray, dml.compile_operator(desc, **options)(*arrays))


Rule = tuple[dict[str, Any], str, str]
"""One row of a rule table: ``(overrides, field, fragment)``: the desc built with
``overrides`` breaks a rule, and ``compile_operator`` names ``field`` in an error
whose message matches ``fragment``."""


def rule_table_test(
    build: Callable[..., Any] | dict[str, Callable[..., Any]], rules: list[Rule]
) -> Callable[..., None]:
    """A test of every row of a rule table, each against ``build(**overrides)``: assign
    it to a ``test_...`` name in a test file.

    ``build`` may be several builders by name (a rule that operators share): then
    every row runs on each. ``build()`` with no overrides must be valid; the test
    checks that too.
    """
    builds = build if isinstance(build, dict) else {"": build}

    @pytest.mark.parametrize("name", list(builds), ids=list(builds))
    @pytest.mark.parametrize(
        ("overrides", "field", "fragment"), [pytest.param({}, "", "", id="valid"), *rules]
    )
    def test(name: str, overrides: dict[str, Any], field: str, fragment: str) -> None:
        build = builds[name]
        valid = build()
        if not overrides:
            dml.compile_operator(valid)  # the table's starting point
            return
        try:
            desc = build(**overrides)
        except dml.errors.ArgumentError:  # a rule of the desc's own, checked as it is built
            error = refused(lambda: build(**overrides), field=field, match=fragment,
                            op=type(valid).__name__)  # fmt: skip
        else:
            error = refused(lambda: dml.compile_operator(desc), field=field, match=fragment,
                            op=type(desc).__name__)  # fmt: skip
        assert field in str(error), "the message names the field"

    return test


# A 3x3 data tensor indexed along axis 2 by 2x3 element indices.
_ELEMENTS: dict[str, Any] = dict(input_sizes=(1, 1, 3, 3), indices_sizes=(1, 1, 2, 3), axis=2)

gather_elements = desc_builder(
    dml.GatherElementsOperatorDesc, **_ELEMENTS, output_sizes=SameAs("indices_sizes")
)
scatter = desc_builder(
    dml.ScatterOperatorDesc,
    **_ELEMENTS,
    updates_sizes=SameAs("indices_sizes"),
    output_sizes=SameAs("input_sizes"),
)
# Four 1-tuples into a 3x2 tensor: four rows of 2, gathered or scattered.
_INDEX_TUPLES: dict[str, Any] = dict(
    input_sizes=(3, 2), indices_sizes=(4, 1), input_dimension_count=2, indices_dimension_count=2
)
gather_nd = desc_builder(dml.GatherNdOperatorDesc, **_INDEX_TUPLES, output_sizes=(4, 2))
gather_nd1 = desc_builder(
    dml.GatherNd1OperatorDesc, **_INDEX_TUPLES, output_sizes=(4, 2), batch_dimension_count=0
)
scatter_nd = desc_builder(
    dml.ScatterNdOperatorDesc,
    **_INDEX_TUPLES,
    updates_sizes=(4, 2),
    output_sizes=SameAs("input_sizes"),
)

gather = desc_builder(
    dml.GatherOperatorDesc,
    input_sizes=(1, 1, 3, 2),
    indices_sizes=(1, 1, 1, 4),
    output_sizes=(1, 1, 4, 2),
    axis=2,
    index_dimensions=1,
)

# SLICE1's window reads rows 3 and 1 (stride -2) and columns 1 and 3 of a 4x4 input.
slice1 = desc_builder(
    dml.Slice1OperatorDesc,
    aliases={"offsets": "input_window_offsets", "sizes": "input_window_sizes",
             "strides": "input_window_strides"},
    input_sizes=(1, 1, 4, 4),
    output_sizes=(1, 1, 2, 2),
    offsets=(0, 0, 0, 1),
    sizes=(1, 1, 4, 3),
    strides=(1, 1, -2, 2),
)  # fmt: skip

slice = desc_builder(
    dml.SliceOperatorDesc,
    input_sizes=(1, 1, 4, 4),
    output_sizes=(1, 1, 2, 2),
    offsets=(0, 0, 1, 0),
    sizes=(1, 1, 2, 2),
    strides=(1, 1, 2, 3),
)

# The gradient of a 2x2 window that SLICE1 read from 4x4 with strides 2.
slice_grad = desc_builder(
    dml.SliceGradOperatorDesc,
    aliases={"dy_sizes": "input_gradient_sizes", "sizes": "output_gradient_sizes",
             "output_data_type": "output_gradient_data_type", "offsets": "input_window_offsets",
             "window": "input_window_sizes", "strides": "input_window_strides"},
    dy_sizes=(2, 2),
    sizes=(4, 4),
    offsets=(0, 0),
    window=(4, 4),
    strides=(2, 2),
)  # fmt: skip
