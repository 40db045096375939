"""SPACE_TO_DEPTH's and SPACE_TO_DEPTH1's reference, doc examples, selftest sweep and
bench cases: what checks and measures :mod:`dmljax._src.ops.space_to_depth`, loaded on
use only (what it shares with DEPTH_TO_SPACE's is in ``depth_space``).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from dmljax._src.checking import sweeps
from dmljax._src.checking.operator_checks import OperatorChecks
from dmljax._src.checking.operators import depth_space as shared
from dmljax._src.ops.depth_space import DepthSpaceOrder
from dmljax._src.ops.space_to_depth import (
    SPACE_TO_DEPTH,
    SPACE_TO_DEPTH1,
    SpaceToDepth1OperatorDesc,
    SpaceToDepthOperatorDesc,
    space_to_depth,
)

__all__ = ["CHECKS", "jnp_space_to_depth", "reference_space_to_depth"]


def reference_space_to_depth(x: np.ndarray, block: int, order: str = "DCR") -> np.ndarray:
    """Every input element written to its depth index, index by index (the oracle).

    >>> reference_space_to_depth(np.arange(4).reshape(1, 2, 2), 2).ravel().tolist()
    [0, 1, 2, 3]
    """
    *batch, channels, height, width = x.shape
    out = np.empty((*batch, channels * block * block, height // block, width // block), x.dtype)
    c, h, w = np.indices((channels, height, width))
    depth = shared.depth_channel(
        c, h % block, w % block, channels=channels, block=block, order=order
    )
    out[..., depth, h // block, w // block] = x[..., c, h, w]
    return out


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.space_to_depth`` of rank 3 to 4, blocks of 1 to 3, both orders."""
    block = int(rng.integers(1, 3, endpoint=True))
    order = str(rng.choice(["DCR", "CRD"]))
    lead = sweeps.draw_shape(rng, int(rng.integers(0, 1, endpoint=True)), 1, 2)
    sides = tuple(block * int(rng.integers(1, 3, endpoint=True)) for _ in range(2))
    shape = (*lead, int(rng.integers(1, 3, endpoint=True)), *sides)
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


def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    """H and W must divide by the block: a jax.export symbol there cannot be proven to."""
    return k == 0 and d >= arrays[0].ndim - 2 and error.field == "x"


# The pages' OutputTensor fields give DEPTH_TO_SPACE's sizes ({C / (B*B), H * B, W * B});
# their examples show {C * B * B, H / B, W / B}.
_NOTES = (
    "Verbatim. The page's OutputTensor field gives DEPTH_TO_SPACE's sizes; the example's "
    "{1, 8, 2, 3} is {N, C * B * B, H / B, W / B}."
)

CHECKS = (
    OperatorChecks(
        SPACE_TO_DEPTH,
        doc_example_face=shared.doc_example_face(space_to_depth),
        documented_support=shared.DOCUMENTED_SUPPORT,
        support_case=shared.support_case(SpaceToDepthOperatorDesc, (1, 2, 2)),
        examples=(
            shared.page_example("space_to_depth", 1, "Example", None, to_depth=True, notes=_NOTES),
        ),
    ),
    OperatorChecks(
        SPACE_TO_DEPTH1,
        doc_example_face=shared.doc_example_face(space_to_depth),
        sweep=_sweep,
        bench=shared.bench(
            space_to_depth,
            jnp_space_to_depth,
            SpaceToDepth1OperatorDesc,
            ((2, 16, 128, 128), (16, 64, 256, 256), (1, 2, 4, 4)),  # 4 MiB / 256 MiB of f32
        ),
        fixed_size=_fixed_size,
        documented_support=shared.DOCUMENTED_SUPPORT_1,
        support_case=shared.support_case(
            SpaceToDepth1OperatorDesc, (1, 2, 2), order=DepthSpaceOrder.COLUMN_ROW_DEPTH
        ),
        examples=(
            shared.page_example(
                "space_to_depth1",
                1,
                "Example 1. Depth-column-row order",
                "DCR",
                to_depth=True,
                notes=_NOTES,
            ),
            shared.page_example(
                "space_to_depth1",
                2,
                "Example 2. Column-row-depth order",
                "CRD",
                to_depth=True,
                notes=_NOTES,
            ),
        ),
    ),
)
