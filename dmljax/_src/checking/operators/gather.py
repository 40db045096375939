"""GATHER's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.gather` declares, loaded on use only.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking import reference, sweeps
from dmljax._src.checking.operator_checks import (
    FLOATS,
    INDEX_TYPES,
    INTS_8_32,
    TYPES_64,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.gather import GATHER, GatherOperatorDesc, gather
from dmljax._src.tensor_desc import TensorDesc


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.gather`` of rank 1 to 3, indices of rank 0 to 2, any axis, wild indices."""
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 3, endpoint=True)), 1, 4)
    index_shape = sweeps.draw_shape(rng, int(rng.integers(0, 2, endpoint=True)), 0, 3)
    axis = int(rng.integers(-len(shape), len(shape)))
    return sweeps.gather_case(
        rng, dtype, batch, shape, index_shape, axis,
        fn=lambda x, i: gather(x, i, axis=axis),
        expected=lambda x, i: reference.take(x, i, axis),
    )  # fmt: skip


def _gather_case(
    name: str,
    axis: int,
    quick_sizes: tuple[tuple[int, int], int],
    full_sizes: tuple[tuple[int, int], int],
    min_pct_of_copy: float | None = None,
) -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        shape, picked = quick_sizes if quick else full_sizes
        return operands.operand_and_indices(key, shape, (picked,), shape[axis])

    def jnp_take(x: jax.Array, idx: jax.Array) -> jax.Array:
        return jnp.take(x, idx, axis=axis)

    return Case(
        name=name,
        operator="GATHER",
        make_args=make_args,
        dmljax_fn=lambda x, idx: gather(x, idx, axis=axis),
        jnp_fn=jnp_take,
        bytes_moved=operands.gather_bytes(jnp_take),
        min_pct_of_copy=min_pct_of_copy,
    )


def _bench() -> list[Case | EagerCase]:
    """GATHER of embedding rows (axis 0) and of columns (axis 1), against ``jnp.take``."""
    return [
        # An embedding table of 1 KiB rows: 1 GiB with 2^18 rows picked (256 MiB out). Rows
        # of 1 KiB stream like a copy (jnp: 95 % of it on an H100).
        _gather_case(
            "gather rows", 0, ((2**14, 64), 2**12), ((2**20, 256), 2**18), min_pct_of_copy=85.0
        ),
        # 4096x16384 f32 (256 MiB); 8192 random columns (128 MiB out).
        _gather_case("gather columns", 1, ((512, 2048), 1024), ((4096, 16384), 8192)),
        EagerCase(
            name="gather eager",
            operator="GATHER",
            desc=lambda x, idx: GatherOperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                indices_tensor=TensorDesc.from_array(idx),
                output_tensor=TensorDesc.from_array(x[:4]),
                axis=0,
                index_dimensions=1,
            ),
            functional=lambda x, idx: gather(x, idx, axis=0),
            jnp_fn=lambda x, idx: jnp.take(x, idx, axis=0),
            make_args=lambda key: operands.tiny_operands(key, index_shape=(1, 4)),
            numpy_indices=1,
        ),
    ]


DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: ((4, 4), FLOATS, {DataType.UINT32}),
    FeatureLevel.FL_2_1: ((4, 4), FLOATS | INTS_8_32, {DataType.UINT32}),
    FeatureLevel.FL_3_0: ((1, 8), FLOATS | INTS_8_32, INDEX_TYPES),
    FeatureLevel.FL_4_1: ((1, 8), FLOATS | INTS_8_32 | TYPES_64, INDEX_TYPES),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    sizes = (1,) * (rank - 1) + (5,)
    desc = GatherOperatorDesc(
        input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        indices_tensor=TensorDesc(data_type=index_type, sizes=sizes),
        output_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        axis=rank - 1,
        index_dimensions=1,
    )
    indices = np.array([4, 0, 3, 3, 1]).astype(index_type.dtype).reshape(sizes)
    return desc, (data_of(sizes, data_type), indices)


CHECKS = OperatorChecks(
    GATHER,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    sweep=_sweep,
    bench=_bench,
)
