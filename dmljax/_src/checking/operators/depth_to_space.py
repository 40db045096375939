"""DEPTH_TO_SPACE's and DEPTH_TO_SPACE1's reference, doc examples, selftest sweep and
bench cases: what checks and measures :mod:`dmljax._src.ops.depth_to_space`, loaded on
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
from dmljax._src.checking.operators.space_to_depth import depth_channel
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.depth_to_space import (
    DEPTH_TO_SPACE,
    DEPTH_TO_SPACE1,
    DepthToSpace1OperatorDesc,
    DepthToSpaceOperatorDesc,
    depth_to_space,
)
from dmljax._src.ops.space_to_depth import DepthSpaceOrder
from dmljax._src.tensor_desc import TensorDesc

__all__ = ["CHECKS", "reference_depth_to_space"]


def reference_depth_to_space(x: np.ndarray, block: int, order: str = "DCR") -> np.ndarray:
    """Every output element read from its depth index, index by index (the oracle).

    >>> reference_depth_to_space(np.arange(4).reshape(4, 1, 1), 2).tolist()
    [[[0, 1], [2, 3]]]
    """
    depth, height, width = x.shape[-3:]
    channels = depth // (block * block)
    c, h, w = np.indices((channels, height * block, width * block))
    source = depth_channel(c, h % block, w % block, channels=channels, block=block, order=order)
    return x[..., source, h // block, w // block]


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.depth_to_space`` of rank 3 to 4, blocks of 1 to 3, both orders."""
    block = int(rng.integers(1, 3, endpoint=True))
    order = str(rng.choice(["DCR", "CRD"]))
    lead = sweeps.draw_shape(rng, int(rng.integers(0, 1, endpoint=True)), 1, 2)
    channels = block * block * int(rng.integers(1, 2, endpoint=True))
    shape = (*lead, channels, *sweeps.draw_shape(rng, 2, 1, 3))
    xs = tuple(sweeps.draw_values(rng, shape, dtype) for _ in range(batch))
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} block {block} {order}",
        fn=lambda x: depth_to_space(x, block, order=order),
        batch=tuple((x,) for x in xs),
        expected=tuple(reference_depth_to_space(x, block, order) for x in xs),
        linear_argnums=(0,),
    )


def jnp_depth_to_space(x: jax.Array, block: int, order: str) -> jax.Array:
    """What a jax.numpy user writes (ONNX's DepthToSpace definition, spelled out)."""
    n, c, h, w = x.shape
    out = c // (block * block)
    if order == "DCR":
        split, axes = (n, block, block, out, h, w), (0, 3, 4, 1, 5, 2)
    else:
        split, axes = (n, out, block, block, h, w), (0, 1, 4, 2, 5, 3)
    return x.reshape(split).transpose(axes).reshape(n, out, h * block, w * block)


def _case(order: str) -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        shape = (2, 256, 32, 32) if quick else (16, 1024, 64, 64)  # 4 MiB / 256 MiB of f32
        return (jax.random.normal(key, shape, operands.F32),)

    def bytes_moved(args: Sequence[jax.Array]) -> int:
        return 2 * args[0].nbytes

    return Case(
        name=f"depth_to_space {order} block 4",
        operator="DEPTH_TO_SPACE1",
        make_args=make_args,
        dmljax_fn=lambda x: depth_to_space(x, 4, order=order),
        jnp_fn=lambda x: jnp_depth_to_space(x, 4, order),
        bytes_moved=bytes_moved,
    )


def _bench() -> list[Case | EagerCase]:
    """DEPTH_TO_SPACE1 of a 16x1024x64x64 f32 in both orders, against reshape-transpose."""
    return [
        _case("DCR"),
        _case("CRD"),
        EagerCase(
            name="depth_to_space eager",
            operator="DEPTH_TO_SPACE1",
            desc=lambda x: DepthToSpace1OperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                output_tensor=TensorDesc.from_array(jnp_depth_to_space(x, 2, "DCR")),
                block_size=2,
                order=DepthSpaceOrder.DEPTH_COLUMN_ROW,
            ),
            functional=lambda x: depth_to_space(x, 2),
            jnp_fn=lambda x: jnp_depth_to_space(x, 2, "DCR"),
            make_args=lambda key: (jax.random.normal(key, (1, 8, 2, 2), operands.F32),),
        ),
    ]


def _support_case(desc_type: Any, **attributes: Any) -> Any:
    def case(rank: int, data_type: DataType, index_type: DataType) -> Any:
        del index_type
        sizes = (1,) * (rank - 3) + (4, 1, 1) if rank >= 3 else (2,) * rank
        out = (1,) * (rank - 3) + (1, 2, 2) if rank >= 3 else sizes
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
    return depth_to_space(x, example.desc.block_size, order=order)


def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    """C must divide by the block's square: a jax.export symbol there cannot be proven to."""
    return k == 0 and d == arrays[0].ndim - 3 and error.field == "x"


# The pages' examples, all from one input.
_DEPTH = [[[9 * c + 3 * row + col for col in range(3)] for row in range(2)] for c in range(8)]
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
_PAGES = "MicrosoftDocs/sdk-api:sdk-api-src/content/directml/ns-directml-dml_{}_operator_desc.md"


def _example(example_id: str, op: str, source: str, order: str | None) -> dict[str, Any]:
    attrs: dict[str, Any] = {"BlockSize": 2}
    if order is not None:
        name = DepthSpaceOrder.coerce(order, op="", field="").name
        attrs["Order"] = f"DML_DEPTH_SPACE_ORDER_{name}"
    return {
        "id": example_id,
        "op": op,
        "source": source,
        "attrs": attrs,
        "inputs": {"InputTensor": {"sizes": [1, 8, 2, 3], "dtype": "UINT32", "data": [_DEPTH]}},
        "expected": {
            "sizes": [1, 2, 4, 6],
            "dtype": "UINT32",
            "data": [_SPACE[order or "DCR"]],
        },
        "notes": "Verbatim.",
        "status": "valid",
    }


_EXAMPLES_1 = (
    _example("depth_to_space1-ex1", "DML_OPERATOR_DEPTH_TO_SPACE1",
             f"{_PAGES.format('depth_to_space1')} (Example 1. Depth-column-row order)", "DCR"),
    _example("depth_to_space1-ex2", "DML_OPERATOR_DEPTH_TO_SPACE1",
             f"{_PAGES.format('depth_to_space1')} (Example 2. Column-row-depth order)", "CRD"),
)  # fmt: skip
_EXAMPLES = (
    _example("depth_to_space-ex1", "DML_OPERATOR_DEPTH_TO_SPACE",
             f"{_PAGES.format('depth_to_space')} (Example)", None),
)  # fmt: skip

_8_32 = FLOATS | INTS_8_32
DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: ((4, 4), FLOATS, None),
    FeatureLevel.FL_2_1: ((4, 4), _8_32, None),
    FeatureLevel.FL_5_0: ((4, 4), _8_32 | TYPES_64, None),
}
# DEPTH_TO_SPACE1's page has one table, and no 64-bit type in it.
DOCUMENTED_SUPPORT_1: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_2_1: ((4, 4), _8_32, None),
}

CHECKS = (
    OperatorChecks(
        DEPTH_TO_SPACE,
        doc_example_face=_doc_example_face,
        documented_support=DOCUMENTED_SUPPORT,
        support_case=_support_case(DepthToSpaceOperatorDesc),
        examples=_EXAMPLES,
    ),
    OperatorChecks(
        DEPTH_TO_SPACE1,
        doc_example_face=_doc_example_face,
        sweep=_sweep,
        bench=_bench,
        fixed_size=_fixed_size,
        documented_support=DOCUMENTED_SUPPORT_1,
        support_case=_support_case(
            DepthToSpace1OperatorDesc, order=DepthSpaceOrder.COLUMN_ROW_DEPTH
        ),
        examples=_EXAMPLES_1,
    ),
)
