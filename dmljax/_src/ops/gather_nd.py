"""GATHER_ND: ``DML_GATHER_ND_OPERATOR_DESC`` and :func:`dmljax.gather_nd`.

``output[b, p, rest] = input[b, indices[b, p, :], rest]``: each index tuple
(the indices' last dimension, ``t`` coordinates) picks a whole block of the
input, ``input.shape[batch + t:]`` (ONNX ``GatherND``, ``tf.gather_nd``). The
output sizes are ``indices[:-1] ++ input[batch + t:]`` over the meaningful
dimensions, right-aligned. GATHER_ND has no batch dimensions; GATHER_ND1
(:mod:`dmljax._src.ops.gather_nd1`) adds them, and this module's lowering and
functional face serve both.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, reductions
from dmljax._src.arguments import static_int
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.indices import clamp_indices, wraps_negative_indices
from dmljax._src.ops import nd
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["GATHER_ND", "GatherNdOperatorDesc", "gather_nd", "gather_nd_lowering"]

_FUNCTION = "dmljax.gather_nd"


class GatherNdOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike]):
    """``DML_GATHER_ND_OPERATOR_DESC``: blocks of the input picked by index tuples.

    The rules (checked by :func:`dmljax.compile_operator`): the three tensors
    have the same DimensionCount ``N``; ``input_dimension_count`` and
    ``indices_dimension_count`` in ``[1, N]`` count the meaningful trailing
    dimensions, the others being 1; the indices' last size ``t`` (the tuple
    length) is at most ``input_dimension_count``; the output sizes are the
    meaningful ``indices[:-1] ++ input[t:]`` right-aligned to ``N``; the output
    has the input's data type.

    Indices: signed negatives count from the end of their dimension from FL 3_0;
    each out-of-range coordinate clamps into its dimension. FL 2_1: 4-D 8- to
    32-bit data with UINT32 indices; 3_0: 1 to 8 dimensions, INT32/INT64/UINT32/
    UINT64 indices; 4_1: 64-bit data.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32, u32 = dml.DataType.FLOAT32, dml.DataType.UINT32
    >>> desc = dml.GatherNdOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 2)),
    ...     indices_tensor=dml.TensorDesc(data_type=u32, sizes=(2, 1)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 2)),
    ...     input_dimension_count=2, indices_dimension_count=2)
    >>> x = jnp.array([[0.0, 1.0], [2.0, 3.0]])
    >>> dml.compile_operator(desc)(x, jnp.array([[1], [0]], jnp.uint32))
    Array([[2., 3.],
           [0., 1.]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    indices_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    input_dimension_count: int = contract.attribute(static_int)
    indices_dimension_count: int = contract.attribute(static_int)


_GATHER_ND_SUPPORT = fl.indexed_bands()


def desc_layout(desc: Any) -> nd.DescLayout:
    """The checked layout of a GATHER_ND or GATHER_ND1 desc."""
    return nd.check_desc(desc, block_field="output_tensor")


def gather_nd_rules(desc: Any, level: FL) -> None:
    """The rules of GATHER_ND and GATHER_ND1 beyond the support table."""
    del level
    desc_layout(desc)


def gather_nd_output_sizes(desc: Any) -> tuple[tuple[int, ...], str]:
    """The output sizes of GATHER_ND and GATHER_ND1, and why."""
    sizes = nd.block_sizes(desc_layout(desc), desc.input_tensor.dimension_count)
    return sizes, "indices[:-1] ++ input[batch + t:] of the meaningful sizes, right-aligned"


def gather_nd_lowering(
    x: jax.Array, indices: jax.Array, *, batch: int, wrap_negative: bool
) -> jax.Array:
    """The one implementation of GATHER_ND(1): ``indices.shape[:-1] + x.shape[batch + t:]``."""
    t = indices.shape[-1]
    if t == 0:
        # Empty index tuples read all of x[b] for each tuple: a broadcast, whose
        # transpose sums. XLA:CPU's scatter-add over empty index vectors (the transpose
        # of the gather) keeps one update of several to one place (jax 0.10.2).
        out = (*indices.shape[:-1], *x.shape[batch:])
        kept = (*range(batch), *range(indices.ndim - 1, len(out)))
        return lax.broadcast_in_dim(x, out, kept)
    starts = clamp_indices(indices, tuple(x.shape[batch : batch + t]), wrap_negative=wrap_negative)
    # The indices are already in range; CLIP keeps every read inside the operand
    # whatever happens, and the gradient is a scatter-add over the same tuples.
    return reductions.gather(
        x,
        starts,
        nd.gather_dimension_numbers(x.ndim, indices.ndim, batch, t),
        (1,) * (batch + t) + tuple(x.shape[batch + t :]),
        mode=lax.GatherScatterMode.CLIP,
    )


def _desc_lowering(
    x: jax.Array,
    indices: jax.Array,
    *,
    layout: nd.DescLayout,
    output_sizes: tuple[int, ...],
    wrap_negative: bool,
) -> jax.Array:
    gathered = gather_nd_lowering(
        x.reshape(layout.input),
        indices.reshape(layout.indices),
        batch=layout.batch,
        wrap_negative=wrap_negative,
    )
    return gathered.reshape(output_sizes)


def lower_gather_nd(desc: Any, options: contract.LoweringOptions) -> Any:
    """The lowering of a GATHER_ND or GATHER_ND1 desc."""
    return functools.partial(
        _desc_lowering,
        layout=desc_layout(desc),
        output_sizes=desc.output_tensor.sizes,
        wrap_negative=wraps_negative_indices(options.feature_level),
    )


def gather_nd(x: ArrayLike, indices: ArrayLike, *, batch_dims: int = 0) -> jax.Array:
    """Blocks of ``x`` picked by the index tuples in ``indices`` (DirectML GATHER_ND1).

    The functional face of :class:`GatherNdOperatorDesc` and
    :class:`GatherNd1OperatorDesc`, like ONNX ``GatherND`` and ``tf.gather_nd``:
    ``indices[..., :]`` holds tuples of ``t = indices.shape[-1]`` coordinates into
    the dimensions of ``x`` after the first ``batch_dims``, and each tuple picks
    the block ``x[b, i0, ..., it-1]`` of shape ``x.shape[batch_dims + t:]``.
    ``t = 1`` is a row lookup (``x[indices[..., 0]]``); ``t = x.ndim`` picks
    points; ``t = 0`` picks the whole (batch of the) tensor. DirectML's index
    rules apply: negative coordinates of a signed type count from the end of
    their dimension, out-of-range ones clamp into it.

    Args:
        x: the array to gather from (any dtype).
        indices: integer index tuples of any width, of at least
            ``batch_dims + 1`` dimensions; the last holds the tuples.
        batch_dims: a static count of leading dimensions that ``x`` and
            ``indices`` share: tuple ``indices[b, ...]`` reads from ``x[b]``.

    Returns:
        An array of shape ``indices.shape[:-1] + x.shape[batch_dims + t:]``.

    Raises:
        InvalidArgumentError: float or bool indices, tuples longer than
            ``x.ndim - batch_dims``, batch sizes that differ, a negative or
            traced ``batch_dims``, or index tuples into an empty dimension.

    Differentiable with respect to ``x`` (the gradient adds up the cotangents of
    repeated tuples), and usable under :func:`jax.jit` and :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.arange(12).reshape(3, 4)
    >>> dml.gather_nd(x, jnp.array([[2], [-1], [0]]))  # rows
    Array([[ 8,  9, 10, 11],
           [ 8,  9, 10, 11],
           [ 0,  1,  2,  3]], dtype=int32)
    >>> dml.gather_nd(x, jnp.array([[0, 1], [2, 9]]))  # points; 9 clamps to 3
    Array([ 1, 11], dtype=int32)
    >>> dml.gather_nd(x, jnp.array([[[1]], [[3]], [[0]]]), batch_dims=1)  # x[b, i[b]]
    Array([[1],
           [7],
           [8]], dtype=int32)
    """
    return GATHER_ND_FACE.call(x, indices, batch_dims)


def _checked_gather_nd(x: jax.Array, indices: jax.Array, batch_dims: int) -> jax.Array:
    """:func:`gather_nd`'s checks, while tracing, then the lowering."""
    nd.check_index_tuples(x.shape, indices.shape, batch_dims, op=_FUNCTION)
    t = indices.shape[-1]
    addressed = x.shape[batch_dims : batch_dims + t]
    if 0 in addressed and np.prod(indices.shape[:-1], dtype=np.int64) > 0:
        raise InvalidArgumentError(
            _FUNCTION,
            f"x.shape[{batch_dims}:{batch_dims + t}]",
            "no zero when there are index tuples (there is nothing to gather)",
            f"{tuple(addressed)} (x has shape {tuple(x.shape)})",
        )
    return gather_nd_lowering(x, indices, batch=batch_dims, wrap_negative=True)


GATHER_ND_FACE = faces.FunctionalFace(
    gather_nd,
    _checked_gather_nd,
    faces.Data("x"),
    faces.Indices("indices"),
    faces.Int("batch_dims"),
    keys=True,
)


GATHER_ND = contract.Operator(
    "DML_OPERATOR_GATHER_ND",
    GatherNdOperatorDesc,
    support=_GATHER_ND_SUPPORT,
    same_dimension_count=True,
    same_data_type=("input_tensor", "output_tensor"),
    rules=gather_nd_rules,
    output_sizes=gather_nd_output_sizes,
    lower=lower_gather_nd,
    face=GATHER_ND_FACE,
)
