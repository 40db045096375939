"""SLICE_GRAD's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.slice_grad` declares, loaded on use only.
"""

from __future__ import annotations

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
    INTS_8_32,
    TYPES_64,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.slice1 import max_output_size
from dmljax._src.ops.slice_grad import SLICE_GRAD, SliceGradOperatorDesc, slice_grad
from dmljax._src.tensor_desc import TensorDesc


def _doc_example(e: Entry) -> SliceGradOperatorDesc:
    attrs = e["attrs"]
    return SliceGradOperatorDesc(
        input_gradient_tensor=tensor_desc_of(e["inputs"]["InputGradientTensor"]),
        output_gradient_tensor=tensor_desc_of(e["expected"]),
        input_window_offsets=tuple(attrs["InputWindowOffsets"]),
        input_window_sizes=tuple(attrs["InputWindowSizes"]),
        input_window_strides=tuple(attrs["InputWindowStrides"]),
    )


def _doc_example_face(example: Any) -> jax.Array:
    desc = example.desc
    return slice_grad(
        example.inputs[0],
        desc.output_gradient_tensor.sizes,
        offsets=desc.input_window_offsets,
        sizes=desc.input_window_sizes,
        strides=desc.input_window_strides,
    )


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.slice_grad`` of rank 1 to 3: SLICE1's windows, strides of either sign."""
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 3, endpoint=True)), 1, 6)
    windows = []
    for dim in shape:
        offset = int(rng.integers(0, dim // 2, endpoint=True))
        size = int(rng.integers(max(1, (dim - offset) // 2), dim - offset, endpoint=True))
        stride = int(rng.choice([-1, 1])) * int(rng.choice([1, 2, 3]))
        out = int(rng.integers(1, max_output_size(size, stride), endpoint=True))
        windows.append((offset, size, stride, out))
    offsets, sizes, strides, dy_shape = (tuple(column) for column in zip(*windows, strict=True))
    dys = tuple(sweeps.draw_values(rng, dy_shape, dtype) for _ in range(batch))
    window = dict(offsets=offsets, sizes=sizes, strides=strides)
    return sweeps.SweepCase(
        label=f"{sweeps.label(dy_shape, dtype)} into {shape} offsets {offsets} sizes {sizes} "
        f"strides {strides}",
        fn=lambda dy: slice_grad(dy, shape, **window),
        batch=tuple((dy,) for dy in dys),
        expected=tuple(reference.slice_grad(dy, shape, **window) for dy in dys),
        linear_argnums=(0,),
    )


def _slice_grad_case() -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        side = 512 if quick else 8192  # dy of 1 MiB / 256 MiB of f32, into 4x that
        return (operands.normal(key, (side, side)),)

    def dml_fn(dy: jax.Array) -> jax.Array:
        whole = (2 * dy.shape[0], 2 * dy.shape[1])
        return slice_grad(dy, whole, offsets=(0, 0), sizes=whole, strides=(2, -2))

    def jnp_fn(dy: jax.Array) -> jax.Array:
        zeros = jnp.zeros((2 * dy.shape[0], 2 * dy.shape[1]), dy.dtype)
        _, vjp = jax.vjp(lambda x: x[::2, ::-2], zeros)
        return vjp(dy)[0]

    return Case(
        name="slice_grad (2,-2)",
        operator="SLICE_GRAD",
        make_args=make_args,
        dmljax_fn=dml_fn,
        jnp_fn=jnp_fn,
        bytes_moved=lambda args: args[0].nbytes + operands.output_nbytes(jnp_fn, args),
    )


def _bench() -> list[Case | EagerCase]:
    """SLICE_GRAD of an 8192x8192 f32 into 16384x16384, strides (2, -2), against the vjp of
    ``x[::2, ::-2]``."""
    whole = (16, 16)
    return [
        _slice_grad_case(),
        EagerCase(
            name="slice_grad eager",
            operator="SLICE_GRAD",
            desc=lambda dy: SliceGradOperatorDesc(
                input_gradient_tensor=TensorDesc.from_array(dy),
                output_gradient_tensor=TensorDesc.from_array(jnp.zeros(whole, dy.dtype)),
                input_window_offsets=(0, 0),
                input_window_sizes=whole,
                input_window_strides=(2, -2),
            ),
            functional=lambda dy: slice_grad(
                dy, whole, offsets=(0, 0), sizes=whole, strides=(2, -2)
            ),
            jnp_fn=lambda dy: jax.vjp(lambda x: x[::2, ::-2], jnp.zeros(whole, dy.dtype))[1](dy)[0],
            make_args=operands.tiny_operands,
        ),
    ]


DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_3_0: ((4, 5), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_3_1: ((1, 8), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_4_1: ((1, 8), FLOATS | INTS_8_32 | TYPES_64, None),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type
    ones = (1,) * (rank - 1)
    desc = SliceGradOperatorDesc(
        input_gradient_tensor=TensorDesc(data_type=data_type, sizes=(*ones, 2)),
        output_gradient_tensor=TensorDesc(data_type=data_type, sizes=(*ones, 4)),
        input_window_offsets=(0,) * rank,
        input_window_sizes=(*ones, 4),
        input_window_strides=(*ones, -2),
    )
    return desc, (data_of((*ones, 2), data_type),)


# dy's shape is the window that offsets, sizes and strides give: no symbol stands there.
def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    return k == 0


CHECKS = OperatorChecks(
    SLICE_GRAD,
    fixed_size=_fixed_size,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    doc_example=_doc_example,
    doc_example_face=_doc_example_face,
    sweep=_sweep,
    bench=_bench,
)
