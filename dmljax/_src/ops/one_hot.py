"""ONE_HOT: ``DML_ONE_HOT_OPERATOR_DESC`` and :func:`dmljax.one_hot`.

Every sequence along ``Axis`` of the output is OffValue but at the position its
index names, which is OnValue. The index of a sequence is the element of the
indices tensor (size 1 at ``Axis``) at the sequence's other coordinates. From
FL 3_0 a signed negative index counts from the sequence's end; an index outside
the sequence (after that) leaves the whole sequence OffValue. OffValue is the
values tensor's first element and OnValue its second (the page's "1st element
along the fastest-changing dimension of size > 1" is the second element in
row-major order, whatever the values tensor's sizes).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike, DTypeLike

from dmljax._src import bitwise, contract, face as faces, feature_levels as fl
from dmljax._src.arguments import static_int
from dmljax._src.dtypes import require_x64_for_axis
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.indices import wraps_negative_indices
from dmljax._src.node_call import NodeCall
from dmljax._src.rules import require_fits_xla, require_one_per_sequence
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["ONE_HOT", "OneHotOperatorDesc", "one_hot", "one_hot_lowering"]

_FUNCTION = "dmljax.one_hot"


class OneHotOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike]):
    """``DML_ONE_HOT_OPERATOR_DESC``: one-hot sequences along ``axis``, of (off, on) values.

    The rules (checked by :func:`dmljax.compile_operator`): the three tensors
    share DimensionCount; ``axis`` is below it; ``indices_tensor`` has the
    output's sizes with 1 at ``axis``; ``values_tensor`` holds at least two
    elements (off, then on) and has the output's data type. Introduced at FL 2_0
    (4-D FLOAT32/FLOAT16, UINT32 indices); 8- to 32-bit integer values from 2_1;
    1 to 8 dimensions and signed and 64-bit indices (negatives count from the
    end) from 3_0.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> desc = dml.OneHotOperatorDesc(
    ...     indices_tensor=dml.TensorDesc(data_type=dml.DataType.INT32, sizes=(3, 1)),
    ...     values_tensor=dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(1, 2)),
    ...     output_tensor=dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(3, 4)),
    ...     axis=1)
    >>> dml.compile_operator(desc)(jnp.array([[0], [-1], [4]]), jnp.array([[0.0, 5.0]]))
    Array([[5., 0., 0., 0.],
           [0., 0., 0., 5.],
           [0., 0., 0., 0.]], dtype=float32)
    """

    indices_tensor: TensorDesc = contract.tensor_field("input")
    values_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    axis: int = contract.attribute(static_int)


_ONE_HOT_SUPPORT = (
    fl.band(FL.FL_2_0, (4, 4), fl.FLOATS_16_32, indices_tensor=fl.UINT32_INDICES),
    fl.band(FL.FL_2_1, (4, 4), fl.TYPES_8_32, indices_tensor=fl.UINT32_INDICES),
    fl.band(FL.FL_3_0, (1, 8), fl.TYPES_8_32, indices_tensor=fl.INDICES_32_64),
)


def _one_hot_rules(desc: OneHotOperatorDesc, level: FL) -> None:
    del level
    op = type(desc).__name__
    require_one_per_sequence(desc, "indices_tensor", "output_tensor", op=op)
    if math.prod(desc.values_tensor.sizes) < 2:
        raise InvalidArgumentError(
            op,
            "values_tensor.sizes",
            "at least 2 elements (OffValue, then OnValue)",
            desc.values_tensor.sizes,
        )


def one_hot_lowering(
    indices: jax.Array, values: jax.Array, *, axis: int, depth: int, wrap_negative: bool
) -> jax.Array:
    """The one implementation of ONE_HOT, shared by both faces.

    ``indices`` has size 1 at ``axis`` (DirectML's form); the result has ``depth``
    there. Each index is compared, in a type that holds it and ``depth`` (so no
    conversion wraps an out-of-range index into the sequence), with each position
    ``j`` along the axis, and a signed one with ``j - depth`` too: an index outside
    ``[-depth, depth)`` equals none of them and leaves its sequence OffValue.
    Compares and a select, which XLA fuses into one pass over the output, as
    :func:`jax.nn.one_hot`.
    """
    position_type = _position_type(np.dtype(indices.dtype), depth)
    positions = indices.astype(position_type)
    shape = (*indices.shape[:axis], depth, *indices.shape[axis + 1 :])
    j = lax.broadcasted_iota(position_type, shape, axis)
    hot = j == positions
    if wrap_negative and jnp.issubdtype(position_type, jnp.signedinteger):
        # -1 names position depth - 1: compare with j - depth rather than wrapping the
        # indices first, which XLA runs as a kernel of its own on the GPU.
        hot = hot | (j - position_type.type(depth) == positions)

    def select(values: jax.Array, _: Any, hot: jax.Array) -> jax.Array:
        flat = values.reshape(-1)
        return jnp.where(hot, flat[1], flat[0])

    return bitwise.exactly(select, values, using=(hot,))


def _position_type(index_type: np.dtype[Any], depth: int) -> np.dtype[Any]:
    """The narrowest of int32/uint32/int64/uint64 that holds every index and ``depth``:
    unsigned indices stay unsigned (2**32 - 1 must not become -1), signed ones signed."""
    signed = jnp.issubdtype(index_type, jnp.signedinteger)
    wide = index_type.itemsize > 4 or depth > np.iinfo(np.int32 if signed else np.uint32).max
    if signed:
        return np.dtype(np.int64 if wide else np.int32)
    return np.dtype(np.uint64 if wide else np.uint32)


def _lower_one_hot(desc: OneHotOperatorDesc, options: contract.LoweringOptions) -> Any:
    return functools.partial(
        one_hot_lowering,
        axis=desc.axis,
        depth=desc.output_tensor.sizes[desc.axis],
        wrap_negative=wraps_negative_indices(options.feature_level),
    )


def one_hot(
    indices: ArrayLike,
    values: ArrayLike | None = None,
    *,
    depth: int,
    axis: int = -1,
    dtype: DTypeLike | None = None,
) -> jax.Array:
    """One-hot sequences of ``depth`` elements for ``indices``, filled with ``values``'s
    (off, on) pair (DirectML ONE_HOT).

    The functional face of :class:`OneHotOperatorDesc`, shaped as
    :func:`jax.nn.one_hot`: the result has the shape of ``indices`` with a new
    axis of ``depth`` elements at ``axis`` (an axis of the result). Each sequence
    along it is ``values``'s first element (off) but at its index, where it is
    the second (on). DirectML's index rules, at the latest feature level: a
    negative index counts from the end (``-1`` is the last element), and one
    outside ``[-depth, depth)`` gives an all-off sequence.

    Args:
        indices: integers of any width and any shape (0-D and empty too).
        values: at least two elements, off then on (e.g. ``jnp.array([0.0, 1.0])``);
            the result has its dtype. Only the first two are read. By default (0, 1),
            as :func:`jax.nn.one_hot`.
        depth: the length of each sequence (0 gives an empty result).
        axis: where the new axis goes in the result, in ``[-indices.ndim - 1,
            indices.ndim]``.
        dtype: the result's dtype (``values`` converted to it); by default
            ``values``'s, or for the default values :func:`jax.nn.one_hot`'s float.

    Ported from :func:`jax.nn.one_hot`, ``dml.one_hot(x, depth=n)`` gives the same
    result for indices in ``[0, n)``; a negative index differs (DirectML counts it
    from the end, ``jax.nn.one_hot`` gives an all-zero sequence).

    Returns:
        An array of ``indices.shape`` with ``depth`` inserted at ``axis``, of
        ``values``'s dtype.

    Raises:
        InvalidArgumentError: indices of a non-integer dtype, fewer than two
            values, a negative depth, an axis out of range, or traced statics.

    Differentiable in ``values``, and usable under :func:`jax.jit` and :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.one_hot(jnp.array([2, -1, 5]), jnp.array([0, 1]), depth=3)
    Array([[0, 0, 1],
           [0, 0, 1],
           [0, 0, 0]], dtype=int32)
    """
    if values is None:
        values = _default_values(jnp.result_type(float) if dtype is None else dtype)
    elif dtype is not None:
        values = jnp.asarray(values).astype(dtype)
    return _ONE_HOT_FACE.call(indices, values, depth, axis)


@functools.cache
def _default_values(dtype: Any) -> np.ndarray:
    """(off, on) = (0, 1) in ``dtype``: a NumPy constant, made once per dtype."""
    return np.array([0, 1], jnp.dtype(dtype))


def _checked_one_hot(indices: jax.Array, values: jax.Array, depth: int, axis: int) -> jax.Array:
    """:func:`one_hot`'s checks, while tracing, then the lowering."""
    if depth < 0:
        raise InvalidArgumentError(_FUNCTION, "depth", "a non-negative sequence length", depth)
    require_x64_for_axis(depth, op=_FUNCTION, field="depth")
    rank = indices.ndim + 1
    if not -rank <= axis < rank:
        raise InvalidArgumentError(
            _FUNCTION,
            "axis",
            f"in [{-rank}, {rank}) (an axis of the {rank}-D result)",
            axis,
        )
    if values.size < 2:
        raise InvalidArgumentError(
            _FUNCTION,
            "values",
            "at least 2 elements (off, then on)",
            f"an array of shape {tuple(values.shape)}",
        )
    require_fits_xla(
        (*indices.shape, depth),
        values.dtype,
        op=_FUNCTION,
        field="depth",
        given=f"{depth} for indices of shape {tuple(indices.shape)}",
        inputs=(indices, values),
    )
    axis %= rank
    return one_hot_lowering(
        jnp.expand_dims(indices, axis), values, axis=axis, depth=depth, wrap_negative=True
    )


def _one_hot_node(call: NodeCall) -> OneHotOperatorDesc:
    """The indices with the output's sizes and 1 at the axis; the values as one row."""
    out = call.outputs[0]
    axis = call.axis("axis")
    indices = call.arrays["indices"]
    sizes = (*out.sizes[:axis], 1, *out.sizes[axis + 1 :])
    return OneHotOperatorDesc(
        indices_tensor=dataclasses.replace(indices, sizes=sizes, strides=None)
        if indices.strides is None
        else call.aligned(indices),
        values_tensor=call.aligned(call.arrays["values"]),
        output_tensor=out,
        axis=axis,
    )


_ONE_HOT_FACE = faces.FunctionalFace(
    one_hot,
    _checked_one_hot,
    faces.Indices("indices"),
    faces.Data("values"),
    faces.Int("depth"),
    faces.Int("axis"),
    keys=True,
    graph_node=_one_hot_node,
)


ONE_HOT = contract.Operator(
    "DML_OPERATOR_ONE_HOT",
    OneHotOperatorDesc,
    support=_ONE_HOT_SUPPORT,
    same_dimension_count=True,
    same_data_type=("values_tensor", "output_tensor"),
    rules=_one_hot_rules,
    output_sizes=None,  # the depth along axis is the output's own
    lower=_lower_one_hot,
    face=_ONE_HOT_FACE,
)
