"""A bounds-checked reader of FlatBuffers tables: what the ``DmlGraphDesc`` schema needs
(tables, vectors, strings, unions, scalars), every offset checked before it is followed.

FlatBuffers' binary format: the buffer starts with the root table's offset; a table
starts with a signed offset back to its vtable, whose entries are its fields' offsets
from the table (0 for an absent field); offsets to tables, vectors and strings are
unsigned and relative to where they are stored; a vector is its length then its
elements, a string its length then its bytes and a NUL.

>>> import struct
>>> # A root table with one field, a uint32 of 7: vtable (6, 8, 4) at 4, table at 12.
>>> data = struct.pack("<I3H2xiI", 12, 6, 8, 4, 8, 7)
>>> Table.root(data, "t").uint32(0, "x")
7
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Any

from dmljax.errors import InvalidArgumentError

__all__ = ["FlatBufferError", "Table"]

# Tables nest: a depth past this is a cycle of offsets or a hostile file, not a graph.
_MAX_DEPTH = 64


class FlatBufferError(InvalidArgumentError):
    """A buffer that is not the FlatBuffer its schema describes; ``field`` is the path
    of the field that could not be read (``nodes[2].desc.inputs[0].sizes``)."""


@dataclasses.dataclass(frozen=True)
class Table:
    """A table of a buffer: reads its fields by index (``VT_X = 4 + 2 * index``).

    Attributes:
        data: the whole buffer.
        at: the table's position in it.
        where: the table's path, for errors.
        op: the reader's name, for errors.
        depth: how deep the table is nested.
    """

    data: bytes
    at: int
    where: str
    op: str = "load_serialized_graph"
    depth: int = 0

    @classmethod
    def root(cls, data: bytes, where: str, op: str = "load_serialized_graph") -> Table:
        """The buffer's root table."""
        return cls(data, 0, where, op)._follow(0, where)

    # --- Raw reads ---

    def _error(self, where: str, expected: str, given: str) -> FlatBufferError:
        return FlatBufferError(self.op, where, expected, given)

    def _read(self, fmt: str, at: int, where: str) -> int:
        size = struct.calcsize(fmt)
        if at < 0 or at + size > len(self.data):
            raise self._error(
                where, f"{size} bytes within the buffer's {len(self.data)}", f"offset {at}"
            )
        return struct.unpack_from(fmt, self.data, at)[0]

    def _follow(self, at: int, where: str) -> Table:
        """The table the uoffset stored at ``at`` points to."""
        if self.depth >= _MAX_DEPTH:
            raise self._error(where, f"tables nested at most {_MAX_DEPTH} deep", "deeper")
        target = at + self._read("<I", at, where)
        vtable = target - self._read("<i", target, where)
        size = self._read("<H", vtable, where)
        if size < 4 or size % 2:
            raise self._error(where, "a vtable of at least 4 bytes, even", f"{size} bytes")
        self._read("<H", vtable + size - 2, where)  # the whole vtable lies in the buffer
        return Table(self.data, target, where, self.op, self.depth + 1)

    def _field(self, index: int) -> int | None:
        """Where field ``index`` is stored, or None if the table does not have it."""
        vtable = self.at - self._read("<i", self.at, self.where)
        size = self._read("<H", vtable, self.where)
        entry = 4 + 2 * index
        if entry >= size:
            return None
        offset = self._read("<H", vtable + entry, self.where)
        return None if offset == 0 else self.at + offset

    def _vector(self, index: int, name: str, element: int) -> tuple[int, int, str] | None:
        """Field ``index``'s vector: where its elements start, how many, and its path."""
        at = self._field(index)
        if at is None:
            return None
        where = f"{self.where}.{name}" if self.where else name
        start = at + self._read("<I", at, where)
        count = self._read("<I", start, where)
        if start + 4 + count * element > len(self.data):
            raise self._error(
                where, "a vector within the buffer", f"{count} elements at offset {start}"
            )
        return start + 4, count, where

    # --- Fields ---

    def has(self, index: int) -> bool:
        """Whether the table has field ``index``."""
        return self._field(index) is not None

    def uint8(self, index: int, name: str, default: int = 0) -> int:
        at = self._field(index)
        return default if at is None else self._read("<B", at, f"{self.where}.{name}")

    def uint32(self, index: int, name: str, default: int = 0) -> int:
        at = self._field(index)
        return default if at is None else self._read("<I", at, f"{self.where}.{name}")

    def uint64(self, index: int, name: str, default: int = 0) -> int:
        at = self._field(index)
        return default if at is None else self._read("<Q", at, f"{self.where}.{name}")

    def table(self, index: int, name: str) -> Table | None:
        """Field ``index``'s table (a union's value too), or None if absent."""
        at = self._field(index)
        where = f"{self.where}.{name}" if self.where else name
        return None if at is None else self._follow(at, where)

    def struct(self, index: int, name: str, fmt: str) -> tuple[Any, ...] | None:
        """Field ``index``'s struct held by offset (a union's struct member), as ``fmt``
        unpacks it; None if absent."""
        at = self._field(index)
        if at is None:
            return None
        where = f"{self.where}.{name}"
        target = at + self._read("<I", at, where)
        if target + struct.calcsize(fmt) > len(self.data):
            raise self._error(where, "a struct within the buffer", f"offset {target}")
        return struct.unpack_from(fmt, self.data, target)

    def string(self, index: int, name: str) -> str | None:
        at = self._field(index)
        if at is None:
            return None
        return self._string_at(at, f"{self.where}.{name}" if self.where else name)

    def _string_at(self, at: int, where: str) -> str:
        start = at + self._read("<I", at, where)
        size = self._read("<I", start, where)
        # Its bytes and the NUL after them, as FlatBuffers' verifier requires.
        if start + 4 + size >= len(self.data) or self.data[start + 4 + size] != 0:
            raise self._error(
                where, "a NUL-terminated string within the buffer", f"{size} bytes at {start}"
            )
        raw = self.data[start + 4 : start + 4 + size]
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self._error(where, "a UTF-8 string", repr(raw[:40])) from None

    def strings(self, index: int, name: str) -> tuple[str, ...] | None:
        found = self._vector(index, name, 4)
        if found is None:
            return None
        start, count, where = found
        return tuple(self._string_at(start + 4 * i, f"{where}[{i}]") for i in range(count))

    def tables(self, index: int, name: str) -> tuple[Table | None, ...] | None:
        """Field ``index``'s vector of tables (an element of offset 0: None)."""
        found = self._vector(index, name, 4)
        if found is None:
            return None
        start, count, where = found
        return tuple(
            None
            if self._read("<I", start + 4 * i, where) == 0
            else self._follow(start + 4 * i, f"{where}[{i}]")
            for i in range(count)
        )

    def scalars(self, index: int, name: str, fmt: str) -> tuple[int | float, ...] | None:
        """Field ``index``'s vector of scalars of struct format ``fmt`` (``"I"``, ``"f"``)."""
        size = struct.calcsize(fmt)
        found = self._vector(index, name, size)
        if found is None:
            return None
        start, count, _ = found
        return struct.unpack_from(f"<{count}{fmt}", self.data, start)

    def raw(self, index: int, name: str) -> bytes | None:
        """Field ``index``'s vector of bytes."""
        found = self._vector(index, name, 1)
        if found is None:
            return None
        start, count, _ = found
        return self.data[start : start + count]
