"""GATHER_ELEMENTS's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.gather_elements` declares, loaded on use only.
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
from dmljax._src.ops.gather_elements import (
    GATHER_ELEMENTS,
    GatherElementsOperatorDesc,
    gather_elements,
)
from dmljax._src.tensor_desc import TensorDesc


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.gather_elements`` of rank 1 to 3, indices smaller off ``axis``, wild indices."""
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 3, endpoint=True)), 1, 4)
    axis = int(rng.integers(-len(shape), len(shape)))
    index_shape = sweeps.elements_index_shape(rng, shape, axis)
    return sweeps.gather_case(
        rng, dtype, batch, shape, index_shape, axis,
        fn=lambda x, i: gather_elements(x, i, axis=axis),
        expected=lambda x, i: reference.gather_elements(x, i, axis=axis % len(shape)),
    )  # fmt: skip


def _gather_elements_case(axis: int, target_ratio: float) -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        # 4096x16384 f32 (256 MiB) and one random int32 index per element (256 MiB).
        shape = (256, 2048) if quick else (4096, 16384)
        return operands.operand_and_indices(key, shape, shape, shape[axis])

    def jnp_take_along(x: jax.Array, idx: jax.Array) -> jax.Array:
        return jnp.take_along_axis(x, idx, axis=axis)

    return Case(
        name=f"gather_elements axis {axis}",
        operator="GATHER_ELEMENTS",
        make_args=make_args,
        dmljax_fn=lambda x, idx: gather_elements(x, idx, axis=axis),
        jnp_fn=jnp_take_along,
        bytes_moved=operands.gather_bytes(jnp_take_along),  # out + idx + out, as for GATHER
        target_ratio=target_ratio,
    )


def _bench() -> list[Case | EagerCase]:
    """GATHER_ELEMENTS of a 4096x16384 f32 along axis 1 and 0, against ``jnp.take_along_axis``.

    Along axis 0 dmljax must be 2.5x faster than that direct form, whose reads
    stride across rows: it moves the axis last (performance.md §2.1).
    """
    return [
        _gather_elements_case(axis=1, target_ratio=1.05),
        _gather_elements_case(axis=0, target_ratio=1 / 2.5),
        EagerCase(
            name="gather_elements eager",
            operator="GATHER_ELEMENTS",
            desc=lambda x, idx: GatherElementsOperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                indices_tensor=TensorDesc.from_array(idx),
                output_tensor=TensorDesc.from_array(x),
                axis=1,
            ),
            functional=lambda x, idx: gather_elements(x, idx, axis=1),
            jnp_fn=lambda x, idx: jnp.take_along_axis(x, idx, axis=1),
            make_args=lambda key: operands.tiny_operands(key, index_shape=(8, 8)),
            numpy_indices=1,
        ),
    ]


DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_2_1: ((4, 4), FLOATS | INTS_8_32, {DataType.UINT32}),
    FeatureLevel.FL_3_0: ((1, 8), FLOATS | INTS_8_32, INDEX_TYPES),
    FeatureLevel.FL_4_1: ((1, 8), FLOATS | INTS_8_32 | TYPES_64, INDEX_TYPES),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    sizes = (1,) * (rank - 1) + (3,)
    picked = (1,) * (rank - 1) + (2,)
    desc = GatherElementsOperatorDesc(
        input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        indices_tensor=TensorDesc(data_type=index_type, sizes=picked),
        output_tensor=TensorDesc(data_type=data_type, sizes=picked),
        axis=rank - 1,
    )
    indices = np.array([2, 0]).astype(index_type.dtype).reshape(picked)
    return desc, (data_of(sizes, data_type), indices)


CHECKS = OperatorChecks(
    GATHER_ELEMENTS,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    sweep=_sweep,
    bench=_bench,
)
