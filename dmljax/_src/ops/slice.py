"""SLICE: ``DML_SLICE_OPERATOR_DESC``, SLICE1's FL 1_0 predecessor.

``output[c] = input[offsets + strides * c]`` with UINT strides (0 included), where
``sizes`` are the output sizes and every read must be inside the input. It is
the SLICE1 window ``(offsets, (sizes - 1) * strides + 1, strides)`` and runs
through SLICE1's lowering.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from dmljax._src import contract, feature_levels as fl, rules
from dmljax._src.arguments import require_length, static_int_tuple
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.ops.slice1 import SLICE1_BANDS, slice1_lowering
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["SLICE", "SliceOperatorDesc"]

_ARRAY_FIELDS = ("offsets", "sizes", "strides")


class SliceOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_SLICE_OPERATOR_DESC``: a strided slice whose ``sizes`` are the output sizes.

    The rules (checked by :func:`dmljax.compile_operator`): ``offsets``,
    ``sizes`` and ``strides`` have the tensors' DimensionCount; ``sizes``
    equals ``output_tensor.sizes``; strides are non-negative; every read is
    inside the input (``offset + (size - 1) * stride < input size``); input and
    output share data type and DimensionCount. FL 1_0: 4 or 5 dimensions,
    16- and 32-bit types; 2_1: 8-bit types; 3_0: 1 to 8 dimensions; 4_1:
    64-bit types. New code uses :class:`dmljax.Slice1OperatorDesc`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.SliceOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 4, 4)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 2)),
    ...     offsets=(0, 0, 1, 0), sizes=(1, 1, 2, 2), strides=(1, 1, 2, 3))
    >>> x = jnp.arange(1.0, 17.0).reshape(1, 1, 4, 4)
    >>> dml.compile_operator(desc, feature_level=dml.FeatureLevel.FL_1_0)(x)[0, 0]
    Array([[ 5.,  8.],
           [13., 16.]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    offsets: tuple[int, ...] = contract.attribute(static_int_tuple)
    sizes: tuple[int, ...] = contract.attribute(static_int_tuple)
    strides: tuple[int, ...] = contract.attribute(static_int_tuple)


# DML_SLICE (FL 1_0) had no 8-bit types until FL 2_1.
_T = DataType
_SLICE_SUPPORT = (
    fl.band(FL.FL_1_0, (4, 5), fl.FLOATS_16_32 | {_T.INT32, _T.INT16, _T.UINT32, _T.UINT16}),
    *SLICE1_BANDS,
)


def _slice_rules(desc: SliceOperatorDesc, level: FL) -> None:
    op = type(desc).__name__
    rank = desc.input_tensor.dimension_count
    for field in _ARRAY_FIELDS:
        why = "DimensionCount: one entry per dimension"
        require_length(getattr(desc, field), rank, op=op, field=field, why=why)
    for i, (dim, offset, size, stride) in enumerate(
        zip(desc.input_tensor.sizes, desc.offsets, desc.sizes, desc.strides, strict=True)
    ):
        if stride < 0:
            raise InvalidArgumentError(op, f"strides[{i}]", "non-negative (a UINT)", stride)
        if offset < 0:
            raise InvalidArgumentError(op, f"offsets[{i}]", "non-negative", offset)
        last_read = offset + (size - 1) * stride
        if last_read >= dim:
            raise InvalidArgumentError(
                op,
                f"sizes[{i}]",
                f"small enough that the last read, offset + (size - 1) * stride, is inside "
                f"the input (below {dim} along dimension {i})",
                f"{size} (last read at {last_read})",
            )
    rules.require_c_int32(desc.strides, signed=False, op=op, field="strides")


def _slice_output_sizes(desc: SliceOperatorDesc) -> tuple[tuple[int, ...], str]:
    return desc.sizes, "sizes"


def _lower_slice(desc: SliceOperatorDesc, options: contract.LoweringOptions) -> Any:
    del options
    return functools.partial(
        slice_lowering, offsets=desc.offsets, sizes=desc.sizes, strides=desc.strides
    )


def slice_lowering(
    x: jax.Array, *, offsets: tuple[int, ...], sizes: tuple[int, ...], strides: tuple[int, ...]
) -> jax.Array:
    """SLICE as the SLICE1 window ``(offsets, (sizes - 1) * strides + 1, strides)``.

    A stride of 0 (the page's strides are UINT, and it forbids only reads outside the
    input) reads the offset's element at every output coordinate of its dimension: a
    window of one element, broadcast.
    """
    picked = tuple(size if stride else 1 for size, stride in zip(sizes, strides, strict=True))
    window = slice1_lowering(
        x,
        offsets=offsets,
        sizes=tuple((size - 1) * stride + 1 for size, stride in zip(picked, strides, strict=True)),
        strides=tuple(stride or 1 for stride in strides),
        output_sizes=picked,
    )
    return window if picked == sizes else jnp.broadcast_to(window, sizes)


SLICE = contract.Operator(
    "DML_OPERATOR_SLICE",
    SliceOperatorDesc,
    support=_SLICE_SUPPORT,
    same_dimension_count=True,
    same_data_type=("input_tensor", "output_tensor"),
    rules=_slice_rules,
    output_sizes=_slice_output_sizes,
    lower=_lower_slice,
    face=None,
    served_by="DML_OPERATOR_SLICE1",
)
