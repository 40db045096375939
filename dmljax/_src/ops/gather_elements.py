"""GATHER_ELEMENTS: ``DML_GATHER_ELEMENTS_OPERATOR_DESC`` and :func:`dmljax.gather_elements`.

``output[c] = input[c with c[axis] := indices[c]]`` for every coordinate ``c``
of the indices (``torch.gather``, ``numpy.take_along_axis``), with DirectML's
index rules: signed negatives count from the end (from FL 3_0), out-of-range
indices clamp to the nearest valid one.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from dmljax._src import feature_levels
from dmljax._src.arguments import as_array, normalize_axis, one_spelling, static_int
from dmljax._src.compile import LoweringOptions, OperatorDefinition, register
from dmljax._src.dispatch import Dispatch, is_concrete_array
from dmljax._src.dtypes import require_x64_for_axis
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.indices import as_index_array, clamp_indices, wraps_negative_indices
from dmljax._src.ops import elements
from dmljax._src.rules import (
    require_same_data_type,
    require_same_dimension_count,
    require_sizes,
    require_tensor_desc,
)
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["GatherElementsOperatorDesc", "gather_elements"]

_DESC = "GatherElementsOperatorDesc"
_FUNCTION = "dmljax.gather_elements"
_TENSOR_FIELDS = ("input_tensor", "indices_tensor", "output_tensor")


@dataclasses.dataclass(frozen=True, kw_only=True)
class GatherElementsOperatorDesc:
    """``DML_GATHER_ELEMENTS_OPERATOR_DESC``: one input element per index, along ``axis``.

    The rules (checked by :func:`dmljax.compile_operator`): the three tensors
    have the same DimensionCount; ``axis`` in ``[0, DimensionCount)``; the
    indices' sizes equal the input's on every dimension but ``axis``; the
    output has the indices' sizes and the input's data type. Introduced at
    FL 2_1 (4-D, UINT32 indices); 3_0: 1 to 8 dimensions, INT32/INT64/UINT32/
    UINT64 indices; 4_1: 64-bit data.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32, u32 = dml.DataType.FLOAT32, dml.DataType.UINT32
    >>> desc = dml.GatherElementsOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(3, 3)),
    ...     indices_tensor=dml.TensorDesc(data_type=u32, sizes=(2, 3)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 3)),
    ...     axis=0)
    >>> x = jnp.arange(1.0, 10.0).reshape(3, 3)
    >>> dml.compile_operator(desc)(x, jnp.array([[1, 2, 0], [2, 0, 0]], jnp.uint32))
    Array([[4., 8., 3.],
           [7., 2., 3.]], dtype=float32)
    """

    input_tensor: TensorDesc
    indices_tensor: TensorDesc
    output_tensor: TensorDesc
    axis: int

    def __post_init__(self) -> None:
        for field in _TENSOR_FIELDS:
            require_tensor_desc(getattr(self, field), op=_DESC, field=field)
        object.__setattr__(self, "axis", static_int(self.axis, op=_DESC, field="axis"))


def _validate(desc: GatherElementsOperatorDesc, level: FeatureLevel) -> None:
    del level
    require_same_dimension_count(_DESC, desc, _TENSOR_FIELDS)
    rank = desc.input_tensor.dimension_count
    if not 0 <= desc.axis < rank:
        raise InvalidArgumentError(
            _DESC, "axis", f"in [0, {rank}) (input_tensor has {rank} dimensions)", desc.axis
        )
    require_x64_for_axis(
        desc.input_tensor.sizes[desc.axis], op=_DESC, field=f"input_tensor.sizes[{desc.axis}]"
    )
    elements.check_index_shape(
        desc.input_tensor.sizes,
        desc.indices_tensor.sizes,
        desc.axis,
        op=_DESC,
        data_field="input_tensor.sizes",
        index_field="indices_tensor.sizes",
        exact=True,
    )
    require_same_data_type(
        _DESC, "output_tensor", desc.output_tensor, "input_tensor", desc.input_tensor
    )
    require_sizes(
        _DESC,
        "output_tensor",
        desc.output_tensor,
        desc.indices_tensor.sizes,
        "indices_tensor.sizes",
    )


def gather_elements_lowering(
    x: jax.Array, indices: jax.Array, *, axis: int, wrap_negative: bool
) -> jax.Array:
    """The one implementation of GATHER_ELEMENTS; ``indices`` may be smaller off ``axis``."""
    if indices.size == 0:
        return jnp.zeros(indices.shape, x.dtype)
    minor = elements.uses_minor_axis_form(x.ndim, axis)
    if minor:
        x, indices = elements.to_minor_axis(x, axis), elements.to_minor_axis(indices, axis)
    last = x.ndim - 1 if minor else axis
    axis_indices = clamp_indices(indices, x.shape[last], wrap_negative=wrap_negative)
    out = elements.gather_along_axis(x, axis_indices, last)
    return elements.from_minor_axis(out, axis) if minor else out


def gather_elements(x: ArrayLike, indices: ArrayLike, *, axis: int) -> jax.Array:
    """Picks one element of ``x`` per index along ``axis`` (DirectML GATHER_ELEMENTS).

    The functional face of :class:`GatherElementsOperatorDesc`, like
    :func:`jax.numpy.take_along_axis` and ``torch.gather``: ``out[c] = x[c with
    c[axis] := indices[c]]``. Negative indices of a signed type count from the
    end, out-of-range indices clamp, unsigned indices are never negative. Like
    ONNX and PyTorch, ``indices`` may be smaller than ``x`` off ``axis``.

    Args:
        x: the array to read (any dtype).
        indices: integer indices of any width, with the rank of ``x`` and sizes
            no larger than ``x``'s on every dimension but ``axis``.
        axis: a static axis; negative values count from the end.

    Returns:
        An array of the shape of ``indices`` and the dtype of ``x``.

    Raises:
        InvalidArgumentError: float indices, a rank mismatch, an index tensor
            larger than ``x`` off ``axis``, or non-empty indices into an empty axis.

    Differentiable with respect to ``x`` (repeated indices add up their
    cotangents), and usable under :func:`jax.jit` and :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.array([[1, 2, 3], [4, 5, 6]])
    >>> dml.gather_elements(x, jnp.array([[2, 0], [-1, 9]]), axis=1)
    Array([[3, 1],
           [6, 6]], dtype=int32)
    """
    if type(axis) is int and is_concrete_array(x) and is_concrete_array(indices):
        # Checked while tracing: a repeated signature runs no Python checks.
        return _gather_elements.jitted(x, indices, one_spelling(axis, x.ndim))
    x = as_array(x, op=_FUNCTION, field="x")
    indices = as_index_array(indices, op=_FUNCTION, field="indices")
    axis = static_int(axis, op=_FUNCTION, field="axis")
    return _gather_elements(x, indices, one_spelling(axis, np.ndim(x)))


def _checked_gather_elements(x: Any, indices: Any, axis: Any) -> jax.Array:
    """:func:`gather_elements` after its static values are Python values: the checks, while
    tracing, then the lowering."""
    x = as_array(x, op=_FUNCTION, field="x")
    indices = as_index_array(indices, op=_FUNCTION, field="indices")
    axis = normalize_axis(axis, x.ndim, op=_FUNCTION)
    require_x64_for_axis(x.shape[axis], op=_FUNCTION, field="x.shape[axis]")
    elements.check_index_shape(
        x.shape, indices.shape, axis, op=_FUNCTION, data_field="x.shape",
        index_field="indices.shape", exact=False,
    )  # fmt: skip
    if x.shape[axis] == 0 and indices.size:
        raise InvalidArgumentError(
            _FUNCTION,
            "x.shape[axis]",
            "non-zero when indices is not empty (there is nothing to gather)",
            f"0 (x has shape {tuple(x.shape)}, axis={axis})",
        )
    return gather_elements_lowering(x, indices, axis=axis, wrap_negative=True)


_gather_elements = Dispatch(_checked_gather_elements, static_count=1)


def _lower(desc: GatherElementsOperatorDesc, options: LoweringOptions) -> Any:
    return functools.partial(
        gather_elements_lowering,
        axis=desc.axis,
        wrap_negative=wraps_negative_indices(options.feature_level),
    )


register(
    OperatorDefinition(
        desc_type=GatherElementsOperatorDesc,
        support=feature_levels.GATHER_ELEMENTS,
        input_fields=("input_tensor", "indices_tensor"),
        output_field="output_tensor",
        validate=_validate,
        lower=_lower,
    )
)
