"""The element-wise family's public names: each row's desc class and functional face
(:mod:`dmljax._src.ops.element_wise`), bound to its name with its shape's type.

Written by ``python docs/generate.py`` from the rows (a test fails when it is stale):
edit the rows, not this file.
"""

from collections.abc import Callable

import jax
from jax.typing import ArrayLike

from dmljax._src.ops.element_wise import (
    DESCS,
    FUNCTIONS,
    Activation,
    ActivationAlpha,
    ElementWiseAdd1,
    ElementWiseBinary,
    ElementWiseClip,
    ElementWiseClip1,
    ElementWiseUnary,
    ElementWiseUnaryNoScaleBias,
)

__all__ = [
    "ActivationEluOperatorDesc",
    "ActivationLeakyReluOperatorDesc",
    "ActivationReluOperatorDesc",
    "ElementWiseAbsOperatorDesc",
    "ElementWiseAdd1OperatorDesc",
    "ElementWiseAddOperatorDesc",
    "ElementWiseCeilOperatorDesc",
    "ElementWiseClip1OperatorDesc",
    "ElementWiseClipOperatorDesc",
    "ElementWiseDifferenceSquareOperatorDesc",
    "ElementWiseDivideOperatorDesc",
    "ElementWiseFloorOperatorDesc",
    "ElementWiseIdentityOperatorDesc",
    "ElementWiseMaxOperatorDesc",
    "ElementWiseMeanOperatorDesc",
    "ElementWiseMinOperatorDesc",
    "ElementWiseMultiplyOperatorDesc",
    "ElementWiseNegateOperatorDesc",
    "ElementWiseRecipOperatorDesc",
    "ElementWiseSqrtOperatorDesc",
    "ElementWiseSubtractOperatorDesc",
    "abs",
    "add",
    "ceil",
    "clip",
    "difference_square",
    "divide",
    "elu",
    "floor",
    "identity",
    "leaky_relu",
    "maximum",
    "mean",
    "minimum",
    "multiply",
    "negative",
    "reciprocal",
    "relu",
    "sqrt",
    "subtract",
]

Unary = Callable[[ArrayLike], jax.Array]
Binary = Callable[[ArrayLike, ArrayLike], jax.Array]
Bounded = Callable[[ArrayLike, int | float, int | float], jax.Array]
Parameterized = Callable[..., jax.Array]  # an array, then attributes with defaults

ActivationEluOperatorDesc: type[ActivationAlpha] = DESCS["ELU"]
ActivationLeakyReluOperatorDesc: type[ActivationAlpha] = DESCS["LEAKY_RELU"]
ActivationReluOperatorDesc: type[Activation] = DESCS["RELU"]
ElementWiseAbsOperatorDesc: type[ElementWiseUnary] = DESCS["ABS"]
ElementWiseAdd1OperatorDesc: type[ElementWiseAdd1] = DESCS["ADD1"]
ElementWiseAddOperatorDesc: type[ElementWiseBinary] = DESCS["ADD"]
ElementWiseCeilOperatorDesc: type[ElementWiseUnary] = DESCS["CEIL"]
ElementWiseClip1OperatorDesc: type[ElementWiseClip1] = DESCS["CLIP1"]
ElementWiseClipOperatorDesc: type[ElementWiseClip] = DESCS["CLIP"]
ElementWiseDifferenceSquareOperatorDesc: type[ElementWiseBinary] = DESCS["DIFFERENCE_SQUARE"]
ElementWiseDivideOperatorDesc: type[ElementWiseBinary] = DESCS["DIVIDE"]
ElementWiseFloorOperatorDesc: type[ElementWiseUnary] = DESCS["FLOOR"]
ElementWiseIdentityOperatorDesc: type[ElementWiseUnary] = DESCS["IDENTITY"]
ElementWiseMaxOperatorDesc: type[ElementWiseBinary] = DESCS["MAX"]
ElementWiseMeanOperatorDesc: type[ElementWiseBinary] = DESCS["MEAN"]
ElementWiseMinOperatorDesc: type[ElementWiseBinary] = DESCS["MIN"]
ElementWiseMultiplyOperatorDesc: type[ElementWiseBinary] = DESCS["MULTIPLY"]
ElementWiseNegateOperatorDesc: type[ElementWiseUnaryNoScaleBias] = DESCS["NEGATE"]
ElementWiseRecipOperatorDesc: type[ElementWiseUnary] = DESCS["RECIP"]
ElementWiseSqrtOperatorDesc: type[ElementWiseUnary] = DESCS["SQRT"]
ElementWiseSubtractOperatorDesc: type[ElementWiseBinary] = DESCS["SUBTRACT"]

abs: Unary = FUNCTIONS["abs"]
add: Binary = FUNCTIONS["add"]
ceil: Unary = FUNCTIONS["ceil"]
clip: Bounded = FUNCTIONS["clip"]
difference_square: Binary = FUNCTIONS["difference_square"]
divide: Binary = FUNCTIONS["divide"]
elu: Parameterized = FUNCTIONS["elu"]
floor: Unary = FUNCTIONS["floor"]
identity: Unary = FUNCTIONS["identity"]
leaky_relu: Parameterized = FUNCTIONS["leaky_relu"]
maximum: Binary = FUNCTIONS["maximum"]
mean: Binary = FUNCTIONS["mean"]
minimum: Binary = FUNCTIONS["minimum"]
multiply: Binary = FUNCTIONS["multiply"]
negative: Unary = FUNCTIONS["negative"]
reciprocal: Unary = FUNCTIONS["reciprocal"]
relu: Unary = FUNCTIONS["relu"]
sqrt: Unary = FUNCTIONS["sqrt"]
subtract: Binary = FUNCTIONS["subtract"]
