"""SLICE1: ``DML_SLICE1_OPERATOR_DESC`` and :func:`dmljax.slice1`.

A window ``[offset, offset + size)`` per dimension is walked with a non-zero
stride: from the window's start when the stride is positive, from its end when
it is negative. ``output[c] = input[start + strides * c]`` with ``start =
offset + (size - 1 if stride < 0 else 0)``; each output size may be anything
from 1 to ``1 + (size - 1) // |stride|``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple

import jax
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules
from dmljax._src.arguments import StaticInts, require_length, static_int_tuple
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "SLICE1",
    "SLICE1_BANDS",
    "Slice1OperatorDesc",
    "WindowPlan",
    "check_output_sizes",
    "check_window",
    "max_output_size",
    "slice1",
    "slice1_lowering",
    "window_fields",
    "window_plan",
]

_FUNCTION = "dmljax.slice1"
_WINDOW_FIELDS = ("input_window_offsets", "input_window_sizes", "input_window_strides")


class Slice1OperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_SLICE1_OPERATOR_DESC``: a strided window of the input, possibly reversed.

    ``DimensionCount`` is the length of the three window arrays. The rules
    (checked by :func:`dmljax.compile_operator`): the arrays have the tensors'
    DimensionCount; every window is non-empty and inside the input
    (``offset + size <= input size``); strides are non-zero (signed: the page's
    ``UINT`` is an erratum, DirectML.h has ``INT``); each output size is in
    ``[1, 1 + (size - 1) // |stride|]``; input and output share data type and
    DimensionCount. Introduced at FL 2_1 (4 or 5 dimensions); 3_0: 1 to 8
    dimensions; 4_1: 64-bit types.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.Slice1OperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 4, 4)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 2)),
    ...     input_window_offsets=(0, 0, 0, 1),
    ...     input_window_sizes=(1, 1, 4, 3),
    ...     input_window_strides=(1, 1, -2, 2))
    >>> x = jnp.arange(1.0, 17.0).reshape(1, 1, 4, 4)
    >>> dml.compile_operator(desc)(x)[0, 0]
    Array([[14., 16.],
           [ 6.,  8.]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    input_window_offsets: tuple[int, ...] = contract.attribute(static_int_tuple)
    input_window_sizes: tuple[int, ...] = contract.attribute(static_int_tuple)
    input_window_strides: tuple[int, ...] = contract.attribute(static_int_tuple)


# SLICE1 arrived at FL 2_1 and widened together with SLICE: SLICE's rows from 2_1 on.
SLICE1_BANDS = (
    fl.band(FL.FL_2_1, (4, 5), fl.TYPES_8_32),
    fl.band(FL.FL_3_0, (1, 8), fl.TYPES_8_32),
    fl.band(FL.FL_4_1, (1, 8), fl.TYPES_8_64),
)


def max_output_size(window_size: int, stride: int) -> int:
    """Elements a window holds at ``stride``: ``1 + (window_size - 1) // |stride|``."""
    return 0 if window_size == 0 else 1 + (window_size - 1) // abs(stride)


def check_window(
    input_shape: Sequence[int],
    offsets: Sequence[int],
    sizes: Sequence[int],
    strides: Sequence[int],
    *,
    op: str,
    fields: tuple[str, str, str],
    allow_empty: bool,
) -> None:
    """SLICE1's window rules: one entry per dimension, inside the input, non-zero strides."""
    rank = len(input_shape)
    for field, values in zip(fields, (offsets, sizes, strides), strict=True):
        require_length(values, rank, op=op, field=field, why="one entry per dimension of the input")
    offsets_field, sizes_field, strides_field = fields
    smallest = 0 if allow_empty else 1
    for i, (dim, offset, size, stride) in enumerate(
        zip(input_shape, offsets, sizes, strides, strict=True)
    ):
        if stride == 0:
            raise InvalidArgumentError(op, f"{strides_field}[{i}]", "non-zero", stride)
        if offset < 0:
            raise InvalidArgumentError(op, f"{offsets_field}[{i}]", "non-negative", offset)
        if size < smallest:
            expected = "non-negative" if allow_empty else "at least 1 (windows are never empty)"
            raise InvalidArgumentError(op, f"{sizes_field}[{i}]", expected, size)
        if offset + size > dim:
            raise InvalidArgumentError(
                op,
                f"{sizes_field}[{i}]",
                f"at most {max(dim - offset, 0)} so that the window [{offset}, {offset + size}) "
                f"stays inside the input (size {dim} along dimension {i})",
                size,
            )


def check_output_sizes(
    output_sizes: Sequence[int],
    sizes: Sequence[int],
    strides: Sequence[int],
    *,
    op: str,
    field: str,
    allow_empty: bool,
) -> None:
    """Each output size is in ``[1, max_output_size]`` (``[0, ...]`` for empty windows)."""
    for i, (out, size, stride) in enumerate(zip(output_sizes, sizes, strides, strict=True)):
        largest = max_output_size(size, stride)
        smallest = 0 if allow_empty else 1
        if not smallest <= out <= largest:
            raise InvalidArgumentError(
                op,
                f"{field}[{i}]",
                f"in [{smallest}, {largest}] (1 + (window size {size} - 1) // |stride {stride}|)",
                out,
            )


class WindowPlan(NamedTuple):
    """The strided slice and the reversal a window is read with (SLICE1) or written back
    with (SLICE_GRAD)."""

    starts: tuple[int, ...]
    limits: tuple[int, ...]
    steps: tuple[int, ...]
    reversed_dims: tuple[int, ...]


def window_plan(
    offsets: Sequence[int],
    sizes: Sequence[int],
    strides: Sequence[int],
    output_sizes: Sequence[int],
) -> WindowPlan:
    """Where each dimension's window starts, ends and steps, ascending, and the dimensions
    read backwards (negative strides): SLICE1's elements, as a plain strided slice."""
    starts, limits, steps, reversed_dims = [], [], [], []
    for d, (offset, size, stride, out) in enumerate(
        zip(offsets, sizes, strides, output_sizes, strict=True)
    ):
        # A single element needs no step, and XLA's int64 slice attributes could not
        # hold an arbitrarily large one.
        step = abs(stride) if out > 1 else 1
        if stride > 0 or out == 0:
            first = offset
        else:  # walk back from the window's end: the same elements, ascending, then reversed
            first = offset + size - 1 - (out - 1) * step
            reversed_dims.append(d)
        starts.append(first)
        limits.append(first + (out - 1) * step + 1 if out else first)
        steps.append(step)
    return WindowPlan(tuple(starts), tuple(limits), tuple(steps), tuple(reversed_dims))


def slice1_lowering(
    x: jax.Array,
    *,
    offsets: tuple[int, ...],
    sizes: tuple[int, ...],
    strides: tuple[int, ...],
    output_sizes: tuple[int, ...],
) -> jax.Array:
    """The one implementation of SLICE1: a static strided slice, then a reversal.

    Both fuse into a single copy kernel with no gather. Its gradient is
    :func:`~dmljax._src.ops.slice_grad.slice_grad_lowering`: JAX transposes the
    slice into a pad with interior padding and the reversal into a reversal,
    the very ops SLICE_GRAD's lowering emits (the tests compare the two programs).
    """
    plan = window_plan(offsets, sizes, strides, output_sizes)
    sliced = lax.slice(x, plan.starts, plan.limits, plan.steps)
    return lax.rev(sliced, plan.reversed_dims) if plan.reversed_dims else sliced


def _slice1_rules(desc: Slice1OperatorDesc, level: FL) -> None:
    op = type(desc).__name__
    check_window(
        desc.input_tensor.sizes,
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
        desc.output_tensor.sizes,
        desc.input_window_sizes,
        desc.input_window_strides,
        op=op,
        field="output_tensor.sizes",
        allow_empty=False,
    )


def _lower_slice1(desc: Slice1OperatorDesc, options: contract.LoweringOptions) -> Any:
    del options
    return functools.partial(
        slice1_lowering,
        offsets=desc.input_window_offsets,
        sizes=desc.input_window_sizes,
        strides=desc.input_window_strides,
        output_sizes=desc.output_tensor.sizes,
    )


def slice1(
    x: ArrayLike,
    *,
    offsets: StaticInts,
    sizes: StaticInts,
    strides: StaticInts,
    output_sizes: StaticInts | None = None,
) -> jax.Array:
    """A strided window of ``x``, walked backwards along negative strides (DirectML SLICE1).

    The functional face of :class:`Slice1OperatorDesc`. Along dimension ``i``
    the window is ``[offsets[i], offsets[i] + sizes[i])``; a positive stride
    copies every ``strides[i]``-th element from its start, a negative one from
    its end. ``x[a:b:s]`` in NumPy terms, with DirectML's window convention.

    Args:
        x: the array to slice (any dtype; 0-D with empty tuples is the identity).
        offsets: where each window starts (non-negative).
        sizes: each window's extent; 0 gives an empty result.
        strides: non-zero steps; negative ones walk from the window's end.
        output_sizes: how many elements to copy per dimension, each in
            ``[0, 1 + (size - 1) // |stride|]``; the largest by default.

    Returns:
        An array of shape ``output_sizes`` and the dtype of ``x``.

    Raises:
        InvalidArgumentError: tuples of the wrong length, a window outside
            ``x``, a zero stride, an output size out of range, or traced values.

    Differentiable (the gradient puts the cotangent back into zeros, as
    DirectML's SLICE_GRAD does), and usable under :func:`jax.jit` and
    :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.arange(10)
    >>> dml.slice1(x, offsets=(1,), sizes=(8,), strides=(-3,))  # from the window's end
    Array([8, 5, 2], dtype=int32)
    """
    return _SLICE1_FACE.call(x, offsets, sizes, strides, output_sizes)


def _checked_slice1(
    x: jax.Array,
    offsets: tuple[int, ...],
    sizes: tuple[int, ...],
    strides: tuple[int, ...],
    output_sizes: tuple[int, ...] | None,
) -> jax.Array:
    """:func:`slice1`'s checks, while tracing, then the lowering."""
    check_window(
        x.shape, offsets, sizes, strides, op=_FUNCTION, fields=("offsets", "sizes", "strides"),
        allow_empty=True,
    )  # fmt: skip
    if output_sizes is None:
        out = tuple(max_output_size(s, st) for s, st in zip(sizes, strides, strict=True))
    else:
        out = output_sizes
        why = "one entry per dimension of x"
        require_length(out, x.ndim, op=_FUNCTION, field="output_sizes", why=why)
        check_output_sizes(
            out, sizes, strides, op=_FUNCTION, field="output_sizes", allow_empty=True
        )
    return slice1_lowering(x, offsets=offsets, sizes=sizes, strides=strides, output_sizes=out)


def window_fields(call: NodeCall) -> dict[str, tuple[int, ...]]:
    """A face call's window as SLICE1's and SLICE_GRAD's desc fields name it."""
    return {
        "input_window_offsets": call.statics["offsets"],
        "input_window_sizes": call.statics["sizes"],
        "input_window_strides": call.statics["strides"],
    }


def _slice1_node(call: NodeCall) -> Slice1OperatorDesc:
    return Slice1OperatorDesc(
        input_tensor=call.arrays["x"], output_tensor=call.outputs[0], **window_fields(call)
    )


_SLICE1_FACE = faces.FunctionalFace(
    slice1,
    _checked_slice1,
    faces.Data("x"),
    faces.IntTuple("offsets", per_dimension_of=(0, "x")),
    faces.IntTuple("sizes", per_dimension_of=(0, "x")),
    faces.IntTuple("strides", per_dimension_of=(0, "x")),
    faces.IntTuple("output_sizes", optional=True),
    keys=True,
    graph_node=_slice1_node,
)


SLICE1 = contract.Operator(
    "DML_OPERATOR_SLICE1",
    Slice1OperatorDesc,
    support=SLICE1_BANDS,
    same_dimension_count=True,
    same_data_type=("input_tensor", "output_tensor"),
    rules=_slice1_rules,
    output_sizes=None,  # any size up to the window's: the rules check the range
    lower=_lower_slice1,
    face=_SLICE1_FACE,
)
