"""A writer of DirectML serialized graphs (the ``DmlGraphDesc`` FlatBuffers schema), for
the tests: graphs the reader must take, and spoiled ones it must refuse.

Objects are written front to back, each table after its vtable and before what it
points to, so every offset is forward (as FlatBuffers requires of unsigned offsets).
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Any

__all__ = ["Raw", "Ref", "Str", "Struct", "Table", "Vec", "activation", "attribute", "graph",
           "named_constant", "operator_node", "raw_constant", "tensor"]  # fmt: skip


@dataclasses.dataclass
class Str:
    text: str


@dataclasses.dataclass
class Vec:
    fmt: str  # a scalar's struct format: "I", "i", "f", "B"
    items: list[Any]


@dataclasses.dataclass
class Raw:
    data: bytes


@dataclasses.dataclass
class Struct:
    fmt: str
    values: tuple[Any, ...]


@dataclasses.dataclass
class Table:
    fields: list[Any]  # each None, (fmt, number) for a scalar, or an object to point to


@dataclasses.dataclass
class Ref:
    items: list[Any]  # a vector of offsets to tables or strings (None: offset 0)


def _pad(buf: bytearray, n: int) -> None:
    while len(buf) % n:
        buf.append(0)


def _write(buf: bytearray, value: Any) -> int:
    """Writes ``value``; returns where an offset to it points."""
    _pad(buf, 8 if isinstance(value, Struct) else 4)
    at = len(buf)
    if isinstance(value, Str):
        data = value.text.encode()
        buf += struct.pack("<I", len(data)) + data + b"\0"
    elif isinstance(value, Vec):
        buf += struct.pack(f"<I{len(value.items)}{value.fmt}", len(value.items), *value.items)
    elif isinstance(value, Raw):
        buf += struct.pack("<I", len(value.data)) + value.data
    elif isinstance(value, Struct):
        buf += struct.pack(value.fmt, *value.values)
    elif isinstance(value, Ref):
        buf += struct.pack("<I", len(value.items)) + bytes(4 * len(value.items))
        for i, item in enumerate(value.items):
            if item is not None:
                _link(buf, at + 4 + 4 * i, _write(buf, item))
    else:
        at = _table(buf, value)
    return at


def _link(buf: bytearray, slot: int, target: int) -> None:
    struct.pack_into("<I", buf, slot, target - slot)


def _table(buf: bytearray, table: Table) -> int:
    sizes = [0 if f is None else struct.calcsize(f[0]) if isinstance(f, tuple) else 4
             for f in table.fields]  # fmt: skip
    offsets, position = [], 4
    for size in sizes:
        offsets.append(position if size else 0)
        position += size
    vtable = len(buf)
    buf += struct.pack(f"<HH{len(offsets)}H", 4 + 2 * len(offsets), position, *offsets)
    _pad(buf, 4)
    at = len(buf)
    buf += struct.pack("<i", at - vtable) + bytes(position - 4)
    for field, offset in zip(table.fields, offsets, strict=True):
        if isinstance(field, tuple):
            struct.pack_into("<" + field[0], buf, at + offset, field[1])
        elif field is not None:
            _link(buf, at + offset, _write(buf, field))
    return at


def serialize(root: Table) -> bytes:
    buf = bytearray(4)
    _link(buf, 0, _write(buf, root))
    return bytes(buf)


# --- The DmlGraphDesc schema ---

_KINDS = {"Activation": 1, "ActivationArray": 2, "UInt32": 3, "UInt64": 4, "Int32": 5,
          "Float32": 6, "UIntArray": 7, "IntArray": 8, "FloatArray": 9, "ScaleBias": 10,
          "Size2D": 11, "ScalarUnionData": 12, "Bool": 13}  # fmt: skip
_STRUCTS = {"UInt32": "<I", "UInt64": "<Q", "Int32": "<i", "Float32": "<f", "ScaleBias": "<ff",
            "Size2D": "<II", "Bool": "<B"}  # fmt: skip
_ARRAYS = {"UIntArray": "I", "IntArray": "i", "FloatArray": "f"}


def tensor(data_type: str, sizes: list[int], strides: list[int] | None = None) -> Table:
    return Table([Str(f"DML_TENSOR_DATA_TYPE_{data_type}"), Vec("I", sizes),
                  None if strides is None else Vec("I", strides), None])  # fmt: skip


def attribute(name: str | None, kind: str | None = None, value: Any = None) -> Table:
    """An AttributeDesc; without a kind, a null attribute (a name, no value)."""
    if kind is None:
        return Table([None if name is None else Str(name), ("B", 1), None])
    if kind in _STRUCTS:
        val: Any = Struct(_STRUCTS[kind], value if isinstance(value, tuple) else (value,))
    elif kind in _ARRAYS:
        val = Table([Vec(_ARRAYS[kind], list(value))])
    elif kind == "ScalarUnionData":
        val = Table([("B", 1), Struct("<8s", (bytes(value).ljust(8, b"\0"),))])
    elif kind == "Activation":
        val = value
    else:  # ActivationArray
        val = Table([Ref(list(value))])
    return Table([None if name is None else Str(name), ("B", _KINDS[kind]), val])


def activation(type_name: str, attributes: list[Table] = ()) -> Table:  # type: ignore[assignment]
    return Table([Str(type_name), Ref(list(attributes))])


def operator_node(name: str, type_name: str, inputs: list[str], outputs: list[str],
                  input_tensors: list[Table], output_tensors: list[Table],
                  attributes: list[Table]) -> Table:  # fmt: skip
    desc = Table([Str(type_name), Ref(input_tensors), Ref(output_tensors), Ref(attributes)])
    return Table([("B", 1), desc, Str(name), Ref([Str(n) for n in inputs]),
                  Ref([Str(n) for n in outputs])])  # fmt: skip


def named_constant(name: str, file_name: str, output: str) -> Table:
    desc = Table([("B", 1), Table([Str(file_name)])])
    return Table([("B", 2), desc, Str(name), Ref([]), Ref([Str(output)])])


def raw_constant(name: str, data: bytes, output: str) -> Table:
    desc = Table([("B", 2), Table([Raw(data)])])
    return Table([("B", 2), desc, Str(name), Ref([]), Ref([Str(output)])])


def graph(nodes: list[Table], inputs: list[str], outputs: list[str]) -> bytes:
    return serialize(Table([Ref(nodes), Ref([Str(n) for n in inputs]),
                            Ref([Str(n) for n in outputs])]))  # fmt: skip
