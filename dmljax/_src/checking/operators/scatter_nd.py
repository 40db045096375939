"""SCATTER_ND's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.scatter_nd` declares, loaded on use only.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking import reference, sweeps
from dmljax._src.checking.doc_entries import Entry, tensor_desc_of
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
from dmljax._src.ops.scatter_nd import SCATTER_ND, ScatterNdOperatorDesc, _desc_layout, scatter_nd
from dmljax._src.tensor_desc import TensorDesc


def _doc_example(e: Entry) -> ScatterNdOperatorDesc:
    inputs, attrs = e["inputs"], e["attrs"]
    input_tensor = tensor_desc_of(inputs["InputTensor"])
    indices_tensor = tensor_desc_of(inputs["IndicesTensor"])
    return ScatterNdOperatorDesc(
        input_tensor=input_tensor,
        indices_tensor=indices_tensor,
        updates_tensor=tensor_desc_of(inputs["UpdatesTensor"]),
        output_tensor=tensor_desc_of(e["expected"]),
        # The page's example gives no counts: the tensors' full ranks, as onnxruntime passes.
        input_dimension_count=attrs.get("InputDimensionCount", input_tensor.dimension_count),
        indices_dimension_count=attrs.get("IndicesDimensionCount", indices_tensor.dimension_count),
    )


def _doc_example_face(example: Any) -> jax.Array:
    layout = _desc_layout(example.desc)
    x, indices, updates = example.inputs
    out = scatter_nd(
        x.reshape(layout.input), indices.reshape(layout.indices), updates.reshape(layout.block)
    )
    return out.reshape(example.expected.shape)


def unique_tuples(
    rng: np.random.Generator, positions: tuple[int, ...], dims: tuple[int, ...], dtype: Any
) -> np.ndarray:
    """Index tuples that address each block at most once, some out of range.

    Distinct flat targets are drawn from ``[0, 2 * blocks)``; those from
    ``blocks`` up become tuples whose first coordinate is out of range (their
    updates are dropped); signed types write half the in-range coordinates as
    the negative index of the same position.
    """
    count = math.prod(positions)
    blocks = math.prod(dims)
    # Without coordinates every tuple addresses the whole tensor: at most one.
    assert count <= (2 * blocks if dims else 1), "more positions than distinct targets"
    flat = rng.permutation(2 * blocks)[:count]
    tuples = np.zeros((count, len(dims)), np.int64)
    inside = flat < blocks
    if dims:
        tuples[inside] = np.stack(np.unravel_index(flat[inside], dims), axis=-1)
        tuples[~inside] = np.stack(np.unravel_index(flat[~inside] - blocks, dims), axis=-1)
        tuples[~inside, 0] += dims[0]  # out of range in the first coordinate
        if np.issubdtype(dtype, np.signedinteger):
            negative = (rng.random(tuples.shape) < 0.5) & inside[:, None]
            tuples = np.where(negative, tuples - np.asarray(dims), tuples)
    return tuples.astype(dtype).reshape((*positions, len(dims)))


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> Any:
    """``dml.scatter_nd`` of rank 1 to 4, tuples of length 0 to rank.

    Half the data dtypes run ``deterministic=True`` with wild tuples, duplicates
    included; the others the default lowering with at most one tuple per block,
    which every lowering writes the same. Either way the reference's
    last-write-wins holds. Linear in ``x`` and ``updates`` together.
    """
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 4, endpoint=True)), 1, 3)
    t = int(rng.integers(0, len(shape), endpoint=True))
    dims = shape[:t]
    deterministic = sweeps.DATA_DTYPES.index(dtype) % 2 == 0
    most = 4 if deterministic else (2 * math.prod(dims) if dims else 1)
    positions = (int(rng.integers(0, most, endpoint=True)),)
    index_dtype = sweeps.INDEX_DTYPES[rng.integers(len(sweeps.INDEX_DTYPES))]
    index_shape = (*positions, t)

    def draw_indices() -> np.ndarray:
        if deterministic:
            return sweeps.draw_indices(rng, index_shape, index_dtype, min(dims, default=1))
        return unique_tuples(rng, positions, dims, index_dtype)

    update_shape = (*positions, *shape[t:])
    args = tuple(
        (
            sweeps.draw_values(rng, shape, dtype),
            draw_indices(),
            sweeps.draw_values(rng, update_shape, dtype),
        )
        for _ in range(batch)
    )
    targets = "deterministic=True" if deterministic else "unique targets"
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} indices {sweeps.label(index_shape, index_dtype)} "
        f"{targets}",
        fn=lambda x, i, u: scatter_nd(x, i, u, deterministic=deterministic),
        batch=args,
        expected=tuple(reference.scatter_nd(x, i, u) for x, i, u in args),
        linear_argnums=(0, 2),
    )


def _rows(key: jax.Array, quick: bool, rows: int, width: int, count: int, distinct: bool) -> Any:
    """A table, ``count`` row ids (distinct, or random with repeats) and their rows. Values
    are whole quarters, so sums of repeated rows are exact in any order (the GPU's atomic
    adds pick one) and dmljax's output can equal jnp's bit for bit."""
    x_key, index_key, update_key = jax.random.split(key, 3)
    x = jnp.round(4 * operands.normal(x_key, (rows, width))) / 4
    if distinct:
        ids = operands.permutation(index_key, rows)[:count]
    else:
        ids = operands.randint(index_key, (count,), 0, rows)
    updates = jnp.round(4 * operands.normal(update_key, (count, width))) / 4
    return x, ids[:, None], updates


def _bench() -> list[Case | EagerCase]:
    """Row overwrites (distinct rows, default and deterministic) against
    ``x.at[idx[:, 0]].set(u)``, and a segment sum against ``x.at[seg].add(u)``."""

    def overwrite_args(key: jax.Array, quick: bool) -> Any:
        # 2^20 x 256 f32 table (1 GiB), 2^18 distinct rows rewritten (256 MiB).
        sizes = (2**14, 64, 2**12) if quick else (2**20, 256, 2**18)
        return _rows(key, quick, *sizes, distinct=True)

    def segment_args(key: jax.Array, quick: bool) -> Any:
        # 2^20 rows of 256 f32 (1 GiB) into 2^16 segments (64 MiB).
        sizes = (2**10, 64, 2**14) if quick else (2**16, 256, 2**20)
        return _rows(key, quick, *sizes, distinct=False)

    def jnp_set(x: jax.Array, idx: jax.Array, u: jax.Array) -> jax.Array:
        return x.at[idx[:, 0]].set(u)

    def jnp_add(x: jax.Array, idx: jax.Array, u: jax.Array) -> jax.Array:
        return x.at[idx[:, 0]].add(u)

    return [
        Case(
            name="scatter_nd rows",
            operator="SCATTER_ND",
            make_args=overwrite_args,
            dmljax_fn=scatter_nd,
            jnp_fn=jnp_set,
            bytes_moved=operands.scatter_out_of_place_bytes,
        ),
        Case(
            name="scatter_nd rows deterministic",
            operator="SCATTER_ND",
            make_args=overwrite_args,
            dmljax_fn=functools.partial(scatter_nd, deterministic=True),
            jnp_fn=jnp_set,  # the default lowering runs within 1.05x of it
            bytes_moved=operands.scatter_out_of_place_bytes,
            target_ratio=1.5,
            more_work=True,  # a scatter-max and a gather of the tuples' positions
        ),
        Case(
            name="scatter_nd segment sum",
            operator="SCATTER_ND",
            make_args=segment_args,
            dmljax_fn=functools.partial(scatter_nd, reduction="add"),
            jnp_fn=jnp_add,
            bytes_moved=operands.scatter_out_of_place_bytes,
        ),
        EagerCase(
            name="scatter_nd eager",
            operator="SCATTER_ND",
            desc=lambda x, idx, u: ScatterNdOperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                indices_tensor=TensorDesc.from_array(idx),
                updates_tensor=TensorDesc.from_array(u),
                output_tensor=TensorDesc.from_array(x),
                input_dimension_count=2,
                indices_dimension_count=2,
            ),
            functional=scatter_nd,
            jnp_fn=jnp_set,
            make_args=lambda key: _rows(key, True, 8, 8, 4, distinct=True),
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
    # Three rows of five written (one when rank 1 leaves no room for positions).
    count = 3 if rank > 1 else 1
    input_sizes = (1,) * (rank - 1) + (5,)
    indices_sizes = ((1,) * (rank - 2) + (3, 1)) if rank > 1 else (1,)
    updates_sizes = ((1,) * (rank - 1) + (3,)) if rank > 1 else (1,)
    desc = ScatterNdOperatorDesc(
        input_tensor=TensorDesc(data_type=data_type, sizes=input_sizes),
        indices_tensor=TensorDesc(data_type=index_type, sizes=indices_sizes),
        updates_tensor=TensorDesc(data_type=data_type, sizes=updates_sizes),
        output_tensor=TensorDesc(data_type=data_type, sizes=input_sizes),
        input_dimension_count=1,
        indices_dimension_count=min(rank, 2),
    )
    targets = np.array([4, 0, 2][:count]).astype(index_type.dtype).reshape(indices_sizes)
    updates = (data_of(updates_sizes, data_type) + 3).astype(data_type.dtype)
    return desc, (data_of(input_sizes, data_type), targets, updates)


# The length of the index tuples decides the updates' shape: no symbol stands there.
def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    return (k, d) == (1, arrays[1].ndim - 1) and error.field == "indices.shape[-1]"


CHECKS = OperatorChecks(
    SCATTER_ND,
    fixed_size=_fixed_size,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    doc_example=_doc_example,
    doc_example_face=_doc_example_face,
    sweep=_sweep,
    bench=_bench,
)
