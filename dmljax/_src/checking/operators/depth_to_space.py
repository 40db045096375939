"""DEPTH_TO_SPACE's and DEPTH_TO_SPACE1's reference, doc examples, selftest sweep and
bench cases: what checks and measures :mod:`dmljax._src.ops.depth_to_space`, loaded on
use only (what it shares with SPACE_TO_DEPTH's is in ``depth_space``).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from dmljax._src.checking import sweeps
from dmljax._src.checking.operator_checks import OperatorChecks
from dmljax._src.checking.operators import depth_space as shared
from dmljax._src.ops.depth_space import DepthSpaceOrder
from dmljax._src.ops.depth_to_space import (
    DEPTH_TO_SPACE,
    DEPTH_TO_SPACE1,
    DepthToSpace1OperatorDesc,
    DepthToSpaceOperatorDesc,
    depth_to_space,
)

__all__ = ["CHECKS", "jnp_depth_to_space", "reference_depth_to_space"]


def reference_depth_to_space(x: np.ndarray, block: int, order: str = "DCR") -> np.ndarray:
    """Every output element read from its depth index, index by index (the oracle).

    >>> reference_depth_to_space(np.arange(4).reshape(4, 1, 1), 2).tolist()
    [[[0, 1], [2, 3]]]
    """
    depth, height, width = x.shape[-3:]
    channels = depth // (block * block)
    c, h, w = np.indices((channels, height * block, width * block))
    source = shared.depth_channel(
        c, h % block, w % block, channels=channels, block=block, order=order
    )
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


def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    """C must divide by the block's square: a jax.export symbol there cannot be proven to."""
    return k == 0 and d == arrays[0].ndim - 3 and error.field == "x"


CHECKS = (
    OperatorChecks(
        DEPTH_TO_SPACE,
        doc_example_face=shared.doc_example_face(depth_to_space),
        documented_support=shared.DOCUMENTED_SUPPORT,
        support_case=shared.support_case(DepthToSpaceOperatorDesc, (4, 1, 1)),
        examples=(
            shared.page_example(
                "depth_to_space", 1, "Example", None, to_depth=False, notes="Verbatim."
            ),
        ),
    ),
    OperatorChecks(
        DEPTH_TO_SPACE1,
        doc_example_face=shared.doc_example_face(depth_to_space),
        sweep=_sweep,
        bench=shared.bench(
            depth_to_space,
            jnp_depth_to_space,
            DepthToSpace1OperatorDesc,
            ((2, 256, 32, 32), (16, 1024, 64, 64), (1, 8, 2, 2)),  # 4 MiB / 256 MiB of f32
        ),
        fixed_size=_fixed_size,
        documented_support=shared.DOCUMENTED_SUPPORT_1,
        support_case=shared.support_case(
            DepthToSpace1OperatorDesc, (4, 1, 1), order=DepthSpaceOrder.COLUMN_ROW_DEPTH
        ),
        examples=(
            shared.page_example(
                "depth_to_space1",
                1,
                "Example 1. Depth-column-row order",
                "DCR",
                to_depth=False,
                notes="Verbatim.",
            ),
            shared.page_example(
                "depth_to_space1",
                2,
                "Example 2. Column-row-depth order",
                "CRD",
                to_depth=False,
                notes="Verbatim.",
            ),
        ),
    ),
)
