"""ONE_HOT's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.one_hot` declares, loaded on use only.
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
    DocumentedBand,
    OperatorChecks,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.one_hot import ONE_HOT, OneHotOperatorDesc, one_hot
from dmljax._src.tensor_desc import TensorDesc


def _doc_example_face(example: Any) -> jax.Array:
    desc = example.desc
    indices, values = example.inputs
    return one_hot(
        np.squeeze(indices, desc.axis),
        values,
        depth=desc.output_tensor.sizes[desc.axis],
        axis=desc.axis,
    )


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.one_hot`` of rank 0 to 3 indices, every axis, wild indices, values of any shape."""
    shape = sweeps.draw_shape(rng, int(rng.integers(0, 3, endpoint=True)), 1, 4)
    depth = int(rng.integers(1, 5, endpoint=True))
    axis = int(rng.integers(-len(shape) - 1, len(shape), endpoint=True))
    index_dtype = sweeps.INDEX_DTYPES[rng.integers(len(sweeps.INDEX_DTYPES))]
    values_shape = sweeps.draw_shape(rng, int(rng.integers(1, 2, endpoint=True)), 2, 3)
    args = tuple(
        (
            sweeps.draw_indices(rng, shape, index_dtype, depth),
            sweeps.draw_values(rng, values_shape, dtype),
        )
        for _ in range(batch)
    )
    at = axis % (len(shape) + 1)
    return sweeps.SweepCase(
        label=f"indices {sweeps.label(shape, index_dtype)} values "
        f"{sweeps.label(values_shape, dtype)} depth {depth} axis {axis}",
        fn=lambda i, v: one_hot(i, v, depth=depth, axis=axis),
        batch=args,
        expected=tuple(
            reference.one_hot(np.expand_dims(i, at), v, depth=depth, axis=at) for i, v in args
        ),
        linear_argnums=(1,),
    )


def _jnp_one_hot(labels: jax.Array, values: jax.Array, depth: int, axis: int = -1) -> jax.Array:
    """ONE_HOT by hand in jax.numpy: ``values[..., 1]`` at each label, ``values[..., 0]``
    elsewhere. It reads ``values`` as dmljax does, so that both programs take the same
    arguments (a contender that dropped it would be passed one buffer fewer a call)."""
    hot = jax.nn.one_hot(labels, depth, axis=axis, dtype=jnp.bool_)
    return jnp.where(hot, values[..., 1], values[..., 0])


def _one_hot_case() -> Case:
    depth = 512

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        count = 2**11 if quick else 2**20  # results of 4 MiB / 2 GiB of f32
        labels = operands.randint(key, (count,), 0, depth)
        return labels, jnp.array([0.0, 1.0], operands.F32)

    def jnp_fn(labels: jax.Array, values: jax.Array) -> jax.Array:
        return _jnp_one_hot(labels, values, depth)

    return Case(
        name="one_hot 512",
        operator="ONE_HOT",
        make_args=make_args,
        dmljax_fn=lambda labels, values: one_hot(labels, values, depth=depth),
        jnp_fn=jnp_fn,
        bytes_moved=lambda args: args[0].nbytes + operands.output_nbytes(jnp_fn, args),
    )


def _bench() -> list[Case | EagerCase]:
    """ONE_HOT of 2**20 int32 labels into 512 f32 classes, against ``jax.nn.one_hot``."""

    def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
        return operands.randint(key, (8, 1), 0, 8), jnp.array([[0.0, 1.0]])

    return [
        _one_hot_case(),
        EagerCase(
            name="one_hot eager",
            operator="ONE_HOT",
            desc=lambda labels, values: OneHotOperatorDesc(
                indices_tensor=TensorDesc.from_array(labels),
                values_tensor=TensorDesc.from_array(values),
                output_tensor=TensorDesc.from_array(jnp.zeros((8, 8), values.dtype)),
                axis=1,
            ),
            # The (8, 1) labels give an (8, 8, 1) result on the functional face and in jnp.
            functional=lambda labels, values: one_hot(labels, values, depth=8, axis=1),
            jnp_fn=lambda labels, values: _jnp_one_hot(labels, values[0], 8, axis=1),
            make_args=tiny,
            numpy_indices=0,
        ),
    ]


DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_2_0: ((4, 4), FLOATS, {DataType.UINT32}),
    FeatureLevel.FL_2_1: ((4, 4), FLOATS | INTS_8_32, {DataType.UINT32}),
    FeatureLevel.FL_3_0: ((1, 8), FLOATS | INTS_8_32, INDEX_TYPES),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    ones = (1,) * (rank - 1)
    desc = OneHotOperatorDesc(
        indices_tensor=TensorDesc(data_type=index_type, sizes=(*ones, 1)),
        values_tensor=TensorDesc(data_type=data_type, sizes=(*ones, 2)),
        output_tensor=TensorDesc(data_type=data_type, sizes=(*ones, 3)),
        axis=rank - 1,
    )
    indices = np.full((*ones, 1), 2, index_type.dtype)
    values = np.array([4, 6]).astype(data_type.dtype).reshape((*ones, 2))
    return desc, (indices, values)


CHECKS = OperatorChecks(
    ONE_HOT,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    doc_example_face=_doc_example_face,
    sweep=_sweep,
    bench=_bench,
)
