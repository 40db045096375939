"""GATHER_ND1's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.gather_nd1` declares, loaded on use only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmljax._src.checking.operator_checks import (
    FLOATS,
    INDEX_TYPES,
    INTS_8_32,
    TYPES_64,
    DocumentedBand,
    OperatorChecks,
)
from dmljax._src.checking.operators.gather_nd import (
    gather_nd_doc_example_face,
    gather_nd_support_case,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.gather_nd1 import GATHER_ND1

# GATHER_ND1 was introduced at FL 3_0 with GATHER_ND's later rows.
DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_3_0: ((1, 8), FLOATS | INTS_8_32, INDEX_TYPES),
    FeatureLevel.FL_4_1: ((1, 8), FLOATS | INTS_8_32 | TYPES_64, INDEX_TYPES),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    return gather_nd_support_case(rank, data_type, index_type, batch=True)


CHECKS = OperatorChecks(
    GATHER_ND1,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    doc_example_face=gather_nd_doc_example_face,
)
