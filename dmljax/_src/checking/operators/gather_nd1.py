"""GATHER_ND1's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.gather_nd1` declares, loaded on use only.
"""

from __future__ import annotations

from dmljax._src.checking.operator_checks import OperatorChecks
from dmljax._src.checking.operators.gather_nd import gather_nd_doc_example_face
from dmljax._src.ops.gather_nd1 import GATHER_ND1

CHECKS = OperatorChecks(
    GATHER_ND1,
    doc_example_face=gather_nd_doc_example_face,
)
