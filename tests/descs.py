"""A valid desc of each operator for tests, every field overridable by keyword.

Each is a :func:`tests.helpers.desc_builder`: ``scatter()`` is valid as it stands
and ``scatter(axis=4)`` breaks one rule. Operators that share rules (``ops/elements.py``,
``ops/nd.py``) check them on the builders here, each rule once for all of them.
"""

from __future__ import annotations

import dmljax as dml
from tests.helpers import SameAs, desc_builder

# A 3x3 data tensor indexed along axis 2 by 2x3 element indices.
_ELEMENTS = dict(input_sizes=(1, 1, 3, 3), indices_sizes=(1, 1, 2, 3), axis=2)

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
