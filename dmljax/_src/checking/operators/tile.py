"""TILE's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.tile` declares, loaded on use only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking import reference, sweeps
from dmljax._src.checking.operator_checks import (
    FLOATS,
    INTS_8_32,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.tile import TILE, TileOperatorDesc, tile
from dmljax._src.tensor_desc import TensorDesc


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.tile`` of rank 1 to 4 with repeats 0 to 3."""
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 4, endpoint=True)), 1, 3)
    repeats = tuple(
        int(r) for r in rng.choice([0, 1, 2, 3], p=[0.05, 0.35, 0.3, 0.3], size=len(shape))
    )
    xs = tuple(sweeps.draw_values(rng, shape, dtype) for _ in range(batch))
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} repeats {repeats}",
        fn=lambda x: tile(x, repeats),
        batch=tuple((x,) for x in xs),
        expected=tuple(reference.tile(x, repeats) for x in xs),
        linear_argnums=(0,),
    )


def _tile_case(repeats: tuple[int, int]) -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        side = 512 if quick else 4096  # 1 MiB / 64 MiB of f32
        return (operands.normal(key, (side, side)),)

    def jnp_tile(x: jax.Array) -> jax.Array:
        return jnp.tile(x, repeats)

    def bytes_moved(args: Sequence[jax.Array]) -> int:
        # in + out; an input larger than L2 is re-read once per major repeat, so
        # DRAM traffic is out + repeats[0]·in (performance.md §2.4).
        return args[0].nbytes + operands.output_nbytes(jnp_tile, args)

    return Case(
        name=f"tile ({repeats[0]},{repeats[1]})",
        operator="TILE",
        make_args=make_args,
        dmljax_fn=lambda x: tile(x, repeats),
        jnp_fn=jnp_tile,
        bytes_moved=bytes_moved,
    )


def _bench() -> list[Case | EagerCase]:
    """TILE (2,2), (1,4) and (4,1) of a 4096x4096 f32, against ``jnp.tile``."""
    return [
        _tile_case((2, 2)),
        _tile_case((1, 4)),
        _tile_case((4, 1)),
        EagerCase(
            name="tile eager",
            operator="TILE",
            desc=lambda x: TileOperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                output_tensor=TensorDesc.from_array(jnp.tile(x, (2, 2))),
                repeats=(2, 2),
            ),
            functional=lambda x: tile(x, (2, 2)),
            jnp_fn=lambda x: jnp.tile(x, (2, 2)),
            make_args=operands.tiny_operands,
        ),
    ]


# The TILE page's table: FLOAT64 never.
DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: ((4, 4), FLOATS, None),
    FeatureLevel.FL_2_1: ((4, 4), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_3_1: ((1, 8), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_4_1: ((1, 8), FLOATS | INTS_8_32 | {DataType.INT64, DataType.UINT64}, None),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type
    sizes = (2,) + (1,) * (rank - 1)
    repeats = (2,) * rank
    out = tuple(s * r for s, r in zip(sizes, repeats, strict=True))
    desc = TileOperatorDesc(
        input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        output_tensor=TensorDesc(data_type=data_type, sizes=out),
        repeats=repeats,
    )
    return desc, (data_of(sizes, data_type),)


CHECKS = OperatorChecks(
    TILE,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    sweep=_sweep,
    bench=_bench,
)
