"""The public names the API page documents for each operator, read from
:data:`dmljax.OPERATORS`: the docs' ``dml-operator-api`` directive renders them, and
the docs tests check the page against them.
"""

from __future__ import annotations

import enum
import typing

import dmljax as dml

__all__ = ["KINDS", "operator_api_names"]

KINDS = ("descs", "functions", "enums")


def operator_api_names(kind: str) -> list[str]:
    """The desc classes, face functions, or enums the descs' fields take, each once, in
    :data:`dmljax.OPERATORS`' order.

    >>> operator_api_names("enums")
    ['AxisDirection', 'ConvolutionMode', 'ConvolutionDirection', 'DepthSpaceOrder',
     'IsInfinityMode', 'RoundingMode', 'MatrixTransform', 'RecurrentNetworkDirection',
     'PaddingMode', 'ReduceFunction', 'InterpolationMode']
    """
    named = {
        "descs": [operator.desc_type for operator in dml.OPERATORS],
        "functions": [operator.function for operator in dml.OPERATORS if operator.function],
        "enums": [
            hint
            for operator in dml.OPERATORS
            for hint in typing.get_type_hints(operator.desc_type).values()
            if isinstance(hint, type)
            and issubclass(hint, enum.Enum)
            # DataType has its own entry; the enums of several families are in enums.py
            and hint.__module__.startswith(("dmljax._src.ops.", "dmljax._src.enums"))
        ],
    }[kind]
    return list(dict.fromkeys(value.__name__ for value in named))
