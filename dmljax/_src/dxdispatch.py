"""DxDispatch's JSON models run by dmljax: resources, DirectML operator dispatchables and
commands, as ``DxDispatch/`` in microsoft/DirectML reads and runs them (section 2 of
``spec/research/dml-graph-and-dxdispatch.md``).

A resource is a byte buffer; an operator reads and writes it through its tensor descs,
from the byte offset its binding gives. Commands run in order and their effects stay.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import pathlib
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from dmljax._src.compile import compile_operator
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.graph import (
    GraphDesc,
    InputGraphEdgeDesc,
    IntermediateGraphEdgeDesc,
    OperatorGraphNodeDesc,
    OutputGraphEdgeDesc,
    check_edges,
    compile_graph,
    element_bytes,
    one_node_graph,
    read_bytes,
)
from dmljax._src.operator import Operator, Role, tensor_fields
from dmljax._src.tensor_desc import TensorDesc, TensorFlags
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
            raise _error("resource", "a resource with an initialValuesDataType (DxDispatch "
                         "prints and writes typed buffers)", "a mixed array")  # fmt: skip
        count = self.value_count * self.data_type.dtype.itemsize
        return np.frombuffer(bytes(self.data[:count]), self.data_type.dtype)


_FLOAT_WORDS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _element(value: Any, data_type: DataType, where: str) -> Any:
    """One JSON value as DxDispatch's parser reads it for ``data_type``: a float from a
    number or "NaN"/"Inf"/"-Inf" (FLOAT16 through float32, as it does), an integer only
    from an integer in range."""
    dtype = data_type.dtype
    if data_type.bit_width < 8:
        raise _error(where, "a data type of whole bytes", data_type.name)
    if dtype.kind == "f":
        if isinstance(value, str) and value.lower() in _FLOAT_WORDS:
            number = _FLOAT_WORDS[value.lower()]
        elif isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value)
        else:
            raise _error(where, "a number or 'NaN', 'Inf', or '-Inf'", repr(value))
        if data_type is DataType.FLOAT16:
            return np.float16(np.float32(number))
        return dtype.type(number)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _error(where, f"an integer (the values are {data_type.name})", repr(value))
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise _error(where, f"an integer in [{info.min}, {info.max}] ({data_type.name})", value)
    return dtype.type(value)


def _count(spec: Mapping[str, Any], where: str) -> int:
    count = spec.get("valueCount")
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count < 2**32:
        raise _error(f"{where}.valueCount", "a UINT32 count", repr(count))
    return count


def _initial_values(
    spec: Any, data_type: DataType | None, where: str, folder: pathlib.Path
) -> tuple[bytes, DataType | None]:
    """The initial values' bytes and their data type, from each of DxDispatch's
    initializers: an array (typed, or of ``{"type", "value"}`` objects without a data
    type), a constant, a sequence (each value the previous plus the delta, in the data
    type, as DxDispatch adds them), or a file (``.npy`` typed by its header, any other
    file its raw bytes)."""
    at = f"{where}.initialValues"

    def typed() -> DataType:
        if data_type is None:
            raise _error(f"{where}.initialValuesDataType", "a DML_TENSOR_DATA_TYPE (these "
                         "initial values need one)", "nothing")  # fmt: skip
        return data_type

    if isinstance(spec, list):
        if data_type is None:  # a mixed array: [{"type": "UINT32", "value": 42}, ...]
            parts = []
            for i, item in enumerate(spec):
                if not isinstance(item, Mapping):
                    raise _error(f"{at}[{i}]", 'an object {"type": ..., "value": ...}', item)
                kind = _data_type(item.get("type"), f"{at}[{i}].type")
                parts.append(_element(item.get("value"), kind, f"{at}[{i}].value").tobytes())
            return b"".join(parts), None
        values = [_element(v, data_type, f"{at}[{i}]") for i, v in enumerate(spec)]
        return np.array(values, data_type.dtype).tobytes(), data_type
    if not isinstance(spec, Mapping):
        raise _error(at, "an array, an object or deferred", repr(spec)[:80])
    if "value" in spec:
        if "valueStart" in spec or "sourcePath" in spec:
            raise _error(at, "one of value, valueStart and sourcePath (they are mutually "
                         "exclusive)", sorted(spec))  # fmt: skip
        kind = typed()
        value = _element(spec["value"], kind, f"{at}.value")
        return np.full(_count(spec, at), value, kind.dtype).tobytes(), kind
    if "valueStart" in spec:
        kind = typed()
        start = _element(spec["valueStart"], kind, f"{at}.valueStart")
        delta = _element(spec.get("valueDelta", 0), kind, f"{at}.valueDelta")
        steps = np.full(_count(spec, at), delta, kind.dtype)
        if steps.size:
            steps[0] = start
        with np.errstate(over="ignore"):  # integers wrap, as C++'s += does
            return np.add.accumulate(steps, dtype=kind.dtype).tobytes(), kind
    if "sourcePath" in spec:
        return _file_values(str(spec["sourcePath"]), data_type, f"{at}.sourcePath", folder)
    raise _error(at, "value, valueStart or sourcePath", sorted(spec))


def _file_values(
    source: str, data_type: DataType | None, where: str, folder: pathlib.Path
) -> tuple[bytes, DataType | None]:
    path = folder / source
    if not path.exists():  # DxDispatch tries the model's folder, then the working one
        path = pathlib.Path(source)
    suffix = path.suffix.lower()
    if suffix in (".png", ".jpg", ".jpeg"):
        raise _error(where, "a .npy or raw data file (dmljax reads no images)", source)
    try:
        if suffix != ".npy":
            if data_type is None:
                raise _error(where.replace("initialValues.sourcePath", "initialValuesDataType"),
                             "a DML_TENSOR_DATA_TYPE (raw data needs one)", "nothing")  # fmt: skip
            return path.read_bytes(), data_type
        array = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as error:
        raise _error(where, "a readable file", f"{source} ({error})") from None
    kind = DataType.from_dtype(array.dtype)
    if data_type is not None and kind is not data_type:
        raise _error(where, f"a file of {data_type.name} (initialValuesDataType)", kind.name)
    return np.ascontiguousarray(array, array.dtype.newbyteorder("<")).tobytes(), kind


def _resource(spec: Any, where: str, folder: pathlib.Path) -> Resource:
    if not isinstance(spec, Mapping) or "initialValues" not in spec:
        raise _error(where, "a buffer resource with initialValues", repr(spec)[:80])
    if spec["initialValues"] == "deferred":
        raise _error(f"{where}.initialValues", "values (deferred ones are for ONNX models)",
                     "deferred")  # fmt: skip
    data_type = None
    if "initialValuesDataType" in spec:
        data_type = _data_type(spec["initialValuesDataType"], f"{where}.initialValuesDataType")
    raw, data_type = _initial_values(spec["initialValues"], data_type, where, folder)
    if not raw:
        raise _error(f"{where}.initialValues", "at least one value", "none")
    offset = _uint64(
        spec.get("initialValuesOffsetInBytes", 0), f"{where}.initialValuesOffsetInBytes"
    )
    # DxDispatch: the initial values' size rounded up to 4 bytes, the offset not counted.
    size = _uint64(spec.get("sizeInBytes", (len(raw) + 3) & ~3), f"{where}.sizeInBytes")
    if size < offset + len(raw):
        raise _error(f"{where}.sizeInBytes", f"at least {offset + len(raw)} (the initial "
                     f"values' {len(raw)} bytes at offset {offset})", size)  # fmt: skip
    data = bytearray(size)
    data[offset : offset + len(raw)] = raw
    return Resource(data_type, len(raw), data)


def _uint64(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**64:
        raise _error(where, "a UINT64", repr(value))
    return value


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
    names = [_enum_name(f, "DML_TENSOR_FLAG_", f"{where}.Flags")
             for f in (flags if isinstance(flags, list) else [flags])]  # fmt: skip
    for name in names:
        if name not in TensorFlags.__members__:
            raise _error(f"{where}.Flags", "DML_TENSOR_FLAG_NONE or DML_TENSOR_FLAG_OWNED_BY_DML",
                         name)  # fmt: skip
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
        "flags": sum((TensorFlags[n] for n in names), TensorFlags.NONE),
    }
    if spec.get("TotalTensorSizeInBytes"):  # 0 or absent: DMLCalcBufferTensorSize, as in DxDispatch
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
    return tuple(value) if isinstance(value, list) else value


_UNION_MEMBERS = {
    "Int8": np.int8, "Int16": np.int16, "Int32": np.int32, "Int64": np.int64,
    "UInt8": np.uint8, "UInt16": np.uint16, "UInt32": np.uint32, "UInt64": np.uint64,
    "Float32": np.float32, "Float64": np.float64,
}  # fmt: skip


def _scalar_union(value: Mapping[str, Any], data_type: Any, where: str) -> int | float:
    """A ``DML_SCALAR_UNION`` given by member (``{"UInt16": 15360}``): that member's bytes
    read as the sibling data type, as the C union is read (15360 as FLOAT16 is 1.0)."""
    if len(value) != 1 or next(iter(value)) not in _UNION_MEMBERS:
        raise _error(where, f"a number or one member of DML_SCALAR_UNION "
                     f"({', '.join(_UNION_MEMBERS)})", dict(value))  # fmt: skip
    if not isinstance(data_type, DataType):
        raise _error(where, "a number (a union by member needs its sibling ...DataType field)",
                     dict(value))  # fmt: skip
    ((member, number),) = value.items()
    try:
        raw = np.array(number, _UNION_MEMBERS[member]).tobytes().ljust(8, b"\0")
    except (OverflowError, ValueError, TypeError):
        raise _error(where, f"a value a {member} holds", number) from None
    return np.frombuffer(raw[: data_type.dtype.itemsize], data_type.dtype)[0].item()


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
    for name, value in kwargs.items():
        if isinstance(value, Mapping):
            key = next(k for k in spec if _snake(k) == name)
            kwargs[name] = _scalar_union(value, kwargs.get(f"{name}_data_type"), f"{where}.{key}")
    try:
        return operator.desc_type(**kwargs)
    except TypeError as error:
        raise _error(where, f"every field of {operator.desc_type.__name__}", str(error)) from None


_EXECUTION_FLAGS = (
    "NONE",
    "ALLOW_HALF_PRECISION_COMPUTATION",
    "DISABLE_META_COMMANDS",
    "DESCRIPTORS_VOLATILE",
)
_COMPILE_TYPES = ("DmlCompileOp", "DmlCompileGraph")


@dataclasses.dataclass(frozen=True)
class _BindPoint:
    """A name bindings use, and the tensors it binds (None: a graph input no node reads)."""

    name: str
    tensors: tuple[TensorDesc | None, ...]

    @property
    def owned(self) -> bool:
        """Bound at initialization (OWNED_BY_DML), not at dispatch."""
        return any(t is not None and t.flags & TensorFlags.OWNED_BY_DML for t in self.tensors)

    @property
    def optional(self) -> bool:
        return all(t is None for t in self.tensors)


@dataclasses.dataclass(frozen=True)
class _Dispatchable:
    """A compiled dispatchable: ``function`` takes one array (None for an unread graph
    input) per tensor of ``inputs`` and returns one per tensor of ``outputs``."""

    function: Callable[..., tuple[jax.Array, ...]]
    inputs: tuple[_BindPoint, ...]
    outputs: tuple[_BindPoint, ...]
    desc: Any  # the operator desc; None for a graph
    execution_flags: tuple[str, ...]


def _bind_points(desc: Any, role: Role) -> tuple[_BindPoint, ...]:
    points = []
    for field in tensor_fields(type(desc), role):
        value = getattr(desc, field.name)
        pascal = "".join(part.title() for part in field.name.split("_"))
        if value is not None:
            points.append(_BindPoint(pascal, tuple(value) if field.metadata["many"] else (value,)))
    return tuple(points)


def _execution_flags(spec: Mapping[str, Any], where: str) -> tuple[str, ...]:
    # They change no value dmljax computes: the data-movement operators compute nothing
    # in reduced precision, and descriptors and meta commands are DirectML's own.
    given = spec.get("executionFlags", "NONE")
    names = tuple(
        _enum_name(v, "DML_EXECUTION_FLAG_", where)
        for v in (given if isinstance(given, list) else [given])
    )
    for name in names:
        if name not in _EXECUTION_FLAGS:
            raise _error(where, f"DML_EXECUTION_FLAG_ {', '.join(_EXECUTION_FLAGS)}", name)
    return names


def _pascal_path(text: str) -> str:
    """A graph's field names as the model spells them: ``input_edges[2].to_node_index`` is
    ``InputEdges[2].ToNodeIndex``."""

    def pascal(words: re.Match[str]) -> str:
        return "".join(part.title() for part in words.group(0).split("_"))

    return re.sub(
        r"\b(?:input_edges|output_edges|intermediate_edges|nodes|input_count|output_count)"
        r"(?:\[\d+\])?(?:\.[a-z_]+(?:\[\d+\])?)*",
        lambda m: re.sub(r"[a-z]+(?:_[a-z]+)*", pascal, m.group(0)),
        text,
    )


def _within(where: str, compile: Callable[[], Any]) -> Any:
    """``compile()``, its errors named under ``where`` with the model's field names."""
    try:
        return compile()
    except InvalidArgumentError as error:
        raise _error(f"{where}.{_pascal_path(error.field)}", _pascal_path(error.expected),
                     error.given, hint=error.hint) from None  # fmt: skip


def _operator_dispatchable(
    spec: Mapping[str, Any], where: str, options: Mapping[str, Any]
) -> _Dispatchable:
    operator = _operator(spec.get("type"), f"{where}.type")
    desc = _desc(operator, spec.get("desc", spec.get("Desc")), f"{where}.desc")
    inputs, outputs = _bind_points(desc, Role.INPUT), _bind_points(desc, Role.OUTPUT)
    for point in inputs:
        if point.owned and not all(t is not None and t.flags for t in point.tensors):
            raise _error(f"{where}.desc.{point.name}", "every tensor OWNED_BY_DML or none "
                         "(dmljax binds a bind point at one time)", "some of them")  # fmt: skip
    flags = _execution_flags(spec, f"{where}.executionFlags")
    compile_type = spec.get("dmlCompileType", "DmlCompileOp")
    if compile_type == "DmlCompileOp":
        compiled = _within(f"{where}.desc", lambda: compile_operator(desc, **options))

        def run_operator(*arrays: Any) -> tuple[jax.Array, ...]:
            result = compiled(*arrays)
            return result if isinstance(result, tuple) else (result,)

        return _Dispatchable(run_operator, inputs, outputs, desc, flags)
    if compile_type != "DmlCompileGraph":
        raise _error(f"{where}.dmlCompileType", " or ".join(_COMPILE_TYPES), compile_type)
    graph = one_node_graph(desc)
    compiled_graph = _within(where, lambda: compile_graph(graph, **options))
    present = tuple(e.graph_input_index for e in graph.input_edges)

    def run_graph(*arrays: Any) -> tuple[jax.Array, ...]:
        full: list[Any] = [None] * graph.input_count
        for index, array in zip(present, arrays, strict=True):
            full[index] = array
        return compiled_graph(*full)

    return _Dispatchable(run_graph, inputs, outputs, desc, flags)


def _is_graph(spec: Any) -> bool:
    kind = spec.get("type") if isinstance(spec, Mapping) else None
    return isinstance(kind, str) and kind.lower() == "dml_graph_desc"


@dataclasses.dataclass(frozen=True)
class _GraphLayout:
    """A ``DML_GRAPH_DESC`` dispatchable before its nodes' operators are known."""

    input_count: int
    output_count: int
    node_names: tuple[Any, ...]
    input_edges: tuple[InputGraphEdgeDesc, ...]
    intermediate_edges: tuple[IntermediateGraphEdgeDesc, ...]
    output_edges: tuple[OutputGraphEdgeDesc, ...]
    spec: Mapping[str, Any]


_EDGE_FIELDS: dict[type, tuple[str, ...]] = {
    InputGraphEdgeDesc: ("GraphInputIndex", "ToNodeIndex", "ToNodeInputIndex"),
    IntermediateGraphEdgeDesc: ("FromNodeIndex", "FromNodeOutputIndex", "ToNodeIndex",
                                "ToNodeInputIndex"),
    OutputGraphEdgeDesc: ("FromNodeIndex", "FromNodeOutputIndex", "GraphOutputIndex"),
}  # fmt: skip

Edge = TypeVar("Edge", InputGraphEdgeDesc, IntermediateGraphEdgeDesc, OutputGraphEdgeDesc)


def _edges(desc: Mapping[str, Any], key: str, kind: type[Edge], where: str) -> tuple[Edge, ...]:
    given = desc.get(key, [])
    if not isinstance(given, list):
        raise _error(f"{where}.{key}", "an array of edge objects", repr(given)[:80])
    edges = []
    for k, edge in enumerate(given):
        at = f"{where}.{key}[{k}]"
        if not isinstance(edge, Mapping):
            raise _error(at, "an edge object", repr(edge)[:80])
        missing = [f for f in _EDGE_FIELDS[kind] if f not in edge]
        if missing:
            raise _error(f"{at}.{missing[0]}", "an index", "nothing")
        fields = {_snake(f): edge[f] for f in _EDGE_FIELDS[kind]}
        fields["name"] = str(edge.get("Name", ""))
        edges.append(_within(at, functools.partial(kind, **fields)))
    return tuple(edges)


def _graph_layout(spec: Mapping[str, Any], where: str) -> _GraphLayout:
    """A graph dispatchable's counts, nodes and edges, checked as far as they can be
    without the nodes' operators (the unmerged DxDispatch branch's ``DML_GRAPH_DESC``)."""
    desc = spec.get("desc", spec.get("Desc"))
    at = f"{where}.desc"
    if not isinstance(desc, Mapping):
        raise _error(at, "an object of DML_GRAPH_DESC's fields", repr(desc)[:80])
    counts = []
    for key in ("InputCount", "OutputCount"):
        value = desc.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise _error(f"{at}.{key}", "a count", repr(value))
        counts.append(value)
    nodes = desc.get("Nodes")
    if not isinstance(nodes, list):
        raise _error(f"{at}.Nodes", "an array of node objects", repr(nodes)[:80])
    for i, node in enumerate(nodes):
        kind = node.get("Type") if isinstance(node, Mapping) else None
        if _enum_name(kind, "DML_GRAPH_NODE_TYPE_", f"{at}.Nodes[{i}].Type") != "OPERATOR":
            raise _error(f"{at}.Nodes[{i}].Type", "DML_GRAPH_NODE_TYPE_OPERATOR (the model "
                         "format has no constant data nodes)", kind)  # fmt: skip
    layout = _GraphLayout(
        counts[0], counts[1], tuple(node.get("Name") for node in nodes),
        _edges(desc, "InputEdges", InputGraphEdgeDesc, at),
        _edges(desc, "IntermediateEdges", IntermediateGraphEdgeDesc, at),
        _edges(desc, "OutputEdges", OutputGraphEdgeDesc, at),
        spec,
    )  # fmt: skip
    _within(at, lambda: check_edges(layout.input_count, layout.output_count, len(nodes),
                                    layout.input_edges, layout.intermediate_edges,
                                    layout.output_edges))  # fmt: skip
    return layout


def _graph_dispatchable(
    layout: _GraphLayout,
    operators: Mapping[str, _Dispatchable],
    where: str,
    options: Mapping[str, Any],
) -> _Dispatchable:
    nodes = []
    for i, name in enumerate(layout.node_names):
        if name not in operators:
            raise _error(f"{where}.desc.Nodes[{i}].Name", "the name of a DirectML operator "
                         f"dispatchable ({', '.join(operators)})", repr(name))  # fmt: skip
        nodes.append(OperatorGraphNodeDesc(operator=operators[name].desc, name=name))
    graph = GraphDesc(
        input_count=layout.input_count, output_count=layout.output_count, nodes=tuple(nodes),
        input_edges=layout.input_edges, intermediate_edges=layout.intermediate_edges,
        output_edges=layout.output_edges,
    )  # fmt: skip
    compiled = _within(f"{where}.desc", lambda: compile_graph(graph, **options))
    # Graphs have no named bind points; DxDispatch's branch names them in_<i> and out_<i>.
    inputs = tuple(_BindPoint(f"in_{i}", (t,)) for i, t in enumerate(compiled.input_descs))
    outputs = tuple(_BindPoint(f"out_{j}", (t,)) for j, t in enumerate(compiled.output_descs))
    flags = _execution_flags(layout.spec, f"{where}.executionFlags")
    return _Dispatchable(compiled, inputs, outputs, None, flags)


def _dispatchables(specs: Any, options: Mapping[str, Any]) -> dict[str, _Dispatchable]:
    """Every dispatchable compiled with ``options`` (``compile_operator``'s keywords)."""
    if not isinstance(specs, Mapping):
        raise _error("dispatchables", "an object of named dispatchables", repr(specs)[:80])
    # A graph's wiring is checked first: it is wrong whatever its nodes' operators are.
    layouts = {
        name: _graph_layout(spec, f"dispatchables.{name}")
        for name, spec in specs.items() if _is_graph(spec)
    }  # fmt: skip
    operators = {}
    for name, spec in specs.items():
        where = f"dispatchables.{name}"
        if name in layouts:
            continue
        if not isinstance(spec, Mapping):
            raise _error(where, "a dispatchable object", repr(spec)[:80])
        kind = spec.get("type")
        if isinstance(kind, str) and kind.lower() in ("hlsl", "onnx", "dmlserializedgraph"):
            raise _error(f"{where}.type", "a DirectML operator or DML_GRAPH_DESC (dmljax runs "
                         "no HLSL, ONNX or serialized-graph dispatchables)", kind)  # fmt: skip
        operators[name] = _operator_dispatchable(spec, where, options)
    return {
        name: operators[name] if name in operators
        else _graph_dispatchable(layouts[name], operators, f"dispatchables.{name}", options)
        for name in specs
    }  # fmt: skip


# --- Running --------------------------------------------------------------------------------------


def _format(value: Any) -> str:
    """A value as DxDispatch prints it (C++ ``operator<<``: 6 significant digits)."""
    if isinstance(value, np.floating):
        return f"{float(value):g}"
    return str(value)


def _printed(name: str, resource: Resource, verbose: bool) -> str:
    """What DxDispatch's ``print`` writes: the initial values' count of elements from the
    buffer's start, in a line, or with ``verbose`` one per line with its index and bytes.
    (DxDispatch's C++ stream writes 8-bit values as characters; dmljax writes numbers.)"""
    values = resource.values()
    if not verbose:
        return f"Resource '{name}': {', '.join(_format(v) for v in values)}"
    index_width = len(str(len(values)))
    hex_width = 2 * values.dtype.itemsize
    lines = []
    for i, value in enumerate(values):
        bits = int.from_bytes(value.tobytes(), "little")  # the value in a zeroed scalar union
        lines.append(f"[{i:>{index_width}}] {_format(value)} (0x{bits:>{hex_width}X})")
    return "\n".join([f"Resource '{name}':", *lines])


Buffers = dict[str, jax.Array]
"""Each resource's bytes, a uint8 vector, by name."""


class DxDispatchModel:
    """A loaded model: its resources (byte buffers), compiled dispatchables and commands.

    :meth:`run` runs the commands in order and returns the lines ``print`` wrote;
    the resources keep what the commands wrote. :meth:`as_function` gives the dispatch
    commands as one pure, jittable function of the resources' bytes.

    Inputs marked ``OWNED_BY_DML`` are bound when the model loads, by the dispatchable's
    own ``bindings``, and keep the values they had then, as DirectML's initializer keeps
    them; a dispatch must not bind them. A dispatchable that no command dispatches (a
    graph's node) is not initialized.

    >>> import dmljax as dml
    >>> model = dml.load_dxdispatch('''{"resources": {"A": {"initialValuesDataType": "INT32",
    ...   "initialValues": {"valueCount": 3, "valueStart": 7, "valueDelta": -2}}},
    ...   "dispatchables": {}, "commands": [{"type": "print", "resource": "A"}]}''')
    >>> model.run(), model.resources["A"].values()
    (["Resource 'A': 7, 5, 3"], array([7, 5, 3], dtype=int32))
    """

    def __init__(self, model: Any, folder: pathlib.Path, options: Mapping[str, Any]) -> None:
        if not isinstance(model, Mapping):
            raise _error("model", "a JSON object", type(model).__name__)
        for member in ("resources", "dispatchables", "commands"):
            if member not in model:
                raise _error(member, f"an object named '{member}'", "nothing")
        self.resources = {
            name: _resource(spec, f"resources.{name}", folder)
            for name, spec in model["resources"].items()
        }
        self.dispatchables = _dispatchables(model["dispatchables"], options)
        self.commands: list[Any] = list(model["commands"])
        for k, command in enumerate(self.commands):
            kind = command.get("type", "") if isinstance(command, Mapping) else None
            if str(kind).lower() not in ("dispatch", "print", "writefile"):
                raise _error(f"commands[{k}].type", "dispatch, print or writeFile", kind)
        self._folder = folder
        buffers = self.buffers()
        # Only what a command dispatches is initialized: a dispatchable that is only a
        # graph's node is a desc, its owned inputs fed through the graph's inputs.
        dispatched = {c.get("dispatchable") for c in self.commands}
        self._initialized = {
            name: self._initialize(model["dispatchables"][name], dispatchable, buffers,
                                   f"dispatchables.{name}")
            for name, dispatchable in self.dispatchables.items() if name in dispatched
        }  # fmt: skip

    def buffers(self) -> Buffers:
        """Each resource's bytes now, as a uint8 vector: what :meth:`as_function` takes."""
        return {
            name: jnp.asarray(np.frombuffer(bytes(r.data), np.uint8))
            for name, r in self.resources.items()
        }

    def run(self) -> list[str]:
        """Runs every command in order; returns what ``print`` commands printed."""
        log: list[str] = []
        for k, command in enumerate(self.commands):
            where = f"commands[{k}]"
            kind = str(command["type"]).lower()
            if kind == "dispatch":
                buffers = self.buffers()
                for name, data in self._dispatch(command, where, buffers).items():
                    self.resources[name].data[:] = np.asarray(data).tobytes()
            elif kind == "print":
                resource = self._resource(command.get("resource"), f"{where}.resource")
                if resource.data_type is None:
                    raise _error(f"{where}.resource", "a resource with an "
                                 "initialValuesDataType (DxDispatch prints typed buffers)",
                                 command["resource"])  # fmt: skip
                log.append(_printed(command["resource"], resource, bool(command.get("verbose"))))
            else:
                self._write_file(command, where)
        return log

    def as_function(self) -> Callable[[Mapping[str, jax.Array]], Buffers]:
        """The dispatch commands, in order, as one pure function of the resources' bytes
        (``print`` and ``writeFile`` are the host's and left out): jit it, vmap it, or
        differentiate through it like any JAX function.

        >>> import jax, dmljax as dml
        >>> model = dml.load_dxdispatch('''{"resources": {
        ...   "A": {"initialValuesDataType": "INT8", "initialValues": [1, 2]},
        ...   "Out": {"initialValuesDataType": "INT8", "initialValues": [0, 0, 0, 0]}},
        ...   "dispatchables": {"tile": {"type": "TILE", "desc": {
        ...     "InputTensor": {"DataType": "INT8", "Sizes": [2]},
        ...     "OutputTensor": {"DataType": "INT8", "Sizes": [4]},
        ...     "RepeatsCount": 1, "Repeats": [2]}}},
        ...   "commands": [{"type": "dispatch", "dispatchable": "tile",
        ...                 "bindings": {"InputTensor": "A", "OutputTensor": "Out"}}]}''')
        >>> jax.jit(model.as_function())(model.buffers())["Out"]
        Array([1, 2, 1, 2], dtype=uint8)
        """
        dispatches = [
            (f"commands[{k}]", command)
            for k, command in enumerate(self.commands)
            if str(command["type"]).lower() == "dispatch"
        ]
        sizes = {name: len(r.data) for name, r in self.resources.items()}

        def run(buffers: Mapping[str, jax.Array]) -> Buffers:
            if not isinstance(buffers, Mapping) or set(buffers) != set(sizes):
                given = sorted(buffers) if isinstance(buffers, Mapping) else type(buffers)
                raise _error("buffers", f"the bytes of every resource ({', '.join(sizes)})",
                             given)  # fmt: skip
            current = dict(buffers)
            for name, data in current.items():
                if jnp.shape(data)[-1:] != (sizes[name],) or jnp.result_type(data) != np.uint8:
                    given = f"{jnp.result_type(data)}{list(jnp.shape(data))}"
                    raise _error(f"buffers[{name!r}]",
                                 f"uint8[{sizes[name]}] (the resource's bytes)", given)  # fmt: skip
            for where, command in dispatches:
                current.update(self._dispatch(command, where, current))
            return current

        return run

    def _resource(self, name: Any, where: str) -> Resource:
        if name not in self.resources:
            raise _error(where, f"a resource name ({', '.join(self.resources)})", repr(name))
        return self.resources[name]

    def _bound(self, binding: Any, where: str) -> tuple[str, int]:
        """A binding's resource name and byte offset."""
        if isinstance(binding, str):
            self._resource(binding, where)
            return binding, 0
        if not isinstance(binding, Mapping):
            raise _error(where, "a resource name or a binding object", repr(binding))
        for key in ("format", "counter", "counterOffsetBytes"):
            if key in binding:
                raise _error(f"{where}.{key}", "absent (HLSL bindings only)", binding[key])
        name = str(binding.get("name"))
        resource = self._resource(binding.get("name"), f"{where}.name")
        # Without a data type (a mixed array) the element size is 0, as in DxDispatch.
        default = 0 if resource.data_type is None else resource.data_type.dtype.itemsize
        size = int(binding.get("elementSizeInBytes", default))
        return name, int(binding.get("elementOffset", 0)) * size

    def _entries(
        self, point: _BindPoint, bindings: Mapping[str, Any], where: str
    ) -> list[tuple[str, str, int]] | None:
        """Where each tensor of ``point`` is bound: (label, resource, byte offset); None
        for an optional point left unbound."""
        given = bindings.get(point.name)
        if given is None and point.optional:
            return None
        entries = given if isinstance(given, list) else [given]
        count = len(point.tensors)
        if given is None or len(entries) != count:
            raise _error(f"{where}.{point.name}", f"{count} resources",
                         0 if given is None else len(entries))  # fmt: skip
        return [
            (f"{where}.{point.name}[{i}]", *self._bound(e, f"{where}.{point.name}"))
            for i, e in enumerate(entries)
        ]

    def _check_names(
        self, bindings: Any, points: Sequence[_BindPoint], where: str, what: str
    ) -> Mapping[str, Any]:
        if not isinstance(bindings, Mapping):
            raise _error(where, "an object of bind points", repr(bindings)[:80])
        names = [p.name for p in points]
        for name in bindings:
            if name not in names:
                raise _error(f"{where}.{name}", f"{what} ({', '.join(names) or 'none'})", name)
        return bindings

    def _initialize(
        self, spec: Mapping[str, Any], dispatchable: _Dispatchable, buffers: Buffers, where: str
    ) -> dict[str, list[jax.Array]]:
        """The OWNED_BY_DML inputs' values, read once from the dispatchable's bindings."""
        owned = [p for p in dispatchable.inputs if p.owned]
        where = f"{where}.bindings"
        bindings = self._check_names(spec.get("bindings", {}), owned, where,
                                     "an OWNED_BY_DML input, the only ones bound when "
                                     "DirectML initializes")  # fmt: skip
        values = {}
        for point in owned:
            entries = self._entries(point, bindings, where)
            assert entries is not None  # an owned point has tensors
            values[point.name] = [
                _read(buffers[name], offset, tensor, label)
                for (label, name, offset), tensor in zip(entries, point.tensors, strict=True)
                if tensor is not None
            ]
        return values

    def _dispatch(self, command: Mapping[str, Any], where: str, buffers: Buffers) -> Buffers:
        """What a dispatch writes: the new bytes of the resources it writes."""
        name = command.get("dispatchable")
        if name not in self.dispatchables:
            raise _error(f"{where}.dispatchable", f"a dispatchable name "
                         f"({', '.join(self.dispatchables)})", repr(name))  # fmt: skip
        dispatchable = self.dispatchables[name]
        where = f"{where}.bindings"
        points = (*dispatchable.inputs, *dispatchable.outputs)
        bindings = self._check_names(command.get("bindings", {}), points, where,
                                     f"a bind point of '{name}'")  # fmt: skip
        arrays: list[Any] = []
        for point in dispatchable.inputs:
            if point.owned:
                if point.name in bindings:
                    raise _error(f"{where}.{point.name}", "no binding: the input is "
                                 "OWNED_BY_DML, bound by the dispatchable's bindings when it "
                                 "was initialized", bindings[point.name])  # fmt: skip
                arrays += self._initialized[name][point.name]
                continue
            entries = self._entries(point, bindings, where)
            if entries is None:
                arrays += [None] * len(point.tensors)
                continue
            for (label, resource, offset), tensor in zip(entries, point.tensors, strict=True):
                arrays.append(
                    None if tensor is None else _read(buffers[resource], offset, tensor, label)
                )
        results = iter(dispatchable.function(*arrays))
        written: Buffers = {}
        ranges: dict[str, list[tuple[int, int, str]]] = {}
        for point in dispatchable.outputs:
            entries = self._entries(point, bindings, where)
            assert entries is not None  # an output point has tensors
            for (label, resource, offset), tensor in zip(entries, point.tensors, strict=True):
                value = next(results)
                assert tensor is not None
                end = offset + tensor.bound_element_count * tensor.dtype.itemsize
                for start, stop, other in ranges.setdefault(resource, []):
                    if offset < stop and start < end:
                        raise _error(label, f"bytes no other output writes ({other} writes "
                                     f"bytes {start} to {stop} of '{resource}'; DirectML: "
                                     "outputs must not overlap)",
                                     f"bytes {offset} to {end}")  # fmt: skip
                ranges[resource].append((offset, end, label))
                data = written.get(resource, buffers[resource])
                written[resource] = _write(data, offset, tensor, value, label)
        return written

    def _write_file(self, command: Mapping[str, Any], where: str) -> None:
        resource = self._resource(command.get("resource"), f"{where}.resource")
        target = pathlib.Path(str(command.get("targetPath")))
        if not target.is_absolute():
            target = self._folder / target
        # The whole buffer, as DxDispatch writes it: .npy shaped by "dimensions" (else
        # 1-D), any other file its raw bytes; images are DxDispatch's alone.
        suffix = target.suffix.lower()
        if suffix in (".png", ".jpg"):
            raise _error(f"{where}.targetPath", "a file that is not an image (dmljax writes "
                         "no images)", str(target))  # fmt: skip
        target.parent.mkdir(parents=True, exist_ok=True)
        if suffix != ".npy":
            target.write_bytes(bytes(resource.data))
            return
        if resource.data_type is None:
            raise _error(f"{where}.resource", "a resource with an initialValuesDataType "
                         "(a .npy file is typed)", command.get("resource"))  # fmt: skip
        dtype = resource.data_type.dtype
        values = np.frombuffer(bytes(resource.data), dtype, len(resource.data) // dtype.itemsize)
        dimensions = command.get("dimensions", [values.size])
        count = int(np.prod(dimensions))
        if count > values.size:
            raise _error(f"{where}.dimensions", f"at most {values.size} elements (the "
                         "resource's)", dimensions)  # fmt: skip
        np.save(target, values[:count].reshape(dimensions))


def _read(data: jax.Array, offset: int, tensor: TensorDesc, where: str) -> jax.Array:
    """The tensor a binding gives an operator: ``tensor``'s bytes from ``offset``."""
    end = offset + tensor.bound_element_count * tensor.dtype.itemsize
    size = data.shape[-1]
    if end > size:
        raise _error(where, f"a resource of at least {end} bytes from its offset {offset}",
                     f"{size} bytes")  # fmt: skip
    return read_bytes(data[offset:end], tensor)


def _write(data: jax.Array, offset: int, tensor: TensorDesc, value: Any, where: str) -> jax.Array:
    """``data`` with an operator's output written from ``offset``, as ``tensor`` binds it."""
    raw = element_bytes(jnp.asarray(value, tensor.dtype))
    end = offset + raw.shape[0]
    if end > data.shape[-1]:
        raise _error(where, f"a resource of at least {end} bytes", f"{data.shape[-1]} bytes")
    return data.at[offset:end].set(raw)


def load_dxdispatch(
    source: str | os.PathLike[str],
    *,
    feature_level: FeatureLevel | int = FeatureLevel.LATEST,
    deterministic: bool = False,
) -> DxDispatchModel:
    """Loads a DxDispatch JSON model (a path, or the JSON text itself) and compiles its
    DirectML operator dispatchables at ``feature_level``, with ``deterministic`` as
    :func:`dmljax.compile_operator` takes it (a defined winner among duplicate scatter
    indices, which DirectML leaves undefined).

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
    if not isinstance(deterministic, bool):
        raise _error("deterministic", "a bool", repr(deterministic))
    options = {"feature_level": level, "deterministic": deterministic}
    text = os.fspath(source)
    if text.lstrip().startswith("{"):
        return DxDispatchModel(_parse(text, "model"), pathlib.Path.cwd(), options)
    path = pathlib.Path(text)
    try:
        content = path.read_text()
    except OSError as error:
        raise _error("source", "a readable JSON model file", f"{text} ({error.strerror})") from None
    return DxDispatchModel(_parse(content, str(path)), path.parent, options)
