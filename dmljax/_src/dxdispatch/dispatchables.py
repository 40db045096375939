"""DxDispatch's dispatchables: DirectML operators (compiled as an operator or as a
one-node graph), and the unmerged branch's ``DML_GRAPH_DESC`` graphs of them."""

from __future__ import annotations

import dataclasses
import functools
import pathlib
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import jax
import numpy as np

from dmljax._src.compile import compile_operator
from dmljax._src.contract import Operator, Role, tensor_fields
from dmljax._src.dtypes import DataType
from dmljax._src.dxdispatch.json_model import (
    enum_name,
    json_uint,
    model_error,
    parse_data_type,
    pascal_case,
    snake_case,
)
from dmljax._src.graph import (
    GraphDesc,
    InputGraphEdgeDesc,
    IntermediateGraphEdgeDesc,
    OperatorGraphNodeDesc,
    OutputGraphEdgeDesc,
    check_edges,
    compile_graph,
    one_node_graph,
)
from dmljax._src.ops import OPERATORS
from dmljax._src.serialized.graph import load_serialized_graph
from dmljax._src.tensor_desc import TensorDesc, TensorFlags
from dmljax.errors import InvalidArgumentError

__all__ = ["BindPoint", "Dispatchable", "desc_of", "parse_dispatchables"]


def _tensor(spec: Any, where: str) -> TensorDesc:
    if not isinstance(spec, Mapping):
        raise model_error(where, "a tensor desc object", repr(spec))
    if "Desc" in spec:  # the full form: { "Type": "DML_TENSOR_TYPE_BUFFER", "Desc": { ... } }
        kind = enum_name(spec.get("Type", "BUFFER"), "DML_TENSOR_TYPE_", f"{where}.Type")
        if kind != "BUFFER":
            raise model_error(f"{where}.Type", "DML_TENSOR_TYPE_BUFFER", spec.get("Type"))
        spec = spec["Desc"]
    flags = spec.get("Flags", "NONE")
    names = [
        enum_name(f, "DML_TENSOR_FLAG_", f"{where}.Flags")
        for f in (flags if isinstance(flags, list) else [flags])
    ]
    for name in names:
        if name not in TensorFlags.__members__:
            raise model_error(
                f"{where}.Flags", "DML_TENSOR_FLAG_NONE or DML_TENSOR_FLAG_OWNED_BY_DML", name
            )
    sizes = spec.get("Sizes")
    if (
        "DimensionCount" in spec
        and isinstance(sizes, list)
        and spec["DimensionCount"] != len(sizes)
    ):
        raise model_error(
            f"{where}.DimensionCount", f"{len(sizes)} (the length of Sizes)", spec["DimensionCount"]
        )
    fields: dict[str, Any] = {
        "data_type": parse_data_type(spec.get("DataType"), f"{where}.DataType"),
        "sizes": sizes,
        "strides": spec.get("Strides"),
        "guaranteed_base_offset_alignment": spec.get("GuaranteedBaseOffsetAlignment", 0),
        "flags": sum((TensorFlags[n] for n in names), TensorFlags.NONE),
    }
    if spec.get("TotalTensorSizeInBytes"):  # 0 or absent: DMLCalcBufferTensorSize, as in DxDispatch
        fields["total_tensor_size_in_bytes"] = spec["TotalTensorSizeInBytes"]
    return TensorDesc(**fields)


def _operator(type_name: Any, where: str) -> Operator[Any]:
    name = enum_name(type_name, "DML_OPERATOR_", where)
    for operator in OPERATORS:
        if f"DML_OPERATOR_{name}" in (operator.name, *operator.aliases):
            return operator
    known = ", ".join(op.name.removeprefix("DML_OPERATOR_") for op in OPERATORS)
    raise model_error(
        where,
        f"an operator dmljax implements ({known})",
        type_name,
        hint="HLSL and ONNX dispatchables are not run.",
    )


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
    "Int8": np.int8,
    "Int16": np.int16,
    "Int32": np.int32,
    "Int64": np.int64,
    "UInt8": np.uint8,
    "UInt16": np.uint16,
    "UInt32": np.uint32,
    "UInt64": np.uint64,
    "Float32": np.float32,
    "Float64": np.float64,
}


def _scalar_union(value: Mapping[str, Any], data_type: Any, where: str) -> int | float:
    """A ``DML_SCALAR_UNION`` given by member (``{"UInt16": 15360}``): that member's bytes
    read as the sibling data type, as the C union is read (15360 as FLOAT16 is 1.0)."""
    if len(value) != 1 or next(iter(value)) not in _UNION_MEMBERS:
        raise model_error(
            where,
            f"a number or one member of DML_SCALAR_UNION ({', '.join(_UNION_MEMBERS)})",
            dict(value),
        )
    if not isinstance(data_type, DataType):
        raise model_error(
            where, "a number (a union by member needs its sibling ...DataType field)", dict(value)
        )
    ((member, number),) = value.items()
    try:
        raw = np.array(number, _UNION_MEMBERS[member]).tobytes().ljust(8, b"\0")
    except (OverflowError, ValueError, TypeError):
        raise model_error(where, f"a value a {member} holds", number) from None
    return np.frombuffer(raw[: data_type.dtype.itemsize], data_type.dtype)[0].item()


# Count fields whose array's name is no prefix of their own: AxisCount counts Axes.
_PLURALS = {"axis": "axes"}


def desc_of(operator: Operator[Any], spec: Any, where: str) -> Any:
    """The desc of ``operator`` a JSON object of its C struct's fields describes.

    ``spec`` names fields as DirectML's C structs do (``InputTensor``, ``Axis``); tensors
    are ``{"DataType": ..., "Sizes": [...]}`` objects (a list of them for a tensor
    array), enums their names, ``...Count`` fields the lengths of their arrays. Errors
    name the field by its path from ``where``.

    >>> import dmljax as dml
    >>> tile = next(op for op in dml.OPERATORS if op.name == "DML_OPERATOR_TILE")
    >>> desc_of(tile, {"InputTensor": {"DataType": "FLOAT32", "Sizes": [2]},
    ...                "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]},
    ...                "RepeatsCount": 1, "Repeats": [2]}, "desc").repeats
    (2,)
    """
    if not isinstance(spec, Mapping):
        raise model_error(where, "an object of the desc's fields", repr(spec)[:80])
    fields = {f.name: f for f in dataclasses.fields(operator.desc_type)}
    tensors = {f.name for f in tensor_fields(operator.desc_type)}
    kwargs: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for key, value in spec.items():
        name = snake_case(key)
        if name in fields:
            if name in tensors:
                kwargs[name] = (
                    tuple(_tensor(v, f"{where}.{key}[{i}]") for i, v in enumerate(value))
                    if isinstance(value, list)
                    else _tensor(value, f"{where}.{key}")
                )
            elif isinstance(value, Mapping) and "Type" in value:
                # A DML_OPERATOR_DESC field (ADD1's FusedActivation): the named operator's
                # desc, its fields beside "Type".
                nested = _operator(value["Type"], f"{where}.{key}.Type")
                rest = {k: v for k, v in value.items() if k != "Type"}
                kwargs[name] = desc_of(nested, rest, f"{where}.{key}")
            elif (
                isinstance(value, list)
                and value
                and all(isinstance(v, Mapping) and "Type" in v for v in value)
            ):
                # A DML_OPERATOR_DESC array (RNN's ActivationDescs): each its type's desc.
                kwargs[name] = tuple(
                    desc_of(
                        _operator(v["Type"], f"{where}.{key}[{i}].Type"),
                        {k: x for k, x in v.items() if k != "Type"},
                        f"{where}.{key}[{i}]",
                    )
                    for i, v in enumerate(value)
                )
            else:
                kwargs[name] = _attribute(value)
        elif key.endswith("Count"):
            counts[key] = value  # InputCount, RepeatsCount, DimensionCount: the C arrays' lengths
        else:
            raise model_error(
                f"{where}.{key}", f"a field of {operator.desc_type.__name__}'s C struct", key
            )
    for key, count in counts.items():
        stem = snake_case(key.removesuffix("Count"))
        stem = _PLURALS.get(stem, stem)
        lengths = {
            name: len(value)
            for name, value in kwargs.items()
            if isinstance(value, tuple) and (name.startswith(stem) or stem == "dimension")
        }
        wrong = {name: n for name, n in lengths.items() if n != count}
        if wrong:
            name, n = next(iter(wrong.items()))
            raise model_error(f"{where}.{key}", f"{n} (the length of {name})", count)
    for name, value in kwargs.items():
        # A scalar union by member; other objects (a ScaleBias) are their field's to read.
        if isinstance(value, Mapping) and f"{name}_data_type" in fields:
            key = next(k for k in spec if snake_case(k) == name)
            kwargs[name] = _scalar_union(value, kwargs.get(f"{name}_data_type"), f"{where}.{key}")
    try:
        return operator.desc_type(**kwargs)
    except InvalidArgumentError as error:  # a field's own rule (a repeat that is no integer)
        field = re.sub(r"[a-z]+(?:_[a-z0-9]+)*", lambda w: pascal_case(w.group(0)), error.field)
        raise model_error(
            f"{where}.{field}", error.expected, error.given, hint=error.hint
        ) from None
    except TypeError as error:
        raise model_error(
            where, f"every field of {operator.desc_type.__name__}", str(error)
        ) from None


_EXECUTION_FLAGS = (
    "NONE",
    "ALLOW_HALF_PRECISION_COMPUTATION",
    "DISABLE_META_COMMANDS",
    "DESCRIPTORS_VOLATILE",
)
_COMPILE_TYPES = ("DmlCompileOp", "DmlCompileGraph")


@dataclasses.dataclass(frozen=True)
class BindPoint:
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
class Dispatchable:
    """A compiled dispatchable: ``function`` takes one array (None for an unread graph
    input) per tensor of ``inputs`` and returns one per tensor of ``outputs``."""

    function: Callable[..., tuple[jax.Array, ...]]
    inputs: tuple[BindPoint, ...]
    outputs: tuple[BindPoint, ...]
    desc: Any  # the operator desc; None for a graph


def _bind_points(desc: Any, role: Role) -> tuple[BindPoint, ...]:
    points = []
    for field in tensor_fields(type(desc), role):
        value = getattr(desc, field.name)
        if value is not None:
            tensors = tuple(value) if field.metadata["many"] else (value,)
            points.append(BindPoint(pascal_case(field.name), tensors))
    return tuple(points)


def _allows_half_precision(spec: Mapping[str, Any], where: str) -> bool:
    """The dispatchable's ``executionFlags``, checked: whether they hold
    ``ALLOW_HALF_PRECISION_COMPUTATION`` (compile_operator's ``allow_half_precision``).
    Descriptors and meta commands are DirectML's own: their flags change nothing here."""
    given = spec.get("executionFlags", "NONE")
    names = []
    for value in given if isinstance(given, list) else [given]:
        name = enum_name(value, "DML_EXECUTION_FLAG_", where)
        if name not in _EXECUTION_FLAGS:
            raise model_error(where, f"DML_EXECUTION_FLAG_ {', '.join(_EXECUTION_FLAGS)}", name)
        names.append(name)
    return "ALLOW_HALF_PRECISION_COMPUTATION" in names


def _pascal_path(text: str) -> str:
    """A graph's field names as the model spells them: ``input_edges[2].to_node_index`` is
    ``InputEdges[2].ToNodeIndex``."""
    return re.sub(
        r"\b(?:input_edges|output_edges|intermediate_edges|nodes|input_count|output_count)"
        r"(?:\[\d+\])?(?:\.[a-z_]+(?:\[\d+\])?)*",
        lambda m: re.sub(r"[a-z]+(?:_[a-z]+)*", lambda w: pascal_case(w.group(0)), m.group(0)),
        text,
    )


_FIELD_WORD = r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*"


def _desc_path(text: str) -> str:
    """An operator desc's field path as the model spells it: ``output_tensor.sizes`` is
    ``OutputTensor.Sizes``, ``start_padding[0]`` is ``StartPadding[0]``."""
    return re.sub(_FIELD_WORD, lambda w: pascal_case(w.group(0)), text)


def _desc_names(text: str) -> str:
    """The desc field paths in an error's prose, as the model spells them: a path with an
    underscore (``input_tensor.sizes plus start_padding``); other words stay."""
    path = rf"\b{_FIELD_WORD}(?:\[\d+\])?(?:\.{_FIELD_WORD}(?:\[\d+\])?)*"
    return re.sub(
        path,
        lambda m: _desc_path(m.group(0)) if "_" in m.group(0) else m.group(0),
        text,
    )


def _within(
    where: str,
    compile: Callable[[], Any],
    path: Callable[[str], str] = _pascal_path,
    prose: Callable[[str], str] = _pascal_path,
) -> Any:
    """``compile()``, its errors named under ``where`` with the model's field names:
    ``path`` renames the error's field, ``prose`` the names in its explanation."""
    try:
        return compile()
    except InvalidArgumentError as error:
        raise model_error(
            f"{where}.{path(error.field)}", prose(error.expected), error.given, hint=error.hint
        ) from None


def _operator_dispatchable(
    spec: Mapping[str, Any], where: str, options: Mapping[str, Any]
) -> Dispatchable:
    operator = _operator(spec.get("type"), f"{where}.type")
    desc = desc_of(operator, spec.get("desc", spec.get("Desc")), f"{where}.desc")
    inputs, outputs = _bind_points(desc, Role.INPUT), _bind_points(desc, Role.OUTPUT)
    for point in inputs:
        if point.owned and not all(t is not None and t.flags for t in point.tensors):
            raise model_error(
                f"{where}.desc.{point.name}",
                "every tensor OWNED_BY_DML or none (dmljax binds a bind point at one time)",
                "some of them",
            )
    half = _allows_half_precision(spec, f"{where}.executionFlags")
    options = {**options, "allow_half_precision": half}
    compile_type = spec.get("dmlCompileType", "DmlCompileOp")
    if compile_type == "DmlCompileOp":
        compiled = _within(
            f"{where}.desc", lambda: compile_operator(desc, **options), _desc_path, _desc_names
        )

        def run_operator(*arrays: Any) -> tuple[jax.Array, ...]:
            result = compiled(*arrays)
            return result if isinstance(result, tuple) else (result,)

        return Dispatchable(run_operator, inputs, outputs, desc)
    if compile_type != "DmlCompileGraph":
        raise model_error(f"{where}.dmlCompileType", " or ".join(_COMPILE_TYPES), compile_type)
    graph = one_node_graph(desc)
    compiled_graph = _within(where, lambda: compile_graph(graph, **options))
    present = tuple(e.graph_input_index for e in graph.input_edges)

    def run_graph(*arrays: Any) -> tuple[jax.Array, ...]:
        full: list[Any] = [None] * graph.input_count
        for index, array in zip(present, arrays, strict=True):
            full[index] = array
        return compiled_graph(*full)

    return Dispatchable(run_graph, inputs, outputs, desc)


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
    allow_half_precision: bool
    """Its ``executionFlags`` hold ``ALLOW_HALF_PRECISION_COMPUTATION``."""


_EDGE_FIELDS: dict[type, tuple[str, ...]] = {
    InputGraphEdgeDesc: ("GraphInputIndex", "ToNodeIndex", "ToNodeInputIndex"),
    IntermediateGraphEdgeDesc: (
        "FromNodeIndex",
        "FromNodeOutputIndex",
        "ToNodeIndex",
        "ToNodeInputIndex",
    ),
    OutputGraphEdgeDesc: ("FromNodeIndex", "FromNodeOutputIndex", "GraphOutputIndex"),
}

Edge = TypeVar("Edge", InputGraphEdgeDesc, IntermediateGraphEdgeDesc, OutputGraphEdgeDesc)


def _edges(desc: Mapping[str, Any], key: str, kind: type[Edge], where: str) -> tuple[Edge, ...]:
    given = desc.get(key, [])
    if not isinstance(given, list):
        raise model_error(f"{where}.{key}", "an array of edge objects", repr(given)[:80])
    edges = []
    for k, edge in enumerate(given):
        at = f"{where}.{key}[{k}]"
        if not isinstance(edge, Mapping):
            raise model_error(at, "an edge object", repr(edge)[:80])
        missing = [f for f in _EDGE_FIELDS[kind] if f not in edge]
        if missing:
            raise model_error(f"{at}.{missing[0]}", "an index", "nothing")
        fields: dict[str, Any] = {
            snake_case(f): json_uint(edge[f], f"{at}.{f}", 32) for f in _EDGE_FIELDS[kind]
        }
        fields["name"] = str(edge.get("Name", ""))
        edges.append(_within(at, functools.partial(kind, **fields)))
    return tuple(edges)


def _graph_layout(spec: Mapping[str, Any], where: str) -> _GraphLayout:
    """A graph dispatchable's counts, nodes and edges, checked as far as they can be
    without the nodes' operators (the unmerged DxDispatch branch's ``DML_GRAPH_DESC``)."""
    desc = spec.get("desc", spec.get("Desc"))
    at = f"{where}.desc"
    if not isinstance(desc, Mapping):
        raise model_error(at, "an object of DML_GRAPH_DESC's fields", repr(desc)[:80])
    counts = []
    for key in ("InputCount", "OutputCount"):
        counts.append(json_uint(desc.get(key), f"{at}.{key}", 32))
    half = _allows_half_precision(spec, f"{where}.executionFlags")
    nodes = desc.get("Nodes")
    if not isinstance(nodes, list):
        raise model_error(f"{at}.Nodes", "an array of node objects", repr(nodes)[:80])
    for i, node in enumerate(nodes):
        kind = node.get("Type") if isinstance(node, Mapping) else None
        if enum_name(kind, "DML_GRAPH_NODE_TYPE_", f"{at}.Nodes[{i}].Type") != "OPERATOR":
            raise model_error(
                f"{at}.Nodes[{i}].Type",
                "DML_GRAPH_NODE_TYPE_OPERATOR (the model format has no constant data nodes)",
                kind,
            )
    layout = _GraphLayout(
        counts[0],
        counts[1],
        tuple(node.get("Name") for node in nodes),
        _edges(desc, "InputEdges", InputGraphEdgeDesc, at),
        _edges(desc, "IntermediateEdges", IntermediateGraphEdgeDesc, at),
        _edges(desc, "OutputEdges", OutputGraphEdgeDesc, at),
        half,
    )
    _within(
        at,
        lambda: check_edges(
            layout.input_count,
            layout.output_count,
            len(nodes),
            layout.input_edges,
            layout.intermediate_edges,
            layout.output_edges,
        ),
    )
    return layout


def _graph_dispatchable(
    layout: _GraphLayout,
    operators: Mapping[str, Dispatchable],
    where: str,
    options: Mapping[str, Any],
) -> Dispatchable:
    nodes = []
    for i, name in enumerate(layout.node_names):
        if name not in operators:
            raise model_error(
                f"{where}.desc.Nodes[{i}].Name",
                f"the name of a DirectML operator dispatchable ({', '.join(operators)})",
                repr(name),
            )
        nodes.append(OperatorGraphNodeDesc(operator=operators[name].desc, name=name))
    graph = GraphDesc(
        input_count=layout.input_count,
        output_count=layout.output_count,
        nodes=tuple(nodes),
        input_edges=layout.input_edges,
        intermediate_edges=layout.intermediate_edges,
        output_edges=layout.output_edges,
    )
    options = {**options, "allow_half_precision": layout.allow_half_precision}
    compiled = _within(f"{where}.desc", lambda: compile_graph(graph, **options))
    # A DML_GRAPH_DESC's edge names bind nothing: DxDispatch's branch names them in_<i> ...
    return _graph_bound(compiled)


def _graph_bound(
    compiled: Any, inputs: Mapping[int, str] = {}, outputs: Mapping[int, str] = {}
) -> Dispatchable:
    """A compiled graph bound by the names given for its inputs and outputs by index, the
    rest as DxDispatch's graph branch names them: ``in_<i>``, ``out_<j>``."""
    return Dispatchable(
        compiled,
        tuple(
            BindPoint(inputs.get(i, f"in_{i}"), (t,)) for i, t in enumerate(compiled.input_descs)
        ),
        tuple(
            BindPoint(outputs.get(j, f"out_{j}"), (t,)) for j, t in enumerate(compiled.output_descs)
        ),
        None,
    )


def parse_dispatchables(
    specs: Any, options: Mapping[str, Any], folder: pathlib.Path
) -> dict[str, Dispatchable]:
    """Every dispatchable compiled with ``options`` (``compile_operator``'s keywords);
    ``folder`` is the model's, which a serialized graph's ``sourcePath`` starts from."""
    if not isinstance(specs, Mapping):
        raise model_error("dispatchables", "an object of named dispatchables", repr(specs)[:80])
    # A graph's wiring is checked first: it is wrong whatever its nodes' operators are.
    layouts = {
        name: _graph_layout(spec, f"dispatchables.{name}")
        for name, spec in specs.items()
        if _is_graph(spec)
    }
    operators: dict[str, Dispatchable] = {}
    serialized: dict[str, Dispatchable] = {}
    for name, spec in specs.items():
        where = f"dispatchables.{name}"
        if name in layouts:
            continue
        if not isinstance(spec, Mapping):
            raise model_error(where, "a dispatchable object", repr(spec)[:80])
        kind = spec.get("type")
        if isinstance(kind, str) and kind.lower() in ("hlsl", "onnx"):
            raise model_error(
                f"{where}.type",
                "a DirectML operator, a DML_GRAPH_DESC or a dmlSerializedGraph (dmljax runs "
                "no HLSL or ONNX dispatchables)",
                kind,
            )
        if isinstance(kind, str) and kind.lower() == "dmlserializedgraph":
            serialized[name] = _serialized_graph_dispatchable(spec, where, options, folder)
            continue
        operators[name] = _operator_dispatchable(spec, where, options)
    compiled = {**operators, **serialized}
    return {
        name: compiled[name]
        if name in compiled
        else _graph_dispatchable(layouts[name], operators, f"dispatchables.{name}", options)
        for name in specs
    }


def _from_file(where: str, source: str, make: Callable[[], Any]) -> Any:
    """``make()``, its refusal named by the model's ``sourcePath`` and then the field of
    the file (or of the graph it holds) as the refusal names it."""
    try:
        return make()
    except InvalidArgumentError as error:
        inner = "" if error.field == "path" else f": {error.field}"
        raise model_error(
            f"{where}.sourcePath ({source}){inner}", error.expected, error.given, hint=error.hint
        ) from None


def _serialized_graph_dispatchable(
    spec: Mapping[str, Any], where: str, options: Mapping[str, Any], folder: pathlib.Path
) -> Dispatchable:
    """A ``dmlSerializedGraph``: the graph its ``sourcePath`` holds (resolved against the
    model's folder, then the working one, as DxDispatch resolves paths), its constants
    beside it; bound by its inputs' and outputs' names."""
    source = spec.get("sourcePath")
    if not isinstance(source, str) or not source:
        raise model_error(f"{where}.sourcePath", "the path of a serialized graph", repr(source))
    unknown = sorted(set(spec) - {"type", "sourcePath", "executionFlags"})
    if unknown:
        raise model_error(
            f"{where}.{unknown[0]}", "a field of a dmlSerializedGraph (sourcePath, "
            "executionFlags)", unknown[0],
        )  # fmt: skip
    path = folder / source
    if not path.exists():
        path = pathlib.Path(source)
    graph = _from_file(where, source, lambda: load_serialized_graph(path))
    options = {**options, "allow_half_precision": _allows_half_precision(spec, where)}
    compiled = _from_file(where, source, lambda: compile_graph(graph, **options))
    return _graph_bound(
        compiled,
        {e.graph_input_index: e.name for e in graph.input_edges},
        {e.graph_output_index: e.name for e in graph.output_edges},
    )
