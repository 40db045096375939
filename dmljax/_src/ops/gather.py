"""GATHER: ``DML_GATHER_OPERATOR_DESC`` and :func:`dmljax.gather`.

``output[p, j, q] = input[p, indices[j], q]``: whole slices of the input are
picked along ``axis`` (``numpy.take`` with one axis). With ``N`` dimensions
and ``k = IndexDimensions``, the output sizes are
``input[:axis] ++ indices[N-k:] ++ input[axis+1:]`` right-aligned to ``N``
(leading 1s added, or leading 1s dropped).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import jax
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import (
    contract,
    face as faces,
    feature_levels as fl,
    reductions,
    rules,
)
from dmljax._src.arguments import static_int
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.indices import clamp_indices, wraps_negative_indices
from dmljax._src.node_call import NodeCall
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["GATHER", "GatherOperatorDesc", "gather", "gather_output_sizes"]

_FUNCTION = "dmljax.gather"


class GatherOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike]):
    """``DML_GATHER_OPERATOR_DESC``: slices of the input picked along ``axis``.

    The rules (checked by :func:`dmljax.compile_operator`): the three tensors
    have the same DimensionCount ``N``; ``axis`` in ``[0, N)``;
    ``index_dimensions`` (``k``, the trailing index dimensions that hold
    indices) in ``[0, N]``, the other index dimensions being 1; the output sizes
    are ``input[:axis] ++ indices[N-k:] ++ input[axis+1:]`` right-aligned to
    ``N``, dropping only leading 1s; the output has the input's data type.

    faces.Indices: signed negatives count from the end of ``axis`` from FL 3_0 (when
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

    input_tensor: TensorDesc = contract.tensor_field("input")
    indices_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    axis: int = contract.attribute(static_int)
    index_dimensions: int = contract.attribute(static_int)


_GATHER_SUPPORT = fl.indexed_bands(FL.FL_1_0)


def gather_output_sizes(
    input_sizes: Sequence[int], index_sizes: Sequence[int], axis: int
) -> tuple[int, ...]:
    """``input[:axis] ++ index_sizes ++ input[axis+1:]``: the sizes of a gather, unaligned."""
    return (*input_sizes[:axis], *index_sizes, *input_sizes[axis + 1 :])


def _gather_rules(desc: GatherOperatorDesc, level: FL) -> None:
    op = type(desc).__name__
    rules.require_axis(desc.axis, desc.input_tensor, op=op, of="input_tensor")
    rank = desc.input_tensor.dimension_count
    k = desc.index_dimensions
    if not 0 <= k <= rank:
        raise InvalidArgumentError(
            op, "index_dimensions", f"in [0, {rank}] (the DimensionCount)", k
        )
    index_sizes = desc.indices_tensor.sizes
    if any(size != 1 for size in index_sizes[: rank - k]):
        raise InvalidArgumentError(
            op,
            "indices_tensor.sizes",
            f"1 in the first {rank - k} dimensions (only the last index_dimensions={k} "
            "hold indices)",
            index_sizes,
        )
    full = gather_output_sizes(desc.input_tensor.sizes, index_sizes[rank - k :], desc.axis)
    # The page crops only leading 1s of the input's sizes (before the axis): the input's
    # rank without them, plus IndexDimensions - 1, must fit the output's DimensionCount.
    excess = len(full) - rank
    cropped = desc.input_tensor.sizes[: max(excess, 0)]
    if excess > desc.axis or any(size != 1 for size in cropped):
        raise InvalidArgumentError(
            op,
            "index_dimensions",
            f"small enough that input[:axis] ++ indices[N-k:] ++ input[axis+1:] = {full} "
            f"fits {rank} dimensions by dropping leading 1s of input_tensor.sizes before "
            "the axis only (the input's rank without its leading 1s, plus index_dimensions "
            "- 1, at most the DimensionCount)",
            k,
        )


def _gather_output_sizes(desc: GatherOperatorDesc) -> tuple[tuple[int, ...], str]:
    rank = desc.input_tensor.dimension_count
    index_sizes = desc.indices_tensor.sizes[rank - desc.index_dimensions :]
    full = gather_output_sizes(desc.input_tensor.sizes, index_sizes, desc.axis)
    aligned = rules.right_align(full, rank)
    assert aligned is not None  # _gather_rules refused the others
    return aligned, "input[:axis] ++ indices[N-k:] ++ input[axis+1:], right-aligned"


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
    return reductions.gather(
        x,
        starts[..., None],
        dimension_numbers,
        slice_sizes,
        mode=lax.GatherScatterMode.CLIP,
    )


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


def _lower_gather(desc: GatherOperatorDesc, options: contract.LoweringOptions) -> Any:
    rank = desc.input_tensor.dimension_count
    return functools.partial(
        _desc_lowering,
        axis=desc.axis,
        index_sizes=desc.indices_tensor.sizes[rank - desc.index_dimensions :],
        output_sizes=desc.output_tensor.sizes,
        wrap_negative=wraps_negative_indices(options.feature_level),
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
    return _GATHER_FACE.call(x, indices, axis)


def _checked_gather(x: jax.Array, indices: jax.Array, axis: int) -> jax.Array:
    """:func:`gather`'s checks, while tracing, then the lowering."""
    axis = rules.require_array_axis(axis, x, op=_FUNCTION)
    rules.require_gatherable_axis(x, indices, axis, op=_FUNCTION)
    return gather_lowering(x, indices, axis=axis, wrap_negative=True)


def _gather_node(call: NodeCall) -> GatherOperatorDesc:
    indices = call.arrays["indices"]
    return GatherOperatorDesc(
        input_tensor=call.aligned(call.arrays["x"]),
        indices_tensor=call.aligned(indices),
        output_tensor=call.aligned(call.outputs[0]),
        axis=call.axis("axis", of="x"),
        index_dimensions=indices.dimension_count,
    )


_GATHER_FACE = faces.FunctionalFace(
    gather,
    _checked_gather,
    faces.Data("x"),
    faces.Indices("indices"),
    faces.Axis(),
    keys=True,
    graph_node=_gather_node,
)


GATHER = contract.Operator(
    "DML_OPERATOR_GATHER",
    GatherOperatorDesc,
    support=_GATHER_SUPPORT,
    same_dimension_count=True,
    same_data_type=("input_tensor", "output_tensor"),
    rules=_gather_rules,
    output_sizes=_gather_output_sizes,
    lower=_lower_gather,
    face=_GATHER_FACE,
)
