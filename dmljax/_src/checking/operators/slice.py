"""SLICE's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.slice` declares, loaded on use only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmljax._src.checking.operator_checks import (
    FLOATS,
    INTS_8_32,
    INTS_16_32,
    TYPES_64,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.slice import SLICE, SliceOperatorDesc
from dmljax._src.tensor_desc import TensorDesc

DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: (
        (4, 5),
        FLOATS | INTS_16_32,
        None,
    ),
    FeatureLevel.FL_2_1: ((4, 5), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_3_0: ((1, 8), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_4_1: ((1, 8), FLOATS | INTS_8_32 | TYPES_64, None),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type
    sizes = (1,) * (rank - 1) + (5,)
    out = (1,) * (rank - 1) + (2,)
    desc = SliceOperatorDesc(
        input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        output_tensor=TensorDesc(data_type=data_type, sizes=out),
        offsets=(0,) * (rank - 1) + (1,),
        sizes=out,
        strides=(1,) * (rank - 1) + (3,),
    )
    return desc, (data_of(sizes, data_type),)


# Its doc examples go through the generic builder, and SLICE1's face, sweep and bench
# serve it (Operator(served_by=...)).
CHECKS = OperatorChecks(
    SLICE,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
)
