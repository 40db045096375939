"""DIAGONAL_MATRIX's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.diagonal_matrix` declares, loaded on use only.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking.operator_checks import (
    FLOATS,
    INTS_8_32,
    DocumentedBand,
    OperatorChecks,
)
from dmljax._src.dtypes import DataType as DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.diagonal_matrix import (
    DIAGONAL_MATRIX,
    DiagonalMatrixOperatorDesc,
    diagonal_matrix,
)
from dmljax._src.tensor_desc import TensorDesc


def _doc_example_face(example: Any) -> jax.Array:
    desc = example.desc
    output = desc.output_tensor
    return diagonal_matrix(
        jax.ShapeDtypeStruct(output.sizes, output.dtype),
        value=desc.value,
        fill_begin=desc.offset,
        fill_end=desc.offset + 1,
    )


def _eye_case() -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        side = 1024 if quick else 16384  # 4 MiB / 1 GiB of f32, twice
        # Only its shape and dtype are read: both sides generate an array like it.
        return (operands.normal(key, (2, side, side)),)

    def dml_fn(like: jax.Array) -> jax.Array:
        shape = jax.ShapeDtypeStruct(like.shape, like.dtype)
        return diagonal_matrix(shape, fill_begin=3, fill_end=4)

    def jnp_fn(like: jax.Array) -> jax.Array:
        eye = jnp.eye(like.shape[1], like.shape[2], 3, like.dtype)
        return jnp.broadcast_to(eye, like.shape)

    return Case(
        name="diagonal_matrix eye",
        operator="DIAGONAL_MATRIX",
        make_args=make_args,
        dmljax_fn=dml_fn,
        jnp_fn=jnp_fn,
        bytes_moved=lambda args: args[0].nbytes,  # written only
    )


def _bench() -> list[Case | EagerCase]:
    """DIAGONAL_MATRIX of a 2x16384x16384 f32 against ``jnp.eye`` broadcast."""
    f32 = TensorDesc(data_type=DataType.FLOAT32, sizes=(1, 1, 8, 8))
    like = jax.ShapeDtypeStruct(f32.sizes, f32.dtype)  # made once, as a caller would
    return [
        _eye_case(),
        EagerCase(
            name="diagonal_matrix eye eager",
            operator="DIAGONAL_MATRIX",
            desc=lambda: DiagonalMatrixOperatorDesc(output_tensor=f32, offset=1),
            functional=lambda: diagonal_matrix(like, fill_begin=1, fill_end=2),
            jnp_fn=lambda: jnp.eye(8, 8, 1, operands.F32)[None, None],
            make_args=lambda key: (),  # a generator: no operands
        ),
    ]


DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_2_0: ((4, 4), FLOATS, None),
    FeatureLevel.FL_2_1: ((4, 4), FLOATS | INTS_8_32, None),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type
    sizes = (1,) * (rank - 2) + (2, 3) if rank >= 2 else (3,)
    desc = DiagonalMatrixOperatorDesc(
        output_tensor=TensorDesc(data_type=data_type, sizes=sizes), offset=1, value=5.0
    )
    return desc, ()


CHECKS = OperatorChecks(
    DIAGONAL_MATRIX,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    doc_example_face=_doc_example_face,
    bench=_bench,
)
