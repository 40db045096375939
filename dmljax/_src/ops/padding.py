"""PADDING: ``DML_PADDING_OPERATOR_DESC``, :class:`PaddingMode` and :func:`dmljax.pad`.

Each output coordinate ``o`` of a dimension of ``n`` elements reads input position
``p = o - StartPadding``: inside ``[0, n)`` the element itself, outside it a value
the mode decides (DirectML's rule, per dimension). CONSTANT writes the padding
value; EDGE clamps ``p`` into the dimension; REFLECTION folds the tensor over its
edges without repeating them, and SYMMETRIC repeating them, again and again for
paddings longer than the dimension; WRAP reads ``p mod n``.
PADDING1 (:mod:`dmljax._src.ops.padding1`) shares all of it but the value's type.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, cast

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.core import Tracer
from jax.typing import ArrayLike

from dmljax._src import (
    bitwise,
    contract,
    dtypes,
    face as faces,
    feature_levels as fl,
    scalars,
)
from dmljax._src.arguments import (
    StaticInts,
    require_length,
    static_int_tuple,
)
from dmljax._src.dtypes import DataType
from dmljax._src.enums import DmlEnum
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.rules import is_static_shape, require_c_int32, require_fits_xla
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "PADDING",
    "PaddingMode",
    "PaddingOperatorDesc",
    "check_padding",
    "pad",
    "pad_lowering",
    "pad_output_sizes",
    "source_positions",
]

_FUNCTION = "dmljax.pad"


class PaddingMode(DmlEnum):
    """A ``DML_PADDING_MODE``, with DirectML's values and the level that brought it.

    >>> import dmljax as dml
    >>> dml.PaddingMode.SYMMETRIC, dml.PaddingMode.SYMMETRIC.since
    (<PaddingMode.SYMMETRIC: 3>, <FeatureLevel.FL_3_0: 12288>)
    >>> dml.PaddingMode.WRAP.function_name
    'wrap'
    """

    CONSTANT = 0
    EDGE = 1
    REFLECTION = 2
    SYMMETRIC = 3
    WRAP = 4

    @property
    def since(self) -> FL:
        """The first feature level whose PADDING and PADDING1 accept the mode."""
        return _SINCE.get(self, FL.FL_1_0)


_SINCE = {PaddingMode.SYMMETRIC: FL.FL_3_0, PaddingMode.WRAP: FL.FL_6_4}


class PaddingOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_PADDING_OPERATOR_DESC``: the input with a border on each side of each dimension.

    ``DimensionCount`` is ``len(start_padding)``. The rules (checked by
    :func:`dmljax.compile_operator`): one start and one end padding per
    dimension, each a ``UINT``; ``output_tensor.sizes[i] == input_tensor.sizes[i]
    + start_padding[i] + end_padding[i]``; input and output share data type and
    DimensionCount; the mode exists at the feature level (SYMMETRIC from 3_0,
    WRAP from 6_4). ``padding_value`` is a float32; for integer tensors in
    CONSTANT mode it is truncated toward zero (the page's "10.6 will become
    10"), and one that no integer of the type holds (NaN, an infinity, 300 for
    UINT8) is refused: :class:`dmljax.Padding1OperatorDesc` holds any value
    exactly. Introduced at FL 1_0 (4 or 5 dimensions, floats); integers from
    2_1, 1 to 8 dimensions from 3_1, 64-bit types from 5_0.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.PaddingOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 3)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 7)),
    ...     padding_mode=dml.PaddingMode.REFLECTION, padding_value=0.0,
    ...     start_padding=(0, 0, 0, 2), end_padding=(0, 0, 0, 2))
    >>> dml.compile_operator(desc)(jnp.array([[[[1.0, 2.0, 3.0]]]]))[0, 0, 0]
    Array([3., 2., 1., 2., 3., 2., 1.], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    padding_mode: PaddingMode = contract.attribute(PaddingMode.coerce)
    padding_value: float = contract.attribute(scalars.float32_attribute, default=0.0)
    start_padding: tuple[int, ...] = contract.attribute(static_int_tuple)
    end_padding: tuple[int, ...] = contract.attribute(static_int_tuple)


_T = DataType
# The PADDING page's table; PADDING1 (from 5_0) has its last row.
PADDING_BANDS = (
    fl.band(FL.FL_1_0, (4, 5), fl.FLOATS_16_32),
    fl.band(FL.FL_2_1, (4, 5), fl.TYPES_8_32),
    fl.band(FL.FL_3_1, (1, 8), fl.TYPES_8_32),
    fl.band(FL.FL_5_0, (1, 8), fl.TYPES_8_64),
)


def pad_output_sizes(
    sizes: Sequence[int], start_padding: Sequence[int], end_padding: Sequence[int]
) -> tuple[int, ...]:
    """PADDING's output sizes: ``sizes[i] + start_padding[i] + end_padding[i]``."""
    return tuple(
        size + start + end
        for size, start, end in zip(sizes, start_padding, end_padding, strict=True)
    )


def check_padding(desc: Any, level: FL) -> None:
    """The rules PADDING and PADDING1 share: the paddings' lengths and C ranges, the mode's
    feature level, and a REFLECTION of a one-element dimension (which the pages leave
    undefined: there is nothing to fold)."""
    op = type(desc).__name__
    rank = desc.input_tensor.dimension_count
    for field in ("start_padding", "end_padding"):
        values = getattr(desc, field)
        why = "DimensionCount, one per dimension of input_tensor"
        require_length(values, rank, op=op, field=field, why=why)
        require_c_int32(values, signed=False, op=op, field=field)
    mode = desc.padding_mode
    if level < mode.since:
        raise InvalidArgumentError(
            op,
            "padding_mode",
            f"a mode of {level} (CONSTANT, EDGE or REFLECTION"
            + (", SYMMETRIC" if level >= FL.FL_3_0 else "")
            + ")",
            str(mode),
            hint=f"DML_PADDING_MODE_{mode.name} was introduced at {mode.since}.",
        )
    _require_foldable(
        mode,
        desc.input_tensor.sizes,
        desc.start_padding,
        desc.end_padding,
        op=op,
        field="input_tensor.sizes",
    )


def _require_foldable(
    mode: PaddingMode,
    sizes: Sequence[int],
    start_padding: Sequence[int],
    end_padding: Sequence[int],
    *,
    op: str,
    field: str,
) -> None:
    """Refuses padding a dimension the mode has nothing to copy from.

    Every mode but CONSTANT copies input elements into the border, so an empty
    dimension cannot be padded; REFLECTION mirrors without repeating the edge, so
    a dimension of one element has nothing to mirror (the DirectML pages define
    no result, and NumPy's repeated edge would be a guess).
    """
    if mode is PaddingMode.CONSTANT:
        return
    smallest = 2 if mode is PaddingMode.REFLECTION else 1
    for i, (size, start, end) in enumerate(zip(sizes, start_padding, end_padding, strict=True)):
        if size < smallest and (start > 0 or end > 0):
            raise InvalidArgumentError(
                op,
                f"{field}[{i}]",
                f"at least {smallest} to pad in {mode} mode ({_WHY_SMALLEST[smallest]})",
                f"{size} with padding ({start}, {end})",
                hint="CONSTANT mode pads any dimension.",
            )


_WHY_SMALLEST = {
    1: "the border copies input elements",
    2: "REFLECTION mirrors around the edge element",
}


def _padding_rules(desc: PaddingOperatorDesc, level: FL) -> None:
    check_padding(desc, level)
    if desc.padding_mode is PaddingMode.CONSTANT:
        scalars.truncated_value(
            desc.padding_value,
            desc.output_tensor.data_type,
            op=type(desc).__name__,
            field="padding_value",
            exact_desc="Padding1OperatorDesc",
        )


def output_sizes_of(desc: Any) -> tuple[tuple[int, ...], str]:
    """The output sizes of a PADDING or PADDING1 desc, and why."""
    sizes = pad_output_sizes(desc.input_tensor.sizes, desc.start_padding, desc.end_padding)
    return sizes, "input_tensor.sizes plus start_padding plus end_padding"


# --- The lowering -------------------------------------------------------------------------------


def source_positions(mode: PaddingMode, size: int, start: int, end: int) -> np.ndarray:
    """The input position each output coordinate of one dimension reads (not CONSTANT).

    ``p = o - start`` for ``o`` in ``[0, start + size + end)``, mapped into
    ``[0, size)`` by DirectML's rule for the mode.

    >>> source_positions(PaddingMode.REFLECTION, 3, 4, 1).tolist()
    [0, 1, 2, 1, 0, 1, 2, 1]
    >>> source_positions(PaddingMode.SYMMETRIC, 3, 4, 1).tolist()
    [2, 2, 1, 0, 0, 1, 2, 2]
    """
    return _mapped(mode, np.arange(-start, size + end, dtype=np.int64), size, np)


def _mapped(mode: PaddingMode, p: Any, size: Any, xp: Any) -> Any:
    """DirectML's rule for the mode, on positions ``p`` relative to the input's start: with
    NumPy for a known ``size``, with jax.numpy for a :func:`jax.export` symbol."""
    if mode is PaddingMode.EDGE:
        return xp.clip(p, 0, size - 1)
    if mode is PaddingMode.WRAP:
        return p % size
    if mode is PaddingMode.REFLECTION:
        period = 2 * (size - 1)
        q = p % period
        return xp.where(q < size, q, period - q)
    if mode is PaddingMode.SYMMETRIC:
        q = p % (2 * size)
        return xp.where(q < size, q, 2 * size - 1 - q)
    raise ValueError(f"{mode} maps no positions")  # CONSTANT reads the padding value


# A border of more pieces than this (a long REFLECTION of a short dimension, say) is read by
# one gather instead: XLA compiles a concatenate of many small operands slowly.
_MAX_PIECES = 16


def _pieces(x: jax.Array, axis: int, positions: np.ndarray) -> list[jax.Array]:
    """Slices of ``x`` along ``axis`` that read ``positions`` (runs of +1, -1 or 0 steps)."""
    pieces = []
    i = 0
    while i < len(positions):
        first = int(positions[i])
        step = int(positions[i + 1] - first) if i + 1 < len(positions) else 1
        if abs(step) > 1:
            step = 1
        j = i + 1
        while j < len(positions) and positions[j] - positions[j - 1] == step:
            j += 1
        count = j - i
        if step == 1:
            pieces.append(lax.slice_in_dim(x, first, first + count, axis=axis))
        elif step == -1:
            reversed_run = lax.slice_in_dim(x, first - count + 1, first + 1, axis=axis)
            pieces.append(lax.rev(reversed_run, (axis,)))
        else:
            edge = lax.slice_in_dim(x, first, first + 1, axis=axis)
            shape = list(x.shape)
            shape[axis] = count
            pieces.append(lax.broadcast_in_dim(edge, tuple(shape), tuple(range(x.ndim))))
        i = j
    return pieces


def _pad_axis(x: jax.Array, axis: int, mode: PaddingMode, start: int, end: int) -> jax.Array:
    size = x.shape[axis]
    if not is_static_shape((size,)):
        # A jax.export symbol: the positions are computed when the program runs, and read
        # by one gather (the slices below need their bounds when the program is built).
        index_type = dtypes.index_type(size)
        p = lax.iota(index_type, start + size + end) - np.array(start, index_type)
        positions = _mapped(mode, p, jnp.asarray(size, index_type), jnp)
        return jnp.take(x, positions, axis=axis, mode="clip")
    positions = source_positions(mode, size, start, end)
    before = _pieces(x, axis, positions[:start])
    after = _pieces(x, axis, positions[start + size :])
    if len(before) + len(after) > _MAX_PIECES:
        index_type = dtypes.index_type(size - 1)
        return jnp.take(x, positions.astype(index_type), axis=axis, mode="clip")
    return lax.concatenate([*before, x, *after], axis)


def pad_lowering(
    x: jax.Array,
    *,
    start_padding: tuple[int, ...],
    end_padding: tuple[int, ...],
    mode: PaddingMode,
    value: np.ndarray | None,
) -> jax.Array:
    """The one implementation of PADDING and PADDING1, shared by both faces.

    Negative paddings crop (the functional face's extension, as :func:`jax.lax.pad`
    and ONNX Pad): the crop comes first, then the mode pads what is left (an empty
    result is zeros of its shape, whatever the crops). CONSTANT
    is one :func:`jax.lax.pad`; the other modes pad one dimension at a time with
    the slices (reversed for the mirrors, broadcast for an edge) that
    :func:`jax.numpy.pad` concatenates too, so the border costs what jnp's does.
    """
    if mode is PaddingMode.CONSTANT:
        assert value is not None
        config = [(start, end, 0) for start, end in zip(start_padding, end_padding, strict=True)]
        if all(low == 0 and high == 0 for low, high, _ in config):
            return x
        return bitwise.exactly(functools.partial(_pad_constant, config), x, fill=value)
    out_shape = pad_output_sizes(x.shape, start_padding, end_padding)
    if 0 in out_shape:  # nothing to copy, and a crop may reach past an empty dimension
        return lax.full(out_shape, 0, x.dtype)
    return bitwise.exactly(functools.partial(_pad_copying, start_padding, end_padding, mode), x)


def _pad_constant(config: list[tuple[int, int, int]], x: jax.Array, fill: Any) -> jax.Array:
    return lax.pad(x, fill, config)


def _pad_copying(
    start_padding: tuple[int, ...],
    end_padding: tuple[int, ...],
    mode: PaddingMode,
    x: jax.Array,
    fill: None,
) -> jax.Array:
    """EDGE, REFLECTION, SYMMETRIC and WRAP: crop, then pad one dimension at a time."""
    del fill
    if any(p < 0 for p in (*start_padding, *end_padding)):
        x = lax.slice(
            x,
            tuple(max(-start, 0) for start in start_padding),
            tuple(size - max(-end, 0) for size, end in zip(x.shape, end_padding, strict=True)),
        )
    for axis, (start, end) in enumerate(zip(start_padding, end_padding, strict=True)):
        if start > 0 or end > 0:
            x = _pad_axis(x, axis, mode, max(start, 0), max(end, 0))
    return x


def _lower_padding(desc: PaddingOperatorDesc, options: contract.LoweringOptions) -> Any:
    del options
    op = type(desc).__name__
    value = None
    if desc.padding_mode is PaddingMode.CONSTANT:
        value = scalars.truncated_value(
            desc.padding_value,
            desc.output_tensor.data_type,
            op=op,
            field="padding_value",
            exact_desc="Padding1OperatorDesc",
        )
    return functools.partial(
        pad_lowering,
        start_padding=desc.start_padding,
        end_padding=desc.end_padding,
        mode=desc.padding_mode,
        value=value,
    )


# --- The functional face ------------------------------------------------------------------------

_MODE_NAMES = tuple(mode.function_name for mode in PaddingMode)
_NUMBERS = (int, float)
_JNP_ONLY_MODES = ("linear_ramp", "maximum", "mean", "median", "minimum", "empty")


def pad(
    x: ArrayLike,
    pad_width: Any,
    end_padding: StaticInts | str | PaddingMode | None = None,
    mode: str | PaddingMode | None = None,
    *,
    value: ArrayLike | None = None,
    constant_values: ArrayLike | Sequence[Any] | None = None,
) -> jax.Array:
    """Pads ``x`` with ``start_padding[i]`` elements before and ``end_padding[i]`` after
    each dimension ``i`` (DirectML PADDING), or as :func:`jax.numpy.pad` does.

    The functional face of :class:`PaddingOperatorDesc` and
    :class:`Padding1OperatorDesc`, in two forms:

    * DirectML's: ``pad(x, start_padding, end_padding, mode, value=...)``, one Python
      integer per dimension in each padding;
    * :func:`jax.numpy.pad`'s: ``pad(x, pad_width, mode, constant_values=...)``, where
      ``pad_width`` is an integer, a ``(before, after)`` pair, or one pair per dimension,
      and ``constant_values`` a number, a pair or one pair per dimension, traced or not.

    Any rank (0-D with two empty paddings), any JAX dtype, and, like
    :func:`jax.lax.pad` and ONNX Pad, negative paddings, which crop that many elements
    (the crop comes first, then the mode pads what is left; in ``"constant"`` mode a crop
    may reach past the dimension, as in :func:`jax.lax.pad`, each element being the
    input element it lands on or the value). The modes are DirectML's: ``"constant"``,
    ``"edge"``, ``"reflection"`` (numpy's ``"reflect"``, also accepted), ``"symmetric"``
    and ``"wrap"``; the mirrors and the wrap repeat periodically for paddings longer than
    the dimension, as the DirectML pages specify (and NumPy does).

    Args:
        x: the array to pad.
        pad_width: with ``end_padding``, DirectML's StartPadding; alone (or followed by
            a mode), :func:`jax.numpy.pad`'s ``pad_width``.
        end_padding: DirectML's EndPadding, one Python integer per dimension of ``x``.
        mode: a mode name or a :class:`dmljax.PaddingMode` (``"constant"`` by default).
        value: CONSTANT's value as DirectML holds it: a Python number held exactly by
            ``x``'s dtype (an integer in range for integer arrays; floats are rounded to
            the dtype), or a JAX scalar (traced too) converted to ``x``'s dtype.
        constant_values: CONSTANT's value as :func:`jax.numpy.pad` takes it: a number,
            a ``(before, after)`` pair or one pair per dimension, converted to ``x``'s
            dtype, traced or not (one program whatever the values).

    Returns:
        An array of shape ``x.shape[i] + start_padding[i] + end_padding[i]``
        and the dtype of ``x``.

    Raises:
        InvalidArgumentError: not one padding per dimension, a negative output
            size, a crop longer than the dimension in a mode that copies (unless the
            result is empty), a mode that copies from an empty dimension (or
            REFLECTION of a one-element dimension, which DirectML leaves
            undefined), a value the dtype cannot hold, or a jnp mode DirectML lacks.

    Differentiable in ``x`` (and in a traced value), and usable under :func:`jax.jit`
    and :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.pad(jnp.array([1, 2, 3]), (2,), (1,), mode="reflection")
    Array([3, 2, 1, 2, 3, 2], dtype=int32)
    >>> dml.pad(jnp.array([1, 2, 3]), (-1,), (2,), value=-7)
    Array([ 2,  3, -7, -7], dtype=int32)
    >>> dml.pad(jnp.array([[1, 2]]), ((1, 0), (0, 1)), constant_values=9)
    Array([[9, 9, 9],
           [1, 2, 9]], dtype=int32)
    """
    if (
        end_padding is not None
        and type(end_padding) is not str
        and type(end_padding) is not PaddingMode
    ):
        # DirectML's form; the type tests first: isinstance(value, jax.Array) costs an
        # eager call a few hundred nanoseconds.
        if constant_values is None and (value is None or type(value) in _NUMBERS):
            value = 0 if value is None else value
            return PAD_FACE.call(x, pad_width, end_padding, mode or "constant", value)
        return _pad_with_value(x, pad_width, end_padding, mode, value, constant_values)
    if end_padding is not None:  # jnp's form with its mode in third place
        if mode is not None:
            raise InvalidArgumentError(
                _FUNCTION, "mode", "one mode", f"{end_padding!r} and mode={mode!r}"
            )
        mode = cast(str | PaddingMode, end_padding)
    start, end = _jnp_pad_width(x, pad_width)
    return _pad_with_value(x, start, end, mode, value, constant_values)


def _pad_with_value(
    x: ArrayLike,
    start_padding: Any,
    end_padding: Any,
    mode: str | PaddingMode | None,
    value: Any,
    constant_values: Any,
) -> jax.Array:
    if value is not None and constant_values is not None:
        raise InvalidArgumentError(
            _FUNCTION, "value, constant_values", "one of them", "both",
            hint="constant_values is jnp.pad's name for the value.",
        )  # fmt: skip
    if type(mode) is str and mode in _JNP_ONLY_MODES:
        raise InvalidArgumentError(
            _FUNCTION, "mode", f"a DirectML mode ({', '.join(_MODE_NAMES)})", repr(mode),
            hint=f"jnp.pad's {', '.join(map(repr, _JNP_ONLY_MODES))} have no DirectML mode.",
        )  # fmt: skip
    if isinstance(value, jax.Array):  # a JAX scalar, traced or not: converted as jnp does
        value, constant_values = None, value
    if isinstance(constant_values, list | tuple):  # pairs, of numbers or traced scalars
        try:
            constant_values = jnp.asarray(constant_values)
        except (TypeError, ValueError):
            raise ArgumentTypeError(
                _FUNCTION, "constant_values", "a number, a (before, after) pair or one pair "
                "per dimension", repr(constant_values),
            ) from None  # fmt: skip
    if constant_values is None:
        value = 0 if value is None else value
        return PAD_FACE.call(x, start_padding, end_padding, mode or "constant", value)
    name = mode.function_name if isinstance(mode, PaddingMode) else mode
    if name not in (None, "constant"):
        raise InvalidArgumentError(
            _FUNCTION, "constant_values", f"absent in {name!r} mode", repr(constant_values),
            hint="Only the constant mode pads with values.",
        )  # fmt: skip
    return _PAD_VALUES_FACE.call(x, constant_values, start_padding, end_padding)


def _jnp_pad_width(x: ArrayLike, pad_width: Any) -> tuple[Any, Any]:
    """jnp.pad's ``pad_width`` as DirectML's start and end paddings (tuples of ints;
    anything else is left for the face's checks to name)."""
    rank = np.ndim(x)  # a shape, not the values: x may be traced
    if isinstance(pad_width, Tracer):
        return pad_width, pad_width  # the face names a traced padding
    try:
        pairs = np.asarray(pad_width)
    except (TypeError, ValueError):
        pairs = None
    if pairs is None or pairs.dtype == object or pairs.ndim > 2 or pairs.size == 0:
        raise ArgumentTypeError(
            _FUNCTION, "pad_width",
            "an integer, a (before, after) pair or one pair per dimension (jnp.pad's forms)",
            repr(pad_width),
            hint="Or DirectML's form: dml.pad(x, start_padding, end_padding).",
        )  # fmt: skip
    if not (np.issubdtype(pairs.dtype, np.integer) or pairs.dtype == bool):
        raise ArgumentTypeError(_FUNCTION, "pad_width", "integers", repr(pad_width))
    try:
        both = _as_pairs(pairs, rank)
    except ValueError:
        raise InvalidArgumentError(
            _FUNCTION, "pad_width", f"pairs for the {rank} dimensions of x, shape "
            f"{np.shape(x)}: one pair, or shape ({rank}, 2)", f"shape {pairs.shape}",
        ) from None  # fmt: skip
    return tuple(int(p) for p in both[:, 0]), tuple(int(p) for p in both[:, 1])


def _as_pairs(values: Any, rank: int) -> Any:
    """NumPy's reading of a pad argument: one value for every side, one ``(before,
    after)`` pair for every dimension, or one pair per dimension, as shape ``(rank, 2)``
    (NumPy's ``_as_pairs``). Works on NumPy and JAX arrays alike (shapes only)."""
    module = jnp if isinstance(values, jax.Array) else np
    shape = np.shape(values)
    size = int(np.prod(shape))
    if size == 1:
        values = module.ravel(values)[0]
    elif size == 2 and shape != (2, 1):
        values = module.reshape(values, 2)
    return module.broadcast_to(values, (rank, 2))


def _check_sizes(
    x: jax.Array, start_padding: tuple[int, ...], end_padding: tuple[int, ...], mode: PaddingMode
) -> None:
    """The face's rules on the paddings: one per dimension, sizes of 0 or more, crops the
    mode can take, a dimension the mode can copy from, a result XLA can hold."""
    why = f"one entry per dimension of x, shape {tuple(x.shape)}"
    for field, values in (("start_padding", start_padding), ("end_padding", end_padding)):
        require_length(values, x.ndim, op=_FUNCTION, field=field, why=why)
    out_shape = pad_output_sizes(x.shape, start_padding, end_padding)
    empty = 0 in out_shape
    kept = []
    for i, (size, start, end) in enumerate(zip(x.shape, start_padding, end_padding, strict=True)):
        crop = max(-start, 0) + max(-end, 0)
        # A crop past the dimension is no crop-then-pad, except where nothing is left to
        # place (an empty result) and in CONSTANT mode, where each element is the input
        # element it lands on or the value (jax.lax.pad's and ONNX Pad's rule).
        if out_shape[i] < 0:
            raise InvalidArgumentError(
                _FUNCTION,
                f"start_padding[{i}], end_padding[{i}]",
                f"paddings that leave a size of 0 or more (x.shape[{i}] is {size}: "
                f"start + end >= {-size})",
                f"({start}, {end})",
            )
        if crop > size and not (empty or mode is PaddingMode.CONSTANT):
            raise InvalidArgumentError(
                _FUNCTION,
                f"start_padding[{i}], end_padding[{i}]",
                f"crops of at most {size} elements in all (x.shape[{i}]): {mode} mode "
                "crops, then copies from what is left",
                f"({start}, {end})",
            )
        kept.append(max(size - crop, 0))
    if not empty:  # an empty result copies nothing
        _require_foldable(
            mode,
            kept,
            [max(s, 0) for s in start_padding],
            [max(e, 0) for e in end_padding],
            op=_FUNCTION,
            field="x.shape",
        )
    require_fits_xla(
        out_shape, x.dtype, op=_FUNCTION, field="start_padding, end_padding", inputs=(x,)
    )


def _checked_pad(
    x: jax.Array,
    start_padding: tuple[int, ...],
    end_padding: tuple[int, ...],
    mode_name: str,
    value: int | float,
) -> jax.Array:
    """:func:`pad`'s checks, while tracing, then the lowering."""
    mode = PaddingMode[mode_name.upper()]
    _check_sizes(x, start_padding, end_padding, mode)
    pad_value = None
    if mode is PaddingMode.CONSTANT:
        pad_value = scalars.value_in(value, x.dtype, op=_FUNCTION, field="value")
    return pad_lowering(
        x, start_padding=start_padding, end_padding=end_padding, mode=mode, value=pad_value
    )


def _checked_pad_values(
    x: jax.Array,
    constant_values: jax.Array,
    start_padding: tuple[int, ...],
    end_padding: tuple[int, ...],
) -> jax.Array:
    """:func:`pad` in constant mode with array values (jnp.pad's ``constant_values``):
    converted to ``x``'s dtype as jnp.pad converts them; one value for every side is one
    :func:`jax.lax.pad`, several pad dimension by dimension, each side with its own (the
    later dimensions' values in the corners, as NumPy's)."""
    _check_sizes(x, start_padding, end_padding, PaddingMode.CONSTANT)
    if constant_values.ndim > 2:
        raise InvalidArgumentError(
            _FUNCTION, "constant_values", "a number, a (before, after) pair or one pair per "
            "dimension", f"shape {constant_values.shape}",
        )  # fmt: skip
    values = lax.convert_element_type(constant_values, x.dtype)
    if values.size == 1:
        config = [(start, end, 0) for start, end in zip(start_padding, end_padding, strict=True)]
        return _lax_pad(x, values.reshape(()), config)
    try:
        pairs = _as_pairs(values, x.ndim)
    except ValueError:
        raise InvalidArgumentError(
            _FUNCTION, "constant_values", f"pairs for the {x.ndim} dimensions of x, shape "
            f"{x.shape}: one pair, or shape ({x.ndim}, 2)", f"shape {constant_values.shape}",
        ) from None  # fmt: skip
    if min(start_padding + end_padding, default=0) < 0:
        raise InvalidArgumentError(
            _FUNCTION, "start_padding, end_padding", "paddings of 0 or more with a value per "
            "side (jnp.pad's); a crop takes one constant_values", f"{start_padding}, {end_padding}",
        )  # fmt: skip
    for axis, (start, end) in enumerate(zip(start_padding, end_padding, strict=True)):
        for side, width in enumerate((start, end)):
            if width:
                config = [(0, 0, 0)] * x.ndim
                config[axis] = (width, 0, 0) if side == 0 else (0, width, 0)
                x = _lax_pad(x, pairs[axis, side], config)
    return x


def _lax_pad(x: jax.Array, value: jax.Array, config: list[tuple[int, int, int]]) -> jax.Array:
    """:func:`jax.lax.pad` with a traced value, every bit of ``x`` and ``value`` kept,
    differentiable in both."""
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return lax.pad(x, value, config)
    return _pad_inexact(tuple(config), x, value)


@functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
def _pad_inexact(config: tuple[tuple[int, int, int], ...], x: jax.Array, value: jax.Array) -> Any:
    if not bitwise.may_change_bits(x.dtype):
        return lax.pad(x, value, config)
    # The barriers keep XLA from moving the bitcasts past the pad (see bitwise.exactly).
    words, fill = lax.optimization_barrier((bitwise.bits(x), bitwise.bits(value)))
    padded = lax.optimization_barrier(lax.pad(words, fill, config))
    return lax.bitcast_convert_type(padded, x.dtype)


@_pad_inexact.defjvp
def _pad_inexact_jvp(
    config: tuple[tuple[int, int, int], ...], primals: tuple[Any, ...], tangents: tuple[Any, ...]
) -> tuple[jax.Array, jax.Array]:
    # The value's tangent through a mask of the border, not lax.pad's own: jax transposes
    # lax.pad only where its operand is differentiated too (grad in the value alone fails).
    dx, dvalue = tangents
    zero, one = np.zeros((), dx.dtype), np.ones((), dx.dtype)
    border = lax.pad(jnp.zeros(dx.shape, dx.dtype), one, config)
    return _pad_inexact(config, *primals), lax.pad(dx, zero, config) + border * dvalue


PAD_FACE = faces.FunctionalFace(
    pad,
    _checked_pad,
    faces.Data("x"),
    faces.IntTuple("start_padding", per_dimension_of=(0, "x")),
    faces.IntTuple("end_padding", per_dimension_of=(0, "x")),
    faces.Choice(
        "mode",
        _MODE_NAMES,
        aliases=(("reflect", "reflection"), *((m, m.function_name) for m in PaddingMode)),
    ),
    faces.Number("value"),
    keys=lambda s: s["mode"] != "constant",
)
# jnp.pad's constant_values (and a JAX scalar value): arrays, traced or not.
_PAD_VALUES_FACE = faces.FunctionalFace(
    pad,
    _checked_pad_values,
    faces.Data("x"),
    faces.Data("constant_values"),
    faces.IntTuple("start_padding", per_dimension_of=(0, "x")),
    faces.IntTuple("end_padding", per_dimension_of=(0, "x")),
)


PADDING = contract.Operator(
    "DML_OPERATOR_PADDING",
    PaddingOperatorDesc,
    support=PADDING_BANDS,
    same_dimension_count=True,
    same_data_type=("input_tensor", "output_tensor"),
    rules=_padding_rules,
    output_sizes=output_sizes_of,
    lower=_lower_padding,
    face=PAD_FACE,
)
