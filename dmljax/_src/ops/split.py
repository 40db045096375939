"""SPLIT: ``DML_SPLIT_OPERATOR_DESC`` and :func:`dmljax.split`.

The input cut into consecutive parts along one axis, JOIN's inverse
(:mod:`dmljax._src.ops.join`, whose :func:`~dmljax._src.ops.join.check_parts`
it shares): each output has the input's sizes but along the axis, and their
sizes there sum to the input's.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import jax
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl
from dmljax._src.arguments import normalize_axis, static_int
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.ops.join import JOIN_AND_SPLIT_FIRST_TYPES, check_parts
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["SPLIT", "SplitOperatorDesc", "split", "split_lowering"]

_FUNCTION = "dmljax.split"


class SplitOperatorDesc(contract.OperatorDesc[tuple[jax.Array, ...], ArrayLike]):
    """``DML_SPLIT_OPERATOR_DESC``: the input cut along ``axis`` into the output tensors.

    ``OutputCount`` is ``len(output_tensors)``. The rules (checked by
    :func:`dmljax.compile_operator`): at least one output; ``axis`` in
    ``[0, DimensionCount)``; every output has the input's sizes except along
    ``axis``, where their sizes sum to the input's; all tensors share data type
    and DimensionCount. The compiled operator returns a tuple, one array per
    output tensor. Introduced at FL 1_0 (4-D; 32- and 16-bit types); 8-bit
    types from 2_1, 1 to 8 dimensions from 3_0, 64-bit types from 4_1.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.SplitOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(3,)),
    ...     output_tensors=(dml.TensorDesc(data_type=f32, sizes=(1,)),
    ...                     dml.TensorDesc(data_type=f32, sizes=(2,))),
    ...     axis=0)
    >>> dml.compile_operator(desc, feature_level=dml.FeatureLevel.FL_3_0)(jnp.arange(3.0))
    (Array([0.], dtype=float32), Array([1., 2.], dtype=float32))
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensors: tuple[TensorDesc, ...] = contract.tensor_field("output", many=True)
    axis: int = contract.attribute(static_int)


_SPLIT_SUPPORT = (
    fl.band(FL.FL_1_0, (4, 4), JOIN_AND_SPLIT_FIRST_TYPES),
    fl.band(FL.FL_2_1, (4, 4), fl.TYPES_8_32),
    fl.band(FL.FL_3_0, (1, 8), fl.TYPES_8_32),
    fl.band(FL.FL_4_1, (1, 8), fl.TYPES_8_64),
)


def _split_rules(desc: SplitOperatorDesc, level: FL) -> None:
    del level
    op = type(desc).__name__
    outputs = contract.bound_tensors(desc, contract.Role.OUTPUT)
    check_parts(op, desc.axis, ("input_tensor", desc.input_tensor), outputs,
                count_field="output_tensors")  # fmt: skip
    total = sum(tensor.sizes[desc.axis] for tensor in desc.output_tensors)
    expected = desc.input_tensor.sizes[desc.axis]
    if total != expected:
        along = tuple(tensor.sizes[desc.axis] for tensor in desc.output_tensors)
        raise InvalidArgumentError(
            op,
            f"output_tensors[:].sizes[{desc.axis}]",
            f"sizes along axis {desc.axis} that sum to input_tensor.sizes[{desc.axis}] = "
            f"{expected}",
            f"{along} (sum {total})",
        )


def split_lowering(x: jax.Array, *, sizes: tuple[int, ...], axis: int) -> tuple[jax.Array, ...]:
    """The one implementation of SPLIT, shared by both faces: :func:`jax.lax.split`,
    the op :func:`jax.numpy.split` lowers to (slices, which keep every bit)."""
    return tuple(lax.split(x, sizes, axis=axis))


def _lower_split(desc: SplitOperatorDesc, options: contract.LoweringOptions) -> Any:
    del options
    sizes = tuple(tensor.sizes[desc.axis] for tensor in desc.output_tensors)
    return functools.partial(split_lowering, sizes=sizes, axis=desc.axis)


def split(x: ArrayLike, sizes: int | Sequence[int], *, axis: int) -> tuple[jax.Array, ...]:
    """Cuts ``x`` along ``axis`` into consecutive parts (DirectML SPLIT).

    The functional face of :class:`SplitOperatorDesc`. Unlike
    :func:`jax.numpy.split`, which takes cut points, ``sizes`` gives each part's
    size (ONNX Split's ``split`` input), or, as an int, the number of equal parts
    (ONNX's ``num_outputs``, which must divide the axis). Parts of size 0 are
    empty arrays, and any rank from 1 and any JAX dtype is accepted.

    Args:
        x: the array to split.
        sizes: the size of each part along ``axis`` (non-negative, summing to
            ``x.shape[axis]``), or the number of equal parts.
        axis: the axis to cut, in ``[-ndim, ndim)``.

    Returns:
        A tuple of arrays, one per part.

    Raises:
        InvalidArgumentError: a 0-D ``x``, sizes that do not sum to the axis
            (or a count that does not divide it), a negative size, or an axis
            out of range.

    Differentiable (the gradient is joined back), and usable under
    :func:`jax.jit` and :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.split(jnp.arange(5), (2, 0, 3), axis=0)
    (Array([0, 1], dtype=int32), Array([], shape=(0,), dtype=int32), Array([2, 3, 4], dtype=int32))
    >>> [part.shape for part in dml.split(jnp.zeros((2, 6)), 3, axis=-1)]
    [(2, 2), (2, 2), (2, 2)]
    """
    return _SPLIT_FACE.call(x, sizes, axis)


def _checked_split(x: jax.Array, sizes: int | tuple[int, ...], axis: int) -> tuple[jax.Array, ...]:
    """:func:`split`'s checks, while tracing, then the lowering."""
    if x.ndim == 0:
        raise InvalidArgumentError(
            _FUNCTION, "x.shape", "at least 1 dimension (a 0-D array has no axis)", "()"
        )
    axis = normalize_axis(axis, x.ndim, op=_FUNCTION)
    length = x.shape[axis]
    if isinstance(sizes, int):
        if sizes < 1 or length % sizes:
            raise InvalidArgumentError(
                _FUNCTION,
                "sizes",
                f"a count of equal parts that divides x.shape[{axis}] = {length} (at least 1)",
                sizes,
                hint="Pass each part's size as a tuple for unequal parts.",
            )
        sizes = (length // sizes,) * sizes
    if not sizes:
        raise InvalidArgumentError(_FUNCTION, "sizes", "at least one part", "()")
    for i, size in enumerate(sizes):
        if size < 0:
            raise InvalidArgumentError(_FUNCTION, f"sizes[{i}]", "non-negative", size)
    if sum(sizes) != length:
        raise InvalidArgumentError(
            _FUNCTION,
            "sizes",
            f"sizes that sum to x.shape[{axis}] = {length}",
            f"{sizes} (sum {sum(sizes)})",
        )
    return split_lowering(x, sizes=sizes, axis=axis)


def _split_node(call: NodeCall) -> SplitOperatorDesc:
    return SplitOperatorDesc(
        input_tensor=call.arrays["x"],
        output_tensors=call.outputs,
        axis=call.axis("axis", of="x"),
    )


_SPLIT_FACE = faces.FunctionalFace(
    split, _checked_split, faces.Data("x"), faces.IntTuple("sizes", or_int=True),
    faces.Axis(),
    keys=True,
    graph_node=_split_node,
)  # fmt: skip


SPLIT = contract.Operator(
    "DML_OPERATOR_SPLIT",
    SplitOperatorDesc,
    support=_SPLIT_SUPPORT,
    same_dimension_count=True,
    same_data_type=("input_tensor", "output_tensors"),
    rules=_split_rules,
    output_sizes=None,  # the rules check the outputs' sizes: their sum is what is fixed
    lower=_lower_split,
    face=_SPLIT_FACE,
)
