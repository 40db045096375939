"""PADDING1's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.padding1` declares, loaded on use only.
"""

from __future__ import annotations

from dmljax._src.checking.doc_entries import Entry, tensor_desc_of
from dmljax._src.checking.operator_checks import OperatorChecks
from dmljax._src.checking.operators.padding import doc_example_face
from dmljax._src.dtypes import DataType
from dmljax._src.ops.padding1 import PADDING1, Padding1OperatorDesc


def _doc_example(e: Entry) -> Padding1OperatorDesc:
    attrs = e["attrs"]
    return Padding1OperatorDesc(
        input_tensor=tensor_desc_of(e["inputs"]["InputTensor"]),
        output_tensor=tensor_desc_of(e["expected"]),
        padding_mode=attrs["PaddingMode"],
        padding_value_data_type=DataType[attrs["PaddingValueDataType"]],
        padding_value=attrs.get("PaddingValue", 0),
        start_padding=tuple(attrs["StartPadding"]),
        end_padding=tuple(attrs["EndPadding"]),
    )


CHECKS = OperatorChecks(
    PADDING1,
    doc_example=_doc_example,
    doc_example_face=doc_example_face,
)
