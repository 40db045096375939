"""Strided buffer tensors: ``DML_BUFFER_TENSOR_DESC.Strides`` read and written in JAX.

A TensorDesc with strides describes a flat buffer: element ``c`` of the
logical tensor lives at ``buffer[sum(c[i] * strides[i])]``. Strides are in
elements and never negative; a stride of 0 broadcasts, a stride larger than
the packed one pads, and a permutation of the packed strides is another
layout (NHWC, column-major, ...).

Reading and writing are lowered without a gather wherever the layout allows:
when the dimensions, ordered by stride, nest inside each other (each stride a
multiple of the next and large enough to hold it), the buffer is a padded,
permuted dense array, and a pad, a reshape, a slice and a transpose express
it. Only other layouts (overlapping or interleaved views) gather from, or
scatter to, computed offsets.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from dmljax._src.rules import check_bound_array, require_tensor_desc
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "NestedLayout",
    "check_buffer_array",
    "from_strided_buffer",
    "nested_layout",
    "read_strided",
    "require_non_overlapping",
    "to_strided_buffer",
    "write_strided",
]

# The largest tensor whose offsets are enumerated to prove a non-nested output
# layout free of overlaps (a boolean per buffer element, 16 MiB at most).
_MAX_ENUMERATED_ELEMENTS = 2**20


@dataclasses.dataclass(frozen=True)
class NestedLayout:
    """A strided layout that is a padded, permuted dense array.

    Attributes:
        order: the logical dimensions that matter (size > 1, stride > 0), by
            stride, largest first.
        padded_shape: the dense array the buffer holds, one entry per dimension
            of ``order`` and a last one for the innermost stride:
            ``(sizes[order[0]], strides[order[0]] // strides[order[1]], ...,
            strides[order[-1]])``.
        broadcast: the logical dimensions of size > 1 and stride 0.
    """

    order: tuple[int, ...]
    padded_shape: tuple[int, ...]
    broadcast: tuple[int, ...]

    @property
    def element_count(self) -> int:
        """Elements of the padded array (the buffer length it spans, padding included)."""
        return math.prod(self.padded_shape)


def nested_layout(sizes: tuple[int, ...], strides: tuple[int, ...]) -> NestedLayout | None:
    """The layout as a padded, permuted dense array, or None when it is not one.

    >>> nested_layout((2, 3), (5, 1))  # rows padded to 5 elements
    NestedLayout(order=(0, 1), padded_shape=(2, 5, 1), broadcast=())
    >>> nested_layout((2, 3), (1, 2)).order  # column-major
    (1, 0)
    >>> nested_layout((2, 3), (2, 3)) is None  # interleaved: 0, 3, 6, 2, 5, 8
    True
    """
    live = [d for d, size in enumerate(sizes) if size > 1 and strides[d] > 0]
    broadcast = tuple(d for d, size in enumerate(sizes) if size > 1 and strides[d] == 0)
    order = tuple(sorted(live, key=lambda d: -strides[d]))
    padded: list[int] = []
    for outer, inner in itertools.pairwise(order):
        # The inner dimension must fit in one step of the outer one, an exact
        # number of times, for a reshape of the buffer to hold both.
        if strides[outer] % strides[inner] or strides[outer] < strides[inner] * sizes[inner]:
            return None
        padded.append(strides[outer] // strides[inner])
    if not order:
        return NestedLayout(order=(), padded_shape=(1,), broadcast=broadcast)
    return NestedLayout(
        order=order,
        padded_shape=(sizes[order[0]], *padded, strides[order[-1]]),
        broadcast=broadcast,
    )


def _strides_of(desc: TensorDesc) -> tuple[int, ...]:
    return desc.strides if desc.strides is not None else desc.packed_strides()


def _offsets(sizes: tuple[int, ...], strides: tuple[int, ...], span: int) -> jax.Array:
    """``sum(c[i] * strides[i])`` for every coordinate ``c``, in a type that holds ``span``."""
    # A buffer spans at most 2**32 - 1 elements, which uint32 holds without jax_enable_x64.
    dtype = np.int32 if span <= np.iinfo(np.int32).max else np.uint32
    offsets = jnp.zeros(sizes, dtype)
    for d, (size, stride) in enumerate(zip(sizes, strides, strict=True)):
        if size > 1 and stride:
            offsets = offsets + lax.broadcasted_iota(dtype, sizes, d) * jnp.asarray(stride, dtype)
    return offsets


def _fit(buffer: jax.Array, length: int) -> jax.Array:
    """The first ``length`` elements of a flat buffer, zero-padded if it is shorter."""
    if buffer.shape[0] >= length:
        return lax.slice(buffer, (0,), (length,))
    return lax.pad(buffer, jnp.zeros((), buffer.dtype), ((0, length - buffer.shape[0], 0),))


def from_strided_buffer(buffer: Any, desc: TensorDesc) -> jax.Array:
    """The logical tensor that ``desc`` describes inside a flat ``buffer``.

    ``out[c] = buffer[sum(c[i] * desc.strides[i])]``; a desc without strides
    reads the packed row-major layout. Broadcast (stride 0), padded and
    permuted layouts lower to slices, reshapes and transposes; only
    overlapping or interleaved views gather. Differentiable: the gradient
    scatters the cotangent back into the buffer (and adds up repeated reads).

    Args:
        buffer: a 1-D array of ``desc``'s dtype, at least ``desc.buffer_element_count`` long.
        desc: the TensorDesc of the logical tensor.

    Raises:
        InvalidArgumentError: the buffer is not 1-D, too short or of another dtype.
        ArgumentTypeError: ``desc`` is not a TensorDesc.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> desc = dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(2, 3), strides=(5, 1))
    >>> dml.from_strided_buffer(jnp.array([1.0, 2, 3, 0, 0, 4, 5, 6]), desc)
    Array([[1., 2., 3.],
           [4., 5., 6.]], dtype=float32)
    """
    op = "dmljax.from_strided_buffer"
    desc = require_tensor_desc(desc, op=op, field="desc")
    check_buffer_array(buffer, desc, op=op, field="buffer")
    return read_strided(jnp.asarray(buffer), desc)


def read_strided(buffer: jax.Array, desc: TensorDesc) -> jax.Array:
    """:func:`from_strided_buffer` for a buffer already checked (the lowering of inputs)."""
    sizes, strides = desc.sizes, _strides_of(desc)
    layout = nested_layout(sizes, strides)
    if layout is None:
        offsets = _offsets(sizes, strides, buffer.shape[0])
        # Offsets were checked against the buffer's length: CLIP is a bare gather.
        return buffer.at[offsets].get(mode="clip")
    dense = _fit(buffer, layout.element_count).reshape(layout.padded_shape)
    # Keep the first `size` entries of each padded dimension and entry 0 of the innermost stride.
    limits = (*(sizes[d] for d in layout.order), 1)
    dense = lax.slice(dense, (0,) * len(limits), limits).reshape(limits[:-1])
    # Put the dimensions back in logical order, then add the unit and broadcast ones.
    in_logical_order = sorted(range(len(layout.order)), key=lambda i: layout.order[i])
    dense = lax.transpose(dense, tuple(in_logical_order))
    kept = tuple(sorted(layout.order))
    return lax.broadcast_in_dim(dense, sizes, kept)


@functools.lru_cache(maxsize=256)
@functools.lru_cache(maxsize=256)
def _overlap(sizes: tuple[int, ...], strides: tuple[int, ...]) -> tuple[str, str] | None:
    """Why a non-nested layout is refused (what was expected, what was given), or None.

    Decided once per layout (cached). Two dimensions of sizes ``n0, n1`` and
    strides ``s0, s1`` overlap exactly when a step of ``s1 / g`` along the first
    and ``s0 / g`` back along the second (``g = gcd(s0, s1)``, the smallest steps
    that cancel) both fit, so that case costs nothing; more dimensions are
    enumerated up to :data:`_MAX_ENUMERATED_ELEMENTS` offsets and refused beyond.
    """
    given = f"{strides} with sizes {sizes}"
    dims = [(n, st) for n, st in zip(sizes, strides, strict=True) if n > 1]
    if len(dims) == 2 and all(st > 0 for _, st in dims):
        (n0, s0), (n1, s1) = dims
        g = math.gcd(s0, s1)
        if s1 // g < n0 and s0 // g < n1:
            return (
                "strides that put every output element at its own offset (overlapping "
                "outputs have no defined value)",
                f"{given}, which write elements {s1 // g} apart along one dimension and "
                f"{s0 // g} along the other to one offset",
            )
        return None
    if math.prod(sizes) > _MAX_ENUMERATED_ELEMENTS:
        return (
            "a layout whose dimensions nest by stride (each stride a multiple of the next "
            "and at least its extent), two interleaved dimensions, or one small enough to "
            f"be checked for overlaps (at most {_MAX_ENUMERATED_ELEMENTS} elements)",
            given,
        )
    offsets = np.zeros((1,), np.int64)
    for size, stride in zip(sizes, strides, strict=True):
        offsets = (offsets[:, None] + np.arange(size, dtype=np.int64) * stride).reshape(-1)
    repeated = offsets.size - np.unique(offsets).size
    if repeated:
        return (
            "strides that put every output element at its own offset (overlapping outputs "
            "have no defined value)",
            f"{given}, which write {repeated} elements twice",
        )
    return None


def require_non_overlapping(desc: TensorDesc, *, op: str, field: str) -> None:
    """An output desc must address each buffer element at most once.

    Nested layouts overlap only through a broadcast (stride 0) dimension;
    other layouts are checked by enumerating their offsets when that is
    affordable, and refused when it is not.
    """
    if desc.strides is None:
        return
    layout = nested_layout(desc.sizes, desc.strides)
    if layout is not None:
        if layout.broadcast:
            d = layout.broadcast[0]
            raise InvalidArgumentError(
                op,
                f"{field}.strides[{d}]",
                "non-zero for a dimension of size > 1 in an output (a stride of 0 writes "
                "every element of that dimension to one place)",
                0,
            )
        return
    problem = _overlap(desc.sizes, desc.strides)
    if problem is not None:
        expected, given = problem
        raise InvalidArgumentError(op, f"{field}.strides", expected, given)


def check_buffer_array(buffer: Any, desc: TensorDesc, *, op: str, field: str) -> None:
    """A buffer bound to a strided ``desc`` is 1-D, of its dtype, and long enough."""
    shape = getattr(buffer, "shape", None)
    dtype = getattr(buffer, "dtype", None)
    if shape is None or dtype is None:
        raise ArgumentTypeError(
            op, field, "a 1-D array (jax.Array or numpy.ndarray)", type(buffer).__name__
        )
    needed = desc.buffer_element_count
    what = (
        f"a 1-D buffer of at least {needed} {desc.dtype.name} elements "
        f"(total_tensor_size_in_bytes = {desc.total_tensor_size_in_bytes}, strides {desc.strides})"
    )
    if len(shape) != 1 or shape[0] < needed:
        raise InvalidArgumentError(op, field, what, f"an array of shape {tuple(shape)}")
    if np.dtype(dtype) != desc.dtype:
        raise InvalidArgumentError(
            op, field, what, f"an array of dtype {np.dtype(dtype).name}",
            hint=f"Convert it with .astype({desc.dtype.name!r}) if that is what you mean.",
        )  # fmt: skip


def to_strided_buffer(x: Any, desc: TensorDesc, *, out_buffer: Any | None = None) -> jax.Array:
    """Writes the logical tensor ``x`` into a flat buffer laid out as ``desc`` says.

    The result has ``desc.buffer_element_count`` elements (or the length of
    ``out_buffer``), with ``x[c]`` at ``sum(c[i] * desc.strides[i])``;
    elements no coordinate addresses are zero, or kept from ``out_buffer``.
    ``desc`` must not overlap (no stride 0 on a dimension of size > 1). The
    inverse of :func:`from_strided_buffer`, and how a test or a port builds
    the buffer that a strided input desc reads.

    Args:
        x: an array of ``desc.sizes`` and ``desc``'s dtype.
        desc: the layout to write; without strides, the packed row-major one.
        out_buffer: an existing 1-D buffer to write into, at least
            ``desc.buffer_element_count`` long.

    Returns:
        The flat buffer.

    Raises:
        InvalidArgumentError: ``x`` or ``out_buffer`` does not fit ``desc``,
            or ``desc`` overlaps.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> nhwc = dml.TensorDesc(data_type=dml.DataType.INT32, sizes=(1, 2, 1, 3),
    ...                       strides=(6, 1, 6, 2))  # NCHW sizes, channels last in memory
    >>> dml.to_strided_buffer(jnp.array([[[[1, 2, 3]], [[4, 5, 6]]]]), nhwc)
    Array([1, 4, 2, 5, 3, 6], dtype=int32)
    """
    op = "dmljax.to_strided_buffer"
    desc = require_tensor_desc(desc, op=op, field="desc")
    check_bound_array(x, desc, op=op, field="x")
    require_non_overlapping(desc, op=op, field="desc")
    if out_buffer is not None:
        check_buffer_array(out_buffer, desc, op=op, field="out_buffer")
        out_buffer = jnp.asarray(out_buffer)  # a NumPy buffer has no .at to write through
    return write_strided(jnp.asarray(x), desc, out_buffer)


def write_strided(x: jax.Array, desc: TensorDesc, out_buffer: jax.Array | None) -> jax.Array:
    """:func:`to_strided_buffer` for arguments already checked (the lowering of outputs)."""
    sizes, strides = desc.sizes, _strides_of(desc)
    length = desc.buffer_element_count if out_buffer is None else out_buffer.shape[0]
    layout = nested_layout(sizes, strides)
    if layout is None:
        # Interleaved, but checked free of overlaps: every offset is written once.
        base = jnp.zeros((length,), x.dtype) if out_buffer is None else out_buffer
        offsets = _offsets(sizes, strides, length)
        return base.at[offsets].set(x, mode="drop", unique_indices=True)
    return _embed(_squeeze_to(x, layout.order), layout, length, out_buffer)


def _squeeze_to(x: jax.Array, order: tuple[int, ...]) -> jax.Array:
    """``x`` with its size-1 dimensions dropped and the others in ``order``."""
    kept = sorted(order)
    squeezed = x.reshape(tuple(x.shape[d] for d in kept))
    position = {d: i for i, d in enumerate(kept)}
    return lax.transpose(squeezed, tuple(position[d] for d in order))


def _embed(
    dense: jax.Array, layout: NestedLayout, length: int, out_buffer: jax.Array | None
) -> jax.Array:
    """``dense`` (dimensions in stride order) padded into ``layout``, as a buffer of ``length``."""
    padded = dense.reshape((*dense.shape, 1))
    widths = [
        (0, full - have, 0) for have, full in zip(padded.shape, layout.padded_shape, strict=True)
    ]
    flat = lax.pad(padded, jnp.zeros((), dense.dtype), widths).reshape(-1)
    if out_buffer is None:
        return _fit(flat, length)
    # Keep what the layout does not address: its padding and whatever lies past its end.
    written = lax.pad(jnp.ones(padded.shape, jnp.bool_), jnp.array(False), widths).reshape(-1)
    return jnp.where(_fit(written, length), _fit(flat, length), out_buffer)
