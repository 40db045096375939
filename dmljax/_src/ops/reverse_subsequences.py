"""REVERSE_SUBSEQUENCES: ``DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC`` and
:func:`dmljax.reverse_subsequences`.

Each sequence along ``Axis`` has a length (the lengths tensor's element at the
sequence's other coordinates, size 1 at ``Axis``): its first ``length`` elements
are reversed and the rest copied. A length beyond the axis acts as the axis's
size, as the page says ("as if the value were clamped to the maximum").
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl
from dmljax._src.arguments import static_int
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.indices import clamp_indices
from dmljax._src.node_call import NodeCall
from dmljax._src.rules import require_array_axis, require_one_per_sequence
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "REVERSE_SUBSEQUENCES",
    "ReverseSubsequencesOperatorDesc",
    "reverse_subsequences",
    "reverse_subsequences_lowering",
]

_FUNCTION = "dmljax.reverse_subsequences"


class ReverseSubsequencesOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike]):
    """``DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC``: the first ``length`` elements of each
    sequence along ``axis`` reversed.

    The rules (checked by :func:`dmljax.compile_operator`): the three tensors
    share DimensionCount; ``axis`` is below it; ``sequence_lengths_tensor`` has
    the input's sizes with 1 at ``axis``; the output has the input's sizes and
    data type. Lengths beyond the axis act as its size. Introduced at FL 2_1
    (4-D, 8- to 32-bit types, UINT32 lengths); 5-D from 3_0; 1 to 8 dimensions
    from 4_0.

    >>> import jax.numpy as jnp, numpy as np, dmljax as dml
    >>> f32, u32 = dml.DataType.FLOAT32, dml.DataType.UINT32
    >>> desc = dml.ReverseSubsequencesOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 4)),
    ...     sequence_lengths_tensor=dml.TensorDesc(data_type=u32, sizes=(2, 1)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 4)),
    ...     axis=1)
    >>> dml.compile_operator(desc)(jnp.arange(8.0).reshape(2, 4), np.array([[3], [9]], np.uint32))
    Array([[2., 1., 0., 3.],
           [7., 6., 5., 4.]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    sequence_lengths_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    axis: int = contract.attribute(static_int)


_REVERSE_SUPPORT = (
    fl.band(FL.FL_2_1, (4, 4), fl.TYPES_8_32, sequence_lengths_tensor=fl.UINT32_INDICES),
    fl.band(FL.FL_3_0, (4, 5), fl.TYPES_8_32, sequence_lengths_tensor=fl.UINT32_INDICES),
    fl.band(FL.FL_4_0, (1, 8), fl.TYPES_8_32, sequence_lengths_tensor=fl.UINT32_INDICES),
)


def _reverse_rules(desc: ReverseSubsequencesOperatorDesc, level: FL) -> None:
    del level
    require_one_per_sequence(
        desc, "sequence_lengths_tensor", "input_tensor", op=type(desc).__name__
    )


def _reverse_output_sizes(desc: ReverseSubsequencesOperatorDesc) -> tuple[tuple[int, ...], str]:
    return desc.input_tensor.sizes, "input_tensor.sizes"


def reverse_subsequences_lowering(x: jax.Array, lengths: jax.Array, *, axis: int) -> jax.Array:
    """The one implementation of REVERSE_SUBSEQUENCES, shared by both faces.

    ``lengths`` has ``x``'s rank with 1 at ``axis``. Each length is clamped into
    ``[0, n]`` (a signed negative one reverses nothing), then element ``j`` of a
    sequence reads ``length - 1 - j`` where ``j < length`` and ``j`` elsewhere: one
    gather, whose index arithmetic XLA fuses into it (:func:`jax.numpy.take_along_axis`
    with the same indices is the jnp equivalent the bench compares against).
    """
    n = x.shape[axis]
    if n == 0 or x.size == 0:
        return x
    length = clamp_indices(lengths, n + 1, wrap_negative=False)  # [0, n], in an index type
    j = lax.broadcasted_iota(length.dtype, x.shape, axis)
    source = jnp.where(j < length, length - 1 - j, j)
    return jnp.take_along_axis(x, source, axis=axis, mode="promise_in_bounds")


def _lower_reverse(desc: ReverseSubsequencesOperatorDesc, options: contract.LoweringOptions) -> Any:
    del options
    return functools.partial(reverse_subsequences_lowering, axis=desc.axis)


def reverse_subsequences(x: ArrayLike, lengths: ArrayLike, *, axis: int) -> jax.Array:
    """Reverses the first ``lengths`` elements of each sequence of ``x`` along ``axis``
    (DirectML REVERSE_SUBSEQUENCES).

    The functional face of :class:`ReverseSubsequencesOperatorDesc`. ``lengths``
    holds one length per sequence: an integer array that broadcasts to ``x.shape``
    with 1 at ``axis`` (fewer dimensions align to the right, as in NumPy). Only a
    sequence's first ``length`` elements are reversed; the rest are copied. A
    length beyond the axis reverses the whole sequence (DirectML clamps it), and a
    negative one (of a signed type) reverses nothing.

    Args:
        x: the array whose sequences are reversed; any rank from 1 and any dtype.
        lengths: integers of any width.
        axis: the axis of the sequences, in ``[-x.ndim, x.ndim)``.

    Returns:
        An array of ``x``'s shape and dtype.

    Raises:
        InvalidArgumentError: lengths of a non-integer dtype or a shape that does
            not broadcast, an axis out of range, or a traced axis.

    Differentiable in ``x``, and usable under :func:`jax.jit` and :func:`jax.vmap`.
    ONNX ``ReverseSequence`` is this with ``lengths`` shaped to the batch axis:
    ``lengths.reshape(-1, 1)`` for ``batch_axis=0, time_axis=1``.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.arange(12).reshape(3, 4)
    >>> dml.reverse_subsequences(x, jnp.array([[2], [4], [0]]), axis=1)
    Array([[ 1,  0,  2,  3],
           [ 7,  6,  5,  4],
           [ 8,  9, 10, 11]], dtype=int32)
    """
    return _REVERSE_FACE.call(x, lengths, axis)


def _checked_reverse(x: jax.Array, lengths: jax.Array, axis: int) -> jax.Array:
    """:func:`reverse_subsequences`'s checks, while tracing, then the lowering."""
    if x.ndim == 0:
        raise InvalidArgumentError(
            _FUNCTION, "x", "an array of at least 1 dimension (sequences to reverse)", "a 0-D array"
        )
    axis = require_array_axis(axis, x, op=_FUNCTION)
    target = tuple(1 if i == axis else size for i, size in enumerate(x.shape))
    aligned = (1,) * (x.ndim - lengths.ndim) + tuple(lengths.shape)
    if lengths.ndim > x.ndim or any(
        have not in (1, want) for have, want in zip(aligned, target, strict=True)
    ):
        raise InvalidArgumentError(
            _FUNCTION,
            "lengths.shape",
            f"a shape that broadcasts to {target} (x.shape with 1 at axis {axis})",
            tuple(lengths.shape),
        )
    lengths = jnp.broadcast_to(lengths.reshape(aligned), target)
    return reverse_subsequences_lowering(x, lengths, axis=axis)


def _reverse_node(call: NodeCall) -> ReverseSubsequencesOperatorDesc:
    return ReverseSubsequencesOperatorDesc(
        input_tensor=call.arrays["x"],
        sequence_lengths_tensor=call.aligned(call.arrays["lengths"]),
        output_tensor=call.outputs[0],
        axis=call.axis("axis", of="x"),
    )


_REVERSE_FACE = faces.FunctionalFace(
    reverse_subsequences,
    _checked_reverse,
    faces.Data("x"),
    faces.Indices("lengths"),
    faces.Axis("axis"),
    keys=True,
    graph_node=_reverse_node,
)


REVERSE_SUBSEQUENCES = contract.Operator(
    "DML_OPERATOR_REVERSE_SUBSEQUENCES",
    ReverseSubsequencesOperatorDesc,
    support=_REVERSE_SUPPORT,
    same_dimension_count=True,
    same_data_type=("input_tensor", "output_tensor"),
    rules=_reverse_rules,
    output_sizes=_reverse_output_sizes,
    lower=_lower_reverse,
    face=_REVERSE_FACE,
)
