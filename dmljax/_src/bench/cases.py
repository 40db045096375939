"""The fixed suite of ``python -m dmljax bench``: every operator's cases, then the strided ones.

Each operator declares its timed :class:`Case` s and its :class:`EagerCase` in
its own module (``Operator(bench=...)``); :data:`OPERATORS` lists them in the
order of :data:`dmljax.OPERATORS`, then :func:`strided_cases`, which read
strided tensors through two operators. Full sizes follow performance.md §1
(working sets of at least 256 MiB); quick sizes keep each case to a few MiB.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

import dmljax as dml
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.operator import OperatorDesc

__all__ = ["OPERATORS", "all_cases", "strided_cases"]

_F32 = jnp.float32


def _like(x: jax.Array) -> dml.TensorDesc:
    return dml.TensorDesc.from_array(x)


def _nhwc_desc(shape: tuple[int, int, int, int]) -> dml.TensorDesc:
    """NCHW sizes laid out channels-last: N, then H, then W, then C in memory."""
    _, c, h, w = shape
    return dml.TensorDesc(
        data_type=dml.DataType.FLOAT32, sizes=shape, strides=(h * w * c, 1, w * c, c)
    )


def _nchw_from_nhwc(buffer: jax.Array, shape: tuple[int, int, int, int]) -> jax.Array:
    n, c, h, w = shape
    return jnp.transpose(buffer.reshape(n, h, w, c), (0, 3, 1, 2))


def _strided_case(
    operator: str, desc_of: Callable[[dml.TensorDesc], OperatorDesc[jax.Array, ArrayLike]]
) -> Case:
    quick_shape, full_shape = (4, 32, 14, 14), (64, 256, 56, 56)  # 100 KiB / 196 MiB of f32

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        shape = quick_shape if quick else full_shape
        return (jax.random.normal(key, (math.prod(shape),), _F32),)

    def shape_of(buffer: jax.Array) -> tuple[int, int, int, int]:
        return quick_shape if buffer.size == math.prod(quick_shape) else full_shape

    def dmljax_fn(buffer: jax.Array) -> jax.Array:
        return dml.compile_operator(desc_of(_nhwc_desc(shape_of(buffer))))(buffer)

    def jnp_fn(buffer: jax.Array) -> jax.Array:
        # The same op on an explicitly transposed dense array: TILE of repeats 1 and a
        # full SLICE1 window both copy it.
        return _nchw_from_nhwc(buffer, shape_of(buffer))[:, :, :, :]

    return Case(
        name=f"{operator.lower()} NHWC-strided input",
        operator=operator,
        make_args=make_args,
        dmljax_fn=dmljax_fn,
        jnp_fn=jnp_fn,
        bytes_moved=lambda args: 2 * args[0].nbytes,  # read the buffer, write the NCHW tensor
        target_ratio=1.1,
    )


def _dense(tensor: dml.TensorDesc) -> dml.TensorDesc:
    return dml.TensorDesc(data_type=tensor.data_type, sizes=tensor.sizes)


def strided_cases() -> list[Case | EagerCase]:
    """An NHWC-strided 64x256x56x56 f32 input to TILE (repeats 1) and to a full SLICE1
    window, against a transpose of the dense buffer: a permuted layout must lower to one
    transpose, with no gather of computed offsets (target 1.1x)."""
    return [
        _strided_case(
            "TILE",
            lambda nhwc: dml.TileOperatorDesc(
                input_tensor=nhwc, output_tensor=_dense(nhwc), repeats=(1, 1, 1, 1)
            ),
        ),
        _strided_case(
            "SLICE1",
            lambda nhwc: dml.Slice1OperatorDesc(
                input_tensor=nhwc,
                output_tensor=_dense(nhwc),
                input_window_offsets=(0, 0, 0, 0),
                input_window_sizes=nhwc.sizes,
                input_window_strides=(1, 1, 1, 1),
            ),
        ),
    ]


OPERATORS: tuple[Callable[[], list[Case | EagerCase]], ...] = (
    *(operator.bench for operator in dml.OPERATORS if operator.bench is not None),
    strided_cases,
)


def all_cases() -> list[Case | EagerCase]:
    """Every case of every operator in :data:`OPERATORS`, in report order.

    >>> [case.name for case in all_cases()][:3]
    ['tile (2,2)', 'tile (1,4)', 'tile (4,1)']
    """
    return [case for operator in OPERATORS for case in operator()]
