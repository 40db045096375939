"""REDUCE: one DirectML operator, twelve functions over any set of axes, one row each.

Each output element is the reduction of a group of input elements: those that differ
only in the reduced ``Axes``. The output keeps the input's rank, with size 1 along the
reduced axes. ``ARGMAX`` and ``ARGMIN`` write an index (the flattened row-major index
over the axes, ARGMAX's and ARGMIN's own search with its ties to the first element) of
an index type; every other function a value of the input's type. The page gives a
support table per function (:data:`FUNCTION_SUPPORT`); the operator's own table is the
widest of them, and a desc is checked against its function's.

Numerics: integers wrap around in their type (two's complement), as DirectML's integer
arithmetic does. float16 and bfloat16 compute in float32 and round once. A float sum is
the backend's reduction, whose order of operations is its own; the bound that every order
meets holds: a float32 ``SUM``, ``L1`` or ``SUM_SQUARE`` of ``n`` terms is within
``(n - 1) * 2**-24`` of the sum of the terms' magnitudes (absolute), ``AVERAGE`` within
that divided by ``n`` plus half an ulp, ``MULTIPLY`` within ``(n - 1) * 2**-24``
relative, away from overflow and underflow. ``L2`` is the square root of ``SUM_SQUARE``
(within half its relative bound, plus half an ulp), ``LOG_SUM`` the logarithm of
``SUM``, and ``LOG_SUM_EXP`` is computed as ``max + log(sum(exp(x - max)))`` (no
overflow; :func:`jax.nn.logsumexp`). ``MAX`` and ``MIN`` ignore NaNs, as
ELEMENT_WISE_MAX and ELEMENT_WISE_MIN (HLSL's ``max`` and ``min``) do: NaN only where
every element of the group is NaN (:func:`jax.numpy.nanmax`).

>>> import jax.numpy as jnp, dmljax as dml
>>> x = jnp.array([[1.0, 2.0, 3.0], [3.0, 0.0, 4.0], [2.0, 4.0, 2.0]])
>>> dml.reduce(x, "sum", axes=1)
Array([[6.],
       [7.],
       [8.]], dtype=float32)
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules
from dmljax._src.arguments import static_int_tuple
from dmljax._src.dtypes import DataType, accumulator
from dmljax._src.enums import ReduceFunction
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.ops.argminmax import INDEX_DTYPES, MAX_SEARCH, MIN_SEARCH, search_lowering
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "FACE_DTYPES",
    "FUNCTION_SUPPORT",
    "REDUCE",
    "ROWS",
    "ReduceOperatorDesc",
    "ReduceRow",
    "face_dtypes",
    "reduce",
    "reduce_lowering",
]

_F = ReduceFunction


class ReduceOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_REDUCE_OPERATOR_DESC``: ``function`` over each group of ``axes``.

    ``axes`` (``AxisCount`` is its length) are each in ``[0, DimensionCount)``, none
    twice, at least one; the output has the input's DimensionCount and sizes, 1 along
    ``axes``, and the input's type, or an index type (INT32, UINT32, INT64 or UINT64;
    UINT32 before FL 3_0) for ``ARGMAX`` and ``ARGMIN``. Introduced at FL 1_0
    (4 dimensions; 1 to 8 from FL 3_0); the types depend on the function
    (:data:`FUNCTION_SUPPORT`). Its functional face is :func:`dmljax.reduce`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> desc = dml.ReduceOperatorDesc(
    ...     function=dml.ReduceFunction.SUM,
    ...     input_tensor=dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(1, 1, 3, 3)),
    ...     output_tensor=dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(1, 1, 3, 1)),
    ...     axes=(3,))
    >>> dml.compile_operator(desc)(jnp.arange(1.0, 10.0).reshape(1, 1, 3, 3)).ravel()
    Array([ 6., 15., 24.], dtype=float32)
    """

    function: ReduceFunction = contract.attribute(ReduceFunction.coerce)
    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    axes: tuple[int, ...] = contract.attribute(static_int_tuple)


# --- The rows -------------------------------------------------------------------------------------

Formula = Callable[[jax.Array, tuple[int, ...]], jax.Array]
"""``(x, axes) -> y``: a function's value over ``axes`` (kept, size 1), in ``x``'s type,
which is already the accumulator's (:func:`~dmljax._src.dtypes.accumulator`)."""


def _sum(x: jax.Array, axes: tuple[int, ...]) -> jax.Array:
    # dtype=: jnp.sum widens small integers; DirectML's wrap in their type.
    return jnp.sum(x, axes, keepdims=True, dtype=x.dtype)


def _average(x: jax.Array, axes: tuple[int, ...]) -> jax.Array:
    return _sum(x, axes) / np.array(math.prod(x.shape[a] for a in axes), x.dtype)


def _l1(x: jax.Array, axes: tuple[int, ...]) -> jax.Array:
    return _sum(jnp.abs(x), axes)


def _sum_square(x: jax.Array, axes: tuple[int, ...]) -> jax.Array:
    return _sum(x * x, axes)


def _l2(x: jax.Array, axes: tuple[int, ...]) -> jax.Array:
    return jnp.sqrt(_sum_square(x, axes))


def _log_sum(x: jax.Array, axes: tuple[int, ...]) -> jax.Array:
    return jnp.log(_sum(x, axes))


def _log_sum_exp(x: jax.Array, axes: tuple[int, ...]) -> jax.Array:
    return jax.nn.logsumexp(x, axis=axes, keepdims=True)


def _multiply(x: jax.Array, axes: tuple[int, ...]) -> jax.Array:
    return jnp.prod(x, axes, keepdims=True, dtype=x.dtype)


def _extreme(largest: bool) -> Formula:
    """MAX or MIN, a NaN ignored (NaN only where the whole group is); an empty group
    is the identity (-inf or the type's smallest for MAX)."""

    def extreme(x: jax.Array, axes: tuple[int, ...]) -> jax.Array:
        floating = jnp.issubdtype(x.dtype, jnp.floating)
        if math.prod(x.shape[a] for a in axes) == 0:
            if floating:
                identity = -np.inf if largest else np.inf
            else:
                info = jnp.iinfo(x.dtype)
                identity = info.min if largest else info.max
            return jnp.full(rules.reduced_sizes(x.shape, axes), identity, x.dtype)
        if floating:
            return (jnp.nanmax if largest else jnp.nanmin)(x, axes, keepdims=True)
        return (jnp.max if largest else jnp.min)(x, axes, keepdims=True)

    return extreme


@dataclasses.dataclass(frozen=True)
class ReduceRow:
    """One row: a ``DML_REDUCE_FUNCTION``, the page's formula, and how dmljax computes it
    (a value ``formula``, or ARGMAX's and ARGMIN's ``search``)."""

    function: ReduceFunction
    page: str
    formula: Formula | None = None
    search: Any = None

    @property
    def writes_indices(self) -> bool:
        """ARGMAX and ARGMIN: an index type out, not the input's."""
        return self.search is not None


ROWS: Mapping[ReduceFunction, ReduceRow] = {
    row.function: row
    for row in (
        ReduceRow(_F.ARGMAX, "int32 {i j k ..} = maxindex(X Y Z ...)", search=MAX_SEARCH),
        ReduceRow(_F.ARGMIN, "int32 {i j k ..} = minindex(X Y Z ...)", search=MIN_SEARCH),
        ReduceRow(_F.AVERAGE, "x = (x1 + x2 + ... + xn) / n", _average),
        ReduceRow(_F.L1, "x = |x1| + |x2| + ... + |xn|", _l1),
        ReduceRow(_F.L2, "x = sqrt(x1^2 + x2^2 + ... + xn^2)", _l2),
        ReduceRow(_F.LOG_SUM, "x = log(x1 + x2 + ... + xn)", _log_sum),
        ReduceRow(_F.LOG_SUM_EXP, "x = log(exp(x1) + exp(x2) + ... + exp(xn))", _log_sum_exp),
        ReduceRow(_F.MAX, "x = max(max(max(x1, x2), x3), ..., xn)", _extreme(True)),
        ReduceRow(_F.MIN, "x = min(min(min(x1, x2), x3), ..., xn)", _extreme(False)),
        ReduceRow(_F.MULTIPLY, "x = (x1 * x2 * ... * xn)", _multiply),
        ReduceRow(_F.SUM, "x = (x1 + x2 + ... + xn)", _sum),
        ReduceRow(_F.SUM_SQUARE, "x = x1^2 + x2^2 + ... + xn^2", _sum_square),
    )
}  # fmt: skip
"""Every ``DML_REDUCE_FUNCTION``, in DirectML's order, with its page's formula."""


def reduce_lowering(
    x: jax.Array, *, function: ReduceFunction, axes: tuple[int, ...], dtype: Any
) -> jax.Array:
    """The one implementation, shared by both faces: ``function`` over ``axes`` of ``x``,
    kept with size 1; ``dtype`` is the output's (an index type for the searches)."""
    row = ROWS[function]
    if row.formula is None:
        return search_lowering(x, search=row.search, axes=axes, last=False, dtype=dtype)
    axes = tuple(sorted(axes))
    return row.formula(x.astype(accumulator(x.dtype)), axes).astype(x.dtype)


# --- The support tables, one per group of functions (the page's sections) -------------------------

_T = DataType
_FLOATS = fl.FLOATS_16_32
_INTS_32 = frozenset({_T.INT32, _T.UINT32})
_INTS_64 = frozenset({_T.INT64, _T.UINT64})

FUNCTION_SUPPORT = fl.ByAttribute(
    "function",
    {
        (_F.ARGMIN, _F.ARGMAX): (
            fl.band(FL.FL_1_0, (4, 4), _FLOATS, output_tensor=fl.UINT32_INDICES),
            fl.band(FL.FL_2_1, (4, 4), fl.TYPES_8_32, output_tensor=fl.UINT32_INDICES),
            fl.band(FL.FL_3_0, (1, 8), fl.TYPES_8_32, output_tensor=fl.INDICES_32_64),
            fl.band(FL.FL_4_1, (1, 8), fl.TYPES_8_32 | _INTS_64, output_tensor=fl.INDICES_32_64),
        ),
        (_F.AVERAGE, _F.L2, _F.LOG_SUM, _F.LOG_SUM_EXP): (
            fl.band(FL.FL_1_0, (4, 4), _FLOATS),
            fl.band(FL.FL_3_0, (1, 8), _FLOATS),
        ),
        (_F.L1, _F.SUM_SQUARE): (
            fl.band(FL.FL_1_0, (4, 4), _FLOATS),
            fl.band(FL.FL_3_0, (1, 8), _FLOATS),
            fl.band(FL.FL_5_0, (1, 8), _FLOATS | _INTS_32 | _INTS_64),
        ),
        (_F.MIN, _F.MAX): (
            fl.band(FL.FL_1_0, (4, 4), _FLOATS),
            fl.band(FL.FL_2_1, (4, 4), _FLOATS | _INTS_32),
            fl.band(FL.FL_3_0, (1, 8), fl.TYPES_8_32),
            fl.band(FL.FL_5_0, (1, 8), fl.TYPES_8_32 | _INTS_64),
        ),
        (_F.MULTIPLY, _F.SUM): (
            fl.band(FL.FL_1_0, (4, 4), _FLOATS),
            fl.band(FL.FL_2_1, (4, 4), _FLOATS | _INTS_32),
            fl.band(FL.FL_3_0, (1, 8), _FLOATS | _INTS_32),
            fl.band(FL.FL_5_0, (1, 8), _FLOATS | _INTS_32 | _INTS_64),
        ),
    },
)
"""The page's "Tensor support according to function": one table per group of functions,
as the page groups them."""


@functools.cache
def face_dtypes(function: ReduceFunction) -> frozenset[np.dtype[Any]]:
    """The face's input dtypes for ``function``: its page's types at the latest level, and
    bfloat16 and float64 (every function takes floats), as the family's faces do.

    >>> sorted(d.name for d in face_dtypes(ReduceFunction.AVERAGE))
    ['bfloat16', 'float16', 'float32', 'float64']
    """
    latest = FUNCTION_SUPPORT.bands_of(function)[-1].data
    types = {t.dtype for t in latest} | {np.dtype(jnp.bfloat16), np.dtype(np.float64)}
    return frozenset(types)


FACE_DTYPES: frozenset[np.dtype[Any]] = frozenset().union(*map(face_dtypes, ReduceFunction))
"""The face's input dtypes over every function (each function takes its own)."""


# --- Rules and the faces --------------------------------------------------------------------------


def _rules(desc: Any, level: FL) -> None:
    del level
    op = type(desc).__name__
    rank = desc.input_tensor.dimension_count
    rules.check_axes(desc.axes, rank, op=op, at_least_one=True)
    if ROWS[desc.function].writes_indices:
        rules.require_countable_group(desc.input_tensor.sizes, desc.axes, op=op)
    elif desc.output_tensor.data_type != desc.input_tensor.data_type:
        raise InvalidArgumentError(
            op, "output_tensor.data_type",
            f"{desc.input_tensor.data_type} (input_tensor's) with function {desc.function}: "
            "a value of the input's type (only ARGMAX and ARGMIN write indices)",
            str(desc.output_tensor.data_type),
        )  # fmt: skip


def _lower(desc: Any, options: contract.LoweringOptions) -> Any:
    del options
    return functools.partial(
        reduce_lowering,
        function=desc.function,
        axes=desc.axes,
        dtype=desc.output_tensor.dtype,
    )


_OP = "dmljax.reduce"


def _face_axes(axes: int | tuple[int, ...] | None, ndim: int) -> tuple[int, ...]:
    """Every axis for None (DirectMLX's ``dml::Reduce`` default), else at least one."""
    if axes is None:
        return tuple(range(ndim))
    return rules.face_axes(axes, ndim, op=_OP, at_least_one=True)


def _checked(x: jax.Array, function: str, axes: Any, dtype: Any) -> jax.Array:
    reduce_function = ReduceFunction[function.upper()]
    row = ROWS[reduce_function]
    if x.ndim == 0:
        raise InvalidArgumentError(
            _OP, "x", "an array of at least 1 dimension (a reduction runs over axes)", "a 0-D array"
        )
    rules.require_array_dtype(
        x, face_dtypes(reduce_function), op=_OP, field="x",
        why=f"the types of DML_OPERATOR_REDUCE's {reduce_function.name}",
        hint="Convert it first, e.g. x.astype(jnp.float32).",
    )  # fmt: skip
    normalized = _face_axes(axes, x.ndim)
    if row.writes_indices:
        dtype = np.dtype(np.int32) if dtype is None else dtype
        if dtype not in INDEX_DTYPES:
            raise InvalidArgumentError(
                _OP, "dtype",
                f"None or one of int32, uint32, int64, uint64 ({reduce_function.name} "
                "writes indices)", dtype.name,
            )  # fmt: skip
        rules.require_countable_group(x.shape, normalized, op=_OP, of="x.shape")
    elif dtype is not None and dtype != x.dtype:
        raise InvalidArgumentError(
            _OP, "dtype",
            f"None or {np.dtype(x.dtype).name} (x's: {reduce_function.name} writes a value of "
            "x's type)", dtype.name,
        )  # fmt: skip
    return reduce_lowering(x, function=reduce_function, axes=normalized, dtype=dtype)


def _graph_node(call: NodeCall) -> Any:
    x = call.arrays["x"]
    return ReduceOperatorDesc(
        function=ReduceFunction[call.statics["function"].upper()],
        input_tensor=x,
        output_tensor=call.outputs[0],
        axes=_face_axes(call.statics["axes"], x.dimension_count),
    )


def reduce(
    x: ArrayLike,
    function: str | ReduceFunction,
    axes: int | tuple[int, ...] | None = None,
    *,
    dtype: Any = None,
) -> jax.Array:
    """``function`` over each group of ``x``'s elements along ``axes`` (DirectML REDUCE).

    The functional face of :class:`ReduceOperatorDesc`. ``function`` is a
    :class:`dmljax.ReduceFunction` or its name in lower case: ``"sum"``,
    ``"average"``, ``"multiply"``, ``"max"``, ``"min"``, ``"l1"``, ``"l2"``,
    ``"sum_square"``, ``"log_sum"``, ``"log_sum_exp"``, ``"argmax"``, ``"argmin"``. The
    result keeps ``x``'s rank, with size 1 along ``axes``
    (``jnp.sum(x, axes, keepdims=True)`` for ``"sum"``). ``"max"`` and ``"min"``
    ignore NaNs (:func:`jax.numpy.nanmax`); ``"argmax"`` and ``"argmin"`` find the
    first extreme, a NaN the extreme, as :func:`dmljax.argmax` does. Integers wrap;
    float16 and bfloat16 compute in float32 and round once (module docs: the bounds).

    Args:
        x: an array of at least 1 dimension, of a dtype the function takes: floats for
            every function (float32, float16, bfloat16, float64); int32, uint32, int64
            and uint64 for sum, multiply, l1, sum_square, max, min, argmax and argmin;
            8- and 16-bit integers for max, min, argmax and argmin.
        function: the reduction.
        axes: the axes to reduce, each in ``[-x.ndim, x.ndim)``, none twice; None: all.
        dtype: for argmax and argmin the index type, int32 (None), uint32, or with
            ``jax_enable_x64`` int64 or uint64; for the others None or ``x.dtype``.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.array([[1.0, 2.0, 3.0], [3.0, 0.0, 4.0], [2.0, 4.0, 2.0]])
    >>> dml.reduce(x, "l2", axes=0)
    Array([[3.7416575, 4.472136 , 5.3851647]], dtype=float32)
    >>> dml.reduce(x, dml.ReduceFunction.ARGMAX)
    Array([[5]], dtype=int32)
    """
    return _FACE.call(x, function, axes, dtype)


_FACE = faces.FunctionalFace(
    reduce,
    _checked,
    faces.Data("x"),
    faces.Choice(
        "function",
        tuple(f.function_name for f in ReduceFunction),
        aliases=tuple((f, f.function_name) for f in ReduceFunction),
    ),
    faces.IntTuple("axes", optional=True, or_int=True),
    faces.DType("dtype", optional=True),
    graph_node=_graph_node,
)

REDUCE: contract.Operator[ReduceOperatorDesc] = contract.Operator(
    "DML_OPERATOR_REDUCE",
    ReduceOperatorDesc,
    support=FUNCTION_SUPPORT,
    same_dimension_count=True,
    same_data_type=(),
    rules=_rules,
    output_sizes=rules.reduced_output_sizes,
    lower=_lower,
    face=_FACE,
)
