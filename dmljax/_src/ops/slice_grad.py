"""SLICE_GRAD: ``DML_SLICE_GRAD_OPERATOR_DESC`` and :func:`dmljax.slice_grad`.

SLICE1's backward pass, as DirectML spells it: the input gradient (SLICE1's
output sizes) written into zeros of SLICE1's input sizes, at the positions the
window read. ``out[start + stride * c] = dy[c]``, every other element 0; the
window rules are SLICE1's (:mod:`dmljax._src.ops.slice1`).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import (
    bitwise,
    contract,
    face as faces,
    feature_levels as fl,
    rules,
)
from dmljax._src.arguments import StaticInts, require_length, static_int_tuple
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.ops.slice1 import check_output_sizes, check_window, window_fields, window_plan
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["SLICE_GRAD", "SliceGradOperatorDesc", "slice_grad", "slice_grad_lowering"]

_FUNCTION = "dmljax.slice_grad"
_WINDOW_FIELDS = ("input_window_offsets", "input_window_sizes", "input_window_strides")


class SliceGradOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_SLICE_GRAD_OPERATOR_DESC``: SLICE1's gradient, the window written into zeros.

    ``input_gradient_tensor`` has the sizes of the forward SLICE1's output,
    ``output_gradient_tensor`` those of its input; the window fields are
    SLICE1's. The rules (checked by :func:`dmljax.compile_operator`): the window
    arrays have the tensors' DimensionCount; every window is non-empty and inside
    the output gradient; strides are non-zero (``INT``); each input-gradient size
    is in ``[1, 1 + (size - 1) // |stride|]``; both tensors share data type and
    DimensionCount. Introduced at FL 3_0 (4 or 5 dimensions); 1 to 8 dimensions
    from 3_1; 64-bit types from 4_1.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.SliceGradOperatorDesc(
    ...     input_gradient_tensor=dml.TensorDesc(data_type=f32, sizes=(2,)),
    ...     output_gradient_tensor=dml.TensorDesc(data_type=f32, sizes=(5,)),
    ...     input_window_offsets=(0,), input_window_sizes=(4,), input_window_strides=(-2,))
    >>> dml.compile_operator(desc)(jnp.array([1.0, 2.0]))
    Array([0., 2., 0., 1., 0.], dtype=float32)
    """

    input_gradient_tensor: TensorDesc = contract.tensor_field("input")
    output_gradient_tensor: TensorDesc = contract.tensor_field("output")
    input_window_offsets: tuple[int, ...] = contract.attribute(static_int_tuple)
    input_window_sizes: tuple[int, ...] = contract.attribute(static_int_tuple)
    input_window_strides: tuple[int, ...] = contract.attribute(static_int_tuple)


_SLICE_GRAD_SUPPORT = (
    fl.band(FL.FL_3_0, (4, 5), fl.TYPES_8_32),
    fl.band(FL.FL_3_1, (1, 8), fl.TYPES_8_32),
    fl.band(FL.FL_4_1, (1, 8), fl.TYPES_8_64),
)


def _slice_grad_rules(desc: SliceGradOperatorDesc, level: FL) -> None:
    del level
    op = type(desc).__name__
    check_window(
        desc.output_gradient_tensor.sizes,
        desc.input_window_offsets,
        desc.input_window_sizes,
        desc.input_window_strides,
        op=op,
        fields=_WINDOW_FIELDS,
        allow_empty=False,
    )
    rules.require_c_int32(
        desc.input_window_strides, signed=True, op=op, field="input_window_strides"
    )
    check_output_sizes(
        desc.input_gradient_tensor.sizes,
        desc.input_window_sizes,
        desc.input_window_strides,
        op=op,
        field="input_gradient_tensor.sizes",
        allow_empty=False,
    )


def slice_grad_lowering(
    dy: jax.Array,
    *,
    input_sizes: tuple[int, ...],
    offsets: tuple[int, ...],
    sizes: tuple[int, ...],
    strides: tuple[int, ...],
) -> jax.Array:
    """The one implementation of SLICE_GRAD: a reversal, then one pad with interior padding.

    These are the ops JAX transposes SLICE1's lowering (a strided slice, then a
    reversal) into, in the same order, so ``jax.vjp`` of :func:`dmljax.slice1`
    runs this very program; the zeros between the strided elements are the pad's.
    Every bit of ``dy`` is kept (:func:`~dmljax._src.bitwise.exactly`).
    """
    plan = window_plan(offsets, sizes, strides, dy.shape)
    config = []
    for size, start, step, out in zip(input_sizes, plan.starts, plan.steps, dy.shape, strict=True):
        end = start + (out - 1) * step + 1 if out else start
        config.append((start, size - end, step - 1))
    return bitwise.exactly(functools.partial(_placed, plan.reversed_dims, config), dy, fill=0)


def _placed(
    reversed_dims: tuple[int, ...], config: list[tuple[int, int, int]], dy: jax.Array, fill: Any
) -> jax.Array:
    if reversed_dims:
        dy = lax.rev(dy, reversed_dims)
    return lax.pad(dy, fill, config)


def _lower_slice_grad(desc: SliceGradOperatorDesc, options: contract.LoweringOptions) -> Any:
    del options
    return functools.partial(
        slice_grad_lowering,
        input_sizes=desc.output_gradient_tensor.sizes,
        offsets=desc.input_window_offsets,
        sizes=desc.input_window_sizes,
        strides=desc.input_window_strides,
    )


def slice_grad(
    dy: ArrayLike,
    input_sizes: StaticInts,
    *,
    offsets: StaticInts,
    sizes: StaticInts,
    strides: StaticInts,
) -> jax.Array:
    """SLICE1's gradient: ``dy`` written into zeros of ``input_sizes`` where the window
    read (DirectML SLICE_GRAD).

    The functional face of :class:`SliceGradOperatorDesc`: equal, bit for bit,
    to ``jax.vjp`` of :func:`dmljax.slice1` with the same window and
    ``output_sizes=dy.shape``. Any rank and dtype; empty windows and ``dy`` too.

    Args:
        dy: the gradient of SLICE1's output (its shape is SLICE1's ``output_sizes``).
        input_sizes: the shape of SLICE1's input, and of the result.
        offsets, sizes, strides: SLICE1's window (non-zero strides; negative
            ones walk from the window's end).

    Returns:
        An array of shape ``input_sizes`` and the dtype of ``dy``.

    Raises:
        InvalidArgumentError: tuples of the wrong length, a window outside
            ``input_sizes``, a zero stride, a ``dy`` larger than the window holds,
            or traced values.

    Differentiable in ``dy`` (its gradient is SLICE1 again), and usable under
    :func:`jax.jit` and :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.slice_grad(jnp.array([1, 2, 3]), (7,), offsets=(1,), sizes=(6,), strides=(-2,))
    Array([0, 0, 3, 0, 2, 0, 1], dtype=int32)
    """
    return _SLICE_GRAD_FACE.call(dy, input_sizes, offsets, sizes, strides)


def _checked_slice_grad(
    dy: jax.Array,
    input_sizes: tuple[int, ...],
    offsets: tuple[int, ...],
    sizes: tuple[int, ...],
    strides: tuple[int, ...],
) -> jax.Array:
    """:func:`slice_grad`'s checks, while tracing, then the lowering."""
    why = f"one entry per dimension of dy, shape {tuple(dy.shape)}"
    require_length(input_sizes, dy.ndim, op=_FUNCTION, field="input_sizes", why=why)
    for i, size in enumerate(input_sizes):
        if size < 0:
            raise InvalidArgumentError(_FUNCTION, f"input_sizes[{i}]", "non-negative", size)
    check_window(
        input_sizes, offsets, sizes, strides, op=_FUNCTION,
        fields=("offsets", "sizes", "strides"), allow_empty=True,
    )  # fmt: skip
    check_output_sizes(dy.shape, sizes, strides, op=_FUNCTION, field="dy.shape", allow_empty=True)
    rules.require_fits_xla(
        input_sizes,
        dy.dtype,
        op=_FUNCTION,
        field="input_sizes",
        given=str(input_sizes),
        inputs=(dy,),
    )
    return slice_grad_lowering(
        dy, input_sizes=input_sizes, offsets=offsets, sizes=sizes, strides=strides
    )


def _slice_grad_node(call: NodeCall) -> SliceGradOperatorDesc:
    return SliceGradOperatorDesc(
        input_gradient_tensor=call.arrays["dy"],
        output_gradient_tensor=call.outputs[0],
        **window_fields(call),
    )


_SLICE_GRAD_FACE = faces.FunctionalFace(
    slice_grad,
    _checked_slice_grad,
    faces.Data("dy"),
    faces.IntTuple("input_sizes"),
    faces.IntTuple("offsets"),
    faces.IntTuple("sizes"),
    faces.IntTuple("strides"),
    graph_node=_slice_grad_node,
)


SLICE_GRAD = contract.Operator(
    "DML_OPERATOR_SLICE_GRAD",
    SliceGradOperatorDesc,
    support=_SLICE_GRAD_SUPPORT,
    same_dimension_count=True,
    same_data_type=("input_gradient_tensor", "output_gradient_tensor"),
    rules=_slice_grad_rules,
    output_sizes=None,  # the forward input's sizes: any that hold the window
    lower=_lower_slice_grad,
    face=_SLICE_GRAD_FACE,
)
