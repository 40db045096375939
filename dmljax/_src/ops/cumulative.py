"""The running tallies along an axis: CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT, one row each.

Each output element is the sum (the product) of the input elements before it along
``Axis``, itself included unless the tally is *exclusive*; ``AxisDirection`` says which
way "before" runs (``DECREASING``: from the last element back). The output has the
input's sizes and type. The functional faces (:func:`dmljax.cumsum`,
:func:`dmljax.cumprod`) take ``reverse`` as :func:`jax.lax.cumsum` does.

Numerics: a tally of integers wraps around in its type (two's complement), as
DirectML's integer arithmetic does. A float tally is the backend's
(:func:`jax.lax.cumsum`: XLA's windowed reduction on the CPU, CUB's scan for a GPU's
sums), whose order of operations is its own; the bound that every order meets holds:
the ``k``-th running sum of float32 terms is within ``(k - 1) * 2**-24`` of the sum of
their magnitudes (absolute), a running product within ``(k - 1) * 2**-24`` relative,
away from overflow and underflow. float16 and bfloat16 tallies are computed in float32
and rounded once.

>>> import jax.numpy as jnp, dmljax as dml
>>> dml.cumsum(jnp.array([2.0, 1.0, 3.0, 5.0]), axis=0)
Array([ 2.,  3.,  6., 11.], dtype=float32)
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules
from dmljax._src.arguments import static_bool, static_int
from dmljax._src.dtypes import DataType, accumulator
from dmljax._src.enums import AxisDirection
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.ops.element_wise import first_input_sizes
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "CUMULATIVE_PRODUCT",
    "CUMULATIVE_SUMMATION",
    "FACE_DTYPES",
    "CumulativeProductOperatorDesc",
    "CumulativeSummationOperatorDesc",
    "cumprod",
    "cumsum",
    "cumulative_lowering",
]


class CumulativeSummationOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_CUMULATIVE_SUMMATION_OPERATOR_DESC``: the running sum along ``axis``.

    ``axis`` is below the input's DimensionCount; ``axis_direction`` is a
    :class:`dmljax.AxisDirection` (``DECREASING`` sums from the last element back);
    ``has_exclusive_sum`` leaves each element out of its own sum (the first is 0). The
    output has the input's sizes and data type. Introduced at FL 2_1 (4-D; FLOAT32,
    FLOAT16, INT32, UINT32); 1 to 8 dimensions from 4_0; INT64 and UINT64 from 5_0. Its
    functional face is :func:`dmljax.cumsum`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> t = dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(1, 1, 1, 4))
    >>> desc = dml.CumulativeSummationOperatorDesc(input_tensor=t, output_tensor=t, axis=3,
    ...     axis_direction=dml.AxisDirection.DECREASING, has_exclusive_sum=True)
    >>> dml.compile_operator(desc)(jnp.array([[[[2.0, 1.0, 3.0, 5.0]]]]))
    Array([[[[9., 8., 5., 0.]]]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    axis: int = contract.attribute(static_int)
    axis_direction: AxisDirection = contract.attribute(AxisDirection.coerce)
    has_exclusive_sum: bool = contract.attribute(static_bool)


class CumulativeProductOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_CUMULATIVE_PRODUCT_OPERATOR_DESC``: the running product along ``axis``.

    The fields and rules of :class:`CumulativeSummationOperatorDesc`, with
    ``has_exclusive_product`` (the first element of an exclusive product is 1).
    Introduced at FL 3_1 (4-D; FLOAT32, FLOAT16, INT32, UINT32); 1 to 8 dimensions from
    4_0; INT64 and UINT64 from 5_0. Its functional face is :func:`dmljax.cumprod`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> t = dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(1, 1, 1, 4))
    >>> desc = dml.CumulativeProductOperatorDesc(input_tensor=t, output_tensor=t, axis=3,
    ...     axis_direction=dml.AxisDirection.INCREASING, has_exclusive_product=False)
    >>> dml.compile_operator(desc)(jnp.array([[[[2.0, 1.0, 3.0, 5.0]]]]))
    Array([[[[ 2.,  2.,  6., 30.]]]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    axis: int = contract.attribute(static_int)
    axis_direction: AxisDirection = contract.attribute(AxisDirection.coerce)
    has_exclusive_product: bool = contract.attribute(static_bool)


# --- The one lowering -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Tally:
    """One row: the scan, its identity, its face's name, DirectML's, and the desc's
    exclusivity flag."""

    scan: Callable[..., jax.Array]  # lax.cumsum or lax.cumprod
    identity: int
    face: str
    operator: str
    exclusive_field: str


_SUM = _Tally(
    lax.cumsum, 0, "dmljax.cumsum", "DML_OPERATOR_CUMULATIVE_SUMMATION", "has_exclusive_sum"
)
_PRODUCT = _Tally(
    lax.cumprod, 1, "dmljax.cumprod", "DML_OPERATOR_CUMULATIVE_PRODUCT", "has_exclusive_product"
)


def cumulative_lowering(
    x: jax.Array, *, tally: _Tally, axis: int, reverse: bool, exclusive: bool
) -> jax.Array:
    """The one implementation of both operators, shared by both faces.

    ``lax.cumsum`` or ``lax.cumprod`` along ``axis`` (16-bit floats in float32, rounded
    once); an exclusive tally is the inclusive one moved one place along the scan, the
    identity (0 or 1) where it starts: one pad, which XLA fuses into the scan's output.
    """
    wide = x.astype(accumulator(x.dtype))
    if x.shape[axis] == 0:
        return x
    out = tally.scan(wide, axis=axis, reverse=reverse)
    if exclusive:
        config = [(0, 0, 0)] * x.ndim
        config[axis] = (-1, 1, 0) if reverse else (1, -1, 0)
        out = lax.pad(out, np.array(tally.identity, out.dtype), config)
    return out.astype(x.dtype)


FACE_DTYPES: frozenset[np.dtype[Any]] = frozenset(
    np.dtype(t)
    for t in (np.float32, np.float16, jnp.bfloat16, np.float64, np.int32, np.uint32, np.int64,
              np.uint64)
)  # fmt: skip
"""The faces' dtypes: the pages' types, and bfloat16 and float64 as the family's."""


def _rules(desc: Any, level: FL) -> None:
    del level
    rank = desc.input_tensor.dimension_count
    if not 0 <= desc.axis < rank:
        raise InvalidArgumentError(
            type(desc).__name__, "axis", f"in [0, {rank}) (input_tensor has {rank} dimensions)",
            desc.axis,
        )  # fmt: skip


def _lowering_of(tally: _Tally) -> Any:
    def lower(desc: Any, options: contract.LoweringOptions) -> Any:
        del options
        return functools.partial(
            cumulative_lowering,
            tally=tally,
            axis=desc.axis,
            reverse=desc.axis_direction is AxisDirection.DECREASING,
            exclusive=bool(getattr(desc, tally.exclusive_field)),
        )

    return lower


def _face_of(function: Callable[..., Any], tally: _Tally, desc_type: type) -> faces.FunctionalFace:
    def checked(x: jax.Array, axis: int, reverse: bool, exclusive: bool) -> jax.Array:
        rules.require_operand(
            x, FACE_DTYPES, op=tally.face, operator=tally.operator,
            runs="a tally runs along an axis",
        )  # fmt: skip
        axis = rules.require_array_axis(axis, x, op=tally.face)
        return cumulative_lowering(x, tally=tally, axis=axis, reverse=reverse, exclusive=exclusive)

    def graph_node(call: NodeCall) -> Any:
        direction = AxisDirection(int(call.statics["reverse"]))  # DECREASING is 1
        return desc_type(
            input_tensor=call.arrays["x"],
            output_tensor=call.outputs[0],
            axis=call.axis("axis", of="x"),
            axis_direction=direction,
            **{tally.exclusive_field: call.statics["exclusive"]},
        )

    return faces.FunctionalFace(
        function,
        checked,
        faces.Data("x"),
        faces.Axis("axis"),
        faces.Bool("reverse"),
        faces.Bool("exclusive"),
        graph_node=graph_node,
    )


def cumsum(x: ArrayLike, axis: int, *, reverse: bool = False, exclusive: bool = False) -> jax.Array:
    """The running sum of ``x`` along ``axis`` (DirectML CUMULATIVE_SUMMATION).

    The functional face of :class:`CumulativeSummationOperatorDesc`: ``reverse`` sums
    from the last element back (DirectML's ``DML_AXIS_DIRECTION_DECREASING``, as
    :func:`jax.lax.cumsum`'s ``reverse``), and ``exclusive`` leaves each element out of
    its own sum (the first is 0). Integers wrap around in their type; float16 and
    bfloat16 are summed in float32 and rounded once (module docs: the float bound).

    Args:
        x: float32, float16, bfloat16, float64, int32, uint32, int64 or uint64 (the
            64-bit types with ``jax_enable_x64``), of at least 1 dimension.
        axis: the axis to sum along, in ``[-x.ndim, x.ndim)``.
        reverse: sum from the end of the axis.
        exclusive: each element's sum leaves it out.

    Returns:
        An array of ``x``'s shape and dtype.

    Differentiable in ``x``, and usable under :func:`jax.jit` and :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.cumsum(jnp.array([2, 1, 3, 5]), axis=0, reverse=True, exclusive=True)
    Array([9, 8, 5, 0], dtype=int32)
    """
    return _SUM_FACE.call(x, axis, reverse, exclusive)


def cumprod(
    x: ArrayLike, axis: int, *, reverse: bool = False, exclusive: bool = False
) -> jax.Array:
    """The running product of ``x`` along ``axis`` (DirectML CUMULATIVE_PRODUCT).

    The functional face of :class:`CumulativeProductOperatorDesc`, with the arguments
    of :func:`cumsum`; an exclusive product starts at 1. Integers wrap around in their
    type; float16 and bfloat16 are multiplied in float32 and rounded once.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.cumprod(jnp.array([2.0, 1.0, 3.0, 5.0]), axis=0, exclusive=True)
    Array([1., 2., 2., 6.], dtype=float32)
    """
    return _PRODUCT_FACE.call(x, axis, reverse, exclusive)


_SUM_FACE = _face_of(cumsum, _SUM, CumulativeSummationOperatorDesc)
_PRODUCT_FACE = _face_of(cumprod, _PRODUCT, CumulativeProductOperatorDesc)

_TYPES = fl.FLOATS_16_32 | {DataType.INT32, DataType.UINT32}
_WIDE = _TYPES | {DataType.INT64, DataType.UINT64}


def _support(first: FL) -> tuple[fl.Band, ...]:
    """The two pages' tables: 4-D from the first level, 1 to 8 dimensions from 4_0,
    64-bit integers from 5_0."""
    return (
        fl.band(first, (4, 4), _TYPES),
        fl.band(FL.FL_4_0, (1, 8), _TYPES),
        fl.band(FL.FL_5_0, (1, 8), _WIDE),
    )


def _operator(
    desc_type: type[Any], tally: _Tally, first: FL, face: faces.FunctionalFace
) -> contract.Operator[Any]:
    return contract.Operator(
        tally.operator,
        desc_type,
        support=_support(first),
        same_dimension_count=True,
        same_data_type=("input_tensor", "output_tensor"),
        rules=_rules,
        output_sizes=first_input_sizes,
        lower=_lowering_of(tally),
        face=face,
    )


CUMULATIVE_SUMMATION: contract.Operator[CumulativeSummationOperatorDesc] = _operator(
    CumulativeSummationOperatorDesc,
    _SUM,
    FL.FL_2_1,
    _SUM_FACE,
)
CUMULATIVE_PRODUCT: contract.Operator[CumulativeProductOperatorDesc] = _operator(
    CumulativeProductOperatorDesc,
    _PRODUCT,
    FL.FL_3_1,
    _PRODUCT_FACE,
)
