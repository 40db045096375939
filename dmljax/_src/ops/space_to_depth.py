"""SPACE_TO_DEPTH and SPACE_TO_DEPTH1: ``DML_SPACE_TO_DEPTH[1]_OPERATOR_DESC`` and
:func:`dmljax.space_to_depth`, and :class:`DepthSpaceOrder`, which DEPTH_TO_SPACE shares.

Each ``BlockSize x BlockSize`` block of the height and width dimensions of an
NCHW tensor becomes ``BlockSize**2`` channels at one position: the output is
``{N, C * B * B, H / B, W / B}``. The order says how the new channel index is
made of the block's row, its column and the input channel.
"""

from __future__ import annotations

import enum
import functools
from typing import Any

import jax
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl
from dmljax._src.arguments import static_int
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "SPACE_TO_DEPTH",
    "SPACE_TO_DEPTH1",
    "DepthSpaceOrder",
    "SpaceToDepth1OperatorDesc",
    "SpaceToDepthOperatorDesc",
    "require_block_size",
    "space_to_depth",
    "space_to_depth_lowering",
]

_FUNCTION = "dmljax.space_to_depth"


class DepthSpaceOrder(enum.IntEnum):
    """A ``DML_DEPTH_SPACE_ORDER``: how a depth index is made of a block's row and column
    and a channel (introduced with SPACE_TO_DEPTH1 and DEPTH_TO_SPACE1 at FL 2_1).

    ``DEPTH_COLUMN_ROW`` (ONNX's ``"DCR"``) flattens ``(BlockHeight, BlockWidth,
    Channels)``: the order of SPACE_TO_DEPTH and DEPTH_TO_SPACE. ``COLUMN_ROW_DEPTH``
    (``"CRD"``) flattens ``(Channels, BlockHeight, BlockWidth)``.

    >>> import dmljax as dml
    >>> dml.DepthSpaceOrder.COLUMN_ROW_DEPTH.onnx_mode
    'CRD'
    """

    DEPTH_COLUMN_ROW = 0
    COLUMN_ROW_DEPTH = 1

    @property
    def onnx_mode(self) -> str:
        """ONNX DepthToSpace's name for the order: ``"DCR"`` or ``"CRD"``."""
        return "DCR" if self is DepthSpaceOrder.DEPTH_COLUMN_ROW else "CRD"

    def __str__(self) -> str:
        return self.name

    @classmethod
    def coerce(cls, value: Any, *, op: str, field: str) -> DepthSpaceOrder:
        """``value`` (a member, its value, its name, with or without DirectML's prefix,
        or ONNX's ``"DCR"``/``"CRD"``) as a DepthSpaceOrder."""
        if isinstance(value, str):
            name = value.upper().removeprefix("DML_").removeprefix("DEPTH_SPACE_ORDER_")
            onnx_names = {"DCR": cls.DEPTH_COLUMN_ROW, "CRD": cls.COLUMN_ROW_DEPTH}
            found = onnx_names.get(name, cls.__members__.get(name))
            if found is not None:
                return found
        elif isinstance(value, int) and not isinstance(value, bool):
            try:
                return cls(value)
            except ValueError:
                pass
        else:
            raise ArgumentTypeError(op, field, "a dmljax.DepthSpaceOrder", repr(value))
        names = ", ".join(order.name for order in cls)
        raise InvalidArgumentError(
            op, field, f"a DML_DEPTH_SPACE_ORDER ({names}, or 'DCR' or 'CRD')", repr(value)
        )


def require_block_size(block_size: int, *, op: str) -> None:
    """DirectML's BlockSize is a UINT and a block has at least one element."""
    if block_size < 1:
        raise InvalidArgumentError(op, "block_size", "at least 1", block_size)


class SpaceToDepthOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_SPACE_TO_DEPTH_OPERATOR_DESC``: blocks of height and width into channels,
    in :attr:`DepthSpaceOrder.DEPTH_COLUMN_ROW` order.

    The rules (checked by :func:`dmljax.compile_operator`): 4-D NCHW tensors of one
    data type; ``block_size`` at least 1 and dividing H and W; the output is
    ``{N, C * B * B, H / B, W / B}``. Introduced at FL 1_0 (floats); integers of 8 to
    32 bits from 2_1, 64-bit types from 5_0.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.SpaceToDepthOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 2)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 4, 1, 1)),
    ...     block_size=2)
    >>> dml.compile_operator(desc)(jnp.arange(4.0).reshape(1, 1, 2, 2)).ravel()
    Array([0., 1., 2., 3.], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    block_size: int = contract.attribute(static_int)


class SpaceToDepth1OperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_SPACE_TO_DEPTH1_OPERATOR_DESC``: SPACE_TO_DEPTH with a choice of ``order``.

    The rules are SPACE_TO_DEPTH's. Introduced at FL 2_1 (4-D, floats and integers
    of 8 to 32 bits; the page lists no 64-bit type at any level).

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.SpaceToDepth1OperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 2, 2, 2)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 8, 1, 1)),
    ...     block_size=2, order=dml.DepthSpaceOrder.COLUMN_ROW_DEPTH)
    >>> dml.compile_operator(desc)(jnp.arange(8.0).reshape(1, 2, 2, 2)).ravel()
    Array([0., 1., 2., 3., 4., 5., 6., 7.], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    block_size: int = contract.attribute(static_int)
    order: DepthSpaceOrder = contract.attribute(DepthSpaceOrder.coerce)


def space_to_depth_sizes(
    sizes: tuple[int, ...], block_size: int, *, op: str, field: str
) -> tuple[int, ...]:
    """``(..., C * B * B, H / B, W / B)``; raises unless B divides H and W."""
    *batch, channels, height, width = sizes
    for name, size in (("height", height), ("width", width)):
        # A jax.export symbol cannot be proven divisible (unless the block is 1).
        if block_size != 1 and (not isinstance(size, int) or size % block_size):
            raise InvalidArgumentError(
                op,
                field,
                f"a {name} divisible by block_size {block_size}",
                f"{name} {size} of sizes {tuple(sizes)}",
            )
    return (*batch, channels * block_size**2, height // block_size, width // block_size)


def _rules(desc: Any, level: FL) -> None:
    del level
    require_block_size(desc.block_size, op=type(desc).__name__)


def _output_sizes(desc: Any) -> tuple[tuple[int, ...], str]:
    op = type(desc).__name__
    sizes = space_to_depth_sizes(
        desc.input_tensor.sizes, desc.block_size, op=op, field="input_tensor.sizes"
    )
    return sizes, "{N, C * block_size**2, H / block_size, W / block_size} of input_tensor.sizes"


def space_to_depth_lowering(x: jax.Array, *, block_size: int, order: DepthSpaceOrder) -> jax.Array:
    """The one implementation of SPACE_TO_DEPTH, shared by both faces: a reshape that
    splits H and W into blocks, one transpose, and a reshape (one copy in XLA)."""
    *batch, channels, height, width = x.shape
    b = block_size
    lead = len(batch)
    split = lax.reshape(x, (*batch, channels, height // b, b, width // b, b))
    # Axes after the batch: C 0, H/B 1, BH 2, W/B 3, BW 4.
    depth = (2, 4, 0) if order is DepthSpaceOrder.DEPTH_COLUMN_ROW else (0, 2, 4)
    permutation = (*range(lead), *(lead + axis for axis in (*depth, 1, 3)))
    moved = lax.transpose(split, permutation)
    return lax.reshape(moved, (*batch, channels * b * b, height // b, width // b))


def _lower(desc: Any, options: contract.LoweringOptions) -> Any:
    del options
    order = getattr(desc, "order", DepthSpaceOrder.DEPTH_COLUMN_ROW)
    return functools.partial(space_to_depth_lowering, block_size=desc.block_size, order=order)


def space_to_depth(
    x: ArrayLike, block_size: int, *, order: DepthSpaceOrder | str = "DCR"
) -> jax.Array:
    """Moves each ``block_size x block_size`` block of the last two dimensions into
    channels (DirectML SPACE_TO_DEPTH1; ONNX's and TensorFlow's SpaceToDepth).

    The functional face of :class:`SpaceToDepth1OperatorDesc`, for ``x`` of shape
    ``(..., C, H, W)`` (NCHW, any number of leading dimensions), any JAX dtype.

    Args:
        x: the array, of at least three dimensions.
        block_size: the block's side, at least 1, dividing H and W; a Python int.
        order: a :class:`DepthSpaceOrder`, or ONNX's ``"DCR"`` (the default,
            DirectML's SPACE_TO_DEPTH) or ``"CRD"``.

    Returns:
        An array of shape ``(..., C * block_size**2, H / block_size, W / block_size)``.

    Raises:
        InvalidArgumentError: fewer than three dimensions, a block size below 1 or
            not dividing H and W, or an unknown order.

    Differentiable (the gradient is :func:`dmljax.depth_to_space` of the cotangent),
    and usable under :func:`jax.jit` and :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.arange(16).reshape(1, 1, 4, 4)
    >>> dml.space_to_depth(x, 2)[0, :, 0, 0]
    Array([0, 1, 4, 5], dtype=int32)
    """
    return _FACE.call(x, block_size, order)


def _checked_space_to_depth(x: jax.Array, block_size: int, order: Any) -> jax.Array:
    """:func:`space_to_depth`'s checks, while tracing, then the lowering."""
    if x.ndim < 3:
        raise InvalidArgumentError(
            _FUNCTION, "x", "an array of at least 3 dimensions (..., C, H, W)", f"shape {x.shape}"
        )
    require_block_size(block_size, op=_FUNCTION)
    space_to_depth_sizes(tuple(x.shape), block_size, op=_FUNCTION, field="x")
    order = DepthSpaceOrder.coerce(order, op=_FUNCTION, field="order")
    return space_to_depth_lowering(x, block_size=block_size, order=order)


_ORDER_ALIASES = tuple((order, order.onnx_mode) for order in DepthSpaceOrder)
_FACE = faces.FunctionalFace(
    space_to_depth,
    _checked_space_to_depth,
    faces.Data("x"),
    faces.Int("block_size"),
    faces.Choice("order", ("DCR", "CRD"), aliases=_ORDER_ALIASES),
    keys=True,
)

_FL_1_0 = fl.band(FL.FL_1_0, (4, 4), fl.FLOATS_16_32)
_FL_2_1 = fl.band(FL.FL_2_1, (4, 4), fl.TYPES_8_32)

SPACE_TO_DEPTH = contract.Operator(
    "DML_OPERATOR_SPACE_TO_DEPTH",
    SpaceToDepthOperatorDesc,
    support=(_FL_1_0, _FL_2_1, fl.band(FL.FL_5_0, (4, 4), fl.TYPES_8_64)),
    same_dimension_count=True,
    same_data_type=("input_tensor", "output_tensor"),
    rules=_rules,
    output_sizes=_output_sizes,
    lower=_lower,
    face=None,
    served_by="DML_OPERATOR_SPACE_TO_DEPTH1",
)

SPACE_TO_DEPTH1 = contract.Operator(
    "DML_OPERATOR_SPACE_TO_DEPTH1",
    SpaceToDepth1OperatorDesc,
    support=(_FL_2_1,),
    same_dimension_count=True,
    same_data_type=("input_tensor", "output_tensor"),
    rules=_rules,
    output_sizes=_output_sizes,
    lower=_lower,
    face=_FACE,
)
