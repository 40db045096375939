"""The index-tuple rules GATHER_ND, GATHER_ND1 and SCATTER_ND share (``ops/nd.py``).

DirectML writes them once for the three operators, and so does dmljax
(:func:`dmljax._src.ops.nd.check_desc`): each row here is checked on every
operator that has it. The block a tuple addresses is GATHER_ND's output and
SCATTER_ND's updates; each operator's own rules are in its test file.
"""

from __future__ import annotations

from typing import Any

import pytest

import dmljax as dml
from tests import helpers

T = dml.DataType
InvalidArgumentError = dml.errors.InvalidArgumentError
_BLOCK_FIELD = {"gather_nd": "output_tensor", "gather_nd1": "output_tensor",
                "scatter_nd": "updates_tensor"}  # fmt: skip


def nd_desc(
    op: str,
    input_sizes: tuple[int, ...] = (3, 2),
    indices_sizes: tuple[int, ...] = (4, 1),
    block_sizes: tuple[int, ...] = (4, 2),
    input_dimension_count: int = 2,
    indices_dimension_count: int = 2,
    index_type: dml.DataType = T.UINT32,
) -> Any:
    """A GATHER_ND, GATHER_ND1 (no batch) or SCATTER_ND desc of FLOAT32 data."""
    counts: dict[str, Any] = dict(
        input_dimension_count=input_dimension_count,
        indices_dimension_count=indices_dimension_count,
    )
    input_tensor = dml.TensorDesc(data_type=T.FLOAT32, sizes=input_sizes)
    indices_tensor = dml.TensorDesc(data_type=index_type, sizes=indices_sizes)
    block = dml.TensorDesc(data_type=T.FLOAT32, sizes=block_sizes)
    if op == "scatter_nd":
        return dml.ScatterNdOperatorDesc(input_tensor=input_tensor, indices_tensor=indices_tensor,
                                         updates_tensor=block, output_tensor=input_tensor,
                                         **counts)  # fmt: skip
    if op == "gather_nd1":
        counts["batch_dimension_count"] = 0
        return dml.GatherNd1OperatorDesc(input_tensor=input_tensor, indices_tensor=indices_tensor,
                                         output_tensor=block, **counts)  # fmt: skip
    return dml.GatherNdOperatorDesc(input_tensor=input_tensor, indices_tensor=indices_tensor,
                                    output_tensor=block, **counts)  # fmt: skip


# (overrides, field, fragment); "block" stands for the operator's block tensor.
SHARED_RULES: list[tuple[dict[str, Any], str, str]] = [
    ({"input_dimension_count": 0}, "input_dimension_count", r"in \[1, 2\]"),
    ({"input_dimension_count": 3}, "input_dimension_count", r"in \[1, 2\]"),
    ({"indices_dimension_count": 0}, "indices_dimension_count", r"in \[1, 2\]"),
    ({"indices_dimension_count": 3}, "indices_dimension_count", r"in \[1, 2\]"),
    ({"input_dimension_count": 1}, "input_tensor.sizes", "1 in the first 1"),
    ({"indices_dimension_count": 1}, "indices_tensor.sizes", "1 in the first 1"),
    ({"indices_sizes": (4, 3), "block_sizes": (1, 4)}, "indices_tensor.sizes[1]", "at most 2"),
    ({"block_sizes": (4, 3)}, "block.sizes", r"\(4, 2\)"),
    ({"block_sizes": (1, 4, 2)}, "block.sizes", "2 dimensions long"),
    ({"index_type": T.FLOAT32}, "indices_tensor.data_type", "one of INT64, INT32"),
    ({"index_type": T.INT16}, "indices_tensor.data_type", "one of"),
    (
        {"input_sizes": (2, 3, 4), "indices_sizes": (5, 2, 1), "block_sizes": (2, 3, 4),
         "input_dimension_count": 3, "indices_dimension_count": 3},
        "indices_dimension_count",
        "dropping leading 1s only",
    ),
    (
        # The pages' prose takes input[(N - t)..] = {5,6,7}; the worked {1,1,2,6,7} is right.
        {"input_sizes": (3, 4, 5, 6, 7), "indices_sizes": (1, 1, 1, 2, 3),
         "block_sizes": (1, 2, 5, 6, 7), "input_dimension_count": 5,
         "indices_dimension_count": 3},
        "block.sizes",
        r"\(1, 1, 2, 6, 7\)",
    ),
]  # fmt: skip


@pytest.mark.parametrize("op", sorted(_BLOCK_FIELD))
@pytest.mark.parametrize(("overrides", "field", "fragment"), SHARED_RULES)
def test_each_shared_rule_names_the_field(op, overrides, field, fragment):
    desc = nd_desc(op, **overrides)
    helpers.refused(
        lambda: dml.compile_operator(desc),
        field=field.replace("block", _BLOCK_FIELD[op]),
        match=fragment,
        op=type(desc).__name__,
    )


@pytest.mark.parametrize("op", sorted(_BLOCK_FIELD))
def test_the_builder_is_valid_as_it_stands(op):
    dml.compile_operator(nd_desc(op))
