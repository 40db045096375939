"""JOIN's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.join` declares, loaded on use only.
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
    INTS_16_32,
    TYPES_64,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.join import JOIN, JoinOperatorDesc, join
from dmljax._src.tensor_desc import TensorDesc


def _doc_example_face(example: Any) -> jax.Array:
    return join(example.inputs, axis=example.desc.axis)


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.join`` of 1 to 4 arrays of rank 1 to 3, parts of size 0 to 3 along the axis."""
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 3, endpoint=True)), 1, 3)
    axis = int(rng.integers(-len(shape), len(shape)))
    along = [int(n) for n in rng.integers(0, 3, size=int(rng.integers(1, 4, endpoint=True)))]
    shapes = [(*shape[: axis % len(shape)], n, *shape[axis % len(shape) + 1 :]) for n in along]
    args = tuple(tuple(sweeps.draw_values(rng, s, dtype) for s in shapes) for _ in range(batch))
    return sweeps.SweepCase(
        label=f"{' + '.join(sweeps.label(s, dtype) for s in shapes)} axis {axis}",
        fn=lambda *xs: join(xs, axis=axis),
        batch=args,
        expected=tuple(reference.join(xs, axis=axis) for xs in args),
        linear_argnums=tuple(range(len(shapes))),
    )


_PARTS = 8


def _join_case() -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        rows = 64 if quick else 8192  # eight parts of 1 MiB / 128 MiB of f32
        keys = jax.random.split(key, _PARTS)
        return tuple(operands.normal(k, (rows, 4096)) for k in keys)

    return Case(
        name="join 8 parts",
        operator="JOIN",
        make_args=make_args,
        dmljax_fn=lambda *xs: join(xs, axis=0),
        jnp_fn=lambda *xs: jnp.concatenate(xs, axis=0),
        bytes_moved=lambda args: 2 * sum(x.nbytes for x in args),
    )


def _bench() -> list[Case | EagerCase]:
    """JOIN of eight 8192x4096 f32 parts along rows, against ``jnp.concatenate``."""
    return [
        _join_case(),
        EagerCase(
            name="join eager",
            operator="JOIN",
            desc=lambda a, b: JoinOperatorDesc(
                input_tensors=(TensorDesc.from_array(a), TensorDesc.from_array(b)),
                output_tensor=TensorDesc.from_array(jnp.concatenate([a, b])),
                axis=0,
            ),
            functional=lambda a, b: join((a, b), axis=0),
            jnp_fn=lambda a, b: jnp.concatenate([a, b]),
            make_args=lambda key: operands.tiny_operands(key) * 2,
        ),
    ]


DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: (
        (4, 4),
        FLOATS | INTS_16_32,
        None,
    ),
    FeatureLevel.FL_2_1: ((4, 4), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_3_0: ((4, 5), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_4_1: ((1, 8), FLOATS | INTS_8_32 | TYPES_64, None),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type
    parts = [(2,) * (rank - 1) + (n,) for n in (1, 2)]
    desc = JoinOperatorDesc(
        input_tensors=tuple(TensorDesc(data_type=data_type, sizes=s) for s in parts),
        output_tensor=TensorDesc(data_type=data_type, sizes=(2,) * (rank - 1) + (3,)),
        axis=rank - 1,
    )
    return desc, tuple(data_of(s, data_type) for s in parts)


CHECKS = OperatorChecks(
    JOIN,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    doc_example_face=_doc_example_face,
    sweep=_sweep,
    bench=_bench,
)
