"""The activations that normalize over axes: SOFTMAX, LOG_SOFTMAX and HARDMAX, one row each.

Each row is two DirectML operators. The first version (``DML_ACTIVATION_SOFTMAX_OPERATOR_DESC``,
FL 1_0) normalizes along the last dimension of a tensor whose *effective rank* (its
DimensionCount without the leading dimensions of size 1) is at most 2; the second
(``SOFTMAX1``, FL 5_1) along the ``axes`` it names, all of them together: the elements that
differ only in those coordinates form one group. The output has the input's sizes and
type. The functional faces (:func:`dmljax.softmax`, :func:`dmljax.log_softmax`,
:func:`dmljax.hardmax`) are the second version's, named and called as :mod:`jax.nn`'s.

>>> import jax.numpy as jnp, dmljax as dml
>>> dml.softmax(jnp.array([0.0, 0.0, jnp.log(2.0)]))
Array([0.25, 0.25, 0.5 ], dtype=float32)
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules
from dmljax._src.arguments import static_int_tuple
from dmljax._src.dtypes import accumulator
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.ops.element_wise import first_input_sizes
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "DESCS",
    "FACE_DTYPES",
    "FAMILY",
    "FUNCTIONS",
    "ROWS",
    "ActivationHardmax1OperatorDesc",
    "ActivationHardmaxOperatorDesc",
    "ActivationLogSoftmax1OperatorDesc",
    "ActivationLogSoftmaxOperatorDesc",
    "ActivationSoftmax1OperatorDesc",
    "ActivationSoftmaxOperatorDesc",
    "Normalization",
    "NormalizationOperatorDesc",
    "NormalizationOverAxesOperatorDesc",
    "hardmax",
    "log_softmax",
    "softmax",
]


class NormalizationOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """The fields of SOFTMAX, LOG_SOFTMAX and HARDMAX: ``input_tensor`` and
    ``output_tensor``, of one data type and the same sizes; the input's effective rank
    (its DimensionCount without leading 1s) at most 2, normalized along its last
    dimension."""

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")


class NormalizationOverAxesOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """The fields of SOFTMAX1, LOG_SOFTMAX1 and HARDMAX1: :class:`NormalizationOperatorDesc`'s
    and ``axes`` (``AxisCount`` is its length), each in ``[0, DimensionCount)`` and none
    twice; the tensor may have any rank."""

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    axes: tuple[int, ...] = contract.attribute(static_int_tuple)


# --- The formulas ---------------------------------------------------------------------------------


def _in_float32(f: Callable[[jax.Array, tuple[int, ...]], jax.Array]) -> Any:
    """``f`` computed in float32 for float16 and bfloat16 (one rounding to the type at the
    end, as DirectML's half-precision shaders compute), in the input's type otherwise."""

    def wide(x: jax.Array, axes: tuple[int, ...]) -> jax.Array:
        return f(x.astype(accumulator(x.dtype)), axes).astype(x.dtype)

    return wide


def _softmax(x: jax.Array, axes: tuple[int, ...]) -> jax.Array:
    return jax.nn.softmax(x, axis=axes)


def _log_softmax(x: jax.Array, axes: tuple[int, ...]) -> jax.Array:
    return jax.nn.log_softmax(x, axis=axes)


def _grouped(x: jax.Array, axes: tuple[int, ...]) -> tuple[jax.Array, tuple[int, ...]]:
    """``x`` with its ``axes`` moved last and flattened into one, and the moved shape."""
    moved = jnp.moveaxis(x, axes, tuple(range(x.ndim - len(axes), x.ndim)))
    kept = moved.shape[: x.ndim - len(axes)]
    return moved.reshape(*kept, math.prod(moved.shape[len(kept) :])), moved.shape


def flushes(dtype: Any) -> bool:
    """Whether the family's Subnormals rule lets a backend read ``dtype``'s subnormals as
    zeros: float32 and bfloat16 (XLA:CPU does, XLA's GPU backends do not)."""
    return np.dtype(dtype) in (np.dtype(np.float32), np.dtype(jnp.bfloat16))


def _hardmax(x: jax.Array, axes: tuple[int, ...]) -> jax.Array:
    # The first maximum of each group in row-major order over the axes (in the tensor's
    # order, whatever order Axes lists them in), as REDUCE's ARGMAX with
    # DML_AXIS_DIRECTION_INCREASING finds it: jnp.argmax's (a NaN is the maximum; of
    # several NaNs the first on XLA:CPU, one of them on a GPU, whose tree reduction does
    # not order NaNs by index). A float32 subnormal compares as the backend reads it
    # (the Subnormals rule): as a zero on XLA:CPU. Reading it as a zero everywhere costs
    # a select before the argmax, 1.10x the time on an H100.
    flat, moved = _grouped(x, tuple(sorted(axes)))
    if flat.shape[-1] == 0:
        return x
    first = jnp.argmax(flat, axis=-1, keepdims=True)
    positions = lax.broadcasted_iota(first.dtype, flat.shape, flat.ndim - 1)
    hot = (positions == first).astype(x.dtype).reshape(moved)
    return jnp.moveaxis(hot, tuple(range(x.ndim - len(axes), x.ndim)), tuple(sorted(axes)))


# --- The references, in float64 (for the checking code) --------------------------------------


def _shifted(x: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``x - max`` over ``axes`` in float64 (exact for float32 and float16 inputs), and the
    sum of its exponentials, kept over the axes."""
    wide = np.asarray(x, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        top = np.max(wide, axis=axes, keepdims=True) if wide.size else wide
        shifted = wide - top
        return shifted, np.sum(np.exp(shifted), axis=axes, keepdims=True)


def reference_softmax(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """SOFTMAX in float64: ``exp(x - max) / sum(exp(x - max))``."""
    shifted, total = _shifted(x, axes)
    with np.errstate(invalid="ignore"):
        return np.exp(shifted) / total


def reference_log_softmax(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """LOG_SOFTMAX in float64: ``(x - max) - log(sum(exp(x - max)))``."""
    shifted, total = _shifted(x, axes)
    with np.errstate(invalid="ignore"):
        return shifted - np.log(total)


def reference_hardmax(x: np.ndarray, axes: tuple[int, ...], *, flush: bool = False) -> np.ndarray:
    """HARDMAX in the input's type: 1 where an element is its group's first maximum (a
    NaN the maximum), counting in row-major order over ``axes``; 0 elsewhere. With
    ``flush``, float32 and bfloat16 subnormals read as zeros (the Subnormals rule)."""
    x, axes = np.asarray(x), tuple(sorted(axes))
    wide = np.asarray(x, np.float64)
    if flush and flushes(x.dtype):
        wide = np.where(np.abs(wide) < jnp.finfo(x.dtype).tiny, 0.0, wide)
    nan = np.isnan(wide)
    with np.errstate(invalid="ignore"):
        top = np.max(np.where(nan, -np.inf, wide), axis=axes, keepdims=True) if x.size else wide
    any_nan = np.any(nan, axis=axes, keepdims=True)
    candidate = np.where(any_nan, nan, wide == top)
    moved = np.moveaxis(candidate, axes, tuple(range(x.ndim - len(axes), x.ndim)))
    flat = moved.reshape(*moved.shape[: x.ndim - len(axes)], -1)
    # The first candidate of a group is the one no candidate precedes.
    first = flat & (np.cumsum(flat, axis=-1) == 1)
    back = np.moveaxis(first.reshape(moved.shape), tuple(range(x.ndim - len(axes), x.ndim)), axes)
    return back.astype(x.dtype)


# --- The rows -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, repr=False)
class Normalization:
    """One activation that normalizes over axes, and its two DirectML versions.

    Attributes:
        name: DirectML's name without ``DML_OPERATOR_ACTIVATION_`` (``"SOFTMAX"``); the
            FL 5_1 version is ``name + "1"``.
        face: the functional face's name, as :mod:`jax.nn` names it.
        formula: ``f(x, axes)`` in ``jnp``, for a float array and non-negative axes.
        reference: ``f(x, axes)`` in NumPy for the checking code (float64, or for an
            exact row the input's type).
        page: the page's formula for one group.
        exact: whether every result is exact (HARDMAX's 1 and 0).
        notes: what dmljax defines where the pages are silent.
        example: the docstrings' example: a float32 vector and the result as JAX prints it.
    """

    name: str
    face: str
    formula: Callable[[jax.Array, tuple[int, ...]], jax.Array]
    reference: Callable[[np.ndarray, tuple[int, ...]], np.ndarray]
    page: str
    exact: bool
    notes: str
    example: tuple[list[float], str]

    def __repr__(self) -> str:
        return f"Normalization({self.name})"

    @property
    def kinds(self) -> tuple[str, str]:
        """DirectML's names of both versions without ``DML_OPERATOR_``."""
        return f"ACTIVATION_{self.name}", f"ACTIVATION_{self.name}1"


_FLOATS = fl.FLOATS_16_32
# The three pages' table (FL 1_0: 4 dimensions, 2_0: 4 to 5, 3_0: 1 to 8) and the FL 5_1
# versions' (1 to 8 from their introduction).
_FIRST_BANDS = (
    fl.band(FL.FL_1_0, (4, 4), _FLOATS),
    fl.band(FL.FL_2_0, (4, 5), _FLOATS),
    fl.band(FL.FL_3_0, (1, 8), _FLOATS),
)
_AXES_BANDS = (fl.band(FL.FL_5_1, (1, 8), _FLOATS),)

_NON_FINITE = (
    "A group with an infinity or a NaN gives NaN throughout (``inf - inf``), as "
    "jax.nn's does; a group of -inf only gives NaN too."
)

ROWS: tuple[Normalization, ...] = (
    Normalization(
        "SOFTMAX",
        "softmax",
        _in_float32(_softmax),
        reference_softmax,
        "f(x[i]) = exp(x[i]) / sum(exp(x[0]), ..., exp(x[j-1]))",
        exact=False,
        notes=_NON_FINITE,
        example=([0.0, 0.0, math.log(2.0)], "Array([0.25, 0.25, 0.5 ], dtype=float32)"),
    ),
    Normalization(
        "LOG_SOFTMAX",
        "log_softmax",
        _in_float32(_log_softmax),
        reference_log_softmax,
        "f(x[i]) = ln(exp(x[i]) / sum(exp(x[0]), ..., exp(x[j-1])))",
        exact=False,
        notes=_NON_FINITE,
        example=(
            [0.0, 0.0, math.log(2.0)],
            "Array([-1.3862944, -1.3862944, -0.6931472], dtype=float32)",
        ),
    ),
    Normalization(
        "HARDMAX",
        "hardmax",
        _hardmax,
        reference_hardmax,
        "f(x[i]) = 1 if x[i] is the first maximum of x[0], ..., x[j-1], else 0",
        exact=True,
        notes=(
            "Ties go to the first in row-major order over the axes; a NaN is the maximum, "
            "as in jnp.argmax (of several NaNs the first on the CPU, one of them on a GPU)."
        ),
        example=([3.0, 7.0, 7.0], "Array([0., 1., 0.], dtype=float32)"),
    ),
)
"""Every normalizing activation dmljax implements, one row each."""


# --- What every row gets -------------------------------------------------------------------------


def _effective_rank(sizes: Sequence[int]) -> int:
    """The DimensionCount without the leading dimensions of size 1 (``{1, 1, 3, 5}``: 2)."""
    leading = next((i for i, size in enumerate(sizes) if size != 1), len(sizes))
    return len(sizes) - leading


def _check_effective_rank(desc: Any, level: FL) -> None:
    del level
    sizes = desc.input_tensor.sizes
    if _effective_rank(sizes) > 2:
        raise InvalidArgumentError(
            type(desc).__name__,
            "input_tensor.sizes",
            "an effective rank of at most 2 (sizes of 1 before the last two; the "
            "FL 5_1 version's axes normalize any rank)",
            sizes,
        )


def _check_axes(desc: Any, level: FL) -> None:
    del level
    rules.check_axes(desc.axes, desc.input_tensor.dimension_count, op=type(desc).__name__)


def _lowering_of(row: Normalization, *, last: bool) -> Any:
    def lower(desc: Any, options: contract.LoweringOptions) -> Any:
        del options
        axes = (desc.input_tensor.dimension_count - 1,) if last else desc.axes
        if row.exact:
            rules.require_countable_group(desc.input_tensor.sizes, axes, op=type(desc).__name__)
        return lambda x: row.formula(x, axes)

    return lower


FACE_DTYPES: frozenset[np.dtype[Any]] = frozenset(
    {np.dtype(np.float32), np.dtype(np.float16), np.dtype(jnp.bfloat16), np.dtype(np.float64)}
)


def _face_doc(row: Normalization) -> str:
    values, printed = row.example
    return (
        f"``{row.page}`` over each group of ``axes``: DirectML's ACTIVATION_{row.name}1.\n\n"
        f"The functional face of :class:`dmljax.{_desc_name(row.kinds[1])}` (and of "
        f"ACTIVATION_{row.name}, which normalizes the last dimension): ``axes`` is one axis "
        f"or a tuple of them, as :func:`jax.nn.{row.face}`'s ``axis``, the elements that "
        f"differ only along them normalized together. Floats only; float16 and bfloat16 "
        f"are computed in float32 and rounded once.\n\n{row.notes}\n\n"
        f">>> import jax.numpy as jnp, dmljax as dml\n"
        f">>> dml.{row.face}(jnp.array({values!r}))\n"
        f"{printed}\n"
    )


def _face_of(row: Normalization) -> faces.FunctionalFace:
    op = f"dmljax.{row.face}"

    def checked(x: jax.Array, axes: int | tuple[int, ...]) -> jax.Array:
        why = f"DML_OPERATOR_ACTIVATION_{row.name}1's types"
        hint = "Convert it first, e.g. x.astype(jnp.float32)."
        rules.require_array_dtype(x, FACE_DTYPES, op=op, field="x", why=why, hint=hint)
        normalized = rules.face_axes(axes, x.ndim, op=op)
        if row.exact:
            rules.require_countable_group(x.shape, normalized, op=op, of="x.shape")
        return row.formula(x, normalized)

    def function(x: ArrayLike, axes: int | tuple[int, ...] = -1) -> jax.Array:
        return face.call(x, axes)

    def node(call: NodeCall) -> Any:
        x = call.arrays["x"]
        axes = rules.face_axes(call.statics["axes"], x.dimension_count, op=op)
        return DESCS[row.kinds[1]](input_tensor=x, output_tensor=call.outputs[0], axes=axes)

    function.__name__ = function.__qualname__ = row.face
    function.__module__ = __name__
    function.__doc__ = _face_doc(row)
    face = faces.FunctionalFace(
        function,
        checked,
        faces.Data("x"),
        faces.IntTuple("axes", or_int=True),
        graph_node=node,
    )
    return face


def _desc_name(kind: str) -> str:
    return "".join(word.capitalize() for word in kind.split("_")) + "OperatorDesc"


def _desc_doc(row: Normalization, *, last: bool) -> str:
    kind = row.kinds[0] if last else row.kinds[1]
    values, printed = row.example
    fields = "input_tensor=t, output_tensor=t" + ("" if last else ", axes=(0,)")
    since = "FL 1_0; normalizes the last dimension" if last else "FL 5_1"
    return (
        f"``DML_{kind}_OPERATOR_DESC``: ``{row.page}`` over each group.\n\n"
        f"Introduced at {since}. Its functional face is :func:`dmljax.{row.face}`.\n\n"
        f">>> import jax.numpy as jnp, dmljax as dml\n"
        f">>> t = dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=({len(values)},))\n"
        f">>> desc = dml.{_desc_name(kind)}({fields})\n"
        f">>> dml.compile_operator(desc)(jnp.array({values!r}))\n"
        f"{printed}\n"
    )


def _declare(row: Normalization, *, last: bool) -> tuple[type, contract.Operator[Any]]:
    kind = row.kinds[0] if last else row.kinds[1]
    shape = NormalizationOperatorDesc if last else NormalizationOverAxesOperatorDesc
    name = _desc_name(kind)
    namespace = {"__doc__": _desc_doc(row, last=last), "__module__": __name__, "__qualname__": name}
    desc_type = typing.cast("type[contract.OperatorDesc[Any]]", type(name, (shape,), namespace))
    operator = contract.Operator(
        f"DML_OPERATOR_{kind}",
        desc_type,
        support=_FIRST_BANDS if last else _AXES_BANDS,
        same_dimension_count=True,
        same_data_type=("input_tensor", "output_tensor"),
        rules=_check_effective_rank if last else _check_axes,
        output_sizes=first_input_sizes,
        lower=_lowering_of(row, last=last),
        face=None if last else _face_of(row),
        served_by=f"DML_OPERATOR_{row.kinds[1]}" if last else None,
    )
    return desc_type, operator


_DECLARED = {
    kind: _declare(row, last=last)
    for row in ROWS
    for kind, last in ((row.kinds[1], False), (row.kinds[0], True))
}
DESCS: dict[str, type] = {kind: desc for kind, (desc, _) in _DECLARED.items()}
"""Each version's desc class, by its kind (``DESCS["ACTIVATION_SOFTMAX1"]``)."""
FAMILY: tuple[contract.Operator[Any], ...] = tuple(op for _, op in _DECLARED.values())
"""Each version's Operator: :data:`dmljax.OPERATORS` collects them."""
FUNCTIONS: dict[str, Callable[..., jax.Array]] = {
    op.face.function.__name__: op.face.function for op in FAMILY if op.face is not None
}
"""Each row's functional face, by its name."""


class Normalize(typing.Protocol):
    """A face's type: ``f(x, axes=-1)``."""

    def __call__(self, x: ArrayLike, axes: int | tuple[int, ...] = -1) -> jax.Array: ...


# Each version's desc and each face bound to its name, with its type, for readers and type
# checkers (test_softmax checks that every one of DESCS and FUNCTIONS is bound here).
ActivationSoftmaxOperatorDesc: type[NormalizationOperatorDesc] = DESCS["ACTIVATION_SOFTMAX"]
ActivationSoftmax1OperatorDesc: type[NormalizationOverAxesOperatorDesc] = DESCS[
    "ACTIVATION_SOFTMAX1"
]
ActivationLogSoftmaxOperatorDesc: type[NormalizationOperatorDesc] = DESCS["ACTIVATION_LOG_SOFTMAX"]
ActivationLogSoftmax1OperatorDesc: type[NormalizationOverAxesOperatorDesc] = DESCS[
    "ACTIVATION_LOG_SOFTMAX1"
]
ActivationHardmaxOperatorDesc: type[NormalizationOperatorDesc] = DESCS["ACTIVATION_HARDMAX"]
ActivationHardmax1OperatorDesc: type[NormalizationOverAxesOperatorDesc] = DESCS[
    "ACTIVATION_HARDMAX1"
]
softmax: Normalize = FUNCTIONS["softmax"]
log_softmax: Normalize = FUNCTIONS["log_softmax"]
hardmax: Normalize = FUNCTIONS["hardmax"]
