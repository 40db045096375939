"""DIAGONAL_MATRIX1's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.diagonal_matrix1` declares, loaded on use only.
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
    INTS_8_32,
    TYPES_64,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.diagonal_matrix import diagonal_matrix
from dmljax._src.ops.diagonal_matrix1 import DIAGONAL_MATRIX1, DiagonalMatrix1OperatorDesc
from dmljax._src.tensor_desc import TensorDesc


def _doc_example_face(example: Any) -> jax.Array:
    desc = example.desc
    output = desc.output_tensor
    x = example.inputs[0] if example.inputs else jax.ShapeDtypeStruct(output.sizes, output.dtype)
    return diagonal_matrix(
        x, value=desc.value, fill_begin=desc.diagonal_fill_begin, fill_end=desc.diagonal_fill_end
    )


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.diagonal_matrix`` of rank 2 to 4: bands, inverted bands and extreme bounds."""
    shape = sweeps.draw_shape(rng, int(rng.integers(2, 4, endpoint=True)), 1, 5)
    bounds = [-(2**31), -3, -1, 0, 1, 2, 4, 2**31 - 1]
    begin, end = (int(b) for b in rng.choice(bounds, size=2))
    # Value 0 keeps the face linear in x for the derivative checks; the tests take others.
    value = 0
    xs = tuple(sweeps.draw_values(rng, shape, dtype) for _ in range(batch))
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} value {value} band [{begin}, {end})",
        fn=lambda x: diagonal_matrix(x, value=value, fill_begin=begin, fill_end=end),
        batch=tuple((x,) for x in xs),
        expected=tuple(
            reference.diagonal_matrix(x, x.shape, value=value, fill_begin=begin, fill_end=end)
            for x in xs
        ),
        linear_argnums=(0,),
    )


def _triangle_case(name: str, begin: int, end: int, jnp_fn: Any) -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        side = 1024 if quick else 16384  # 4 MiB / 1 GiB of f32
        return (operands.normal(key, (side, side)),)

    return Case(
        name=f"diagonal_matrix {name}",
        operator="DIAGONAL_MATRIX1",
        make_args=make_args,
        dmljax_fn=lambda x: diagonal_matrix(x, value=0, fill_begin=begin, fill_end=end),
        jnp_fn=jnp_fn,
        bytes_moved=lambda args: 2 * args[0].nbytes,
    )


def _bench() -> list[Case | EagerCase]:
    """DIAGONAL_MATRIX1 over a 16384x16384 f32 against ``jnp.tril`` and ``jnp.triu``."""
    return [
        _triangle_case("tril", 2, 2**31 - 1, lambda x: jnp.tril(x, 1)),
        _triangle_case("triu", -(2**31), -1, lambda x: jnp.triu(x, -1)),
        EagerCase(
            name="diagonal_matrix eager",
            operator="DIAGONAL_MATRIX1",
            desc=lambda x: _tril_desc(TensorDesc.from_array(x)),
            functional=lambda x: diagonal_matrix(x, value=0, fill_begin=1, fill_end=2**31 - 1),
            jnp_fn=jnp.tril,
            make_args=operands.tiny_operands,
        ),
    ]


def _tril_desc(tensor: TensorDesc) -> DiagonalMatrix1OperatorDesc:
    return DiagonalMatrix1OperatorDesc(
        input_tensor=tensor,
        output_tensor=tensor,
        value_data_type=tensor.data_type,
        value=0,
        diagonal_fill_begin=1,
        diagonal_fill_end=2**31 - 1,
    )


DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_5_1: ((2, 4), FLOATS | INTS_8_32 | TYPES_64, None),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type
    sizes = (1,) * (rank - 2) + (2, 3) if rank >= 2 else (3,)
    desc = DiagonalMatrix1OperatorDesc(
        input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        output_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        value_data_type=data_type,
        value=5,
        diagonal_fill_begin=0,
        diagonal_fill_end=2,
    )
    return desc, (data_of(sizes, data_type),)


CHECKS = OperatorChecks(
    DIAGONAL_MATRIX1,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    doc_example_face=_doc_example_face,
    sweep=_sweep,
    bench=_bench,
)
