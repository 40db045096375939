"""GATHER_ND's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.gather_nd` declares, loaded on use only.
"""

from __future__ import annotations

from typing import Any

import jax
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
from dmljax._src.ops.gather_nd import GATHER_ND, GatherNdOperatorDesc, desc_layout, gather_nd
from dmljax._src.ops.gather_nd1 import GatherNd1OperatorDesc
from dmljax._src.tensor_desc import TensorDesc


def gather_nd_doc_example_face(example: Any) -> jax.Array:
    """A doc example through :func:`gather_nd` on the meaningful dimensions."""
    layout = desc_layout(example.desc)
    x, indices = example.inputs
    out = gather_nd(
        x.reshape(layout.input), indices.reshape(layout.indices), batch_dims=layout.batch
    )
    return out.reshape(example.expected.shape)


def gather_nd_sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> Any:
    """``dml.gather_nd`` of rank 1 to 4, tuples of length 0 to rank, 0 to 2 batch dims."""
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 4, endpoint=True)), 1, 3)
    batch_dims = int(rng.integers(0, min(2, len(shape) - 1), endpoint=True))
    t = int(rng.integers(0, len(shape) - batch_dims, endpoint=True))
    positions = sweeps.draw_shape(rng, int(rng.integers(0, 2, endpoint=True)), 0, 3)
    index_shape = (*shape[:batch_dims], *positions, t)
    index_dtype = sweeps.INDEX_DTYPES[rng.integers(len(sweeps.INDEX_DTYPES))]
    smallest = min(shape[batch_dims : batch_dims + t], default=1)
    args = tuple(
        (
            sweeps.draw_values(rng, shape, dtype),
            sweeps.draw_indices(rng, index_shape, index_dtype, smallest),
        )
        for _ in range(batch)
    )
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} indices {sweeps.label(index_shape, index_dtype)} "
        f"batch_dims {batch_dims}",
        fn=lambda x, i: gather_nd(x, i, batch_dims=batch_dims),
        batch=args,
        expected=tuple(reference.gather_nd(x, i, batch_dims=batch_dims) for x, i in args),
        linear_argnums=(0,),
    )


def _table_and_ids(key: jax.Array, quick: bool, t: int) -> tuple[jax.Array, jax.Array]:
    """A 2^20x256 f32 table (1 GiB; 2^14x64 quick) and random index tuples of length ``t``:
    2^20 row lookups (1 GiB out), or 2^24 point lookups (64 MiB out, 128 MiB of tuples)."""
    rows, width = (2**14, 64) if quick else (2**20, 256)
    picked = (2**12 if quick else 2**20) if t == 1 else (2**14 if quick else 2**24)
    x_key, index_key = jax.random.split(key)
    shape = (rows, width)
    x = operands.normal(x_key, shape)
    bounds = np.asarray(shape[:t], np.int32).reshape(1, t)
    ids = operands.randint(index_key, (picked, t), 0, bounds)
    return x, ids


def gather_nd_bench() -> list[Case | EagerCase]:
    """A row lookup (k = 1) against ``x[idx[:, 0]]`` and a point gather (k = 2) against
    ``x[tuple(idx.T)]``, into a 2^20x256 f32 table."""

    def rows_jnp(x: jax.Array, idx: jax.Array) -> jax.Array:
        return x[idx[:, 0]]

    def points_jnp(x: jax.Array, idx: jax.Array) -> jax.Array:
        return x[tuple(idx.T)]

    return [
        Case(
            name="gather_nd rows",
            operator="GATHER_ND",
            make_args=lambda key, quick: _table_and_ids(key, quick, 1),
            dmljax_fn=gather_nd,
            jnp_fn=rows_jnp,
            bytes_moved=operands.gather_bytes(rows_jnp),
            min_pct_of_copy=85.0,
        ),
        Case(
            name="gather_nd points",
            operator="GATHER_ND",
            make_args=lambda key, quick: _table_and_ids(key, quick, 2),
            dmljax_fn=gather_nd,
            jnp_fn=points_jnp,
            bytes_moved=operands.gather_bytes(points_jnp),
        ),
        EagerCase(
            name="gather_nd eager",
            operator="GATHER_ND",
            desc=lambda x, idx: GatherNdOperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                indices_tensor=TensorDesc.from_array(idx),
                output_tensor=TensorDesc.from_array(x[:4]),
                input_dimension_count=2,
                indices_dimension_count=2,
            ),
            functional=gather_nd,
            jnp_fn=rows_jnp,
            make_args=lambda key: (
                operands.normal(key, (8, 8)),
                operands.randint(key, (4, 1), 0, 8),
            ),
            numpy_indices=1,
        ),
    ]


DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_2_1: ((4, 4), FLOATS | INTS_8_32, {DataType.UINT32}),
    FeatureLevel.FL_3_0: ((1, 8), FLOATS | INTS_8_32, INDEX_TYPES),
    FeatureLevel.FL_4_1: ((1, 8), FLOATS | INTS_8_32 | TYPES_64, INDEX_TYPES),
}


def gather_nd_support_case(
    rank: int, data_type: DataType, index_type: DataType, *, batch: bool = False
) -> tuple[Any, tuple[np.ndarray, ...]]:
    """Five rows of one dimension read back to front (one point when rank 1 leaves no
    room for positions); as GATHER_ND1 with no batch dimension when ``batch``."""
    count = 5 if rank > 1 else 1
    input_sizes = (1,) * (rank - 1) + (5,)
    indices_sizes = ((1,) * (rank - 2) + (5, 1)) if rank > 1 else (1,)
    output_sizes = input_sizes if rank > 1 else (1,)
    fields: dict[str, Any] = dict(
        input_tensor=TensorDesc(data_type=data_type, sizes=input_sizes),
        indices_tensor=TensorDesc(data_type=index_type, sizes=indices_sizes),
        output_tensor=TensorDesc(data_type=data_type, sizes=output_sizes),
        input_dimension_count=1,
        indices_dimension_count=min(rank, 2),
    )
    desc = (
        GatherNd1OperatorDesc(**fields, batch_dimension_count=0)
        if batch
        else GatherNdOperatorDesc(**fields)
    )
    indices = np.arange(count)[::-1].astype(index_type.dtype).reshape(indices_sizes)
    return desc, (data_of(input_sizes, data_type), indices)


_support_case = gather_nd_support_case


# The length of the index tuples decides the rank of the result: no symbol stands there.
def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    return (k, d) == (1, arrays[1].ndim - 1) and error.field == "indices.shape[-1]"


CHECKS = OperatorChecks(
    GATHER_ND,
    fixed_size=_fixed_size,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    doc_example_face=gather_nd_doc_example_face,
    sweep=gather_nd_sweep,
    bench=gather_nd_bench,
)
