"""REVERSE_SUBSEQUENCES's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.reverse_subsequences` declares, loaded on use only.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

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
from dmljax._src.ops.reverse_subsequences import (
    REVERSE_SUBSEQUENCES,
    ReverseSubsequencesOperatorDesc,
    reverse_subsequences,
)
from dmljax._src.tensor_desc import TensorDesc


def _doc_example_face(example: Any) -> jax.Array:
    x, lengths = example.inputs
    return reverse_subsequences(x, lengths, axis=example.desc.axis)


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.reverse_subsequences`` of rank 1 to 3, every axis, wild lengths."""
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 3, endpoint=True)), 1, 5)
    axis = int(rng.integers(-len(shape), len(shape)))
    at = axis % len(shape)
    length_shape = tuple(1 if i == at else size for i, size in enumerate(shape))
    length_dtype = sweeps.INDEX_DTYPES[rng.integers(len(sweeps.INDEX_DTYPES))]
    args = tuple(
        (
            sweeps.draw_values(rng, shape, dtype),
            sweeps.draw_indices(rng, length_shape, length_dtype, shape[at]),
        )
        for _ in range(batch)
    )
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} lengths {sweeps.label(length_shape, length_dtype)} "
        f"axis {axis}",
        fn=lambda x, lengths: reverse_subsequences(x, lengths, axis=axis),
        batch=args,
        expected=tuple(reference.reverse_subsequences(x, n, axis=at) for x, n in args),
        linear_argnums=(0,),
    )


def jnp_reverse_subsequences(x: jax.Array, lengths: jax.Array, axis: int) -> jax.Array:
    """The best jnp formulation found: ``jnp.take_along_axis`` at ``where(j < n, n - 1 - j, j)``
    with ``mode="promise_in_bounds"`` (the indices are in bounds by construction; the default
    mode adds bounds handling, 1.5x slower on the H100, and a flip, select or per-sequence roll
    reads the array more than once)."""
    n = jnp.clip(lengths, 0, x.shape[axis])
    j = lax.broadcasted_iota(n.dtype, x.shape, axis)
    source = jnp.where(j < n, n - 1 - j, j)
    return jnp.take_along_axis(x, source, axis=axis, mode="promise_in_bounds")


def _reverse_case() -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        rows, length = (256, 1024) if quick else (16384, 16384)  # 1 MiB / 1 GiB of f32
        x_key, n_key = jax.random.split(key)
        x = operands.normal(x_key, (rows, length))
        return x, operands.randint(n_key, (rows, 1), 0, length + 1)

    return Case(
        name="reverse_subsequences",
        operator="REVERSE_SUBSEQUENCES",
        make_args=make_args,
        dmljax_fn=lambda x, n: reverse_subsequences(x, n, axis=1),
        jnp_fn=lambda x, n: jnp_reverse_subsequences(x, n, 1),
        bytes_moved=lambda args: 2 * args[0].nbytes + args[1].nbytes,
    )


def _bench() -> list[Case | EagerCase]:
    """REVERSE_SUBSEQUENCES of 16384 rows of 16384 f32 along the rows, random lengths, against
    :func:`jnp_reverse_subsequences`."""

    def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
        x, lengths = operands.tiny_operands(key, (8, 1))
        return x, lengths.astype(jnp.uint32)  # the desc's UINT32 lengths

    return [
        _reverse_case(),
        EagerCase(
            name="reverse_subsequences eager",
            operator="REVERSE_SUBSEQUENCES",
            desc=lambda x, n: ReverseSubsequencesOperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                sequence_lengths_tensor=TensorDesc.from_array(n),
                output_tensor=TensorDesc.from_array(x),
                axis=1,
            ),
            functional=lambda x, n: reverse_subsequences(x, n, axis=1),
            jnp_fn=lambda x, n: jnp_reverse_subsequences(x, n, 1),
            make_args=tiny,
            numpy_indices=1,
        ),
    ]


DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_2_1: ((4, 4), FLOATS | INTS_8_32, {DataType.UINT32}),
    FeatureLevel.FL_3_0: ((4, 5), FLOATS | INTS_8_32, {DataType.UINT32}),
    FeatureLevel.FL_4_0: ((1, 8), FLOATS | INTS_8_32, {DataType.UINT32}),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    ones = (1,) * (rank - 1)
    desc = ReverseSubsequencesOperatorDesc(
        input_tensor=TensorDesc(data_type=data_type, sizes=(*ones, 3)),
        sequence_lengths_tensor=TensorDesc(data_type=index_type, sizes=(*ones, 1)),
        output_tensor=TensorDesc(data_type=data_type, sizes=(*ones, 3)),
        axis=rank - 1,
    )
    lengths = np.full((*ones, 1), 2, index_type.dtype)
    return desc, (data_of((*ones, 3), data_type), lengths)


# lengths has 1 along the axis, and 1 where it broadcasts: no symbol stands there.
def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    return k == 1 and arrays[1].shape[d] == 1 and error.field == "lengths.shape"


CHECKS = OperatorChecks(
    REVERSE_SUBSEQUENCES,
    fixed_size=_fixed_size,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    doc_example_face=_doc_example_face,
    sweep=_sweep,
    bench=_bench,
)
