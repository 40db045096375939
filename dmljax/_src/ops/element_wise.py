"""The element-wise family: every ``DML_ELEMENT_WISE_*`` operator as one row of a table.

An element-wise operator computes ``out[c] = f(in[c], ...)`` for every coordinate
``c``: its inputs and its output have the same sizes, DimensionCount and DataType
(a broadcast input is one with zero strides), and where the desc has a
``ScaleBias`` (:class:`ScaleBias`), ``g(x) = x * scale + bias`` is applied to each
input element first. What differs from one operator to the next is a row of
:data:`ROWS`: DirectML's name, the shape of its desc (:class:`ElementWiseUnary`,
:class:`ElementWiseUnaryNoScaleBias`, :class:`ElementWiseBinary`), the formula in
``lax``, the support table of its page, the functional face's name and the
reference in NumPy that the checking code compares against. Everything else (the
desc class, its :class:`~dmljax.Operator`, the lowering, the functional face, the
docs rows and the conformance cases) is made from the row: adding the next
element-wise type is one row.

>>> import jax.numpy as jnp, dmljax as dml
>>> dml.add(jnp.array([1, 2]), jnp.array([10, 20]))
Array([11, 22], dtype=int32)
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import typing
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules, scalars
from dmljax._src.arguments import static_number
from dmljax._src.dtypes import DataType
from dmljax._src.enums import DmlEnum
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.ops import cast
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "DESCS",
    "ENUM_ATTRIBUTES",
    "FAMILY",
    "FUNCTIONS",
    "ROWS",
    "Activation",
    "ElementWise",
    "ElementWiseBinary",
    "ElementWiseUnary",
    "ElementWiseUnaryNoScaleBias",
    "IsInfinityMode",
    "RoundingMode",
    "ScaleBias",
    "apply_fused_activation",
    "apply_scale_bias",
    "check_activation",
    "check_fused_activation",
    "face_dtypes",
    "fused_activation_attribute",
]


# --- DML_SCALE_BIAS -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ScaleBias:
    """``DML_SCALE_BIAS``: ``g(x) = x * scale + bias``, applied to an operator's input first.

    Both terms are C ``FLOAT`` values: each is rounded to float32 when the ScaleBias is
    made.

    >>> import dmljax as dml
    >>> dml.ScaleBias(scale=2, bias=0.1)
    ScaleBias(scale=2.0, bias=0.10000000149011612)
    """

    scale: float = 1.0
    bias: float = 0.0

    def __post_init__(self) -> None:
        # As exact_float holds them: compile_operator's cache tells a bias of -0.0 from 0.0.
        for name in ("scale", "bias"):
            value = scalars.float32_attribute(getattr(self, name), op="ScaleBias", field=name)
            object.__setattr__(self, name, value)

    @property
    def is_identity(self) -> bool:
        """Whether ``g`` leaves every value as it is (scale 1, bias 0)."""
        return self.scale == 1.0 and self.bias == 0.0


def scale_bias_attribute(value: Any, *, op: str, field: str) -> ScaleBias | None:
    """A desc's optional ``ScaleBias``: None, a :class:`ScaleBias`, a ``(scale, bias)`` pair,
    or a mapping with ``scale`` and ``bias`` (DxDispatch's ``{"Scale": 2, "Bias": 1}``)."""
    if value is None or isinstance(value, ScaleBias):
        return value
    try:
        if isinstance(value, Mapping):
            terms = {str(key).lower(): term for key, term in value.items()}
            if set(terms) - {"scale", "bias"}:
                raise TypeError
            return ScaleBias(**terms)
        if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2:
            return ScaleBias(*value)
    except InvalidArgumentError as error:
        raise InvalidArgumentError(
            op, f"{field}.{error.field}", error.expected, error.given
        ) from None
    except TypeError:
        pass
    raise ArgumentTypeError(
        op,
        field,
        "None, a dmljax.ScaleBias, a (scale, bias) pair or {'scale': ..., 'bias': ...}",
        repr(value)[:80],
    )


def apply_scale_bias(x: jax.Array, scale_bias: ScaleBias | None) -> jax.Array:
    """``x * scale + bias``: in float32 for 16-bit floats (one rounding to ``x``'s type at
    the end), in ``x``'s type otherwise; ``x`` itself where there is none or it is the
    identity (so integer tensors keep their values)."""
    if scale_bias is None or scale_bias.is_identity:
        return x
    wide = jnp.promote_types(x.dtype, jnp.float32)
    scale, bias = np.asarray(scale_bias.scale, wide), np.asarray(scale_bias.bias, wide)
    y = x.astype(wide) * scale
    if bias == 0 and not np.signbit(bias):
        # IEEE: -0.0 + 0.0 is 0.0. XLA's simplifier deletes an added 0.0 as if it left
        # every value as it is, so the zero's sign is set here instead.
        return jnp.where(y == 0, np.zeros((), wide), y).astype(x.dtype)
    return (y + bias).astype(x.dtype)


def _check_scale_bias(desc: Any, *, op: str) -> None:
    """A ScaleBias other than the identity on an integer tensor is refused: DirectML's
    pages do not say how a float scale applies to integers."""
    scale_bias = getattr(desc, "scale_bias", None)
    if scale_bias is None or scale_bias.is_identity:
        return
    data_type = desc.output_tensor.data_type
    if not jnp.issubdtype(data_type.dtype, jnp.floating):
        raise InvalidArgumentError(
            op,
            "scale_bias",
            f"None or ScaleBias(1, 0) for {data_type.name} tensors (DirectML's pages do not "
            "say how a float scale and bias apply to integers)",
            repr(scale_bias),
        )


def check_fused_activation(desc: Any, *, op: str, level: FL) -> None:
    activation = getattr(desc, "fused_activation", None)
    if activation is None:
        return
    data_type = desc.output_tensor.data_type
    if not data_type.is_floating or data_type.dtype.itemsize > 4:
        raise InvalidArgumentError(
            op,
            "fused_activation",
            f"None for {data_type} outputs (a fused activation needs FLOAT16 or FLOAT32)",
            type(activation).__name__,
        )
    check_activation(activation, "fused_activation", op=op, level=level)


def check_activation(activation: Any, field: str, *, op: str, level: FL) -> None:
    """The rules of an activation desc another operator holds (ADD1's fused activation,
    RNN's activation descs) at ``level``: its row's own checks, if it has any."""
    row = _ROW_OF_DESC[type(activation)]
    if row.check is not None:
        row.check(activation, f"{op}.{field}", level)


def apply_fused_activation(y: jax.Array, activation: Any) -> jax.Array:
    """``y`` through ``activation`` (an activation desc without tensors), or ``y`` as it is
    for None: the one helper every operator with a ``FusedActivation`` field calls.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> apply_fused_activation(jnp.array([-2.0, 3.0]), dml.ActivationReluOperatorDesc())
    Array([0., 3.], dtype=float32)
    """
    if activation is None:
        return y
    row = _ROW_OF_DESC[type(activation)]
    values = [getattr(activation, name) for name in row.attributes]
    return row.formula(y, *row.constants(values, y.dtype, op=type(activation).__name__))


# --- The shapes of the descs ---------------------------------------------------------------------


class ElementWiseUnary(contract.OperatorDesc[jax.Array, ArrayLike]):
    """The desc of a function of one tensor with an optional :class:`ScaleBias`
    (``DML_ELEMENT_WISE_ABS_OPERATOR_DESC`` and its kin)."""

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    scale_bias: ScaleBias | None = contract.attribute(scale_bias_attribute, default=None)


class ElementWiseUnaryNoScaleBias(contract.OperatorDesc[jax.Array, ArrayLike]):
    """The desc of a function of one tensor without a ScaleBias
    (``DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC`` and its kin)."""

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")


class ElementWiseBinary(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike]):
    """The desc of a function of two tensors (``DML_ELEMENT_WISE_ADD_OPERATOR_DESC`` and
    its kin): ``a_tensor``, ``b_tensor`` and ``output_tensor`` of the same sizes."""

    a_tensor: TensorDesc = contract.tensor_field("input")
    b_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")


class ElementWisePow(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike]):
    """The desc of POW: ``input_tensor``, an ``exponent_tensor`` of the same sizes (of a
    type of its own from FL 3_0), ``output_tensor`` of the input's type, and an optional
    :class:`ScaleBias`, applied to the input (``DML_ELEMENT_WISE_POW_OPERATOR_DESC``)."""

    input_tensor: TensorDesc = contract.tensor_field("input")
    exponent_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    scale_bias: ScaleBias | None = contract.attribute(scale_bias_attribute, default=None)


class ElementWiseIf(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike, ArrayLike]):
    """The desc of IF: a UINT8 ``condition_tensor`` that selects ``a_tensor`` where it is
    nonzero and ``b_tensor`` elsewhere, into ``output_tensor`` of a's and b's type
    (``DML_ELEMENT_WISE_IF_OPERATOR_DESC``)."""

    condition_tensor: TensorDesc = contract.tensor_field("input")
    a_tensor: TensorDesc = contract.tensor_field("input")
    b_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")


class ElementWiseClip(ElementWiseUnary):
    """:class:`ElementWiseUnary` with two C ``FLOAT`` bounds, ``min`` and ``max``
    (``DML_ELEMENT_WISE_CLIP_OPERATOR_DESC``): each rounded to float32 when the desc is
    made, and read in the tensor's type as :func:`clip_bound` says."""

    min: float = contract.attribute(scalars.float32_attribute)
    max: float = contract.attribute(scalars.float32_attribute)


class ElementWiseThreshold(ElementWiseUnary):
    """:class:`ElementWiseUnary` with a C ``FLOAT`` ``min``
    (``DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC``), read as CLIP's bounds are."""

    min: float = contract.attribute(scalars.float32_attribute)


class ElementWiseClip1(ElementWiseUnary):
    """:class:`ElementWiseUnary` with two ``DML_SCALAR_UNION`` bounds read as
    ``min_max_data_type``, which must be the output's data type
    (``DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC``): each held exactly, and refused where that
    type cannot hold it."""

    min_max_data_type: DataType = contract.attribute(scalars.data_type_attribute)
    min: int | float = contract.attribute(static_number)
    max: int | float = contract.attribute(static_number)

    def __post_init__(self) -> None:
        super().__post_init__()
        _hold_exact_bounds(self)


def _hold_exact_bounds(desc: Any) -> None:
    """CLIP1's and CLIP_GRAD1's ``min`` and ``max``, held exactly as ``min_max_data_type``
    (refused where that type cannot hold them)."""
    for name in ("min", "max"):
        held = scalars.exact_value(
            getattr(desc, name), desc.min_max_data_type, op=type(desc).__name__, field=name
        )
        object.__setattr__(desc, name, held)


class ElementWiseClipGrad(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike]):
    """The desc of CLIP_GRAD: the forward pass's ``input_tensor``, the incoming
    ``input_gradient_tensor``, ``output_gradient_tensor``, and CLIP's two C ``FLOAT``
    bounds, read as CLIP reads them (``DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC``)."""

    input_tensor: TensorDesc = contract.tensor_field("input")
    input_gradient_tensor: TensorDesc = contract.tensor_field("input")
    output_gradient_tensor: TensorDesc = contract.tensor_field("output")
    min: float = contract.attribute(scalars.float32_attribute)
    max: float = contract.attribute(scalars.float32_attribute)


class ElementWiseClipGrad1(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike]):
    """:class:`ElementWiseClipGrad` with CLIP1's ``DML_SCALAR_UNION`` bounds, held exactly
    as ``min_max_data_type`` (``DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC``)."""

    input_tensor: TensorDesc = contract.tensor_field("input")
    input_gradient_tensor: TensorDesc = contract.tensor_field("input")
    output_gradient_tensor: TensorDesc = contract.tensor_field("output")
    min_max_data_type: DataType = contract.attribute(scalars.data_type_attribute)
    min: int | float = contract.attribute(static_number)
    max: int | float = contract.attribute(static_number)

    def __post_init__(self) -> None:
        super().__post_init__()
        _hold_exact_bounds(self)


class ElementWiseConstantPow(ElementWiseUnary):
    """:class:`ElementWiseUnary` with a C ``FLOAT`` ``exponent``
    (``DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC``), rounded to float32 when the desc is
    made."""

    exponent: float = contract.attribute(scalars.float32_attribute)


class RoundingMode(DmlEnum):
    """A ``DML_ROUNDING_MODE``: how ROUND rounds a value to a whole number.

    ``HALVES_TO_NEAREST_EVEN`` rounds to the nearest, a half to the even neighbour
    (jnp.round's); ``TOWARD_ZERO`` truncates (jnp.trunc's); ``TOWARD_INFINITY`` rounds to
    the nearest, a half away from zero (C's ``round``).

    >>> import dmljax as dml
    >>> dml.RoundingMode.coerce("TOWARD_INFINITY", op="op", field="f").function_name
    'toward_infinity'
    """

    HALVES_TO_NEAREST_EVEN = 0
    TOWARD_ZERO = 1
    TOWARD_INFINITY = 2


class IsInfinityMode(DmlEnum):
    """A ``DML_IS_INFINITY_MODE``: which infinities IS_INFINITY finds (``EITHER``,
    ``POSITIVE`` or ``NEGATIVE``).

    >>> import dmljax as dml
    >>> dml.IsInfinityMode(2)
    <IsInfinityMode.NEGATIVE: 2>
    """

    EITHER = 0
    POSITIVE = 1
    NEGATIVE = 2


class ElementWiseRound(ElementWiseUnaryNoScaleBias):
    """:class:`ElementWiseUnaryNoScaleBias` with a :class:`RoundingMode`
    (``DML_ELEMENT_WISE_ROUND_OPERATOR_DESC``)."""

    rounding_mode: RoundingMode = contract.attribute(RoundingMode.coerce)


class ElementWiseIsInfinity(ElementWiseUnaryNoScaleBias):
    """:class:`ElementWiseUnaryNoScaleBias` with an :class:`IsInfinityMode`
    (``DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC``)."""

    infinity_mode: IsInfinityMode = contract.attribute(IsInfinityMode.coerce)


# The enum attributes, by field: a face takes a member or its lower-case name.
ENUM_ATTRIBUTES: dict[str, type[DmlEnum]] = {
    "rounding_mode": RoundingMode,
    "infinity_mode": IsInfinityMode,
}


# Variadic: the tensors may be left out (a fused activation), though compiled on its own
# an activation takes exactly one array (its rules refuse a missing tensor).
class Activation(contract.OperatorDesc[jax.Array, *tuple[ArrayLike, ...]]):
    """The desc of an activation of one tensor without attributes
    (``DML_ACTIVATION_RELU_OPERATOR_DESC`` and its kin).

    Compiled on its own it needs both tensors; as another operator's fused activation
    (ADD1's ``fused_activation``) it has neither, as DirectML's pages require.
    """

    input_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    output_tensor: TensorDesc | None = contract.tensor_field("output", default=None)


class ActivationAlpha(Activation):
    """:class:`Activation` with a C ``FLOAT`` ``alpha`` (``DML_ACTIVATION_ELU_OPERATOR_DESC``
    and its kin), rounded to float32 when the desc is made."""

    alpha: float = contract.attribute(scalars.float32_attribute)


class ActivationAlphaBeta(ActivationAlpha):
    """:class:`ActivationAlpha` with a C ``FLOAT`` ``beta`` too
    (``DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC`` and its kin)."""

    beta: float = contract.attribute(scalars.float32_attribute)


def _flush_scaled_by(position: int) -> Callable[..., float]:
    """A row's flush_bound where its attribute at ``position`` scales an intermediate that
    a backend may flush: twice ``max(1, |value|)`` smallest normals (twice: a product just
    below the smallest normal, which the type rounds up to it)."""

    def bound(*values: Any) -> float:
        return 2 * max(1.0, abs(float(np.float32(values[position]))))

    return bound


def _linear_magnitude(x: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """``|alpha * x| + |beta|`` in float64, the attributes as the desc holds them."""
    alpha64, beta64 = np.float64(np.float32(alpha)), np.float64(np.float32(beta))
    with np.errstate(all="ignore"):
        return np.abs(alpha64 * np.asarray(x, np.float64)) + np.abs(beta64)


def _hard_swish_magnitude(x: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """``|x| * max(1, |alpha * x| + |beta|)``: x times the clamp's terms where they may
    cancel, x itself where the clamp is 1."""
    wide = np.abs(np.asarray(x, np.float64))
    with np.errstate(all="ignore"):
        return wide * np.maximum(1.0, _linear_magnitude(x, alpha, beta))


class ActivationSwish(Activation):
    """:class:`Activation` with a C ``FLOAT`` ``sigmoid_input_scale``
    (``DML_ACTIVATION_SWISH_OPERATOR_DESC``)."""

    sigmoid_input_scale: float = contract.attribute(scalars.float32_attribute)


def _swish_flush_bound(scale: float) -> float:
    """Where sigmoid(scale * x) is subnormal (scale * x below -87.3) a backend may flush
    it, and x times it is then 0: up to ``|x| < 104 / |scale|`` smallest normals."""
    magnitude = abs(float(np.float32(scale)))
    return 2 * max(1.0, 128 / magnitude) if magnitude else 2.0


class ActivationSoftplus(Activation):
    """:class:`Activation` with a C ``FLOAT`` ``steepness``
    (``DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC``)."""

    steepness: float = contract.attribute(scalars.float32_attribute)


class ActivationShrink(Activation):
    """:class:`Activation` with C ``FLOAT`` ``bias`` and ``threshold``
    (``DML_ACTIVATION_SHRINK_OPERATOR_DESC``)."""

    bias: float = contract.attribute(scalars.float32_attribute)
    threshold: float = contract.attribute(scalars.float32_attribute)


class ActivationAlphaGamma(ActivationAlpha):
    """:class:`ActivationAlpha` with a C ``FLOAT`` ``gamma`` too
    (``DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC``)."""

    gamma: float = contract.attribute(scalars.float32_attribute)


def fused_activation_attribute(value: Any, *, op: str, field: str) -> Activation | None:
    """A ``FusedActivation`` field: None, or an activation desc without tensors."""
    if value is None:
        return None
    if not isinstance(value, Activation):
        raise ArgumentTypeError(
            op, field, "None or an activation desc (dml.ActivationReluOperatorDesc(), ...)",
            repr(value)[:80],
        )  # fmt: skip
    if value.input_tensor is not None or value.output_tensor is not None:
        raise InvalidArgumentError(
            op,
            f"{field}.input_tensor",
            "None: a fused activation reads and writes the operator's own output",
            "a TensorDesc",
        )
    return value


class ActivationParameterizedRelu(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike]):
    """The desc of PARAMETERIZED_RELU: ``input_tensor``, a ``slope_tensor`` of the same
    sizes, and ``output_tensor`` (an activation with a tensor of its own, which no
    operator can take as its fused activation)."""

    input_tensor: TensorDesc = contract.tensor_field("input")
    slope_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")


class ActivationReluGrad(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike]):
    """The desc of RELU_GRAD: the forward pass's ``input_tensor``, the incoming
    ``input_gradient_tensor``, and ``output_gradient_tensor``, all of one size and type."""

    input_tensor: TensorDesc = contract.tensor_field("input")
    input_gradient_tensor: TensorDesc = contract.tensor_field("input")
    output_gradient_tensor: TensorDesc = contract.tensor_field("output")


class ElementWiseAdd1(ElementWiseBinary):
    """:class:`ElementWiseBinary` with an optional fused activation applied to the sum
    (``DML_ELEMENT_WISE_ADD1_OPERATOR_DESC``)."""

    fused_activation: Activation | None = contract.attribute(
        fused_activation_attribute, default=None
    )


# Attribute fields the family applies itself (to the inputs, to the result) or that type
# another field: the formula's own attributes are the shape's others, in declaration order.
_NOT_FORMULA_ATTRIBUTES = frozenset({"scale_bias", "fused_activation", "min_max_data_type"})


def _arity(shape: type) -> int:
    return len(contract.tensor_fields(shape, contract.Role.INPUT))


def _face_names(shape: type) -> tuple[str, ...]:
    """The face's array parameters: ``x``, or ``a`` and ``b`` (jax.numpy's names), or the
    tensors' own (PARAMETERIZED_RELU's ``x`` and ``slope``)."""
    fields = [f.name for f in contract.tensor_fields(shape, contract.Role.INPUT)]
    return tuple("x" if f == "input_tensor" else f.removesuffix("_tensor") for f in fields)


def _formula_attributes(shape: type) -> tuple[str, ...]:
    """The attributes the shape's formula takes after the arrays (the face's statics)."""
    tensors = {f.name for f in contract.tensor_fields(shape)}
    return tuple(
        f.name
        for f in dataclasses.fields(shape)
        if f.name not in tensors and f.name not in _NOT_FORMULA_ATTRIBUTES
    )


def clip_bound(value: float, dtype: Any) -> np.ndarray:
    """CLIP's ``FLOAT`` bound in ``dtype``: rounded to nearest for floats (beyond float16's
    range an infinity); for integers truncated toward zero and held to the type's range,
    which clips every integer as comparing it with the float would.

    >>> clip_bound(-2.5, np.int8), clip_bound(3e38, np.uint8)
    (array(-2, dtype=int8), array(255, dtype=uint8))
    """
    dtype = np.dtype(dtype)
    if jnp.issubdtype(dtype, jnp.floating):
        with np.errstate(over="ignore"):
            return np.asarray(value, dtype)
    info = jnp.iinfo(dtype)
    low, high = int(info.min), int(info.max)
    if math.isnan(value):
        raise ValueError("a NaN bound clips no integer")  # the rules refuse it first
    whole = math.trunc(value) if math.isfinite(value) else (high if value > 0 else low)
    return np.asarray(min(max(whole, low), high), dtype)


# --- The rows -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, repr=False)
class ElementWise:
    """One element-wise operator: everything that is not common to the family.

    Attributes:
        name: DirectML's name without ``DML_OPERATOR_ELEMENT_WISE_`` (``"ADD"``).
        shape: the desc's fields, one of the shape classes above.
        formula: ``f`` in ``lax``/``jnp``, a function of the input arrays (already
            scaled and biased), each of the output's shape and type.
        support: the page's support table, one ``fl.band`` per feature level.
        face: the functional face's name, as jax.numpy names the function (``"add"``).
        page: the page's formula, as its description writes it (``"f(a, b) = a + b"``).
        reference: ``f`` in NumPy, for the checking code: a function of NumPy arrays of
            the input's type giving the exact result (or a float64 one for a function
            that rounds, with ``exact=False``).
        exact: whether every result is exact in the tensor's type (the reference gives
            the same bits): integer arithmetic, comparisons, moves and a single IEEE
            operation are; transcendental functions are not.
        linear: whether ``f`` is jointly linear in its inputs (their derivatives are
            then checked exactly).
        ulps: how far a float result may be from the reference, in units in the last
            place (0: the same bits).
        notes: what dmljax defines where the page is silent (division by zero, ...).
        differs: how the face differs from its jax.numpy namesake beyond what every
            face of the family does (one dtype, DirectML's types), or "".
        namesake: whether ``jnp.<face>`` is the same function (``jnp.identity`` is not).
        example: the docstrings' example: a dtype, each input's values and the result
            as JAX prints it (the doctests check it).
        not_smooth: why finite differences cannot check ``f``'s derivative (a
            staircase), or "".
        read: for a shape with attributes (CLIP's ``min`` and ``max``), each value
            read as the formula's constant: ``read(value, dtype, op=, field=)``, a 0-d
            array of the tensor's dtype (the formula then takes the arrays, then one
            constant per attribute, and the reference the arrays and the values).
        check: a rule of the row's beyond the shape's and its table's,
            ``check(desc, op, level)``; raises InvalidArgumentError.
        served_by: the kind of the row whose functional face serves this one (CLIP is
            served by ``"ELEMENT_WISE_CLIP1"``'s :func:`dmljax.clip`), or "": then
            ``face`` names that face.
        example_statics: the attributes' values in the docstrings' example.
        example_attributes: the desc's attribute fields in that example, as Python
            keyword arguments (``"min=0.0, max=2.0"``).
        family: DirectML's name's family, ``"ELEMENT_WISE"`` or ``"ACTIVATION"``.
        defaults: the face's defaults for its last attributes (ELU's ``alpha=1.0``, the
            value the page calls typical).
        namesake_module: where the namesake lives, ``"jnp"`` or ``"jax.nn"``.
        flush_bound: where float32 and bfloat16 results may be flushed to zero, in units
            of the type's smallest normal: 1 (subnormal results, the family's rule), 2
            where a subnormal intermediate flushes (XLA's ASIN of ``x`` near 2**-125), or
            a function of the attribute values where an attribute scales a flushed
            intermediate (SCALED_ELU's ``gamma * (alpha * expm1(x))``: twice
            ``max(1, |gamma|)``).
        bitwise: whether ``f`` acts on the encoding (BIT_AND ...): a value is its bits,
            a float's read as an unsigned integer of its width; ``f`` has no derivative.
        magnitude: for a result that may cancel, the float64 size of its terms,
            ``magnitude(x, *values)``, whose ulps measure its error (LINEAR's
            ``|alpha * x| + |beta|``: one fused multiply-add or two roundings, as the
            backend chooses); None: the result's own.
    """

    name: str
    shape: type
    formula: Callable[..., jax.Array]
    support: tuple[fl.Band, ...]
    face: str
    page: str
    reference: Callable[..., np.ndarray]
    exact: bool = True
    linear: bool = False
    ulps: int = 0
    notes: str = ""
    differs: str = ""
    namesake: bool = True
    example: tuple[str, tuple[list[Any], ...], str] = ("float32", ([1.0],), "")
    not_smooth: str = ""
    read: Callable[..., np.ndarray] | None = None
    check: Callable[[Any, str, FL], None] | None = None
    served_by: str = ""
    example_statics: tuple[Any, ...] = ()
    example_attributes: str = ""
    family: str = "ELEMENT_WISE"
    defaults: tuple[Any, ...] = ()
    namesake_module: str = "jnp"
    flush_bound: float | Callable[..., float] = 1
    bitwise: bool = False
    magnitude: Callable[..., np.ndarray] | None = None

    def __repr__(self) -> str:  # the fields are functions and tables: the name says which
        return f"ElementWise({self.kind})"

    @property
    def kind(self) -> str:
        """DirectML's name without ``DML_OPERATOR_``: ``"ELEMENT_WISE_ADD"``,
        ``"ACTIVATION_RELU"``."""
        return f"{self.family}_{self.name}"

    @property
    def operator_name(self) -> str:
        """``DML_OPERATOR_ELEMENT_WISE_<NAME>``."""
        return f"DML_OPERATOR_{self.kind}"

    @property
    def desc_name(self) -> str:
        """The desc class's name: ``ElementWiseAddOperatorDesc``."""
        words = "".join(word.capitalize() for word in self.kind.split("_"))
        return f"{words}OperatorDesc"

    @property
    def arity(self) -> int:
        """How many input tensors ``f`` takes."""
        return _arity(self.shape)

    @property
    def output_field(self) -> str:
        """The output tensor's field: ``output_tensor``, or RELU_GRAD's
        ``output_gradient_tensor``."""
        (field,) = contract.tensor_fields(self.shape, contract.Role.OUTPUT)
        return field.name

    @functools.cached_property
    def apart_fields(self) -> frozenset[str]:
        """The tensor fields with a data type of their own: those the support table names
        apart from the others (a test's ``output_tensor``, IF's ``condition_tensor``,
        POW's ``exponent_tensor``). The others share one data type."""
        return frozenset(field for band in self.support for field in band.fields)

    @functools.cached_property
    def apart(self) -> tuple[int, ...]:
        """The positions of the inputs among :attr:`apart_fields`. The face takes each in
        a dtype of its field's; the others share one dtype, the output's."""
        inputs = contract.tensor_fields(self.shape, contract.Role.INPUT)
        return tuple(i for i, field in enumerate(inputs) if field.name in self.apart_fields)

    @functools.cached_property
    def first_shared(self) -> int:
        """The position of the first input of the output's type (IF's ``a``)."""
        return next(i for i in range(self.arity) if i not in self.apart)

    def field_dtypes(self, position: int) -> frozenset[np.dtype[Any]]:
        """The dtypes the face takes for the input at ``position``: its field's types in
        the latest band (:func:`jax_dtypes`)."""
        field = contract.tensor_fields(self.shape, contract.Role.INPUT)[position].name
        latest = self.support[-1]
        return jax_dtypes(latest.fields.get(field, latest.data))

    def input_dtype(self, position: int, dtype: Any) -> np.dtype[Any]:
        """The dtype of the input at ``position`` beside shared inputs of ``dtype``:
        ``dtype`` itself, or for an input apart that cannot take it, its field's first
        (uint8 for IF's condition)."""
        allowed = self.field_dtypes(position)
        if position not in self.apart or np.dtype(dtype) in allowed:
            return np.dtype(dtype)
        return min(allowed, key=str)

    @property
    def uint_output(self) -> bool:
        """Whether the output has a type of its own, UINT32 or UINT8 (its bands name its
        types apart), which the inputs need not share: a test's 1 or 0 (EQUALS, IS_NAN),
        BIT_COUNT's count. The formula's result is converted to it; the face gives uint8,
        and so does the reference."""
        return self.output_field in self.apart_fields

    def flush_bound_at(self, values: Sequence[Any]) -> float:
        """:attr:`flush_bound` for the attribute ``values``."""
        bound = self.flush_bound
        return bound(*values) if callable(bound) else bound

    def output_dtype(self, dtype: Any) -> np.dtype[Any]:
        """The face's output dtype for inputs of ``dtype``: uint8 for a ``uint_output``."""
        return np.dtype(np.uint8) if self.uint_output else np.dtype(dtype)

    @property
    def attributes(self) -> tuple[str, ...]:
        """The desc attributes ``f`` takes after the arrays (the face's statics)."""
        return _formula_attributes(self.shape)

    def constants(self, values: Sequence[Any], dtype: Any, *, op: str) -> tuple[np.ndarray, ...]:
        """The attributes' ``values`` as the formula's constants of ``dtype``."""
        assert self.read is not None or not values
        return tuple(
            self.read(value, np.dtype(dtype), op=op, field=name)  # type: ignore[misc]
            for name, value in zip(self.attributes, values, strict=True)
        )


_T = DataType
_SIGNED_8_32 = frozenset({_T.INT32, _T.INT16, _T.INT8})
_SIGNED_64 = frozenset({_T.INT64})
_INTS_32 = frozenset({_T.INT32, _T.UINT32})
_INTS_32_64 = frozenset({_T.INT64, _T.INT32, _T.UINT64, _T.UINT32})
_FLOATS = fl.FLOATS_16_32
_INTS_8_32 = fl.INTEGERS_8_32
_INTS_8_64 = fl.INTEGERS_8_32 | frozenset({_T.INT64, _T.UINT64})
_INTS_64 = frozenset({_T.INT64, _T.UINT64})
_TYPES_8_32 = _FLOATS | _INTS_8_32

# The bands of ADD, SUBTRACT and MULTIPLY, which DirectML widened together.
_ARITHMETIC_BANDS = (
    fl.band(FL.FL_1_0, (4, 5), _FLOATS),
    fl.band(FL.FL_2_1, (4, 5), _FLOATS | _INTS_32),
    fl.band(FL.FL_3_0, (1, 8), _FLOATS | _INTS_32),
    fl.band(FL.FL_4_1, (1, 8), _FLOATS | _INTS_32_64),
    fl.band(FL.FL_5_1, (1, 8), _FLOATS | _INTS_8_64),
)


def _all_bits_set(dtype: Any) -> np.ndarray:
    return (
        np.asarray(-1, dtype)
        if jnp.issubdtype(dtype, jnp.signedinteger)
        else np.asarray(np.iinfo(dtype).max, dtype)
    )


def float_divide(a: jax.Array, b: jax.Array) -> jax.Array:
    """IEEE division of floats, a divisor broadcast from one value included (on the CPU;
    within 1 ulp on a GPU).

    >>> float_divide(jnp.float16(-0.0), jnp.float16(1.5e-5))
    Array(-0., dtype=float16)
    """
    # XLA rewrites a / broadcast(b) as a * broadcast(1 / b), which is not a division:
    # 1 / 1.5e-5 overflows float16 (-0.0 / 1.5e-5 becomes NaN), and 1 / 3e38 is a
    # subnormal that a flushing backend makes 0 (inf / 3e38 becomes NaN). The barrier
    # hides the broadcast from that rewrite on the CPU; XLA:GPU removes barriers first,
    # and rewrites (1 ulp off there: it keeps subnormals, and 16-bit floats divide in
    # float32).
    (b,) = lax.optimization_barrier((b,))
    return lax.div(a, b)


def _divide(a: jax.Array, b: jax.Array) -> jax.Array:
    """IEEE division for floats; for integers the quotient truncated toward zero (the
    page's rule), with what XLA leaves to the backend defined: ``a / 0`` has every bit
    set (-1, or the unsigned maximum: Direct3D's ``udiv``), and ``MIN / -1`` wraps to
    ``MIN``."""
    if jnp.issubdtype(a.dtype, jnp.floating):
        return float_divide(a, b)
    zero = b == 0
    safe = jnp.where(zero, np.asarray(1, b.dtype), b)
    if jnp.issubdtype(a.dtype, jnp.signedinteger):
        minus_one = b == -1
        safe = jnp.where(minus_one, np.asarray(1, b.dtype), safe)
        quotient = jnp.where(minus_one, lax.neg(a), lax.div(a, safe))
    else:
        quotient = lax.div(a, safe)
    return jnp.where(zero, _all_bits_set(a.dtype), quotient)


def _reference_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.issubdtype(a.dtype, np.floating) or a.dtype.name == "bfloat16":
        with np.errstate(all="ignore"):
            return (a.astype(np.float64) / b.astype(np.float64)).astype(a.dtype)
    out = [
        _all_bits_set(a.dtype) if y == 0 else _truncated_quotient(int(x), int(y), a.dtype)
        for x, y in zip(a.ravel(), b.ravel(), strict=True)
    ]
    return np.array(out, a.dtype).reshape(a.shape)


def _truncated_quotient(x: int, y: int, dtype: Any) -> Any:
    quotient = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
    bits = np.iinfo(dtype).bits
    low = quotient % (1 << bits)  # MIN / -1 wraps
    signed = np.issubdtype(dtype, np.signedinteger)
    return low - (1 << bits) if signed and low >= 1 << (bits - 1) else low


def _wrapping(op: Callable[[Any, Any], Any]) -> Callable[..., np.ndarray]:
    """A NumPy binary operation that wraps integers (two's complement) without warning."""

    def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return np.asarray(op(a, b)).astype(a.dtype)

    return reference


def _float64_then_round(op: Callable[..., Any]) -> Callable[..., np.ndarray]:
    """For floats, ``op`` in float64 rounded once to the input's type: what one IEEE
    operation gives (float64 holds every product and sum of two float32 exactly enough
    that the rounding is the same); for integers ``op`` itself, wrapping."""

    def reference(*xs: np.ndarray) -> np.ndarray:
        dtype = xs[0].dtype
        if np.issubdtype(dtype, np.integer):
            return _wrapping(op)(*xs)
        with np.errstate(all="ignore"):
            return np.asarray(op(*(x.astype(np.float64) for x in xs))).astype(dtype)

    return reference


def _ieee(op: Callable[..., Any], prefer_sign: bool) -> Callable[..., np.ndarray]:
    """IEEE 754-2019's maximum or minimum in NumPy: a NaN gives NaN, and of two zeros the
    one without (maximum) or with (minimum) the sign bit, as XLA's max and min order them
    (NumPy's keep the first of two equal values)."""

    def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
        if not (np.issubdtype(a.dtype, np.floating) or a.dtype.name == "bfloat16"):
            return np.asarray(op(a, b))
        wide_a, wide_b = a.astype(np.float64), b.astype(np.float64)
        out = op(wide_a, wide_b)  # NumPy's maximum and minimum propagate NaN
        zeros = (wide_a == 0) & (wide_b == 0)
        signed = np.signbit(wide_a) | np.signbit(wide_b) if prefer_sign else (
            np.signbit(wide_a) & np.signbit(wide_b))  # fmt: skip
        out = np.where(zeros, np.copysign(0.0, np.where(signed, -1.0, 1.0)), out)
        return out.astype(a.dtype)

    return reference


_maximum = _ieee(np.maximum, prefer_sign=False)
_minimum = _ieee(np.minimum, prefer_sign=True)
# IEEE 754-2019's maximumNumber and minimumNumber: a NaN is missing data, the other operand
# the result (NumPy's fmax and fmin; zeros ordered as above).
_maximum_number = _ieee(np.fmax, prefer_sign=False)
_minimum_number = _ieee(np.fmin, prefer_sign=True)


def _number_of(op: Callable[[jax.Array, jax.Array], jax.Array]) -> Callable[..., jax.Array]:
    """XLA's ``max`` or ``min`` (which orders -0.0 below 0.0) with a NaN operand ignored:
    HLSL's ``max`` and ``min``, which DirectML's shaders run, return the other operand
    (NaN only where both are)."""

    def number(a: jax.Array, b: jax.Array) -> jax.Array:
        if not jnp.issubdtype(a.dtype, jnp.floating):
            return op(a, b)
        return op(jnp.where(jnp.isnan(a), b, a), jnp.where(jnp.isnan(b), a, b))

    return number


def _modulus(floor: bool) -> Callable[[jax.Array, jax.Array], jax.Array]:
    """MODULUS_TRUNCATE (C's ``fmod``: the sign of ``a``) or, with ``floor``, MODULUS_FLOOR
    (Python's ``%``: the sign of ``b``). Floats: ``fmod``, exact, plus ``b`` where the
    signs differ (one rounding), a zero result taking ``b``'s sign, as Python's does.
    Integers: ``a % 0`` is ``a`` and ``MIN % -1`` is 0, which the page's
    ``a - b * trunc(a / b)`` gives with DIVIDE's quotients."""

    def modulus(a: jax.Array, b: jax.Array) -> jax.Array:
        floating = jnp.issubdtype(a.dtype, jnp.floating)
        zero = np.zeros((), a.dtype)
        if floating:
            r = lax.rem(a, b)
        else:  # b == -1 divides by 1 instead: every remainder by -1 is 0
            unit = (b == 0) | (b == -1) if jnp.issubdtype(a.dtype, jnp.signedinteger) else b == 0
            r = lax.rem(a, jnp.where(unit, np.asarray(1, b.dtype), b))
        if floor and not jnp.issubdtype(a.dtype, jnp.unsignedinteger):
            r = jnp.where((r != zero) & ((r < zero) != (b < zero)), r + b, r)
            if floating:  # Python's: a zero remainder has the divisor's sign
                r = jnp.where(r == zero, jnp.copysign(zero, b), r)
        return r if floating else jnp.where(b == 0, a, r)

    return _in_float32(modulus, arity=2)


def _reference_modulus(floor: bool) -> Callable[..., np.ndarray]:
    """The moduli restated: NumPy's ``fmod`` or ``remainder`` (Python's ``%``) in float32
    for floats (16-bit ones rounded once), Python's integers for integers."""

    def one(x: int, y: int) -> int:
        if y == 0:
            return x
        r = x - y * (abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1))  # trunc(x / y)
        return r + y if floor and r != 0 and (r < 0) != (y < 0) else r

    def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if np.issubdtype(a.dtype, np.integer):
            pairs = zip(a.ravel().tolist(), b.ravel().tolist(), strict=True)
            return np.array([one(x, y) for x, y in pairs], a.dtype).reshape(a.shape)
        return _numpy_in_float32(np.remainder if floor else np.fmod)(a, b)

    return reference


_MODULUS_BANDS = (
    fl.band(FL.FL_2_1, (4, 4), _TYPES_8_32),
    fl.band(FL.FL_3_0, (1, 8), _TYPES_8_32),
    fl.band(FL.FL_6_0, (1, 8), _TYPES_8_32 | _INTS_64),
)


def _modulus_row(
    name: str, *, floor: bool, face: str, example: tuple[Any, ...], differs: str, sign: str
) -> ElementWise:
    """MODULUS_TRUNCATE's or MODULUS_FLOOR's row."""
    a, b, printed = example
    rounding = "floor" if floor else "trunc"
    return ElementWise(
        name,
        ElementWiseBinary,
        _modulus(floor),
        _MODULUS_BANDS,
        face=face,
        example=("float32", (a, b), printed),
        page=f"f(a, b) = a - (b * {rounding}(a / b))",
        reference=_reference_modulus(floor),
        differs=differs,
        not_smooth="a sawtooth: it jumps where a / b is a whole number",
        notes=f"The remainder has {sign} sign. Floats: C's fmod, which is exact"
        + (", plus b where the signs differ (one rounding), and a zero remainder has b's "
           "sign, as Python's % gives" if floor else "")
        + "; FLOAT16 computes in float32 and rounds once; a divisor of 0 gives NaN. "
        "Integers: a % 0 is a, and MIN % -1 is 0 (dmljax's definition, which the page's "
        "formula gives with DIVIDE's quotients: the page is silent).",
    )  # fmt: skip


def _sign(x: jax.Array) -> jax.Array:
    """The page's cases: -1 where ``x < 0``, 1 where ``x > 0``, 0 elsewhere (-0.0, NaN)."""
    one, zero = np.asarray(1, x.dtype), np.zeros((), x.dtype)
    if jnp.issubdtype(x.dtype, jnp.unsignedinteger):
        return jnp.where(x > 0, one, zero)
    return jnp.where(x < 0, -one, jnp.where(x > 0, one, zero))


def _reference_sign(x: np.ndarray) -> np.ndarray:
    wide = x.astype(np.float64) if x.dtype.kind == "f" or x.dtype.name == "bfloat16" else x
    with np.errstate(invalid="ignore"):
        out = np.where(wide < 0, -1, np.where(wide > 0, 1, 0))
    return out.astype(x.dtype)


def _mean(a: jax.Array, b: jax.Array) -> jax.Array:
    """``(a + b) / 2``. Floats: the sum rounded, then halved (16-bit floats in float32,
    where the sum is exact). Integers: the exact mean truncated toward zero (as DIVIDE
    truncates), computed without the sum, which may not fit the type."""
    if jnp.issubdtype(a.dtype, jnp.floating):
        return _in_float32(lambda x, y: (x + y) * np.asarray(0.5, x.dtype), arity=2)(a, b)
    one = np.asarray(1, a.dtype)
    odd = (a ^ b) & one  # the sum's lowest bit
    floor = (a >> one) + (b >> one) + (a & b & one)  # arithmetic shifts for signed types
    if jnp.issubdtype(a.dtype, jnp.signedinteger):  # a negative odd sum rounds up to trunc
        return floor + (odd & (floor < 0).astype(a.dtype))
    return floor


def _reference_mean(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.issubdtype(a.dtype, np.integer):
        sums = [int(x) + int(y) for x, y in zip(a.ravel(), b.ravel(), strict=True)]
        out = [abs(s) // 2 * (1 if s >= 0 else -1) for s in sums]
        return np.array(out, a.dtype).reshape(a.shape)
    return _numpy_in_float32(lambda x, y: (x + y) * np.asarray(0.5, x.dtype))(a, b)


def _difference_square(a: jax.Array, b: jax.Array) -> jax.Array:
    """``(a - b) * (a - b)``: the difference rounded, then squared (16-bit floats in
    float32, where both are exact)."""
    return _in_float32(lambda x, y: lax.square(x - y), arity=2)(a, b)


def _reference_difference_square(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.issubdtype(a.dtype, np.integer):
        return _wrapping(lambda x, y: (x - y) * (x - y))(a, b)
    return _numpy_in_float32(lambda x, y: (x - y) * (x - y))(a, b)


def _numpy_in_float32(op: Callable[..., Any]) -> Callable[..., np.ndarray]:
    """:func:`_in_float32` restated in NumPy for a reference: ``op`` of float arrays in
    float32 for 16-bit floats (in their own type otherwise), rounded once to their type."""

    def reference(*xs: np.ndarray) -> np.ndarray:
        wide = np.float32 if xs[0].dtype.itemsize < 4 else xs[0].dtype
        with np.errstate(all="ignore"):
            return np.asarray(op(*(x.astype(wide) for x in xs))).astype(xs[0].dtype)

    return reference


def _read_clip_bound(value: float, dtype: np.dtype[Any], *, op: str, field: str) -> np.ndarray:
    del op, field  # CLIP's rules refused a NaN bound of an integer tensor
    return clip_bound(value, dtype)


def _check_clip(desc: Any, op: str, level: FL) -> None:
    """CLIP's, THRESHOLD's and CLIP_GRAD's FLOAT bounds: a NaN bound clips no integer, so
    it is refused for integer tensors."""
    del level
    data_type = desc.input_tensor.data_type  # the output's too (CLIP_GRAD's gradient's)
    if data_type.is_floating:
        return
    for name in ("min", "max"):
        if hasattr(desc, name) and math.isnan(getattr(desc, name)):
            raise InvalidArgumentError(op, name, f"a number for {data_type} tensors", "nan")


def _reference_clip(x: np.ndarray, low: float, high: float = math.inf) -> np.ndarray:
    """CLIP restated: each bound a float32, in ``x``'s type rounded (floats) or truncated
    and held to the type's range (integers); then ``min(Max, max(Min, x))``. Without
    ``high``, THRESHOLD's ``max(x, Min)``."""
    held = _held_clip_bounds(x.dtype, low, high)
    return _minimum(held[1], _maximum(held[0], x))


def _held_clip_bounds(dtype: np.dtype[Any], *bounds: float) -> list[np.ndarray]:
    """CLIP's FLOAT bounds restated: each a float32, in ``dtype`` rounded (floats) or
    truncated and held to the type's range (integers)."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return [
            np.asarray(np.clip(np.trunc(np.float64(np.float32(v))), info.min, info.max), dtype)
            for v in bounds
        ]
    with np.errstate(over="ignore"):
        return [np.asarray(np.float32(v)).astype(dtype) for v in bounds]


def _clip_grad(x: jax.Array, gradient: jax.Array, low: Any, high: Any) -> jax.Array:
    """The page's cases: 0 where ``x <= Min`` or ``x >= Max``, the gradient elsewhere."""
    return jnp.where((x <= low) | (x >= high), jnp.zeros((), gradient.dtype), gradient)


def _reference_clip_grad(exact: bool) -> Callable[..., np.ndarray]:
    """CLIP_GRAD restated (its bounds read as CLIP's), or with ``exact`` CLIP_GRAD1's."""

    def reference(x: np.ndarray, gradient: np.ndarray, low: Any, high: Any) -> np.ndarray:
        read = _held_exact_bounds if exact else _held_clip_bounds
        held = read(x.dtype, low, high)
        with np.errstate(invalid="ignore"):  # NaN compares false, quietly
            outside = (x <= held[0]) | (x >= held[1])
        return np.where(outside, np.zeros((), x.dtype), gradient)

    return reference


def _read_exact(value: Any, dtype: np.dtype[Any], *, op: str, field: str) -> np.ndarray:
    return scalars.value_in(value, dtype, op=op, field=field)


def _check_clip1(desc: Any, op: str, level: FL) -> None:
    del level
    output = _ROW_OF_DESC[type(desc)].output_field  # CLIP_GRAD1's output_gradient_tensor
    scalars.require_union_type(desc, "min_max_data_type", op=op, output=output)


def _reference_clip1(x: np.ndarray, low: Any, high: Any) -> np.ndarray:
    """CLIP1 restated: each bound exact in ``x``'s type; then ``max(Min, min(x, Max))``."""
    held = _held_exact_bounds(x.dtype, low, high)
    return _maximum(held[0], _minimum(x, held[1]))


def _held_exact_bounds(dtype: np.dtype[Any], *bounds: Any) -> list[np.ndarray]:
    """CLIP1's scalar-union bounds restated: each exact in ``dtype`` (the desc refused
    any it cannot hold)."""
    with np.errstate(over="ignore"):
        return [np.asarray(v).astype(dtype) for v in bounds]


def _in_float32(formula: Callable[..., jax.Array], arity: int = 1) -> Callable[..., jax.Array]:
    """``formula`` of ``arity`` arrays computed in float32 for 16-bit floats and rounded
    once to their type (as a ScaleBias is): an activation's float32 attribute then acts at
    full precision, and a sum of two float16 values is exact before it is halved."""

    def wide(*args: Any) -> jax.Array:
        xs, constants = args[:arity], args[arity:]
        dtype = xs[0].dtype
        if dtype.itemsize >= 4 or not jnp.issubdtype(dtype, jnp.floating):
            return formula(*xs, *constants)
        return formula(*(x.astype(jnp.float32) for x in xs), *constants).astype(dtype)

    wide.in_float32 = True  # type: ignore[attr-defined]  # the checks compare in kind
    return wide


def _read_float32(value: float, dtype: np.dtype[Any], *, op: str, field: str) -> np.ndarray:
    """A C ``FLOAT`` attribute as the constant of a formula run in float32 or wider."""
    del op, field
    return np.asarray(np.float32(value), np.promote_types(dtype, np.float32))


def _elu(x: jax.Array, alpha: Any) -> jax.Array:
    # expm1, not exp(x) - 1 as the page writes it: exact near 0, where the difference
    # cancels. The inner where keeps the unused branch finite for the derivatives.
    negative = jnp.where(x >= 0, jnp.zeros((), x.dtype), x)
    return jnp.where(x >= 0, x, (alpha * jnp.expm1(negative)).astype(x.dtype))


def _read_steepness(value: float, dtype: np.dtype[Any], *, op: str, field: str) -> np.ndarray:
    """SOFTPLUS's steepness: the page's "cannot be less than 1", NaN refused too."""
    if not value >= 1:
        raise InvalidArgumentError(op, field, "a number of at least 1 (the page's rule)", value)
    return _read_float32(value, dtype, op=op, field=field)


def _read_divisor_float32(value: float, dtype: np.dtype[Any], *, op: str, field: str) -> np.ndarray:
    """:func:`_read_float32` for an attribute the formula divides by: zero, NaN, the
    infinities and the float32 subnormals refused (a backend that flushes subnormals
    reads those as zero, and the quotient then is infinite or NaN, by device)."""
    with np.errstate(over="ignore"):  # 1e39 is an infinity of float32, refused below
        magnitude = abs(np.float32(value))
    if not np.finfo(np.float32).tiny <= magnitude < np.inf:  # NaN too
        raise InvalidArgumentError(
            op,
            field,
            "a finite, nonzero normal float32 number (the formula divides by it: a subnormal "
            "one reads as 0 where the device flushes subnormals, an infinite one makes "
            "alpha * (exp(x / alpha) - 1) NaN)",
            repr(value),
        )
    return _read_float32(value, dtype, op=op, field=field)


def _celu(x: jax.Array, alpha: Any) -> jax.Array:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``, as jax.nn.celu arranges it
    (expm1 of ``min(x, 0) / alpha``: finite derivatives for every x). Where that quotient
    is below the smallest normal (a backend may flush it, or keep fewer bits),
    ``alpha * expm1(q)`` is ``min(x, 0)`` itself to the type's precision."""
    negative = jnp.minimum(x, jnp.zeros((), x.dtype))
    quotient = negative / alpha
    tiny = np.asarray(jnp.finfo(x.dtype).tiny, x.dtype)
    tail = jnp.where(jnp.abs(quotient) < tiny, negative, alpha * jnp.expm1(quotient))
    return jnp.maximum(x, jnp.zeros((), x.dtype)) + tail


def _scaled_elu(x: jax.Array, alpha: Any, gamma: Any) -> jax.Array:
    """``gamma * (x if x > 0 else alpha * (exp(x) - 1))`` as jax.nn.selu arranges it: the
    same operations in the same order, so that the face with jax.nn.selu's constants gives
    its bits."""
    negative = jnp.where(x > 0, jnp.zeros((), x.dtype), x)  # finite derivatives
    return gamma * jnp.where(x > 0, x, alpha * jnp.expm1(negative))


def _reference_prelu(x: np.ndarray, slope: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # NaN >= 0 is false, quietly
        return np.where(x >= 0, x, _float64_then_round(np.multiply)(slope, x))


def _hard_sigmoid(x: jax.Array, alpha: Any, beta: Any) -> jax.Array:
    """``max(0, min(alpha * x + beta, 1))``, NaN kept (XLA's max and min propagate it)."""
    zero, one = jnp.zeros((), x.dtype), jnp.ones((), x.dtype)
    return jnp.minimum(jnp.maximum(alpha * x + beta, zero), one)


def _read_shrink(value: float, dtype: np.dtype[Any], *, op: str, field: str) -> np.ndarray:
    """SHRINK's attributes: float32 constants for floats; for integers (FL 5_1) each kept
    as the float32 it is (the formula works with them as real numbers, statically); NaN
    refused for integers."""
    if jnp.issubdtype(dtype, jnp.floating):
        return _read_float32(value, dtype, op=op, field=field)
    if math.isnan(value):
        data_type = DataType.from_dtype(dtype)
        raise InvalidArgumentError(op, field, f"a number for {data_type} tensors", "nan")
    return np.asarray(np.float32(value), np.float64)


def _shrink(x: jax.Array, bias: Any, threshold: Any) -> jax.Array:
    """``x - Bias`` where ``x > Threshold``, ``x + Bias`` where ``x < -Threshold``, 0
    elsewhere. Integers work with the float attributes as real numbers, as ONNX's Shrink
    does: the comparisons are exact and each sum is truncated toward zero and held to
    the type's range, as CAST converts (:func:`_plus_real`)."""
    zero = jnp.zeros((), x.dtype)
    if jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.where(x > threshold, x - bias, jnp.where(x < -threshold, x + bias, zero))
    t, b = float(threshold), float(bias)  # concrete constants: chosen here, statically
    above, below = _above_real(x, t), _below_real(x, -t)
    return jnp.where(above, _plus_real(x, -b), jnp.where(below, _plus_real(x, b), zero))


def _above_real(x: jax.Array, real: float) -> Any:
    """``x > real`` for integers, exactly: ``x > floor(real)``."""
    return _compare_whole(x, math.floor(real) if math.isfinite(real) else real, greater=True)


def _below_real(x: jax.Array, real: float) -> Any:
    """``x < real`` for integers, exactly: ``x < ceil(real)``."""
    return _compare_whole(x, math.ceil(real) if math.isfinite(real) else real, greater=False)


def _plus_real(x: jax.Array, real: float) -> jax.Array:
    """``x + real`` for integers and a float, truncated toward zero and held to the type's
    range (CAST's float-to-integer rule): ``x + floor(real)`` where the sum is positive,
    ``x + ceil(real)`` where it is not, saturated."""
    if not math.isfinite(real):
        info = jnp.iinfo(x.dtype)
        return jnp.full(x.shape, info.max if real > 0 else info.min, x.dtype)
    positive = _above_real(x, -real)
    return jnp.where(positive, _plus_whole(x, math.floor(real)), _plus_whole(x, math.ceil(real)))


def _plus_whole(x: jax.Array, whole: int) -> jax.Array:
    """``x + whole`` saturated to x's type, for any Python integer: the sum wraps where it
    fits (two's complement adds ``whole`` modulo 2**bits exactly), and is the type's
    bound where it does not."""
    info = jnp.iinfo(x.dtype)
    low, high = int(info.min), int(info.max)
    if whole > high - low:
        return jnp.full(x.shape, high, x.dtype)
    if whole < low - high:
        return jnp.full(x.shape, low, x.dtype)
    bits = info.bits
    step = np.asarray(whole % (1 << bits), f"uint{bits}").view(x.dtype)
    wrapped = x + step
    if whole >= 0:
        last = np.asarray(high - whole, x.dtype)  # the largest x whose sum fits
        return jnp.where(x > last, np.asarray(high, x.dtype), wrapped)
    first = np.asarray(low - whole, x.dtype)
    return jnp.where(x < first, np.asarray(low, x.dtype), wrapped)


def _compare_whole(x: jax.Array, bound: float, *, greater: bool) -> Any:
    """``x > bound`` (or ``x < bound``) for integers ``x`` and a whole or infinite
    ``bound``: all true or all false where the bound is beyond the type's range."""
    info = jnp.iinfo(x.dtype)
    # x > bound holds for none at or past the maximum and for all below the minimum; x <
    # bound is its mirror image.
    none_from, all_past = (info.max, info.min) if greater else (info.min, info.max)
    if (bound >= none_from) if greater else (bound <= none_from):
        return jnp.zeros(x.shape, bool)
    if (bound < all_past) if greater else (bound > all_past):
        return jnp.ones(x.shape, bool)
    whole = np.asarray(int(bound), x.dtype)
    return x > whole if greater else x < whole


def _reference_shrink(x: np.ndarray, bias: float, threshold: float) -> np.ndarray:
    """SHRINK restated: floats in float64 rounded once; integers with exact rational
    arithmetic (Python's Fraction) against the float32 attributes, each sum truncated
    toward zero and held to the type's range."""
    t, b = float(np.float32(threshold)), float(np.float32(bias))
    if x.dtype.kind in "fV":
        wide = x.astype(np.float64)
        with np.errstate(all="ignore"):  # NaN compares false; past float16's range: inf
            y = np.where(wide > t, wide - b, np.where(wide < -t, wide + b, 0.0))
            return y.astype(x.dtype)
    info = np.iinfo(x.dtype)

    def one(v: int) -> int:
        if v > t:
            total = -b if not math.isfinite(b) else v - Fraction(b)
        elif v < -t:
            total = b if not math.isfinite(b) else v + Fraction(b)
        else:
            return 0
        if not math.isfinite(total):
            return int(info.max) if total > 0 else int(info.min)
        return min(max(math.trunc(total), int(info.min)), int(info.max))

    return np.array([one(v) for v in x.ravel().tolist()], x.dtype).reshape(x.shape)


def _reference_relu_grad(x: np.ndarray, gradient: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # NaN > 0 is false, quietly
        return np.where(x > 0, gradient, np.zeros((), x.dtype))


def _softplus(x: jax.Array, steepness: Any) -> jax.Array:
    """``ln(1 + exp(k x)) / k`` as ``max(x, 0) + ln(1 + exp(-abs(k x))) / k``: jnp.logaddexp's
    operations (its bits for k = 1), and no overflow of ``k x`` where ``x`` is large."""
    zero = jnp.zeros((), x.dtype)
    return jnp.maximum(x, zero) + jnp.log1p(jnp.exp(-jnp.abs(steepness * x))) / steepness


def _swish_reference(x: np.ndarray, scale: Any) -> np.ndarray:
    return x / (1 + np.exp(-scale * x))


def _softplus_reference(x: np.ndarray, steepness: Any) -> np.ndarray:
    return np.logaddexp(steepness * x, 0) / steepness


def _reference_parametric_softplus(x: np.ndarray, alpha: Any, beta: Any) -> np.ndarray:
    """``alpha * ln(1 + exp(beta x))``, with ``beta x`` infinite where it overflows float32
    (the formula's intermediate, which the notes say)."""
    y = beta * x
    y = np.where(np.abs(y) > np.finfo(np.float32).max, np.copysign(np.inf, y), y)
    return alpha * np.logaddexp(y, 0)


_SQRT_HALF = np.float32(math.sqrt(0.5))


def _gelu(x: jax.Array) -> jax.Array:
    """``0.5 * x * erfc(-x * sqrt(1/2))``: jax.nn.gelu(approximate=False)'s operations."""
    return 0.5 * x * lax.erfc(-x * _SQRT_HALF.astype(x.dtype))


def _gelu_magnitude(x: np.ndarray) -> np.ndarray:
    """``|f(x)| * (1 + min(x, 0)**2)``: erfc's condition number at ``-x / sqrt(2)``, about
    ``x * x`` for negative x and below 1 for positive x (where erfc is near 2)."""
    wide = np.asarray(x, np.float64)
    return np.abs(_reference_gelu(wide)) * (1 + np.minimum(wide, 0) ** 2)


def _reference_gelu(x: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # -inf * erfc(inf) is NaN, as XLA gives
        return 0.5 * x * np.vectorize(math.erfc, otypes=[np.float64])(-x / math.sqrt(2))


_SOFTPLUS_BOUND = (
    "within 4 ulps of abs(f(x)) * (1 + abs(y)) for float32 (measured: 2.7 on the 2-core "
    "CPU, 2.2 on an H100), 1 ulp for 16-bit floats, which compute in float32 and round once."
)
_AFFINE_NOTES = (
    "alpha and beta are C FLOATs (float32); float16 computes in float32 and rounds once. "
    "XLA:CPU fuses alpha * x + beta into one multiply-add (jax 0.10.2: the correctly "
    "rounded result, measured over 2**21 points); on an H100 (jax 0.11.2) the product and "
    "the sum round apart, which can lose a result where the two terms cancel. So the bound "
    "is 2 ulps of abs(alpha * x) + abs(beta) for float32 (1 for 16-bit floats), not of the "
    "result itself (measured: 0.5 on the CPU, 1.0 on the H100)."
)


def _conditioned(f: Callable[..., Any], scale: int) -> Callable[..., np.ndarray]:
    """The magnitude ``|f(x)| * (1 + |y|)`` of a function whose condition number at its
    scaled input ``y = values[scale] * x`` is up to ``|y|`` (sigmoid's in SWISH, softplus's):
    that number multiplies the rounding of ``y``. ``f`` takes float64 values, as
    :func:`_reference_in_float64`'s does."""

    def magnitude(x: np.ndarray, *values: float) -> np.ndarray:
        wide = np.asarray(x, np.float64)
        attributes = [np.float64(np.float32(v)) for v in values]
        with np.errstate(all="ignore"):
            y = attributes[scale] * wide
            return np.abs(f(wide, *attributes)) * (1 + np.abs(y))

    return magnitude


def _reference_in_float64(f: Callable[..., Any]) -> Callable[..., np.ndarray]:
    """``f`` of float64 values (the attributes as float32, as the desc holds them), rounded
    once to the input's type."""

    def reference(x: np.ndarray, *values: float) -> np.ndarray:
        attributes = [np.float64(np.float32(v)) for v in values]
        with np.errstate(all="ignore"):
            return np.asarray(f(x.astype(np.float64), *attributes)).astype(x.dtype)

    return reference


def _atan2(a: jax.Array, b: jax.Array) -> jax.Array:
    """XLA's atan2, with a pair of subnormals first made normal, each times ``2**(p + 1)``
    for a type of ``p`` fraction bits (exact, and the angle is the same): XLA:CPU's
    float32 ``atan2`` of two subnormals is NaN (jax 0.10.2: ``jnp.atan2(1e-39, 2e-39)``).
    A backend that reads subnormals as zeros gives the angle of the zeros instead, as the
    family's Subnormals rule allows."""
    info = jnp.finfo(a.dtype)
    tiny = np.asarray(info.tiny, a.dtype)
    both = (jnp.abs(a) < tiny) & (jnp.abs(b) < tiny)
    scale = np.asarray(2.0 ** (info.nmant + 1), a.dtype)
    return lax.atan2(jnp.where(both, a * scale, a), jnp.where(both, b * scale, b))


def _power(x: jax.Array, exponent: jax.Array) -> jax.Array:
    """XLA's pow with subnormals read as zeros of their sign (the family's Subnormals
    rule), the base's and the exponent's alike: XLA:CPU's float32 pow of a subnormal base
    is neither the power nor that of a zero (jax 0.10.2: ``pow(1.0663e-38, 0.5)`` gives
    2.6e-23, not 1.03e-19)."""
    tiny = np.asarray(jnp.finfo(x.dtype).tiny, x.dtype)

    def read(v: Any) -> Any:
        if isinstance(v, np.ndarray):  # CONSTANT_POW's exponent: flushed here, not traced
            return np.copysign(np.zeros((), v.dtype), v) if 0 < abs(v) < tiny else v
        return _subnormals_as_zeros(v)

    return lax.pow(read(x), read(exponent))


def _subnormals_as_zeros(v: jax.Array) -> jax.Array:
    """``v`` with its subnormals read as zeros of their sign (the family's Subnormals rule),
    for a function XLA:CPU gets wrong on them. A zero passes as itself: its derivative
    stays."""
    tiny = np.asarray(jnp.finfo(v.dtype).tiny, v.dtype)
    subnormal = (jnp.abs(v) < tiny) & (v != 0)
    return jnp.where(subnormal, jnp.copysign(jnp.zeros((), v.dtype), v), v)


def _log(x: jax.Array) -> jax.Array:
    """XLA's log, with a float32 or bfloat16 subnormal read as a zero of its sign (the
    family's Subnormals rule): XLA:CPU's float32 log of a subnormal is ``log(2**-150)``
    where a loop's scalar tail computes it (jax 0.10.2:
    ``jax.jit(jnp.log)(jnp.array([1, 1, 3e-39]))[2]`` is -103.97, not -88.72) and that of
    a zero in its vector body. float16 computes in float32, where its subnormals are
    normal numbers."""
    if jnp.finfo(x.dtype).minexp == jnp.finfo(jnp.float32).minexp:  # float32, bfloat16
        x = _subnormals_as_zeros(x)
    return lax.log(x)


def _pow(x: jax.Array, exponent: jax.Array) -> jax.Array:
    """POW for each pair of types, in ``x``'s type. Floats: IEEE's pow, 16-bit floats in
    float32 rounded once; a whole-number exponent of an integer type is read as a float,
    the sign taken from its parity (a float32 holds 2**24 + 1 as 2**24, which is even).
    An integer base: with an integer exponent, the exact power wrapped to the type (as
    MULTIPLY wraps), ``x ** -n`` being ``1 / x ** n`` truncated as DIVIDE truncates (1 / 0
    has every bit set); with a float exponent, pow in float32 converted as CAST converts."""
    if jnp.issubdtype(x.dtype, jnp.floating):
        wide = jnp.promote_types(x.dtype, jnp.float32)
        if jnp.issubdtype(exponent.dtype, jnp.floating):
            wide = jnp.promote_types(wide, exponent.dtype)
            y = _power(x.astype(wide), exponent.astype(wide))
        else:  # pow(x, n) is +-pow(abs(x), n): the sign from the integer's parity
            magnitude = _power(jnp.abs(x.astype(wide)), exponent.astype(wide))
            odd = (exponent & np.asarray(1, exponent.dtype)) != 0
            y = jnp.where(jnp.signbit(x) & odd, -magnitude, magnitude)
        return y.astype(x.dtype)
    if jnp.issubdtype(exponent.dtype, jnp.floating):
        wide = jnp.promote_types(exponent.dtype, jnp.float32)
        y = lax.pow(x.astype(wide), exponent.astype(wide))  # an integer base is never subnormal
        return cast.cast_lowering(y, dtype=x.dtype)
    return _integer_power(x, exponent)


_pow.in_float32 = True  # type: ignore[attr-defined]  # its 16-bit floats, for the checks


def _integer_power(x: jax.Array, exponent: jax.Array) -> jax.Array:
    """``x ** n`` for integers: square and multiply over the bits of ``abs(n)`` (every
    product wraps, as the exact power does), then the negative exponents' quotients."""
    unsigned = np.dtype(f"uint{exponent.dtype.itemsize * 8}")
    negative = exponent < 0 if jnp.issubdtype(exponent.dtype, jnp.signedinteger) else None
    bits = lax.convert_element_type(exponent, unsigned)  # two's complement: -n wraps
    if negative is not None:
        bits = jnp.where(negative, np.zeros((), unsigned) - bits, bits)
    one = np.ones((), x.dtype)
    power, square = jnp.full(x.shape, one), x
    for bit in range(unsigned.itemsize * 8):
        set_ = ((bits >> np.asarray(bit, unsigned)) & np.ones((), unsigned)) != 0
        power = jnp.where(set_, power * square, power)
        square = square * square
    if negative is None:
        return power
    odd = (bits & np.ones((), unsigned)) != 0
    # 1 / x**n truncated toward zero: 1 for x = 1, +-1 for x = -1 (by the parity), every
    # bit set for x = 0 (DIVIDE's 1 / 0), and 0 for any other x.
    inverse = jnp.where(x == one, one, jnp.zeros((), x.dtype))
    if jnp.issubdtype(x.dtype, jnp.signedinteger):
        inverse = jnp.where(x == -one, jnp.where(odd, -one, one), inverse)
    inverse = jnp.where(x == 0, _all_bits_set(x.dtype), inverse)
    return jnp.where(negative, inverse, power)


def _ieee_power(x: np.ndarray, exponent: Any) -> np.ndarray:
    """C's pow in NumPy, element by element: np.power takes sqrt for an exponent of 0.5
    given as a scalar, a 0-d array or a broadcast one (sqrt(-0.0) is -0.0 and sqrt(-inf)
    NaN, where pow gives 0.0 and inf), so both are given to it as 1-d copies."""
    x, exponent = np.broadcast_arrays(x, exponent)
    return np.power(x.flatten(), exponent.flatten()).reshape(x.shape)


def _reference_pow(x: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """POW restated with Python's numbers: floats in float64 rounded once (an integer
    exponent exactly), integer powers exact and wrapped, float powers of an integer base
    in float32 converted as CAST converts."""
    floats = ("f", "V")  # bfloat16's kind is V
    if x.dtype.kind in floats:  # float64 holds every 32-bit integer exponent exactly
        with np.errstate(all="ignore"):
            return _ieee_power(x.astype(np.float64), exponent.astype(np.float64)).astype(x.dtype)
    if exponent.dtype.kind in floats:  # CAST's float to integer: truncated, held, NaN 0
        info = np.iinfo(x.dtype)
        with np.errstate(all="ignore"):
            y = _ieee_power(x.astype(np.float32), exponent.astype(np.float32)).astype(np.float64)
            held = np.clip(np.trunc(np.where(np.isnan(y), 0.0, y)), info.min, info.max)
        return held.astype(x.dtype)
    bits = np.iinfo(x.dtype).bits
    out = []
    for base, n in zip(x.ravel().tolist(), exponent.ravel().tolist(), strict=True):
        if n >= 0:
            value = pow(base, n, 1 << bits)
        elif base == 0:
            value = -1
        else:
            value = 1 if base == 1 else (-1 if n % 2 else 1) if base == -1 else 0
        out.append(value % (1 << bits))
    wrapped = np.array(out, np.uint64).astype(f"uint{bits}").view(x.dtype)
    return wrapped.reshape(x.shape)


def _check_pow(desc: Any, op: str, level: FL) -> None:
    """Until FL 3_0 the exponent has the input's type (the page's remark)."""
    given, want = desc.exponent_tensor.data_type, desc.input_tensor.data_type
    if level < FL.FL_3_0 and given != want:
        raise InvalidArgumentError(
            op,
            "exponent_tensor.data_type",
            f"{want}, the input_tensor's, at {level} (until FL_3_0 they match)",
            str(given),
            hint=f"{given} is supported from FL_3_0.",
        )


def _where(condition: jax.Array, a: jax.Array, b: jax.Array) -> jax.Array:
    """``a`` where ``condition`` is nonzero, ``b`` elsewhere."""
    return jnp.where(condition != 0, a, b)


# ATAN_YX's and the POWs' bounds: the largest float32 error measured on either backend
# (2 on the H100, 1 on the CPU; their notes) plus one ulp.
_ATAN2_ULPS = 3
_POW_ULPS = 3
_POW_NOTES = (
    "IEEE's pow, as C's pow and XLA's give it: a negative base with a whole exponent keeps "
    "its sign where the exponent is odd, and with any other exponent gives NaN, as the page "
    "says; pow(x, 0) is 1 and pow(1, y) is 1 for every x and y, NaN included; pow(0.0, y) "
    "is inf for y < 0. A subnormal is read as a zero of its sign (the Subnormals rule; "
    "XLA:CPU's pow of one is wrong). Exponent is a C FLOAT (float32); float16 computes in "
    f"float32 and rounds once. Within {_POW_ULPS} ulps of the float64 result for float32 "
    "(measured over 3 * 2**20 values, with random and with small exponents and eight "
    "constant ones: 1 on XLA:CPU, jax 0.10.2; 2 on an H100, jax 0.11.2) and 1 for 16-bit "
    "floats."
)
_ACTIVATION_BANDS = (
    fl.band(FL.FL_1_0, (4, 4), _FLOATS),
    fl.band(FL.FL_2_0, (4, 5), _FLOATS),
    fl.band(FL.FL_3_0, (1, 8), _FLOATS),
)


# CEIL and FLOOR: 4-D floats, then any rank from FL 3_0; both step functions.
_ROUNDING_BANDS = (fl.band(FL.FL_1_0, (4, 4), _FLOATS), fl.band(FL.FL_3_0, (1, 8), _FLOATS))
_MIN_MAX_BANDS = (
    fl.band(FL.FL_1_0, (4, 4), _FLOATS),
    fl.band(FL.FL_2_1, (4, 4), _TYPES_8_32),
    fl.band(FL.FL_3_0, (1, 8), _TYPES_8_32),
    fl.band(FL.FL_5_0, (1, 8), _TYPES_8_32 | _INTS_64),
)
_CLIP_GRAD_STEPS = "steps at Min and Max in x, where finite differences straddle them"
_CLIP_GRAD_NOTES = (
    "The incoming gradient where Min < x < Max, +0.0 elsewhere: a move, exact in every "
    "type. A NaN x is neither at or below Min nor at or above Max, so its gradient passes "
    "(the page's cases, read literally)."
)
_STAIRCASE = "a staircase: its derivative is 0 and finite differences straddle its steps"

_TRANSCENDENTAL_BANDS = {
    FL.FL_1_0: _ROUNDING_BANDS,
    FL.FL_2_0: (fl.band(FL.FL_2_0, (4, 4), _FLOATS), fl.band(FL.FL_3_0, (1, 8), _FLOATS)),
}


# LOGICAL_AND, OR, XOR and NOT: UINT32 from FL 1_0, UINT8 from 2_0, any rank from 3_0.
_LOGICAL_BANDS = (
    fl.band(FL.FL_1_0, (4, 4), frozenset({_T.UINT32})),
    fl.band(FL.FL_2_0, (4, 4), frozenset({_T.UINT32, _T.UINT8})),
    fl.band(FL.FL_3_0, (1, 8), frozenset({_T.UINT32, _T.UINT8})),
)
_INTEGERS_ONLY = "a function of integers, which have no derivative"


def _logical(op: Callable[..., Any]) -> Callable[..., Any]:
    """``op`` of booleans (each input true where it is nonzero: C's ``!!x``) as 1 or 0 in
    the inputs' type; ``op`` is a ``jnp`` or NumPy function, for the formula and the
    reference alike."""

    def truth(*xs: Any) -> Any:
        return op(*(x != 0 for x in xs)).astype(xs[0].dtype)

    return truth


def _logical_row(
    name: str, op: Any, np_op: Any, page: str, example: tuple[Any, ...]
) -> ElementWise:
    """A row of LOGICAL_AND, OR, XOR or NOT: 1 or 0 in the inputs' type."""
    face = f"logical_{name.lower()}"
    unary = name == "NOT"
    return ElementWise(
        f"LOGICAL_{name}",
        ElementWiseUnaryNoScaleBias if unary else ElementWiseBinary,
        _logical(op),
        _LOGICAL_BANDS,
        face=face,
        example=("uint8", example[:-1], example[-1]),
        page=page,
        reference=_logical(np_op),
        namesake=False,
        differs=f"1 or 0 in the inputs' dtype (DirectML's tensors share one), where "
        f"`jnp.{face}` gives bool",
        not_smooth=_INTEGERS_ONLY,
        notes="A value is true where it is nonzero (C's !!x); the result is 1 for true, 0 "
        "for false.",
    )


# The tests' bands: floats in and UINT32 out from FL 1_0, UINT8 out from 2_0, integers in
# from 2_1, any rank from 3_0, 64-bit integers in from 4_1 (EQUALS, GREATER_THAN and
# LESS_THAN; the OR_EQUAL pair came at 3_0 with that band).
_TRUTHS = frozenset({_T.UINT32, _T.UINT8})
_UINT8 = frozenset({_T.UINT8})
_COMPARISON_BANDS = (
    fl.band(FL.FL_1_0, (4, 4), _FLOATS, output_tensor=frozenset({_T.UINT32})),
    fl.band(FL.FL_2_0, (4, 4), _FLOATS, output_tensor=_TRUTHS),
    fl.band(FL.FL_2_1, (4, 4), _TYPES_8_32, output_tensor=_TRUTHS),
    fl.band(FL.FL_3_0, (1, 8), _TYPES_8_32, output_tensor=_TRUTHS),
    fl.band(FL.FL_4_1, (1, 8), _TYPES_8_32 | _INTS_64, output_tensor=_TRUTHS),
)
_A_TEST = "a test: its output is 1 or 0, with no derivative"
_ROUND_BANDS = (fl.band(FL.FL_2_1, (4, 4), _FLOATS), fl.band(FL.FL_3_0, (1, 8), _FLOATS))


def _test_reference(op: Callable[..., Any]) -> Callable[..., np.ndarray]:
    """A test's reference: NumPy's ``op`` (floats widened to float64, which holds every
    value of theirs; NumPy lacks bfloat16's comparisons) as uint8 1 or 0."""

    def reference(*xs: np.ndarray) -> np.ndarray:
        wide = [x.astype(np.float64) if x.dtype.kind == "f" or x.dtype.name == "bfloat16"
                else x for x in xs]  # fmt: skip
        with np.errstate(invalid="ignore"):
            return np.asarray(op(*wide)).astype(np.uint8)

    return reference


def _comparison_row(
    name: str, op: Any, np_op: Any, face: str, symbol: str, bands: tuple[fl.Band, ...]
) -> ElementWise:
    """A row of LOGICAL_EQUALS and its kin: IEEE's comparison, 1 or 0."""
    a, b = [1.0, -0.0, 3.0, 2.0], [2.0, 0.0, 1.0, 2.0]
    printed = ", ".join(str(int(np_op(x, y))) for x, y in zip(a, b, strict=True))
    return ElementWise(
        f"LOGICAL_{name}",
        ElementWiseBinary,
        op,
        bands,
        face=face,
        example=("float32", (a, b), f"Array([{printed}], dtype=uint8)"),
        page=f"f(a, b) = (a {symbol} b)",
        reference=_test_reference(np_op),
        differs="1 or 0 as uint8, where jnp's gives bool (DirectML has no boolean type)",
        not_smooth=_A_TEST,
        notes="IEEE's comparison: a NaN operand compares false (and unequal), and -0.0 "
        "equals 0.0. The result is 1 for true and 0 for false in the output's type "
        "(UINT32 or UINT8; the inputs' may differ); the face gives uint8.",
    )


def _unsigned(dtype: Any) -> np.dtype[Any]:
    """The unsigned integer type of ``dtype``'s width (uint16 for float16 and bfloat16)."""
    return np.dtype(f"uint{np.dtype(dtype).itemsize * 8}")


def _on_bits(op: Callable[..., Any], *, back: bool = True) -> Callable[..., Any]:
    """``op`` of unsigned integers applied to the bits of arrays of any type (the pages'
    "native encoding"), its result read back in that type, or (``back=False``: a count)
    left as it is."""

    def bits(*xs: jax.Array) -> jax.Array:
        dtype = xs[0].dtype
        if jnp.issubdtype(dtype, jnp.unsignedinteger):
            return op(*xs)
        y = op(*(lax.bitcast_convert_type(x, _unsigned(dtype)) for x in xs))
        return lax.bitcast_convert_type(y, dtype) if back else y

    return bits


def _reference_on_bits(op: Callable[..., Any], *, back: bool = True) -> Callable[..., Any]:
    """:func:`_on_bits` restated in NumPy, through views of the arrays' bytes."""

    def reference(*xs: np.ndarray) -> np.ndarray:
        y = np.asarray(op(*(np.asarray(x).view(_unsigned(x.dtype)) for x in xs)))
        return y.view(xs[0].dtype) if back else y.astype(np.uint8)

    return reference


# BIT_AND, OR, XOR and NOT: unsigned 8 to 32 bits from FL 3_0, every type from 4_1.
_UINTS_8_32 = frozenset({_T.UINT32, _T.UINT16, _T.UINT8})
_BIT_BANDS = (
    fl.band(FL.FL_3_0, (1, 8), _UINTS_8_32),
    fl.band(FL.FL_4_1, (1, 8), fl.TYPES_8_64),
)
# The shifts: unsigned 8 to 32 bits from FL 2_1 (4-D), any rank from 3_0, UINT64 from 4_1.
_SHIFT_BANDS = (
    fl.band(FL.FL_2_1, (4, 4), _UINTS_8_32),
    fl.band(FL.FL_3_0, (1, 8), _UINTS_8_32),
    fl.band(FL.FL_4_1, (1, 8), _UINTS_8_32 | {_T.UINT64}),
)
_NO_DERIVATIVE = "a bit operation: it reads the encoding, and has no derivative"
_SHIFT_NOTES = (
    "A logical shift of unsigned integers; by the width or more it gives 0, every bit "
    "shifted out (dmljax's definition, XLA's: the page is silent, and C leaves it undefined)."
)
_FLOAT_BITS = (
    "also takes floats and signed integers (their bits, from FL 4_1), where jnp's takes "
    "integers only"
)


def _bitwise_row(
    name: str,
    lax_op: Callable[..., Any],
    np_op: Callable[..., Any],
    *,
    face: str,
    page: str,
    example: tuple[Any, ...],
    bands: tuple[fl.Band, ...] = _BIT_BANDS,
    notes: str = "",
    shift: bool = False,
) -> ElementWise:
    """A row of BIT_AND and its kin: ``lax_op`` of the inputs' bits (a ``shift`` of
    unsigned integers as they are, with the shifts' bands), exact; ``np_op`` the
    reference's."""
    unary = name in ("BIT_NOT", "BIT_COUNT")
    dtype, *inputs, printed = example
    # A count (BIT_COUNT's, whose bands name an output type of its own) stays a count.
    back = not any("output_tensor" in band.fields for band in bands)
    formula = lax_op if shift else _on_bits(lax_op, back=back)
    reference = _reference_shift(np_op) if shift else _reference_on_bits(np_op, back=back)
    if shift:
        bands, notes = _SHIFT_BANDS, _SHIFT_NOTES
    return ElementWise(
        name,
        ElementWiseUnaryNoScaleBias if unary else ElementWiseBinary,
        formula,
        bands,
        face=face,
        example=(dtype, tuple(inputs), printed),
        page=page,
        reference=reference,
        differs="" if shift else _FLOAT_BITS,
        not_smooth=_NO_DERIVATIVE,
        bitwise=True,
        notes=notes
        or "The page's native encoding: a float or signed integer is read as the "
        "unsigned integer of its bits (FL 4_1), and the result's bits are the output's.",
    )


def _reference_shift(op: Callable[[Any, Any], Any]) -> Callable[..., np.ndarray]:
    """NumPy's logical shift of ``a`` by ``b`` bits (both unsigned), 0 where ``b`` is the
    width or more: every bit shifted out, as XLA's shifts give (C leaves it undefined)."""

    def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        width = a.dtype.itemsize * 8
        within = b < width
        shifted = op(a, np.where(within, b, 0).astype(a.dtype))
        return np.where(within, shifted, 0).astype(a.dtype)

    return reference


def _read_enum(value: Any, dtype: np.dtype[Any], *, op: str, field: str) -> Any:
    """An enum attribute (a member, its value or name) as its member: the formula's
    constant is the member itself, which picks the formula's branch when it is traced."""
    del dtype
    return ENUM_ATTRIBUTES[field].coerce(value, op=op, field=field)


def _round(x: jax.Array, mode: RoundingMode) -> jax.Array:
    """ROUND's three modes, each keeping the sign of a zero result (``-0.4`` gives -0.0)."""
    if mode is RoundingMode.TOWARD_ZERO:
        return jnp.trunc(x)
    method = lax.RoundingMethod.TO_NEAREST_EVEN
    if mode is RoundingMode.TOWARD_INFINITY:
        method = lax.RoundingMethod.AWAY_FROM_ZERO
    return lax.round(x, method)


def _reference_round(x: np.ndarray, mode: Any) -> np.ndarray:
    """ROUND restated in float64 (which holds each float32 value plus a half exactly)."""
    mode = RoundingMode.coerce(mode, op="reference", field="rounding_mode")
    wide = x.astype(np.float64)
    rounded = {
        RoundingMode.HALVES_TO_NEAREST_EVEN: np.round,
        RoundingMode.TOWARD_ZERO: np.trunc,
        RoundingMode.TOWARD_INFINITY: lambda v: np.copysign(np.floor(np.abs(v) + 0.5), v),
    }[mode](wide)
    return rounded.astype(x.dtype)


def _is_infinity(x: jax.Array, mode: IsInfinityMode) -> jax.Array:
    """The page's cases: an infinity of the mode's sign (either, for EITHER)."""
    if mode is IsInfinityMode.POSITIVE:
        return x == np.asarray(np.inf, x.dtype)
    if mode is IsInfinityMode.NEGATIVE:
        return x == np.asarray(-np.inf, x.dtype)
    return jnp.isinf(x)


def _reference_is_infinity(x: np.ndarray, mode: Any) -> np.ndarray:
    mode = IsInfinityMode.coerce(mode, op="reference", field="infinity_mode")
    wide = x.astype(np.float64)
    found = {
        IsInfinityMode.EITHER: np.isinf,
        IsInfinityMode.POSITIVE: lambda v: v == np.inf,
        IsInfinityMode.NEGATIVE: lambda v: v == -np.inf,
    }[mode](wide)
    return found.astype(np.uint8)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _transcendental(
    name: str,
    formula: Callable[[jax.Array], jax.Array],
    reference: Callable[[np.ndarray], np.ndarray],
    *,
    since: FL,
    face: str,
    ulps: int,
    example: tuple[list[float], str],
    cpu: tuple[int, int, int],
    h100: tuple[int, int, int],
    flush_bound: int = 1,
    namesake_module: str = "jnp",
    differs: str = "",
) -> ElementWise:
    """A row of a function of one float tensor that rounds (EXP, SIN, ...): XLA's function,
    as jax.numpy's namesake computes it, held to ``ulps`` of the float64 result. ``cpu``
    and ``h100`` are the largest errors measured, in float32, float16 and bfloat16 ulps."""
    measured = (
        f"on XLA:CPU (jax 0.10.2) float32 {cpu[0]}, float16 {cpu[1]}, bfloat16 {cpu[2]}; on "
        f"an H100 (jax 0.11.2) float32 {h100[0]}, float16 {h100[1]}, bfloat16 {h100[2]}."
    )
    return ElementWise(
        name,
        ElementWiseUnary,
        formula,
        _TRANSCENDENTAL_BANDS[since],
        face=face,
        example=("float32", (example[0],), example[1]),
        page=f"f(x) = {name.lower()}(x)",
        reference=_float64_then_round(reference),
        exact=False,
        ulps=ulps,
        flush_bound=flush_bound,
        namesake_module=namesake_module,
        differs=differs,
        notes=f"XLA's {face}, as {namesake_module}.{face} computes it, within {ulps} ulps of "
        "the float64 result: the largest error measured, plus 1 ulp for the float32 values "
        f"not measured (docs/semantics.md says how), {measured} Outside the domain the "
        "result is NaN, as IEEE's functions give.",
    )


_IDENTITY = ElementWise(
    "IDENTITY",
    ElementWiseUnary,
    lambda x: x,
    (
        fl.band(FL.FL_1_0, (4, 5), _FLOATS),
        fl.band(FL.FL_2_1, (4, 5), fl.TYPES_8_32),
        fl.band(FL.FL_3_0, (1, 8), fl.TYPES_8_32),
        fl.band(FL.FL_4_1, (1, 8), fl.TYPES_8_64),
    ),
    face="identity",
    example=("float32", ([1.5, -2.0, 0.25],), "Array([ 1.5 , -2.  ,  0.25], dtype=float32)"),
    differs="a copy (the desc face's ScaleBias scales it); `jnp.identity` is another function",
    namesake=False,
    page="f(x) = x",
    reference=lambda x: x.copy(),
    linear=True,
)


_TANH = _transcendental(
    "TANH",
    lax.tanh,
    np.tanh,
    since=FL.FL_2_0,
    face="tanh",
    ulps=6,
    example=([0.0, 1.0, -2.5], "Array([ 0.        ,  0.7615942 , -0.98661435], dtype=float32)"),
    cpu=(4, 0, 0),
    h100=(5, 0, 0),
)


def _as_activation(row: ElementWise, page: str) -> ElementWise:
    """The activation that is an element-wise ``row`` without ScaleBias (ACTIVATION_TANH is
    ELEMENT_WISE_TANH): the row's formula, reference and bounds, the activation pages'
    table, served by the row's face."""
    return dataclasses.replace(
        row,
        shape=Activation,
        support=_ACTIVATION_BANDS,
        page=page,
        family="ACTIVATION",
        served_by=row.kind,
        notes=f"{row.kind} without ScaleBias, for FLOAT32 and FLOAT16: its functional face "
        f"is that row's, dml.{row.face}. {row.notes}".rstrip(),
    )


ROWS: tuple[ElementWise, ...] = (
    _IDENTITY,
    ElementWise(
        "ABS",
        ElementWiseUnary,
        lambda x: lax.abs(x),
        (
            fl.band(FL.FL_1_0, (4, 4), _FLOATS),
            fl.band(FL.FL_2_1, (4, 4), _FLOATS | _SIGNED_8_32),
            fl.band(FL.FL_3_0, (1, 8), _FLOATS | _SIGNED_8_32),
            fl.band(FL.FL_4_1, (1, 8), _FLOATS | _SIGNED_8_32 | _SIGNED_64),
        ),
        face="abs",
        example=("int8", ([-3, 0, 7],), "Array([3, 0, 7], dtype=int8)"),
        page="f(x) = abs(x)",
        reference=lambda x: _wrapping(lambda v, _: np.abs(v))(x, x),
        notes="The most negative integer is its own absolute value (two's complement).",
    ),
    ElementWise(
        "CEIL",
        ElementWiseUnary,
        lambda x: lax.ceil(x),
        _ROUNDING_BANDS,
        face="ceil",
        example=(
            "float32",
            ([-1.5, -0.0, 0.25, 2.0],),
            "Array([-1., -0.,  1.,  2.], dtype=float32)",
        ),
        page="f(x) = ceil(x)",
        reference=lambda x: np.ceil(x),
        notes="A value in (-1, 0) gives -0.0, as IEEE's ceil does.",
        not_smooth=_STAIRCASE,
    ),
    ElementWise(
        "FLOOR",
        ElementWiseUnary,
        lambda x: lax.floor(x),
        _ROUNDING_BANDS,
        face="floor",
        example=(
            "float32",
            ([-1.5, -0.0, 0.25, 2.0],),
            "Array([-2., -0.,  0.,  2.], dtype=float32)",
        ),
        page="f(x) = floor(x)",
        reference=lambda x: np.floor(x),
        not_smooth=_STAIRCASE,
    ),
    ElementWise(
        "CLIP",
        ElementWiseClip,
        lambda x, low, high: jnp.minimum(high, jnp.maximum(low, x)),
        (
            fl.band(FL.FL_1_0, (4, 4), _FLOATS),
            fl.band(FL.FL_2_1, (4, 4), _FLOATS | _INTS_8_32),
            fl.band(FL.FL_3_0, (1, 8), _FLOATS | _INTS_8_32),
            fl.band(FL.FL_5_0, (1, 8), _FLOATS | _INTS_8_64),
        ),
        face="clip",
        served_by="ELEMENT_WISE_CLIP1",
        example=("float32", ([-4.0, 0.5, 3.0],), "Array([-2.5,  0.5,  2.5], dtype=float32)"),
        example_statics=(-2.5, 2.5),
        example_attributes="min=-2.5, max=2.5",
        page="f(x) = min(Max, max(Min, x))",
        reference=_reference_clip,
        read=_read_clip_bound,
        check=_check_clip,
        notes="Min and Max are C FLOATs (float32): for integer tensors each is truncated "
        "toward zero and held to the type's range (which clips every integer as comparing "
        "it with the float would; a NaN bound is refused). A NaN input gives NaN, and -0.0 "
        "is below 0.0 (IEEE 754-2019's maximum and minimum). With Min above Max every "
        "value becomes Max. Its functional face is CLIP1's, dml.clip.",
    ),
    ElementWise(
        "THRESHOLD",
        ElementWiseThreshold,
        lambda x, low: jnp.maximum(x, low),
        (
            fl.band(FL.FL_1_0, (4, 4), _FLOATS),
            fl.band(FL.FL_2_1, (4, 4), _TYPES_8_32),
            fl.band(FL.FL_3_0, (1, 8), _TYPES_8_32),
        ),
        face="threshold",
        namesake=False,
        example=("float32", ([-4.0, 0.5, 3.0],), "Array([-1. ,  0.5,  3. ], dtype=float32)"),
        example_statics=(-1.0,),
        example_attributes="min=-1.0",
        page="f(x) = max(x, Min)",
        reference=_reference_clip,
        read=_read_clip_bound,
        check=_check_clip,
        differs="jax has no such function: `jnp.maximum(x, min)` with min read as CLIP's",
        not_smooth="a corner at Min, where finite differences straddle it",
        notes="Min is a C FLOAT (float32), read as CLIP's bounds are: for integer tensors "
        "truncated toward zero and held to the type's range (a NaN Min is refused there). "
        "A NaN input gives NaN, and -0.0 is below 0.0 (IEEE 754-2019's maximum), as CLIP's.",
    ),
    ElementWise(
        "CLIP1",
        ElementWiseClip1,
        lambda x, low, high: jnp.maximum(low, jnp.minimum(x, high)),
        (fl.band(FL.FL_5_0, (1, 8), _FLOATS | _INTS_8_64),),
        face="clip",
        example=("int8", ([-100, 5, 100],), "Array([-10,   5,  10], dtype=int8)"),
        example_statics=(-10, 10),
        example_attributes="min_max_data_type=dml.DataType.INT8, min=-10, max=10",
        page="f(x) = max(Min, min(x, Max))",
        reference=_reference_clip1,
        read=_read_exact,
        check=_check_clip1,
        differs="min and max are held exactly in x's dtype (refused where it cannot hold "
        "them; jnp.clip converts them); with min above max every value becomes min "
        "(jnp.clip gives max)",
        notes="Min and Max are held exactly in the tensor's type (MinMaxDataType must be "
        "the output's). A NaN input gives NaN, and -0.0 is below 0.0 (IEEE 754-2019's "
        "maximum and minimum). With Min above Max every value becomes Min.",
    ),
    ElementWise(
        "CLIP_GRAD",
        ElementWiseClipGrad,
        _clip_grad,
        (
            fl.band(FL.FL_3_1, (1, 8), _TYPES_8_32),
            fl.band(FL.FL_5_0, (1, 8), _TYPES_8_32 | _INTS_64),
        ),
        face="clip_grad",
        served_by="ELEMENT_WISE_CLIP_GRAD1",
        example=(
            "float32",
            ([-4.0, 0.5, 2.5], [1.0, 2.0, 3.0]),
            "Array([0., 2., 0.], dtype=float32)",
        ),
        example_statics=(-2.5, 2.5),
        example_attributes="min=-2.5, max=2.5",
        page="f(x, dy) = 0 if x <= Min or x >= Max else dy",
        reference=_reference_clip_grad(exact=False),
        read=_read_clip_bound,
        check=_check_clip,
        not_smooth=_CLIP_GRAD_STEPS,
        notes="Min and Max are C FLOATs read as CLIP reads them (for integer tensors "
        "truncated toward zero and held to the type's range, a NaN bound refused); x at "
        "a bound as the tensor's type holds it gives 0. " + _CLIP_GRAD_NOTES + " Its "
        "functional face is CLIP_GRAD1's, dml.clip_grad.",
    ),
    ElementWise(
        "CLIP_GRAD1",
        ElementWiseClipGrad1,
        _clip_grad,
        (fl.band(FL.FL_5_0, (1, 8), _TYPES_8_32 | _INTS_64),),
        face="clip_grad",
        namesake=False,
        example=("int8", ([-100, 5, 10], [1, 2, 3]), "Array([0, 2, 0], dtype=int8)"),
        example_statics=(-10, 10),
        example_attributes="min_max_data_type=dml.DataType.INT8, min=-10, max=10",
        page="f(x, dy) = 0 if x <= Min or x >= Max else dy",
        reference=_reference_clip_grad(exact=True),
        read=_read_exact,
        check=_check_clip1,
        not_smooth=_CLIP_GRAD_STEPS,
        differs="no jax function of its own: the pullback of dml.clip for x strictly "
        "between min and max (jax gives half at a tie, DirectML 0)",
        notes="Min and Max are held exactly in the tensor's type (MinMaxDataType must be "
        "the output's). " + _CLIP_GRAD_NOTES,
    ),
    ElementWise(
        "SQRT",
        ElementWiseUnary,
        lambda x: lax.sqrt(x),
        _ROUNDING_BANDS,
        face="sqrt",
        example=(
            "float32",
            ([4.0, 2.0, -0.0],),
            "Array([ 2.       ,  1.4142135, -0.       ], dtype=float32)",
        ),
        page="f(x) = sqrt(x)",
        reference=_float64_then_round(np.sqrt),
        ulps=1,
        notes="IEEE's square root: sqrt(-0.0) is -0.0 and a negative gives NaN. Correctly "
        "rounded on the CPU; within 1 ulp on a GPU, where XLA takes the hardware's "
        "approximate float32 square root, as jnp.sqrt does (measured on an H100, jax "
        "0.11.2: 17 % of 10**6 float32 values in [0, 1000) 1 ulp off, none more).",
    ),
    ElementWise(
        "NEGATE",
        ElementWiseUnaryNoScaleBias,
        lambda x: lax.neg(x),
        (fl.band(FL.FL_5_0, (1, 8), _FLOATS | _SIGNED_8_32 | _SIGNED_64),),
        face="negative",
        example=("float32", ([2.5, -0.0, 4.0],), "Array([-2.5,  0. , -4. ], dtype=float32)"),
        page="f(x) = -x",
        reference=lambda x: _wrapping(lambda v, _: np.negative(v))(x, x),
        linear=True,
        notes="The most negative integer is its own negation (two's complement).",
    ),
    ElementWise(
        "ADD",
        ElementWiseBinary,
        lax.add,
        _ARITHMETIC_BANDS,
        face="add",
        example=(
            "float32",
            ([1.5, 2.0, -1.0], [0.5, 0.5, 1.0]),
            "Array([2. , 2.5, 0. ], dtype=float32)",
        ),
        page="f(a, b) = a + b",
        reference=_float64_then_round(np.add),
        linear=True,
        notes="Integers wrap (two's complement).",
    ),
    ElementWise(
        "ADD1",
        ElementWiseAdd1,
        lax.add,
        (fl.band(FL.FL_2_0, (4, 5), _FLOATS), fl.band(FL.FL_3_0, (1, 8), _FLOATS)),
        face="add",
        served_by="ELEMENT_WISE_ADD",
        example=("float32", ([1.0, 2.0], [0.5, -3.0]), "Array([ 1.5, -1. ], dtype=float32)"),
        page="f(a, b) = a + b, then the fused activation",
        reference=_float64_then_round(np.add),
        linear=True,
        notes="ADD with an optional fused activation (fused_activation, an activation desc "
        "without tensors) applied to the sum, for FLOAT16 and FLOAT32 outputs; its "
        "functional face is ADD's, dml.add, followed by the activation's face.",
    ),
    ElementWise(
        "SUBTRACT",
        ElementWiseBinary,
        lax.sub,
        (
            fl.band(FL.FL_1_0, (4, 4), _FLOATS),
            fl.band(FL.FL_2_1, (4, 4), _FLOATS | _INTS_32),
            fl.band(FL.FL_3_0, (1, 8), _FLOATS | _INTS_32),
            fl.band(FL.FL_4_1, (1, 8), _FLOATS | _INTS_32_64),
            fl.band(FL.FL_5_1, (1, 8), _FLOATS | _INTS_8_64),
        ),
        face="subtract",
        example=("uint8", ([5, 3, 0], [2, 4, 1]), "Array([  3, 255, 255], dtype=uint8)"),
        page="f(a, b) = a - b",
        reference=_float64_then_round(np.subtract),
        linear=True,
        notes="Integers wrap (two's complement).",
    ),
    ElementWise(
        "MULTIPLY",
        ElementWiseBinary,
        lax.mul,
        _ARITHMETIC_BANDS,
        face="multiply",
        example=(
            "int32",
            ([3, -4, 100000], [2, 5, 100000]),
            "Array([         6,        -20, 1410065408], dtype=int32)",
        ),
        page="f(a, b) = a * b",
        reference=_float64_then_round(np.multiply),
        notes="Integers wrap (two's complement).",
    ),
    ElementWise(
        "RELU",
        Activation,
        lambda x: jnp.maximum(x, jnp.zeros((), x.dtype)),
        (*_ACTIVATION_BANDS, fl.band(FL.FL_5_1, (1, 8), _FLOATS | _SIGNED_8_32)),
        face="relu",
        family="ACTIVATION",
        namesake_module="jax.nn",
        example=("float32", ([-2.0, -0.0, 3.5],), "Array([0. , 0. , 3.5], dtype=float32)"),
        page="f(x) = max(0, x)",
        reference=lambda x: _maximum(np.zeros_like(x), x),
        not_smooth="a corner at 0, where finite differences straddle it",
        notes="A NaN gives NaN, and -0.0 gives 0.0 (IEEE 754-2019's maximum).",
    ),
    ElementWise(
        "LEAKY_RELU",
        ActivationAlpha,
        _in_float32(lambda x, alpha: jnp.where(x >= 0, x, alpha * x)),
        _ACTIVATION_BANDS,
        face="leaky_relu",
        family="ACTIVATION",
        namesake_module="jax.nn",
        defaults=(0.01,),
        example=("float32", ([-2.0, 0.0, 3.5],), "Array([-0.02,  0.  ,  3.5 ], dtype=float32)"),
        example_statics=(0.01,),
        example_attributes="alpha=0.01",
        page="f(x) = x if x >= 0 else alpha * x",
        reference=_reference_in_float64(lambda x, alpha: np.where(x >= 0, x, alpha * x)),
        read=_read_float32,
        ulps=1,
        differs="the slope is `alpha` (jax.nn.leaky_relu's `negative_slope`), default 0.01 as both",
        not_smooth="a corner at 0, where finite differences straddle it",
        notes="alpha is a C FLOAT (float32); float16 computes in float32 and rounds once "
        "(1 ulp of the float64 result). -0.0 >= 0, so -0.0 stays -0.0.",
    ),
    ElementWise(
        "ELU",
        ActivationAlpha,
        _in_float32(_elu),
        _ACTIVATION_BANDS,
        face="elu",
        family="ACTIVATION",
        namesake_module="jax.nn",
        defaults=(1.0,),
        example=(
            "float32",
            ([-1.0, 0.0, 2.0],),
            "Array([-0.63212055,  0.        ,  2.        ], dtype=float32)",
        ),
        example_statics=(1.0,),
        example_attributes="alpha=1.0",
        page="f(x) = x if x >= 0 else alpha * (exp(x) - 1)",
        reference=_reference_in_float64(lambda x, alpha: np.where(x >= 0, x, alpha * np.expm1(x))),
        read=_read_float32,
        exact=False,
        ulps=6,
        notes="alpha is a C FLOAT (float32); float16 computes in float32 and rounds once. "
        "exp(x) - 1 is computed as expm1(x), accurate near 0 where the page's difference "
        "cancels. XLA:CPU's float32 expm1 is within 5 ulps of the float64 result (measured "
        "over 3 million inputs in [-90, 0], jax 0.10.2), alpha's product adds half of one: "
        "the tests hold float32 results to 6 ulps, 16-bit ones to 1.",
    ),
    ElementWise(
        "CELU",
        ActivationAlpha,
        _in_float32(_celu),
        (fl.band(FL.FL_3_0, (1, 8), _FLOATS),),
        face="celu",
        family="ACTIVATION",
        namesake_module="jax.nn",
        defaults=(1.0,),
        example=(
            "float32",
            ([-1.0, 0.0, 2.0],),
            "Array([-0.78693867,  0.        ,  2.        ], dtype=float32)",
        ),
        example_statics=(2.0,),
        example_attributes="alpha=2.0",
        page="f(x) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1))",
        reference=_reference_in_float64(
            lambda x, alpha: np.maximum(0, x) + np.minimum(0, alpha * np.expm1(x / alpha))
        ),
        read=_read_divisor_float32,
        exact=False,
        ulps=6,
        notes="alpha is a C FLOAT (float32), refused where it is 0, subnormal, infinite or "
        "NaN (the formula divides by it); float16 computes in float32 and rounds once. "
        "exp(x / alpha) - 1 is computed as expm1, and -0.0 gives 0.0, as the page's sum "
        "does. Within 6 ulps of the float64 result for float32 (expm1's, as ELU's) and 1 "
        "for 16-bit floats.",
    ),
    ElementWise(
        "SCALED_ELU",
        ActivationAlphaGamma,
        _in_float32(_scaled_elu),
        _ACTIVATION_BANDS,
        face="selu",
        family="ACTIVATION",
        namesake_module="jax.nn",
        # jax.nn.selu's constants (the SELU paper's), which the page rounds to 1.6732 and
        # 1.0507 as "typical": dml.selu(x) is jax.nn.selu(x) for float32.
        defaults=(1.6732632423543772, 1.0507009873554805),
        example=(
            "float32",
            ([-1.0, 0.0, 2.0],),
            "Array([-1.9026829,  0.       ,  3.01     ], dtype=float32)",
        ),
        example_statics=(2.0, 1.505),
        example_attributes="alpha=2.0, gamma=1.505",
        page="f(x) = gamma * x if x > 0 else gamma * (alpha * exp(x) - alpha)",
        reference=_reference_in_float64(
            lambda x, alpha, gamma: gamma * np.where(x > 0, x, alpha * np.expm1(x))
        ),
        read=_read_float32,
        exact=False,
        ulps=7,
        # gamma scales alpha * expm1(x), which a backend may flush where it is subnormal.
        flush_bound=_flush_scaled_by(1),
        differs="takes alpha and gamma (jax.nn.selu's are fixed; the face's defaults are "
        "theirs); FLOAT16 computes in float32 and rounds once",
        notes="alpha and gamma are C FLOATs (float32); float16 computes in float32 and "
        "rounds once. alpha * exp(x) - alpha is computed as alpha * expm1(x), as ELU's; "
        "x = 0 and -0.0 take the second branch and give 0.0 and -0.0 (for positive alpha "
        "and gamma). Within 7 ulps of the float64 result for float32 (expm1's 5 and two "
        "products) and 1 for 16-bit floats; where alpha * expm1(x) is subnormal a backend "
        "may flush it, and gamma * x where it is subnormal, and the result is then a zero "
        "(below 2 * max(1, abs(gamma)) smallest normals).",
    ),
    ElementWise(
        "SCALED_TANH",
        ActivationAlphaBeta,
        _in_float32(lambda x, alpha, beta: alpha * lax.tanh(beta * x)),
        _ACTIVATION_BANDS,
        face="scaled_tanh",
        family="ACTIVATION",
        namesake=False,
        defaults=(1.0, 0.5),  # the page's typical values
        example=(
            "float32",
            ([-1.0, 0.0, 2.0],),
            "Array([-0.9640276,  0.       ,  0.9993292], dtype=float32)",
        ),
        example_statics=(1.0, 2.0),
        example_attributes="alpha=1.0, beta=2.0",
        page="f(x) = alpha * tanh(beta * x)",
        reference=_reference_in_float64(lambda x, alpha, beta: alpha * np.tanh(beta * x)),
        read=_read_float32,
        exact=False,
        ulps=8,
        # alpha scales tanh(beta * x), which a backend flushes where beta * x is subnormal.
        flush_bound=_flush_scaled_by(0),
        differs="no jax function; jnp's expression is alpha * jnp.tanh(beta * x)",
        notes="alpha and beta are C FLOATs (float32); float16 computes in float32 and "
        "rounds once. XLA's tanh, as ELEMENT_WISE_TANH's (within 6 ulps), of beta * x "
        "(one rounding, which tanh does not amplify) times alpha: within 8 ulps of the "
        "float64 result for float32, 1 for 16-bit floats; where beta * x is subnormal a "
        "backend may flush it, and the result is then a zero (below 2 * max(1, abs(alpha)) "
        "smallest normals).",
    ),
    ElementWise(
        "LINEAR",
        ActivationAlphaBeta,
        _in_float32(lambda x, alpha, beta: alpha * x + beta),
        _ACTIVATION_BANDS,
        face="linear",
        family="ACTIVATION",
        namesake=False,
        example=("float32", ([-1.0, 0.0, 2.0],), "Array([0.5, 2. , 5. ], dtype=float32)"),
        example_statics=(1.5, 2.0),
        example_attributes="alpha=1.5, beta=2.0",
        page="f(x) = alpha * x + beta",
        reference=_reference_in_float64(lambda x, alpha, beta: alpha * x + beta),
        read=_read_float32,
        exact=False,
        ulps=2,
        magnitude=_linear_magnitude,
        differs="no jax function; jnp's expression is alpha * x + beta",
        notes=_AFFINE_NOTES,
    ),
    ElementWise(
        "HARD_SIGMOID",
        ActivationAlphaBeta,
        _in_float32(_hard_sigmoid),
        _ACTIVATION_BANDS,
        face="hard_sigmoid",
        family="ACTIVATION",
        namesake=False,
        defaults=(0.2, 0.5),  # the page's typical values
        example=(
            "float32",
            ([-4.0, 0.0, 1.0, 4.0],),
            "Array([0. , 0.5, 0.7, 1. ], dtype=float32)",
        ),
        example_statics=(0.2, 0.5),
        example_attributes="alpha=0.2, beta=0.5",
        page="f(x) = max(0, min(alpha * x + beta, 1))",
        reference=_reference_in_float64(
            lambda x, alpha, beta: np.minimum(np.maximum(alpha * x + beta, 0.0), 1.0)
        ),
        read=_read_float32,
        exact=False,
        ulps=2,
        magnitude=_linear_magnitude,
        not_smooth="corners where alpha * x + beta is 0 or 1, where finite differences "
        "straddle them",
        differs="jax.nn.hard_sigmoid is relu6(x + 3) / 6 (alpha 1/6 and beta 0.5, rounded "
        "otherwise); the page's typical alpha is 0.2, the face's default",
        notes=f"{_AFFINE_NOTES} Then clamped to [0, 1] (which adds no error); a NaN gives "
        "NaN, as RELU's, and a zero 0.0.",
    ),
    ElementWise(
        "HARD_SWISH",
        ActivationAlphaBeta,
        _in_float32(lambda x, alpha, beta: x * _hard_sigmoid(x, alpha, beta)),
        (fl.band(FL.FL_6_2, (1, 8), _FLOATS),),
        face="hard_swish",
        family="ACTIVATION",
        namesake=False,
        defaults=(1 / 6, 0.5),  # the page's typical values, 0.166667 (1/6) and 0.5
        example=(
            "float32",
            ([-4.0, -1.0, 0.0, 2.0],),
            "Array([-0.       , -0.3333333,  0.       ,  1.6666667], dtype=float32)",
        ),
        example_statics=(1 / 6, 0.5),
        example_attributes="alpha=1 / 6, beta=0.5",
        page="f(x) = x * max(0, min(alpha * x + beta, 1))",
        reference=_reference_in_float64(
            lambda x, alpha, beta: x * np.minimum(np.maximum(alpha * x + beta, 0.0), 1.0)
        ),
        read=_read_float32,
        exact=False,
        ulps=3,
        magnitude=_hard_swish_magnitude,
        flush_bound=2,  # a product just below the smallest normal, which rounds up to it
        not_smooth="corners where alpha * x + beta is 0 or 1, where finite differences "
        "straddle them",
        differs="jax.nn.hard_swish is x * relu6(x + 3) / 6 (alpha 1/6 and beta 0.5, rounded "
        "otherwise)",
        notes=f"x times HARD_SIGMOID's clamp of alpha * x + beta. {_AFFINE_NOTES} x's "
        "product adds one rounding: within 3 ulps of abs(x) * max(1, abs(alpha * x) + abs(beta)) "
        "for float32. x times a clamp of 0 is a zero of x's sign (-0.0 for x < 0).",
    ),
    ElementWise(
        "SWISH",
        ActivationSwish,
        _in_float32(lambda x, scale: x * lax.logistic(scale * x)),
        (fl.band(FL.FL_6_2, (1, 8), _FLOATS),),
        face="swish",
        family="ACTIVATION",
        namesake_module="jax.nn",
        defaults=(1.0,),  # the page's typical value: dml.swish(x) is jax.nn.swish(x)
        example=(
            "float32",
            ([-1.0, 0.0, 2.0],),
            "Array([-0.26894143,  0.        ,  1.761594  ], dtype=float32)",
        ),
        example_statics=(1.0,),
        example_attributes="sigmoid_input_scale=1.0",
        page="f(x) = x * sigmoid(sigmoid_input_scale * x)",
        reference=_reference_in_float64(_swish_reference),
        read=_read_float32,
        exact=False,
        ulps=6,
        magnitude=_conditioned(_swish_reference, scale=0),
        flush_bound=_swish_flush_bound,
        differs="takes sigmoid_input_scale (jax.nn.swish's is 1, the face's default); "
        "FLOAT16 computes in float32 and rounds once",
        notes="sigmoid_input_scale is a C FLOAT (float32); float16 computes in float32 and "
        "rounds once. XLA's logistic function, as jax.nn.swish's (float32 dml.swish(x) is "
        "jax.nn.swish(x) bit for bit), of scale * x, whose rounding sigmoid's condition "
        "number (up to abs(scale * x)) multiplies: within 6 ulps of "
        "abs(f(x)) * (1 + abs(scale * x)) for float32 (measured: 2.2 on the 2-core CPU, "
        "2.6 on an H100). Where "
        "sigmoid(scale * x) is subnormal a backend may flush it and give 0 (results below "
        "256 / abs(scale) smallest normals).",
    ),
    ElementWise(
        "SOFTPLUS",
        ActivationSoftplus,
        _in_float32(_softplus),
        _ACTIVATION_BANDS,
        face="softplus",
        family="ACTIVATION",
        namesake_module="jax.nn",
        defaults=(1.0,),  # the page's typical value: dml.softplus(x) is jax.nn.softplus(x)
        example=(
            "float32",
            ([-1.0, 0.0, 2.0],),
            "Array([0.3132617, 0.6931472, 2.126928 ], dtype=float32)",
        ),
        example_statics=(1.0,),
        example_attributes="steepness=1.0",
        page="f(x) = ln(1 + exp(steepness * x)) / steepness",
        reference=_reference_in_float64(_softplus_reference),
        read=_read_steepness,
        exact=False,
        ulps=4,
        magnitude=_conditioned(_softplus_reference, scale=0),
        flush_bound=2,  # exp(steepness * x) subnormal: the result is below it
        differs="takes steepness (jax.nn.softplus's is 1, the face's default); FLOAT16 "
        "computes in float32 and rounds once",
        notes="steepness is a C FLOAT (float32) of at least 1 (the page's rule; less, or "
        "NaN, is refused). max(x, 0) + ln(1 + exp(-abs(y))) / steepness, y = steepness * x: "
        "jnp.logaddexp(y, 0)'s operations, as jax.nn.softplus computes it (float32 "
        "dml.softplus(x) is jax.nn.softplus(x) bit for bit), with max(x, 0) taken before the "
        "division so that a large x does not overflow y. softplus's condition number (up to "
        f"abs(y)) multiplies y's rounding: {_SOFTPLUS_BOUND}",
    ),
    ElementWise(
        "PARAMETRIC_SOFTPLUS",
        ActivationAlphaBeta,
        _in_float32(lambda x, alpha, beta: alpha * jnp.logaddexp(beta * x, 0)),
        _ACTIVATION_BANDS,
        face="parametric_softplus",
        family="ACTIVATION",
        namesake=False,
        example=(
            "float32",
            ([-1.0, 0.0, 2.0],),
            "Array([0.6265234, 1.3862944, 4.253856 ], dtype=float32)",
        ),
        example_statics=(2.0, 1.0),
        example_attributes="alpha=2.0, beta=1.0",
        page="f(x) = alpha * ln(1 + exp(beta * x))",
        reference=_reference_in_float64(_reference_parametric_softplus),
        read=_read_float32,
        exact=False,
        ulps=4,
        magnitude=_conditioned(_reference_parametric_softplus, scale=1),
        # alpha scales ln(1 + exp(y)), which is subnormal where exp(y) is.
        flush_bound=_flush_scaled_by(0),
        differs="no jax function; jnp's expression is alpha * jax.nn.softplus(beta * x)",
        notes="alpha and beta are C FLOATs (float32); float16 computes in float32 and rounds "
        "once. alpha * jnp.logaddexp(beta * x, 0), SOFTPLUS's function of y = beta * x: "
        f"{_SOFTPLUS_BOUND} Where exp(y) is subnormal the result may be a zero (below "
        "2 * max(1, abs(alpha)) smallest normals); where beta * x overflows float32, the "
        "result is alpha * softplus(+-inf) (inf, or a zero), even where alpha * beta * x is "
        "finite.",
    ),
    ElementWise(
        "GELU",
        Activation,
        _in_float32(_gelu),
        (fl.band(FL.FL_5_1, (1, 8), _FLOATS),),
        face="gelu",
        family="ACTIVATION",
        namesake_module="jax.nn",
        namesake=False,
        example=(
            "float32",
            ([-1.0, 0.0, 2.0],),
            "Array([-0.15865527,  0.        ,  1.9544997 ], dtype=float32)",
        ),
        page="f(x) = 0.5 * x * (1 + erf(x / sqrt(2)))",
        reference=_reference_in_float64(_reference_gelu),
        exact=False,
        ulps=5,
        magnitude=_gelu_magnitude,
        flush_bound=16,  # erfc(-x / sqrt(2)) subnormal: 0.5 * x times it, |x| < 15
        differs="the exact GELU, jax.nn.gelu(x, approximate=False) bit for bit (float32); "
        "jax.nn.gelu's default is the tanh approximation",
        notes="0.5 * x * erfc(-x / sqrt(2)), as jax.nn.gelu(x, approximate=False) computes it "
        "(1 + erf(z) cancels where z is very negative; erfc does not), float16 in float32 "
        "rounded once. erfc's condition number (about x * x for negative x) multiplies the "
        "rounding of -x / sqrt(2): within 5 ulps of abs(f(x)) * (1 + min(x, 0)**2) for "
        "float32 (measured: 3.0 on the 2-core CPU, 3.7 on an H100), 1 ulp for 16-bit "
        "floats. Where erfc's "
        "value is subnormal a backend may flush it (results below 16 smallest normals). "
        "gelu(-inf) is NaN (-inf times erfc(inf) = 0), as jax.nn.gelu's.",
    ),
    ElementWise(
        "SHRINK",
        ActivationShrink,
        _in_float32(_shrink),
        (
            fl.band(FL.FL_2_0, (4, 5), _FLOATS),
            fl.band(FL.FL_3_0, (1, 8), _FLOATS),
            fl.band(FL.FL_5_1, (1, 8), _TYPES_8_32),
        ),
        face="shrink",
        family="ACTIVATION",
        namesake=False,
        defaults=(0.0, 0.5),
        example=(
            "float32",
            ([-2.0, 0.25, 1.5],),
            "Array([-1.5,  0. ,  1. ], dtype=float32)",
        ),
        example_statics=(0.5, 1.0),
        example_attributes="bias=0.5, threshold=1.0",
        page="f(x) = x - Bias if x > Threshold, x + Bias if x < -Threshold, else 0",
        reference=_reference_shrink,
        read=_read_shrink,
        exact=False,
        ulps=1,
        not_smooth="jumps of Bias at +-Threshold, where finite differences straddle them",
        differs="jax has no such function (ONNX's Shrink, with lambd named threshold)",
        notes="Bias and Threshold are C FLOATs; the page's typical values, 0.0 and 0.5, are "
        "the face's defaults. Floats: one subtraction or addition (float32 exact; float16 "
        "computes in float32 and rounds again, within 1 ulp); NaN and +-Threshold itself "
        "give 0.0. Integers (FL 5_1): the page gives no rule for its FLOAT attributes; "
        "dmljax works with them as real numbers, as ONNX's Shrink does (onnxruntime's "
        "results, tested): x is compared with Threshold exactly, and x - Bias and x + Bias "
        "are truncated toward zero and held to the type's range, as CAST converts; a NaN "
        "Bias or Threshold is refused there.",
    ),
    ElementWise(
        "PARAMETERIZED_RELU",
        ActivationParameterizedRelu,
        lambda x, slope: jnp.where(x >= 0, x, slope * x),
        (*_ACTIVATION_BANDS, fl.band(FL.FL_5_1, (1, 8), _FLOATS | _SIGNED_8_32)),
        face="prelu",
        family="ACTIVATION",
        namesake=False,
        example=(
            "float32",
            ([-2.0, -0.0, 3.0], [0.25, 0.5, 0.5]),
            "Array([-0.5, -0. ,  3. ], dtype=float32)",
        ),
        page="f(x, slope) = x if x >= 0 else slope * x",
        reference=_reference_prelu,
        not_smooth="a corner at 0, where finite differences straddle it",
        differs="no jax function; jnp's expression is jnp.where(x >= 0, x, slope * x)",
        notes="One product where x < 0, so exact as IEEE's multiplication is; integers wrap "
        "(two's complement, from FL 5_1). x >= 0 keeps x, -0.0 included; a NaN gives NaN.",
    ),
    ElementWise(
        "RELU_GRAD",
        ActivationReluGrad,
        lambda x, gradient: jnp.where(x > 0, gradient, jnp.zeros((), x.dtype)),
        (
            fl.band(FL.FL_3_0, (1, 8), _FLOATS),
            fl.band(FL.FL_5_1, (1, 8), _FLOATS | _SIGNED_8_32),
        ),
        face="relu_grad",
        family="ACTIVATION",
        namesake=False,
        example=(
            "float32",
            ([-1.0, 0.0, 2.0], [5.0, 6.0, -7.0]),
            "Array([ 0.,  0., -7.], dtype=float32)",
        ),
        page="f(x, dy) = dy if x > 0 else 0",
        reference=_reference_relu_grad,
        linear=False,
        not_smooth="a step at x = 0, where finite differences straddle it",
        differs="no jax function of its own: the pullback that jax.vjp(jax.nn.relu, x) "
        "returns gives the same values for dy (tested)",
        notes="The incoming gradient where the forward pass's x is above 0, and +0.0 "
        "elsewhere (x = 0, -0.0 and NaN included): a move, exact in every type.",
    ),
    ElementWise(
        "THRESHOLDED_RELU",
        ActivationAlpha,
        _in_float32(lambda x, alpha: jnp.where(x > alpha, x, jnp.zeros((), x.dtype))),
        _ACTIVATION_BANDS,
        face="thresholded_relu",
        family="ACTIVATION",
        namesake_module="jax.nn",
        namesake=False,
        defaults=(1.0,),
        example=("float32", ([0.5, 1.0, 2.5],), "Array([0. , 0. , 2.5], dtype=float32)"),
        example_statics=(1.0,),
        example_attributes="alpha=1.0",
        page="f(x) = x if x > alpha else 0",
        reference=_reference_in_float64(lambda x, alpha: np.where(x > alpha, x, 0.0)),
        read=_read_float32,
        differs="jax.nn has no such function: `jnp.where(x > alpha, x, 0)`",
        not_smooth="a step at alpha, where finite differences straddle it",
        notes="alpha is a C FLOAT (float32), the threshold (typically 1.0, the face's "
        "default); FLOAT16 compares in float32, exactly. x itself above alpha, +0.0 "
        "elsewhere, NaN included (NaN > alpha is false).",
    ),
    ElementWise(
        "SIGMOID",
        Activation,
        _in_float32(lax.logistic),
        _ACTIVATION_BANDS,
        face="sigmoid",
        family="ACTIVATION",
        namesake_module="jax.nn",
        example=(
            "float32",
            ([-2.0, 0.0, 3.0],),
            "Array([0.11920292, 0.5       , 0.95257413], dtype=float32)",
        ),
        page="f(x) = 1 / (1 + exp(-x))",
        reference=_reference_in_float64(lambda x: 1 / (1 + np.exp(-x))),
        exact=False,
        ulps=5,
        differs="FLOAT16 computes in float32 and rounds once (jax.nn.sigmoid's float16 "
        "gives 0.0 below -11.09, where exp(-x) overflows float16)",
        notes="XLA's logistic function, as jax.nn.sigmoid computes it; float16 computes in "
        "float32 and rounds once. Within 5 ulps of the float64 result: the largest errors "
        "measured (4 million float32 values, every 16-bit one) are float32 2, float16 1, "
        "bfloat16 0 on XLA:CPU (jax 0.10.2) and float32 4, float16 1, bfloat16 0 on an "
        "H100 (jax 0.11.2), plus 1 ulp for the float32 values not measured.",
    ),
    ElementWise(
        "SOFTSIGN",
        Activation,
        jax.nn.soft_sign,
        _ACTIVATION_BANDS,
        face="soft_sign",
        family="ACTIVATION",
        namesake_module="jax.nn",
        example=("float32", ([-3.0, 0.0, 1.0],), "Array([-0.75,  0.  ,  0.5 ], dtype=float32)"),
        page="f(x) = x / (1 + abs(x))",
        reference=_reference_in_float64(lambda x: x / (1 + np.abs(x))),
        exact=False,
        ulps=4,
        notes="jax.nn.soft_sign's x / (abs(x) + 1), -0.0 kept: within 4 ulps of the float64 "
        "result. The largest errors measured (4 million float32 values, every 16-bit one) "
        "are 1 ulp in float32, float16 and bfloat16 on XLA:CPU (jax 0.10.2), and float32 "
        "3 (XLA:GPU's division), float16 1, bfloat16 1 on an H100 (jax 0.11.2), plus 1 "
        "ulp for the float32 values not measured.",
    ),
    ElementWise(
        "DIVIDE",
        ElementWiseBinary,
        _divide,
        (
            fl.band(FL.FL_1_0, (4, 4), _FLOATS),
            fl.band(FL.FL_2_1, (4, 4), _FLOATS | _INTS_32),
            fl.band(FL.FL_3_0, (1, 8), _FLOATS | _INTS_32),
            fl.band(FL.FL_5_1, (1, 8), _FLOATS | _INTS_8_32),
            fl.band(FL.FL_6_0, (1, 8), _FLOATS | _INTS_8_64),
        ),
        face="divide",
        example=("int32", ([7, -7, 5], [2, 2, 0]), "Array([ 3, -3, -1], dtype=int32)"),
        page="f(a, b) = a / b",
        reference=_reference_divide,
        differs="integers give integers, truncated toward zero (jnp's `/` gives floats, `//` "
        "floors); an integer divided by 0 has every bit set",
        ulps=1,
        notes="Float quotients are IEEE's, a divisor broadcast from one value included (where "
        "jnp.divide multiplies by its reciprocal: -0.0 / 1.5e-5 in float16 is NaN on the "
        "CPU), but for 1 ulp on a GPU, where XLA still multiplies by such a divisor's "
        "reciprocal (Direct3D allows 2.5 ulps). "
        "Integer quotients truncate toward zero (the page); a / 0 has every bit set "
        "(-1, or the unsigned maximum) and MIN / -1 wraps to MIN (dmljax's definition: the "
        "page is silent, and XLA leaves both to the backend).",
    ),
    ElementWise(
        "SIGN",
        ElementWiseUnaryNoScaleBias,
        _sign,
        (
            fl.band(FL.FL_2_0, (4, 4), _FLOATS),
            fl.band(FL.FL_2_1, (4, 4), _TYPES_8_32),
            fl.band(FL.FL_3_0, (1, 8), _TYPES_8_32),
            fl.band(FL.FL_4_1, (1, 8), _TYPES_8_32 | _INTS_64),
        ),
        face="sign",
        example=("float32", ([-2.5, -0.0, 3.0],), "Array([-1.,  0.,  1.], dtype=float32)"),
        page="f(x) = -1 if x < 0, 1 if x > 0, else 0",
        reference=_reference_sign,
        differs="a NaN gives 0 and -0.0 gives 0.0, as the page's cases say (jnp.sign keeps both)",
        not_smooth="a step at 0, where finite differences straddle it",
        notes="The page's three cases: -1 below 0, 1 above, and 0 otherwise, which takes in "
        "-0.0 (the page says so) and NaN (neither below nor above 0).",
    ),
    ElementWise(
        "MAX",
        ElementWiseBinary,
        _number_of(lax.max),
        _MIN_MAX_BANDS,
        face="maximum",
        example=(
            "float32",
            ([1.0, -0.0, 3.0], [2.0, 0.0, -1.0]),
            "Array([2., 0., 3.], dtype=float32)",
        ),
        page="f(a, b) = max(a, b)",
        reference=_maximum_number,
        differs="a NaN operand is ignored, as `jnp.fmax` ignores it (NaN only where both "
        "are); of two zeros, 0.0",
        not_smooth="a corner where a == b, where finite differences straddle it",
        notes="HLSL's max, which DirectML's shaders run: a NaN operand gives the other "
        "operand (IEEE 754-2019's maximumNumber), NaN only where both are; dmljax orders "
        "-0.0 below 0.0, where HLSL may return either.",
    ),
    ElementWise(
        "MIN",
        ElementWiseBinary,
        _number_of(lax.min),
        _MIN_MAX_BANDS,
        face="minimum",
        example=("int8", ([-128, 5, 7], [3, -2, 7]), "Array([-128,   -2,    7], dtype=int8)"),
        page="f(a, b) = min(a, b)",
        reference=_minimum_number,
        differs="a NaN operand is ignored, as `jnp.fmin` ignores it (NaN only where both "
        "are); of two zeros, -0.0",
        not_smooth="a corner where a == b, where finite differences straddle it",
        notes="HLSL's min, which DirectML's shaders run: a NaN operand gives the other "
        "operand (IEEE 754-2019's minimumNumber), NaN only where both are; dmljax orders "
        "-0.0 below 0.0, where HLSL may return either.",
    ),
    ElementWise(
        "MEAN",
        ElementWiseBinary,
        _mean,
        (
            fl.band(FL.FL_1_0, (4, 4), _FLOATS),
            fl.band(FL.FL_2_1, (4, 4), _FLOATS | _INTS_32),
            fl.band(FL.FL_3_0, (1, 8), _FLOATS | _INTS_32),
        ),
        face="mean",
        namesake=False,
        example=(
            "int32",
            (
                [7, -7, 2147483647],
                [2, 2, 2147483647],
            ),
            "Array([         4,         -2, 2147483647], dtype=int32)",
        ),
        page="f(a, b) = (a + b) / 2",
        reference=_reference_mean,
        linear=True,
        differs="`jnp.mean` reduces one array; this is the mean of two, element by element",
        notes="Float sums are rounded and then halved: float32 sums beyond its range are "
        "infinite (the page's formula), FLOAT16 ones are exact in float32 and the mean "
        "rounds once. Integer means are exact, truncated toward zero as DIVIDE truncates "
        "(dmljax's definition, without the sum's overflow: the page is silent).",
    ),
    ElementWise(
        "DIFFERENCE_SQUARE",
        ElementWiseBinary,
        _difference_square,
        (fl.band(FL.FL_3_1, (1, 8), _FLOATS | _INTS_32),),
        face="difference_square",
        namesake=False,
        example=(
            "float32",
            ([3.0, -1.5, 0.5], [1.0, 1.5, 0.25]),
            "Array([4.    , 9.    , 0.0625], dtype=float32)",
        ),
        page="f(a, b) = (a - b) * (a - b)",
        reference=_reference_difference_square,
        notes="Float differences are rounded and then squared (FLOAT16 ones in float32, "
        "where both are exact, rounded once); integers wrap (two's complement).",
    ),
    ElementWise(
        "RECIP",
        ElementWiseUnary,
        lambda x: lax.div(np.asarray(1, x.dtype), x),
        _ROUNDING_BANDS,
        face="reciprocal",
        example=(
            "float32",
            ([2.0, -0.0, 3.0],),
            "Array([0.5       ,       -inf, 0.33333334], dtype=float32)",
        ),
        page="f(x) = 1 / x",
        reference=_float64_then_round(lambda x: 1.0 / x),
        ulps=1,
        notes="IEEE's division: 1 / 0.0 is inf and 1 / -0.0 is -inf. Correctly rounded on "
        "the CPU; within 1 ulp on a GPU, where XLA divides as DIVIDE's note says.",
    ),
    _transcendental(
        "EXP",
        lax.exp,
        np.exp,
        since=FL.FL_1_0,
        face="exp",
        ulps=6,
        example=([0.0, 1.0, -2.5], "Array([1.       , 2.7182817, 0.082085 ], dtype=float32)"),
        cpu=(5, 1, 0),
        h100=(2, 1, 1),
    ),
    _transcendental(
        "LOG",
        _log,
        np.log,
        since=FL.FL_1_0,
        face="log",
        ulps=2,
        example=([1.0, 2.0, 0.5], "Array([ 0.       ,  0.6931472, -0.6931472], dtype=float32)"),
        cpu=(1, 1, 0),
        h100=(1, 1, 0),
        differs="a float32 or bfloat16 subnormal x is read as a zero of its sign, its log "
        "-inf (XLA:CPU's jnp.log gives log(2**-150) for one in a loop's scalar tail)",
    ),
    _transcendental(
        "SIN",
        lax.sin,
        np.sin,
        since=FL.FL_1_0,
        face="sin",
        ulps=2,
        example=([0.0, 1.0, -2.5], "Array([ 0.        ,  0.84147096, -0.5984721 ], dtype=float32)"),
        cpu=(1, 1, 0),
        h100=(1, 1, 0),
    ),
    _transcendental(
        "COS",
        lax.cos,
        np.cos,
        since=FL.FL_1_0,
        face="cos",
        ulps=2,
        example=([0.0, 1.0, -2.5], "Array([ 1.       ,  0.5403023, -0.8011436], dtype=float32)"),
        cpu=(1, 1, 0),
        h100=(1, 1, 0),
    ),
    _transcendental(
        "TAN",
        lax.tan,
        np.tan,
        since=FL.FL_1_0,
        face="tan",
        ulps=4,
        example=([0.0, 1.0, -0.5], "Array([ 0.       ,  1.5574077, -0.5463025], dtype=float32)"),
        cpu=(1, 1, 0),
        h100=(3, 1, 0),
    ),
    _transcendental(
        "ASIN",
        lax.asin,
        np.arcsin,
        since=FL.FL_1_0,
        face="asin",
        ulps=3,
        example=([0.0, 0.5, -1.0], "Array([ 0.       ,  0.5235988, -1.5707964], dtype=float32)"),
        cpu=(2, 1, 1),
        h100=(1, 1, 0),
        flush_bound=2,
    ),
    _transcendental(
        "ACOS",
        lax.acos,
        np.arccos,
        since=FL.FL_1_0,
        face="acos",
        ulps=3,
        example=([1.0, 0.5, -0.25], "Array([0.       , 1.0471976, 1.8234766], dtype=float32)"),
        cpu=(2, 1, 1),
        h100=(1, 1, 0),
    ),
    _transcendental(
        "ATAN",
        lax.atan,
        np.arctan,
        since=FL.FL_1_0,
        face="atan",
        ulps=2,
        example=([0.0, 1.0, -10.0], "Array([ 0.       ,  0.7853981, -1.4711277], dtype=float32)"),
        cpu=(1, 1, 0),
        h100=(1, 1, 0),
    ),
    _transcendental(
        "SINH",
        lax.sinh,
        np.sinh,
        since=FL.FL_2_0,
        face="sinh",
        ulps=25,
        example=([0.0, 1.0, -2.5], "Array([ 0.       ,  1.1752012, -6.0502048], dtype=float32)"),
        cpu=(24, 1, 0),
        h100=(3, 0, 0),
    ),
    _transcendental(
        "COSH",
        lax.cosh,
        np.cosh,
        since=FL.FL_2_0,
        face="cosh",
        ulps=25,
        example=([0.0, 1.0, -2.5], "Array([1.       , 1.5430806, 6.1322894], dtype=float32)"),
        cpu=(24, 1, 0),
        h100=(2, 1, 0),
    ),
    _TANH,
    _transcendental(
        "ASINH",
        lax.asinh,
        np.arcsinh,
        since=FL.FL_2_0,
        face="asinh",
        ulps=4,
        example=([0.0, 1.0, -2.5], "Array([ 0.        ,  0.88137364, -1.6472311 ], dtype=float32)"),
        cpu=(3, 1, 1),
        h100=(2, 1, 0),
    ),
    _transcendental(
        "ACOSH",
        lax.acosh,
        np.arccosh,
        since=FL.FL_2_0,
        face="acosh",
        ulps=5,
        example=([1.0, 2.0, 10.0], "Array([0.      , 1.316958, 2.993223], dtype=float32)"),
        cpu=(4, 2, 2),
        h100=(2, 1, 0),
    ),
    _transcendental(
        "ATANH",
        lax.atanh,
        np.arctanh,
        since=FL.FL_2_0,
        face="atanh",
        ulps=4,
        example=(
            [0.0, 0.5, -0.25],
            "Array([ 0.        ,  0.54930615, -0.25541282], dtype=float32)",
        ),
        cpu=(3, 1, 1),
        h100=(3, 0, 0),
    ),
    _transcendental(
        "ERF",
        lax.erf,
        _erf,
        since=FL.FL_2_0,
        face="erf",
        ulps=6,
        example=([0.0, 1.0, -2.5], "Array([ 0.        ,  0.84270084, -0.999593  ], dtype=float32)"),
        cpu=(5, 1, 0),
        h100=(5, 0, 0),
        namesake_module="jax.scipy.special",
    ),
    ElementWise(
        "ATAN_YX",
        ElementWiseBinary,
        _atan2,
        (fl.band(FL.FL_3_1, (1, 8), _FLOATS),),
        face="atan2",
        example=(
            "float32",
            ([1.0, -0.0, 2.0], [0.0, -1.0, 2.0]),
            "Array([ 1.5707964, -3.1415927,  0.7853982], dtype=float32)",
        ),
        page="f(y, x) = atan2(y, x)",
        reference=_float64_then_round(np.arctan2),
        exact=False,
        ulps=_ATAN2_ULPS,
        differs="where a and b are both subnormal, the angle (XLA:CPU's float32 jnp.atan2 "
        "gives NaN there)",
        notes="a is the Y-axis value, b the X-axis one. XLA's atan2, as jnp.atan2 computes "
        f"it, within {_ATAN2_ULPS} ulps of the float64 result (measured as the functions of "
        "one tensor are, over pairs: on XLA:CPU, jax 0.10.2, float32 1, float16 1, bfloat16 "
        "0; on an H100, jax 0.11.2, float32 2, float16 1, bfloat16 0). The page leaves the "
        "origin undefined; dmljax gives IEEE's atan2 there, as everywhere: +-0 or +-pi by "
        "the zeros' signs (atan2(0.0, -0.0) is pi).",
    ),
    ElementWise(
        "CONSTANT_POW",
        ElementWiseConstantPow,
        _in_float32(_power),
        (fl.band(FL.FL_1_0, (4, 4), _FLOATS), fl.band(FL.FL_3_0, (1, 8), _FLOATS)),
        face="constant_pow",
        namesake=False,
        example=(
            "float32",
            ([4.0, 2.0, -3.0],),
            "Array([2.       , 1.4142135,       nan], dtype=float32)",
        ),
        example_statics=(0.5,),
        example_attributes="exponent=0.5",
        page="f(x) = pow(x, Exponent)",
        reference=_reference_in_float64(_ieee_power),
        read=_read_float32,
        exact=False,
        ulps=_POW_ULPS,
        differs="jnp.pow(x, exponent) with the exponent a static float32 (a C FLOAT); a "
        "subnormal x is read as a zero (XLA:CPU's jnp.pow gives neither its power nor "
        "zero's)",
        notes=_POW_NOTES,
    ),
    ElementWise(
        "POW",
        ElementWisePow,
        _pow,
        (
            fl.band(FL.FL_1_0, (4, 4), _FLOATS, exponent_tensor=_FLOATS),
            fl.band(FL.FL_3_0, (1, 8), _TYPES_8_32, exponent_tensor=_TYPES_8_32),
        ),
        face="pow",
        example=(
            "float32",
            ([2.0, -2.0, 4.0], [3.0, 3.0, -0.5]),
            "Array([ 8. , -8. ,  0.5], dtype=float32)",
        ),
        page="f(input, exponent) = pow(input, exponent)",
        reference=_reference_pow,
        check=_check_pow,
        exact=False,
        ulps=_POW_ULPS,
        differs="exponent keeps a dtype of its own from FL 3_0 (jnp.pow promotes the two): "
        "the result has x's; integer powers are exact and wrap, and a negative integer "
        "exponent truncates as DIVIDE does; a subnormal float x is read as a zero, as "
        "dml.constant_pow reads it",
        notes="Floats: " + _POW_NOTES + " An exponent of an integer type is read as a "
        "float, its parity giving the sign (exact where a float32 cannot hold it). Integer "
        "bases (FL 3_0, exact, as the page says): the power wraps to the type (two's "
        "complement, as MULTIPLY wraps); x ** -n is 1 / x ** n truncated toward zero (1, "
        "+-1 or 0), and 0 ** -n has every bit set, as DIVIDE's 1 / 0; with a float "
        "exponent, pow in float32 converted as CAST converts (truncated toward zero, held "
        "to the type's range, NaN to 0). The ScaleBias applies to the input, not to the "
        "exponent. Until FL 3_0 the exponent has the input's type.",
    ),
    ElementWise(
        "IF",
        ElementWiseIf,
        _where,
        (
            fl.band(FL.FL_2_0, (4, 4), frozenset({_T.FLOAT16}), condition_tensor=_UINT8),
            fl.band(FL.FL_3_0, (1, 8), _TYPES_8_32, condition_tensor=_UINT8),
            fl.band(FL.FL_5_0, (1, 8), fl.TYPES_8_64, condition_tensor=_UINT8),
        ),
        face="where",
        example=(
            "float32",
            ([1, 0, 2], [1.0, 2.0, 3.0], [9.0, 8.0, 7.0]),
            "Array([1., 8., 3.], dtype=float32)",
        ),
        page="f(cond, a, b) = a if cond != 0 else b",
        reference=lambda condition, a, b: np.where(condition != 0, a, b),
        linear=True,
        differs="condition is uint8 (DirectML's) or bool; a and b share one dtype",
        notes="Every nonzero condition selects a, as C's and jnp.where's truth; a and b "
        "are read as they are, so a NaN or -0.0 passes unchanged.",
    ),
    _comparison_row("EQUALS", lax.eq, np.equal, "equal", "==", _COMPARISON_BANDS),
    _comparison_row("GREATER_THAN", lax.gt, np.greater, "greater", ">", _COMPARISON_BANDS),
    _comparison_row("LESS_THAN", lax.lt, np.less, "less", "<", _COMPARISON_BANDS),
    _comparison_row(
        "GREATER_THAN_OR_EQUAL",
        lax.ge,
        np.greater_equal,
        "greater_equal",
        ">=",
        _COMPARISON_BANDS[3:],
    ),
    _comparison_row(
        "LESS_THAN_OR_EQUAL", lax.le, np.less_equal, "less_equal", "<=", _COMPARISON_BANDS[3:]
    ),
    ElementWise(
        "IS_NAN",
        ElementWiseUnaryNoScaleBias,
        lambda x: lax.ne(x, x),
        (
            fl.band(FL.FL_2_0, (4, 4), _FLOATS, output_tensor=_TRUTHS),
            fl.band(FL.FL_3_0, (1, 8), _FLOATS, output_tensor=_TRUTHS),
        ),
        face="isnan",
        example=(
            "float32",
            ([1.0, math.nan, math.inf, -0.0],),
            "Array([0, 1, 0, 0], dtype=uint8)",
        ),
        page="f(x) = isnan(x)",
        reference=_test_reference(np.isnan),
        differs="1 or 0 as uint8, where jnp's gives bool (DirectML has no boolean type)",
        not_smooth=_A_TEST,
        notes="1 where x is a NaN of either sign and any payload, 0 elsewhere, in the "
        "output's type (UINT32 or UINT8); the face gives uint8.",
    ),
    _modulus_row(
        "MODULUS_TRUNCATE",
        floor=False,
        face="fmod",
        example=(
            [7.0, -7.0, 5.5, -0.0],
            [3.0, 3.0, -2.0, 3.0],
            "Array([ 1. , -1. ,  1.5, -0. ], dtype=float32)",
        ),
        differs="an integer modulus by 0 is a (jnp.fmod's is the backend's)",
        sign="the dividend's",
    ),
    _modulus_row(
        "MODULUS_FLOOR",
        floor=True,
        face="remainder",
        example=(
            [7.0, -7.0, 5.5, 3.0],
            [3.0, 3.0, -2.0, -3.0],
            "Array([ 1. ,  2. , -0.5, -0. ], dtype=float32)",
        ),
        differs="a zero remainder takes b's sign, as Python's % (jnp.remainder keeps a's); an "
        "integer modulus by 0 is a (jnp.remainder's is 0)",
        sign="the divisor's",
    ),
    ElementWise(
        "ROUND",
        ElementWiseRound,
        _round,
        _ROUND_BANDS,
        face="round",
        defaults=("halves_to_nearest_even",),
        example=(
            "float32",
            ([2.5, -0.4, -1.5, 3.7],),
            "Array([ 2., -0., -2.,  4.], dtype=float32)",
        ),
        example_statics=("halves_to_nearest_even",),
        example_attributes="rounding_mode=dml.RoundingMode.HALVES_TO_NEAREST_EVEN",
        page="f(x) = round(x), as RoundingMode says",
        reference=_reference_round,
        read=_read_enum,
        differs="the second argument is DirectML's rounding mode (a dml.RoundingMode or its "
        "lower-case name), not jnp.round's decimals; the default rounds as jnp.round does",
        not_smooth=_STAIRCASE,
        notes="HALVES_TO_NEAREST_EVEN rounds a half to the even neighbour (2.5 gives 2), "
        "TOWARD_ZERO truncates, TOWARD_INFINITY rounds a half away from zero (2.5 gives 3, "
        "-2.5 gives -3). A zero result keeps the sign of x (-0.4 gives -0.0), as IEEE's "
        "roundings do; NaN and infinities stay as they are.",
    ),
    ElementWise(
        "IS_INFINITY",
        ElementWiseIsInfinity,
        _is_infinity,
        (
            fl.band(FL.FL_2_1, (4, 4), _FLOATS, output_tensor=frozenset({_T.UINT8})),
            fl.band(FL.FL_3_0, (1, 8), _FLOATS, output_tensor=frozenset({_T.UINT8})),
        ),
        face="isinf",
        defaults=("either",),
        example=(
            "float32",
            ([math.inf, -math.inf, 1.0, math.nan],),
            "Array([1, 1, 0, 0], dtype=uint8)",
        ),
        example_statics=("either",),
        example_attributes="infinity_mode=dml.IsInfinityMode.EITHER",
        page="f(x) = isinf(x), of the sign InfinityMode says",
        reference=_reference_is_infinity,
        read=_read_enum,
        differs="1 or 0 as uint8, where jnp's gives bool; infinity_mode='positive' or "
        "'negative' is jnp.isposinf's or jnp.isneginf's test",
        not_smooth=_A_TEST,
        notes="1 where x is an infinity of the mode's sign (EITHER: of either sign), 0 "
        "elsewhere, NaN included; the output is UINT8, as the page requires.",
    ),
    _bitwise_row(
        "BIT_AND",
        lax.bitwise_and,
        np.bitwise_and,
        face="bitwise_and",
        page="f(a, b) = a & b",
        example=("uint8", [12, 255, 0], [10, 15, 7], "Array([ 8, 15,  0], dtype=uint8)"),
    ),
    _bitwise_row(
        "BIT_OR",
        lax.bitwise_or,
        np.bitwise_or,
        face="bitwise_or",
        page="f(a, b) = a | b",
        example=("uint8", [12, 255, 0], [10, 15, 7], "Array([ 14, 255,   7], dtype=uint8)"),
    ),
    _bitwise_row(
        "BIT_XOR",
        lax.bitwise_xor,
        np.bitwise_xor,
        face="bitwise_xor",
        page="f(a, b) = a ^ b",
        example=("uint8", [12, 255, 0], [10, 15, 7], "Array([  6, 240,   7], dtype=uint8)"),
    ),
    _bitwise_row(
        "BIT_NOT",
        lax.bitwise_not,
        np.bitwise_not,
        face="bitwise_not",
        page="f(x) = ~x",
        example=("uint8", [0, 128, 42, 255], "Array([255, 127, 213,   0], dtype=uint8)"),
    ),
    _bitwise_row(
        "BIT_SHIFT_LEFT",
        lax.shift_left,
        np.left_shift,
        face="left_shift",
        page="f(a, b) = a << b",
        example=("uint8", [1, 3, 255, 1], [7, 2, 1, 8], "Array([128,  12, 254,   0], dtype=uint8)"),
        shift=True,
    ),
    _bitwise_row(
        "BIT_SHIFT_RIGHT",
        lax.shift_right_logical,
        np.right_shift,
        face="right_shift",
        page="f(a, b) = a >> b",
        example=(
            "uint8",
            [128, 12, 255, 1],
            [7, 2, 1, 8],
            "Array([  1,   3, 127,   0], dtype=uint8)",
        ),
        shift=True,
    ),
    _bitwise_row(
        "BIT_COUNT",
        lax.population_count,
        np.bitwise_count,
        face="bitwise_count",
        page="f(x) = popcount(x)",
        example=("uint32", [0, 123, 456, 789], "Array([0, 6, 4, 5], dtype=uint8)"),
        bands=(
            fl.band(FL.FL_3_0, (1, 8), _UINTS_8_32, output_tensor=_TRUTHS),
            fl.band(FL.FL_4_1, (1, 8), fl.TYPES_8_64, output_tensor=_TRUTHS),
        ),
        notes="The number of bits set, of the native encoding (a float's or signed "
        "integer's bits, from FL 4_1), in the output's type (UINT32 or UINT8).",
    ),
    _logical_row(
        "AND",
        jnp.logical_and,
        np.logical_and,
        "f(a, b) = a && b",
        ([0, 1, 7, 0], [0, 3, 2, 9], "Array([0, 1, 1, 0], dtype=uint8)"),
    ),
    _logical_row(
        "OR",
        jnp.logical_or,
        np.logical_or,
        "f(a, b) = a || b",
        ([0, 1, 7, 0], [0, 0, 2, 9], "Array([0, 1, 1, 1], dtype=uint8)"),
    ),
    _logical_row(
        "XOR",
        jnp.logical_xor,
        np.logical_xor,
        "f(a, b) = (!!a) != (!!b)",
        ([0, 1, 7, 0], [0, 0, 2, 9], "Array([0, 1, 0, 1], dtype=uint8)"),
    ),
    _logical_row(
        "NOT",
        jnp.logical_not,
        np.logical_not,
        "f(x) = !x",
        ([0, 1, 255], "Array([1, 0, 0], dtype=uint8)"),
    ),
    _as_activation(_IDENTITY, "f(x) = x"),
    _as_activation(_TANH, "f(x) = (1 - exp(-2 * x)) / (1 + exp(-2 * x))"),
)
"""Every element-wise operator dmljax implements, one row each."""


# --- What every row gets -------------------------------------------------------------------------


def first_input_sizes(desc: Any) -> tuple[tuple[int, ...], str]:
    """An element-wise operator's output sizes: its first input's (every tensor has them)."""
    first = contract.bound_tensors(desc, contract.Role.INPUT)[0]
    return first[1].sizes, f"{first[0]}.sizes"


def _rules_of(row: ElementWise) -> Callable[[Any, FL], None]:
    def rules(desc: Any, level: FL) -> None:
        op = type(desc).__name__
        for field in contract.tensor_fields(type(desc)):
            if getattr(desc, field.name) is None:  # an activation's, left out to be fused
                raise InvalidArgumentError(
                    op, field.name, "a TensorDesc (only a fused activation has none)", "None"
                )
        _check_scale_bias(desc, op=op)
        check_fused_activation(desc, op=op, level=level)
        if row.check is not None:
            row.check(desc, op, level)
        (first, tensor), *others = contract.bound_tensors(desc, contract.Role.INPUT)
        for field, other in others:
            if other.sizes != tensor.sizes:
                raise InvalidArgumentError(
                    op, f"{field}.sizes", f"{tensor.sizes} ({first}'s sizes)", other.sizes
                )

    rules.__name__ = f"_{row.kind.lower()}_rules"
    return rules


def _lowering_of(row: ElementWise) -> Callable[[Any, contract.LoweringOptions], Any]:
    def lower(desc: Any, options: contract.LoweringOptions) -> Any:
        del options
        scale_bias = getattr(desc, "scale_bias", None)
        values = [getattr(desc, name) for name in row.attributes]
        (_, shared) = contract.bound_tensors(desc, contract.Role.INPUT)[row.first_shared]
        constants = row.constants(values, shared.dtype, op=type(desc).__name__)
        activation = getattr(desc, "fused_activation", None)
        plain = (scale_bias is None or scale_bias.is_identity) and not activation
        if plain and not constants and not row.uint_output:
            return row.formula
        out = getattr(desc, row.output_field).dtype

        def scaled(x: jax.Array, *others: jax.Array) -> jax.Array:
            # Every shape with a ScaleBias has input_tensor first, and the pages scale
            # "each input element": POW's input, not its exponent.
            y = row.formula(apply_scale_bias(x, scale_bias), *others, *constants)
            y = apply_fused_activation(y, activation)
            return y.astype(out) if row.uint_output else y

        return scaled

    return lower


def jax_dtypes(data_types: frozenset[DataType]) -> frozenset[np.dtype[Any]]:
    """The dtypes a face takes for tensors of ``data_types``: theirs, and with FLOAT32
    bfloat16 and float64 (JAX's other floats, which these pages lack: IEEE arithmetic in
    them)."""
    types = {np.dtype(t.dtype) for t in data_types}
    if np.dtype(np.float32) in types:
        types |= {np.dtype(jnp.bfloat16), np.dtype(np.float64)}
    return frozenset(types)


def face_dtypes(row: ElementWise) -> frozenset[np.dtype[Any]]:
    """The dtypes the functional face takes for its shared inputs: the latest band's."""
    return jax_dtypes(row.support[-1].data)


def _same_dtype(arrays: Sequence[jax.Array], names: Sequence[str], *, op: str) -> tuple[Any, ...]:
    """The face's arrays in one dtype: a weakly typed one (a Python scalar) takes the
    other's, as in jax.numpy; two different dtypes are refused (DirectML has one)."""
    if len(arrays) == 1:
        return tuple(arrays)
    strong = [x.dtype for x in arrays if not rules.is_weak(x)]
    dtype = strong[0] if strong else jnp.result_type(*arrays)
    for name, x in zip(names, arrays, strict=True):
        if x.dtype != dtype and not rules.is_weak(x):
            raise InvalidArgumentError(
                op,
                name,
                f"an array of {np.dtype(dtype).name}, like {names[0]} (DirectML's tensors share "
                "one data type)",
                f"an array of {np.dtype(x.dtype).name}",
                hint=f"Convert it first, e.g. {name}.astype(jnp.{np.dtype(dtype).name}).",
            )
    return tuple(jnp.asarray(x, dtype) for x in arrays)


def _own_dtype(row: ElementWise, i: int, x: jax.Array, dtype: Any, *, name: str, op: str) -> Any:
    """The face's input apart at position ``i`` in a dtype its field takes: a Python scalar
    in the shared ``dtype`` where the field takes it, a bool array as uint8 1 and 0 where
    the field is UINT8 (IF's condition, as jnp.where's), else refused."""
    allowed = row.field_dtypes(i)
    if rules.is_weak(x) and np.dtype(dtype) in allowed:
        return jnp.asarray(x, dtype)
    if x.dtype == np.bool_ and np.dtype(np.uint8) in allowed:
        return x.astype(np.uint8)
    rules.require_array_dtype(x, allowed, op=op, field=name, why=f"{row.operator_name}'s types")
    return x


def _face_of(row: ElementWise) -> faces.FunctionalFace:
    names = _face_names(row.shape)
    op = f"dmljax.{row.face}"
    allowed = face_dtypes(row)
    apart, first = row.apart, row.first_shared
    shared_names = [n for i, n in enumerate(names) if i not in apart]

    def checked(*args: Any) -> jax.Array:
        arrays, values = list(args[: len(names)]), args[len(names) :]
        shared = [x for i, x in enumerate(arrays) if i not in apart]
        typed = iter(_same_dtype(shared, shared_names, op=op))
        arrays = [x if i in apart else next(typed) for i, x in enumerate(arrays)]
        dtype = np.dtype(arrays[first].dtype)
        why = f"{row.operator_name}'s types"
        rules.require_array_dtype(arrays[first], allowed, op=op, field=names[first], why=why)
        for i in apart:
            arrays[i] = _own_dtype(row, i, arrays[i], dtype, name=names[i], op=op)
        try:
            shape = jnp.broadcast_shapes(*(x.shape for x in arrays))
        except ValueError:
            given = " and ".join(
                f"{n} {tuple(x.shape)}" for n, x in zip(names, arrays, strict=True)
            )
            raise InvalidArgumentError(
                op, names[-1], "shapes that broadcast together (NumPy's rules)", given
            ) from None
        constants = row.constants(values, dtype, op=op)
        y = row.formula(*(jnp.broadcast_to(x, shape) for x in arrays), *constants)
        return y.astype(row.output_dtype(dtype)) if row.uint_output else y

    required = len(names) + len(row.attributes) - len(row.defaults)
    defaults = (None,) * required + row.defaults
    parameters = [
        inspect.Parameter(
            n,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=inspect.Parameter.empty if i < required else defaults[i],
        )
        for i, n in enumerate((*names, *row.attributes))
    ]
    signature = inspect.Signature(parameters)
    count = len(parameters)
    position = {parameter.name: k for k, parameter in enumerate(parameters)}
    fill = tuple(parameter.default for parameter in parameters)  # empty: required

    def bound(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """Every argument by position, defaults filled in. Not ``signature.bind`` where
        the call is well formed: it takes about 9 us, as long as the call itself
        (``dml.elu(x, alpha=0.5)``)."""
        given = len(args)
        full = [*args, *fill[given:]] if given <= count else None
        for name, value in kwargs.items():
            k = position.get(name, -1)
            if full is None or k < given:  # too many, unknown, or given twice
                full = None
                break
            full[k] = value
        if full is not None and all(v is not inspect.Parameter.empty for v in full):
            return tuple(full)
        try:  # a malformed call: Python's own message, naming the function
            arguments = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{op}(): {error}") from None
        arguments.apply_defaults()
        return arguments.args

    def function(*args: Any, **kwargs: Any) -> jax.Array:
        if kwargs or len(args) != count:
            args = bound(args, kwargs)
        return face.call(*args)

    function.__name__ = function.__qualname__ = row.face
    function.__module__ = __name__
    function.__signature__ = signature  # type: ignore[attr-defined]
    function.__doc__ = _face_doc(row, (*names, *row.attributes))
    face = faces.FunctionalFace(
        function,
        checked,
        *(faces.Data(n) for n in names),
        *(_static(n) for n in row.attributes),
        graph_node=_node_of(row, names),
    )
    return face


def _static(name: str) -> faces.Choice | faces.Number:
    """A face's attribute argument: an enum's lower-case names (or its members), or a
    number."""
    if name not in ENUM_ATTRIBUTES:
        return faces.Number(name)
    members = tuple(ENUM_ATTRIBUTES[name])
    aliases = tuple((m, m.function_name) for m in members)
    return faces.Choice(name, tuple(m.function_name for m in members), aliases)


def broadcast_into(tensor: TensorDesc, sizes: tuple[int, ...]) -> TensorDesc:
    """``tensor`` (right-aligned to ``sizes``' rank) read as a tensor of ``sizes``: a zero
    stride on each dimension it broadcasts, as DirectML broadcasts."""
    if tensor.sizes == sizes:
        return tensor
    packed = tensor.strides or tensor.packed_strides()
    strides = tuple(
        0 if size != out else stride
        for size, out, stride in zip(tensor.sizes, sizes, packed, strict=True)
    )
    return dataclasses.replace(tensor, sizes=sizes, strides=strides)


def _node_of(row: ElementWise, names: Sequence[str]) -> Callable[[NodeCall], Any]:
    """The face's call as a node: each array read at the output's sizes (zero strides
    where it broadcasts)."""
    fields = [f.name for f in contract.tensor_fields(row.shape, contract.Role.INPUT)]

    def node(call: NodeCall) -> Any:
        out = call.aligned(call.outputs[0])
        inputs = {
            field: broadcast_into(call.aligned(call.arrays[name]), out.sizes)
            for field, name in zip(fields, names, strict=True)
        }
        attributes = {name: call.statics[name] for name in row.attributes}
        if "min_max_data_type" in row.shape.__dataclass_fields__:
            attributes["min_max_data_type"] = out.data_type
        return DESCS[row.kind](**inputs, **{row.output_field: out}, **attributes)

    return node


def array_code(values: Sequence[Any], dtype: str) -> str:
    """``jnp.array([...], jnp.<dtype>)``, infinities and NaN spelled as jnp's constants.

    >>> array_code([1.0, float("nan"), -float("inf")], "float32")
    'jnp.array([1.0, jnp.nan, -jnp.inf], jnp.float32)'
    """
    words = {math.inf: "jnp.inf", -math.inf: "-jnp.inf"}
    spelled = ["jnp.nan" if v != v else words.get(v, repr(v)) for v in values]
    return f"jnp.array([{', '.join(spelled)}], jnp.{dtype})"


def _example_arguments(row: ElementWise, *, statics: bool = True) -> str:
    """The example's call arguments: its arrays, and (on the face) its attributes."""
    dtype, inputs, _ = row.example
    arrays = [array_code(values, row.input_dtype(i, dtype).name) for i, values in enumerate(inputs)]
    return ", ".join([*arrays, *map(repr, row.example_statics if statics else ())])


def _face_doc(row: ElementWise, names: Sequence[str]) -> str:
    call = f"dml.{row.face}({', '.join(names)})"
    together = (
        " Its arrays broadcast as in jax.numpy and share one dtype (a Python scalar takes "
        "the other's)."
        if len(names) > 1
        else ""
    )
    notes = f"\n\n{row.notes}" if row.notes else ""
    return (
        f"``{row.page}`` element by element: DirectML's {row.kind}.\n\n"
        f"The functional face of :class:`dmljax.{row.desc_name}`, ``{call}``.{together}"
        f"{notes}\n\n"
        f">>> import jax.numpy as jnp, dmljax as dml\n"
        f">>> dml.{row.face}({_example_arguments(row)})\n"
        f"{row.example[2]}\n"
    )


def _desc_doc(row: ElementWise) -> str:
    first = row.support[0]
    dtype, inputs, printed = row.example
    tensors = [f.name for f in contract.tensor_fields(row.shape, contract.Role.INPUT)]
    data_type = DataType.from_dtype(np.dtype(dtype)).name
    sizes = f"sizes=({len(inputs[0])},)"
    # An output of a type of its own (a test's): another TensorDesc, of UINT8; so is an
    # input apart of another type (IF's condition).
    out, out_desc = ("o", f">>> o = dml.TensorDesc(data_type=dml.DataType.UINT8, {sizes})\n") if (
        row.uint_output) else ("t", "")  # fmt: skip
    apart = [i for i in row.apart if row.input_dtype(i, dtype) != np.dtype(dtype)]
    for i in apart:
        other = DataType.from_dtype(row.input_dtype(i, dtype)).name
        out_desc += f">>> c = dml.TensorDesc(data_type=dml.DataType.{other}, {sizes})\n"
    fields = (
        [f"{n}={'c' if i in apart else 't'}" for i, n in enumerate(tensors)]
        + [f"{row.output_field}={out}"]
        + ([row.example_attributes] if row.example_attributes else [])
    )
    return (
        f"``DML_{row.kind}_OPERATOR_DESC``: ``{row.page}`` element by element.\n\n"
        f"Introduced at FL {first.since.name.removeprefix('FL_')}. Its functional face is "
        f":func:`dmljax.{row.face}`; the fields are :class:`{row.shape.__name__}`'s.\n\n"
        f">>> import jax.numpy as jnp, dmljax as dml\n"
        f">>> t = dml.TensorDesc(data_type=dml.DataType.{data_type}, {sizes})\n"
        f"{out_desc}"
        f">>> desc = dml.{row.desc_name}({', '.join(fields)})\n"
        f">>> dml.compile_operator(desc)({_example_arguments(row, statics=False)})\n"
        f"{printed}\n"
    )


def _declare(row: ElementWise) -> tuple[type, contract.Operator[Any]]:
    """The desc class and the Operator of one row."""
    namespace = {"__doc__": _desc_doc(row), "__module__": __name__, "__qualname__": row.desc_name}
    # A subclass per operator, as DirectML has a struct per operator: the shape's fields.
    desc_type = typing.cast(
        "type[contract.OperatorDesc[Any]]", type(row.desc_name, (row.shape,), namespace)
    )
    tensors = tuple(
        f.name for f in contract.tensor_fields(row.shape) if f.name not in row.apart_fields
    )
    operator = contract.Operator(
        row.operator_name,
        desc_type,
        support=row.support,
        same_dimension_count=True,
        same_data_type=tensors,
        rules=_rules_of(row),
        output_sizes=first_input_sizes,
        lower=_lowering_of(row),
        face=None if row.served_by else _face_of(row),
        served_by=f"DML_OPERATOR_{row.served_by}" if row.served_by else None,
    )
    return desc_type, operator


_DECLARED = {row.kind: _declare(row) for row in ROWS}
_ROW_OF_DESC: dict[type, ElementWise] = {
    desc: row for row, (desc, _) in zip(ROWS, _DECLARED.values(), strict=True)
}
DESCS: dict[str, type] = {name: desc for name, (desc, _) in _DECLARED.items()}
"""Each row's desc class, by the row's kind (``DESCS["ELEMENT_WISE_ADD"]`` is
``ElementWiseAddOperatorDesc``): the kind, as ELEMENT_WISE_IDENTITY and ACTIVATION_IDENTITY
share a name."""
FAMILY: tuple[contract.Operator[Any], ...] = tuple(op for _, op in _DECLARED.values())
"""Each row's Operator, in the table's order: :data:`dmljax.OPERATORS` collects them."""
FUNCTIONS: dict[str, Callable[..., jax.Array]] = {
    row.face: op.face.function for row, op in zip(ROWS, FAMILY, strict=True) if op.face
}
"""Each row's functional face, by its name (``FUNCTIONS["add"]`` is :func:`dmljax.add`)."""
# The desc classes are module attributes, where pickle and the docs look for them (the
# functions are not: ``abs`` would shadow the builtin here); doctest finds the functions'
# examples through __test__.
globals().update({desc.__name__: desc for desc in DESCS.values()})
__test__ = {name: function for name, function in FUNCTIONS.items()}
