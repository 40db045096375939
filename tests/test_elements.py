"""The element-index rules GATHER_ELEMENTS and SCATTER share (``ops/elements.py``).

DirectML writes them once for both operators, and so does dmljax: each row here is
checked on both. Each operator's own rules are in its test file.
"""

from __future__ import annotations

import dmljax as dml
from tests import descs

T = dml.DataType

test_each_shared_rule_names_the_field = descs.rule_table_test(
    {"gather_elements": descs.gather_elements, "scatter": descs.scatter},
    [
        ({"axis": 4}, "axis", r"in \[0, 4\)"),
        ({"axis": -1}, "axis", r"in \[0, 4\)"),
        # The indices' sizes off the axis are the input's (ONNX allows smaller).
        ({"indices_sizes": (1, 1, 2, 2)}, "indices_tensor.sizes[3]", "equal to input_tensor"),
        ({"indices_sizes": (1, 2, 2, 3)}, "indices_tensor.sizes[1]", "equal to input_tensor"),
        ({"index_type": T.FLOAT32}, "indices_tensor.data_type", "one of"),
        ({"index_type": T.INT8}, "indices_tensor.data_type", "one of"),
    ],
)
