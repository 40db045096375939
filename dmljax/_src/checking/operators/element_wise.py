"""The element-wise family's checks: one :class:`OperatorChecks` per row, made from the row
and from the data below, which restates each page's support table and works one example
of each operator by hand (the pages have none).

The sweep draws one to three dimensions of the face's dtypes, with ``b`` broadcast now
and then, and compares against the row's NumPy reference; the bench times each operator
over 4096x4096 float32 against the jax.numpy function of the same name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np

from dmljax._src import contract
from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking import sweeps
from dmljax._src.checking.operator_checks import (
    FLOATS,
    INTS_8_32,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops import element_wise
from dmljax._src.ops.element_wise import ROWS, ElementWise
from dmljax._src.tensor_desc import TensorDesc

__all__ = [
    "CHECKS",
    "DOCUMENTED_SUPPORT",
    "EXAMPLES",
    "attributes_of",
    "draw_attributes",
    "jnp_expression",
]

_T = DataType
_FL = FeatureLevel
_SIGNED = frozenset({_T.INT32, _T.INT16, _T.INT8})
_INTS_32 = frozenset({_T.INT32, _T.UINT32})
_INTS_64 = frozenset({_T.INT64, _T.UINT64})
_TYPES_8_32 = FLOATS | INTS_8_32


def _element_wise(*names: str) -> tuple[str, ...]:
    """The kinds ``ELEMENT_WISE_<name>``: the keys below are kinds, as ELEMENT_WISE_IDENTITY
    and ACTIVATION_IDENTITY share a name."""
    return tuple(f"ELEMENT_WISE_{name}" for name in names)


def _table(
    *rows: tuple[FeatureLevel, tuple[int, int], frozenset[DataType]],
) -> dict[FeatureLevel, DocumentedBand]:
    return {since: (ranks, types, None) for since, ranks, types in rows}


def _test_table(
    *rows: tuple[FeatureLevel, tuple[int, int], frozenset[DataType], frozenset[DataType]],
) -> dict[FeatureLevel, DocumentedBand]:
    """A test's table (EQUALS'): its inputs' types, then its output's (the "other" types
    the support checks vary)."""
    return {since: (ranks, types, out) for since, ranks, types, out in rows}


_U32, _U8_U32 = frozenset({_T.UINT32}), frozenset({_T.UINT32, _T.UINT8})
_UINTS_8_32 = frozenset({_T.UINT32, _T.UINT16, _T.UINT8})
# EQUALS', GREATER_THAN's and LESS_THAN's pages; the OR_EQUAL pair's start at FL 3_0.
_COMPARISON_TABLE = (
    (_FL.FL_1_0, (4, 4), FLOATS, _U32),
    (_FL.FL_2_0, (4, 4), FLOATS, _U8_U32),
    (_FL.FL_2_1, (4, 4), _TYPES_8_32, _U8_U32),
    (_FL.FL_3_0, (1, 8), _TYPES_8_32, _U8_U32),
    (_FL.FL_4_1, (1, 8), _TYPES_8_32 | _INTS_64, _U8_U32),
)


# The table most activation pages share: 4 dimensions, 4 or 5 from FL 2_0, 1 to 8 from 3_0.
_ACTIVATION_TABLE = (
    (_FL.FL_1_0, (4, 4), FLOATS),
    (_FL.FL_2_0, (4, 5), FLOATS),
    (_FL.FL_3_0, (1, 8), FLOATS),
)

# Each page's "Tensor support" section, as the page writes it (every tensor of these
# operators has the same types).
DOCUMENTED_SUPPORT: dict[str, dict[FeatureLevel, DocumentedBand]] = {
    "ELEMENT_WISE_IDENTITY": _table(
        (_FL.FL_1_0, (4, 5), FLOATS),
        (_FL.FL_2_1, (4, 5), _TYPES_8_32),
        (_FL.FL_3_0, (1, 8), _TYPES_8_32),
        (_FL.FL_4_1, (1, 8), _TYPES_8_32 | _INTS_64 | {_T.FLOAT64}),
    ),
    "ELEMENT_WISE_ABS": _table(
        (_FL.FL_1_0, (4, 4), FLOATS),
        (_FL.FL_2_1, (4, 4), FLOATS | _SIGNED),
        (_FL.FL_3_0, (1, 8), FLOATS | _SIGNED),
        (_FL.FL_4_1, (1, 8), FLOATS | _SIGNED | {_T.INT64}),
    ),
    "ELEMENT_WISE_CEIL": _table((_FL.FL_1_0, (4, 4), FLOATS), (_FL.FL_3_0, (1, 8), FLOATS)),
    "ELEMENT_WISE_FLOOR": _table((_FL.FL_1_0, (4, 4), FLOATS), (_FL.FL_3_0, (1, 8), FLOATS)),
    "ELEMENT_WISE_SQRT": _table((_FL.FL_1_0, (4, 4), FLOATS), (_FL.FL_3_0, (1, 8), FLOATS)),
    "ELEMENT_WISE_NEGATE": _table((_FL.FL_5_0, (1, 8), FLOATS | _SIGNED | {_T.INT64})),
    "ELEMENT_WISE_ADD": _table(
        (_FL.FL_1_0, (4, 5), FLOATS),
        (_FL.FL_2_1, (4, 5), FLOATS | _INTS_32),
        (_FL.FL_3_0, (1, 8), FLOATS | _INTS_32),
        (_FL.FL_4_1, (1, 8), FLOATS | _INTS_32 | _INTS_64),
        (_FL.FL_5_1, (1, 8), _TYPES_8_32 | _INTS_64),
    ),
    "ELEMENT_WISE_ADD1": _table((_FL.FL_2_0, (4, 5), FLOATS), (_FL.FL_3_0, (1, 8), FLOATS)),
    "ELEMENT_WISE_SUBTRACT": _table(
        (_FL.FL_1_0, (4, 4), FLOATS),
        (_FL.FL_2_1, (4, 4), FLOATS | _INTS_32),
        (_FL.FL_3_0, (1, 8), FLOATS | _INTS_32),
        (_FL.FL_4_1, (1, 8), FLOATS | _INTS_32 | _INTS_64),
        (_FL.FL_5_1, (1, 8), _TYPES_8_32 | _INTS_64),
    ),
    "ELEMENT_WISE_MULTIPLY": _table(
        (_FL.FL_1_0, (4, 5), FLOATS),
        (_FL.FL_2_1, (4, 5), FLOATS | _INTS_32),
        (_FL.FL_3_0, (1, 8), FLOATS | _INTS_32),
        (_FL.FL_4_1, (1, 8), FLOATS | _INTS_32 | _INTS_64),
        (_FL.FL_5_1, (1, 8), _TYPES_8_32 | _INTS_64),
    ),
    "ELEMENT_WISE_CLIP": _table(
        (_FL.FL_1_0, (4, 4), FLOATS),
        (_FL.FL_2_1, (4, 4), _TYPES_8_32),
        (_FL.FL_3_0, (1, 8), _TYPES_8_32),
        (_FL.FL_5_0, (1, 8), _TYPES_8_32 | _INTS_64),
    ),
    "ELEMENT_WISE_CLIP1": _table((_FL.FL_5_0, (1, 8), _TYPES_8_32 | _INTS_64)),
    "ELEMENT_WISE_CLIP_GRAD": _table(
        (_FL.FL_3_1, (1, 8), _TYPES_8_32), (_FL.FL_5_0, (1, 8), _TYPES_8_32 | _INTS_64)
    ),
    "ELEMENT_WISE_CLIP_GRAD1": _table((_FL.FL_5_0, (1, 8), _TYPES_8_32 | _INTS_64)),
    "ELEMENT_WISE_THRESHOLD": _table(
        (_FL.FL_1_0, (4, 4), FLOATS),
        (_FL.FL_2_1, (4, 4), _TYPES_8_32),
        (_FL.FL_3_0, (1, 8), _TYPES_8_32),
    ),
    **{
        f"ACTIVATION_{name}": _table(*_ACTIVATION_TABLE, (_FL.FL_5_1, (1, 8), FLOATS | _SIGNED))
        for name in ("RELU", "PARAMETERIZED_RELU")  # the two pages' tables are the same
    },
    **{
        f"ACTIVATION_{name}": _table(*_ACTIVATION_TABLE)
        for name in (
            "LEAKY_RELU",
            "ELU",
            "SCALED_ELU",
            "SCALED_TANH",
            "SOFTPLUS",
            "PARAMETRIC_SOFTPLUS",
            "LINEAR",
            "HARD_SIGMOID",
            "SIGMOID",
            "SOFTSIGN",
            "THRESHOLDED_RELU",
            "IDENTITY",
            "TANH",
        )
    },
    "ELEMENT_WISE_DIVIDE": _table(
        (_FL.FL_1_0, (4, 4), FLOATS),
        (_FL.FL_2_1, (4, 4), FLOATS | _INTS_32),
        (_FL.FL_3_0, (1, 8), FLOATS | _INTS_32),
        (_FL.FL_5_1, (1, 8), _TYPES_8_32),
        (_FL.FL_6_0, (1, 8), _TYPES_8_32 | _INTS_64),
    ),
    **{
        name: _table(
            (_FL.FL_1_0, (4, 4), FLOATS),
            (_FL.FL_2_1, (4, 4), _TYPES_8_32),
            (_FL.FL_3_0, (1, 8), _TYPES_8_32),
            (_FL.FL_5_0, (1, 8), _TYPES_8_32 | _INTS_64),
        )
        for name in _element_wise("MAX", "MIN")  # the two pages' tables are the same
    },
    "ELEMENT_WISE_SIGN": _table(
        (_FL.FL_2_0, (4, 4), FLOATS),
        (_FL.FL_2_1, (4, 4), _TYPES_8_32),
        (_FL.FL_3_0, (1, 8), _TYPES_8_32),
        (_FL.FL_4_1, (1, 8), _TYPES_8_32 | _INTS_64),
    ),
    "ELEMENT_WISE_MEAN": _table(
        (_FL.FL_1_0, (4, 4), FLOATS),
        (_FL.FL_2_1, (4, 4), FLOATS | _INTS_32),
        (_FL.FL_3_0, (1, 8), FLOATS | _INTS_32),
    ),
    "ELEMENT_WISE_DIFFERENCE_SQUARE": _table((_FL.FL_3_1, (1, 8), FLOATS | _INTS_32)),
    "ACTIVATION_CELU": _table((_FL.FL_3_0, (1, 8), FLOATS)),
    "ACTIVATION_HARD_SWISH": _table((_FL.FL_6_2, (1, 8), FLOATS)),
    "ACTIVATION_SWISH": _table((_FL.FL_6_2, (1, 8), FLOATS)),
    "ACTIVATION_GELU": _table((_FL.FL_5_1, (1, 8), FLOATS)),
    "ACTIVATION_SHRINK": _table(
        (_FL.FL_2_0, (4, 5), FLOATS),
        (_FL.FL_3_0, (1, 8), FLOATS),
        (_FL.FL_5_1, (1, 8), _TYPES_8_32),
    ),
    "ACTIVATION_RELU_GRAD": _table(
        (_FL.FL_3_0, (1, 8), FLOATS), (_FL.FL_5_1, (1, 8), FLOATS | _SIGNED)
    ),
    "ELEMENT_WISE_RECIP": _table((_FL.FL_1_0, (4, 4), FLOATS), (_FL.FL_3_0, (1, 8), FLOATS)),
    "ELEMENT_WISE_ATAN_YX": _table((_FL.FL_3_1, (1, 8), FLOATS)),
    # The exponent's types are the "other" ones; until FL 3_0 it has the input's type.
    "ELEMENT_WISE_POW": {
        _FL.FL_1_0: ((4, 4), FLOATS, None),
        _FL.FL_3_0: ((1, 8), _TYPES_8_32, _TYPES_8_32),
    },
    "ELEMENT_WISE_IF": _test_table(  # the condition's type is the "other" one
        (_FL.FL_2_0, (4, 4), frozenset({_T.FLOAT16}), frozenset({_T.UINT8})),
        (_FL.FL_3_0, (1, 8), _TYPES_8_32, frozenset({_T.UINT8})),
        (_FL.FL_5_0, (1, 8), _TYPES_8_32 | _INTS_64 | {_T.FLOAT64}, frozenset({_T.UINT8})),
    ),
    "ELEMENT_WISE_CONSTANT_POW": _table((_FL.FL_1_0, (4, 4), FLOATS), (_FL.FL_3_0, (1, 8), FLOATS)),
    **{
        name: _table((_FL.FL_1_0, (4, 4), FLOATS), (_FL.FL_3_0, (1, 8), FLOATS))
        for name in _element_wise("EXP", "LOG", "SIN", "COS", "TAN", "ASIN", "ACOS", "ATAN")
    },
    **{
        name: _table((_FL.FL_2_0, (4, 4), FLOATS), (_FL.FL_3_0, (1, 8), FLOATS))
        for name in _element_wise("SINH", "COSH", "TANH", "ASINH", "ACOSH", "ATANH", "ERF")
    },
    **{
        name: _table(
            (_FL.FL_1_0, (4, 4), frozenset({_T.UINT32})),
            (_FL.FL_2_0, (4, 4), frozenset({_T.UINT32, _T.UINT8})),
            (_FL.FL_3_0, (1, 8), frozenset({_T.UINT32, _T.UINT8})),
        )
        for name in _element_wise("LOGICAL_AND", "LOGICAL_OR", "LOGICAL_XOR", "LOGICAL_NOT")
    },
    **{
        f"ELEMENT_WISE_LOGICAL_{name}": _test_table(*_COMPARISON_TABLE)
        for name in ("EQUALS", "GREATER_THAN", "LESS_THAN")
    },
    **{
        f"ELEMENT_WISE_LOGICAL_{name}": _test_table(*_COMPARISON_TABLE[3:])
        for name in ("GREATER_THAN_OR_EQUAL", "LESS_THAN_OR_EQUAL")
    },
    "ELEMENT_WISE_ROUND": _table((_FL.FL_2_1, (4, 4), FLOATS), (_FL.FL_3_0, (1, 8), FLOATS)),
    **{
        name: _table(
            (_FL.FL_2_1, (4, 4), _TYPES_8_32),
            (_FL.FL_3_0, (1, 8), _TYPES_8_32),
            (_FL.FL_6_0, (1, 8), _TYPES_8_32 | _INTS_64),
        )
        for name in _element_wise("MODULUS_TRUNCATE", "MODULUS_FLOOR")  # the two pages' tables
    },
    **{
        f"ELEMENT_WISE_BIT_{name}": _table(
            (_FL.FL_3_0, (1, 8), _UINTS_8_32),
            (_FL.FL_4_1, (1, 8), _TYPES_8_32 | _INTS_64 | {_T.FLOAT64}),
        )
        for name in ("AND", "OR", "XOR", "NOT")
    },
    **{
        f"ELEMENT_WISE_BIT_SHIFT_{name}": _table(
            (_FL.FL_2_1, (4, 4), _UINTS_8_32),
            (_FL.FL_3_0, (1, 8), _UINTS_8_32),
            (_FL.FL_4_1, (1, 8), _UINTS_8_32 | {_T.UINT64}),
        )
        for name in ("LEFT", "RIGHT")
    },
    "ELEMENT_WISE_BIT_COUNT": _test_table(
        (_FL.FL_3_0, (1, 8), _UINTS_8_32, _U8_U32),
        (_FL.FL_4_1, (1, 8), _TYPES_8_32 | _INTS_64 | {_T.FLOAT64}, _U8_U32),
    ),
    "ELEMENT_WISE_IS_INFINITY": _test_table(
        (_FL.FL_2_1, (4, 4), FLOATS, frozenset({_T.UINT8})),
        (_FL.FL_3_0, (1, 8), FLOATS, frozenset({_T.UINT8})),
    ),
    "ELEMENT_WISE_IS_NAN": _test_table(
        (_FL.FL_2_0, (4, 4), FLOATS, _U8_U32), (_FL.FL_3_0, (1, 8), FLOATS, _U8_U32)
    ),
}

_NAN, _INF = float("nan"), float("inf")
# The functions that round: each at points where its value is exact (zeros, infinities,
# the edges of its domain), and NaN outside the domain, as IEEE's functions give.
_EXACT_POINTS = (
    (
        "ELEMENT_WISE_EXP",
        [0.0, -_INF, _INF, _NAN],
        [1.0, 0.0, _INF, _NAN],
        "exp(0) is 1, exp(-inf) 0.",
    ),
    (
        "ELEMENT_WISE_LOG",
        [1.0, 0.0, -1.0, _INF],
        [0.0, -_INF, _NAN, _INF],
        "log(0) is -inf, log(-1) NaN.",
    ),
    (
        "ELEMENT_WISE_SIN",
        [0.0, -0.0, _INF, _NAN],
        [0.0, -0.0, _NAN, _NAN],
        "sin(-0.0) is -0.0, sin(inf) NaN.",
    ),
    (
        "ELEMENT_WISE_COS",
        [0.0, -0.0, _INF, -_INF],
        [1.0, 1.0, _NAN, _NAN],
        "cos(0) is 1, cos(inf) NaN.",
    ),
    (
        "ELEMENT_WISE_TAN",
        [0.0, -0.0, _INF, _NAN],
        [0.0, -0.0, _NAN, _NAN],
        "tan(-0.0) is -0.0, tan(inf) NaN.",
    ),
    ("ELEMENT_WISE_ASIN", [0.0, -0.0, 2.0, -1.5], [0.0, -0.0, _NAN, _NAN], "Outside [-1, 1]: NaN."),
    (
        "ELEMENT_WISE_ACOS",
        [1.0, 2.0, -1.5, _NAN],
        [0.0, _NAN, _NAN, _NAN],
        "acos(1) is 0; beyond 1 NaN.",
    ),
    (
        "ELEMENT_WISE_ATAN",
        [0.0, -0.0, _NAN, 0.0],
        [0.0, -0.0, _NAN, 0.0],
        "atan keeps a zero's sign.",
    ),
    (
        "ELEMENT_WISE_SINH",
        [0.0, -0.0, _INF, -_INF],
        [0.0, -0.0, _INF, -_INF],
        "sinh is odd, to infinity.",
    ),
    (
        "ELEMENT_WISE_COSH",
        [0.0, -0.0, _INF, -_INF],
        [1.0, 1.0, _INF, _INF],
        "cosh is even: cosh(-inf) inf.",
    ),
    (
        "ELEMENT_WISE_TANH",
        [0.0, -0.0, _INF, -_INF],
        [0.0, -0.0, 1.0, -1.0],
        "tanh(inf) is 1, tanh(-inf) -1.",
    ),
    (
        "ACTIVATION_TANH",
        [-0.0, _INF, -_INF, _NAN],
        [-0.0, 1.0, -1.0, _NAN],
        "(1 - exp(-2x)) / (1 + exp(-2x)) tends to 1 as x grows; tanh(-0.0) is -0.0.",
    ),
    (
        "ELEMENT_WISE_ASINH",
        [0.0, -0.0, _INF, -_INF],
        [0.0, -0.0, _INF, -_INF],
        "asinh is odd, to infinity.",
    ),
    (
        "ELEMENT_WISE_ACOSH",
        [1.0, 0.5, _INF, -2.0],
        [0.0, _NAN, _INF, _NAN],
        "acosh(1) is 0; below 1 NaN.",
    ),
    (
        "ELEMENT_WISE_ATANH",
        [1.0, -1.0, 2.0, -0.0],
        [_INF, -_INF, _NAN, -0.0],
        "atanh(1) is inf; beyond 1 NaN.",
    ),
    (
        "ELEMENT_WISE_ERF",
        [0.0, -0.0, _INF, -_INF],
        [0.0, -0.0, 1.0, -1.0],
        "erf(inf) is 1, erf(-inf) -1.",
    ),
    (
        "ACTIVATION_SIGMOID",
        [0.0, -_INF, _INF, _NAN],
        [0.5, 0.0, 1.0, _NAN],
        "1 / (1 + exp(0)) is 0.5.",
    ),
    (
        "ACTIVATION_GELU",
        [0.0, -0.0, 8.0, _INF],
        [0.0, -0.0, 8.0, _INF],
        "0.5 * 8 * erfc(-8 / sqrt(2)) is 8 to float32's precision (erfc is 2 there).",
    ),
    ("ACTIVATION_SOFTSIGN", [0.0, -0.0, _INF, -3.0], [0.0, -0.0, _NAN, -0.75], "inf / inf is NaN."),
)
_EXACT_AT = {
    **{name: x for name, x, _, _ in _EXACT_POINTS},
    # With the support checks' alpha 1 and beta 5: tanh(0) and tanh(+-20) or beyond,
    # which are 1 in every float type.
    "ACTIVATION_SCALED_TANH": [0.0, -0.0, 4.0, -6.0],
    # With sigmoid_input_scale 1: x * sigmoid(x) is x from 20 on, in every float type.
    "ACTIVATION_SWISH": [0.0, -0.0, 20.0, 30.0],
    # With steepness (or alpha) 1 and beta 5: softplus(y) is y from 20 on in every type.
    "ACTIVATION_SOFTPLUS": [20.0, 30.0, 40.0, 60.0],
    "ACTIVATION_PARAMETRIC_SOFTPLUS": [20.0, 30.0, 40.0, 60.0],
}
# One example of each operator, worked by hand from its page's formula and the rules
# dmljax states (the row's notes): (attributes, inputs by field, expected), each tensor a
# data type and one row of values.
_WORKED: dict[
    str, tuple[dict[str, Any], dict[str, tuple[str, list[Any]]], tuple[str, list[Any]], str]
] = {
    "ELEMENT_WISE_IDENTITY": (
        {"ScaleBias": {"Scale": 2, "Bias": 1}},
        {"InputTensor": ("FLOAT32", [1.5, -2.0, 0.0, 3.25])},
        ("FLOAT32", [4.0, -3.0, 1.0, 7.5]),
        "A copy through g(x) = 2x + 1.",
    ),
    "ACTIVATION_IDENTITY": (
        {},
        {"InputTensor": ("FLOAT32", [-0.0, 1.5, -2.0, 3.0e38])},
        ("FLOAT32", [-0.0, 1.5, -2.0, 3.0e38]),
        "A copy: -0.0 keeps its sign.",
    ),
    "ELEMENT_WISE_ABS": (
        {},
        {"InputTensor": ("INT8", [-128, -5, 0, 7])},
        ("INT8", [-128, 5, 0, 7]),
        "-128 has no positive INT8: two's complement keeps it.",
    ),
    "ELEMENT_WISE_CEIL": (
        {"ScaleBias": {"Scale": 0.5, "Bias": 0}},
        {"InputTensor": ("FLOAT32", [3.0, -3.0, -0.5, 1.0])},
        ("FLOAT32", [2.0, -1.0, -0.0, 1.0]),
        "ceil(x / 2): -0.25 rounds up to -0.0.",
    ),
    "ELEMENT_WISE_FLOOR": (
        {},
        {"InputTensor": ("FLOAT16", [-0.5, 2.5, -3.0, 1000.0])},
        ("FLOAT16", [-1.0, 2.0, -3.0, 1000.0]),
        "Down to the next whole number; whole numbers stay.",
    ),
    "ELEMENT_WISE_CLIP": (
        {"Min": -2.5, "Max": 2.5},
        {"InputTensor": ("INT32", [-4, -2, 1, 3])},
        ("INT32", [-2, -2, 1, 2]),
        "The FLOAT bounds truncate toward zero for INT32: [-2, 2].",
    ),
    "ELEMENT_WISE_THRESHOLD": (
        {"ScaleBias": {"Scale": -1, "Bias": 0}, "Min": -2.5},
        {"InputTensor": ("FLOAT32", [4.0, -1.0, _NAN, 0.0])},
        ("FLOAT32", [-2.5, 1.0, _NAN, 0.0]),
        "max(-x, -2.5): -4 is raised to -2.5; NaN stays NaN; -(0.0) + 0 is 0.0.",
    ),
    "ELEMENT_WISE_CLIP1": (
        {"MinMaxDataType": "FLOAT32", "Min": -1.0, "Max": 1.0},
        {"InputTensor": ("FLOAT32", [-3.0, _NAN, -0.0, 2.0])},
        ("FLOAT32", [-1.0, _NAN, -0.0, 1.0]),
        "NaN stays NaN, -0.0 is within [-1, 1] and kept.",
    ),
    "ELEMENT_WISE_CLIP_GRAD": (
        {"Min": -2.5, "Max": 2.5},
        {
            "InputTensor": ("INT32", [-3, -2, 1, 2]),
            "InputGradientTensor": ("INT32", [10, 20, 30, 40]),
        },
        ("INT32", [0, 0, 30, 0]),
        "The FLOAT bounds read as CLIP reads them for INT32, [-2, 2]: x at or beyond -2 "
        "or 2 gives 0, x = 1 passes its gradient.",
    ),
    "ELEMENT_WISE_CLIP_GRAD1": (
        {"MinMaxDataType": "FLOAT32", "Min": -1.0, "Max": 1.0},
        {
            "InputTensor": ("FLOAT32", [-1.0, 0.5, _NAN, 3.0]),
            "InputGradientTensor": ("FLOAT32", [5.0, -0.0, 7.0, 9.0]),
        },
        ("FLOAT32", [0.0, -0.0, 7.0, 0.0]),
        "x at Min gives 0; inside, the gradient passes with its sign (-0.0); NaN is neither "
        "at or below Min nor at or above Max, so its gradient passes.",
    ),
    "ACTIVATION_SHRINK": (
        {"Bias": 1.5, "Threshold": 2.5},
        {"InputTensor": ("INT8", [-128, -3, 2, 127])},
        ("INT8", [-126, -1, 0, 125]),
        "Real arithmetic, truncated toward zero (ONNX's): -128 + 1.5 is -126.5, so -126; "
        "-3 + 1.5 is -1; 127 - 1.5 is 125; 2 is within +-2.5 and gives 0.",
    ),
    "ACTIVATION_RELU": (
        {},
        {"InputTensor": ("INT8", [-128, -1, 0, 127])},
        ("INT8", [0, 0, 0, 127]),
        "max(0, x) on INT8 (from FL 5_1).",
    ),
    "ACTIVATION_LEAKY_RELU": (
        {"Alpha": 0.5},
        {"InputTensor": ("FLOAT32", [-4.0, -0.0, 3.0, _NAN])},
        ("FLOAT32", [-2.0, -0.0, 3.0, _NAN]),
        "Negatives times 0.5; -0.0 >= 0 keeps -0.0; NaN stays NaN.",
    ),
    "ACTIVATION_THRESHOLDED_RELU": (
        {"Alpha": -1.0},
        {"InputTensor": ("FLOAT16", [-2.0, -1.0, -0.0, _NAN])},
        ("FLOAT16", [0.0, 0.0, -0.0, 0.0]),
        "Only x > -1 is kept (-0.0 is, with its sign); -1 itself and NaN give 0.",
    ),
    "ACTIVATION_CELU": (
        {"Alpha": 2.0},
        {"InputTensor": ("FLOAT32", [-_INF, -0.0, 1.5, _NAN])},
        ("FLOAT32", [-2.0, 0.0, 1.5, _NAN]),
        "2 * (exp(-inf / 2) - 1) is -2; -0.0 gives 0.0 (max(0, -0.0) + min(0, -0.0)).",
    ),
    "ACTIVATION_ELU": (
        {"Alpha": 2.0},
        {"InputTensor": ("FLOAT32", [-_INF, 0.0, 1.5, -0.0])},
        ("FLOAT32", [-2.0, 0.0, 1.5, -0.0]),
        "2 * (exp(-inf) - 1) is -2; x >= 0 is x itself, -0.0 included.",
    ),
    "ACTIVATION_SCALED_ELU": (
        {"Alpha": 2.0, "Gamma": 0.5},
        {"InputTensor": ("FLOAT32", [-_INF, -0.0, 3.0, _NAN])},
        ("FLOAT32", [-1.0, -0.0, 1.5, _NAN]),
        "0.5 * (2 * exp(-inf) - 2) is -1; -0.0 is not above 0: 0.5 * 2 * expm1(-0.0) is -0.0.",
    ),
    "ACTIVATION_SCALED_TANH": (
        {"Alpha": 2.0, "Beta": -0.5},
        {"InputTensor": ("FLOAT32", [_INF, -0.0, 0.0, _NAN])},
        ("FLOAT32", [-2.0, 0.0, -0.0, _NAN]),
        "2 * tanh(-0.5 * inf) is -2; -0.5 * -0.0 is 0.0, -0.5 * 0.0 is -0.0.",
    ),
    "ACTIVATION_LINEAR": (
        {"Alpha": -0.5, "Beta": 1.0},
        {"InputTensor": ("FLOAT32", [2.0, -_INF, 0.5, _NAN])},
        ("FLOAT32", [0.0, _INF, 0.75, _NAN]),
        "-0.5 * 2 + 1 cancels to 0.0 exactly (coefficients exact in binary); -inf gives inf.",
    ),
    "ACTIVATION_HARD_SIGMOID": (
        {"Alpha": 0.25, "Beta": 0.5},
        {"InputTensor": ("FLOAT16", [-4.0, -2.0, 1.0, 8.0])},
        ("FLOAT16", [0.0, 0.0, 0.75, 1.0]),
        "0.25 * x + 0.5 clamped to [0, 1]: -2 reaches 0 exactly, 8 is clamped to 1.",
    ),
    "ACTIVATION_PARAMETERIZED_RELU": (
        {},
        {
            "InputTensor": ("INT8", [-128, -3, 0, 100]),
            "SlopeTensor": ("INT8", [2, -5, 7, 3]),
        },
        ("INT8", [0, 15, 0, 100]),
        "slope * x where x < 0: -128 * 2 wraps to 0 (INT8), -3 * -5 is 15; x >= 0 stays.",
    ),
    "ACTIVATION_RELU_GRAD": (
        {},
        {
            "InputTensor": ("FLOAT32", [2.0, 0.0, -0.0, _NAN]),
            "InputGradientTensor": ("FLOAT32", [-0.0, 5.0, 5.0, 5.0]),
        },
        ("FLOAT32", [-0.0, 0.0, 0.0, 0.0]),
        "dy where x > 0 (its -0.0 kept); 0.0 for x = 0, -0.0 and NaN (NaN > 0 is false).",
    ),
    "ACTIVATION_HARD_SWISH": (
        {"Alpha": 0.25, "Beta": 0.5},
        {"InputTensor": ("FLOAT32", [-4.0, -1.0, 1.0, 6.0])},
        ("FLOAT32", [-0.0, -0.25, 0.75, 6.0]),
        "x * clamp(x / 4 + 0.5): -4 * 0 is -0.0, 6 * 1 is 6.",
    ),
    "ACTIVATION_SWISH": (
        {"SigmoidInputScale": -2.0},
        {"InputTensor": ("FLOAT32", [0.0, -0.0, -_INF, _NAN])},
        ("FLOAT32", [0.0, -0.0, -_INF, _NAN]),
        "x * sigmoid(-2x): zeros keep their sign (times 0.5); -inf * sigmoid(inf) is -inf.",
    ),
    "ACTIVATION_SOFTPLUS": (
        {"Steepness": 2.0},
        {"InputTensor": ("FLOAT32", [-_INF, 50.0, _INF, _NAN])},
        ("FLOAT32", [0.0, 50.0, _INF, _NAN]),
        "ln(1 + exp(-inf)) is 0; ln(1 + exp(100)) / 2 is 50 to float32's precision.",
    ),
    "ACTIVATION_PARAMETRIC_SOFTPLUS": (
        {"Alpha": -2.0, "Beta": 0.5},
        {"InputTensor": ("FLOAT32", [-_INF, 100.0, _INF, _NAN])},
        ("FLOAT32", [-0.0, -100.0, -_INF, _NAN]),
        "-2 * ln(1 + exp(-inf)) is -0.0; -2 * ln(1 + exp(50)) is -100 to float32's precision.",
    ),
    "ELEMENT_WISE_SQRT": (
        {},
        {"InputTensor": ("FLOAT32", [16.0, 0.25, -0.0, -1.0])},
        ("FLOAT32", [4.0, 0.5, -0.0, _NAN]),
        "IEEE's square root: sqrt(-0.0) is -0.0, a negative gives NaN.",
    ),
    "ELEMENT_WISE_NEGATE": (
        {},
        {"InputTensor": ("INT32", [-2147483648, -3, 0, 5])},
        ("INT32", [-2147483648, 3, 0, -5]),
        "The most negative INT32 is its own negation.",
    ),
    "ELEMENT_WISE_ADD": (
        {},
        {"ATensor": ("UINT32", [4294967295, 1, 2, 3]), "BTensor": ("UINT32", [1, 2, 3, 4])},
        ("UINT32", [0, 3, 5, 7]),
        "UINT32 sums wrap: 4294967295 + 1 is 0.",
    ),
    "ELEMENT_WISE_ADD1": (
        {"FusedActivation": {"Type": "ACTIVATION_LEAKY_RELU", "Alpha": 0.5}},
        {
            "ATensor": ("FLOAT32", [1.0, -2.0, 3.0, -8.0]),
            "BTensor": ("FLOAT32", [1.0, 0.0, -5.0, 2.0]),
        },
        ("FLOAT32", [2.0, -1.0, -1.0, -3.0]),
        "The sums 2, -2, -2, -6 through the fused LEAKY_RELU with alpha 0.5.",
    ),
    "ELEMENT_WISE_SUBTRACT": (
        {},
        {
            "ATensor": ("FLOAT32", [1.0, -0.0, _INF, 5.5]),
            "BTensor": ("FLOAT32", [3.0, 0.0, _INF, 0.5]),
        },
        ("FLOAT32", [-2.0, -0.0, _NAN, 5.0]),
        "IEEE: -0 - 0 is -0, and inf - inf is NaN.",
    ),
    "ELEMENT_WISE_MULTIPLY": (
        {},
        {"ATensor": ("INT32", [65536, -3, 7, 0]), "BTensor": ("INT32", [65536, 4, -6, 9])},
        ("INT32", [0, -12, -42, 0]),
        "INT32 products wrap: 65536 * 65536 is 2**32, which is 0.",
    ),
    "ELEMENT_WISE_DIVIDE": (
        {},
        {"ATensor": ("INT32", [7, -7, 5, -2147483648]), "BTensor": ("INT32", [2, 2, 0, -1])},
        ("INT32", [3, -3, -1, -2147483648]),
        "Integer quotients truncate toward zero; 5 / 0 has every bit set (-1) and "
        "-2147483648 / -1 wraps, as dmljax defines them.",
    ),
    "ELEMENT_WISE_SIGN": (
        {},
        {"InputTensor": ("FLOAT16", [-3.5, -0.0, _NAN, 0.25])},
        ("FLOAT16", [-1.0, 0.0, 0.0, 1.0]),
        "-0.0 and NaN are neither below nor above 0: both give 0.",
    ),
    "ELEMENT_WISE_MAX": (
        {},
        {
            "ATensor": ("FLOAT32", [1.0, _NAN, -0.0, _NAN]),
            "BTensor": ("FLOAT32", [-2.0, 3.0, 0.0, _NAN]),
        },
        ("FLOAT32", [1.0, 3.0, 0.0, _NAN]),
        "A NaN operand gives the other operand (HLSL's max), NaN only where both are; 0.0 "
        "is above -0.0.",
    ),
    "ELEMENT_WISE_MIN": (
        {},
        {
            "ATensor": ("FLOAT16", [1.0, _NAN, 0.0, -_INF]),
            "BTensor": ("FLOAT16", [-2.0, 3.0, -0.0, _NAN]),
        },
        ("FLOAT16", [-2.0, 3.0, -0.0, -_INF]),
        "A NaN operand gives the other operand (HLSL's min); -0.0 is below 0.0.",
    ),
    "ELEMENT_WISE_MEAN": (
        {},
        {
            "ATensor": ("INT32", [2147483647, -7, -1, 6]),
            "BTensor": ("INT32", [2147483647, 2, 0, 3]),
        },
        ("INT32", [2147483647, -2, 0, 4]),
        "Exact integer means truncated toward zero: the sum 4294967294 does not fit INT32 "
        "and is never formed; -5 / 2 is -2, 9 / 2 is 4.",
    ),
    "ELEMENT_WISE_DIFFERENCE_SQUARE": (
        {},
        {"ATensor": ("UINT32", [1, 5, 70000, 0]), "BTensor": ("UINT32", [3, 5, 0, 1])},
        ("UINT32", [4, 0, 605032704, 1]),
        "1 - 3 wraps to 4294967294, whose square wraps to 4; 70000**2 is 4900000000, "
        "which wraps to 605032704.",
    ),
    "ELEMENT_WISE_ATAN_YX": (
        {},
        {
            "ATensor": ("FLOAT32", [0.0, -0.0, 1.0, -1.0]),
            "BTensor": ("FLOAT32", [-0.0, -2.0, 0.0, _INF]),
        },
        ("FLOAT32", [3.1415927, -3.1415927, 1.5707964, -0.0]),
        "IEEE's atan2: at the origin (which the page leaves undefined) +-0 or +-pi by the "
        "zeros' signs; y = 1 over x = 0 is pi / 2; -1 over inf is -0.0.",
    ),
    "ELEMENT_WISE_POW": (
        {},
        {
            "InputTensor": ("INT32", [2, -3, 0, 7]),
            "ExponentTensor": ("INT32", [31, 3, -1, -2]),
        },
        ("INT32", [-2147483648, -27, -1, 0]),
        "Exact integer powers, wrapped: 2 ** 31 is -2147483648 in INT32; 0 ** -1 is 1 / 0, "
        "every bit set (-1), as DIVIDE's; 7 ** -2 is 1 / 49 truncated, 0.",
    ),
    "ELEMENT_WISE_CONSTANT_POW": (
        {"ScaleBias": {"Scale": -1, "Bias": 0}, "Exponent": 3.0},
        {"InputTensor": ("FLOAT32", [2.0, -0.5, _INF, -0.0])},
        ("FLOAT32", [-8.0, 0.125, -_INF, 0.0]),
        "(-x) ** 3: a negative base with an odd whole exponent keeps its sign; -inf ** 3 "
        "is -inf; -(-0.0) + 0 is 0.0.",
    ),
    "ELEMENT_WISE_RECIP": (
        {"ScaleBias": {"Scale": 2, "Bias": 0}},
        {"InputTensor": ("FLOAT32", [0.25, -0.0, _INF, -1.0])},
        ("FLOAT32", [2.0, _INF, 0.0, -0.5]),
        "1 / (2x + 0): -0.0 * 2 + 0 is 0.0 (IEEE's sum of two zeros), whose reciprocal is "
        "inf; 1 / inf is 0.0.",
    ),
    **{
        name: ({}, {"InputTensor": ("FLOAT32", x)}, ("FLOAT32", y), notes)
        for name, x, y, notes in _EXACT_POINTS
    },
    **{
        f"ELEMENT_WISE_LOGICAL_{name}": (
            {},
            {"ATensor": ("UINT32", [0, 0, 5, 4294967295]), "BTensor": ("UINT32", [0, 2, 0, 1])},
            ("UINT32", out),
            f"Nonzero is true: {notes}.",
        )
        for name, out, notes in (
            ("AND", [0, 0, 0, 1], "true only where both are nonzero"),
            ("OR", [0, 1, 1, 1], "true where either is nonzero"),
            ("XOR", [0, 1, 1, 0], "true where exactly one is nonzero"),
        )
    },
    **{
        f"ELEMENT_WISE_LOGICAL_{name}": (
            {},
            {
                "ATensor": ("FLOAT32", [1.0, _NAN, -0.0, 2.0]),
                "BTensor": ("FLOAT32", [2.0, _NAN, 0.0, 1.0]),
            },
            (out_type, out),
            f"NaN compares false, -0.0 equals 0.0; the output is {out_type}.",
        )
        for name, out, out_type in (
            ("EQUALS", [0, 0, 1, 0], "UINT8"),
            ("GREATER_THAN", [0, 0, 0, 1], "UINT32"),
            ("LESS_THAN", [1, 0, 0, 0], "UINT8"),
            ("GREATER_THAN_OR_EQUAL", [0, 0, 1, 1], "UINT8"),
            ("LESS_THAN_OR_EQUAL", [1, 0, 1, 0], "UINT32"),
        )
    },
    "ELEMENT_WISE_BIT_AND": (
        {},
        {"ATensor": ("FLOAT32", [-0.0, 1.5, -2.0, _INF]), "BTensor": ("FLOAT32", [_INF] * 4)},
        ("FLOAT32", [0.0, 1.0, 2.0, _INF]),
        "Bits of FLOAT32 (FL 4_1): inf is 0x7F800000, the exponent's bits, so a & inf "
        "clears the sign and the fraction: -0.0 gives 0.0, 1.5 gives 1.0, -2.0 gives 2.0.",
    ),
    "ELEMENT_WISE_BIT_OR": (
        {},
        {"ATensor": ("INT8", [0, 1, -128, 64]), "BTensor": ("INT8", [-128, 2, 127, 1])},
        ("INT8", [-128, 3, -1, 65]),
        "Two's complement bits: -128 | 127 sets every bit, which is -1.",
    ),
    "ELEMENT_WISE_BIT_XOR": (
        {},
        {"ATensor": ("UINT16", [65535, 255, 0, 4660]), "BTensor": ("UINT16", [255, 255, 7, 4660])},
        ("UINT16", [65280, 0, 7, 0]),
        "x ^ x is 0; 0xFFFF ^ 0x00FF is 0xFF00.",
    ),
    "ELEMENT_WISE_BIT_SHIFT_LEFT": (
        {},
        {"ATensor": ("UINT32", [1, 3, 4294967295, 1]), "BTensor": ("UINT32", [31, 4, 1, 32])},
        ("UINT32", [2147483648, 48, 4294967294, 0]),
        "Bits shifted out are lost; a shift by the width (32) or more gives 0.",
    ),
    "ELEMENT_WISE_BIT_SHIFT_RIGHT": (
        {},
        {"ATensor": ("UINT8", [128, 255, 12, 200]), "BTensor": ("UINT8", [7, 4, 0, 255])},
        ("UINT8", [1, 15, 12, 0]),
        "A logical shift: zeros come in from the left; by 255 (past the width) it gives 0.",
    ),
    "ELEMENT_WISE_MODULUS_TRUNCATE": (
        {},
        {"ATensor": ("INT32", [7, -7, -2147483648, 9]), "BTensor": ("INT32", [-3, 3, -1, 0])},
        ("INT32", [1, -1, 0, 9]),
        "C's %: the dividend's sign; MIN % -1 is 0 and 9 % 0 is 9, as dmljax defines them.",
    ),
    "ELEMENT_WISE_MODULUS_FLOOR": (
        {},
        {
            "ATensor": ("FLOAT32", [-7.0, 7.0, 3.0, -3.0]),
            "BTensor": ("FLOAT32", [3.0, -3.0, -3.0, 3.0]),
        },
        ("FLOAT32", [2.0, -2.0, -0.0, 0.0]),
        "Python's %: the divisor's sign, a zero remainder's too.",
    ),
    "ELEMENT_WISE_ROUND": (
        {"RoundingMode": "DML_ROUNDING_MODE_TOWARD_INFINITY"},
        {"InputTensor": ("FLOAT32", [2.5, -2.5, -0.4, 0.49999997])},
        ("FLOAT32", [3.0, -3.0, -0.0, 0.0]),
        "Halves away from zero; -0.4 rounds to -0.0; the float32 just below 0.5 rounds "
        "down (adding 0.5 in float32 would round it up first).",
    ),
    "ELEMENT_WISE_IS_INFINITY": (
        {"InfinityMode": "DML_IS_INFINITY_MODE_NEGATIVE"},
        {"InputTensor": ("FLOAT16", [_INF, -_INF, _NAN, -65504.0])},
        ("UINT8", [0, 1, 0, 0]),
        "NEGATIVE finds -inf only: not inf, NaN or the most negative finite FLOAT16.",
    ),
    "ELEMENT_WISE_IS_NAN": (
        {},
        {"InputTensor": ("FLOAT16", [_NAN, _INF, -0.0, -2.5])},
        ("UINT32", [1, 0, 0, 0]),
        "Only the NaN is a NaN; the output is UINT32.",
    ),
    "ELEMENT_WISE_LOGICAL_NOT": (
        {},
        {"InputTensor": ("UINT8", [0, 1, 2, 255])},
        ("UINT8", [1, 0, 0, 0]),
        "Every nonzero value is true, so its NOT is 0.",
    ),
}


def _page(row: ElementWise) -> str:
    stem = f"dml_{row.kind.lower()}_operator_desc"
    return (
        f"dmljax: the DML_{row.kind}_OPERATOR_DESC page (MicrosoftDocs/sdk-api, "
        f"sdk-api-src/content/directml/ns-directml-{stem}.md) has no example"
    )


def _example(row: ElementWise) -> dict[str, Any]:
    attrs, inputs, (out_type, out_data), notes = _WORKED[row.kind]

    def tensor(data_type: str, data: list[Any]) -> dict[str, Any]:
        return {"sizes": [1, 1, 1, len(data)], "dtype": data_type, "data": [[[data]]]}

    return {
        "id": f"{_id_stem(row.kind)}-dmljax-1",
        "op": row.operator_name,
        "source": _page(row),
        "attrs": attrs,
        "inputs": {field: tensor(*value) for field, value in inputs.items()},
        "expected": tensor(out_type, out_data),
        "notes": notes,
        "status": "dmljax",
    }


def _id_stem(kind: str) -> str:
    """An example id's stem: ``ELEMENT_WISE_BIT_NOT`` is ``bit-not`` (short enough for the
    selftest's table), ``ACTIVATION_IDENTITY`` ``activation-identity`` (ELEMENT_WISE_IDENTITY's
    is ``identity``)."""
    return kind.removeprefix("ELEMENT_WISE_").lower().replace("_", "-")


def _page_example(
    kind: str,
    number: int,
    commit: str,
    tensors: tuple[tuple[str, list[Any]], tuple[str, list[Any]]],
    **inputs: tuple[str, list[Any]],
) -> dict[str, Any]:
    """A worked example as its page prints it: one 2x2 input, the output (or the
    ``inputs`` by field, IF's three)."""
    (in_type, x), (out_type, y) = tensors
    inputs = inputs or {"InputTensor": (in_type, x)}
    stem = f"dml_{kind.lower()}_operator_desc"
    return {
        "id": f"{_id_stem(kind)}-ex{number}",
        "op": f"DML_OPERATOR_{kind}",
        "source": f"MicrosoftDocs/sdk-api@{commit}:sdk-api-src/content/directml/"
        f"ns-directml-{stem}.md (Example)",
        "attrs": {},
        "inputs": {
            field: {"sizes": [2, 2], "dtype": data_type, "data": data}
            for field, (data_type, data) in inputs.items()
        },
        "expected": {"sizes": [2, 2], "dtype": out_type, "data": y},
        "notes": "As the page prints it.",
        "status": "valid",
    }


# The pages' own examples (BIT_NOT's and BIT_COUNT's), checked as the others are.
_PAGE_EXAMPLES = {
    "ELEMENT_WISE_BIT_NOT": _page_example(
        "ELEMENT_WISE_BIT_NOT", 1, "f88051d5",
        (("UINT8", [[0, 128], [42, 255]]), ("UINT8", [[255, 127], [213, 0]])),
    ),
    "ELEMENT_WISE_BIT_COUNT": _page_example(
        "ELEMENT_WISE_BIT_COUNT", 1, "9ade0e62",
        (("UINT32", [[0, 123], [456, 789]]), ("UINT32", [[0, 6], [4, 5]])),
    ),
    # The page's example (its data types unstated: UINT8 conditions, FLOAT32 values).
    "ELEMENT_WISE_IF": _page_example(
        "ELEMENT_WISE_IF", 1, "f88051d5",
        (("FLOAT32", [[1, 2], [3, 4]]), ("FLOAT32", [[1, 8], [3, 4]])),
        ConditionTensor=("UINT8", [[1, 0], [1, 1]]),
        ATensor=("FLOAT32", [[1, 2], [3, 4]]),
        BTensor=("FLOAT32", [[9, 8], [7, 6]]),
    ),
}  # fmt: skip
EXAMPLES = {
    row.kind: (_PAGE_EXAMPLES[row.kind],) if row.kind in _PAGE_EXAMPLES else (_example(row),)
    for row in ROWS
}
"""Each row's worked example, in the doc examples' form."""


# --- The sweep: the face against the row's reference ----------------------------------------------


def _other_shape(rng: np.random.Generator, shape: tuple[int, ...]) -> tuple[int, ...]:
    """``shape``, or one that broadcasts to it (fewer dimensions, or 1s)."""
    if not shape or rng.random() < 0.5:
        return shape
    kept = shape[int(rng.integers(0, len(shape), endpoint=True)) :]
    return tuple(1 if rng.random() < 0.3 else size for size in kept)


# The sweep's values of each C FLOAT attribute of an activation.
_FLOAT_ATTRIBUTES = {
    "alpha": [0.01, 0.5, 1.0, 2.0],
    "beta": [-0.5, 0.5, 2.0],
    "gamma": [0.5, 1.0507, 2.0],
    "sigmoid_input_scale": [1.0, 0.5, -2.0, 1.702],
    "steepness": [1.0, 2.0, 3.7],
    "exponent": [2.0, 0.5, 3.0, -1.0, 1.5],
    # SHRINK's: thresholds half-way between the sweep's integers (no value sits on a jump).
    "bias": [0.0, 0.5, 2.0, -1.5],
    "threshold": [0.5, 2.5, 10.5],
}


# A row whose result may cancel draws coefficients exact in binary: with the sweep's
# small integers every product and sum is then exact, on every backend (the hypothesis
# tests hold other coefficients to the row's bound on |alpha * x| + |beta|).
_EXACT_COEFFICIENTS = {
    "ACTIVATION_LINEAR": [(0.5, -1.5), (2.0, 0.25), (-0.25, 3.0)],
    "ACTIVATION_HARD_SIGMOID": [(0.25, 0.5), (0.125, -1.0), (-0.5, 0.75)],
    "ACTIVATION_HARD_SWISH": [(0.25, 0.5), (0.125, -1.0), (-0.5, 0.75)],
}


def draw_attributes(
    rng: np.random.Generator, dtype: np.dtype[Any], row: ElementWise
) -> tuple[Any, ...]:
    """Values of the row's attributes for arrays of ``dtype`` (CLIP's bounds: half-way
    between the sweep's small integers for floats, so that no value sits on a corner).

    >>> from dmljax._src.ops.element_wise import ROWS
    >>> clip1 = next(row for row in ROWS if row.kind == "ELEMENT_WISE_CLIP1")
    >>> low, high = draw_attributes(np.random.default_rng(0), np.dtype(np.uint8), clip1)
    >>> 0 <= low <= high
    True
    """
    if not row.attributes:
        return ()
    if row.kind in _EXACT_COEFFICIENTS:
        choices = _EXACT_COEFFICIENTS[row.kind]
        return choices[int(rng.integers(len(choices)))]
    if set(row.attributes) <= _FLOAT_ATTRIBUTES.keys():
        return tuple(float(rng.choice(_FLOAT_ATTRIBUTES[name])) for name in row.attributes)
    enums = element_wise.ENUM_ATTRIBUTES
    if row.attributes[0] in enums:  # ROUND's mode, IS_INFINITY's: one of its names
        return (str(rng.choice([m.function_name for m in enums[row.attributes[0]]])),)
    low = int(rng.integers(-3 if jnp.issubdtype(dtype, jnp.signedinteger) else 0, 3))
    high = low + int(rng.integers(0, 4))
    bounds = (low + 0.5, high + 0.5) if jnp.issubdtype(dtype, jnp.floating) else (low, high)
    return bounds[: len(row.attributes)]  # THRESHOLD's Min alone


def _sweep_of(row: ElementWise) -> Any:
    function = element_wise.FUNCTIONS[row.face]

    def sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
        """The face of one row on 0 to 3 dimensions, ``b`` broadcast now and then."""
        shape = sweeps.draw_shape(rng, int(rng.integers(0, 3, endpoint=True)), 1, 4)
        shapes = [shape, *(_other_shape(rng, shape) for _ in range(row.arity - 1))]
        members = tuple(
            tuple(_operand(rng, s, row.input_dtype(i, dtype), row, i) for i, s in enumerate(shapes))
            for _ in range(batch)
        )
        values = draw_attributes(rng, dtype, row)

        def fn(*xs: Any) -> jax.Array:
            return function(*xs, *values)

        return sweeps.SweepCase(
            label=" ".join([*(sweeps.label(s, dtype) for s in shapes), *map(repr, values)]),
            fn=fn if values else function,
            batch=members,
            expected=tuple(row.reference(*np.broadcast_arrays(*args), *values) for args in members),
            # The inputs of the shared dtype (not IF's condition).
            linear_argnums=tuple(i for i in range(row.arity) if row.input_dtype(i, dtype) == dtype),
            linear=row.linear,
            ulps=row.ulps,
            differentiable=not row.bitwise,
        )

    return sweep


# The rows whose b divides a: their float divisors are kept from 0 (no NaN quotients; and
# ATAN_YX's atan(a / b) has no derivative at the origin).
_DIVIDES = _element_wise("DIVIDE", "MODULUS_TRUNCATE", "MODULUS_FLOOR", "ATAN_YX")


def _operand(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype[Any], row: ElementWise, i: int
) -> np.ndarray:
    """Small integers (exact in every dtype); a divisor (DIVIDE's b, RECIP's x) is never 0
    for floats, and a function's operand within :data:`_DOMAIN` (the derivative checks need
    finite values; tests/test_element_wise.py draws the rest)."""
    values = sweeps.draw_values(rng, shape, dtype)
    if row.kind.startswith("ELEMENT_WISE_BIT_SHIFT") and i == 1:  # amounts up to one past the width
        return (values % (dtype.itemsize * 8 + 2)).astype(dtype)
    divisor = (row.kind in _DIVIDES and i == 1) or row.kind == "ELEMENT_WISE_RECIP"
    if divisor and jnp.issubdtype(dtype, jnp.floating):
        values = np.where(values == 0, np.ones((), dtype), values).astype(dtype)
    domain = _DOMAIN.get(row.kind) if i == 0 else _OTHER_DOMAIN.get((row.kind, i))
    if domain is not None:
        values = domain(values.astype(np.float64)).astype(dtype)
    return values


# The domains of operands after the first: POW's exponents small (the powers stay in
# range), IF's conditions 0, 1 or 2 (false, true, true).
_OTHER_DOMAIN: dict[tuple[str, int], Any] = {
    ("ELEMENT_WISE_POW", 1): lambda v: np.trunc(v / 32),
    ("ELEMENT_WISE_IF", 0): lambda v: v % 3,
}


# Each function's first sweep operand, from the small integers in [-100, 100]: inside its domain,
# away from infinite derivatives and overflow, and exact in every float type (at most eight
# significant bits).
_DOMAIN: dict[str, Any] = {
    "ELEMENT_WISE_SQRT": lambda v: np.abs(v) + 1,
    "ELEMENT_WISE_ROUND": lambda v: v / 4,  # quarters: the halves are ties
    "ELEMENT_WISE_IS_INFINITY": lambda v: np.where(v % 3 == 0, np.copysign(np.inf, v), v),
    "ELEMENT_WISE_LOG": lambda v: (np.abs(v) + 1) / 32,
    "ELEMENT_WISE_ACOSH": lambda v: np.abs(v) / 32 + 1.5,
    **{name: lambda v: v / 128 for name in _element_wise("TAN", "ASIN", "ACOS", "ATANH")},
    **{
        name: lambda v: v / 32
        for name in _element_wise("EXP", "SIN", "COS", "ATAN", "SINH", "COSH", "TANH", "ASINH")
    },
    "ELEMENT_WISE_ERF": lambda v: v / 32,
    # Positive bases (a fractional exponent of a negative one is NaN), away from 0.
    **{name: lambda v: np.abs(v) / 32 + 0.5 for name in _element_wise("CONSTANT_POW", "POW")},
}


# Where each function with a smaller domain than the reals is smooth, for normal draws
# (check_grads', the bench's; NumPy or JAX arrays): clear of the domain's edges, where
# derivatives grow without bound.
_SMOOTH_ON: dict[str, Any] = {
    "ELEMENT_WISE_LOG": lambda x: abs(x) + 0.5,
    "ELEMENT_WISE_ACOSH": lambda x: abs(x) + 1.5,
    "ELEMENT_WISE_CONSTANT_POW": lambda x: abs(x) + 0.5,
    "ELEMENT_WISE_POW": lambda x: abs(x) + 0.5,
    **{name: lambda x: x / (4 + abs(x)) for name in _element_wise("ASIN", "ACOS", "ATANH")},
}


# --- Support cases, examples through the face, bench ------------------------------------------


_SUPPORT_VALUES = (1, 5)  # CLIP's bounds, LEAKY_RELU's alpha: data_of's 0 to 6 stay exact


def _bits_of(data: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """Arrays of ``dtype`` whose bits are ``data``'s values (a float's are a subnormal's)."""
    return np.asarray(data).astype(f"uint{dtype.itemsize * 8}").view(dtype)


# Inputs that give the same values in every type, for the rows whose results on the
# support data depend on the type: a bit operation's on its encoding (NOT of every bit set
# is 0, 0.0 for floats; a count of the same bits is the same count; a shift by 0 is its
# input; AND, OR and XOR of x with itself are x, x and 0 already), ATAN_YX's rounding.
_SUPPORT_INPUTS: dict[str, Any] = {
    "ELEMENT_WISE_BIT_NOT": lambda data, dtype: (_bits_of(np.full(data.shape, -1), dtype),),
    "ELEMENT_WISE_BIT_COUNT": lambda data, dtype: (_bits_of(data, dtype),),
    "ELEMENT_WISE_BIT_SHIFT_LEFT": lambda data, dtype: (data, np.zeros_like(data)),
    "ELEMENT_WISE_BIT_SHIFT_RIGHT": lambda data, dtype: (data, np.zeros_like(data)),
    # atan2(0, x) is 0 for every x > 0, in every type (its other values round apart).
    "ELEMENT_WISE_ATAN_YX": lambda data, dtype: (np.zeros_like(data), data + 1),
}


def attributes_of(row: ElementWise, data_type: DataType, values: Sequence[Any]) -> dict[str, Any]:
    """The desc's attribute fields for the attributes' ``values`` (CLIP1's data type too)."""
    if not row.attributes:
        return {}
    fields = dict(zip(row.attributes, values, strict=True))
    if "min_max_data_type" in row.shape.__dataclass_fields__:
        fields["min_max_data_type"] = data_type
    return fields


def _support_case_of(row: ElementWise) -> Any:
    desc_type = element_wise.DESCS[row.kind]

    def support_case(
        rank: int, data_type: DataType, index_type: DataType
    ) -> tuple[Any, tuple[np.ndarray, ...]]:
        sizes = (2,) + (1,) * (rank - 1)
        tensor = TensorDesc(data_type=data_type, sizes=sizes)
        # A test's output type and the type of an input apart (IF's condition, POW's
        # exponent) are the table's "other" type (none: the data's, POW's before FL 3_0).
        other = TensorDesc(data_type=index_type or data_type, sizes=sizes)
        fields = [f.name for f in contract.tensor_fields(row.shape, contract.Role.INPUT)]
        tensors = {f: other if i in row.apart else tensor for i, f in enumerate(fields)}
        out = other if row.uint_output else tensor
        values = _SUPPORT_VALUES[: len(row.attributes)]
        attributes = attributes_of(row, data_type, values)
        desc = desc_type(**tensors, **{row.output_field: out}, **attributes)
        data = data_of(sizes, data_type)
        data = (
            data + 1
            if row.kind in _DIVIDES
            else data * data
            if row.kind == "ELEMENT_WISE_SQRT"
            else data
        )
        if row.kind in _EXACT_AT:  # a function that rounds: finite points where it is exact
            data = np.resize([v for v in _EXACT_AT[row.kind] if np.isfinite(v)], sizes)
        inputs = (data,) * row.arity  # squares: their roots are exact in every type
        if row.uint_output or row.apart:  # data with itself: a test the same everywhere
            inputs = inputs[:1] + tuple(np.flip(data) for _ in inputs[1:])
        if row.kind in _SUPPORT_INPUTS:
            data = np.asarray(data, data_type.dtype)
            inputs = _SUPPORT_INPUTS[row.kind](data, np.dtype(data_type.dtype))
        # An input apart holds 0 and 1: a condition, or an exponent whose powers of the
        # data (0 to 6) are exact in every type.
        return desc, tuple(
            np.asarray(data % 2 if i in row.apart else x, tensors[f].data_type.dtype)
            for i, (f, x) in enumerate(zip(fields, inputs, strict=True))
        )

    return support_case


def _face_example_of(row: ElementWise) -> Any:
    function = element_wise.FUNCTIONS[row.face]

    def face(example: Any) -> jax.Array:
        scale_bias = getattr(example.desc, "scale_bias", None)
        xs = [element_wise.apply_scale_bias(jnp.asarray(x), scale_bias) for x in example.inputs]
        y = function(*xs, *(getattr(example.desc, name) for name in row.attributes))
        # A test's face gives uint8; the example's output may be UINT32.
        return y.astype(getattr(example.desc, row.output_field).dtype) if row.uint_output else y

    return face


_LOGICAL_FACES = ("logical_and", "logical_or", "logical_xor", "logical_not")


def _jnp_on_bits(f: Any) -> Any:
    """jnp's bit function ``f`` (integers only) on the bits of floats, read back as floats
    unless ``f`` counts: the jnp expression a user writes for DirectML's BIT_AND."""

    def bits(*xs: jax.Array) -> jax.Array:
        unsigned = np.dtype(f"uint{xs[0].dtype.itemsize * 8}")
        y = f(*(jax.lax.bitcast_convert_type(x, unsigned) for x in xs))
        return y if f is jnp.bitwise_count else jax.lax.bitcast_convert_type(y, xs[0].dtype)

    return bits


def _in_uint8(f: Any) -> Any:
    """jnp's test ``f`` (which gives bool) as 1 or 0 of uint8, as a test's face gives."""
    return lambda *xs: f(*xs).astype(np.uint8)


def _in_inputs_type(f: Any) -> Any:
    """jnp's ``f`` (a logical function, which gives bool) as 1 or 0 in its inputs' type."""
    return lambda *xs: f(*xs).astype(xs[0].dtype)


_JNP = {
    "identity": lambda x: x,
    "negative": jnp.negative,
    "relu": jax.nn.relu,
    "leaky_relu": jax.nn.leaky_relu,
    "elu": jax.nn.elu,
    # DirectML's MAX and MIN ignore a NaN operand: jnp's functions that do are fmax, fmin.
    "maximum": jnp.fmax,
    "minimum": jnp.fmin,
    "erf": jax.scipy.special.erf,
    "sigmoid": jax.nn.sigmoid,
    "soft_sign": jax.nn.soft_sign,
    "celu": jax.nn.celu,
    "selu": lambda x, alpha, gamma: gamma * jax.nn.elu(x, alpha),  # jax.nn.selu's formula
    "scaled_tanh": lambda x, alpha, beta: alpha * jnp.tanh(beta * x),
    "linear": lambda x, alpha, beta: alpha * x + beta,
    "prelu": lambda x, slope: jnp.where(x >= 0, x, slope * x),
    "relu_grad": lambda x, dy: jnp.where(x > 0, dy, 0.0),
    "shrink": lambda x, b, t: jnp.where(x > t, x - b, jnp.where(x < -t, x + b, 0.0)),
    "clip_grad": lambda x, dy, low, high: jnp.where((x <= low) | (x >= high), 0.0, dy),
    "hard_sigmoid": lambda x, alpha, beta: jnp.clip(alpha * x + beta, 0.0, 1.0),
    "hard_swish": lambda x, alpha, beta: x * jnp.clip(alpha * x + beta, 0.0, 1.0),
    "swish": lambda x, scale: x * jax.nn.sigmoid(scale * x),
    "gelu": lambda x: jax.nn.gelu(x, approximate=False),
    "softplus": lambda x, steepness: jax.nn.softplus(steepness * x) / steepness,
    "parametric_softplus": lambda x, alpha, beta: alpha * jax.nn.softplus(beta * x),
    "constant_pow": lambda x, exponent: jnp.pow(x, np.float32(exponent)),
    "mean": lambda a, b: (a + b) * 0.5,
    "difference_square": lambda a, b: jnp.square(a - b),
    "threshold": jnp.maximum,
    "thresholded_relu": lambda x, alpha: jnp.where(
        x > alpha, x, 0.0
    ),  # with Min read as CLIP reads its bounds
    "round": lambda x, mode: jnp.round(x),  # the bench's mode, jnp.round's
    "isinf": lambda x, mode: jnp.isinf(x),
    **{name: _in_inputs_type(getattr(jnp, name)) for name in _LOGICAL_FACES},
    **{
        name: _jnp_on_bits(getattr(jnp, name))
        for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_count")
    },
}
# The bench's attributes: a normal sample is clipped on both sides, negatives scaled.
_BENCH_VALUES = {
    "min": -0.5,
    "max": 0.5,
    "alpha": 0.5,
    "gamma": 1.5,
    "beta": 0.5,
    "sigmoid_input_scale": 1.0,
    "steepness": 1.0,
    "exponent": 2.5,
    "bias": 0.25,
    "threshold": 0.5,
    "rounding_mode": "halves_to_nearest_even",
    "infinity_mode": "either",
}


def _bench_operands(row: ElementWise) -> Any:
    """``draw(key, shape)``: float32 normal draws (inside a function's domain), or where
    the face takes no float32 (LOGICAL_AND's), uint32 values of 0, 1 and 2."""
    if np.dtype(np.float32) not in element_wise.face_dtypes(row):
        return lambda key, shape: operands.randint(key, shape, 0, 3, np.uint32)
    inside = _SMOOTH_ON.get(row.kind, lambda x: x)
    return lambda key, shape: inside(operands.normal(key, shape))


def jnp_expression(row: ElementWise) -> Any:
    """What a JAX user writes for the row's face, given its arrays and attributes: the
    expression the bench times it against (``jax.nn.gelu(x, approximate=False)`` for
    GELU), else jax.numpy's function of the face's name.

    >>> gelu = next(row for row in ROWS if row.kind == "ACTIVATION_GELU")
    >>> float(jnp_expression(gelu)(jnp.float32(0.0)))
    0.0
    """
    return _JNP.get(row.face) or getattr(jnp, row.face)


def _bench_of(row: ElementWise) -> Any:
    values = tuple(_BENCH_VALUES[name] for name in row.attributes)
    face, namesake = element_wise.FUNCTIONS[row.face], jnp_expression(row)
    if row.uint_output:  # jnp's tests give bool; DirectML's 1 or 0, of uint8 on the face
        namesake = _in_uint8(namesake)
    draw = _bench_operands(row)

    def function(*xs: jax.Array) -> jax.Array:
        return face(*xs, *values)

    def jnp_fn(*xs: jax.Array) -> jax.Array:
        return namesake(*xs, *values)

    def drawn(key: jax.Array, shape: tuple[int, ...]) -> tuple[jax.Array, ...]:
        """Each input: the row's draws, or for an input apart of another dtype (IF's
        condition) 0 and 1 of its type."""
        keys = jax.random.split(key, row.arity)
        return tuple(
            draw(k, shape)
            if row.input_dtype(i, np.float32) == np.float32
            else operands.randint(k, shape, 0, 2, row.input_dtype(i, np.float32))
            for i, k in enumerate(keys)
        )

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        side = 512 if quick else 4096  # 1 MiB / 64 MiB of f32 each
        return drawn(key, (side, side))

    def bytes_moved(args: Sequence[jax.Array]) -> int:
        shared = args[row.first_shared]
        return sum(a.nbytes for a in args) + shared.size * row.output_dtype(shared.dtype).itemsize

    def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
        return drawn(key, (8, 8))

    def desc(*xs: jax.Array) -> Any:
        shared = xs[row.first_shared]
        out = TensorDesc.from_array(
            jax.ShapeDtypeStruct(shared.shape, row.output_dtype(shared.dtype))
        )
        fields = [f.name for f in contract.tensor_fields(row.shape, contract.Role.INPUT)]
        data_type = DataType.from_dtype(np.dtype(shared.dtype))
        attributes = attributes_of(row, data_type, values)
        return element_wise.DESCS[row.kind](
            **{f: TensorDesc.from_array(x) for f, x in zip(fields, xs, strict=True)},
            **{row.output_field: out},
            **attributes,
        )

    def bench() -> list[Case | EagerCase]:
        """The face over 4096x4096 float32 (uint32 for LOGICAL_AND and its kin) against
        the jax.numpy function, and eagerly on 8x8."""
        dtype = "float32" if np.dtype(np.float32) in element_wise.face_dtypes(row) else "uint32"
        return [
            Case(
                name=f"{row.face} {dtype}",
                operator=row.kind,
                make_args=make_args,
                dmljax_fn=function,
                jnp_fn=jnp_fn,
                bytes_moved=bytes_moved,
            ),
            EagerCase(
                name=f"{row.face} eager",
                operator=row.kind,
                desc=desc,
                functional=function,
                jnp_fn=jnp_fn,
                make_args=tiny,
            ),
        ]

    return bench


def _structure_checked_on(row: ElementWise) -> str | None:
    """The first row of ``row``'s desc shape: every row of a shape has the same face,
    lowering and broadcasting, so the checks of structure run in full on that row."""
    first = next(r for r in ROWS if r.shape is row.shape)
    return None if first is row else first.operator_name


def _checks(row: ElementWise) -> OperatorChecks:
    return OperatorChecks(
        element_wise.FAMILY[ROWS.index(row)],
        structure_checked_on=_structure_checked_on(row),
        doc_example_face=None if row.served_by else _face_example_of(row),
        sweep=None if row.served_by else _sweep_of(row),
        bench=None if row.served_by else _bench_of(row),
        documented_support=DOCUMENTED_SUPPORT[row.kind],
        support_case=_support_case_of(row),
        computes=f"{row.page}, checked against its NumPy reference on NaN, infinities, "
        "-0.0, subnormals and integer extremes (tests/test_element_wise.py)",
        face_dtypes=element_wise.face_dtypes(row),
        not_smooth=row.not_smooth or None,
        smooth_on=_SMOOTH_ON.get(row.kind),
        ulps=row.ulps,
        examples=EXAMPLES[row.kind],
    )


CHECKS = tuple(_checks(row) for row in ROWS)
