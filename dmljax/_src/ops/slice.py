"""SLICE: ``DML_SLICE_OPERATOR_DESC``, SLICE1's FL 1_0 predecessor.

``output[c] = input[offsets + strides * c]`` with positive strides, where
``sizes`` are the output sizes and every read must be inside the input. It is
the SLICE1 window ``(offsets, (sizes - 1) * strides + 1, strides)`` and runs
through SLICE1's lowering.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from dmljax._src import feature_levels
from dmljax._src.arguments import static_int_tuple
from dmljax._src.compile import LoweringOptions, OperatorDefinition, register
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.slice1 import slice1_lowering
from dmljax._src.rules import (
    require_c_int32,
    require_same_data_type,
    require_same_dimension_count,
    require_sizes,
    require_tensor_desc,
)
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["SliceOperatorDesc"]

_DESC = "SliceOperatorDesc"
_ARRAY_FIELDS = ("offsets", "sizes", "strides")


@dataclasses.dataclass(frozen=True, kw_only=True)
class SliceOperatorDesc:
    """``DML_SLICE_OPERATOR_DESC``: a strided slice whose ``sizes`` are the output sizes.

    The rules (checked by :func:`dmljax.compile_operator`): ``offsets``,
    ``sizes`` and ``strides`` have the tensors' DimensionCount; ``sizes``
    equals ``output_tensor.sizes``; strides are at least 1; every read is
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

    input_tensor: TensorDesc
    output_tensor: TensorDesc
    offsets: tuple[int, ...]
    sizes: tuple[int, ...]
    strides: tuple[int, ...]

    def __post_init__(self) -> None:
        require_tensor_desc(self.input_tensor, op=_DESC, field="input_tensor")
        require_tensor_desc(self.output_tensor, op=_DESC, field="output_tensor")
        for field in _ARRAY_FIELDS:
            object.__setattr__(
                self, field, static_int_tuple(getattr(self, field), op=_DESC, field=field)
            )


def _validate(desc: SliceOperatorDesc, level: FeatureLevel) -> None:
    del level
    require_same_dimension_count(_DESC, desc, ("input_tensor", "output_tensor"))
    rank = desc.input_tensor.dimension_count
    for field in _ARRAY_FIELDS:
        values = getattr(desc, field)
        if len(values) != rank:
            raise InvalidArgumentError(
                _DESC,
                field,
                f"{rank} long (DimensionCount: one entry per dimension)",
                f"{len(values)} entries {values}",
            )
    require_sizes(_DESC, "output_tensor", desc.output_tensor, desc.sizes, "sizes")
    for i, (dim, offset, size, stride) in enumerate(
        zip(desc.input_tensor.sizes, desc.offsets, desc.sizes, desc.strides, strict=True)
    ):
        if stride < 1:
            raise InvalidArgumentError(_DESC, f"strides[{i}]", "at least 1", stride)
        if offset < 0:
            raise InvalidArgumentError(_DESC, f"offsets[{i}]", "non-negative", offset)
        last_read = offset + (size - 1) * stride
        if last_read >= dim:
            raise InvalidArgumentError(
                _DESC,
                f"sizes[{i}]",
                f"small enough that the last read, offset + (size - 1) * stride, is inside "
                f"the input (below {dim} along dimension {i})",
                f"{size} (last read at {last_read})",
            )
    require_c_int32(desc.strides, signed=False, op=_DESC, field="strides")
    require_same_data_type(
        _DESC, "output_tensor", desc.output_tensor, "input_tensor", desc.input_tensor
    )


def _lower(desc: SliceOperatorDesc, options: LoweringOptions) -> Any:
    del options
    return functools.partial(
        slice1_lowering,
        offsets=desc.offsets,
        sizes=tuple(
            (size - 1) * stride + 1 for size, stride in zip(desc.sizes, desc.strides, strict=True)
        ),
        strides=desc.strides,
        output_sizes=desc.sizes,
    )


register(
    OperatorDefinition(
        desc_type=SliceOperatorDesc,
        support=feature_levels.SLICE,
        input_fields=("input_tensor",),
        output_field="output_tensor",
        validate=_validate,
        lower=_lower,
    )
)
