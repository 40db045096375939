"""PADDING1's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.padding1` declares, loaded on use only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dmljax._src.checking.operator_checks import (
    FLOATS,
    INTS_8_32,
    TYPES_64,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.checking.operators.padding import doc_example_face
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.padding import PaddingMode
from dmljax._src.ops.padding1 import PADDING1, Padding1OperatorDesc
from dmljax._src.tensor_desc import TensorDesc

# PADDING1 was introduced at FL 5_0 with PADDING's last row.
DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_5_0: ((1, 8), FLOATS | INTS_8_32 | TYPES_64, None),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type
    sizes = (2,) * rank
    desc = Padding1OperatorDesc(
        input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        output_tensor=TensorDesc(data_type=data_type, sizes=(3,) * rank),
        padding_mode=PaddingMode.CONSTANT,
        padding_value_data_type=data_type,
        padding_value=5,
        start_padding=(1,) * rank,
        end_padding=(0,) * rank,
    )
    return desc, (data_of(sizes, data_type),)


CHECKS = OperatorChecks(
    PADDING1,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    doc_example_face=doc_example_face,
)
