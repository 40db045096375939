"""DirectML feature levels and each operator's tensor support table.

Each table below is copied from the "Tensor support" section of the operator's
DirectML page (and, where the page errs, from the resolution recorded in the
project's semantics notes). A table is a list of bands; a band applies from its
feature level until the next band's.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from dmljax._src.dtypes import DataType
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = ["FeatureLevel", "OperatorSupport", "SupportBand", "TensorSupport"]


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

    def check(self, level: FeatureLevel, tensors: Mapping[str, _TensorLike], *, op: str) -> None:
        """Raises if the operator, or any tensor's rank or type, is unsupported at ``level``."""
        if level < self.introduced:
            raise InvalidArgumentError(
                op,
                "feature_level",
                f"{self.introduced} or higher ({self.operator} was introduced at "
                f"{self.introduced})",
                str(level),
            )
        band = self.band_at(level)
        for field, tensor in tensors.items():
            support = band.tensors[field]
            rank = len(tensor.sizes)
            if not support.allows_rank(rank):
                later = self._first_band_allowing(field, after=level, rank=rank)
                raise InvalidArgumentError(
                    op,
                    f"{field}.sizes",
                    f"{support.describe_ranks()} long at {level}",
                    f"{rank} dimensions {tensor.sizes}",
                    hint=f"{rank} dimensions are supported from {later}." if later else None,
                )
            if tensor.data_type not in support.data_types:
                later = self._first_band_allowing(field, after=level, data_type=tensor.data_type)
                raise InvalidArgumentError(
                    op,
                    f"{field}.data_type",
                    f"one of {format_data_types(support.data_types)} at {level}",
                    str(tensor.data_type),
                    hint=(
                        f"{tensor.data_type} is supported from {later}."
                        if later
                        else f"{self.operator} never supports {tensor.data_type} for {field}."
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


def _band(
    since: FeatureLevel, ranks: tuple[int, int], **data_types: frozenset[DataType]
) -> SupportBand:
    """One band of a support table: the same dimension counts for every tensor field."""
    return SupportBand(
        since, {field: TensorSupport(ranks, types) for field, types in data_types.items()}
    )


FL = FeatureLevel
T = DataType
FLOATS_16_32 = frozenset({T.FLOAT32, T.FLOAT16})
INTEGERS_8_32 = frozenset({T.INT32, T.INT16, T.INT8, T.UINT32, T.UINT16, T.UINT8})
TYPES_8_32 = FLOATS_16_32 | INTEGERS_8_32
TYPES_64 = frozenset({T.FLOAT64, T.INT64, T.UINT64})
UINT32_INDICES = frozenset({T.UINT32})
INDICES_32_64 = frozenset({T.INT64, T.INT32, T.UINT64, T.UINT32})

TILE = OperatorSupport(
    "DML_OPERATOR_TILE",
    (
        _band(FL.FL_1_0, (4, 4), input_tensor=FLOATS_16_32, output_tensor=FLOATS_16_32),
        _band(FL.FL_2_1, (4, 4), input_tensor=TYPES_8_32, output_tensor=TYPES_8_32),
        _band(FL.FL_3_1, (1, 8), input_tensor=TYPES_8_32, output_tensor=TYPES_8_32),
        # The TILE page lists INT64 and UINT64 from 4_1 but never FLOAT64.
        _band(
            FL.FL_4_1,
            (1, 8),
            input_tensor=TYPES_8_32 | {T.INT64, T.UINT64},
            output_tensor=TYPES_8_32 | {T.INT64, T.UINT64},
        ),
    ),
)

GATHER = OperatorSupport(
    "DML_OPERATOR_GATHER",
    (
        _band(
            FL.FL_1_0,
            (4, 4),
            input_tensor=FLOATS_16_32,
            indices_tensor=UINT32_INDICES,
            output_tensor=FLOATS_16_32,
        ),
        _band(
            FL.FL_2_1,
            (4, 4),
            input_tensor=TYPES_8_32,
            indices_tensor=UINT32_INDICES,
            output_tensor=TYPES_8_32,
        ),
        _band(
            FL.FL_3_0,
            (1, 8),
            input_tensor=TYPES_8_32,
            indices_tensor=INDICES_32_64,
            output_tensor=TYPES_8_32,
        ),
        _band(
            FL.FL_4_1,
            (1, 8),
            input_tensor=TYPES_8_32 | TYPES_64,
            indices_tensor=INDICES_32_64,
            output_tensor=TYPES_8_32 | TYPES_64,
        ),
    ),
)

GATHER_ELEMENTS = OperatorSupport(
    "DML_OPERATOR_GATHER_ELEMENTS",
    (
        _band(
            FL.FL_2_1,
            (4, 4),
            input_tensor=TYPES_8_32,
            indices_tensor=UINT32_INDICES,
            output_tensor=TYPES_8_32,
        ),
        _band(
            FL.FL_3_0,
            (1, 8),
            input_tensor=TYPES_8_32,
            indices_tensor=INDICES_32_64,
            output_tensor=TYPES_8_32,
        ),
        _band(
            FL.FL_4_1,
            (1, 8),
            input_tensor=TYPES_8_32 | TYPES_64,
            indices_tensor=INDICES_32_64,
            output_tensor=TYPES_8_32 | TYPES_64,
        ),
    ),
)

# The SCATTER page prints an FL_1_0 band, but DirectML.h declares the operator for
# DML_TARGET_VERSION >= 0x2000 and the feature-level history adds it in FL_2_0: the
# page's first band applies from FL_2_0.
SCATTER = OperatorSupport(
    "DML_OPERATOR_SCATTER",
    (
        _band(
            FL.FL_2_0,
            (4, 4),
            input_tensor=FLOATS_16_32,
            indices_tensor=UINT32_INDICES,
            updates_tensor=FLOATS_16_32,
            output_tensor=FLOATS_16_32,
        ),
        _band(
            FL.FL_2_1,
            (4, 4),
            input_tensor=TYPES_8_32,
            indices_tensor=UINT32_INDICES,
            updates_tensor=TYPES_8_32,
            output_tensor=TYPES_8_32,
        ),
        _band(
            FL.FL_3_0,
            (1, 8),
            input_tensor=TYPES_8_32,
            indices_tensor=INDICES_32_64,
            updates_tensor=TYPES_8_32,
            output_tensor=TYPES_8_32,
        ),
        _band(
            FL.FL_4_1,
            (1, 8),
            input_tensor=TYPES_8_32 | TYPES_64,
            indices_tensor=INDICES_32_64,
            updates_tensor=TYPES_8_32 | TYPES_64,
            output_tensor=TYPES_8_32 | TYPES_64,
        ),
    ),
)

SLICE1 = OperatorSupport(
    "DML_OPERATOR_SLICE1",
    (
        _band(FL.FL_2_1, (4, 5), input_tensor=TYPES_8_32, output_tensor=TYPES_8_32),
        _band(FL.FL_3_0, (1, 8), input_tensor=TYPES_8_32, output_tensor=TYPES_8_32),
        _band(
            FL.FL_4_1,
            (1, 8),
            input_tensor=TYPES_8_32 | TYPES_64,
            output_tensor=TYPES_8_32 | TYPES_64,
        ),
    ),
)

# DML_SLICE (FL 1_0) had no 8-bit types until FL 2_1.
_SLICE_1_0_TYPES = FLOATS_16_32 | {T.INT32, T.INT16, T.UINT32, T.UINT16}
SLICE = OperatorSupport(
    "DML_OPERATOR_SLICE",
    (
        _band(FL.FL_1_0, (4, 5), input_tensor=_SLICE_1_0_TYPES, output_tensor=_SLICE_1_0_TYPES),
        _band(FL.FL_2_1, (4, 5), input_tensor=TYPES_8_32, output_tensor=TYPES_8_32),
        _band(FL.FL_3_0, (1, 8), input_tensor=TYPES_8_32, output_tensor=TYPES_8_32),
        _band(
            FL.FL_4_1,
            (1, 8),
            input_tensor=TYPES_8_32 | TYPES_64,
            output_tensor=TYPES_8_32 | TYPES_64,
        ),
    ),
)
