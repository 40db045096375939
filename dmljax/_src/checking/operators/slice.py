"""SLICE's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.slice` declares, loaded on use only.
"""

from __future__ import annotations

from dmljax._src.checking.operator_checks import OperatorChecks
from dmljax._src.ops.slice import SLICE

# Its doc examples go through the generic builder, and SLICE1's face, sweep and bench
# serve it (Operator(served_by=...)).
CHECKS = OperatorChecks(SLICE)
