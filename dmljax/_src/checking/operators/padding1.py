"""PADDING1's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.padding1` declares, loaded on use only.
"""

from __future__ import annotations

from dmljax._src.checking.operator_checks import OperatorChecks
from dmljax._src.checking.operators.padding import doc_example_face
from dmljax._src.ops.padding1 import PADDING1

CHECKS = OperatorChecks(
    PADDING1,
    doc_example_face=doc_example_face,
)
