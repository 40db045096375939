"""DirectML feature levels and the type of an operator's tensor support table.

Each operator's table lives in its own module (``dmljax/_src/ops/``), copied
from the "Tensor support" section of its DirectML page (and, where the page
errs, from the resolution recorded in the project's semantics notes). A table
is a list of bands; a band applies from its feature level until the next band's.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from dmljax._src.dtypes import DataType
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "FLOATS_16_32",
    "INDICES_32_64",
    "INTEGERS_8_32",
    "TYPES_8_32",
    "TYPES_8_64",
    "TYPES_64",
    "UINT32_INDICES",
    "Band",
    "ByAttribute",
    "FeatureLevel",
    "OperatorSupport",
    "SupportBand",
    "TensorSupport",
    "band",
    "format_data_types",
    "indexed_bands",
    "widest",
]


class FeatureLevel(enum.IntEnum):
    """A ``DML_FEATURE_LEVEL``, with DirectML's numeric values.

    Each level is a strict superset of the ones below it; ``LATEST`` is the
    newest level DirectML defines.

    >>> import dmljax as dml
    >>> hex(dml.FeatureLevel.FL_4_1), dml.FeatureLevel.LATEST
    ('0x4100', <FeatureLevel.FL_6_4: 25600>)
    """

    FL_1_0 = 0x1000
    FL_2_0 = 0x2000
    FL_2_1 = 0x2100
    FL_3_0 = 0x3000
    FL_3_1 = 0x3100
    FL_4_0 = 0x4000
    FL_4_1 = 0x4100
    FL_5_0 = 0x5000
    FL_5_1 = 0x5100
    FL_5_2 = 0x5200
    FL_6_0 = 0x6000
    FL_6_1 = 0x6100
    FL_6_2 = 0x6200
    FL_6_3 = 0x6300
    FL_6_4 = 0x6400
    LATEST = 0x6400

    def __str__(self) -> str:
        return self.name

    @classmethod
    def coerce(cls, value: Any, *, op: str) -> FeatureLevel:
        """``value`` as a FeatureLevel; accepts members and their integer values."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentTypeError(op, "feature_level", "a dmljax.FeatureLevel", repr(value))
        try:
            return cls(value)
        except ValueError:
            raise InvalidArgumentError(
                op, "feature_level", "a DML_FEATURE_LEVEL value (0x1000 ... 0x6400)", hex(value)
            ) from None


class _TensorLike(Protocol):
    @property
    def data_type(self) -> DataType: ...

    @property
    def sizes(self) -> tuple[int, ...]: ...


@dataclasses.dataclass(frozen=True)
class TensorSupport:
    """What one tensor of an operator supports in one band of feature levels."""

    dimension_counts: tuple[int, int]  # inclusive range
    data_types: frozenset[DataType]

    def allows_rank(self, rank: int) -> bool:
        low, high = self.dimension_counts
        return low <= rank <= high

    def describe_ranks(self) -> str:
        low, high = self.dimension_counts
        return f"{low} dimensions" if low == high else f"{low} to {high} dimensions"


@dataclasses.dataclass(frozen=True)
class SupportBand:
    """The support table that applies from ``since`` up to the next band."""

    since: FeatureLevel
    tensors: Mapping[str, TensorSupport]


@dataclasses.dataclass(frozen=True)
class OperatorSupport:
    """An operator's documented support: when it appeared and what each level allows."""

    operator: str  # DirectML's name, e.g. "DML_OPERATOR_TILE"
    bands: tuple[SupportBand, ...]  # ascending; the first is the introduction

    @property
    def introduced(self) -> FeatureLevel:
        return self.bands[0].since

    def band_at(self, level: FeatureLevel) -> SupportBand:
        return [band for band in self.bands if band.since <= level][-1]

    def check(
        self,
        level: FeatureLevel,
        tensors: Iterable[tuple[str, str, _TensorLike]],
        *,
        op: str,
        under: str = "",
    ) -> None:
        """Raises if the operator, or any tensor's rank or type, is unsupported at ``level``.

        ``tensors`` holds ``(field, label, tensor)``: the desc field whose row of
        the table applies, and the name errors give (``input_tensors[1]``). ``under``
        names what picked this table where an attribute does (REDUCE's
        ``" with function SUM"``).
        """
        if level < self.introduced:
            raise InvalidArgumentError(
                op,
                "feature_level",
                f"{self.introduced} or higher ({self.operator} was introduced at "
                f"{self.introduced})",
                str(level),
            )
        band = self.band_at(level)
        for field, label, tensor in tensors:
            support = band.tensors[field]
            rank = len(tensor.sizes)
            if not support.allows_rank(rank):
                later = self._first_band_allowing(field, after=level, rank=rank)
                raise InvalidArgumentError(
                    op,
                    f"{label}.sizes",
                    f"{support.describe_ranks()} long at {level}{under}",
                    f"{rank} dimensions {tensor.sizes}",
                    hint=f"{rank} dimensions are supported from {later}." if later else None,
                )
            if tensor.data_type not in support.data_types:
                later = self._first_band_allowing(field, after=level, data_type=tensor.data_type)
                raise InvalidArgumentError(
                    op,
                    f"{label}.data_type",
                    f"one of {format_data_types(support.data_types)} at {level}{under}",
                    str(tensor.data_type),
                    hint=(
                        f"{tensor.data_type} is supported from {later}."
                        if later
                        else f"{self.operator}{under} never supports {tensor.data_type} for "
                        f"{label}."
                    ),
                )

    def _first_band_allowing(
        self,
        field: str,
        *,
        after: FeatureLevel,
        rank: int | None = None,
        data_type: DataType | None = None,
    ) -> FeatureLevel | None:
        """The first level above ``after`` whose band allows this rank or data type."""
        for band in self.bands:
            support = band.tensors[field]
            if band.since <= after:
                continue
            if rank is not None and not support.allows_rank(rank):
                continue
            if data_type is not None and data_type not in support.data_types:
                continue
            return band.since
        return None


def format_data_types(data_types: Iterable[DataType]) -> str:
    """Data types in the order the DirectML pages list them (FLOAT64, FLOAT32, ..., UINT8)."""

    def page_order(t: DataType) -> tuple[int, int]:
        kind = 0 if t.is_floating else 1 if t.is_signed else 2
        return (kind, -t.bit_width)

    return ", ".join(t.name for t in sorted(data_types, key=page_order))


# The groups of data types the DirectML pages' support tables use.
_T = DataType
FLOATS_16_32 = frozenset({_T.FLOAT32, _T.FLOAT16})
INTEGERS_8_32 = frozenset({_T.INT32, _T.INT16, _T.INT8, _T.UINT32, _T.UINT16, _T.UINT8})
TYPES_8_32 = FLOATS_16_32 | INTEGERS_8_32
TYPES_64 = frozenset({_T.FLOAT64, _T.INT64, _T.UINT64})
TYPES_8_64 = TYPES_8_32 | TYPES_64
UINT32_INDICES = frozenset({_T.UINT32})
INDICES_32_64 = frozenset({_T.INT64, _T.INT32, _T.UINT64, _T.UINT32})


@dataclasses.dataclass(frozen=True)
class Band:
    """One row of a support table, before it is matched to the desc's tensor fields.

    Attributes:
        since: the feature level it applies from (up to the next band's).
        ranks: the inclusive range of dimension counts every tensor allows.
        data: the data types of every tensor field not named in ``fields``.
        fields: data types of particular fields, e.g. ``indices_tensor``.
    """

    since: FeatureLevel
    ranks: tuple[int, int]
    data: frozenset[DataType]
    fields: Mapping[str, frozenset[DataType]]


@dataclasses.dataclass(frozen=True)
class ByAttribute:
    """Support tables picked by an attribute's value, as a page that gives one table per
    function lists them (REDUCE's "Tensor support according to function").

    Attributes:
        field: the desc's attribute that picks the table (``"function"``).
        tables: each group of values that shares a table (a tuple of members, in the
            page's order), with that table's bands.
    """

    field: str
    tables: Mapping[tuple[Any, ...], Sequence[Band]]

    def bands_of(self, value: Any) -> Sequence[Band]:
        """The table ``value`` picks."""
        return next(bands for values, bands in self.tables.items() if value in values)


def band(
    since: FeatureLevel,
    ranks: tuple[int, int],
    data: frozenset[DataType],
    **fields: frozenset[DataType],
) -> Band:
    """A support-table row: ``data`` for every tensor field but those named.

    >>> b = band(FeatureLevel.FL_3_0, (1, 8), TYPES_8_32, indices_tensor=INDICES_32_64)
    >>> b.since, b.ranks, sorted(b.fields)
    (<FeatureLevel.FL_3_0: 12288>, (1, 8), ['indices_tensor'])
    """
    return Band(since, ranks, data, fields)


def widest(*tables: Sequence[Band]) -> tuple[Band, ...]:
    """The table that allows what any of ``tables`` allows at each level: an operator
    whose table depends on an attribute (REDUCE's per Function) declares its own tables
    and checks the one that applies in its rules; this one is the operator's.

    >>> a = (band(FeatureLevel.FL_1_0, (4, 4), FLOATS_16_32),)
    >>> b = (band(FeatureLevel.FL_1_0, (4, 4), FLOATS_16_32, output_tensor=UINT32_INDICES),
    ...      band(FeatureLevel.FL_3_0, (1, 8), TYPES_8_32, output_tensor=INDICES_32_64))
    >>> [(row.since.name, row.ranks, sorted(row.fields)) for row in widest(a, b)]
    [('FL_1_0', (4, 4), ['output_tensor']), ('FL_3_0', (1, 8), ['output_tensor'])]
    >>> sorted(t.name for t in widest(a, b)[0].fields["output_tensor"])
    ['FLOAT16', 'FLOAT32', 'UINT32']
    """
    levels = sorted({row.since for table in tables for row in table})
    named = sorted({field for table in tables for row in table for field in row.fields})
    rows = []
    for level in levels:
        # Each table's row in force at ``level``; a table introduced later has none.
        at = [fit[-1] for table in tables if (fit := [r for r in table if r.since <= level])]
        data = frozenset().union(*(row.data for row in at))
        fields = {f: frozenset().union(*(row.fields.get(f, row.data) for row in at)) for f in named}
        ranks = (min(row.ranks[0] for row in at), max(row.ranks[1] for row in at))
        rows.append(Band(level, ranks, data, fields))
    return tuple(rows)


def indexed_bands(first: FeatureLevel | None = None) -> tuple[Band, ...]:
    """The table GATHER, GATHER_ELEMENTS and SCATTER share.

    DirectML widened the three together: 8- to 32-bit data at FL 2_1; 1 to 8
    dimensions and signed and 64-bit indices at 3_0; 64-bit data at 4_1. With
    ``first``, a row before those: 4-D FLOAT32/FLOAT16 data with UINT32 indices
    from that level (GATHER's 1_0, SCATTER's 2_0).

    >>> [row.since.name for row in indexed_bands(FeatureLevel.FL_1_0)]
    ['FL_1_0', 'FL_2_1', 'FL_3_0', 'FL_4_1']
    """
    widened = (
        band(FeatureLevel.FL_2_1, (4, 4), TYPES_8_32, indices_tensor=UINT32_INDICES),
        band(FeatureLevel.FL_3_0, (1, 8), TYPES_8_32, indices_tensor=INDICES_32_64),
        band(FeatureLevel.FL_4_1, (1, 8), TYPES_8_64, indices_tensor=INDICES_32_64),
    )
    if first is None:
        return widened
    return (band(first, (4, 4), FLOATS_16_32, indices_tensor=UINT32_INDICES), *widened)
