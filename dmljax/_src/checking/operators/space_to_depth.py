"""SPACE_TO_DEPTH's and SPACE_TO_DEPTH1's reference, doc examples, selftest sweep and
bench cases: what checks and measures :mod:`dmljax._src.ops.space_to_depth`, loaded on
use only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking import sweeps
from dmljax._src.checking.operator_checks import (
    FLOATS,
    INTS_8_32,
    TYPES_64,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.space_to_depth import (
    SPACE_TO_DEPTH,
    SPACE_TO_DEPTH1,
    DepthSpaceOrder,
    SpaceToDepth1OperatorDesc,
    SpaceToDepthOperatorDesc,
    space_to_depth,
)
from dmljax._src.tensor_desc import TensorDesc

__all__ = ["CHECKS", "depth_channel", "reference_space_to_depth"]


def depth_channel(
    channel: Any, row: Any, column: Any, *, channels: int, block: int, order: str
) -> Any:
    """The depth index of (input channel, block row, block column), as
    ``DML_DEPTH_SPACE_ORDER``'s page defines it: ``(BlockHeight, BlockWidth, Channels)``
    flattened for DCR, ``(Channels, BlockHeight, BlockWidth)`` for CRD."""
    if order == "DCR":
        return (row * block + column) * channels + channel
    return (channel * block + row) * block + column


def reference_space_to_depth(x: np.ndarray, block: int, order: str = "DCR") -> np.ndarray:
    """Every output element read from its input position, index by index (the oracle).

    >>> reference_space_to_depth(np.arange(4).reshape(1, 2, 2), 2).ravel().tolist()
    [0, 1, 2, 3]
    """
    *batch, channels, height, width = x.shape
    out = np.empty((*batch, channels * block * block, height // block, width // block), x.dtype)
    c, h, w = np.indices((channels, height, width))
    depth = depth_channel(c, h % block, w % block, channels=channels, block=block, order=order)
    out[..., depth, h // block, w // block] = x[..., c, h, w]
    return out


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.space_to_depth`` of rank 3 to 4, blocks of 1 to 3, both orders."""
    block = int(rng.integers(1, 3, endpoint=True))
    order = str(rng.choice(["DCR", "CRD"]))
    lead = sweeps.draw_shape(rng, int(rng.integers(0, 1, endpoint=True)), 1, 2)
    shape = (*lead, int(rng.integers(1, 3, endpoint=True)), *(
        block * int(rng.integers(1, 3, endpoint=True)) for _ in range(2)))  # fmt: skip
    xs = tuple(sweeps.draw_values(rng, shape, dtype) for _ in range(batch))
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} block {block} {order}",
        fn=lambda x: space_to_depth(x, block, order=order),
        batch=tuple((x,) for x in xs),
        expected=tuple(reference_space_to_depth(x, block, order) for x in xs),
        linear_argnums=(0,),
    )


def jnp_space_to_depth(x: jax.Array, block: int, order: str) -> jax.Array:
    """What a jax.numpy user writes (einops' rearrange, spelled out)."""
    n, c, h, w = x.shape
    split = x.reshape(n, c, h // block, block, w // block, block)
    axes = (0, 3, 5, 1, 2, 4) if order == "DCR" else (0, 1, 3, 5, 2, 4)
    return split.transpose(axes).reshape(n, c * block * block, h // block, w // block)


def _case(order: str) -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        shape = (2, 16, 128, 128) if quick else (16, 64, 256, 256)  # 4 MiB / 256 MiB of f32
        return (jax.random.normal(key, shape, operands.F32),)

    def bytes_moved(args: Sequence[jax.Array]) -> int:
        return 2 * args[0].nbytes

    return Case(
        name=f"space_to_depth {order} block 4",
        operator="SPACE_TO_DEPTH1",
        make_args=make_args,
        dmljax_fn=lambda x: space_to_depth(x, 4, order=order),
        jnp_fn=lambda x: jnp_space_to_depth(x, 4, order),
        bytes_moved=bytes_moved,
    )


def _bench() -> list[Case | EagerCase]:
    """SPACE_TO_DEPTH1 of a 16x64x256x256 f32 in both orders, against reshape-transpose."""
    return [
        _case("DCR"),
        _case("CRD"),
        EagerCase(
            name="space_to_depth eager",
            operator="SPACE_TO_DEPTH1",
            desc=lambda x: SpaceToDepth1OperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                output_tensor=TensorDesc.from_array(jnp_space_to_depth(x, 2, "DCR")),
                block_size=2,
                order=DepthSpaceOrder.DEPTH_COLUMN_ROW,
            ),
            functional=lambda x: space_to_depth(x, 2),
            jnp_fn=lambda x: jnp_space_to_depth(x, 2, "DCR"),
            make_args=lambda key: (jax.random.normal(key, (1, 2, 4, 4), operands.F32),),
        ),
    ]


def _support_case(desc_type: Any, **attributes: Any) -> Any:
    def case(rank: int, data_type: DataType, index_type: DataType) -> Any:
        del index_type
        sizes = (1,) * (rank - 3) + (1, 2, 2) if rank >= 3 else (2,) * rank
        out = (1,) * (rank - 3) + (4, 1, 1) if rank >= 3 else sizes
        desc = desc_type(
            input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
            output_tensor=TensorDesc(data_type=data_type, sizes=out),
            block_size=2,
            **attributes,
        )
        return desc, (data_of(sizes, data_type),)

    return case


def _doc_example_face(example: Any) -> jax.Array:
    (x,) = example.inputs
    order = getattr(example.desc, "order", DepthSpaceOrder.DEPTH_COLUMN_ROW)
    return space_to_depth(x, example.desc.block_size, order=order)


# The pages' examples. Their OutputTensor fields give DEPTH_TO_SPACE's sizes
# ({C / (B*B), H * B, W * B}); the examples show {C * B * B, H / B, W / B}.
_SPACE = {
    "DCR": [[[0, 18, 1, 19, 2, 20], [36, 54, 37, 55, 38, 56], [3, 21, 4, 22, 5, 23],
             [39, 57, 40, 58, 41, 59]],
            [[9, 27, 10, 28, 11, 29], [45, 63, 46, 64, 47, 65], [12, 30, 13, 31, 14, 32],
             [48, 66, 49, 67, 50, 68]]],
    "CRD": [[[0, 9, 1, 10, 2, 11], [18, 27, 19, 28, 20, 29], [3, 12, 4, 13, 5, 14],
             [21, 30, 22, 31, 23, 32]],
            [[36, 45, 37, 46, 38, 47], [54, 63, 55, 64, 56, 65], [39, 48, 40, 49, 41, 50],
             [57, 66, 58, 67, 59, 68]]],
}  # fmt: skip
_DEPTH = [[[9 * c + 3 * row + col for col in range(3)] for row in range(2)] for c in range(8)]
_PAGES = "MicrosoftDocs/sdk-api:sdk-api-src/content/directml/ns-directml-dml_{}_operator_desc.md"


def _example(example_id: str, op: str, source: str, order: str | None) -> dict[str, Any]:
    attrs: dict[str, Any] = {"BlockSize": 2}
    if order is not None:
        attrs["Order"] = (
            f"DML_DEPTH_SPACE_ORDER_{DepthSpaceOrder.coerce(order, op='', field='').name}"
        )
    return {
        "id": example_id,
        "op": op,
        "source": source,
        "attrs": attrs,
        "inputs": {
            "InputTensor": {
                "sizes": [1, 2, 4, 6],
                "dtype": "UINT32",
                "data": [_SPACE[order or "DCR"]],
            }
        },
        "expected": {"sizes": [1, 8, 2, 3], "dtype": "UINT32", "data": [_DEPTH]},
        "notes": "Verbatim. The page's OutputTensor field gives DEPTH_TO_SPACE's sizes; the "
        "example's {1, 8, 2, 3} is {N, C * B * B, H / B, W / B}.",
        "status": "valid",
    }


_EXAMPLES_1 = (
    _example("space_to_depth1-ex1", "DML_OPERATOR_SPACE_TO_DEPTH1",
             f"{_PAGES.format('space_to_depth1')} (Example 1. Depth-column-row order)", "DCR"),
    _example("space_to_depth1-ex2", "DML_OPERATOR_SPACE_TO_DEPTH1",
             f"{_PAGES.format('space_to_depth1')} (Example 2. Column-row-depth order)", "CRD"),
)  # fmt: skip
_EXAMPLES = (
    _example("space_to_depth-ex1", "DML_OPERATOR_SPACE_TO_DEPTH",
             f"{_PAGES.format('space_to_depth')} (Example)", None),
)  # fmt: skip

_8_32 = FLOATS | INTS_8_32
DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: ((4, 4), FLOATS, None),
    FeatureLevel.FL_2_1: ((4, 4), _8_32, None),
    FeatureLevel.FL_5_0: ((4, 4), _8_32 | TYPES_64, None),
}
# SPACE_TO_DEPTH1's page has one table, and no 64-bit type in it.
DOCUMENTED_SUPPORT_1: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_2_1: ((4, 4), _8_32, None),
}


def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    """H and W must divide by the block: a jax.export symbol there cannot be proven to."""
    return k == 0 and d >= arrays[0].ndim - 2 and error.field == "x"


CHECKS = (
    OperatorChecks(
        SPACE_TO_DEPTH,
        doc_example_face=_doc_example_face,
        documented_support=DOCUMENTED_SUPPORT,
        support_case=_support_case(SpaceToDepthOperatorDesc),
        examples=_EXAMPLES,
    ),
    OperatorChecks(
        SPACE_TO_DEPTH1,
        doc_example_face=_doc_example_face,
        sweep=_sweep,
        bench=_bench,
        fixed_size=_fixed_size,
        documented_support=DOCUMENTED_SUPPORT_1,
        support_case=_support_case(
            SpaceToDepth1OperatorDesc, order=DepthSpaceOrder.COLUMN_ROW_DEPTH
        ),
        examples=_EXAMPLES_1,
    ),
)
