"""JOIN: ``DML_JOIN_OPERATOR_DESC`` and :func:`dmljax.join`.

The inputs, in order, along one axis: ``numpy.concatenate``. Every input has the
output's sizes but along the axis, where the output has their sum. SPLIT
(:mod:`dmljax._src.ops.split`) is its inverse and shares :func:`check_parts`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np
from jax.typing import ArrayLike

from dmljax._src import bitwise, contract, face as faces, feature_levels as fl
from dmljax._src.arguments import normalize_axis, static_int
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["JOIN", "JOIN_AND_SPLIT_FIRST_TYPES", "JoinOperatorDesc", "check_parts", "join"]

_FUNCTION = "dmljax.join"


class JoinOperatorDesc(contract.OperatorDesc[jax.Array, *tuple[ArrayLike, ...]]):
    """``DML_JOIN_OPERATOR_DESC``: the input tensors concatenated along ``axis``.

    ``InputCount`` is ``len(input_tensors)``. The rules (checked by
    :func:`dmljax.compile_operator`): at least one input; ``axis`` in
    ``[0, DimensionCount)``; every input has the output's sizes except along
    ``axis``, where the output has their sum; all tensors share data type and
    DimensionCount. The compiled operator takes one array per input tensor.
    Introduced at FL 1_0 (4-D; 32- and 16-bit types); 8-bit types from 2_1,
    5 dimensions from 3_0, 1 to 8 dimensions and 64-bit types from 4_1.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.JoinOperatorDesc(
    ...     input_tensors=(dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 2)),
    ...                    dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 1))),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 3)),
    ...     axis=3)
    >>> dml.compile_operator(desc)(jnp.ones((1, 1, 1, 2)), jnp.zeros((1, 1, 1, 1)))[0, 0]
    Array([[1., 1., 0.]], dtype=float32)
    """

    input_tensors: tuple[TensorDesc, ...] = contract.tensor_field("input", many=True)
    output_tensor: TensorDesc = contract.tensor_field("output")
    axis: int = contract.attribute(static_int)


_T = DataType
# JOIN and SPLIT at FL 1_0: 4-D tensors of 32- and 16-bit types, no 8-bit ones.
JOIN_AND_SPLIT_FIRST_TYPES = fl.FLOATS_16_32 | {_T.INT32, _T.INT16, _T.UINT32, _T.UINT16}
_JOIN_SUPPORT = (
    fl.band(FL.FL_1_0, (4, 4), JOIN_AND_SPLIT_FIRST_TYPES),
    fl.band(FL.FL_2_1, (4, 4), fl.TYPES_8_32),
    fl.band(FL.FL_3_0, (4, 5), fl.TYPES_8_32),
    # The page's level; the feature-level history says 3_1 (docs/semantics.md).
    fl.band(FL.FL_4_1, (1, 8), fl.TYPES_8_64),
)


def check_parts(
    op: str,
    axis: int,
    whole: tuple[str, Any],
    parts: Sequence[tuple[str, Any]],
    *,
    count_field: str,
) -> None:
    """The rules JOIN and SPLIT share, for descs (TensorDescs) and arrays alike.

    At least one part; ``axis`` in ``[0, DimensionCount)`` of the whole; each
    part with the whole's sizes except along ``axis``. The sum of the parts'
    sizes along ``axis`` is the caller's to compare (JOIN computes the output's
    from it, SPLIT checks it against the input's).
    """
    if not parts:
        raise InvalidArgumentError(
            op, count_field, "at least one tensor (the count must be greater than 0)", "none"
        )
    whole_field, whole_tensor = whole
    sizes = tuple(_sizes(whole_tensor))
    rank = len(sizes)
    if not 0 <= axis < rank:
        raise InvalidArgumentError(
            op, "axis", f"in [0, {rank}) ({whole_field} has {rank} dimensions)", axis
        )
    for label, part in parts:
        part_sizes = tuple(_sizes(part))
        if len(part_sizes) != rank:
            continue  # the DimensionCount rule (or the face's) reports it
        expected = (*sizes[:axis], part_sizes[axis], *sizes[axis + 1 :])
        if part_sizes != expected:
            raise InvalidArgumentError(
                op,
                f"{label}.{'sizes' if isinstance(part, TensorDesc) else 'shape'}",
                f"{expected} ({whole_field}'s sizes but along axis {axis})",
                part_sizes,
            )


def _sizes(tensor: Any) -> Sequence[int]:
    return tensor.sizes if isinstance(tensor, TensorDesc) else tensor.shape


def _join_rules(desc: JoinOperatorDesc, level: FL) -> None:
    del level
    inputs = contract.bound_tensors(desc, contract.Role.INPUT)
    first = inputs[0] if inputs else ("output_tensor", desc.output_tensor)
    check_parts(type(desc).__name__, desc.axis, first, inputs, count_field="input_tensors")


def _join_output_sizes(desc: JoinOperatorDesc) -> tuple[tuple[int, ...], str]:
    sizes = list(desc.input_tensors[0].sizes)
    sizes[desc.axis] = sum(tensor.sizes[desc.axis] for tensor in desc.input_tensors)
    return tuple(sizes), f"the inputs' sizes, summed along axis {desc.axis}"


def join_lowering(*arrays: jax.Array, axis: int) -> jax.Array:
    """The one implementation of JOIN, shared by both faces: one concatenate
    (:func:`jax.numpy.concatenate`'s), every bit kept."""
    return bitwise.concatenate(arrays, axis)


def _lower_join(desc: JoinOperatorDesc, options: contract.LoweringOptions) -> Any:
    del options
    return functools.partial(join_lowering, axis=desc.axis)


def join(arrays: Sequence[ArrayLike], *, axis: int) -> jax.Array:
    """Joins ``arrays`` along ``axis`` (DirectML JOIN, :func:`jax.numpy.concatenate`).

    The functional face of :class:`JoinOperatorDesc`: any rank from 1, any JAX
    dtype, and empty arrays (a part of size 0 along ``axis`` adds nothing, as in
    jnp). The arrays must share a dtype (DirectML's rule: no promotion).

    Args:
        arrays: a list or tuple of one or more arrays with equal shapes except
            along ``axis``.
        axis: the axis to join along, in ``[-ndim, ndim)``.

    Returns:
        An array of the arrays' shape, with the sum of their sizes along ``axis``.

    Raises:
        InvalidArgumentError: no arrays, 0-D arrays, ranks, dtypes or shapes
            that differ, or an axis out of range.

    Differentiable (the gradient is split back), and usable under
    :func:`jax.jit` and :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.join([jnp.array([[1, 2]]), jnp.array([[3, 4], [5, 6]])], axis=0)
    Array([[1, 2],
           [3, 4],
           [5, 6]], dtype=int32)
    """
    return _JOIN_FACE.call(arrays, axis)


def _checked_join(arrays: tuple[jax.Array, ...], axis: int) -> jax.Array:
    """:func:`join`'s checks, while tracing, then the lowering."""
    if not arrays:
        raise InvalidArgumentError(_FUNCTION, "arrays", "at least one array", "none")
    first = arrays[0]
    if first.ndim == 0:
        raise InvalidArgumentError(
            _FUNCTION, "arrays[0].shape", "at least 1 dimension (0-D arrays have no axis)", "()"
        )
    parts = [(f"arrays[{i}]", x) for i, x in enumerate(arrays)]
    for label, x in parts[1:]:
        if x.ndim != first.ndim:
            raise InvalidArgumentError(
                _FUNCTION, f"{label}.ndim", f"{first.ndim}, like arrays[0]", x.ndim
            )
        if x.dtype != first.dtype:
            dtype = np.dtype(first.dtype).name
            raise InvalidArgumentError(
                _FUNCTION,
                f"{label}.dtype",
                f"{dtype}, like arrays[0] (JOIN does not promote)",
                np.dtype(x.dtype).name,
                hint=f"Convert it with .astype({dtype!r}) if that is what you mean.",
            )
    normalized = normalize_axis(axis, first.ndim, op=_FUNCTION)
    check_parts(_FUNCTION, normalized, ("arrays[0]", first), parts, count_field="arrays")
    return join_lowering(*arrays, axis=normalized)


def _join_node(call: NodeCall) -> JoinOperatorDesc:
    return JoinOperatorDesc(
        input_tensors=call.arrays["arrays"],
        output_tensor=call.outputs[0],
        axis=call.axis("axis", of="arrays"),
    )


_JOIN_FACE = faces.FunctionalFace(
    join,
    _checked_join,
    faces.Arrays("arrays"),
    faces.Axis(of_first=True),
    keys=True,
    graph_node=_join_node,
)


JOIN = contract.Operator(
    "DML_OPERATOR_JOIN",
    JoinOperatorDesc,
    support=_JOIN_SUPPORT,
    same_dimension_count=True,
    same_data_type=("input_tensors", "output_tensor"),
    rules=_join_rules,
    output_sizes=_join_output_sizes,
    lower=_lower_join,
    face=_JOIN_FACE,
)
