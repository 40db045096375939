"""The resamplings: UPSAMPLE_2D, RESAMPLE, RESAMPLE1 and RESAMPLE2, and :func:`dmljax.resample`.

Each output element reads the input at, along every dimension, the coordinate

``x_in = (x_out - OutputPixelOffset) / Scale - InputPixelOffset``

(the pages' ``OutputTensorX = (InputTensorX + InputPixelOffset) * Scale +
OutputPixelOffset``, solved for the input), computed in float32 as DirectML's ``FLOAT``
fields hold it, and clamped to the input's edges. ``NEAREST_NEIGHBOR`` reads one
element: the nearest, ties to the lower index (RESAMPLE, RESAMPLE1, UPSAMPLE_2D), or
RESAMPLE2's ``RoundingDirection``, ``floor`` (``DECREASING``) or ``ceil``
(``INCREASING``) of the coordinate. ``LINEAR`` weighs the two nearest elements along each
dimension by their distance (up to 16 elements over 4 dimensions); an element at an
exact coordinate is read alone. RESAMPLE is RESAMPLE1 with offsets ``0.5`` and ``-0.5``
(pixel centers, ONNX's ``half_pixel``); UPSAMPLE_2D is RESAMPLE of the last two
dimensions by whole numbers, the output exactly the input times them.

Where the pages are silent dmljax reads them so (docs/operators/resample.md says why):
RESAMPLE1's nearest element is RESAMPLE_GRAD's page's (``[[1, 2], [3, 4]]`` at scales
``0.5`` and ``1.5`` is ``[1, 1, 2]``: the tie at ``0.5`` goes down, ONNX's
``round_prefer_floor``); LINEAR is DxDispatch's ``dml_upsample_2d`` test's (half-pixel
centers); an integer result is truncated toward zero, as CAST and onnxruntime's Resize
do.

>>> import jax.numpy as jnp, dmljax as dml
>>> dml.resample(jnp.array([[1.0, 2.0], [3.0, 4.0]]), scales=(1, 2), mode="linear")
Array([[1.  , 1.25, 1.75, 2.  ],
       [3.  , 3.25, 3.75, 4.  ]], dtype=float32)
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules
from dmljax._src.arguments import static_int
from dmljax._src.dtypes import DataType, require_x64_for_axis
from dmljax._src.enums import AxisDirection, InterpolationMode
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.scalars import float32_tuple_attribute
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "FACE_DTYPES",
    "RESAMPLE",
    "RESAMPLE1",
    "RESAMPLE2",
    "UPSAMPLE_2D",
    "Resample1OperatorDesc",
    "Resample2OperatorDesc",
    "ResampleOperatorDesc",
    "Sampling",
    "Size2D",
    "Upsample2dOperatorDesc",
    "ratio_scales",
    "resample",
    "resample_lowering",
]

_FUNCTION = "dmljax.resample"
_CENTERS = (0.5, -0.5)  # RESAMPLE's input and output pixel offsets: pixel centers


@dataclasses.dataclass(frozen=True, kw_only=True)
class Size2D:
    """A ``DML_SIZE_2D``: UPSAMPLE_2D's ``ScaleSize``, whole-number scales of the width
    (the last dimension) and the height (the one before it).

    >>> Size2D(width=3, height=2)
    Size2D(width=3, height=2)
    """

    width: int
    height: int

    @classmethod
    def coerce(cls, value: Any, *, op: str, field: str) -> Size2D:
        """A Size2D, or an object of its C fields (``{"Width": 3, "Height": 2}``, as
        DxDispatch writes it), each a positive integer."""
        if isinstance(value, Mapping):
            fields = {str(key).lower(): v for key, v in value.items()}
            if set(fields) != {"width", "height"}:
                raise InvalidArgumentError(
                    op, field, "an object of Width and Height", repr(dict(value))[:80]
                )
            value = cls(width=fields["width"], height=fields["height"])
        if not isinstance(value, Size2D):
            raise ArgumentTypeError(op, field, "a dmljax.Size2D", repr(value)[:80])
        for name in ("width", "height"):
            n = static_int(getattr(value, name), op=op, field=f"{field}.{name}")
            if not 0 < n < 2**32:
                raise InvalidArgumentError(op, f"{field}.{name}", "a positive UINT", n)
        return cls(width=int(value.width), height=int(value.height))


class Upsample2dOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_UPSAMPLE_2D_OPERATOR_DESC``: the last two dimensions scaled by whole numbers.

    ``scale_size`` (a :class:`Size2D`) scales the width (the last dimension) and the
    height (the one before); the output has the input's sizes with those two multiplied.
    ``interpolation_mode`` is a :class:`dmljax.InterpolationMode`. It is RESAMPLE with
    scales ``(1, ..., height, width)``. Introduced at FL 1_0 (4 or 5 dimensions; FLOAT32,
    FLOAT16). Its functional face is :func:`dmljax.resample`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.Upsample2dOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 2)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 4)),
    ...     scale_size=dml.Size2D(width=2, height=1),
    ...     interpolation_mode=dml.InterpolationMode.NEAREST_NEIGHBOR)
    >>> dml.compile_operator(desc)(jnp.array([[[[1.0, 2.0]]]]))
    Array([[[[1., 1., 2., 2.]]]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    scale_size: Size2D = contract.attribute(Size2D.coerce)
    interpolation_mode: InterpolationMode = contract.attribute(InterpolationMode.coerce)


class ResampleOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_RESAMPLE_OPERATOR_DESC``: every dimension resampled by its scale, sampling
    pixel centers.

    ``scales`` holds one positive float per dimension (``ScaleCount`` is its length); the
    output's sizes are free (the scales need not be its ratio to the input's: a larger
    output clamps at the input's edges, a smaller one crops). It is
    :class:`Resample1OperatorDesc` with input offsets 0.5 and output offsets -0.5.
    Introduced at FL 2_0 (4 dimensions; FLOAT32, FLOAT16); 1 to 4 dimensions from 5_1,
    INT8 and UINT8 from 6_2. Its functional face is :func:`dmljax.resample`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.ResampleOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 2)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 3)),
    ...     interpolation_mode=dml.InterpolationMode.NEAREST_NEIGHBOR,
    ...     scales=(1.0, 1.0, 0.5, 1.5))
    >>> dml.compile_operator(desc)(jnp.array([[[[1.0, 2.0], [3.0, 4.0]]]]))
    Array([[[[1., 1., 2.]]]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    interpolation_mode: InterpolationMode = contract.attribute(InterpolationMode.coerce)
    scales: tuple[float, ...] = contract.attribute(float32_tuple_attribute)


class Resample1OperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_RESAMPLE1_OPERATOR_DESC``: :class:`ResampleOperatorDesc` with the pixel
    offsets of each dimension.

    ``scales``, ``input_pixel_offsets`` and ``output_pixel_offsets`` hold one float per
    dimension (``DimensionCount`` is their length): output coordinate
    ``(x_in + input_pixel_offset) * scale + output_pixel_offset``. Introduced at FL 2_1
    (4 dimensions; FLOAT32, FLOAT16); 1 to 4 dimensions from 5_1, INT8 and UINT8 from
    6_2. Its functional face is :func:`dmljax.resample`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.Resample1OperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(3,)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(5,)),
    ...     interpolation_mode=dml.InterpolationMode.LINEAR, scales=(2.0,),
    ...     input_pixel_offsets=(0.0,), output_pixel_offsets=(0.0,))
    >>> dml.compile_operator(desc, feature_level=dml.FeatureLevel.FL_5_1)(
    ...     jnp.array([0.0, 2.0, 4.0]))
    Array([0., 1., 2., 3., 4.], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    interpolation_mode: InterpolationMode = contract.attribute(InterpolationMode.coerce)
    scales: tuple[float, ...] = contract.attribute(float32_tuple_attribute)
    input_pixel_offsets: tuple[float, ...] = contract.attribute(float32_tuple_attribute)
    output_pixel_offsets: tuple[float, ...] = contract.attribute(float32_tuple_attribute)


class Resample2OperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_RESAMPLE2_OPERATOR_DESC``: :class:`Resample1OperatorDesc` with the rounding
    of a nearest element's coordinate.

    ``rounding_direction`` (a :class:`dmljax.AxisDirection`) rounds the coordinate of a
    ``NEAREST_NEIGHBOR`` sample down (``DECREASING``, floor) or up (``INCREASING``,
    ceil); ``LINEAR`` ignores it. Introduced at FL 5_1 (1 to 4 dimensions; FLOAT32,
    FLOAT16). Its functional face is :func:`dmljax.resample` (``rounding="floor"`` or
    ``"ceil"``).

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.Resample2OperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(2,)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(4,)),
    ...     interpolation_mode=dml.InterpolationMode.NEAREST_NEIGHBOR,
    ...     rounding_direction=dml.AxisDirection.INCREASING, scales=(2.0,),
    ...     input_pixel_offsets=(0.0,), output_pixel_offsets=(0.0,))
    >>> dml.compile_operator(desc)(jnp.array([1.0, 2.0]))
    Array([1., 2., 2., 2.], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    interpolation_mode: InterpolationMode = contract.attribute(InterpolationMode.coerce)
    rounding_direction: AxisDirection = contract.attribute(AxisDirection.coerce)
    scales: tuple[float, ...] = contract.attribute(float32_tuple_attribute)
    input_pixel_offsets: tuple[float, ...] = contract.attribute(float32_tuple_attribute)
    output_pixel_offsets: tuple[float, ...] = contract.attribute(float32_tuple_attribute)


# --- The one lowering -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Sampling:
    """Everything a resampling is, per dimension: the output's shape, the scales and
    offsets (float32 values), LINEAR or not, and the rounding of a nearest coordinate
    (``"nearest"``: ties down; ``"floor"``; ``"ceil"``)."""

    shape: tuple[int, ...]
    scales: tuple[float, ...]
    input_offsets: tuple[float, ...]
    output_offsets: tuple[float, ...]
    linear: bool
    rounding: str


def input_coordinates(n_out: int, scale: float, input_offset: float, output_offset: float):
    """Each output index's input coordinate, ``(x_out - output_offset) / scale -
    input_offset``, in float32 (DirectML's ``FLOAT`` arithmetic).

    >>> input_coordinates(4, 2.0, 0.5, -0.5).tolist()
    [-0.25, 0.25, 0.75, 1.25]
    """
    f32 = np.float32
    with np.errstate(over="ignore"):  # a tiny scale sends coordinates to infinity: clamped
        return (np.arange(n_out, dtype=f32) - f32(output_offset)) / f32(scale) - f32(input_offset)


def _nearest(x: np.ndarray, n_in: int, rounding: str) -> np.ndarray:
    if rounding == "nearest":
        index = np.ceil(x - np.float32(0.5))  # the nearest element, a tie to the lower
    else:
        index = np.floor(x) if rounding == "floor" else np.ceil(x)
    return np.clip(index, 0, n_in - 1).astype(np.int32)


def _linear(x: np.ndarray, n_in: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lower neighbor, the upper one and the upper one's weight (float32) of each
    coordinate, clamped into the input: a coordinate beyond an edge reads the edge."""
    x = np.clip(x, np.float32(0), np.float32(n_in - 1))
    lower = np.floor(x)
    weight = (x - lower).astype(np.float32)
    upper = np.minimum(lower + 1, n_in - 1)
    return lower.astype(np.int32), upper.astype(np.int32), weight


def _take(y: jax.Array, index: np.ndarray, axis: int) -> jax.Array:
    return jnp.take(y, jnp.asarray(index), axis=axis, mode="clip")  # in range: a no-op clamp


def resample_lowering(x: jax.Array, *, sampling: Sampling) -> jax.Array:
    """The one implementation of the four operators, shared by both faces.

    Resampling is separable: each dimension in turn is gathered (NEAREST) or gathered
    twice and weighed (LINEAR, in float32 for 16-bit and integer types, rounded once at
    the end), with indices and weights computed from static sizes, scales and offsets.
    A dimension whose map is the identity is skipped. An integer LINEAR result is
    truncated toward zero.
    """
    wide = jnp.float64 if x.dtype == jnp.float64 else jnp.float32
    y = x.astype(wide) if sampling.linear else x
    for axis, (n_in, n_out) in enumerate(zip(x.shape, sampling.shape, strict=True)):
        coordinates = input_coordinates(
            n_out, sampling.scales[axis], sampling.input_offsets[axis],
            sampling.output_offsets[axis],
        )  # fmt: skip
        if n_out == 0 or n_in == 0:
            y = _take(y, np.zeros(n_out, np.int32), axis)  # an empty result: nothing read
            continue
        if not sampling.linear:
            index = _nearest(coordinates, n_in, sampling.rounding)
            if n_in != n_out or np.any(index != np.arange(n_in)):
                y = _take(y, index, axis)
            continue
        lower, upper, weight = _linear(coordinates, n_in)
        if n_in == n_out and not np.any(weight) and np.all(lower == np.arange(n_in)):
            continue
        shape = [1] * x.ndim
        shape[axis] = n_out
        w = jnp.asarray(weight.astype(wide).reshape(shape))
        a = _take(y, lower, axis)
        if not np.any(weight):
            y = a
            continue
        # An exact coordinate reads its element alone (an infinity there stays one).
        mixed = a * (1 - w) + _take(y, upper, axis) * w
        y = mixed if np.all(weight) else jnp.where(w == 0, a, mixed)
    if not sampling.linear:
        return y
    if jnp.issubdtype(x.dtype, jnp.integer):
        y = jnp.trunc(y)
    return y.astype(x.dtype)


# --- The descs' rules and lowerings ---------------------------------------------------------------


def _sampling_of(desc: Any) -> Sampling:
    """A desc as the one lowering's statics."""
    rank = desc.input_tensor.dimension_count
    linear = desc.interpolation_mode is InterpolationMode.LINEAR
    if isinstance(desc, Upsample2dOperatorDesc):
        scales = (1.0,) * (rank - 2) + (float(desc.scale_size.height), float(desc.scale_size.width))
        offsets = (_CENTERS[0],) * rank, (_CENTERS[1],) * rank
    elif isinstance(desc, ResampleOperatorDesc):
        scales = desc.scales
        offsets = (_CENTERS[0],) * rank, (_CENTERS[1],) * rank
    else:
        scales = desc.scales
        offsets = desc.input_pixel_offsets, desc.output_pixel_offsets
    rounding = "nearest"
    if isinstance(desc, Resample2OperatorDesc):
        rounding = "ceil" if desc.rounding_direction is AxisDirection.INCREASING else "floor"
    return Sampling(desc.output_tensor.sizes, scales, *offsets, linear, rounding)


def _check_per_dimension(values: tuple[float, ...], rank: int, *, op: str, field: str) -> None:
    if len(values) != rank:
        raise InvalidArgumentError(
            op, field, f"{rank} values (one per dimension of input_tensor)", len(values)
        )
    for i, value in enumerate(values):
        if not math.isfinite(value):
            raise InvalidArgumentError(op, f"{field}[{i}]", "a finite number", repr(value))


def check_sampling(
    sampling: Sampling, input_shape: tuple[int, ...], *, op: str, names: Mapping[str, str]
) -> None:
    """The rules of every resampling, written once: one finite scale and offsets per
    dimension, each scale positive, and something to read for a non-empty output.
    ``names`` gives each part's name in the caller's terms (``"scales"``; the output
    is ``"output_tensor.sizes"`` or ``"shape"``)."""
    rank = len(input_shape)
    for part, values in (
        ("scales", sampling.scales),
        ("input_pixel_offsets", sampling.input_offsets),
        ("output_pixel_offsets", sampling.output_offsets),
    ):
        _check_per_dimension(values, rank, op=op, field=names.get(part, part))
    for i, scale in enumerate(sampling.scales):
        if not scale > 0:
            raise InvalidArgumentError(op, f"{names.get('scales', 'scales')}[{i}]",
                                       "a positive number", repr(scale))  # fmt: skip
    for i, (n_in, n_out) in enumerate(zip(input_shape, sampling.shape, strict=True)):
        if n_in == 0 and n_out:
            raise InvalidArgumentError(
                op, f"{names['output']}[{i}]",
                "0 where the input has size 0 there (nothing to read)", n_out,
            )  # fmt: skip
        require_x64_for_axis(n_in, op=op, field=f"{names['input']}[{i}]")


_DESC_NAMES = {"output": "output_tensor.sizes", "input": "input_tensor.sizes"}


def _rules(desc: Any, level: FL) -> None:
    del level
    op = type(desc).__name__
    sampling = _sampling_of(desc)
    names = dict(_DESC_NAMES)
    if isinstance(desc, Upsample2dOperatorDesc):
        names["scales"] = "scale_size"
    check_sampling(sampling, desc.input_tensor.sizes, op=op, names=names)


def _upsample_sizes(desc: Upsample2dOperatorDesc) -> tuple[tuple[int, ...], str]:
    *lead, height, width = desc.input_tensor.sizes
    size = desc.scale_size
    return (
        (*lead, height * size.height, width * size.width),
        f"input_tensor's sizes with the height times {size.height} and the width times "
        f"{size.width}",
    )


def _lower(desc: Any, options: contract.LoweringOptions) -> Any:
    del options
    return functools.partial(resample_lowering, sampling=_sampling_of(desc))


# --- The functional face --------------------------------------------------------------------------

FACE_DTYPES: frozenset[np.dtype[Any]] = frozenset(
    np.dtype(t) for t in (np.float32, np.float16, jnp.bfloat16, np.float64, np.int8, np.uint8)
)
"""The face's dtypes: the pages' types, and bfloat16 and float64 as the family's."""

_ROUNDINGS = ("nearest", "floor", "ceil")


def resample(
    x: ArrayLike,
    shape: tuple[int, ...] | None = None,
    scales: float | tuple[float, ...] | None = None,
    *,
    mode: str = "nearest",
    rounding: str = "nearest",
    input_pixel_offsets: float | tuple[float, ...] = 0.5,
    output_pixel_offsets: float | tuple[float, ...] = -0.5,
) -> jax.Array:
    """``x`` resampled to ``shape`` by ``scales`` (DirectML RESAMPLE1 and RESAMPLE2).

    The functional face of the four resampling descs. Each output element reads ``x`` at
    ``(x_out - output_pixel_offsets) / scales - input_pixel_offsets`` along every
    dimension (pixel centers by default, ONNX's ``half_pixel``), clamped to its edges.

    Args:
        x: a float32, float16, bfloat16, float64, int8 or uint8 array of at least 1
            dimension.
        shape: the result's shape, one size per dimension; None: ``floor(x.shape *
            scales)``.
        scales: one positive scale per dimension, or one for every dimension; None:
            ``shape / x.shape`` (in float32). Give ``shape`` or ``scales`` or both: the
            scales need not be the shapes' ratio.
        mode: ``"nearest"`` (one element) or ``"linear"`` (the two nearest along each
            dimension, weighted; an integer result truncated toward zero).
        rounding: a nearest coordinate's rounding: ``"nearest"`` (the nearest element, a
            tie to the lower: RESAMPLE1's), ``"floor"`` or ``"ceil"`` (RESAMPLE2's
            ``DECREASING`` and ``INCREASING``).
        input_pixel_offsets, output_pixel_offsets: per dimension, or one for all.

    Differentiable in ``x`` for floats (a gather, weighted for ``"linear"``), and usable
    under :func:`jax.jit` and :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> dml.resample(jnp.array([1.0, 2.0, 3.0, 4.0]), (2,))  # centers 0.5 and 2.5: ties down
    Array([1., 3.], dtype=float32)
    >>> dml.resample(jnp.arange(3, dtype=jnp.uint8), scales=2.0, mode="linear",
    ...              input_pixel_offsets=0.0, output_pixel_offsets=0.0)
    Array([0, 0, 1, 1, 2, 2], dtype=uint8)
    """
    return _FACE.call(x, shape, scales, mode, rounding, input_pixel_offsets, output_pixel_offsets)


def _per_dimension(value: Any, rank: int) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, tuple) else (value,) * rank


def _face_floats(value: Any, rank: int, name: str) -> tuple[float, ...]:
    """A face's per-dimension numbers (one number: every dimension's), one per dimension
    of ``x``, as the descs' C ``FLOAT`` arrays hold them."""
    values = _per_dimension(value, rank)
    if len(values) != rank:
        raise InvalidArgumentError(
            _FUNCTION, name, f"{rank} values (one per dimension of x)", len(values)
        )
    return float32_tuple_attribute(values, op=_FUNCTION, field=name)


def ratio_scales(in_sizes: tuple[int, ...], out_sizes: tuple[int, ...]) -> tuple[float, ...]:
    """The scales a shape alone implies: ``out / in`` in float32 (1 where ``in`` is 0),
    as ONNX's Resize with ``sizes`` takes them.

    >>> ratio_scales((2, 4), (3, 8))
    (1.5, 2.0)
    """
    return tuple(
        float(np.float32(n_out) / np.float32(n_in)) if n_in else 1.0
        for n_in, n_out in zip(in_sizes, out_sizes, strict=True)
    )


def _checked(
    x: jax.Array,
    shape: tuple[int, ...] | None,
    scales: Any,
    mode: str,
    rounding: str,
    input_pixel_offsets: Any,
    output_pixel_offsets: Any,
) -> jax.Array:
    rules.require_operand(
        x, FACE_DTYPES, op=_FUNCTION, operator="DML_OPERATOR_RESAMPLE1",
        runs="a resampling reads coordinates of dimensions",
    )  # fmt: skip
    if not rules.is_static_shape(x.shape):
        raise InvalidArgumentError(
            _FUNCTION, "x.shape", "static sizes (the coordinates are computed from them)",
            str(x.shape),
        )  # fmt: skip
    rank = x.ndim
    if shape is None and scales is None:
        raise InvalidArgumentError(_FUNCTION, "shape", "a shape, scales or both", "neither")
    if shape is not None and len(shape) != rank:
        raise InvalidArgumentError(
            _FUNCTION, "shape", f"{rank} sizes (one per dimension of x)", len(shape)
        )
    in_shape = tuple(int(n) for n in x.shape)
    # Their lengths here; check_sampling holds every value finite and each scale positive.
    if scales is None:
        assert shape is not None  # refused above when both are None
        scale_values = ratio_scales(in_shape, shape)
    else:
        scale_values = _face_floats(scales, rank, "scales")
    if shape is None:
        shape = tuple(
            int(np.floor(np.float32(n) * np.float32(s))) if s > 0 and math.isfinite(s) else 0
            for n, s in zip(in_shape, scale_values, strict=True)
        )
    for i, n in enumerate(shape):
        if n < 0:
            raise InvalidArgumentError(_FUNCTION, f"shape[{i}]", "a non-negative size", n)
    offsets = (
        _face_floats(input_pixel_offsets, rank, "input_pixel_offsets"),
        _face_floats(output_pixel_offsets, rank, "output_pixel_offsets"),
    )
    sampling = Sampling(
        tuple(shape), scale_values, offsets[0], offsets[1], mode == "linear", rounding
    )
    check_sampling(sampling, in_shape, op=_FUNCTION, names={"output": "shape", "input": "x.shape"})
    rules.require_fits_xla(shape, x.dtype, op=_FUNCTION, field="shape", inputs=(x,))
    return resample_lowering(x, sampling=sampling)


def _graph_node(call: NodeCall) -> Any:
    """RESAMPLE1 for the nearest element or LINEAR, RESAMPLE2 for floor and ceil."""
    x = call.arrays["x"]
    (y,) = call.outputs
    statics = call.statics
    rank = x.dimension_count
    scales = statics["scales"]
    if scales is None:
        scales = ratio_scales(x.sizes, y.sizes)
    fields = dict(
        input_tensor=x,
        output_tensor=y,
        interpolation_mode=InterpolationMode.LINEAR
        if statics["mode"] == "linear"
        else InterpolationMode.NEAREST_NEIGHBOR,
        scales=_per_dimension(scales, rank),
        input_pixel_offsets=_per_dimension(statics["input_pixel_offsets"], rank),
        output_pixel_offsets=_per_dimension(statics["output_pixel_offsets"], rank),
    )
    if statics["rounding"] == "nearest" or statics["mode"] == "linear":
        return Resample1OperatorDesc(**fields)
    direction = (
        AxisDirection.INCREASING if statics["rounding"] == "ceil" else AxisDirection.DECREASING
    )
    return Resample2OperatorDesc(**fields, rounding_direction=direction)


_FACE = faces.FunctionalFace(
    resample,
    _checked,
    faces.Data("x"),
    faces.IntTuple("shape", optional=True),
    faces.NumberTuple("scales", optional=True, or_number=True),
    faces.Choice("mode", ("nearest", "linear")),
    faces.Choice("rounding", _ROUNDINGS),
    faces.NumberTuple("input_pixel_offsets", or_number=True),
    faces.NumberTuple("output_pixel_offsets", or_number=True),
    graph_node=_graph_node,
)

# --- The declarations -----------------------------------------------------------------------------

_FLOATS = fl.FLOATS_16_32
_WITH_BYTES = fl.FLOATS_16_32 | {DataType.INT8, DataType.UINT8}


def _operator(name: str, desc_type: type[Any], support: Any, **rest: Any) -> Any:
    return contract.Operator(
        name,
        desc_type,
        support=support,
        same_dimension_count=True,
        same_data_type=("input_tensor", "output_tensor"),
        rules=_rules,
        lower=_lower,
        **rest,
    )


def _widened(first: FL) -> tuple[fl.Band, ...]:
    return (
        fl.band(first, (4, 4), _FLOATS),
        fl.band(FL.FL_5_1, (1, 4), _FLOATS),
        fl.band(FL.FL_6_2, (1, 4), _WITH_BYTES),
    )


UPSAMPLE_2D: contract.Operator[Upsample2dOperatorDesc] = _operator(
    "DML_OPERATOR_UPSAMPLE_2D",
    Upsample2dOperatorDesc,
    (fl.band(FL.FL_1_0, (4, 5), _FLOATS),),
    output_sizes=_upsample_sizes,
    face=None,
    served_by="DML_OPERATOR_RESAMPLE1",
)
RESAMPLE: contract.Operator[ResampleOperatorDesc] = _operator(
    "DML_OPERATOR_RESAMPLE",
    ResampleOperatorDesc,
    _widened(FL.FL_2_0),
    output_sizes=None,  # the output's sizes are free: the scales map coordinates
    face=None,
    served_by="DML_OPERATOR_RESAMPLE1",
)
RESAMPLE1: contract.Operator[Resample1OperatorDesc] = _operator(
    "DML_OPERATOR_RESAMPLE1",
    Resample1OperatorDesc,
    _widened(FL.FL_2_1),
    output_sizes=None,
    face=_FACE,
)
RESAMPLE2: contract.Operator[Resample2OperatorDesc] = _operator(
    "DML_OPERATOR_RESAMPLE2",
    Resample2OperatorDesc,
    (fl.band(FL.FL_5_1, (1, 4), _FLOATS),),
    output_sizes=None,
    face=None,
    served_by="DML_OPERATOR_RESAMPLE1",
)
