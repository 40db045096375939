"""The searches over axes: ARGMIN and ARGMAX, one row each.

Each output element is the index of the smallest (largest) input element of its group:
the elements that differ only in the reduced ``Axes``, counted in row-major order over
those axes (the flattened index, ``7`` for the last-but-one of a 3x3 group). The output
keeps the input's rank, with size 1 along the reduced axes, in an integer type of its
own (INT32, UINT32, INT64 or UINT64). ``AxisDirection`` breaks ties: ``INCREASING`` the
first such element, ``DECREASING`` the last. A NaN is both the smallest and the largest
element (the first NaN, or the last, on every backend), as :func:`jax.numpy.argmax` and
:func:`jax.numpy.argmin` take it on the CPU; a float32 subnormal compares as the backend
reads it (as a zero on XLA:CPU), as HARDMAX's search does.

>>> import jax.numpy as jnp, dmljax as dml
>>> dml.argmax(jnp.array([[1.0, 2.0, 3.0], [3.0, 0.0, 4.0], [2.0, 5.0, 2.0]]), axes=(0, 1))
Array([[7]], dtype=int32)
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules
from dmljax._src.arguments import static_int_tuple
from dmljax._src.enums import AxisDirection
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "ARGMAX",
    "ARGMIN",
    "FACE_DTYPES",
    "INDEX_DTYPES",
    "MAX_SEARCH",
    "MIN_SEARCH",
    "ArgmaxOperatorDesc",
    "ArgminOperatorDesc",
    "argmax",
    "argmin",
    "search_lowering",
]


class _SearchOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    axes: tuple[int, ...] = contract.attribute(static_int_tuple)
    axis_direction: AxisDirection = contract.attribute(AxisDirection.coerce)


class ArgminOperatorDesc(_SearchOperatorDesc):
    """``DML_ARGMIN_OPERATOR_DESC``: the index of each group's smallest element.

    ``axes`` (``AxisCount`` is its length) are each in ``[0, DimensionCount)``, none
    twice; the output has the input's DimensionCount and sizes, 1 along ``axes``, and an
    index type (INT32, UINT32, INT64 or UINT64). ``axis_direction`` picks the first
    (``INCREASING``) or the last (``DECREASING``) of equal elements. Introduced at FL 3_0
    (1 to 8 dimensions; FLOAT32, FLOAT16 and 8- to 32-bit integers). Its functional face
    is :func:`dmljax.argmin`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> desc = dml.ArgminOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(5,)),
    ...     output_tensor=dml.TensorDesc(data_type=dml.DataType.UINT32, sizes=(1,)),
    ...     axes=(0,), axis_direction=dml.AxisDirection.DECREASING)
    >>> dml.compile_operator(desc)(jnp.array([1.0, 2.0, 3.0, 2.0, 1.0]))
    Array([4], dtype=uint32)
    """


class ArgmaxOperatorDesc(_SearchOperatorDesc):
    """``DML_ARGMAX_OPERATOR_DESC``: the index of each group's largest element.

    The fields and rules of :class:`ArgminOperatorDesc`. Its functional face is
    :func:`dmljax.argmax`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> desc = dml.ArgmaxOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(5,)),
    ...     output_tensor=dml.TensorDesc(data_type=dml.DataType.UINT32, sizes=(1,)),
    ...     axes=(0,), axis_direction=dml.AxisDirection.INCREASING)
    >>> dml.compile_operator(desc)(jnp.array([3.0, 2.0, 1.0, 2.0, 3.0]))
    Array([0], dtype=uint32)
    """


# --- The one lowering -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Search:
    """One row: ``jnp.argmin`` or ``jnp.argmax``, its face's name and DirectML's."""

    find: Callable[..., jax.Array]
    face: str
    operator: str
    largest: bool


MIN_SEARCH = _Search(jnp.argmin, "dmljax.argmin", "DML_OPERATOR_ARGMIN", largest=False)
MAX_SEARCH = _Search(jnp.argmax, "dmljax.argmax", "DML_OPERATOR_ARGMAX", largest=True)


def search_lowering(
    x: jax.Array, *, search: _Search, axes: tuple[int, ...], last: bool, dtype: Any
) -> jax.Array:
    """The one implementation of both operators, shared by both faces.

    The reduced ``axes`` (in the tensor's order, whatever order they are listed in) are
    moved last and flattened into one, whose ``jnp.argmin``/``jnp.argmax`` is the
    row-major index over them; the last of equal elements is the first of the flattened
    group reversed, counted back from its end.
    """
    axes = tuple(sorted(axes))
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    group = math.prod(x.shape[i] for i in axes)
    out_shape = rules.reduced_sizes(x.shape, axes)
    if group == 0 or x.size == 0:
        return jnp.zeros(out_shape, dtype)  # an empty group has no index: 0, as a fill
    flat = jnp.transpose(x, (*kept, *axes)).reshape(*(x.shape[i] for i in kept), group)
    if last:
        flat = jnp.flip(flat, -1)
    if jnp.issubdtype(flat.dtype, jnp.floating):
        flat = _ordered_keys(flat, nan_first=not search.largest)
    index = search.find(flat, axis=-1)
    if last:
        index = (group - 1) - index
    return index.astype(dtype).reshape(out_shape)


def _ordered_keys(x: jax.Array, *, nan_first: bool) -> jax.Array:
    """Float ``x`` as integers of its width in the same order, equal where the floats
    compare equal (``-0.0`` and ``0.0``, and a subnormal the backend reads as a zero),
    and every NaN the smallest (``nan_first``) or the largest key.

    A GPU's parallel float search does not order NaNs by index, and a search with a
    second pass for NaNs costs a reduction more; a search of integers orders its ties by
    index on every backend, in one pass.
    """
    bits = lax.bitcast_convert_type(x, jnp.dtype(f"int{8 * x.dtype.itemsize}"))
    info = jnp.iinfo(bits.dtype)
    # A negative float's bits count down as it grows: flipping all but the sign counts up.
    keys = bits ^ ((bits >> (info.bits - 1)) & info.max)
    keys = jnp.where(x == 0, jnp.zeros_like(keys), keys)
    return jnp.where(jnp.isnan(x), info.min if nan_first else info.max, keys)


INDEX_DTYPES: frozenset[np.dtype[Any]] = frozenset(
    np.dtype(t) for t in (np.int32, np.uint32, np.int64, np.uint64)
)
"""The output's dtypes: the pages' index types."""

FACE_DTYPES: frozenset[np.dtype[Any]] = frozenset(
    np.dtype(t)
    for t in (np.float32, np.float16, jnp.bfloat16, np.float64, np.int32, np.int16, np.int8,
              np.uint32, np.uint16, np.uint8)
)  # fmt: skip
"""The faces' input dtypes: the pages' types, and bfloat16 and float64 as the family's."""


def _rules(desc: Any, level: FL) -> None:
    del level
    op = type(desc).__name__
    rank = desc.input_tensor.dimension_count
    rules.check_axes(desc.axes, rank, op=op, at_least_one=True)
    rules.require_countable_group(desc.input_tensor.sizes, desc.axes, op=op)


def _lowering_of(search: _Search) -> Any:
    def lower(desc: Any, options: contract.LoweringOptions) -> Any:
        del options
        return functools.partial(
            search_lowering,
            search=search,
            axes=desc.axes,
            last=desc.axis_direction is AxisDirection.DECREASING,
            dtype=desc.output_tensor.dtype,
        )

    return lower


def _face_of(
    function: Callable[..., Any], search: _Search, desc_type: type
) -> faces.FunctionalFace:
    def checked(x: jax.Array, axes: int | tuple[int, ...], last: bool, dtype: Any) -> jax.Array:
        rules.require_operand(
            x, FACE_DTYPES, op=search.face, operator=search.operator,
            runs="a search runs over axes",
        )  # fmt: skip
        if np.dtype(dtype) not in INDEX_DTYPES:
            raise InvalidArgumentError(
                search.face, "dtype", "one of int32, uint32, int64, uint64 (the index types)",
                np.dtype(dtype).name,
            )  # fmt: skip
        normalized = rules.face_axes(axes, x.ndim, op=search.face, at_least_one=True)
        rules.require_countable_group(x.shape, normalized, op=search.face, of="x.shape")
        return search_lowering(x, search=search, axes=normalized, last=last, dtype=dtype)

    def graph_node(call: NodeCall) -> Any:
        x = call.arrays["x"]
        return desc_type(
            input_tensor=x,
            output_tensor=call.outputs[0],
            axes=rules.face_axes(
                call.statics["axes"], x.dimension_count, op=search.face, at_least_one=True
            ),
            axis_direction=AxisDirection(int(call.statics["last"])),  # DECREASING is 1
        )

    return faces.FunctionalFace(
        function,
        checked,
        faces.Data("x"),
        faces.IntTuple("axes", or_int=True),
        faces.Bool("last"),
        faces.DType("dtype"),
        graph_node=graph_node,
    )


def argmin(
    x: ArrayLike, axes: int | tuple[int, ...] = -1, *, last: bool = False, dtype: Any = np.int32
) -> jax.Array:
    """The index of the smallest element of each group of ``x`` over ``axes`` (DirectML
    ARGMIN).

    The functional face of :class:`ArgminOperatorDesc`: ``axes`` is one axis or a tuple
    of them; the elements that differ only along them form a group, counted in
    row-major order over those axes. The result keeps ``x``'s rank, with size 1 along
    ``axes`` (``jnp.argmin(x, axis, keepdims=True)`` for one axis). ``last=True`` picks
    the last of equal elements (DirectML's ``DML_AXIS_DIRECTION_DECREASING``, ONNX's
    ``select_last_index``); a NaN is the smallest element, as in ``jnp.argmin``.

    Args:
        x: float32, float16, bfloat16, float64 or an 8- to 32-bit integer array of at
            least 1 dimension.
        axes: the axes to search over, each in ``[-x.ndim, x.ndim)``, none twice.
        last: the last of equal elements, not the first.
        dtype: the index type: int32 (the default), uint32, or with
            ``jax_enable_x64`` int64 or uint64.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.argmin(jnp.array([[1, 2, 1], [3, 0, 0]]), axes=1, last=True)
    Array([[2],
           [2]], dtype=int32)
    """
    return _MIN_FACE.call(x, axes, last, dtype)


def argmax(
    x: ArrayLike, axes: int | tuple[int, ...] = -1, *, last: bool = False, dtype: Any = np.int32
) -> jax.Array:
    """The index of the largest element of each group of ``x`` over ``axes`` (DirectML
    ARGMAX).

    The functional face of :class:`ArgmaxOperatorDesc`, with the arguments of
    :func:`argmin`; a NaN is the largest element, as in ``jnp.argmax``.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.argmax(jnp.array([3.0, 2.0, 1.0, 2.0, 3.0]), last=True)
    Array([4], dtype=int32)
    """
    return _MAX_FACE.call(x, axes, last, dtype)


_MIN_FACE = _face_of(argmin, MIN_SEARCH, ArgminOperatorDesc)
_MAX_FACE = _face_of(argmax, MAX_SEARCH, ArgmaxOperatorDesc)

_SUPPORT = (fl.band(FL.FL_3_0, (1, 8), fl.TYPES_8_32, output_tensor=fl.INDICES_32_64),)


def _operator(desc_type: type[Any], search: _Search, face: Any) -> Any:
    return contract.Operator(
        search.operator,
        desc_type,
        support=_SUPPORT,
        same_dimension_count=True,
        same_data_type=(),
        rules=_rules,
        output_sizes=rules.reduced_output_sizes,
        lower=_lowering_of(search),
        face=face,
    )


ARGMIN: contract.Operator[ArgminOperatorDesc] = _operator(ArgminOperatorDesc, MIN_SEARCH, _MIN_FACE)
ARGMAX: contract.Operator[ArgmaxOperatorDesc] = _operator(ArgmaxOperatorDesc, MAX_SEARCH, _MAX_FACE)
