"""ONNX ``Slice`` as a SLICE1 window: :func:`dmljax.onnx_slice_window`.

onnxruntime's DirectML provider runs ONNX ``Slice`` as one
``DML_SLICE1_OPERATOR_DESC`` whose window it derives from ``starts``, ``ends``,
``axes`` and ``steps`` (``SliceHelper`` in ``OperatorHelper.cpp``). This module
computes the same window, so that an ONNX model's slices can be run with
:func:`dmljax.slice1` or, when no axis is empty, described with
:class:`dmljax.Slice1OperatorDesc`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import jax
import numpy as np
from jax.typing import ArrayLike

from dmljax._src.arguments import as_array, normalize_axis, require_length, static_int_tuple
from dmljax._src.ops.slice1 import slice1
from dmljax.errors import InvalidArgumentError

__all__ = ["SliceWindow", "onnx_slice", "onnx_slice_window"]

_FUNCTION = "dmljax.onnx_slice_window"
_SLICE = "dmljax.onnx_slice"
_INT32 = np.iinfo(np.int32)


class SliceWindow(NamedTuple):
    """A SLICE1 window, one entry per dimension, named as :func:`dmljax.slice1`'s arguments.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> window = dml.onnx_slice_window((4,), starts=[1], ends=[3])
    >>> dml.slice1(jnp.arange(4), **window._asdict())
    Array([1, 2], dtype=int32)
    """

    offsets: tuple[int, ...]
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    output_sizes: tuple[int, ...]


def _saturate_to_int32(value: int) -> int:
    return min(max(value, int(_INT32.min)), int(_INT32.max))


def _axis_window(dim: int, start: int, end: int, step: int) -> tuple[int, int, int, int]:
    """``(offset, size, stride, output size)`` of one sliced axis, as ORT's SliceHelper
    derives them.

    ORT reads the bounds into INT32 with a saturating cast before this arithmetic.
    For an axis shorter than 2**31 the cast changes no window: a bound at or above
    INT32_MAX is past the end either way, and one at or below INT32_MIN is still
    before the start after the axis size is added. The bounds are therefore used
    as given, in Python integers, which also avoids the INT32 overflow that
    SliceHelper's ``end - start`` can hit for bounds near INT32_MIN.

    SliceHelper wraps a negative end only when ``starts[i] > INT32_MIN`` (it tests
    the start, not the end, after the saturating cast), so any start at or below
    ``-2**31`` (INT64_MIN among them) with ``ends=[-1]`` gives it an empty
    window. That contradicts ONNX, whose sentinel INT64_MIN means "the first
    element", and ORT's own CPU kernel; here a negative end always counts from
    the back.
    """
    if start < 0:
        start += dim
    if end < 0:
        end += dim
    if step < 0:
        # ONNX walks down from `start` to `end` (exclusive); as a window that is
        # [end + 1, start + 1), walked from its end.
        start, end = end + 1, start + 1
    start = max(start, 0)
    end = min(end, dim)
    size = max(end - start, 0)
    # An empty window is never read (ORT creates no DirectML operator for it);
    # keeping its offset inside the axis lets dml.slice1 take it.
    offset = min(start, dim)
    # SLICE1's strides are INT32, and ORT saturates the step as it does the bounds.
    # A step that long picks a single element of any window that fits in INT32,
    # so the saturated stride reads what the step reads; longer windows, which
    # DirectML cannot hold anyway, keep the step as it is.
    stride = _saturate_to_int32(step) if size <= _INT32.max else step
    return offset, size, stride, -(-size // abs(step))


def _normalized_axes(axes: Any, count: int, rank: int, op: str) -> tuple[int, ...]:
    if axes is None:
        if count > rank:
            raise InvalidArgumentError(
                op,
                "starts",
                f"at most {rank} long when axes is omitted (one entry per dimension "
                "from the first)",
                f"{count} entries",
            )
        return tuple(range(count))
    given = static_int_tuple(axes, op=op, field="axes")
    require_length(given, count, op=op, field="axes", why="one axis per entry of starts")
    normalized = tuple(
        normalize_axis(axis, rank, op=op, field=f"axes[{i}]") for i, axis in enumerate(given)
    )
    if len(set(normalized)) != len(normalized):
        raise InvalidArgumentError(
            op,
            "axes",
            f"free of repeats (each axis of the {rank}-D input sliced once; negative "
            "axes count from the end)",
            given,
        )
    return normalized


def _steps(steps: Any, count: int, op: str) -> tuple[int, ...]:
    if steps is None:
        return (1,) * count
    given = static_int_tuple(steps, op=op, field="steps")
    require_length(given, count, op=op, field="steps", why="one step per entry of starts")
    for i, step in enumerate(given):
        if step == 0:
            raise InvalidArgumentError(op, f"steps[{i}]", "non-zero", step)
    return given


def _shape(shape: Any, op: str) -> tuple[int, ...]:
    dims = static_int_tuple(shape, op=op, field="shape")
    for i, dim in enumerate(dims):
        if dim < 0:
            raise InvalidArgumentError(op, f"shape[{i}]", "non-negative", dim)
    return dims


def onnx_slice_window(
    shape: Sequence[int] | np.ndarray,
    starts: Sequence[int] | np.ndarray,
    ends: Sequence[int] | np.ndarray,
    axes: Sequence[int] | np.ndarray | None = None,
    steps: Sequence[int] | np.ndarray | None = None,
) -> SliceWindow:
    """The SLICE1 window that ONNX ``Slice`` reads, as onnxruntime's DirectML provider maps it.

    ``starts``, ``ends``, ``axes`` and ``steps`` are the ONNX ``Slice`` inputs
    (opset 10 and later). Negative bounds count from the back of their axis;
    out-of-range bounds, including the INT64_MIN and INT64_MAX sentinels, clamp
    to the axis. A negative step walks from ``start`` down to ``end``
    (exclusive), which becomes the window ``[end + 1, start + 1)`` walked from
    its end. Axes that are not sliced are taken whole.

    The result equals NumPy's ``x[start:end:step]`` on every axis. Where
    onnxruntime's CPU kernel departs from it, the window follows the DirectML
    provider: with a negative step, an ``end`` of INT32_MAX or INT64_MAX gives an
    empty slice (the CPU kernel reads to the first element instead), and a
    ``start`` still before the first element after counting from the back gives
    an empty slice (the CPU kernel reads the first element when ``end`` is
    before it too). One departure from the provider: after a ``start`` at or
    below ``-2**31`` (INT64_MIN among them, as its INT32 cast saturates) its
    SliceHelper leaves a negative ``end`` uncounted (a slip that empties
    ``x[-2**31:-1]`` and ``x[INT64_MIN:-1]``); here ``end`` counts from the back, as ONNX,
    the CPU kernel and NumPy have it. The window is exact for every axis shorter
    than 2**31, the limit of the provider's INT32 arithmetic.

    Args:
        shape: the sizes of the sliced tensor.
        starts: where each slice starts, one per sliced axis.
        ends: where each slice ends (exclusive), one per sliced axis.
        axes: the sliced axes, distinct, negative ones counting from the end;
            ``range(len(starts))`` by default.
        steps: non-zero steps, negative ones walking backwards; 1 by default.

    Returns:
        A :class:`SliceWindow` ``(offsets, sizes, strides, output_sizes)`` of
        Python ints, one entry per dimension of ``shape``: pass it to
        :func:`dmljax.slice1` as ``**window._asdict()``. An empty slice has
        size 0 and output size 0 along its axis.

    Raises:
        InvalidArgumentError: a negative size in ``shape``; ``starts``, ``ends``,
            ``axes`` or ``steps`` of different lengths (or ``starts`` longer than
            ``shape`` without ``axes``); an axis out of range or repeated; a
            step of 0; or traced values.
        ArgumentTypeError: a number or a string where a sequence belongs.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.arange(10).reshape(2, 5)
    >>> window = dml.onnx_slice_window(x.shape, starts=[-1], ends=[-2**63], axes=[1], steps=[-2])
    >>> window
    SliceWindow(offsets=(0, 0), sizes=(2, 5), strides=(1, -2), output_sizes=(2, 3))
    >>> dml.slice1(x, **window._asdict())
    Array([[4, 2, 0],
           [9, 7, 5]], dtype=int32)
    """
    return _window(shape, starts, ends, axes, steps, op=_FUNCTION)


def _window(shape: Any, starts: Any, ends: Any, axes: Any, steps: Any, *, op: str) -> SliceWindow:
    dims = _shape(shape, op)
    starts_t = static_int_tuple(starts, op=op, field="starts")
    ends_t = static_int_tuple(ends, op=op, field="ends")
    count = len(starts_t)
    require_length(ends_t, count, op=op, field="ends", why="one end per entry of starts")
    axes_t = _normalized_axes(axes, count, len(dims), op)
    steps_t = _steps(steps, count, op)
    offsets, strides = [0] * len(dims), [1] * len(dims)
    sizes, output_sizes = list(dims), list(dims)
    for axis, start, end, step in zip(axes_t, starts_t, ends_t, steps_t, strict=True):
        offsets[axis], sizes[axis], strides[axis], output_sizes[axis] = _axis_window(
            dims[axis], start, end, step
        )
    return SliceWindow(tuple(offsets), tuple(sizes), tuple(strides), tuple(output_sizes))


def onnx_slice(
    x: ArrayLike,
    starts: Sequence[int] | np.ndarray,
    ends: Sequence[int] | np.ndarray,
    axes: Sequence[int] | np.ndarray | None = None,
    steps: Sequence[int] | np.ndarray | None = None,
) -> jax.Array:
    """ONNX ``Slice`` of ``x``, as onnxruntime's DirectML provider runs it: the window of
    :func:`onnx_slice_window` read by :func:`dmljax.slice1`.

    Args:
        x: the array to slice.
        starts, ends, axes, steps: the ONNX ``Slice`` inputs, static Python ints
            (or NumPy arrays) with the meaning :func:`onnx_slice_window` gives them.

    Returns:
        ``x[start:end:step]`` along each sliced axis, the other axes whole.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.arange(10).reshape(2, 5)
    >>> dml.onnx_slice(x, starts=[-1], ends=[-2**63], axes=[1], steps=[-2])
    Array([[4, 2, 0],
           [9, 7, 5]], dtype=int32)
    """
    array = as_array(x, op=_SLICE, field="x")
    window = _window(np.shape(array), starts, ends, axes, steps, op=_SLICE)
    return slice1(array, **window._asdict())
