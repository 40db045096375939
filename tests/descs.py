"""A valid desc of each operator for tests, every field overridable by keyword.

Each is a :func:`tests.helpers.desc_builder`: ``scatter()`` is valid as it stands
and ``scatter(axis=4)`` breaks one rule. Operators that share rules (``ops/elements.py``,
``ops/nd.py``) check them on the builders here, each rule once for all of them.
"""

from __future__ import annotations

from typing import Any

import dmljax as dml
from tests.helpers import SameAs, desc_builder

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
# Four 1-tuples into a 3x2 tensor: four rows of 2.
scatter_nd = desc_builder(
    dml.ScatterNdOperatorDesc,
    input_sizes=(3, 2),
    indices_sizes=(4, 1),
    updates_sizes=(4, 2),
    output_sizes=SameAs("input_sizes"),
    input_dimension_count=2,
    indices_dimension_count=2,
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
