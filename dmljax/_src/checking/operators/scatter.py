"""SCATTER's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.scatter` declares, loaded on use only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from dmljax._src.ops.scatter import SCATTER, ScatterOperatorDesc, scatter
from dmljax._src.tensor_desc import TensorDesc


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.scatter`` of rank 1 to 3, indices smaller off ``axis``.

    Half the data dtypes (``dtype`` is one of :data:`sweeps.DATA_DTYPES`) run
    ``deterministic=True`` with wild indices, duplicates included; the others
    the default lowering with at most one update per target, which every
    lowering writes the same. Either way the reference's last-write-wins holds.
    The operator is linear in ``x`` and ``updates`` together, not in the indices.
    """
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 3, endpoint=True)), 1, 4)
    axis = int(rng.integers(-len(shape), len(shape)))
    index_shape = sweeps.elements_index_shape(rng, shape, axis)
    index_dtype = sweeps.INDEX_DTYPES[rng.integers(len(sweeps.INDEX_DTYPES))]
    # The two modes take turns over sweeps.DATA_DTYPES, so that one draw per dtype (the
    # default) checks both, derivatives included.
    deterministic = sweeps.DATA_DTYPES.index(dtype) % 2 == 0

    def draw_indices() -> np.ndarray:
        if deterministic:
            return sweeps.draw_indices(rng, index_shape, index_dtype, shape[axis])
        return sweeps.unique_targets(rng, index_shape, index_dtype, shape[axis], axis)

    args = tuple(
        (
            sweeps.draw_values(rng, shape, dtype),
            draw_indices(),
            sweeps.draw_values(rng, index_shape, dtype),
        )
        for _ in range(batch)
    )
    targets = "deterministic=True" if deterministic else "unique targets"
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} indices {sweeps.label(index_shape, index_dtype)} "
        f"axis {axis} {targets}",
        fn=lambda x, i, u: scatter(x, i, u, axis=axis, deterministic=deterministic),
        batch=args,
        expected=tuple(reference.scatter(x, i, u, axis=axis % len(shape)) for x, i, u in args),
        linear_argnums=(0, 2),
    )


def _scatter_args(axis: int) -> Callable[[jax.Array, bool], tuple[jax.Array, ...]]:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        # 4096x16384 f32 (256 MiB) takes half a line of updates: 8192 per row along
        # axis 1 (performance.md §1), 2048 per column along axis 0.
        shape = (256, 2048) if quick else (4096, 16384)
        picked = shape[axis] // 2
        x_key, index_key, update_key = jax.random.split(key, 3)
        x = operands.normal(x_key, shape)
        idx = operands.distinct_indices(index_key, shape, picked, axis)
        return x, idx, operands.normal(update_key, idx.shape)

    return make_args


def _jnp_scatter_axis1(x: jax.Array, idx: jax.Array, updates: jax.Array) -> jax.Array:
    rows = jnp.arange(x.shape[0])[:, None]
    return x.at[rows, idx].set(updates)


def _jnp_scatter_axis0(x: jax.Array, idx: jax.Array, updates: jax.Array) -> jax.Array:
    columns = jnp.arange(x.shape[1])[None, :]
    return x.at[idx, columns].set(updates)


def _scatter_in_place_bytes(args: Sequence[jax.Array]) -> int:
    # The operand is updated where it lies: read the updates and indices, write the updates.
    _, idx, updates = args
    return 2 * updates.nbytes + idx.nbytes


def _scatter_case(
    name: str,
    *,
    axis: int,
    deterministic: bool = False,
    donated: bool = False,
    target_ratio: float | None = 1.05,
) -> Case:
    # A deterministic case does more than jnp's overwrite by design (a scatter-max of
    # positions, then a select pass): it is held to its time only.
    return Case(
        name=name,
        operator="SCATTER",
        make_args=_scatter_args(axis),
        dmljax_fn=lambda x, idx, u: scatter(x, idx, u, axis=axis, deterministic=deterministic),
        jnp_fn=_jnp_scatter_axis1 if axis == 1 else _jnp_scatter_axis0,
        bytes_moved=_scatter_in_place_bytes if donated else operands.scatter_out_of_place_bytes,
        donate_argnums=(0,) if donated else (),
        target_ratio=target_ratio,
        more_work=deterministic,
    )


def _scatter_eager_args(key: jax.Array) -> tuple[jax.Array, ...]:
    (x,) = operands.tiny_operands(key)
    idx = operands.distinct_indices(key, (8, 8), 4, axis=1)
    return x, idx, x[:, :4]


def _bench() -> list[Case | EagerCase]:
    """SCATTER of unique random indices into a 4096x16384 f32, against ``x.at[...].set``.

    Along axis 1 out of place and donated (in place); along axis 0, where dmljax
    must be 1.8x faster (it moves the axis last, performance.md §2.2); and each of
    the three with ``deterministic=True``, held to 1.5x the default's target (the
    default matches jnp along axis 1, so 1.5x jnp; along axis 0, 1.5 / 1.8 of jnp).
    """
    return [
        _scatter_case("scatter axis 1", axis=1),
        _scatter_case("scatter axis 1 donated", axis=1, donated=True),
        _scatter_case("scatter axis 0", axis=0, target_ratio=1 / 1.8),
        _scatter_case("scatter axis 1 deterministic", axis=1, deterministic=True, target_ratio=1.5),
        _scatter_case(
            "scatter axis 1 donated deterministic",
            axis=1,
            donated=True,
            deterministic=True,
            target_ratio=1.5,
        ),
        _scatter_case(
            "scatter axis 0 deterministic", axis=0, deterministic=True, target_ratio=1.5 / 1.8
        ),
        EagerCase(
            name="scatter eager",
            operator="SCATTER",
            desc=lambda x, idx, u: ScatterOperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                indices_tensor=TensorDesc.from_array(idx),
                updates_tensor=TensorDesc.from_array(u),
                output_tensor=TensorDesc.from_array(x),
                axis=1,
            ),
            functional=lambda x, idx, u: scatter(x, idx, u, axis=1),
            jnp_fn=_jnp_scatter_axis1,
            make_args=_scatter_eager_args,
            numpy_indices=1,
        ),
    ]


DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_2_0: ((4, 4), FLOATS, {DataType.UINT32}),
    FeatureLevel.FL_2_1: ((4, 4), FLOATS | INTS_8_32, {DataType.UINT32}),
    FeatureLevel.FL_3_0: ((1, 8), FLOATS | INTS_8_32, INDEX_TYPES),
    FeatureLevel.FL_4_1: ((1, 8), FLOATS | INTS_8_32 | TYPES_64, INDEX_TYPES),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    sizes = (1,) * (rank - 1) + (3,)
    picked = (1,) * (rank - 1) + (2,)
    desc = ScatterOperatorDesc(
        input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        indices_tensor=TensorDesc(data_type=index_type, sizes=picked),
        updates_tensor=TensorDesc(data_type=data_type, sizes=picked),
        output_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        axis=rank - 1,
    )
    indices = np.array([2, 0]).astype(index_type.dtype).reshape(picked)
    updates = (data_of(picked, data_type) + 5).astype(data_type.dtype)
    return desc, (data_of(sizes, data_type), indices, updates)


CHECKS = OperatorChecks(
    SCATTER,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    # The SCATTER page calls duplicate indices invalid, yet its example 1 writes index 3
    # twice and shows the last update winning: only deterministic=True promises that on
    # every backend.
    doc_example_options={"deterministic": True},
    sweep=_sweep,
    bench=_bench,
)
