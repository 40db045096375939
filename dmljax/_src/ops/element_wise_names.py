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
    ActivationAlphaBeta,
    ActivationAlphaGamma,
    ActivationParameterizedRelu,
    ActivationReluGrad,
    ActivationShrink,
    ActivationSoftplus,
    ActivationSwish,
    ElementWiseAdd1,
    ElementWiseBinary,
    ElementWiseClip,
    ElementWiseClip1,
    ElementWiseClipGrad,
    ElementWiseClipGrad1,
    ElementWiseConstantPow,
    ElementWiseIf,
    ElementWiseIsInfinity,
    ElementWisePow,
    ElementWiseRound,
    ElementWiseThreshold,
    ElementWiseUnary,
    ElementWiseUnaryNoScaleBias,
)

__all__ = [
    "ActivationCeluOperatorDesc",
    "ActivationEluOperatorDesc",
    "ActivationGeluOperatorDesc",
    "ActivationHardSigmoidOperatorDesc",
    "ActivationHardSwishOperatorDesc",
    "ActivationIdentityOperatorDesc",
    "ActivationLeakyReluOperatorDesc",
    "ActivationLinearOperatorDesc",
    "ActivationParameterizedReluOperatorDesc",
    "ActivationParametricSoftplusOperatorDesc",
    "ActivationReluGradOperatorDesc",
    "ActivationReluOperatorDesc",
    "ActivationScaledEluOperatorDesc",
    "ActivationScaledTanhOperatorDesc",
    "ActivationShrinkOperatorDesc",
    "ActivationSigmoidOperatorDesc",
    "ActivationSoftplusOperatorDesc",
    "ActivationSoftsignOperatorDesc",
    "ActivationSwishOperatorDesc",
    "ActivationTanhOperatorDesc",
    "ActivationThresholdedReluOperatorDesc",
    "ElementWiseAbsOperatorDesc",
    "ElementWiseAcosOperatorDesc",
    "ElementWiseAcoshOperatorDesc",
    "ElementWiseAdd1OperatorDesc",
    "ElementWiseAddOperatorDesc",
    "ElementWiseAsinOperatorDesc",
    "ElementWiseAsinhOperatorDesc",
    "ElementWiseAtanOperatorDesc",
    "ElementWiseAtanYxOperatorDesc",
    "ElementWiseAtanhOperatorDesc",
    "ElementWiseBitAndOperatorDesc",
    "ElementWiseBitCountOperatorDesc",
    "ElementWiseBitNotOperatorDesc",
    "ElementWiseBitOrOperatorDesc",
    "ElementWiseBitShiftLeftOperatorDesc",
    "ElementWiseBitShiftRightOperatorDesc",
    "ElementWiseBitXorOperatorDesc",
    "ElementWiseCeilOperatorDesc",
    "ElementWiseClip1OperatorDesc",
    "ElementWiseClipGrad1OperatorDesc",
    "ElementWiseClipGradOperatorDesc",
    "ElementWiseClipOperatorDesc",
    "ElementWiseConstantPowOperatorDesc",
    "ElementWiseCosOperatorDesc",
    "ElementWiseCoshOperatorDesc",
    "ElementWiseDifferenceSquareOperatorDesc",
    "ElementWiseDivideOperatorDesc",
    "ElementWiseErfOperatorDesc",
    "ElementWiseExpOperatorDesc",
    "ElementWiseFloorOperatorDesc",
    "ElementWiseIdentityOperatorDesc",
    "ElementWiseIfOperatorDesc",
    "ElementWiseIsInfinityOperatorDesc",
    "ElementWiseIsNanOperatorDesc",
    "ElementWiseLogOperatorDesc",
    "ElementWiseLogicalAndOperatorDesc",
    "ElementWiseLogicalEqualsOperatorDesc",
    "ElementWiseLogicalGreaterThanOperatorDesc",
    "ElementWiseLogicalGreaterThanOrEqualOperatorDesc",
    "ElementWiseLogicalLessThanOperatorDesc",
    "ElementWiseLogicalLessThanOrEqualOperatorDesc",
    "ElementWiseLogicalNotOperatorDesc",
    "ElementWiseLogicalOrOperatorDesc",
    "ElementWiseLogicalXorOperatorDesc",
    "ElementWiseMaxOperatorDesc",
    "ElementWiseMeanOperatorDesc",
    "ElementWiseMinOperatorDesc",
    "ElementWiseModulusFloorOperatorDesc",
    "ElementWiseModulusTruncateOperatorDesc",
    "ElementWiseMultiplyOperatorDesc",
    "ElementWiseNegateOperatorDesc",
    "ElementWisePowOperatorDesc",
    "ElementWiseRecipOperatorDesc",
    "ElementWiseRoundOperatorDesc",
    "ElementWiseSignOperatorDesc",
    "ElementWiseSinOperatorDesc",
    "ElementWiseSinhOperatorDesc",
    "ElementWiseSqrtOperatorDesc",
    "ElementWiseSubtractOperatorDesc",
    "ElementWiseTanOperatorDesc",
    "ElementWiseTanhOperatorDesc",
    "ElementWiseThresholdOperatorDesc",
    "abs",
    "acos",
    "acosh",
    "add",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bitwise_and",
    "bitwise_count",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "ceil",
    "celu",
    "clip",
    "clip_grad",
    "constant_pow",
    "cos",
    "cosh",
    "difference_square",
    "divide",
    "elu",
    "equal",
    "erf",
    "exp",
    "floor",
    "fmod",
    "gelu",
    "greater",
    "greater_equal",
    "hard_sigmoid",
    "hard_swish",
    "identity",
    "isinf",
    "isnan",
    "leaky_relu",
    "left_shift",
    "less",
    "less_equal",
    "linear",
    "log",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "mean",
    "minimum",
    "multiply",
    "negative",
    "parametric_softplus",
    "pow",
    "prelu",
    "reciprocal",
    "relu",
    "relu_grad",
    "remainder",
    "right_shift",
    "round",
    "scaled_tanh",
    "selu",
    "shrink",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "soft_sign",
    "softplus",
    "sqrt",
    "subtract",
    "swish",
    "tan",
    "tanh",
    "threshold",
    "thresholded_relu",
    "where",
]

Unary = Callable[[ArrayLike], jax.Array]
Binary = Callable[[ArrayLike, ArrayLike], jax.Array]
Ternary = Callable[[ArrayLike, ArrayLike, ArrayLike], jax.Array]
Bounded = Callable[[ArrayLike, int | float, int | float], jax.Array]
Parameterized = Callable[..., jax.Array]  # an array, then attributes with defaults

ActivationCeluOperatorDesc: type[ActivationAlpha] = DESCS["ACTIVATION_CELU"]
ActivationEluOperatorDesc: type[ActivationAlpha] = DESCS["ACTIVATION_ELU"]
ActivationGeluOperatorDesc: type[Activation] = DESCS["ACTIVATION_GELU"]
ActivationHardSigmoidOperatorDesc: type[ActivationAlphaBeta] = DESCS["ACTIVATION_HARD_SIGMOID"]
ActivationHardSwishOperatorDesc: type[ActivationAlphaBeta] = DESCS["ACTIVATION_HARD_SWISH"]
ActivationIdentityOperatorDesc: type[Activation] = DESCS["ACTIVATION_IDENTITY"]
ActivationLeakyReluOperatorDesc: type[ActivationAlpha] = DESCS["ACTIVATION_LEAKY_RELU"]
ActivationLinearOperatorDesc: type[ActivationAlphaBeta] = DESCS["ACTIVATION_LINEAR"]
ActivationParameterizedReluOperatorDesc: type[ActivationParameterizedRelu] = DESCS[
    "ACTIVATION_PARAMETERIZED_RELU"
]
ActivationParametricSoftplusOperatorDesc: type[ActivationAlphaBeta] = DESCS[
    "ACTIVATION_PARAMETRIC_SOFTPLUS"
]
ActivationReluGradOperatorDesc: type[ActivationReluGrad] = DESCS["ACTIVATION_RELU_GRAD"]
ActivationReluOperatorDesc: type[Activation] = DESCS["ACTIVATION_RELU"]
ActivationScaledEluOperatorDesc: type[ActivationAlphaGamma] = DESCS["ACTIVATION_SCALED_ELU"]
ActivationScaledTanhOperatorDesc: type[ActivationAlphaBeta] = DESCS["ACTIVATION_SCALED_TANH"]
ActivationShrinkOperatorDesc: type[ActivationShrink] = DESCS["ACTIVATION_SHRINK"]
ActivationSigmoidOperatorDesc: type[Activation] = DESCS["ACTIVATION_SIGMOID"]
ActivationSoftplusOperatorDesc: type[ActivationSoftplus] = DESCS["ACTIVATION_SOFTPLUS"]
ActivationSoftsignOperatorDesc: type[Activation] = DESCS["ACTIVATION_SOFTSIGN"]
ActivationSwishOperatorDesc: type[ActivationSwish] = DESCS["ACTIVATION_SWISH"]
ActivationTanhOperatorDesc: type[Activation] = DESCS["ACTIVATION_TANH"]
ActivationThresholdedReluOperatorDesc: type[ActivationAlpha] = DESCS["ACTIVATION_THRESHOLDED_RELU"]
ElementWiseAbsOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_ABS"]
ElementWiseAcosOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_ACOS"]
ElementWiseAcoshOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_ACOSH"]
ElementWiseAdd1OperatorDesc: type[ElementWiseAdd1] = DESCS["ELEMENT_WISE_ADD1"]
ElementWiseAddOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_ADD"]
ElementWiseAsinOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_ASIN"]
ElementWiseAsinhOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_ASINH"]
ElementWiseAtanOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_ATAN"]
ElementWiseAtanYxOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_ATAN_YX"]
ElementWiseAtanhOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_ATANH"]
ElementWiseBitAndOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_BIT_AND"]
ElementWiseBitCountOperatorDesc: type[ElementWiseUnaryNoScaleBias] = DESCS["ELEMENT_WISE_BIT_COUNT"]
ElementWiseBitNotOperatorDesc: type[ElementWiseUnaryNoScaleBias] = DESCS["ELEMENT_WISE_BIT_NOT"]
ElementWiseBitOrOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_BIT_OR"]
ElementWiseBitShiftLeftOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_BIT_SHIFT_LEFT"]
ElementWiseBitShiftRightOperatorDesc: type[ElementWiseBinary] = DESCS[
    "ELEMENT_WISE_BIT_SHIFT_RIGHT"
]
ElementWiseBitXorOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_BIT_XOR"]
ElementWiseCeilOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_CEIL"]
ElementWiseClip1OperatorDesc: type[ElementWiseClip1] = DESCS["ELEMENT_WISE_CLIP1"]
ElementWiseClipGrad1OperatorDesc: type[ElementWiseClipGrad1] = DESCS["ELEMENT_WISE_CLIP_GRAD1"]
ElementWiseClipGradOperatorDesc: type[ElementWiseClipGrad] = DESCS["ELEMENT_WISE_CLIP_GRAD"]
ElementWiseClipOperatorDesc: type[ElementWiseClip] = DESCS["ELEMENT_WISE_CLIP"]
ElementWiseConstantPowOperatorDesc: type[ElementWiseConstantPow] = DESCS[
    "ELEMENT_WISE_CONSTANT_POW"
]
ElementWiseCosOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_COS"]
ElementWiseCoshOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_COSH"]
ElementWiseDifferenceSquareOperatorDesc: type[ElementWiseBinary] = DESCS[
    "ELEMENT_WISE_DIFFERENCE_SQUARE"
]
ElementWiseDivideOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_DIVIDE"]
ElementWiseErfOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_ERF"]
ElementWiseExpOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_EXP"]
ElementWiseFloorOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_FLOOR"]
ElementWiseIdentityOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_IDENTITY"]
ElementWiseIfOperatorDesc: type[ElementWiseIf] = DESCS["ELEMENT_WISE_IF"]
ElementWiseIsInfinityOperatorDesc: type[ElementWiseIsInfinity] = DESCS["ELEMENT_WISE_IS_INFINITY"]
ElementWiseIsNanOperatorDesc: type[ElementWiseUnaryNoScaleBias] = DESCS["ELEMENT_WISE_IS_NAN"]
ElementWiseLogOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_LOG"]
ElementWiseLogicalAndOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_LOGICAL_AND"]
ElementWiseLogicalEqualsOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_LOGICAL_EQUALS"]
ElementWiseLogicalGreaterThanOperatorDesc: type[ElementWiseBinary] = DESCS[
    "ELEMENT_WISE_LOGICAL_GREATER_THAN"
]
ElementWiseLogicalGreaterThanOrEqualOperatorDesc: type[ElementWiseBinary] = DESCS[
    "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL"
]
ElementWiseLogicalLessThanOperatorDesc: type[ElementWiseBinary] = DESCS[
    "ELEMENT_WISE_LOGICAL_LESS_THAN"
]
ElementWiseLogicalLessThanOrEqualOperatorDesc: type[ElementWiseBinary] = DESCS[
    "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL"
]
ElementWiseLogicalNotOperatorDesc: type[ElementWiseUnaryNoScaleBias] = DESCS[
    "ELEMENT_WISE_LOGICAL_NOT"
]
ElementWiseLogicalOrOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_LOGICAL_OR"]
ElementWiseLogicalXorOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_LOGICAL_XOR"]
ElementWiseMaxOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_MAX"]
ElementWiseMeanOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_MEAN"]
ElementWiseMinOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_MIN"]
ElementWiseModulusFloorOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_MODULUS_FLOOR"]
ElementWiseModulusTruncateOperatorDesc: type[ElementWiseBinary] = DESCS[
    "ELEMENT_WISE_MODULUS_TRUNCATE"
]
ElementWiseMultiplyOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_MULTIPLY"]
ElementWiseNegateOperatorDesc: type[ElementWiseUnaryNoScaleBias] = DESCS["ELEMENT_WISE_NEGATE"]
ElementWisePowOperatorDesc: type[ElementWisePow] = DESCS["ELEMENT_WISE_POW"]
ElementWiseRecipOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_RECIP"]
ElementWiseRoundOperatorDesc: type[ElementWiseRound] = DESCS["ELEMENT_WISE_ROUND"]
ElementWiseSignOperatorDesc: type[ElementWiseUnaryNoScaleBias] = DESCS["ELEMENT_WISE_SIGN"]
ElementWiseSinOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_SIN"]
ElementWiseSinhOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_SINH"]
ElementWiseSqrtOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_SQRT"]
ElementWiseSubtractOperatorDesc: type[ElementWiseBinary] = DESCS["ELEMENT_WISE_SUBTRACT"]
ElementWiseTanOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_TAN"]
ElementWiseTanhOperatorDesc: type[ElementWiseUnary] = DESCS["ELEMENT_WISE_TANH"]
ElementWiseThresholdOperatorDesc: type[ElementWiseThreshold] = DESCS["ELEMENT_WISE_THRESHOLD"]

abs: Unary = FUNCTIONS["abs"]
acos: Unary = FUNCTIONS["acos"]
acosh: Unary = FUNCTIONS["acosh"]
add: Binary = FUNCTIONS["add"]
asin: Unary = FUNCTIONS["asin"]
asinh: Unary = FUNCTIONS["asinh"]
atan: Unary = FUNCTIONS["atan"]
atan2: Binary = FUNCTIONS["atan2"]
atanh: Unary = FUNCTIONS["atanh"]
bitwise_and: Binary = FUNCTIONS["bitwise_and"]
bitwise_count: Unary = FUNCTIONS["bitwise_count"]
bitwise_not: Unary = FUNCTIONS["bitwise_not"]
bitwise_or: Binary = FUNCTIONS["bitwise_or"]
bitwise_xor: Binary = FUNCTIONS["bitwise_xor"]
ceil: Unary = FUNCTIONS["ceil"]
celu: Parameterized = FUNCTIONS["celu"]
clip: Bounded = FUNCTIONS["clip"]
clip_grad: Parameterized = FUNCTIONS["clip_grad"]
constant_pow: Parameterized = FUNCTIONS["constant_pow"]
cos: Unary = FUNCTIONS["cos"]
cosh: Unary = FUNCTIONS["cosh"]
difference_square: Binary = FUNCTIONS["difference_square"]
divide: Binary = FUNCTIONS["divide"]
elu: Parameterized = FUNCTIONS["elu"]
equal: Binary = FUNCTIONS["equal"]
erf: Unary = FUNCTIONS["erf"]
exp: Unary = FUNCTIONS["exp"]
floor: Unary = FUNCTIONS["floor"]
fmod: Binary = FUNCTIONS["fmod"]
gelu: Unary = FUNCTIONS["gelu"]
greater: Binary = FUNCTIONS["greater"]
greater_equal: Binary = FUNCTIONS["greater_equal"]
hard_sigmoid: Parameterized = FUNCTIONS["hard_sigmoid"]
hard_swish: Parameterized = FUNCTIONS["hard_swish"]
identity: Unary = FUNCTIONS["identity"]
isinf: Parameterized = FUNCTIONS["isinf"]
isnan: Unary = FUNCTIONS["isnan"]
leaky_relu: Parameterized = FUNCTIONS["leaky_relu"]
left_shift: Binary = FUNCTIONS["left_shift"]
less: Binary = FUNCTIONS["less"]
less_equal: Binary = FUNCTIONS["less_equal"]
linear: Parameterized = FUNCTIONS["linear"]
log: Unary = FUNCTIONS["log"]
logical_and: Binary = FUNCTIONS["logical_and"]
logical_not: Unary = FUNCTIONS["logical_not"]
logical_or: Binary = FUNCTIONS["logical_or"]
logical_xor: Binary = FUNCTIONS["logical_xor"]
maximum: Binary = FUNCTIONS["maximum"]
mean: Binary = FUNCTIONS["mean"]
minimum: Binary = FUNCTIONS["minimum"]
multiply: Binary = FUNCTIONS["multiply"]
negative: Unary = FUNCTIONS["negative"]
parametric_softplus: Parameterized = FUNCTIONS["parametric_softplus"]
pow: Binary = FUNCTIONS["pow"]
prelu: Binary = FUNCTIONS["prelu"]
reciprocal: Unary = FUNCTIONS["reciprocal"]
relu: Unary = FUNCTIONS["relu"]
relu_grad: Binary = FUNCTIONS["relu_grad"]
remainder: Binary = FUNCTIONS["remainder"]
right_shift: Binary = FUNCTIONS["right_shift"]
round: Parameterized = FUNCTIONS["round"]
scaled_tanh: Parameterized = FUNCTIONS["scaled_tanh"]
selu: Parameterized = FUNCTIONS["selu"]
shrink: Parameterized = FUNCTIONS["shrink"]
sigmoid: Unary = FUNCTIONS["sigmoid"]
sign: Unary = FUNCTIONS["sign"]
sin: Unary = FUNCTIONS["sin"]
sinh: Unary = FUNCTIONS["sinh"]
soft_sign: Unary = FUNCTIONS["soft_sign"]
softplus: Parameterized = FUNCTIONS["softplus"]
sqrt: Unary = FUNCTIONS["sqrt"]
subtract: Binary = FUNCTIONS["subtract"]
swish: Parameterized = FUNCTIONS["swish"]
tan: Unary = FUNCTIONS["tan"]
tanh: Unary = FUNCTIONS["tanh"]
threshold: Parameterized = FUNCTIONS["threshold"]
thresholded_relu: Parameterized = FUNCTIONS["thresholded_relu"]
where: Ternary = FUNCTIONS["where"]
