"""GATHER: ``DML_GATHER_OPERATOR_DESC`` and :func:`dmljax.gather`.

``output[p, j, q] = input[p, indices[j], q]``: whole slices of the input are
picked along ``axis`` (``numpy.take`` with one axis). With ``N`` dimensions
and ``k = IndexDimensions``, the output sizes are
``input[:axis] ++ indices[N-k:] ++ input[axis+1:]`` right-aligned to ``N``
(leading 1s added, or leading 1s dropped).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import feature_levels
from dmljax._src.arguments import as_array, normalize_axis, one_spelling, static_int
from dmljax._src.compile import LoweringOptions, OperatorDefinition, register
from dmljax._src.dispatch import Dispatch, is_concrete_array
from dmljax._src.dtypes import require_x64_for_axis
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.indices import as_index_array, clamp_indices, wraps_negative_indices
from dmljax._src.rules import (
    require_same_data_type,
    require_same_dimension_count,
    require_sizes,
    require_tensor_desc,
    right_align,
)
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["GatherOperatorDesc", "gather", "gather_output_sizes"]

_DESC = "GatherOperatorDesc"
_FUNCTION = "dmljax.gather"
_TENSOR_FIELDS = ("input_tensor", "indices_tensor", "output_tensor")


@dataclasses.dataclass(frozen=True, kw_only=True)
class GatherOperatorDesc:
    """``DML_GATHER_OPERATOR_DESC``: slices of the input picked along ``axis``.

    The rules (checked by :func:`dmljax.compile_operator`): the three tensors
    have the same DimensionCount ``N``; ``axis`` in ``[0, N)``;
    ``index_dimensions`` (``k``, the trailing index dimensions that hold
    indices) in ``[0, N]``, the other index dimensions being 1; the output sizes
    are ``input[:axis] ++ indices[N-k:] ++ input[axis+1:]`` right-aligned to
    ``N``, dropping only leading 1s; the output has the input's data type.

    Indices: signed negatives count from the end of ``axis`` from FL 3_0 (when
    signed index types appear); out-of-range indices clamp to ``[0, dim - 1]``.
    FL 1_0: 4-D FLOAT32/FLOAT16 with UINT32 indices; 2_1: integer data;
    3_0: 1 to 8 dimensions, INT32/INT64/UINT32/UINT64 indices; 4_1: 64-bit data.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32, u32 = dml.DataType.FLOAT32, dml.DataType.UINT32
    >>> desc = dml.GatherOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(3, 2)),
    ...     indices_tensor=dml.TensorDesc(data_type=u32, sizes=(1, 4)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(4, 2)),
    ...     axis=0, index_dimensions=1)
    >>> x = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> dml.compile_operator(desc)(x, jnp.array([[0, 1, 1, 2]], jnp.uint32))
    Array([[1., 2.],
           [3., 4.],
           [3., 4.],
           [5., 6.]], dtype=float32)
    """

    input_tensor: TensorDesc
    indices_tensor: TensorDesc
    output_tensor: TensorDesc
    axis: int
    index_dimensions: int

    def __post_init__(self) -> None:
        for field in _TENSOR_FIELDS:
            require_tensor_desc(getattr(self, field), op=_DESC, field=field)
        for field in ("axis", "index_dimensions"):
            object.__setattr__(self, field, static_int(getattr(self, field), op=_DESC, field=field))


def gather_output_sizes(
    input_sizes: Sequence[int], index_sizes: Sequence[int], axis: int
) -> tuple[int, ...]:
    """``input[:axis] ++ index_sizes ++ input[axis+1:]``: the sizes of a gather, unaligned."""
    return (*input_sizes[:axis], *index_sizes, *input_sizes[axis + 1 :])


def _validate(desc: GatherOperatorDesc, level: FeatureLevel) -> None:
    del level  # the support table holds everything that changes between levels
    require_same_dimension_count(_DESC, desc, _TENSOR_FIELDS)
    rank = desc.input_tensor.dimension_count
    if not 0 <= desc.axis < rank:
        raise InvalidArgumentError(
            _DESC, "axis", f"in [0, {rank}) (input_tensor has {rank} dimensions)", desc.axis
        )
    require_x64_for_axis(
        desc.input_tensor.sizes[desc.axis], op=_DESC, field=f"input_tensor.sizes[{desc.axis}]"
    )
    k = desc.index_dimensions
    if not 0 <= k <= rank:
        raise InvalidArgumentError(
            _DESC, "index_dimensions", f"in [0, {rank}] (the DimensionCount)", k
        )
    index_sizes = desc.indices_tensor.sizes
    if any(size != 1 for size in index_sizes[: rank - k]):
        raise InvalidArgumentError(
            _DESC,
            "indices_tensor.sizes",
            f"1 in the first {rank - k} dimensions (only the last index_dimensions={k} "
            "hold indices)",
            index_sizes,
        )
    full = gather_output_sizes(desc.input_tensor.sizes, index_sizes[rank - k :], desc.axis)
    expected = right_align(full, rank)
    if expected is None:
        raise InvalidArgumentError(
            _DESC,
            "index_dimensions",
            f"small enough that input[:axis] ++ indices[N-k:] ++ input[axis+1:] = {full} "
            f"fits {rank} dimensions by dropping leading 1s only",
            k,
        )
    require_same_data_type(
        _DESC, "output_tensor", desc.output_tensor, "input_tensor", desc.input_tensor
    )
    require_sizes(
        _DESC,
        "output_tensor",
        desc.output_tensor,
        expected,
        "input[:axis] ++ indices[N-k:] ++ input[axis+1:], right-aligned",
    )


def gather_lowering(
    x: jax.Array, indices: jax.Array, *, axis: int, wrap_negative: bool
) -> jax.Array:
    """The one implementation of GATHER: ``x[:axis] ++ indices.shape ++ x[axis+1:]``."""
    starts = clamp_indices(indices, x.shape[axis], wrap_negative=wrap_negative)
    batch_rank = starts.ndim
    dimension_numbers = lax.GatherDimensionNumbers(
        offset_dims=(*range(axis), *range(axis + batch_rank, batch_rank + x.ndim - 1)),
        collapsed_slice_dims=(axis,),
        start_index_map=(axis,),
    )
    slice_sizes = (*x.shape[:axis], 1, *x.shape[axis + 1 :])
    # The indices are already in range; CLIP is a bare gather that keeps every
    # read inside the operand whatever happens, and its transpose (the
    # gradient) is a scatter-add that accumulates duplicates.
    return lax.gather(
        x,
        starts[..., None],
        dimension_numbers,
        slice_sizes,
        mode=lax.GatherScatterMode.CLIP,
    )


def gather(x: ArrayLike, indices: ArrayLike, *, axis: int) -> jax.Array:
    """Takes slices of ``x`` along ``axis`` at ``indices`` (DirectML GATHER).

    The functional face of :class:`GatherOperatorDesc`, like
    :func:`jax.numpy.take` with an axis but with DirectML's index rules:
    negative indices of a signed type count from the end, out-of-range indices
    clamp to the nearest valid one, and unsigned indices are never negative.

    Args:
        x: the array to gather from (any dtype, at least 1-D).
        indices: integer indices of any width and any shape (0-D drops ``axis``).
        axis: a static axis of ``x``; negative values count from the end.

    Returns:
        An array of shape ``x.shape[:axis] + indices.shape + x.shape[axis+1:]``.

    Raises:
        InvalidArgumentError: float or bool indices, an axis out of range or
            traced, or non-empty indices into an empty axis.

    Differentiable with respect to ``x`` (the gradient adds up the cotangents of
    repeated indices), and usable under :func:`jax.jit` and :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.array([[1, 2, 3], [4, 5, 6]])
    >>> dml.gather(x, jnp.array([2, -1, 7, 0]), axis=1)
    Array([[3, 3, 3, 1],
           [6, 6, 6, 4]], dtype=int32)
    """
    if type(axis) is int and is_concrete_array(x) and is_concrete_array(indices):
        # Checked while tracing: a repeated signature runs no Python checks.
        return _gather.jitted(x, indices, one_spelling(axis, x.ndim))
    x = as_array(x, op=_FUNCTION, field="x")
    indices = as_index_array(indices, op=_FUNCTION, field="indices")
    axis = static_int(axis, op=_FUNCTION, field="axis")
    return _gather(x, indices, one_spelling(axis, np.ndim(x)))


def _checked_gather(x: Any, indices: Any, axis: Any) -> jax.Array:
    """:func:`gather` after its static values are Python values: the checks, while
    tracing, then the lowering."""
    x = as_array(x, op=_FUNCTION, field="x")
    indices = as_index_array(indices, op=_FUNCTION, field="indices")
    axis = normalize_axis(axis, x.ndim, op=_FUNCTION)
    require_x64_for_axis(x.shape[axis], op=_FUNCTION, field="x.shape[axis]")
    if x.shape[axis] == 0 and indices.size:
        raise InvalidArgumentError(
            _FUNCTION,
            "x.shape[axis]",
            "non-zero when indices is not empty (there is nothing to gather)",
            f"0 (x has shape {tuple(x.shape)}, axis={axis})",
        )
    return gather_lowering(x, indices, axis=axis, wrap_negative=True)


_gather = Dispatch(_checked_gather, static_count=1)


def _desc_lowering(
    x: jax.Array,
    indices: jax.Array,
    *,
    axis: int,
    index_sizes: tuple[int, ...],
    output_sizes: tuple[int, ...],
    wrap_negative: bool,
) -> jax.Array:
    gathered = gather_lowering(
        x, indices.reshape(index_sizes), axis=axis, wrap_negative=wrap_negative
    )
    return gathered.reshape(output_sizes)


def _lower(desc: GatherOperatorDesc, options: LoweringOptions) -> Any:
    rank = desc.input_tensor.dimension_count
    return functools.partial(
        _desc_lowering,
        axis=desc.axis,
        index_sizes=desc.indices_tensor.sizes[rank - desc.index_dimensions :],
        output_sizes=desc.output_tensor.sizes,
        wrap_negative=wraps_negative_indices(options.feature_level),
    )


register(
    OperatorDefinition(
        desc_type=GatherOperatorDesc,
        support=feature_levels.GATHER,
        input_fields=_TENSOR_FIELDS[:2],
        output_field=_TENSOR_FIELDS[2],
        validate=_validate,
        lower=_lower,
    )
)
