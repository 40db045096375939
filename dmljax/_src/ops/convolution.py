"""CONVOLUTION: 1-D, 2-D and 3-D convolutions, forward and backward (transposed).

A tensor is ``{BatchCount, ChannelCount, [Depth], [Height], Width}``; the spatial
dimensions (``DimensionCount`` of them) follow the batch and channel ones. Forward, the
filter is ``{OutputChannelCount, InputChannelCount / GroupCount, spatial...}`` and each
output element is the sum, over one group's input channels and the filter's taps ``k``,
of ``input[o * Strides + k * Dilations - StartPadding] * filter[k]`` (an input position
outside the input reads 0). Backward is the forward convolution's adjoint (a transposed
convolution, ONNX's ConvTranspose): the filter is ``{InputChannelCount,
OutputChannelCount / GroupCount, spatial...}`` and input element ``i`` adds
``input[i] * filter[k]`` into output position ``i * Strides + k * Dilations -
StartPadding``. ``DML_CONVOLUTION_MODE_CONVOLUTION`` flips the filter along every spatial
dimension first; CROSS_CORRELATION (what frameworks call a convolution) does not. Then
the optional bias ``{1, OutputChannelCount, 1, ...}`` is added, the optional fused
activation applied, and ``OutputPadding`` zeros appended at the end of each spatial
dimension (DirectML's "zero padding to the result").

Output sizes, per spatial dimension, with ``window = (filter - 1) * dilation + 1``:
forward ``(input + start + end - window) // stride + 1``, backward ``(input - 1) *
stride + window - start - end``, each plus ``OutputPadding``. Backward, the forward
convolution maps ``stride`` output sizes to one input size; an output up to
``stride - 1`` longer (onnxruntime's ConvTranspose ``output_padding``, which DirectML
receives as a larger OutputTensor) is accepted and computed by the same formula.

Numerics: DirectML computes float32 in float32, and so does dmljax on every backend:
:func:`jax.lax.conv_general_dilated` at ``Precision.HIGHEST`` (no TF32), unless
``allow_half_precision`` (DirectML's
``DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION``) allows the backend's faster
default. float16 (and the face's bfloat16) multiply into a float32 accumulator; the
bias and activation apply in float32, rounded once. Each float32 output element of a
sum of ``K`` products is within ``K * 2**-24`` of the sum of their magnitudes.

>>> import jax.numpy as jnp, dmljax as dml
>>> x = jnp.arange(1.0, 10.0).reshape(1, 1, 3, 3)
>>> dml.convolution(x, jnp.full((1, 1, 2, 2), 0.5))
Array([[[[ 6.,  8.],
         [12., 14.]]]], dtype=float32)
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules
from dmljax._src.arguments import require_length, static_int, static_int_tuple
from dmljax._src.dtypes import accumulator
from dmljax._src.enums import ConvolutionDirection, ConvolutionMode
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.ops.element_wise import (
    Activation,
    apply_fused_activation,
    check_fused_activation,
    fused_activation_attribute,
)
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "CONVOLUTION",
    "FACE_DTYPES",
    "ConvolutionOperatorDesc",
    "Geometry",
    "convolution",
    "convolution_lowering",
]


class ConvolutionOperatorDesc(
    contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike, *tuple[ArrayLike, ...]]
):
    """``DML_CONVOLUTION_OPERATOR_DESC``: a convolution of ``input_tensor`` with
    ``filter_tensor``, plus the optional ``bias_tensor``, then the optional fused
    activation.

    Every tensor has the same DimensionCount (4 or 5 at FL 1_0, 3 to 5 from FL 4_0)
    and data type (FLOAT32 or FLOAT16). ``DimensionCount`` is ``len(strides)``, the
    input's rank less 2; ``strides``, ``dilations``, ``start_padding``, ``end_padding``
    and ``output_padding`` have one entry per spatial dimension. The output's sizes are
    checked as the module says. Its functional face is :func:`dmljax.convolution`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.ConvolutionOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 3)),
    ...     filter_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 2)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 4)),
    ...     direction=dml.ConvolutionDirection.BACKWARD, strides=(1,), dilations=(1,),
    ...     start_padding=(0,), end_padding=(0,), output_padding=(0,))
    >>> dml.compile_operator(desc)(jnp.array([[[1.0, 2.0, 3.0]]]), jnp.array([[[1.0, 10.0]]]))
    Array([[[ 1., 12., 23., 30.]]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    filter_tensor: TensorDesc = contract.tensor_field("input")
    bias_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    output_tensor: TensorDesc = contract.tensor_field("output")
    mode: ConvolutionMode = contract.attribute(ConvolutionMode.coerce, default=1)
    direction: ConvolutionDirection = contract.attribute(ConvolutionDirection.coerce, default=0)
    strides: tuple[int, ...] = contract.attribute(static_int_tuple)
    dilations: tuple[int, ...] = contract.attribute(static_int_tuple)
    start_padding: tuple[int, ...] = contract.attribute(static_int_tuple)
    end_padding: tuple[int, ...] = contract.attribute(static_int_tuple)
    output_padding: tuple[int, ...] = contract.attribute(static_int_tuple)
    group_count: int = contract.attribute(static_int, default=1)
    fused_activation: Activation | None = contract.attribute(
        fused_activation_attribute, default=None
    )


@dataclasses.dataclass(frozen=True)
class Geometry:
    """The static facts of one convolution, from either face: what the lowering needs.

    ``extra`` is how much longer than its smallest size a backward output is (each
    below the stride); 0 forward.
    """

    mode: ConvolutionMode
    direction: ConvolutionDirection
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    start_padding: tuple[int, ...]
    end_padding: tuple[int, ...]
    output_padding: tuple[int, ...]
    group_count: int
    extra: tuple[int, ...]

    def windows(self, filter_shape: Sequence[int]) -> tuple[int, ...]:
        """Each spatial dimension's dilated filter extent: ``(filter - 1) * dilation + 1``."""
        return tuple((k - 1) * d + 1 for k, d in zip(filter_shape[2:], self.dilations, strict=True))


def _grouped_transpose(w: jax.Array, groups: int) -> jax.Array:
    """A backward filter ``{C, M/G, k...}`` as the forward filter ``{M, C/G, k...}`` of the
    same grouped connections (input and output channels swapped within each group)."""
    c, m_per_group, *spatial = w.shape
    w = w.reshape(groups, c // groups, m_per_group, *spatial)
    w = jnp.swapaxes(w, 1, 2)
    return w.reshape(groups * m_per_group, c // groups, *spatial)


def convolution_lowering(
    x: jax.Array,
    w: jax.Array,
    b: jax.Array | None = None,
    *,
    geometry: Geometry,
    activation: Any = None,
    allow_half_precision: bool = False,
) -> jax.Array:
    """The one implementation, shared by both faces: one convolution into the accumulator
    type, then the bias, the activation and the output padding, rounded once. Backward
    is the adjoint: a convolution of the stride-dilated input with the filter flipped and
    its channels swapped (negative padding crops), :func:`jax.lax.conv_transpose` itself
    where there is one group."""
    g = geometry
    spatial = tuple(range(2, x.ndim))
    # Channels first throughout; the filter {O, I, spatial...} as the forward one's.
    specs = lax.ConvDimensionNumbers((0, 1, *spatial), (0, 1, *spatial), (0, 1, *spatial))
    flipped = g.mode is ConvolutionMode.CONVOLUTION
    wide = accumulator(x.dtype)
    common: dict[str, Any] = {
        "rhs_dilation": g.dilations,
        "dimension_numbers": specs,
        "precision": lax.Precision.DEFAULT if allow_half_precision else lax.Precision.HIGHEST,
        "preferred_element_type": wide,
    }
    if g.direction is ConvolutionDirection.FORWARD:
        padding = tuple(zip(g.start_padding, g.end_padding, strict=True))
        w = lax.rev(w, spatial) if flipped else w
        y = lax.conv_general_dilated(
            x, w, g.strides, padding, feature_group_count=g.group_count, **common
        )
    else:
        strides = g.strides
        windows = g.windows(w.shape)
        if (
            jax.default_backend() == "cpu"
            and any(s > 1 for s in strides)
            and any(window >= n for window, n in zip(windows, x.shape[2:], strict=True))
        ):
            # XLA:CPU's algebraic simplifier swaps the operands of a convolution whose
            # filter is larger than its input, and keeps the input's dilation where it
            # dilates another dimension: the program then fails a check and aborts the
            # process (jaxlib 0.10.2: a 1 x 4 input, a 3 x 2 filter, strides 3 x 2). Such
            # an input is dilated here, so the convolution has none to keep; where every
            # window is smaller than the input (no swap), the program stays the one
            # jax.lax.conv_transpose gives, to the last bit.
            dilation = ((0, 0, 0), (0, 0, 0), *((0, 0, s - 1) for s in strides))
            x = lax.pad(x, jnp.zeros((), x.dtype), dilation)
            strides = (1,) * len(spatial)
        padding = tuple(
            (window - 1 - start, window - 1 - end + extra)
            for window, start, end, extra in zip(
                windows, g.start_padding, g.end_padding, g.extra, strict=True
            )
        )
        if g.group_count == 1:
            # The filter is the forward convolution's kernel, which transpose_kernel flips
            # and swaps: the program a JAX user writes (CONVOLUTION mode pre-flips it).
            w = lax.rev(w, spatial) if flipped else w
            y = lax.conv_transpose(x, w, strides, padding, transpose_kernel=True, **common)
        else:
            w = _grouped_transpose(w, g.group_count)
            w = w if flipped else lax.rev(w, spatial)
            y = lax.conv_general_dilated(
                x, w, (1,) * len(spatial), padding, lhs_dilation=strides,
                feature_group_count=g.group_count, **common,
            )  # fmt: skip
    if b is not None:
        y = y + b.astype(wide).reshape((1, -1) + (1,) * len(spatial))
    y = apply_fused_activation(y, activation).astype(x.dtype)
    if any(g.output_padding):
        y = jnp.pad(y, ((0, 0), (0, 0), *((0, p) for p in g.output_padding)))
    return y


FACE_DTYPES: frozenset[np.dtype[Any]] = frozenset(
    np.dtype(t) for t in (np.float32, np.float16, jnp.bfloat16, np.float64)
)
"""The face's dtypes: the page's FLOAT32 and FLOAT16, and bfloat16 and float64 as the
family's faces take them."""


# --- The rules, written once for both faces ------------------------------------------------------

_DEFAULTS = {"strides": 1, "dilations": 1, "start_padding": 0, "end_padding": 0,
             "output_padding": 0}  # fmt: skip
"""The per-dimension fields, and the entry each has where the functional face leaves it out."""
_ARRAYS = tuple(_DEFAULTS)


def _filled(given: Mapping[str, Any], spatial: int) -> dict[str, Any]:
    """The five per-dimension fields, each left out (None) filled with its default."""
    return {
        name: (default,) * spatial if given[name] is None else given[name]
        for name, default in _DEFAULTS.items()
    }


def output_shape(
    op: str,
    names: Mapping[str, str],
    input_shape: Sequence[int],
    filter_shape: Sequence[int],
    bias_shape: Sequence[int] | None,
    fields: Mapping[str, Any],
) -> tuple[int, ...]:
    """The output's smallest shape (``extra`` 0) for a convolution of these shapes and
    ``fields`` (direction, the five arrays, group_count), after every rule they
    must meet; each error names ``names[role]`` (``"input_tensor.sizes"`` on the desc
    face, ``"x"`` on the functional one)."""
    rank = len(input_shape)
    spatial = rank - 2
    why = f"DimensionCount: one per spatial dimension of {names['input']} ({spatial})"
    for field in _ARRAYS:
        require_length(fields[field], spatial, op=op, field=field, why=why)
        rules.require_c_int32(fields[field], signed=False, op=op, field=field)
        if field in ("strides", "dilations") and 0 in fields[field]:
            i = fields[field].index(0)
            raise InvalidArgumentError(op, f"{field}[{i}]", "at least 1", 0)
    groups = fields["group_count"]
    rules.require_c_int(groups, signed=False, op=op, field=names["group_count"])
    if groups < 1:
        raise InvalidArgumentError(op, names["group_count"], "at least 1", groups)
    batch, channels, *sizes = input_shape
    backward = fields["direction"] is ConvolutionDirection.BACKWARD
    if backward:
        filter_in, per_group = filter_shape[0], filter_shape[1]
        out_channels = per_group * groups
        layout = "{InputChannelCount, OutputChannelCount / GroupCount, spatial...} (BACKWARD)"
        filter_in_at = 0
    else:
        out_channels, per_group = filter_shape[0], filter_shape[1]
        filter_in = per_group * groups
        layout = "{OutputChannelCount, InputChannelCount / GroupCount, spatial...}"
        filter_in_at = 1
    if channels % groups:
        raise InvalidArgumentError(
            op, names["input"], f"a channel count ({channels}) that GroupCount {groups} divides",
            tuple(input_shape),
        )  # fmt: skip
    if filter_shape[0] % groups:
        raise InvalidArgumentError(
            op, names["filter"], f"sizes[0] a multiple of GroupCount {groups} ({layout})",
            tuple(filter_shape),
        )  # fmt: skip
    if filter_in != channels:
        expected = channels if backward else channels // groups
        raise InvalidArgumentError(
            op, names["filter"],
            f"sizes[{filter_in_at}] {expected} ({layout}; the input has {channels} channels)",
            tuple(filter_shape),
        )  # fmt: skip
    windows = [(k - 1) * d + 1 for k, d in zip(filter_shape[2:], fields["dilations"], strict=True)]
    out = []
    for i, (size, window) in enumerate(zip(sizes, windows, strict=True)):
        start, end = fields["start_padding"][i], fields["end_padding"][i]
        stride = fields["strides"][i]
        if backward:
            natural = (size - 1) * stride + window - start - end
        else:
            padded = size + start + end
            natural = (padded - window) // stride + 1 if padded >= window else 0
        if natural < 1 or size < 1:
            raise InvalidArgumentError(
                op, names["filter"],
                f"a dilated window ({window} along spatial dimension {i}) that leaves an output "
                f"of at least one element (input {size}, padding {start} + {end}, stride {stride})",
                tuple(filter_shape),
            )  # fmt: skip
        out.append(natural + fields["output_padding"][i])
    if bias_shape is not None:
        expected_bias = (1, out_channels) + (1,) * spatial
        if tuple(bias_shape) != expected_bias:
            raise InvalidArgumentError(
                op, names["bias"], f"{expected_bias} (one value per output channel)",
                tuple(bias_shape),
            )  # fmt: skip
    return (batch, out_channels, *out)


_DESC_NAMES = {
    "input": "input_tensor.sizes",
    "filter": "filter_tensor.sizes",
    "bias": "bias_tensor.sizes",
    "group_count": "group_count",
}


def _fields(desc: Any) -> dict[str, Any]:
    return {name: getattr(desc, name) for name in (*_ARRAYS, "direction", "group_count")}


def _extra(desc: Any) -> tuple[int, ...]:
    """How much longer than its smallest size the desc's output is, per spatial dimension."""
    smallest = output_shape(
        type(desc).__name__, _DESC_NAMES, desc.input_tensor.sizes, desc.filter_tensor.sizes,
        None, _fields(desc),
    )  # fmt: skip
    return tuple(o - s for o, s in zip(desc.output_tensor.sizes[2:], smallest[2:], strict=True))


def _rules(desc: Any, level: FL) -> None:
    op = type(desc).__name__
    check_fused_activation(desc, op=op, level=level)
    bias = None if desc.bias_tensor is None else desc.bias_tensor.sizes
    smallest = output_shape(
        op, _DESC_NAMES, desc.input_tensor.sizes, desc.filter_tensor.sizes, bias, _fields(desc)
    )
    given = desc.output_tensor.sizes
    backward = desc.direction is ConvolutionDirection.BACKWARD
    fits = given[:2] == smallest[:2] and all(
        0 <= o - s < (stride if backward else 1)
        for o, s, stride in zip(given[2:], smallest[2:], desc.strides, strict=True)
    )
    if not fits:
        why = "BatchCount, OutputChannelCount, then each spatial size plus OutputPadding" + (
            "; a backward output may be up to stride - 1 longer" if backward else ""
        )
        raise InvalidArgumentError(op, "output_tensor.sizes", f"{smallest} ({why})", given)


def _geometry(desc: Any) -> Geometry:
    return Geometry(
        mode=desc.mode,
        direction=desc.direction,
        strides=desc.strides,
        dilations=desc.dilations,
        start_padding=desc.start_padding,
        end_padding=desc.end_padding,
        output_padding=desc.output_padding,
        group_count=desc.group_count,
        extra=_extra(desc),
    )


def _lower(desc: Any, options: contract.LoweringOptions) -> Any:
    return functools.partial(
        convolution_lowering,
        geometry=_geometry(desc),
        activation=desc.fused_activation,
        allow_half_precision=options.allow_half_precision,
    )


# --- The functional face ------------------------------------------------------------------------

_OP = "dmljax.convolution"
_FACE_NAMES = {"input": "x", "filter": "filter", "bias": "bias", "group_count": "group_count"}


def _checked(
    x: jax.Array,
    w: jax.Array,
    b: jax.Array | None,
    strides: tuple[int, ...] | None,
    dilations: tuple[int, ...] | None,
    start_padding: tuple[int, ...] | None,
    end_padding: tuple[int, ...] | None,
    output_padding: tuple[int, ...] | None,
    group_count: int,
    mode: str,
    direction: str,
    allow_half_precision: bool,
) -> jax.Array:
    for name, array in (("x", x), ("filter", w), ("bias", b)):
        if array is None:
            continue
        rules.require_array_dtype(
            array, FACE_DTYPES, op=_OP, field=name, why="DML_OPERATOR_CONVOLUTION's types"
        )
        if array.dtype != x.dtype:
            raise InvalidArgumentError(_OP, f"{name}.dtype", f"{x.dtype} (x's)", str(array.dtype))
    if not 3 <= x.ndim <= 5:
        raise InvalidArgumentError(
            _OP, "x", "3 to 5 dimensions: (batch, channels, then 1 to 3 spatial)",
            f"shape {x.shape}",
        )  # fmt: skip
    if w.ndim != x.ndim:
        raise InvalidArgumentError(_OP, "filter", f"{x.ndim} dimensions, as x", f"shape {w.shape}")
    spatial = x.ndim - 2
    given = {"strides": strides, "dilations": dilations, "start_padding": start_padding,
             "end_padding": end_padding, "output_padding": output_padding}  # fmt: skip
    fields: dict[str, Any] = {
        **_filled(given, spatial),
        "group_count": group_count,
        "direction": ConvolutionDirection.coerce(direction, op=_OP, field="direction"),
    }
    output_shape(_OP, _FACE_NAMES, x.shape, w.shape, None if b is None else b.shape, fields)
    if fields["direction"] is ConvolutionDirection.BACKWARD and not all(
        type(k) is int for k in w.shape[2:]
    ):
        raise InvalidArgumentError(
            _OP, "filter", "static window sizes (a backward convolution's padding is computed "
            "from them)", f"shape {w.shape}",
        )  # fmt: skip
    geometry = Geometry(
        mode=ConvolutionMode.coerce(mode, op=_OP, field="mode"),
        extra=(0,) * spatial,
        **fields,
    )
    return convolution_lowering(
        x, w, b, geometry=geometry, allow_half_precision=allow_half_precision
    )


def _graph_node(call: NodeCall) -> Any:
    statics = call.statics
    return ConvolutionOperatorDesc(
        input_tensor=call.arrays["x"],
        filter_tensor=call.arrays["filter"],
        bias_tensor=call.arrays.get("bias"),
        output_tensor=call.outputs[0],
        mode=statics["mode"],
        direction=statics["direction"],
        **_filled(statics, call.arrays["x"].dimension_count - 2),
        group_count=statics["group_count"],
    )


def convolution(
    x: ArrayLike,
    filter: ArrayLike,  # DirectML's and ONNX's name
    bias: ArrayLike | None = None,
    *,
    strides: Sequence[int] | None = None,
    dilations: Sequence[int] | None = None,
    start_padding: Sequence[int] | None = None,
    end_padding: Sequence[int] | None = None,
    output_padding: Sequence[int] | None = None,
    group_count: int = 1,
    mode: str = "cross_correlation",
    direction: str = "forward",
    allow_half_precision: bool = False,
) -> jax.Array:
    """A 1-D, 2-D or 3-D convolution at full precision, channels first (DirectML
    CONVOLUTION).

    The functional face of :class:`ConvolutionOperatorDesc`. ``x`` is ``(batch,
    channels, *spatial)``. Forward, ``filter`` is ``(out_channels, channels //
    group_count, *window)`` and the result is
    ``lax.conv_general_dilated(x, filter, strides, padding, rhs_dilation=dilations,
    feature_group_count=group_count, precision="highest")``. ``direction="backward"``
    is its adjoint, the transposed convolution (ONNX's ConvTranspose, PyTorch's
    ``conv_transpose``): ``filter`` is ``(channels, out_channels // group_count,
    *window)``. ``mode="convolution"`` flips the window first. ``bias`` (``(1,
    out_channels, 1, ...)``) is added, and ``output_padding`` zeros appended at the end
    of each spatial dimension. float16 and bfloat16 accumulate in float32 and round once.

    Args:
        x: float32, float16, bfloat16 or float64, 3 to 5 dimensions.
        filter: of ``x``'s dtype and rank, laid out as above.
        bias: None, or ``(1, out_channels, 1, ...)``.
        strides, dilations: per spatial dimension (default 1s).
        start_padding, end_padding: zeros around the input forward; backward, the
            output positions cropped from each end (default 0s).
        output_padding: zeros appended to the result (default 0s).
        group_count: groups of channels convolved separately (``channels`` for a
            depthwise convolution).
        mode: ``"cross_correlation"`` or ``"convolution"`` (``DML_CONVOLUTION_MODE``).
        direction: ``"forward"`` or ``"backward"`` (``DML_CONVOLUTION_DIRECTION``).
        allow_half_precision: DirectML's
            ``DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION``: the backend's faster
            precision (TF32 on a recent NVIDIA GPU).

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.array([[[1.0, 2.0, 3.0, 4.0]]])
    >>> dml.convolution(x, jnp.array([[[1.0, -1.0]]]), strides=(2,), start_padding=(1,))
    Array([[[-1., -1.]]], dtype=float32)
    """
    return _FACE.call(
        x, filter, bias, strides, dilations, start_padding, end_padding, output_padding,
        group_count, mode, direction, allow_half_precision,
    )  # fmt: skip


_FACE = faces.FunctionalFace(
    convolution,
    _checked,
    faces.Data("x"),
    faces.Data("filter"),
    faces.Data("bias", optional=True),
    faces.IntTuple("strides", optional=True),
    faces.IntTuple("dilations", optional=True),
    faces.IntTuple("start_padding", optional=True),
    faces.IntTuple("end_padding", optional=True),
    faces.IntTuple("output_padding", optional=True),
    faces.Int("group_count"),
    faces.Choice(
        "mode",
        tuple(m.function_name for m in ConvolutionMode),
        aliases=tuple((m, m.function_name) for m in ConvolutionMode),
    ),
    faces.Choice(
        "direction",
        tuple(d.function_name for d in ConvolutionDirection),
        aliases=tuple((d, d.function_name) for d in ConvolutionDirection),
    ),
    faces.Bool("allow_half_precision"),
    graph_node=_graph_node,
)

CONVOLUTION: contract.Operator[ConvolutionOperatorDesc] = contract.Operator(
    "DML_OPERATOR_CONVOLUTION",
    ConvolutionOperatorDesc,
    support=(
        fl.band(FL.FL_1_0, (4, 5), fl.FLOATS_16_32),
        fl.band(FL.FL_4_0, (3, 5), fl.FLOATS_16_32),
    ),
    same_dimension_count=True,
    same_data_type=("input_tensor", "filter_tensor", "bias_tensor", "output_tensor"),
    rules=_rules,
    output_sizes=None,
    lower=_lower,
    face=_FACE,
)
