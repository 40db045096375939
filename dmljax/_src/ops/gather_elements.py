"""GATHER_ELEMENTS: ``DML_GATHER_ELEMENTS_OPERATOR_DESC`` and :func:`dmljax.gather_elements`.

``output[c] = input[c with c[axis] := indices[c]]`` for every coordinate ``c``
of the indices (``torch.gather``, ``numpy.take_along_axis``), with DirectML's
index rules: signed negatives count from the end (from FL 3_0), out-of-range
indices clamp to the nearest valid one.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules
from dmljax._src.arguments import static_int
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.indices import clamp_indices, wraps_negative_indices
from dmljax._src.node_call import NodeCall
from dmljax._src.ops import elements
from dmljax._src.tensor_desc import TensorDesc

__all__ = ["GATHER_ELEMENTS", "GatherElementsOperatorDesc", "gather_elements"]

_FUNCTION = "dmljax.gather_elements"


class GatherElementsOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike]):
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

    input_tensor: TensorDesc = contract.tensor_field("input")
    indices_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    axis: int = contract.attribute(static_int)


_GATHER_ELEMENTS_SUPPORT = fl.indexed_bands()


def _gather_elements_rules(desc: GatherElementsOperatorDesc, level: FL) -> None:
    op = type(desc).__name__
    elements.check_desc_indices(desc.input_tensor, desc.indices_tensor, desc.axis, op=op)


def _gather_elements_output_sizes(desc: GatherElementsOperatorDesc) -> tuple[tuple[int, ...], str]:
    return desc.indices_tensor.sizes, "indices_tensor.sizes"


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


def _lower_gather_elements(
    desc: GatherElementsOperatorDesc, options: contract.LoweringOptions
) -> Any:
    return functools.partial(
        gather_elements_lowering,
        axis=desc.axis,
        wrap_negative=wraps_negative_indices(options.feature_level),
    )


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
    return _GATHER_ELEMENTS_FACE.call(x, indices, axis)


def _checked_gather_elements(x: jax.Array, indices: jax.Array, axis: int) -> jax.Array:
    """:func:`gather_elements`'s checks, while tracing, then the lowering."""
    axis = rules.require_array_axis(axis, x, op=_FUNCTION)
    elements.check_index_shape(
        x.shape, indices.shape, axis, op=_FUNCTION, data_field="x.shape",
        index_field="indices.shape", exact=False,
    )  # fmt: skip
    rules.require_gatherable_axis(x, indices, axis, op=_FUNCTION)
    return gather_elements_lowering(x, indices, axis=axis, wrap_negative=True)


def _gather_elements_node(call: NodeCall) -> GatherElementsOperatorDesc:
    return GatherElementsOperatorDesc(
        input_tensor=call.arrays["x"],
        indices_tensor=call.arrays["indices"],
        output_tensor=call.outputs[0],
        axis=call.axis("axis", of="x"),
    )


_GATHER_ELEMENTS_FACE = faces.FunctionalFace(
    gather_elements,
    _checked_gather_elements,
    faces.Data("x"),
    faces.Indices("indices"),
    faces.Axis(),
    keys=True,
    graph_node=_gather_elements_node,
)


GATHER_ELEMENTS = contract.Operator(
    "DML_OPERATOR_GATHER_ELEMENTS",
    GatherElementsOperatorDesc,
    support=_GATHER_ELEMENTS_SUPPORT,
    same_dimension_count=True,
    same_data_type=("input_tensor", "output_tensor"),
    rules=_gather_elements_rules,
    output_sizes=_gather_elements_output_sizes,
    lower=_lower_gather_elements,
    face=_GATHER_ELEMENTS_FACE,
)
