"""Differential tests: the element-wise family's faces against onnxruntime's CPU kernels.

Each row with an ONNX counterpart (Add, Div, Mod, Pow, Where, Clip, the functions that
round, the tests, the bit and logical operations, the activations) runs as a one-node
ONNX model on onnxruntime's CPU provider over 256 drawn values of each dtype both sides
hold (ordinary values, NaN, infinities, -0.0, subnormals and integer extremes), and its
result must equal the face's: value for value where both compute exactly, and within the
row's bound plus onnxruntime's own measured error where both round (:data:`SPECS`). Where
ONNX and DirectML differ (a NaN operand of Max, an integer divided by 0), the inputs
leave those values out, and the difference is stated here and in docs/semantics.md.
A dtype onnxruntime has no kernel for is skipped, naming it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest

from dmljax._src.checking import selftest
from dmljax._src.ops import element_wise
from dmljax._src.ops.element_wise import ROWS
from tests import helpers

pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

BY_KIND = {row.kind: row for row in ROWS}
Arrays = tuple[np.ndarray, ...]


@dataclasses.dataclass(frozen=True)
class Onnx:
    """A row's ONNX counterpart.

    Attributes:
        op: the ONNX operator; opset: the opset it is built at.
        attrs: its attributes, for the face's static arguments ``statics``.
        statics: the face's arguments after the arrays (an ELU's alpha).
        constants: ONNX inputs after the arrays that are the face's statics (Clip's min
            and max, Pow's exponent for CONSTANT_POW), in the arrays' dtype.
        keep: the inputs with the values where ONNX and DirectML differ replaced.
        extra_ulps: where both round, onnxruntime's own largest error against float64
            over these draws (measured, onnxruntime 1.32 on x86-64), added to the row's
            bound; None where both compute exactly.
        atol: an absolute tolerance instead, for onnxruntime's approximations whose
            error is absolute (its Sigmoid and Gelu: results near 0 lose every digit).
        kinds: the dtype kinds ONNX defines the operator for with these attributes
            (Mod with fmod 0: integers only, "iu").
    """

    op: str
    opset: int = 18
    attrs: dict[str, Any] = dataclasses.field(default_factory=dict)
    statics: tuple[Any, ...] = ()
    constants: tuple[Any, ...] = ()
    keep: Callable[[Arrays], Arrays] = lambda xs: xs
    extra_ulps: int | None = None
    atol: float = 0.0
    kinds: str = "fiu"


def _nonzero_divisor(xs: Arrays) -> Arrays:
    """ONNX leaves an integer's division by 0 and ``MIN / -1`` undefined (onnxruntime's
    CPU kernel traps): divisors of 1 there."""
    a, b = xs
    if not jnp.issubdtype(a.dtype, jnp.integer):
        return xs
    bad = b == 0
    if jnp.issubdtype(a.dtype, jnp.signedinteger):
        bad |= (a == np.iinfo(a.dtype).min) & (b == -1)
    return a, np.where(bad, np.ones((), b.dtype), b)


def _no_nan(xs: Arrays) -> Arrays:
    """ONNX's Max, Min and Sign propagate a NaN; DirectML's MAX and MIN ignore it and
    SIGN gives 0 (docs/semantics.md): the NaNs become 1."""
    return tuple(np.where(np.isnan(x), np.ones((), x.dtype), x) if x.dtype.kind == "f" else x
                 for x in xs)  # fmt: skip


def _small_powers(xs: Arrays) -> Arrays:
    """onnxruntime's integer Pow converts a double power back unchecked: bases in
    [-3, 3] and exponents in [0, 4] (every power fits INT8); a negative exponent, which
    dmljax defines as DIVIDE's quotient, is left out."""
    base, exponent = xs
    if not jnp.issubdtype(base.dtype, jnp.integer):
        return xs
    signed = jnp.issubdtype(base.dtype, jnp.signedinteger)
    base = (base.astype(np.int64) % 7 - (3 if signed else 0)).astype(base.dtype)
    return base, (exponent.astype(np.int64) % 5).astype(exponent.dtype)


def _shift_within_width(xs: Arrays) -> Arrays:
    """ONNX's BitShift by the width or more is C's undefined shift; DirectML's gives 0."""
    a, b = xs
    return a, (b % (a.dtype.itemsize * 8)).astype(b.dtype)


def _halved(xs: Arrays) -> Arrays:
    """onnxruntime's integer Mean sums in the type (a sum past it wraps); DirectML's is
    exact (docs/semantics.md): halves, whose sums fit."""
    if not jnp.issubdtype(xs[0].dtype, jnp.integer):
        return xs
    return tuple(x // 2 for x in xs)


def _ort(ulps: int) -> dict[str, Any]:
    return {"extra_ulps": ulps}


def _float32_exact(xs: Arrays) -> Arrays:
    """onnxruntime's Shrink computes a 32-bit integer in float32 (1280393575 - 0.5 gives
    1280393600; 2**31 - 1.5 overflows), dmljax exactly: magnitudes below 2**23 there."""
    (x,) = xs
    return (x >> 9,) if x.dtype.itemsize == 4 and x.dtype.kind in "iu" else xs


def _softplus_in_range(xs: Arrays) -> Arrays:
    """onnxruntime's float16 Softplus is ln(exp(x) + 1) in float16: inf past x = 11.09,
    where DirectML's (and dmljax's) is x; those values become 11."""
    (x,) = xs
    if x.dtype != np.float16:
        return xs
    return (np.where(x > 11, np.asarray(11, x.dtype), x),)


SPECS: dict[str, Onnx] = {
    "ELEMENT_WISE_IDENTITY": Onnx("Identity"),
    "ELEMENT_WISE_ABS": Onnx("Abs"),
    "ELEMENT_WISE_CEIL": Onnx("Ceil"),
    "ELEMENT_WISE_FLOOR": Onnx("Floor"),
    "ELEMENT_WISE_CLIP1": Onnx("Clip", 13, statics=(1, 100), constants=(1, 100)),
    "ELEMENT_WISE_SQRT": Onnx("Sqrt", **_ort(0)),
    "ELEMENT_WISE_NEGATE": Onnx("Neg"),
    "ELEMENT_WISE_ADD": Onnx("Add"),
    "ELEMENT_WISE_SUBTRACT": Onnx("Sub"),
    "ELEMENT_WISE_MULTIPLY": Onnx("Mul"),
    "ELEMENT_WISE_DIVIDE": Onnx("Div", keep=_nonzero_divisor),
    "ELEMENT_WISE_MAX": Onnx("Max", keep=_no_nan),
    "ELEMENT_WISE_MIN": Onnx("Min", keep=_no_nan),
    "ELEMENT_WISE_MEAN": Onnx("Mean", keep=_halved),
    "ELEMENT_WISE_SIGN": Onnx("Sign", keep=_no_nan),
    "ELEMENT_WISE_RECIP": Onnx("Reciprocal", **_ort(0)),
    **{
        f"ELEMENT_WISE_{name.upper()}": Onnx(name, **_ort(ulps))
        for name, ulps in (
            ("Exp", 1),
            ("Log", 1),
            ("Sin", 1),
            ("Cos", 1),
            ("Tan", 1),
            ("Asin", 3),
            ("Acos", 2),
            ("Atan", 2),
            ("Sinh", 1),
            ("Cosh", 1),
            ("Asinh", 1),
            ("Acosh", 1),
            ("Atanh", 1),
            ("Tanh", 3),
            ("Erf", 1),
        )
    },
    "ELEMENT_WISE_POW": Onnx("Pow", 15, keep=_small_powers, **_ort(0)),
    "ELEMENT_WISE_CONSTANT_POW": Onnx("Pow", 15, statics=(2.5,), constants=(2.5,), **_ort(0)),
    "ELEMENT_WISE_IF": Onnx("Where", 16),
    "ELEMENT_WISE_LOGICAL_EQUALS": Onnx("Equal", 13),
    "ELEMENT_WISE_LOGICAL_GREATER_THAN": Onnx("Greater", 13),
    "ELEMENT_WISE_LOGICAL_LESS_THAN": Onnx("Less", 13),
    "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL": Onnx("GreaterOrEqual", 16),
    "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL": Onnx("LessOrEqual", 16),
    "ELEMENT_WISE_LOGICAL_AND": Onnx("And"),
    "ELEMENT_WISE_LOGICAL_OR": Onnx("Or"),
    "ELEMENT_WISE_LOGICAL_XOR": Onnx("Xor"),
    "ELEMENT_WISE_LOGICAL_NOT": Onnx("Not"),
    "ELEMENT_WISE_IS_NAN": Onnx("IsNaN", 13),
    "ELEMENT_WISE_IS_INFINITY": Onnx(
        "IsInf", 10, {"detect_negative": 0, "detect_positive": 1}, statics=("positive",)
    ),
    "ELEMENT_WISE_ROUND": Onnx("Round", 11, statics=("halves_to_nearest_even",)),
    "ELEMENT_WISE_MODULUS_FLOOR": Onnx("Mod", 13, {"fmod": 0}, keep=_nonzero_divisor, kinds="iu"),
    "ELEMENT_WISE_MODULUS_TRUNCATE": Onnx("Mod", 13, {"fmod": 1}, keep=_nonzero_divisor),
    "ELEMENT_WISE_BIT_AND": Onnx("BitwiseAnd"),
    "ELEMENT_WISE_BIT_OR": Onnx("BitwiseOr"),
    "ELEMENT_WISE_BIT_XOR": Onnx("BitwiseXor"),
    "ELEMENT_WISE_BIT_NOT": Onnx("BitwiseNot"),
    "ELEMENT_WISE_BIT_SHIFT_LEFT": Onnx(
        "BitShift", 11, {"direction": "LEFT"}, keep=_shift_within_width
    ),
    "ELEMENT_WISE_BIT_SHIFT_RIGHT": Onnx(
        "BitShift", 11, {"direction": "RIGHT"}, keep=_shift_within_width
    ),
    "ACTIVATION_RELU": Onnx("Relu", 14),
    "ACTIVATION_LEAKY_RELU": Onnx("LeakyRelu", 16, {"alpha": 0.25}, statics=(0.25,)),
    "ACTIVATION_ELU": Onnx("Elu", 6, {"alpha": 0.5}, statics=(0.5,), **_ort(3)),
    # onnxruntime's Celu and Selu are exp(x) - 1 as written, which cancels near 0.
    "ACTIVATION_CELU": Onnx("Celu", 12, {"alpha": 2.0}, statics=(2.0,), **_ort(15)),
    "ACTIVATION_SCALED_ELU": Onnx(
        "Selu", 6, {"alpha": 1.5, "gamma": 2.0}, statics=(1.5, 2.0), **_ort(12)
    ),
    # Measured absolute errors: 6.7e-8 (Sigmoid), 4.8e-7 (Gelu).
    "ACTIVATION_SIGMOID": Onnx("Sigmoid", 13, atol=1.2e-7, **_ort(1)),
    "ACTIVATION_SOFTSIGN": Onnx("Softsign", **_ort(2)),
    "ACTIVATION_SOFTPLUS": Onnx("Softplus", statics=(1.0,), keep=_softplus_in_range, **_ort(2)),
    "ACTIVATION_HARD_SIGMOID": Onnx(
        "HardSigmoid", 6, {"alpha": 0.25, "beta": 0.5}, statics=(0.25, 0.5), **_ort(0)
    ),
    "ACTIVATION_HARD_SWISH": Onnx("HardSwish", 14, statics=(1 / 6, 0.5), **_ort(3)),
    "ACTIVATION_GELU": Onnx("Gelu", 20, atol=1e-6, **_ort(1)),
    "ACTIVATION_THRESHOLDED_RELU": Onnx("ThresholdedRelu", 10, {"alpha": 1.5}, statics=(1.5,)),
    "ACTIVATION_PARAMETERIZED_RELU": Onnx("PRelu", 16),
    "ACTIVATION_SHRINK": Onnx(
        "Shrink", 9, {"bias": 0.5, "lambd": 1.5}, statics=(0.5, 1.5), keep=_float32_exact
    ),
}


def _drawn(rng: np.random.Generator, dtype: np.dtype[Any], size: int = 256) -> np.ndarray:
    """Ordinary values and the hostile ones: NaN, infinities, -0.0, subnormals, extremes."""
    if dtype.kind == "f":
        info = np.finfo(dtype)
        special = [np.nan, np.inf, -np.inf, -0.0, 0.0, float(info.tiny) / 4, float(info.max),
                   float(info.min), 1.0, -1.0, 0.5, -2.5]  # fmt: skip
        ordinary = rng.uniform(-8, 8, size - len(special))
        return np.concatenate([special, ordinary]).astype(dtype)
    info = np.iinfo(dtype)
    extremes = [info.min, info.max, 0, 1, info.max // 2, info.min // 2 - 1]
    ordinary = rng.integers(info.min, int(info.max) + 1, size - len(extremes), dtype=np.int64)
    return np.concatenate([np.array(extremes, np.int64), ordinary]).astype(dtype)


# Both sides hold these without jax_enable_x64; onnxruntime's binding takes no bfloat16.
_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float16, np.int8, np.uint8, np.int16,
                                      np.uint16, np.int32, np.uint32))  # fmt: skip


def _dtypes(kind: str) -> list[np.dtype[Any]]:
    faced = element_wise.face_dtypes(BY_KIND[kind])
    return [t for t in _DTYPES if t in faced and t.kind in SPECS[kind].kinds]


CASES = [(kind, dtype) for kind in SPECS for dtype in _dtypes(kind)]


# A type outside the operator's ONNX constraints is refused when the session is made.
_NO_KERNEL = (
    ort.capi.onnxruntime_pybind11_state.NotImplemented,
    ort.capi.onnxruntime_pybind11_state.InvalidGraph,
)
_LOGICAL = ("And", "Or", "Xor", "Not")
_TESTS = ("Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "IsNaN", "IsInf")


@pytest.mark.parametrize(("kind", "dtype"), CASES, ids=str)
def test_the_face_matches_onnxruntime(kind, dtype):
    row, spec = BY_KIND[kind], SPECS[kind]
    rng = np.random.default_rng(sum(map(ord, kind)) + dtype.itemsize)
    arrays = tuple(_drawn(rng, row.input_dtype(i, dtype)) for i in range(row.arity))
    if kind == "ELEMENT_WISE_IF":  # a condition of 0, 1 and 2
        arrays = (arrays[0] % 3, *arrays[1:])
    arrays = spec.keep(arrays)
    # ONNX's logical operators take bool (nonzero is true), its tests give bool; Where
    # takes a bool condition.
    onnx_inputs = [a != 0 if spec.op in _LOGICAL or (spec.op == "Where" and i == 0) else a
                   for i, a in enumerate(arrays)]  # fmt: skip
    onnx_inputs += [np.asarray(c, dtype) for c in spec.constants]
    out = np.dtype(np.bool_) if spec.op in _LOGICAL + _TESTS else dtype
    attrs = tuple(sorted(spec.attrs.items()))
    try:
        dtypes = tuple(a.dtype for a in onnx_inputs)
        session = helpers.onnx_session(spec.op, spec.opset, attrs, dtypes, out)
    except _NO_KERNEL as error:
        pytest.skip(f"onnxruntime has no {spec.op} for {dtype.name}: {str(error)[:120]}")

    def onnx(inputs: list[np.ndarray]) -> np.ndarray:
        (y,) = session.run(None, {f"i{k}": a for k, a in enumerate(inputs)})
        return np.asarray(y)

    got = np.asarray(element_wise.FUNCTIONS[row.face](*arrays, *spec.statics))
    # XLA:CPU may read and write float32 subnormals as zeros (the family's Subnormals rule);
    # onnxruntime keeps them: its result on the inputs so flushed is as good.
    wants = [onnx(onnx_inputs), onnx([helpers.flushed(a) for a in onnx_inputs])]
    if out == np.bool_:
        got = got != 0
    ok = np.zeros(got.shape, bool)
    for want in wants:
        want = want.astype(got.dtype)
        if spec.extra_ulps is None or got.dtype.kind != "f":
            same = (got == want) | (np.isnan(got) & np.isnan(want)) if got.dtype.kind == "f" else (
                got == want)  # fmt: skip
            ok |= same | (helpers.flushed(got) == helpers.flushed(want))
        else:
            bound = row.ulps + spec.extra_ulps
            ok |= selftest.within_ulps(got, want, bound)
            ok |= selftest.within_ulps(helpers.flushed(got), helpers.flushed(want), bound)
            with np.errstate(invalid="ignore"):  # inf - inf
                ok |= np.abs(got.astype(np.float64) - want.astype(np.float64)) <= spec.atol
    assert ok.all(), ([a[~ok][:5] for a in arrays], got[~ok][:5], wants[0][~ok][:5])
