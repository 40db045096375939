"""``TensorDesc``: DirectML's ``DML_BUFFER_TENSOR_DESC`` as a frozen dataclass."""

from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any

import numpy as np

from dmljax._src.arguments import static_int, static_int_tuple
from dmljax._src.dtypes import DataType
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "MAX_DIMENSION_COUNT",
    "MAX_ELEMENT_COUNT",
    "TensorDesc",
    "TensorFlags",
    "calc_buffer_tensor_size",
]

MAX_DIMENSION_COUNT = 8  # DML_TENSOR_DIMENSION_COUNT_MAX1
MAX_ELEMENT_COUNT = 2**32 - 1  # "A buffer tensor may not exceed 2^32-1 elements."
UINT32_MAX = 2**32 - 1  # Sizes, Strides and GuaranteedBaseOffsetAlignment are UINT
UINT64_MAX = 2**64 - 1  # TotalTensorSizeInBytes is a UINT64
_OP = "TensorDesc"


def spanned_elements(sizes: tuple[int, ...], strides: tuple[int, ...] | None) -> int:
    """Elements from the first to the last addressed one (the packed count without strides)."""
    if strides is None:
        return math.prod(sizes)
    return 1 + sum((size - 1) * stride for size, stride in zip(sizes, strides, strict=True))


def calc_buffer_tensor_size(
    data_type: DataType, sizes: tuple[int, ...], strides: tuple[int, ...] | None = None
) -> int:
    """The minimum buffer size in bytes, exactly as DirectML's ``DMLCalcBufferTensorSize``.

    With strides, the buffer must reach the last addressed element; the size is
    counted in bits (so 4-bit types pack two to a byte) and rounded up to a
    multiple of 4 bytes, as every bound DirectML buffer must be.

    >>> calc_buffer_tensor_size(DataType.FLOAT16, (3,))
    8
    >>> calc_buffer_tensor_size(DataType.FLOAT32, (2, 3), strides=(5, 1))
    32
    """
    size_in_bytes = (spanned_elements(sizes, strides) * data_type.bit_width + 7) // 8
    return (size_in_bytes + 3) & ~3


class TensorFlags(enum.IntFlag):
    """``DML_TENSOR_FLAGS``: options of a tensor desc.

    ``OWNED_BY_DML`` marks an input whose data DirectML copies once, when the operator
    is initialized (weights). It changes no value: dmljax takes such an input as an
    argument like any other. It is valid on input tensors only, and in a graph only on
    inputs fed by graph inputs.

    >>> import dmljax as dml
    >>> dml.TensorFlags.OWNED_BY_DML, dml.TensorFlags(0)
    (<TensorFlags.OWNED_BY_DML: 1>, <TensorFlags.NONE: 0>)
    """

    NONE = 0
    OWNED_BY_DML = 1


def _coerce_flags(value: Any) -> TensorFlags:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ArgumentTypeError(_OP, "flags", "a dmljax.TensorFlags", repr(value))
    if not 0 <= int(value) <= max(TensorFlags):
        raise InvalidArgumentError(
            _OP, "flags", "DML_TENSOR_FLAG_NONE or DML_TENSOR_FLAG_OWNED_BY_DML", int(value)
        )
    return TensorFlags(int(value))


@dataclasses.dataclass(frozen=True, kw_only=True)
class TensorDesc:
    """A ``DML_BUFFER_TENSOR_DESC``: element type, sizes, optional strides.

    Frozen and hashable, so descs built from it can be static arguments of
    :func:`jax.jit`. ``DimensionCount`` is ``len(sizes)``. Without
    ``total_tensor_size_in_bytes`` it is computed as DirectML's
    ``DMLCalcBufferTensorSize`` does; a given value must not be smaller.

    Args:
        data_type: the element type.
        sizes: elements per dimension; 1 to 8 dimensions, each at least 1.
        strides: elements (not bytes) between neighbours of each dimension, or
            ``None`` for the packed row-major layout.
        guaranteed_base_offset_alignment: 0, or a power of two no smaller than
            the element size in bytes.
        total_tensor_size_in_bytes: the size of the bound buffer range.
        flags: :class:`TensorFlags`; ``OWNED_BY_DML`` on inputs only.

    >>> import dmljax as dml
    >>> desc = dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(1, 1, 3, 5))
    >>> desc.total_tensor_size_in_bytes
    60
    >>> broadcast = dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(2, 3), strides=(0, 1))
    >>> broadcast.total_tensor_size_in_bytes
    12
    """

    data_type: DataType
    sizes: tuple[int, ...]
    strides: tuple[int, ...] | None = None
    guaranteed_base_offset_alignment: int = 0
    total_tensor_size_in_bytes: int = None  # type: ignore[assignment]  # computed when omitted
    flags: TensorFlags = TensorFlags.NONE

    def __post_init__(self) -> None:
        data_type = _coerce_data_type(self.data_type)
        sizes = static_int_tuple(self.sizes, op=_OP, field="sizes")
        if not 1 <= len(sizes) <= MAX_DIMENSION_COUNT:
            raise InvalidArgumentError(
                _OP, "sizes", f"1 to {MAX_DIMENSION_COUNT} dimensions long", f"{sizes}"
            )
        for i, size in enumerate(sizes):
            if size > UINT32_MAX:
                raise InvalidArgumentError(
                    _OP, f"sizes[{i}]", f"at most {UINT32_MAX} (sizes are UINT32)", size
                )
            if size < 1:
                raise InvalidArgumentError(
                    _OP,
                    f"sizes[{i}]",
                    "at least 1 (DirectML has no empty tensors)",
                    size,
                    hint="The functional faces (dmljax.tile, ...) accept empty arrays.",
                )
        element_count = math.prod(sizes)
        if element_count > MAX_ELEMENT_COUNT:
            raise InvalidArgumentError(
                _OP, "sizes", f"at most {MAX_ELEMENT_COUNT} elements in all", element_count
            )
        strides = self.strides
        if strides is not None:
            strides = static_int_tuple(strides, op=_OP, field="strides")
            if len(strides) != len(sizes):
                raise InvalidArgumentError(
                    _OP,
                    "strides",
                    f"{len(sizes)} long, like sizes (DimensionCount)",
                    f"{len(strides)} entries {strides}",
                )
            for i, stride in enumerate(strides):
                if not 0 <= stride <= UINT32_MAX:
                    raise InvalidArgumentError(
                        _OP,
                        f"strides[{i}]",
                        f"non-negative and at most {UINT32_MAX} (strides are UINT32)",
                        stride,
                    )
        alignment = static_int(
            self.guaranteed_base_offset_alignment, op=_OP, field="guaranteed_base_offset_alignment"
        )
        element_bytes = max(1, data_type.bit_width // 8)
        if alignment > UINT32_MAX:
            raise InvalidArgumentError(
                _OP,
                "guaranteed_base_offset_alignment",
                f"at most {UINT32_MAX} (GuaranteedBaseOffsetAlignment is a UINT32)",
                alignment,
            )
        if alignment != 0 and (alignment & (alignment - 1) or alignment < element_bytes):
            raise InvalidArgumentError(
                _OP,
                "guaranteed_base_offset_alignment",
                f"0 or a power of 2 of at least {element_bytes} (the element size)",
                alignment,
            )
        minimum = calc_buffer_tensor_size(data_type, sizes, strides)
        total = self.total_tensor_size_in_bytes
        if total is None:
            total = minimum
        else:
            total = static_int(total, op=_OP, field="total_tensor_size_in_bytes")
            most = -(-MAX_ELEMENT_COUNT * data_type.bit_width // 8)
            if total > most:
                # Also bounds what dmljax allocates for a buffer of this size: XLA
                # aborts the process on extents past 2**63, and fails far before.
                within = "a UINT64" if total > UINT64_MAX else "the element limit"
                raise InvalidArgumentError(
                    _OP,
                    "total_tensor_size_in_bytes",
                    f"at most {most} (a buffer tensor holds at most {MAX_ELEMENT_COUNT} "
                    f"elements of {data_type.name})",
                    f"{total}, beyond {within}",
                )
            if total < minimum:
                raise InvalidArgumentError(
                    _OP,
                    "total_tensor_size_in_bytes",
                    f"at least {minimum} (DMLCalcBufferTensorSize of these sizes and strides)",
                    total,
                )
        if spanned_elements(sizes, strides) > MAX_ELEMENT_COUNT:
            raise InvalidArgumentError(
                _OP,
                "strides",
                f"such that the buffer spans at most {MAX_ELEMENT_COUNT} elements",
                strides,
            )
        object.__setattr__(self, "data_type", data_type)
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "strides", strides)
        object.__setattr__(self, "guaranteed_base_offset_alignment", alignment)
        object.__setattr__(self, "total_tensor_size_in_bytes", total)
        object.__setattr__(self, "flags", _coerce_flags(self.flags))

    @classmethod
    def from_array(cls, x: Any) -> TensorDesc:
        """The packed desc of an array (or anything with ``shape`` and ``dtype``).

        >>> import numpy as np, dmljax as dml
        >>> desc = dml.TensorDesc.from_array(np.zeros((2, 3), np.int8))
        >>> desc.data_type, desc.sizes, desc.total_tensor_size_in_bytes
        (<DataType.INT8: 8>, (2, 3), 8)
        """
        if not hasattr(x, "shape") or not hasattr(x, "dtype"):
            raise ArgumentTypeError(_OP, "x", "an array with shape and dtype", type(x).__name__)
        return cls(data_type=DataType.from_dtype(x.dtype), sizes=tuple(x.shape))

    @property
    def dtype(self) -> np.dtype[Any]:
        """The NumPy dtype of the elements."""
        return self.data_type.dtype

    @property
    def dimension_count(self) -> int:
        """The number of dimensions (DirectML's ``DimensionCount``)."""
        return len(self.sizes)

    @property
    def element_count(self) -> int:
        """The number of elements of the logical tensor."""
        return math.prod(self.sizes)

    @property
    def bound_element_count(self) -> int:
        """The elements of an array bound to this desc: the buffer's for a strided desc
        (bound as a flat buffer), the tensor's otherwise.

        >>> import dmljax as dml
        >>> dml.TensorDesc(data_type=dml.DataType.UINT8, sizes=(2, 3)).bound_element_count
        6
        """
        return self.element_count if self.strides is None else self.buffer_element_count

    @property
    def buffer_element_count(self) -> int:
        """The length, in elements, of the smallest buffer a strided desc binds
        (``total_tensor_size_in_bytes`` rounded up to whole elements).

        >>> import dmljax as dml
        >>> dml.TensorDesc(data_type=dml.DataType.FLOAT16, sizes=(3,)).buffer_element_count
        4
        """
        return -(-self.total_tensor_size_in_bytes * 8 // self.data_type.bit_width)

    def packed_strides(self) -> tuple[int, ...]:
        """The strides of the packed row-major layout of ``sizes`` (the last dimension is 1).

        >>> import dmljax as dml
        >>> dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(2, 3, 4)).packed_strides()
        (12, 4, 1)
        """
        return tuple(math.prod(self.sizes[d + 1 :]) for d in range(len(self.sizes)))


def _coerce_data_type(value: Any) -> DataType:
    data_type = DataType.coerce(value, op=_OP, field="data_type")
    if data_type is DataType.UNKNOWN:
        raise InvalidArgumentError(_OP, "data_type", "a concrete type (never UNKNOWN)", "UNKNOWN")
    return data_type
