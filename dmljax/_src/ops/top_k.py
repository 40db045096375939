"""The selections along an axis: TOP_K and TOP_K1, and :func:`dmljax.top_k`.

Each *sequence* of the input (the elements that differ only along ``Axis``) gives its
``K`` largest elements, largest first (TOP_K1 with ``AxisDirection`` INCREASING: its
``K`` smallest, smallest first), and their indices in the sequence. Equal elements are
taken in ascending index order, whichever the direction. A NaN comes first in both
directions, as ARGMAX and ARGMIN take it (the pages leave NaN open; ``K = 1`` is then
ARGMAX's, or ARGMIN's, answer); ``-0.0`` and ``0.0`` are equal; the values are the
input's elements bit for bit (a NaN keeps its payload, a zero its sign).

>>> import jax.numpy as jnp, dmljax as dml
>>> values, indices = dml.top_k(jnp.array([[1.0, 2.0, 2.0, 3.0], [3.0, 4.0, 5.0, 5.0]]), 3)
>>> values
Array([[3., 2., 2.],
       [5., 5., 4.]], dtype=float32)
>>> indices
Array([[3, 1, 2],
       [2, 3, 1]], dtype=uint32)
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules
from dmljax._src.arguments import static_int
from dmljax._src.dtypes import DataType, require_x64_for_axis
from dmljax._src.enums import AxisDirection
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "FACE_DTYPES",
    "INDEX_DTYPES",
    "TOP_K",
    "TOP_K1",
    "TopK1OperatorDesc",
    "TopKOperatorDesc",
    "top_k",
    "top_k_lowering",
]

_FUNCTION = "dmljax.top_k"


class TopKOperatorDesc(contract.OperatorDesc[tuple[jax.Array, jax.Array], ArrayLike]):
    """``DML_TOP_K_OPERATOR_DESC``: the ``k`` largest elements of each sequence along
    ``axis``, largest first, and their indices.

    ``axis`` is below the input's DimensionCount; ``k`` is at least 1 and at most the
    input's size along ``axis`` (the page says "less than"; ONNX's TopK, which
    onnxruntime's DirectML provider maps onto this operator, allows the whole axis).
    Both outputs have the input's sizes but ``k`` along ``axis``; the values have the
    input's data type, the indices UINT32 (UINT64 from FL 5_0). Introduced at FL 2_0
    (4-D; FLOAT32, FLOAT16); 8- to 32-bit integers from 2_1, 1 to 8 dimensions from 3_1,
    INT64 and UINT64 from 5_0. It is :class:`TopK1OperatorDesc` with
    ``DECREASING``; its functional face is :func:`dmljax.top_k`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.TopKOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 4)),
    ...     output_value_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 2)),
    ...     output_index_tensor=dml.TensorDesc(data_type=dml.DataType.UINT32, sizes=(1, 1, 1, 2)),
    ...     axis=3, k=2)
    >>> dml.compile_operator(desc)(jnp.array([[[[0.0, 1.0, 10.0, 11.0]]]]))
    (Array([[[[11., 10.]]]], dtype=float32), Array([[[[3, 2]]]], dtype=uint32))
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_value_tensor: TensorDesc = contract.tensor_field("output")
    output_index_tensor: TensorDesc = contract.tensor_field("output")
    axis: int = contract.attribute(static_int)
    k: int = contract.attribute(static_int)


class TopK1OperatorDesc(contract.OperatorDesc[tuple[jax.Array, jax.Array], ArrayLike]):
    """``DML_TOP_K1_OPERATOR_DESC``: :class:`TopKOperatorDesc` with a direction.

    ``axis_direction`` ``DECREASING`` selects the ``k`` largest elements, largest first
    (TOP_K); ``INCREASING`` the ``k`` smallest, smallest first. Equal elements are in
    ascending index order either way. Introduced at FL 2_1 (4-D; 8- to 32-bit types); 1
    to 8 dimensions from 3_1, INT64, UINT64 and UINT64 indices from 5_0. Its functional
    face is :func:`dmljax.top_k` (``largest=False`` for ``INCREASING``).

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.TopK1OperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(4,)),
    ...     output_value_tensor=dml.TensorDesc(data_type=f32, sizes=(3,)),
    ...     output_index_tensor=dml.TensorDesc(data_type=dml.DataType.UINT32, sizes=(3,)),
    ...     axis=0, k=3, axis_direction=dml.AxisDirection.INCREASING)
    >>> dml.compile_operator(desc)(jnp.array([6.0, 2.0, 6.0, 2.0]))
    (Array([2., 2., 6.], dtype=float32), Array([1, 3, 0], dtype=uint32))
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_value_tensor: TensorDesc = contract.tensor_field("output")
    output_index_tensor: TensorDesc = contract.tensor_field("output")
    axis: int = contract.attribute(static_int)
    k: int = contract.attribute(static_int)
    axis_direction: AxisDirection = contract.attribute(AxisDirection.coerce)


# --- The one lowering -----------------------------------------------------------------------------


def top_k_lowering(
    x: jax.Array, *, k: int, axis: int, largest: bool, index_dtype: Any
) -> tuple[jax.Array, jax.Array]:
    """The one implementation of both operators, shared by both faces.

    :func:`jax.lax.top_k` of keys in the order the pages ask for: XLA's selection is
    stable (equal keys in ascending index order) and orders floats totally, so ``-0.0``
    would come after ``0.0`` and a NaN with its sign bit set (x86's default NaN) last.
    Float keys are the elements with every zero made ``+0.0`` and every NaN ``+NaN``
    (the largest key), negated first for the smallest; integer keys are the elements,
    complemented for the smallest (``~x`` reverses the order of every integer type,
    with no overflow). Integer values are the keys' (complemented back); float values
    are gathered from ``x`` by the indices, bit for bit.
    """
    if jnp.issubdtype(x.dtype, jnp.floating):
        keys = lax.stop_gradient(x if largest else -x)
        keys = jnp.where(keys == 0, jnp.zeros_like(keys), keys)
        keys = jnp.where(jnp.isnan(x), jnp.array(np.nan, keys.dtype), keys)
        _, index = lax.top_k(keys, k, axis=axis)
        values = jnp.take_along_axis(x, index, axis=axis)
    elif largest:
        values, index = lax.top_k(x, k, axis=axis)
    else:
        values, index = lax.top_k(~x, k, axis=axis)
        values = ~values
    return values, index.astype(index_dtype)


INDEX_DTYPES: frozenset[np.dtype[Any]] = frozenset(
    np.dtype(t) for t in (np.uint32, np.uint64, np.int32, np.int64)
)
"""The face's index dtypes: the pages' (UINT32, UINT64) and jnp's signed ones."""

FACE_DTYPES: frozenset[np.dtype[Any]] = frozenset(
    np.dtype(t)
    for t in (np.float32, np.float16, jnp.bfloat16, np.float64, np.int64, np.int32, np.int16,
              np.int8, np.uint64, np.uint32, np.uint16, np.uint8)
)  # fmt: skip
"""The face's input dtypes: the pages' types, and bfloat16 and float64 as the family's."""


def _selection_sizes(sizes: tuple[int, ...], axis: int, k: int) -> tuple[int, ...]:
    return (*sizes[:axis], k, *sizes[axis + 1 :])


def _rules(desc: Any, level: FL) -> None:
    del level
    op = type(desc).__name__
    rules.require_axis(desc.axis, desc.input_tensor, op=op, of="input_tensor")
    length = desc.input_tensor.sizes[desc.axis]
    if not 1 <= desc.k <= length:
        raise InvalidArgumentError(
            op, "k", f"in [1, {length}] (input_tensor.sizes[{desc.axis}])", desc.k
        )
    expected = _selection_sizes(desc.input_tensor.sizes, desc.axis, desc.k)
    why = f"input_tensor's sizes with k = {desc.k} along axis {desc.axis}"
    for field in ("output_value_tensor", "output_index_tensor"):
        rules.require_sizes(op, field, getattr(desc, field), expected, why)


def _lower(desc: Any, options: contract.LoweringOptions) -> Any:
    del options
    direction = getattr(desc, "axis_direction", AxisDirection.DECREASING)  # TOP_K's only one
    return functools.partial(
        top_k_lowering,
        k=desc.k,
        axis=desc.axis,
        largest=direction is AxisDirection.DECREASING,
        index_dtype=desc.output_index_tensor.dtype,
    )


def top_k(
    x: ArrayLike, k: int, axis: int = -1, *, largest: bool = True, dtype: Any = np.uint32
) -> tuple[jax.Array, jax.Array]:
    """The ``k`` largest (or smallest) elements of ``x`` along ``axis`` and their
    indices (DirectML TOP_K1).

    The functional face of :class:`TopK1OperatorDesc` and :class:`TopKOperatorDesc`:
    :func:`jax.lax.top_k` along any axis, with DirectML's order. Equal elements come in
    ascending index order; a NaN comes first (the largest, or with ``largest=False`` the
    smallest, as in ``jnp.argmax`` and ``jnp.argmin``); ``-0.0`` equals ``0.0``.

    Args:
        x: a float32, float16, bfloat16, float64 or 8- to 64-bit integer array of at
            least 1 dimension.
        k: how many elements to select, in ``[1, x.shape[axis]]``.
        axis: the axis to select along, in ``[-x.ndim, x.ndim)``.
        largest: the largest elements, largest first (DirectML's
            ``DML_AXIS_DIRECTION_DECREASING``); False: the smallest, smallest first.
        dtype: the indices' type: uint32 (the default, DirectML's), int32, or with
            ``jax_enable_x64`` uint64 or int64.

    Returns:
        ``(values, indices)``, each of ``x``'s shape with ``k`` along ``axis``.

    The values are differentiable (the gradient flows to the selected elements).

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.top_k(jnp.array([[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]]), 2, axis=0)
    (Array([[ 4,  5, 10, 11],
           [ 3,  2,  9,  8]], dtype=int32), Array([[2, 2, 0, 0],
           [1, 1, 1, 1]], dtype=uint32))
    """
    return _FACE.call(x, k, axis, largest, dtype)


def _checked(
    x: jax.Array, k: int, axis: int, largest: bool, dtype: Any
) -> tuple[jax.Array, jax.Array]:
    rules.require_operand(
        x, FACE_DTYPES, op=_FUNCTION, operator="DML_OPERATOR_TOP_K1",
        runs="a selection runs along an axis",
    )  # fmt: skip
    if np.dtype(dtype) not in INDEX_DTYPES:
        raise InvalidArgumentError(
            _FUNCTION, "dtype", "one of uint32, int32, uint64, int64 (the index types)",
            np.dtype(dtype).name,
        )  # fmt: skip
    axis = rules.require_array_axis(axis, x, op=_FUNCTION)
    length = x.shape[axis]
    if not isinstance(length, int):
        raise InvalidArgumentError(
            _FUNCTION, f"x.shape[{axis}]", "a static size (k is checked against it)",
            repr(length),
        )  # fmt: skip
    if not 1 <= k <= length:
        raise InvalidArgumentError(_FUNCTION, "k", f"in [1, {length}] (x.shape[{axis}])", k)
    require_x64_for_axis(length, op=_FUNCTION, field=f"x.shape[{axis}]")
    return top_k_lowering(x, k=k, axis=axis, largest=largest, index_dtype=np.dtype(dtype))


def _graph_node(call: NodeCall) -> TopK1OperatorDesc:
    values, indices = call.outputs
    return TopK1OperatorDesc(
        input_tensor=call.arrays["x"],
        output_value_tensor=values,
        output_index_tensor=indices,
        axis=call.axis("axis", of="x"),
        k=call.statics["k"],
        axis_direction=(
            AxisDirection.DECREASING if call.statics["largest"] else AxisDirection.INCREASING
        ),
    )


_FACE = faces.FunctionalFace(
    top_k, _checked, faces.Data("x"), faces.Int("k"), faces.Axis(), faces.Bool("largest"),
    faces.DType("dtype"),
    graph_node=_graph_node,
)  # fmt: skip

_UINT32 = frozenset({DataType.UINT32})
_UINT32_64 = frozenset({DataType.UINT32, DataType.UINT64})
_TYPES_5_0 = fl.TYPES_8_32 | {DataType.INT64, DataType.UINT64}
_WIDENED = (
    fl.band(FL.FL_2_1, (4, 4), fl.TYPES_8_32, output_index_tensor=_UINT32),
    fl.band(FL.FL_3_1, (1, 8), fl.TYPES_8_32, output_index_tensor=_UINT32),
    fl.band(FL.FL_5_0, (1, 8), _TYPES_5_0, output_index_tensor=_UINT32_64),
)


def _operator(name: str, desc_type: type[Any], support: Any, **face: Any) -> Any:
    return contract.Operator(
        name,
        desc_type,
        support=support,
        same_dimension_count=True,
        same_data_type=("input_tensor", "output_value_tensor"),
        rules=_rules,
        output_sizes=None,  # two outputs: the rules check both
        lower=_lower,
        **face,
    )


TOP_K: contract.Operator[TopKOperatorDesc] = _operator(
    "DML_OPERATOR_TOP_K",
    TopKOperatorDesc,
    (fl.band(FL.FL_2_0, (4, 4), fl.FLOATS_16_32, output_index_tensor=_UINT32), *_WIDENED),
    face=None,
    served_by="DML_OPERATOR_TOP_K1",
)
TOP_K1: contract.Operator[TopK1OperatorDesc] = _operator(
    "DML_OPERATOR_TOP_K1", TopK1OperatorDesc, _WIDENED, face=_FACE
)
