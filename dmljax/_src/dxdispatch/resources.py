"""DxDispatch's buffer resources: a byte buffer each, its initial values read as
DxDispatch's parser reads them."""

from __future__ import annotations

import dataclasses
import math
import pathlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from dmljax._src.dtypes import DataType
from dmljax._src.dxdispatch.images import IMAGE_SUFFIXES, read_image
from dmljax._src.dxdispatch.json_model import (
    json_uint,
    model_error,
    parse_data_type,
    require_fits,
)

__all__ = ["Resource", "parse_resource"]


@dataclasses.dataclass
class Resource:
    """A buffer: its bytes, and the data type and byte count of its initial values, which
    ``print`` shows (a mixed array of typed values has no data type)."""

    data_type: DataType | None
    initial_bytes: int
    data: bytearray

    @property
    def value_count(self) -> int:
        """How many values of ``data_type`` the initial values hold."""
        return 0 if self.data_type is None else self.initial_bytes // self.data_type.dtype.itemsize

    def values(self) -> np.ndarray:
        """The first ``value_count`` elements of the buffer, as ``data_type``."""
        if self.data_type is None:
            raise model_error(
                "resource",
                "a resource with an initialValuesDataType (DxDispatch "
                "prints and writes typed buffers)",
                "a mixed array",
            )
        count = self.value_count * self.data_type.dtype.itemsize
        return np.frombuffer(bytes(self.data[:count]), self.data_type.dtype)


_FLOAT_WORDS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _element(value: Any, data_type: DataType, where: str) -> Any:
    """One JSON value as DxDispatch's parser reads it for ``data_type``: a float from a
    number or "NaN"/"Inf"/"-Inf" (FLOAT16 through float32, as it does), an integer only
    from an integer in range."""
    dtype = data_type.dtype
    if data_type.bit_width < 8:
        raise model_error(where, "a data type of whole bytes", data_type.name)
    if dtype.kind == "f":
        if isinstance(value, str) and value.lower() in _FLOAT_WORDS:
            number = _FLOAT_WORDS[value.lower()]
        elif isinstance(value, int | float) and not isinstance(value, bool):
            try:
                number = float(value)
            except OverflowError:
                given = f"an integer of {len(str(value))} digits"
                raise model_error(where, "a number in float64's range", given) from None
        else:
            raise model_error(where, "a number or 'NaN', 'Inf', or '-Inf'", repr(value))
        with np.errstate(over="ignore"):  # past the type's range is infinity, as in C++
            if data_type is DataType.FLOAT16:
                return np.float16(np.float32(number))
            return dtype.type(number)
    if isinstance(value, bool) or not isinstance(value, int):
        raise model_error(where, f"an integer (the values are {data_type.name})", repr(value))
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise model_error(
            where, f"an integer in [{info.min}, {info.max}] ({data_type.name})", value
        )
    return dtype.type(value)


def _typed_array(values: list[Any], data_type: DataType, where: str) -> np.ndarray:
    """A JSON array of ``data_type`` values, as :func:`_element` reads each, converted by
    NumPy in one pass (a 100 MB array of numbers is 10**7 values: one Python call each
    took half a minute). Anything the one pass cannot take (a bool, a value out of range,
    a string other than a float word) is read value by value, for the error naming it."""
    dtype = data_type.dtype
    kinds = set(map(type, values))
    array = None
    if data_type.bit_width >= 8 and dtype.kind == "f" and kinds <= {int, float, str}:
        numeric = values
        if str in kinds:  # NumPy would also read "1.5": only the float words are taken
            words = _FLOAT_WORDS
            numeric = [words.get(v.lower(), v) if type(v) is str else v for v in values]
        try:
            if str in kinds and str in set(map(type, numeric)):
                raise ValueError("a string that is no float word")
            numbers = np.array(numeric, np.float64)
        except (OverflowError, ValueError):
            pass  # read value by value below, for the error naming it
        else:
            # FLOAT16 through float32, as DxDispatch's parser converts it.
            with np.errstate(over="ignore"):
                narrow = numbers.astype(np.float32) if dtype.itemsize < 4 else numbers
                array = narrow.astype(dtype)
    elif data_type.bit_width >= 8 and dtype.kind in "iu" and kinds <= {int}:
        info = np.iinfo(dtype)
        try:
            wide = np.array(values, np.uint64 if info.max > 2**63 else np.int64)
        except OverflowError:
            pass
        else:
            if wide.size == 0 or (wide.min() >= info.min and wide.max() <= info.max):
                array = wide.astype(dtype)
    if array is not None:
        return array
    return np.array([_element(v, data_type, f"{where}[{i}]") for i, v in enumerate(values)], dtype)


def _count(spec: Mapping[str, Any], where: str, data_type: DataType) -> int:
    count = json_uint(spec.get("valueCount"), f"{where}.valueCount", 32)
    require_fits(count * data_type.dtype.itemsize, f"{where}.valueCount", f"{count} values")
    return count


def _initial_values(
    spec: Any,
    data_type: DataType | None,
    where: str,
    folder: pathlib.Path,
    resource: Mapping[str, Any],
) -> tuple[bytes, DataType | None]:
    """The initial values' bytes and their data type, from each of DxDispatch's
    initializers: an array (typed, or of ``{"type", "value"}`` objects without a data
    type), a constant, a sequence (each value the previous plus the delta, in the data
    type, as DxDispatch adds them), or a file (``.npy`` typed by its header, any other
    file its raw bytes, a ``.jpg`` or ``.png`` the image at the resource's
    ``resampleSize``)."""
    at = f"{where}.initialValues"

    def typed() -> DataType:
        if data_type is None:
            raise model_error(
                f"{where}.initialValuesDataType",
                "a DML_TENSOR_DATA_TYPE (these initial values need one)",
                "nothing",
            )
        return data_type

    if isinstance(spec, list):
        if data_type is None:  # a mixed array: [{"type": "UINT32", "value": 42}, ...]
            parts = []
            for i, item in enumerate(spec):
                if not isinstance(item, Mapping):
                    raise model_error(f"{at}[{i}]", 'an object {"type": ..., "value": ...}', item)
                kind = parse_data_type(item.get("type"), f"{at}[{i}].type")
                parts.append(_element(item.get("value"), kind, f"{at}[{i}].value").tobytes())
            return b"".join(parts), None
        return _typed_array(spec, data_type, at).tobytes(), data_type
    if not isinstance(spec, Mapping):
        raise model_error(at, "an array, an object or deferred", repr(spec)[:80])
    if "value" in spec:
        if "valueStart" in spec or "sourcePath" in spec:
            raise model_error(
                at,
                "one of value, valueStart and sourcePath (they are mutually exclusive)",
                sorted(spec),
            )
        kind = typed()
        value = _element(spec["value"], kind, f"{at}.value")
        return np.full(_count(spec, at, kind), value, kind.dtype).tobytes(), kind
    if "valueStart" in spec:
        kind = typed()
        start = _element(spec["valueStart"], kind, f"{at}.valueStart")
        delta = _element(spec.get("valueDelta", 0), kind, f"{at}.valueDelta")
        steps = np.full(_count(spec, at, kind), delta, kind.dtype)
        if steps.size:
            steps[0] = start
        with np.errstate(over="ignore"):  # integers wrap, as C++'s += does
            return np.add.accumulate(steps, dtype=kind.dtype).tobytes(), kind
    if "sourcePath" in spec:
        source = str(spec["sourcePath"])
        return _file_values(source, data_type, f"{at}.sourcePath", folder, resource)
    raise model_error(at, "value, valueStart or sourcePath", sorted(spec))


def _file_values(
    source: str,
    data_type: DataType | None,
    where: str,
    folder: pathlib.Path,
    resource: Mapping[str, Any],
) -> tuple[bytes, DataType | None]:
    path = folder / source
    if not path.exists():  # DxDispatch tries the model's folder, then the working one
        path = pathlib.Path(source)
    suffix = path.suffix.lower()
    if not path.is_file():  # a device (/dev/zero), a folder or a pipe has no end to read
        raise model_error(where, "a regular file", source)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise model_error(where, "a readable file", f"{source} ({error})") from None
    require_fits(size, where, source)
    if suffix in IMAGE_SUFFIXES:
        return read_image(path, data_type, resource, where), data_type
    try:
        if suffix != ".npy":
            if data_type is None:
                field = where.replace("initialValues.sourcePath", "initialValuesDataType")
                raise model_error(field, "a DML_TENSOR_DATA_TYPE (raw data needs one)", "nothing")
            return path.read_bytes(), data_type
        # Mapped, not read: a header that claims more elements than the file holds is
        # refused by the mapping instead of allocating what it claims.
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, MemoryError) as error:
        raise model_error(where, "a readable file", f"{source} ({error})") from None
    kind = DataType.from_dtype(array.dtype)
    if data_type is not None and kind is not data_type:
        raise model_error(where, f"a file of {data_type.name} (initialValuesDataType)", kind.name)
    return np.ascontiguousarray(array, array.dtype.newbyteorder("<")).tobytes(), kind


def parse_resource(spec: Any, where: str, folder: pathlib.Path) -> Resource:
    """One resource's buffer, its sizes checked against the devices' memory first; an
    allocation the process cannot make (an address-space limit) is refused as well."""
    try:
        return _parse_resource(spec, where, folder)
    except MemoryError:
        raise model_error(where, "a resource this process can allocate", "too large") from None


def _parse_resource(spec: Any, where: str, folder: pathlib.Path) -> Resource:
    if not isinstance(spec, Mapping) or "initialValues" not in spec:
        raise model_error(where, "a buffer resource with initialValues", repr(spec)[:80])
    if spec["initialValues"] == "deferred":
        raise model_error(
            f"{where}.initialValues", "values (deferred ones are for ONNX models)", "deferred"
        )
    data_type = None
    if "initialValuesDataType" in spec:
        data_type = parse_data_type(spec["initialValuesDataType"], f"{where}.initialValuesDataType")
    raw, data_type = _initial_values(spec["initialValues"], data_type, where, folder, spec)
    if not raw:
        raise model_error(f"{where}.initialValues", "at least one value", "none")
    offset = json_uint(
        spec.get("initialValuesOffsetInBytes", 0), f"{where}.initialValuesOffsetInBytes"
    )
    # DxDispatch: the initial values' size rounded up to 4 bytes, the offset not counted.
    size = json_uint(spec.get("sizeInBytes", (len(raw) + 3) & ~3), f"{where}.sizeInBytes")
    require_fits(size, f"{where}.sizeInBytes", f"{size} bytes")
    if size < offset + len(raw):
        raise model_error(
            f"{where}.sizeInBytes",
            f"at least {offset + len(raw)} (the initial "
            f"values' {len(raw)} bytes at offset {offset})",
            size,
        )
    data = bytearray(size)
    data[offset : offset + len(raw)] = raw
    return Resource(data_type, len(raw), data)
