"""SLICE's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.slice` declares, loaded on use only.
"""

from __future__ import annotations

from dmljax._src.checking.doc_entries import Entry, tensor_desc_of
from dmljax._src.checking.operator_checks import OperatorChecks
from dmljax._src.ops.slice import SLICE, SliceOperatorDesc


def _doc_example(e: Entry) -> SliceOperatorDesc:
    return SliceOperatorDesc(
        input_tensor=tensor_desc_of(e["inputs"]["InputTensor"]),
        output_tensor=tensor_desc_of(e["expected"]),
        offsets=tuple(e["attrs"]["Offsets"]),
        sizes=tuple(e["attrs"]["Sizes"]),
        strides=tuple(e["attrs"]["Strides"]),
    )


CHECKS = OperatorChecks(
    SLICE,
    doc_example=_doc_example,
)
