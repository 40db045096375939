"""onnxruntime's DirectML serialized graph (``DmlGraphDesc``, the FlatBuffers schema of
DirectML's ``DmlGraphDesc_generated.h``) read into a :class:`dmljax.GraphDesc`:
:func:`load_serialized_graph`.

A serialized graph names its edges: each node lists the names of its inputs and outputs
(an empty name for an absent optional tensor), the graph the names of its inputs and
outputs, and a name that is neither joins the node that outputs it to those that read
it. Operator nodes hold their operator's type, tensor descs and attributes; constant
nodes hold their bytes or the name of a ``<name>.bin`` file beside the graph's. Nodes
come in topological order, as the format requires.

>>> import dmljax as dml
>>> # DirectML's DxDispatch/models/matmul_add, kept in dmljax's tests/data (a checkout).
>>> graph = dml.load_serialized_graph("tests/data/dxdispatch/matmul_add/Partition_0.bin")
>>> [type(node).__name__ for node in graph.nodes]
['ConstantDataGraphNodeDesc', 'ConstantDataGraphNodeDesc', 'OperatorGraphNodeDesc']
>>> [edge.name for edge in graph.input_edges], [edge.name for edge in graph.output_edges]
(['model_input'], ['model_output'])
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
from typing import Any, TypeVar

import numpy as np

from dmljax._src import rules
from dmljax._src.c_names import snake_case
from dmljax._src.contract import Operator, OperatorDesc, Role, tensor_fields
from dmljax._src.dtypes import DataType
from dmljax._src.graph import (
    ConstantDataGraphNodeDesc,
    GraphDesc,
    InputGraphEdgeDesc,
    IntermediateGraphEdgeDesc,
    Node,
    OperatorGraphNodeDesc,
    OutputGraphEdgeDesc,
)
from dmljax._src.ops import OPERATORS
from dmljax._src.ops.element_wise import ScaleBias
from dmljax._src.ops.resample import Size2D
from dmljax._src.serialized.flatbuffer import FlatBufferError, Table
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import ArgumentError, InvalidArgumentError

__all__ = ["load_serialized_graph"]

_OP = "load_serialized_graph"
T = TypeVar("T")
_BY_NAME = {name: op for op in OPERATORS for name in (op.name, *op.aliases)}

# DmlGraphDesc's unions: NodeDesc, ConstantNodeDescDetail, AttributeFieldVariant.
_OPERATOR_NODE, _CONSTANT_NODE = 1, 2
_CONSTANT_NAME, _CONSTANT_RAW = 1, 2
_STRUCTS = {3: "<I", 4: "<Q", 5: "<i", 6: "<f", 10: "<ff", 11: "<II", 13: "<B"}
_ARRAYS = {7: "I", 8: "i", 9: "f"}
_ACTIVATION, _ACTIVATION_ARRAY, _SCALE_BIAS, _SIZE_2D, _SCALAR_UNION = 1, 2, 10, 11, 12


def load_serialized_graph(path: str | os.PathLike[str]) -> GraphDesc:
    """The graph a DirectML serialized graph file holds (onnxruntime's DirectML
    provider writes them; DxDispatch's ``dmlSerializedGraph`` dispatchable runs them).

    Each operator node becomes an :class:`~dmljax.OperatorGraphNodeDesc` of its desc,
    each constant node a :class:`~dmljax.ConstantDataGraphNodeDesc` of its bytes (a
    named constant's from ``<name>.bin`` in the file's folder, as DxDispatch reads
    them); the edges keep the names the file gives them, the graph's inputs and outputs
    in the file's order. Compile it with :func:`dmljax.compile_graph`.

    Raises:
        InvalidArgumentError: the file, or a field of it, is not what the format says;
            the error names the field by its path (``nodes[2].desc.inputs[0]``).

    >>> import numpy as np, dmljax as dml
    >>> # DirectML's DxDispatch/models/matmul_add, kept in dmljax's tests/data (a checkout).
    >>> graph = dml.load_serialized_graph("tests/data/dxdispatch/matmul_add/Partition_0.bin")
    >>> dml.compile_graph(graph)(np.full((1, 1, 1, 5), 1.5, np.float32))[0].ravel()
    Array([12.25, 12.25, 12.25, 12.25, 12.25], dtype=float32)
    """
    file = pathlib.Path(path)
    data = _read(file, "path", str(path))
    root = Table.root(data, "", _OP)
    return _Reader(file.parent).graph(root)


def _read(file: pathlib.Path, where: str, given: str) -> bytes:
    if not file.is_file():  # a folder, a device (/dev/zero) or a pipe has no end to read
        raise InvalidArgumentError(_OP, where, "a regular file", given)
    try:
        size = file.stat().st_size
        rules.require_fits_memory(size, op=_OP, field=where, given=given)
        return file.read_bytes()
    except OSError as error:
        raise InvalidArgumentError(_OP, where, "a readable file", f"{given} ({error})") from None


def _error(where: str, expected: str, given: Any) -> InvalidArgumentError:
    return InvalidArgumentError(_OP, where, expected, given)


def _required(value: T | None, where: str, what: str) -> T:
    if value is None:
        raise _error(where, what, "nothing (the field is absent)")
    return value


@dataclasses.dataclass
class _Reader:
    folder: pathlib.Path

    def graph(self, root: Table) -> GraphDesc:
        inputs = _required(root.strings(1, "graphInputNames"), "graphInputNames", "names")
        outputs = _required(root.strings(2, "graphOutputNames"), "graphOutputNames", "names")
        input_index = {name: i for i, name in enumerate(inputs) if name}
        output_index = {name: i for i, name in enumerate(outputs) if name}
        produced: dict[str, tuple[int, int]] = {}  # an edge name: (node, output)
        nodes: list[Node] = []
        input_edges, output_edges, intermediate_edges = [], [], []
        for n, table in enumerate(_required(root.tables(0, "nodes"), "nodes", "nodes")):
            at = f"nodes[{n}]"
            node = _required(table, at, "a DmlGraphNode")
            names = node.strings(3, "inputNames") or ()
            for i, name in enumerate(names):
                if not name:
                    continue  # an absent optional input
                if name in input_index:
                    input_edges.append(InputGraphEdgeDesc(
                        graph_input_index=input_index[name], to_node_index=n,
                        to_node_input_index=i, name=name))  # fmt: skip
                elif name in produced:
                    source, output = produced[name]
                    intermediate_edges.append(IntermediateGraphEdgeDesc(
                        from_node_index=source, from_node_output_index=output,
                        to_node_index=n, to_node_input_index=i, name=name))  # fmt: skip
                else:
                    raise _error(
                        f"{at}.inputNames[{i}]",
                        "a graph input's name or an earlier node's output's",
                        repr(name),
                    )
            for o, name in enumerate(node.strings(4, "outputNames") or ()):
                if not name:
                    continue
                produced[name] = (n, o)
                if name in output_index:
                    output_edges.append(OutputGraphEdgeDesc(
                        from_node_index=n, from_node_output_index=o,
                        graph_output_index=output_index[name], name=name))  # fmt: skip
            nodes.append(self.node(node, names, at))
        return GraphDesc(
            input_count=len(inputs),
            output_count=len(outputs),
            nodes=tuple(nodes),
            input_edges=tuple(input_edges),
            output_edges=tuple(output_edges),
            intermediate_edges=tuple(intermediate_edges),
        )

    def node(self, node: Table, input_names: tuple[str, ...], at: str) -> Node:
        name = node.string(2, "name")
        if not name:
            raise _error(f"{at}.name", "a node name", repr(name))
        kind = node.uint8(0, "desc_type")
        desc = node.table(1, "desc")
        if kind == _CONSTANT_NODE and desc is not None:
            return ConstantDataGraphNodeDesc(data=self.constant(desc, f"{at}.desc"), name=name)
        if kind == _OPERATOR_NODE and desc is not None:
            output_names = node.strings(4, "outputNames") or ()
            operator = _operator_desc(desc, input_names, output_names, f"{at}.desc")
            return OperatorGraphNodeDesc(operator=operator, name=name)
        raise _error(
            f"{at}.desc", "an OperatorNodeDesc or a ConstantNodeDesc", f"union type {kind}"
        )

    def constant(self, desc: Table, at: str) -> bytes:
        kind = desc.uint8(0, "data_type")
        detail = _required(desc.table(1, "data"), f"{at}.data", "the constant's data")
        if kind == _CONSTANT_RAW:
            return _required(detail.raw(0, "data"), f"{at}.data.data", "bytes")
        if kind != _CONSTANT_NAME:
            raise _error(f"{at}.data_type", "ConstantName (1) or ConstantRawData (2)", kind)
        name = detail.string(0, "name")
        # A file beside the graph's: a name that leaves the folder is no constant's.
        if not name or name in (".", "..") or any(c in name for c in "/\\\0"):
            raise _error(f"{at}.data.name", "a constant's name (a file name, no folders)",
                         repr(name))  # fmt: skip
        file = self.folder / f"{name}.bin"
        return _read(file, f"{at}.data.name", f"{name!r}: {file}")


def _tensor(table: Table | None, at: str) -> TensorDesc:
    table = _required(table, at, "a DmlBufferTensorDesc")
    data_type = _required(table.string(0, "dataType"), f"{at}.dataType", "a data type")
    kind = DataType.__members__.get(data_type.removeprefix("DML_TENSOR_DATA_TYPE_"))
    if kind is None:
        raise _error(f"{at}.dataType", "a DML_TENSOR_DATA_TYPE name", repr(data_type))
    sizes = _required(table.scalars(1, "sizes", "I"), f"{at}.sizes", "sizes")
    strides = table.scalars(2, "strides", "I")
    total = table.uint64(3, "totalTensorSizeInBytes")
    fields: dict[str, Any] = {"data_type": kind, "sizes": tuple(sizes)}
    if strides is not None:
        fields["strides"] = tuple(strides)
    if total:
        fields["total_tensor_size_in_bytes"] = total
    return _within(at, lambda: TensorDesc(**fields))


def _within(at: str, make: Any) -> Any:
    """``make()``, its refusal of a field named by its path in the file."""
    try:
        return make()
    except FlatBufferError:
        raise
    except ArgumentError as error:
        raise _error(f"{at}.{error.field}", error.expected, error.given) from None
    except TypeError as error:  # a desc missing a field the file does not hold
        raise _error(at, "every field of the desc", str(error)) from None


def _operator_desc(
    desc: Table, input_names: tuple[str, ...], output_names: tuple[str, ...], at: str
) -> OperatorDesc[Any, *tuple[Any, ...]]:
    type_name = _required(desc.string(0, "type"), f"{at}.type", "an operator type")
    operator = _BY_NAME.get(type_name)
    if operator is None:
        raise _error(f"{at}.type", "a DML_OPERATOR_* dmljax implements", repr(type_name))
    fields: dict[str, Any] = {}
    for role, index, names in ((Role.INPUT, 1, input_names), (Role.OUTPUT, 2, output_names)):
        label = "inputs" if role is Role.INPUT else "outputs"
        given = list(desc.tables(index, label) or ())
        fields.update(_tensors(operator, role, names, given, f"{at}.{label}"))
    attributes = desc.tables(3, "attributes") or ()
    fields.update(_attributes(operator, attributes, f"{at}.attributes"))
    return _within(at, lambda: operator.desc_type(**fields))


def _tensors(
    operator: Operator[Any], role: Role, names: tuple[str, ...], given: list[Table | None],
    at: str,
) -> dict[str, Any]:  # fmt: skip
    """The desc's tensors of ``role``: one per name in field order (an empty name: an
    absent optional tensor), a tensor array taking the rest; each present one the next
    tensor desc of ``given``."""
    found: dict[str, Any] = {}
    taken = iter(range(len(given)))
    position = 0

    def next_tensor() -> TensorDesc:
        k = next(taken, None)
        if k is None:
            raise _error(at, f"a tensor desc for each named {role.value} ({len(given)} given)",
                         f"more names: {list(names)}")  # fmt: skip
        return _tensor(given[k], f"{at}[{k}]")

    for field in tensor_fields(operator.desc_type, role):
        if field.metadata["many"]:
            rest = [n for n in names[position:] if n]
            found[field.name] = tuple(next_tensor() for _ in rest)
            position = len(names)
            continue
        if position >= len(names):
            break  # the names end: the rest are absent
        name = names[position]
        position += 1
        if name:
            found[field.name] = next_tensor()
    return found


def _attributes(
    operator: Operator[Any], attributes: tuple[Table | None, ...], at: str
) -> dict[str, Any]:
    """The desc's attributes by their names (an entry without a value, a null
    attribute, leaves the field at its default); a ``...Count`` is its array's length."""
    fields = {f.name: f for f in dataclasses.fields(operator.desc_type)}
    found: dict[str, Any] = {}
    for k, table in enumerate(attributes):
        where = f"{at}[{k}]"
        if table is None or not table.has(2):
            continue
        name = _required(table.string(0, "name"), f"{where}.name", "an attribute name")
        snake = snake_case(name)
        if snake not in fields:
            if name.endswith("Count"):
                continue  # the length of the array it counts
            raise _error(f"{where}.name", f"a field of {operator.desc_type.__name__}", name)
        found[snake] = _value(table, fields[snake], where)
    for name, value in list(found.items()):
        if isinstance(value, bytes):  # a scalar union: its bytes as its sibling type reads them
            kind = found.get(f"{name}_data_type", DataType.FLOAT32)
            kind = kind if isinstance(kind, DataType) else _data_type(kind, f"{at}.{name}")
            found[name] = np.frombuffer(value[: kind.dtype.itemsize], kind.dtype)[0].item()
    return found


def _data_type(value: Any, at: str) -> DataType:
    try:
        return DataType(value)
    except ValueError:
        raise _error(at, "a DML_TENSOR_DATA_TYPE", value) from None


def _value(table: Table, field: dataclasses.Field[Any], at: str) -> Any:
    """An AttributeDesc's value, as the desc's field takes it."""
    kind = table.uint8(1, "val_type")
    annotation = str(field.type)
    if kind in _STRUCTS:
        values = _required(table.struct(2, "val", _STRUCTS[kind]), f"{at}.val", "a value")
        if kind == _SCALE_BIAS:
            return ScaleBias(scale=values[0], bias=values[1])
        if kind == _SIZE_2D:
            return Size2D(width=int(values[0]), height=int(values[1]))
        value = values[0]
        if annotation == "bool" and value in (0, 1):  # a BOOL the schema holds as UINT
            return bool(value)
        return value
    val = _required(table.table(2, "val"), f"{at}.val", "a value")
    if kind in _ARRAYS:
        return tuple(_required(val.scalars(0, "data", _ARRAYS[kind]), f"{at}.val.data", "data"))
    if kind == _ACTIVATION:
        return _activation(val, f"{at}.val")
    if kind == _ACTIVATION_ARRAY:
        activations = _required(val.tables(0, "data"), f"{at}.val.data", "activations")
        return tuple(_activation(a, f"{at}.val.data[{i}]") for i, a in enumerate(activations))
    if kind == _SCALAR_UNION:
        raw = _required(val.struct(1, "data", "<8s"), f"{at}.val.data", "8 bytes")[0]
        return bytes(raw)
    raise _error(f"{at}.val_type", "an AttributeFieldVariant from 1 to 13", kind)


def _activation(table: Table | None, at: str) -> Any:
    table = _required(table, at, "an Activation")
    type_name = _required(table.string(0, "type"), f"{at}.type", "an activation type")
    operator = _BY_NAME.get(type_name)
    if operator is None or not type_name.startswith("DML_OPERATOR_ACTIVATION_"):
        raise _error(f"{at}.type", "a DML_OPERATOR_ACTIVATION_* dmljax implements",
                     repr(type_name))  # fmt: skip
    fields = _attributes(operator, table.tables(1, "attributes") or (), f"{at}.attributes")
    return _within(at, lambda: operator.desc_type(**fields))
