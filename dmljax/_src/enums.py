"""DirectML's enums as Python enums: one rule for reading them from what a user writes.

A desc field of a ``DML_<NAME>`` enum (``DML_PADDING_MODE``, ``DML_ROUNDING_MODE``) takes a
member, its value, or its name in any case, with or without DirectML's prefix, as C code,
DxDispatch's JSON and Python callers write it:

>>> import dmljax as dml
>>> dml.RoundingMode.coerce("DML_ROUNDING_MODE_TOWARD_ZERO", op="op", field="f")
<RoundingMode.TOWARD_ZERO: 1>
>>> dml.RoundingMode.coerce("toward_zero", op="op", field="f") is dml.RoundingMode(1)
True
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from typing import Any, Self

from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "AxisDirection",
    "ConvolutionDirection",
    "ConvolutionMode",
    "DmlEnum",
    "InterpolationMode",
    "MatrixTransform",
    "RecurrentNetworkDirection",
    "ReduceFunction",
]


class DmlEnum(enum.IntEnum):
    """A ``DML_<NAME>`` enum, with DirectML's values; ``<NAME>`` is the class's name in
    upper snake case (``RoundingMode``: ``DML_ROUNDING_MODE``)."""

    def __str__(self) -> str:
        return self.name

    @property
    def function_name(self) -> str:
        """The member's name on a functional face: ``"toward_zero"``."""
        return self.name.lower()

    @classmethod
    def dml_name(cls) -> str:
        """DirectML's name of the enum: ``"DML_ROUNDING_MODE"``."""
        return "DML_" + re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).upper()

    @classmethod
    def other_names(cls) -> Mapping[str, Self]:
        """Names other than the members' that mean one (ONNX's ``"DCR"``), upper case."""
        return {}

    @classmethod
    def coerce(cls, value: Any, *, op: str, field: str) -> Self:
        """``value`` (a member, its value, or its name in any case, with or without
        DirectML's prefix) as a member; raises an error naming ``op`` and ``field``."""
        if isinstance(value, str):
            prefix = cls.dml_name().removeprefix("DML_") + "_"
            name = value.upper().removeprefix("DML_").removeprefix(prefix)
            found = cls.other_names().get(name, cls.__members__.get(name))
            if found is not None:
                return found
        elif isinstance(value, int) and not isinstance(value, bool):
            try:
                return cls(value)
            except ValueError:
                pass
        else:
            raise ArgumentTypeError(op, field, f"a dmljax.{cls.__name__}", repr(value))
        names = ", ".join(member.name for member in cls)
        others = " or ".join(map(repr, cls.other_names()))
        names += f", or {others}" if others else ""
        raise InvalidArgumentError(op, field, f"a {cls.dml_name()} ({names})", repr(value))


class AxisDirection(DmlEnum):
    """A ``DML_AXIS_DIRECTION``: which way a scan or a search runs along an axis
    (CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT; ARGMIN, ARGMAX and TOP_K1 read it too).

    ``INCREASING`` runs by ascending index, ``DECREASING`` by descending index (a
    functional face's ``reverse=True``).

    >>> AxisDirection.coerce("DML_AXIS_DIRECTION_DECREASING", op="op", field="f")
    <AxisDirection.DECREASING: 1>
    """

    INCREASING = 0
    DECREASING = 1


class ReduceFunction(DmlEnum):
    """A ``DML_REDUCE_FUNCTION``: what REDUCE computes over each group of elements.

    ``ARGMAX`` and ``ARGMIN`` write the index of the largest (smallest) element; the
    others a value of the input's type: ``AVERAGE`` the mean, ``L1`` the sum of absolute
    values, ``L2`` the square root of the sum of squares, ``LOG_SUM`` the logarithm of
    the sum, ``LOG_SUM_EXP`` the logarithm of the sum of exponentials, ``MAX``, ``MIN``,
    ``MULTIPLY`` the product, ``SUM``, and ``SUM_SQUARE`` the sum of squares.

    >>> ReduceFunction.coerce("DML_REDUCE_FUNCTION_SUM", op="op", field="f")
    <ReduceFunction.SUM: 10>
    """

    ARGMAX = 0
    ARGMIN = 1
    AVERAGE = 2
    L1 = 3
    L2 = 4
    LOG_SUM = 5
    LOG_SUM_EXP = 6
    MAX = 7
    MIN = 8
    MULTIPLY = 9
    SUM = 10
    SUM_SQUARE = 11


class MatrixTransform(DmlEnum):
    """A ``DML_MATRIX_TRANSFORM``: how GEMM reads a matrix, as it is (``NONE``) or
    transposed (``TRANSPOSE``: its last two dimensions swapped).

    >>> MatrixTransform.coerce("DML_MATRIX_TRANSFORM_TRANSPOSE", op="op", field="f")
    <MatrixTransform.TRANSPOSE: 1>
    """

    NONE = 0
    TRANSPOSE = 1


class ConvolutionMode(DmlEnum):
    """A ``DML_CONVOLUTION_MODE``: CONVOLUTION flips each filter along its spatial
    dimensions, CROSS_CORRELATION (what frameworks call a convolution) reads it as it is.

    >>> ConvolutionMode.coerce("cross_correlation", op="op", field="f")
    <ConvolutionMode.CROSS_CORRELATION: 1>
    """

    CONVOLUTION = 0
    CROSS_CORRELATION = 1


class ConvolutionDirection(DmlEnum):
    """A ``DML_CONVOLUTION_DIRECTION``: FORWARD, or BACKWARD (the transposed convolution,
    the forward one's adjoint: ``jax.lax.conv_transpose``, ONNX's ConvTranspose).

    >>> ConvolutionDirection.coerce("DML_CONVOLUTION_DIRECTION_BACKWARD", op="op", field="f")
    <ConvolutionDirection.BACKWARD: 1>
    """

    FORWARD = 0
    BACKWARD = 1


class InterpolationMode(DmlEnum):
    """A ``DML_INTERPOLATION_MODE``: how UPSAMPLE_2D and the RESAMPLE operators read an
    output element's input coordinate, NEAREST_NEIGHBOR (one input element) or LINEAR
    (the two nearest elements along each resampled dimension, weighted by distance).

    >>> InterpolationMode.coerce("DML_INTERPOLATION_MODE_LINEAR", op="op", field="f")
    <InterpolationMode.LINEAR: 1>
    """

    NEAREST_NEIGHBOR = 0
    LINEAR = 1


class RecurrentNetworkDirection(DmlEnum):
    """A ``DML_RECURRENT_NETWORK_DIRECTION``: which way RNN, LSTM and GRU run over the
    sequence: FORWARD (``t = 0, 1, ...``), BACKWARD (from each sequence's last element
    back), or BIDIRECTIONAL (both, each with its own weights).

    >>> RecurrentNetworkDirection.coerce("bidirectional", op="op", field="f")
    <RecurrentNetworkDirection.BIDIRECTIONAL: 2>
    """

    FORWARD = 0
    BACKWARD = 1
    BIDIRECTIONAL = 2
