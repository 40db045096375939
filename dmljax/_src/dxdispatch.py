"""DxDispatch's JSON models run by dmljax: resources, DirectML operator dispatchables and
commands, as ``DxDispatch/`` in microsoft/DirectML reads and runs them (section 2 of
``spec/research/dml-graph-and-dxdispatch.md``).

A resource is a byte buffer; an operator reads and writes it through its tensor descs,
from the byte offset its binding gives. Commands run in order and their effects stay.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from dmljax._src.compile import CompiledOperator, compile_operator
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.operator import Operator, Role, bound_tensors, tensor_fields
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["DxDispatchModel", "load_dxdispatch"]

_OP = "load_dxdispatch"


def _error(where: str, expected: str, given: Any, hint: str | None = None) -> InvalidArgumentError:
    return InvalidArgumentError(_OP, where, expected, given, hint=hint)


# --- JSON as DxDispatch reads it ------------------------------------------------------------------

_COMMENTS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMAS = re.compile(r'"(?:\\.|[^"\\])*"|,(?=\s*[}\]])')


def _strict_json(text: str) -> str:
    """``text`` without the comments and trailing commas DxDispatch's parser allows
    (strings kept as they are)."""

    def keep(match: re.Match[str]) -> str:
        token = match.group(0)
        return token if token.startswith('"') else ""

    return _TRAILING_COMMAS.sub(keep, _COMMENTS.sub(keep, text))


def _parse(text: str, where: str) -> Any:
    try:
        return json.loads(_strict_json(text))
    except json.JSONDecodeError as error:
        raise _error(where, "a JSON model", f"{error.msg} at line {error.lineno}") from None


def _enum_name(value: Any, prefix: str, where: str) -> str:
    """A DxDispatch enum value, full (``DML_TENSOR_DATA_TYPE_FLOAT32``) or short (``FLOAT32``)."""
    if not isinstance(value, str):
        raise _error(where, f"a {prefix}* name", repr(value))
    return value.removeprefix(prefix)


def _data_type(value: Any, where: str) -> DataType:
    name = _enum_name(value, "DML_TENSOR_DATA_TYPE_", where)
    if name not in DataType.__members__:
        raise _error(where, "a DML_TENSOR_DATA_TYPE", value)
    return DataType[name]


# --- Resources ------------------------------------------------------------------------------------


@dataclasses.dataclass
class Resource:
    """A buffer: its bytes, and the type and count of its initial values (what ``print``
    shows)."""

    data_type: DataType
    value_count: int
    data: bytearray

    def values(self) -> np.ndarray:
        count = self.value_count * self.data_type.dtype.itemsize
        return np.frombuffer(bytes(self.data[:count]), self.data_type.dtype)


def _initial_values(
    spec: Any, dtype: np.dtype[Any], where: str, folder: pathlib.Path
) -> np.ndarray:
    if isinstance(spec, list):

        def number(v: Any) -> Any:
            if isinstance(v, str) and v.lower() in ("nan", "inf", "-inf") and dtype.kind == "f":
                return float(v)
            return v

        return np.array([number(v) for v in spec], dtype)
    if not isinstance(spec, Mapping):
        raise _error(f"{where}.initialValues", "an array or an object", repr(spec))
    if "sourcePath" in spec:
        path = folder / spec["sourcePath"]
        if path.suffix == ".npy":
            return np.load(path)
        if path.suffix in (".dat", ".bin"):
            return np.frombuffer(path.read_bytes(), dtype)
        raise _error(f"{where}.initialValues.sourcePath", "a .npy, .dat or .bin file "
                     "(dmljax reads no images)", spec["sourcePath"])  # fmt: skip
    count = spec.get("valueCount")
    if not isinstance(count, int) or count < 1:
        raise _error(f"{where}.initialValues.valueCount", "a positive count", repr(count))
    if "value" in spec:
        return np.full(count, spec["value"], dtype)
    if "valueStart" in spec:
        start, delta = spec["valueStart"], spec.get("valueDelta", 0)
        return (start + delta * np.arange(count, dtype=np.float64)).astype(dtype)
    raise _error(f"{where}.initialValues", "value, valueStart or sourcePath", sorted(spec))


def _resource(spec: Any, where: str, folder: pathlib.Path) -> Resource:
    if not isinstance(spec, Mapping) or "initialValues" not in spec:
        raise _error(where, "a buffer resource with initialValues", repr(spec)[:80])
    if spec["initialValues"] == "deferred":
        raise _error(f"{where}.initialValues", "values (deferred ones are for ONNX models)",
                     "deferred")  # fmt: skip
    data_type = _data_type(spec.get("initialValuesDataType"), f"{where}.initialValuesDataType")
    values = _initial_values(spec["initialValues"], data_type.dtype, where, folder)
    raw = values.astype(data_type.dtype).tobytes()
    offset = int(spec.get("initialValuesOffsetInBytes", 0))
    size = spec.get("sizeInBytes")
    size = -(-(offset + len(raw)) // 4) * 4 if size is None else int(size)
    if size < offset + len(raw):
        raise _error(f"{where}.sizeInBytes", f"at least {offset + len(raw)} (the initial values "
                     "and their offset)", size)  # fmt: skip
    data = bytearray(size)
    data[offset : offset + len(raw)] = raw
    return Resource(data_type, values.size, data)


# --- Dispatchables --------------------------------------------------------------------------------


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _tensor(spec: Any, where: str) -> TensorDesc:
    if not isinstance(spec, Mapping):
        raise _error(where, "a tensor desc object", repr(spec))
    if "Desc" in spec:  # the full form: { "Type": "DML_TENSOR_TYPE_BUFFER", "Desc": { ... } }
        kind = _enum_name(spec.get("Type", "BUFFER"), "DML_TENSOR_TYPE_", f"{where}.Type")
        if kind != "BUFFER":
            raise _error(f"{where}.Type", "DML_TENSOR_TYPE_BUFFER", spec.get("Type"))
        spec = spec["Desc"]
    flags = spec.get("Flags", "NONE")
    names = flags if isinstance(flags, list) else [flags]
    if any(_enum_name(f, "DML_TENSOR_FLAG_", f"{where}.Flags") != "NONE" for f in names):
        raise _error(f"{where}.Flags", "DML_TENSOR_FLAG_NONE (dmljax does not run "
                     "initialization bindings yet)", flags)  # fmt: skip
    sizes = spec.get("Sizes")
    if (
        "DimensionCount" in spec
        and isinstance(sizes, list)
        and spec["DimensionCount"] != len(sizes)
    ):
        raise _error(f"{where}.DimensionCount", f"{len(sizes)} (the length of Sizes)",
                     spec["DimensionCount"])  # fmt: skip
    fields: dict[str, Any] = {
        "data_type": _data_type(spec.get("DataType"), f"{where}.DataType"),
        "sizes": sizes,
        "strides": spec.get("Strides"),
        "guaranteed_base_offset_alignment": spec.get("GuaranteedBaseOffsetAlignment", 0),
    }
    if "TotalTensorSizeInBytes" in spec:  # else DMLCalcBufferTensorSize, as in DxDispatch
        fields["total_tensor_size_in_bytes"] = spec["TotalTensorSizeInBytes"]
    return TensorDesc(**fields)


def _operator(type_name: Any, where: str) -> Operator[Any]:
    from dmljax._src.ops import OPERATORS

    name = _enum_name(type_name, "DML_OPERATOR_", where)
    for operator in OPERATORS:
        if operator.name == f"DML_OPERATOR_{name}":
            return operator
    known = ", ".join(op.name.removeprefix("DML_OPERATOR_") for op in OPERATORS)
    raise _error(where, f"an operator dmljax implements ({known})", type_name,
                 hint="HLSL, ONNX and serialized-graph dispatchables are not run.")  # fmt: skip


def _attribute(value: Any) -> Any:
    if isinstance(value, str):  # an enum value: DML_PADDING_MODE_EDGE, EDGE, FLOAT32, ...
        name = value.rsplit("DML_", 1)[-1]
        for prefix in ("TENSOR_DATA_TYPE_", "PADDING_MODE_", "AXIS_DIRECTION_"):
            name = name.removeprefix(prefix)
        if name in DataType.__members__:
            return DataType[name]
        return name
    if isinstance(value, Mapping) and len(value) == 1:  # a scalar union: {"Float32": 1.5}
        return next(iter(value.values()))
    return tuple(value) if isinstance(value, list) else value


def _desc(operator: Operator[Any], spec: Any, where: str) -> Any:
    if not isinstance(spec, Mapping):
        raise _error(where, "an object of the desc's fields", repr(spec)[:80])
    fields = {f.name: f for f in dataclasses.fields(operator.desc_type)}
    tensors = {f.name for f in tensor_fields(operator.desc_type)}
    kwargs: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for key, value in spec.items():
        name = _snake(key)
        if name in fields:
            if name in tensors:
                kwargs[name] = (
                    tuple(_tensor(v, f"{where}.{key}[{i}]") for i, v in enumerate(value))
                    if isinstance(value, list)
                    else _tensor(value, f"{where}.{key}")
                )
            else:
                kwargs[name] = _attribute(value)
        elif key.endswith("Count"):
            counts[key] = value  # InputCount, RepeatsCount, DimensionCount: the C arrays' lengths
        else:
            raise _error(f"{where}.{key}", f"a field of {operator.desc_type.__name__}'s C struct",
                         key)  # fmt: skip
    for key, count in counts.items():
        stem = _snake(key.removesuffix("Count"))
        lengths = {
            name: len(value) for name, value in kwargs.items()
            if isinstance(value, tuple) and (name.startswith(stem) or stem == "dimension")
        }  # fmt: skip
        wrong = {name: n for name, n in lengths.items() if n != count}
        if wrong:
            name, n = next(iter(wrong.items()))
            raise _error(f"{where}.{key}", f"{n} (the length of {name})", count)
    try:
        return operator.desc_type(**kwargs)
    except TypeError as error:
        raise _error(where, f"every field of {operator.desc_type.__name__}", str(error)) from None


@dataclasses.dataclass(frozen=True)
class _Dispatchable:
    compiled: CompiledOperator[Any, *tuple[Any, ...]]
    inputs: tuple[tuple[str, int], ...]  # (bind point, its count), in binding order
    outputs: tuple[tuple[str, int], ...]


def _bind_points(desc: Any, role: Role) -> tuple[tuple[str, int], ...]:
    points = []
    for field in tensor_fields(type(desc), role):
        value = getattr(desc, field.name)
        pascal = "".join(part.title() for part in field.name.split("_"))
        if value is not None:
            points.append((pascal, len(value) if field.metadata["many"] else 1))
    return tuple(points)


def _dispatchable(spec: Any, where: str, level: FeatureLevel) -> _Dispatchable:
    if not isinstance(spec, Mapping):
        raise _error(where, "a dispatchable object", repr(spec)[:80])
    kind = spec.get("type")
    if isinstance(kind, str) and kind.lower() in ("hlsl", "onnx", "dmlserializedgraph"):
        raise _error(f"{where}.type", "a DirectML operator (dmljax runs no HLSL, ONNX or "
                     "serialized-graph dispatchables)", kind)  # fmt: skip
    operator = _operator(kind, f"{where}.type")
    desc = _desc(operator, spec.get("desc", spec.get("Desc")), f"{where}.desc")
    try:
        compiled = compile_operator(desc, feature_level=level)
    except InvalidArgumentError as error:
        raise _error(f"{where}.desc.{error.field}", error.expected, error.given,
                     hint=error.hint) from None  # fmt: skip
    return _Dispatchable(compiled, _bind_points(desc, Role.INPUT), _bind_points(desc, Role.OUTPUT))


# --- Running --------------------------------------------------------------------------------------


def _format(value: Any) -> str:
    """A value as DxDispatch prints it (C++ ``operator<<``: 6 significant digits)."""
    if isinstance(value, np.floating):
        return f"{float(value):g}"
    return str(value)


class DxDispatchModel:
    """A loaded model: its resources (byte buffers), compiled dispatchables and commands.

    :meth:`run` runs the commands in order and returns the lines ``print`` wrote;
    the resources keep what the commands wrote.

    >>> import dmljax as dml
    >>> model = dml.load_dxdispatch('''{"resources": {"A": {"initialValuesDataType": "INT32",
    ...   "initialValues": {"valueCount": 3, "valueStart": 7, "valueDelta": -2}}},
    ...   "dispatchables": {}, "commands": [{"type": "print", "resource": "A"}]}''')
    >>> model.run(), model.resources["A"].values()
    (["Resource 'A': 7, 5, 3"], array([7, 5, 3], dtype=int32))
    """

    def __init__(self, model: Any, folder: pathlib.Path, level: FeatureLevel) -> None:
        if not isinstance(model, Mapping):
            raise _error("model", "a JSON object", type(model).__name__)
        for member in ("resources", "dispatchables", "commands"):
            if member not in model:
                raise _error(member, f"an object named '{member}'", "nothing")
        self.resources = {
            name: _resource(spec, f"resources.{name}", folder)
            for name, spec in model["resources"].items()
        }
        self.dispatchables = {
            name: _dispatchable(spec, f"dispatchables.{name}", level)
            for name, spec in model["dispatchables"].items()
        }
        self.commands: list[Any] = list(model["commands"])
        self._folder = folder

    def run(self) -> list[str]:
        """Runs every command in order; returns what ``print`` commands printed."""
        log: list[str] = []
        for k, command in enumerate(self.commands):
            where = f"commands[{k}]"
            kind = str(command.get("type", "")).lower()
            if kind == "dispatch":
                self._dispatch(command, where)
            elif kind == "print":
                resource = self._resource(command.get("resource"), f"{where}.resource")
                values = ", ".join(_format(v) for v in resource.values())
                log.append(f"Resource '{command['resource']}': {values}")
            elif kind == "writefile":
                self._write_file(command, where)
            else:
                raise _error(f"{where}.type", "dispatch, print or writeFile", command.get("type"))
        return log

    def _resource(self, name: Any, where: str) -> Resource:
        if name not in self.resources:
            raise _error(where, f"a resource name ({', '.join(self.resources)})", repr(name))
        return self.resources[name]

    def _bound(self, binding: Any, where: str) -> tuple[Resource, int]:
        """A binding's resource and byte offset."""
        if isinstance(binding, str):
            return self._resource(binding, where), 0
        if not isinstance(binding, Mapping):
            raise _error(where, "a resource name or a binding object", repr(binding))
        for key in ("format", "counter", "counterOffsetBytes"):
            if key in binding:
                raise _error(f"{where}.{key}", "absent (HLSL bindings only)", binding[key])
        resource = self._resource(binding.get("name"), f"{where}.name")
        size = int(binding.get("elementSizeInBytes", resource.data_type.dtype.itemsize))
        return resource, int(binding.get("elementOffset", 0)) * size

    def _dispatch(self, command: Mapping[str, Any], where: str) -> None:
        name = command.get("dispatchable")
        if name not in self.dispatchables:
            raise _error(f"{where}.dispatchable", "a dispatchable name", repr(name))
        dispatchable = self.dispatchables[name]
        bindings = command.get("bindings", {})
        compiled = dispatchable.compiled

        def bound(points: Sequence[tuple[str, int]]) -> list[tuple[str, Resource, int]]:
            found = []
            for point, count in points:
                given = bindings.get(point)
                entries = given if isinstance(given, list) else [given]
                if given is None or len(entries) != count:
                    raise _error(f"{where}.bindings.{point}", f"{count} resources",
                                 0 if given is None else len(entries))  # fmt: skip
                found += [(f"{point}[{i}]", *self._bound(e, f"{where}.bindings.{point}"))
                          for i, e in enumerate(entries)]  # fmt: skip
            return found

        inputs = bound(dispatchable.inputs)
        outputs = bound(dispatchable.outputs)
        input_tensors = [t for _, t in bound_tensors(compiled.desc, Role.INPUT)]
        arrays = [
            _read(resource, offset, tensor, f"{where}.bindings.{point}")
            for (point, resource, offset), tensor in zip(inputs, input_tensors, strict=True)
        ]
        result = compiled(*arrays)
        results = result if isinstance(result, tuple) else (result,)
        for (point, resource, offset), tensor, value in zip(
            outputs, compiled.output_descs, results, strict=True
        ):
            _write(resource, offset, tensor, np.asarray(value), f"{where}.bindings.{point}")

    def _write_file(self, command: Mapping[str, Any], where: str) -> None:
        resource = self._resource(command.get("resource"), f"{where}.resource")
        target = pathlib.Path(str(command.get("targetPath")))
        if not target.is_absolute():
            target = self._folder / target
        values = resource.values()
        if target.suffix == ".npy":
            np.save(target, values.reshape(command.get("dimensions", values.shape)))
        elif target.suffix in (".dat", ".bin"):
            target.write_bytes(values.tobytes())
        else:
            raise _error(f"{where}.targetPath", "a .npy, .dat or .bin file", str(target))


def _read(resource: Resource, offset: int, tensor: TensorDesc, where: str) -> np.ndarray:
    """The tensor a binding gives an operator: ``tensor``'s bytes from ``offset``."""
    end = offset + tensor.bound_element_count * tensor.dtype.itemsize
    if end > len(resource.data):
        raise _error(where, f"a resource of at least {end} bytes from its offset {offset}",
                     f"{len(resource.data)} bytes")  # fmt: skip
    values = np.frombuffer(bytes(resource.data[offset:end]), tensor.dtype)
    return values if tensor.strides is not None else values.reshape(tensor.sizes)


def _write(
    resource: Resource, offset: int, tensor: TensorDesc, value: np.ndarray, where: str
) -> None:
    raw = np.ascontiguousarray(value.astype(tensor.dtype)).tobytes()
    if offset + len(raw) > len(resource.data):
        raise _error(where, f"a resource of at least {offset + len(raw)} bytes",
                     f"{len(resource.data)} bytes")  # fmt: skip
    resource.data[offset : offset + len(raw)] = raw


def load_dxdispatch(
    source: str | os.PathLike[str],
    *,
    feature_level: FeatureLevel | int = FeatureLevel.LATEST,
) -> DxDispatchModel:
    """Loads a DxDispatch JSON model (a path, or the JSON text itself) and compiles its
    DirectML operator dispatchables at ``feature_level``.

    Comments and trailing commas are accepted, as DxDispatch accepts them. Relative
    ``sourcePath`` and ``targetPath`` resolve against the model's folder.

    >>> import dmljax as dml
    >>> model = dml.load_dxdispatch('''{
    ...   "resources": {
    ...     "A": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3]},
    ...     "Out": {"initialValuesDataType": "FLOAT32",
    ...             "initialValues": {"valueCount": 6, "value": 0}},  // trailing comma next
    ...   },
    ...   "dispatchables": {"tile": {"type": "TILE", "desc": {
    ...     "InputTensor": {"DataType": "FLOAT32", "Sizes": [3]},
    ...     "OutputTensor": {"DataType": "FLOAT32", "Sizes": [6]},
    ...     "RepeatsCount": 1, "Repeats": [2]}}},
    ...   "commands": [
    ...     {"type": "dispatch", "dispatchable": "tile",
    ...      "bindings": {"InputTensor": "A", "OutputTensor": "Out"}},
    ...     {"type": "print", "resource": "Out"}]
    ... }''')
    >>> model.run()
    ["Resource 'Out': 1, 2, 3, 1, 2, 3"]
    """
    level = FeatureLevel.coerce(feature_level, op=_OP)
    text = os.fspath(source)
    if text.lstrip().startswith("{"):
        return DxDispatchModel(_parse(text, "model"), pathlib.Path.cwd(), level)
    path = pathlib.Path(text)
    try:
        content = path.read_text()
    except OSError as error:
        raise _error("source", "a readable JSON model file", f"{text} ({error.strerror})") from None
    return DxDispatchModel(_parse(content, str(path)), path.parent, level)
