"""DirectML rules that several operators share, each written once.

Every helper raises :class:`~dmljax.errors.InvalidArgumentError` (or
:class:`~dmljax.errors.ArgumentTypeError`) naming the op and the field.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from dmljax._src.arguments import normalize_axis
from dmljax._src.dtypes import require_x64_for_axis
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "MAX_XLA_BYTES",
    "check_bound_array",
    "guard_batched_size",
    "is_static_shape",
    "require_array_axis",
    "require_axis",
    "require_c_int",
    "require_c_int32",
    "require_fits_xla",
    "require_gatherable_axis",
    "require_one_per_sequence",
    "require_same_data_type",
    "require_same_dimension_count",
    "require_sizes",
    "require_tensor_desc",
    "right_align",
]


def require_tensor_desc(value: Any, *, op: str, field: str) -> TensorDesc:
    """``value`` if it is a TensorDesc; an ArgumentTypeError otherwise."""
    if not isinstance(value, TensorDesc):
        raise ArgumentTypeError(op, field, "a dmljax.TensorDesc", type(value).__name__)
    return value


def require_axis(axis: int, tensor: TensorDesc, *, op: str, of: str) -> None:
    """A desc's ``axis`` is in ``[0, DimensionCount)`` of tensor field ``of``, and indices
    into that axis fit int32 unless x64 is on."""
    rank = tensor.dimension_count
    if not 0 <= axis < rank:
        raise InvalidArgumentError(op, "axis", f"in [0, {rank}) ({of} has {rank} dimensions)", axis)
    require_x64_for_axis(tensor.sizes[axis], op=op, field=f"{of}.sizes[{axis}]")


def require_array_axis(axis: int, x: Any, *, op: str) -> int:
    """A functional face's ``axis`` of array ``x`` in ``[-ndim, ndim)``, as a value in
    ``[0, ndim)``; indices into that axis fit int32 unless x64 is on."""
    axis = normalize_axis(axis, x.ndim, op=op)
    require_x64_for_axis(x.shape[axis], op=op, field="x.shape[axis]")
    return axis


def require_gatherable_axis(x: Any, indices: Any, axis: int, *, op: str) -> None:
    """Non-empty indices need something to read along ``axis``."""
    if x.shape[axis] == 0 and indices.size:
        raise InvalidArgumentError(
            op,
            "x.shape[axis]",
            "non-zero when indices is not empty (there is nothing to gather)",
            f"0 (x has shape {tuple(x.shape)}, axis={axis})",
        )


def require_same_data_type(op: str, tensors: Sequence[tuple[str, TensorDesc]]) -> None:
    """Every tensor of ``tensors`` (labelled as errors name them) has the data type of the
    first one (DirectML's tensor constraints)."""
    like_field, like = tensors[0]
    for field, tensor in tensors[1:]:
        if tensor.data_type is not like.data_type:
            raise InvalidArgumentError(
                op,
                f"{field}.data_type",
                f"{like.data_type} (the data type of {like_field})",
                str(tensor.data_type),
            )


def require_same_dimension_count(op: str, tensors: Sequence[tuple[str, TensorDesc]]) -> None:
    """Every tensor of ``tensors`` (labelled as errors name them) has the DimensionCount of
    the first one (none bound: nothing to compare; the operator's rules say whether
    that is allowed)."""
    if not tensors:
        return
    first_field, first = tensors[0]
    for field, tensor in tensors[1:]:
        if tensor.dimension_count != first.dimension_count:
            raise InvalidArgumentError(
                op,
                f"{field}.sizes",
                f"{first.dimension_count} dimensions long, like {first_field} "
                "(the tensors' DimensionCount must be equal)",
                f"{tensor.dimension_count} dimensions {tensor.sizes}",
            )


def require_sizes(
    op: str, field: str, tensor: TensorDesc, expected: tuple[int, ...], why: str
) -> None:
    """``tensor.sizes`` must equal ``expected``, the sizes the operator computes."""
    if tensor.sizes != expected:
        raise InvalidArgumentError(op, f"{field}.sizes", f"{expected} ({why})", tensor.sizes)


def require_one_per_sequence(desc: Any, field: str, like_field: str, *, op: str) -> None:
    """``desc.axis`` is an axis of tensor ``like_field``, and tensor ``field`` has its sizes
    with 1 at that axis: one value per sequence along it (ONE_HOT's indices,
    REVERSE_SUBSEQUENCES' lengths)."""
    like, tensor = getattr(desc, like_field), getattr(desc, field)
    require_axis(desc.axis, like, op=op, of=like_field)
    expected = tuple(1 if i == desc.axis else size for i, size in enumerate(like.sizes))
    if tensor.sizes != expected:
        raise InvalidArgumentError(
            op,
            f"{field}.sizes",
            f"{expected} ({like_field}.sizes with 1 at axis {desc.axis})",
            tensor.sizes,
        )


# XLA counts an array's bytes in an int64; a larger shape aborts the whole process.
MAX_XLA_BYTES = 2**63 - 1


@functools.cache
def _memory_of(backend: str) -> int | None:
    devices = jax.devices(backend)
    stats = devices[0].memory_stats() or {}
    if "bytes_limit" in stats:
        return int(stats["bytes_limit"]) * len(devices)
    if backend == "cpu" and hasattr(os, "sysconf"):
        try:  # every CPU device shares the host's memory
            return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError):
            return None
    return None


def device_memory() -> int | None:
    """Bytes that all devices of the default backend hold together (the host's memory for
    the CPU), or None where the backend does not say.

    No result larger than this can exist, sharded or not: a face refuses it before XLA
    tries to allocate it.
    """
    return _memory_of(jax.default_backend())


def require_fits_memory(nbytes: int, *, op: str, field: str, given: str) -> None:
    memory = device_memory()
    if memory is not None and nbytes > memory:
        raise InvalidArgumentError(
            op,
            field,
            f"small enough that the result fits the memory of the {jax.default_backend()} "
            f"devices ({memory} bytes in all)",
            f"{given} ({nbytes} bytes)",
        )


def require_fits_xla(
    shape: Sequence[int],
    dtype: Any,
    *,
    op: str,
    field: str,
    given: str | None = None,
    inputs: Sequence[Any] = (),
) -> None:
    """A functional face's result of ``shape`` and ``dtype`` has a byte size XLA can count
    (empty dimensions counted as 1, as XLA multiplies them), checked before anything is
    traced with it; ``given`` describes the arguments that made it.

    ``inputs`` are the face's traced arrays: under :func:`jax.vmap` the face sees one
    example, so :func:`guard_batched_size` checks the batched result through them too.
    """
    if not is_static_shape(shape):
        return  # a symbolic dimension (jax.export): its size is known only when called
    itemsize = np.dtype(dtype).itemsize
    extent = itemsize * math.prod(max(n, 1) for n in shape)
    described = f"{given or 'a result of shape ' + str(tuple(shape))}"
    if extent > MAX_XLA_BYTES:
        raise InvalidArgumentError(
            op,
            field,
            f"small enough that the result fits XLA's sizes (at most {MAX_XLA_BYTES} bytes)",
            f"{described} ({extent} bytes)",
        )
    nbytes = itemsize * math.prod(shape)
    require_fits_memory(nbytes, op=op, field=field, given=described)
    guard_batched_size(extent, inputs, op=op, field=field, given=described, nbytes=nbytes)


def is_static_shape(shape: Sequence[Any]) -> bool:
    """Whether every dimension is a known integer (not a :func:`jax.export` symbol).

    >>> is_static_shape((2, 3))
    True
    """
    return all(isinstance(n, (int, np.integer)) for n in shape)


def guard_batched_size(
    extent: int,
    inputs: Sequence[Any],
    *,
    op: str,
    field: str,
    given: str,
    nbytes: int | None = None,
) -> None:
    """Checks, under any number of :func:`jax.vmap` s, that the batched result of a face
    whose one-example result takes ``extent`` bytes still fits XLA's sizes.

    A batched size past 2**63 bytes aborts the process inside XLA, so the check runs
    while vmap batches the face: each input passes through a
    :func:`jax.custom_batching.custom_vmap` identity whose batching rule multiplies
    ``extent`` by the axis size, checks it, and passes the product on to the next
    vmap. The probes are unused, so nothing of it is compiled, and they are cut off
    from differentiation.
    """
    probes = tuple(lax.stop_gradient(jnp.asarray(a)) for a in inputs)
    if probes:
        _size_guard(extent, extent if nbytes is None else nbytes, op, field, given)(*probes)


def _size_guard(extent: int, nbytes: int, op: str, field: str, given: str) -> Any:
    @jax.custom_batching.custom_vmap
    def guard(*probes: jax.Array) -> tuple[jax.Array, ...]:
        return probes

    @guard.def_vmap
    def _batched(
        axis_size: int, in_batched: Sequence[bool], *probes: jax.Array
    ) -> tuple[tuple[jax.Array, ...], tuple[bool, ...]]:
        if not is_static_shape((axis_size,)):
            # A jax.export symbol: no size to check before the program runs.
            return probes, tuple(in_batched)
        total = extent * axis_size
        if total > MAX_XLA_BYTES:
            raise InvalidArgumentError(
                op,
                field,
                f"small enough that the batched result fits XLA's sizes (at most "
                f"{MAX_XLA_BYTES} bytes under jax.vmap)",
                f"{given}, batched {axis_size} times ({total} bytes)",
            )
        batched = f"{given}, batched {axis_size} times"
        require_fits_memory(nbytes * axis_size, op=op, field=field, given=batched)
        return _size_guard(total, nbytes * axis_size, op, field, given)(*probes), tuple(in_batched)

    return guard


def require_c_int32(values: tuple[int, ...], *, signed: bool, op: str, field: str) -> None:
    """Each value fits its DirectML field's C type: ``INT`` if ``signed``, ``UINT`` otherwise.

    Needed only where no other rule bounds a field (a stride of 2**40 reads one
    element of any input, but no DML desc can hold it).
    """
    for i, value in enumerate(values):
        require_c_int(value, signed=signed, op=op, field=f"{field}[{i}]")


def require_c_int(value: int, *, signed: bool, op: str, field: str) -> None:
    """``value`` fits its DirectML field's C type: ``INT`` if ``signed``, ``UINT`` otherwise."""
    low, high = (-(2**31), 2**31 - 1) if signed else (0, 2**32 - 1)
    if not low <= value <= high:
        c_type = "an INT" if signed else "a UINT"
        raise InvalidArgumentError(op, field, f"in [{low}, {high}] ({c_type} in DirectML)", value)


def right_align(sizes: tuple[int, ...], dimension_count: int) -> tuple[int, ...] | None:
    """Sizes right-aligned to ``dimension_count`` dimensions, DirectML's way.

    Shorter sizes get leading 1s; longer ones lose leading entries, which must
    all be 1. Returns None when a dropped entry is not 1.

    >>> right_align((3, 2), 4), right_align((1, 1, 3, 2), 2), right_align((3, 1, 2), 2)
    ((1, 1, 3, 2), (3, 2), None)
    """
    extra = len(sizes) - dimension_count
    if extra <= 0:
        return (1,) * -extra + sizes
    if any(size != 1 for size in sizes[:extra]):
        return None
    return sizes[extra:]


def check_bound_array(x: Any, tensor: TensorDesc, *, op: str, field: str) -> None:
    """An array bound to ``tensor`` must have its sizes and data type exactly."""
    shape = getattr(x, "shape", None)
    dtype = getattr(x, "dtype", None)
    if shape is None or dtype is None:
        raise ArgumentTypeError(
            op, f"the {field} argument", "an array (jax.Array or numpy.ndarray)", type(x).__name__
        )
    if tuple(shape) != tensor.sizes:
        raise InvalidArgumentError(
            op, f"the {field} argument", f"of shape {tensor.sizes} ({field}.sizes)", tuple(shape)
        )
    if np.dtype(dtype) != tensor.dtype:
        raise InvalidArgumentError(
            op,
            f"the {field} argument",
            f"of dtype {tensor.dtype} ({field}.data_type {tensor.data_type})",
            np.dtype(dtype).name,
            hint=f"Convert it with .astype({tensor.dtype.name!r}) if that is what you mean.",
        )


def is_weak(x: Any) -> bool:
    """Whether array ``x`` came from a Python scalar (JAX's weak type), traced or not: a
    face lets it take the dtype of the arrays beside it, as jax.numpy does.

    >>> is_weak(jnp.asarray(1.0)), is_weak(jnp.float32(1.0))
    (True, False)
    """
    return bool(getattr(getattr(x, "aval", None), "weak_type", False))


def check_axes(axes: Sequence[int], rank: int, *, op: str, at_least_one: bool = False) -> None:
    """DirectML's ``Axes`` rule: each of ``axes`` in ``[0, rank)``, none twice; and, for a
    reduction over groups (``at_least_one``: REDUCE, ARGMIN, ARGMAX), ``AxisCount >= 1``.

    >>> check_axes((2, 0), 3, op="op")
    """
    for i, axis in enumerate(axes):
        if not 0 <= axis < rank:
            raise InvalidArgumentError(
                op, f"axes[{i}]", f"in [0, {rank}) (input_tensor has {rank} dimensions)", axis
            )
        if axis in axes[:i]:
            raise InvalidArgumentError(op, f"axes[{i}]", "an axis not named before", axis)
    if at_least_one and not axes:
        raise InvalidArgumentError(op, "axes", "at least one axis (AxisCount >= 1)", axes)


def face_axes(
    axes: int | Sequence[int], ndim: int, *, op: str, at_least_one: bool = False
) -> tuple[int, ...]:
    """A face's ``axes`` (one int or a sequence, negative ones counted from the end) as
    non-negative axes, each once, at least one with ``at_least_one`` (:func:`check_axes`).

    >>> face_axes(-1, 3, op="op"), face_axes((0, -1), 3, op="op")
    ((2,), (0, 2))
    """
    if isinstance(axes, int):
        return (normalize_axis(axes, ndim, op=op, field="axes"),)
    normalized = tuple(
        normalize_axis(axis, ndim, op=op, field=f"axes[{i}]") for i, axis in enumerate(axes)
    )
    check_axes(normalized, ndim, op=op, at_least_one=at_least_one)
    return normalized


def require_countable_group(
    sizes: Sequence[int], axes: Sequence[int], *, op: str, of: str = "input_tensor.sizes"
) -> None:
    """A group over ``axes`` of a tensor of ``sizes`` (``of`` names them) whose elements an
    index counts (a search's result, an exact sum's positions): at most int32's count
    while ``jax_enable_x64`` is off (:func:`~dmljax._src.dtypes.require_x64_for_axis`).

    >>> require_countable_group((2, 3, 4), (0, 2), op="op")
    """
    require_x64_for_axis(group_size(sizes, axes), op=op, field=f"{of} (the elements of one group)")


def reduced_sizes(sizes: Sequence[int], axes: Sequence[int]) -> tuple[int, ...]:
    """A reduction's output sizes (REDUCE, ARGMIN, ARGMAX): ``sizes``, the rank kept, with
    1 along ``axes``.

    >>> reduced_sizes((2, 3, 4), (0, 2))
    (1, 3, 1)
    """
    return tuple(1 if i in axes else n for i, n in enumerate(sizes))


def reduced_output_sizes(desc: Any) -> tuple[tuple[int, ...], str]:
    """:func:`reduced_sizes` of ``desc.input_tensor`` over ``desc.axes``, and why: the
    ``output_sizes`` of an operator that reduces over its ``Axes``."""
    return reduced_sizes(desc.input_tensor.sizes, desc.axes), "input_tensor.sizes with 1 along axes"


def group_size(sizes: Sequence[int], axes: Sequence[int]) -> int:
    """The elements of one group over ``axes``: the product of their sizes.

    >>> group_size((2, 3, 4), (0, 2))
    8
    """
    return math.prod(sizes[axis] for axis in axes)


def require_operand(x: Any, allowed: Any, *, op: str, operator: str, runs: str) -> None:
    """A face's ``x`` of at least 1 dimension (``runs`` says why: "a tally runs along an
    axis") and of one of the ``allowed`` dtypes, those of ``operator``
    (``"DML_OPERATOR_ARGMAX"``) and the family's; an InvalidArgumentError otherwise.

    >>> try:
    ...     require_operand(jnp.float32(1), {np.dtype(np.float32)}, op="f",
    ...                     operator="DML_OPERATOR_ARGMAX", runs="a search runs over axes")
    ... except InvalidArgumentError as error:
    ...     print(error.expected)
    an array of at least 1 dimension (a search runs over axes)
    """
    if x.ndim == 0:
        raise InvalidArgumentError(
            op, "x", f"an array of at least 1 dimension ({runs})", "a 0-D array"
        )
    require_array_dtype(
        x, allowed, op=op, field="x", why=f"{operator}'s types",
        hint="Convert it first, e.g. x.astype(jnp.int32).",
    )  # fmt: skip


def require_array_dtype(
    x: Any, allowed: Any, *, op: str, field: str, why: str, hint: str | None = None
) -> None:
    """A face's array ``x`` has one of the ``allowed`` dtypes (``why`` says whose they are:
    ``"DML_OPERATOR_ELEMENT_WISE_ADD's types"``); an InvalidArgumentError otherwise.

    >>> try:
    ...     require_array_dtype(jnp.ones(2, jnp.int8), {np.dtype(np.float32)}, op="f",
    ...                         field="x", why="its types")
    ... except InvalidArgumentError as error:
    ...     print(error.expected)
    an array of one of float32 (its types)
    """
    if np.dtype(x.dtype) not in allowed:
        expected = ", ".join(sorted(np.dtype(t).name for t in allowed))
        raise InvalidArgumentError(
            op,
            field,
            f"an array of one of {expected} ({why})",
            f"an array of {np.dtype(x.dtype).name}",
            hint=hint,
        )
