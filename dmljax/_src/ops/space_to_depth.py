"""SPACE_TO_DEPTH and SPACE_TO_DEPTH1: ``DML_SPACE_TO_DEPTH[1]_OPERATOR_DESC`` and
:func:`dmljax.space_to_depth` (what it shares with DEPTH_TO_SPACE is in
:mod:`dmljax._src.ops.depth_space`).

Each ``BlockSize x BlockSize`` block of the height and width dimensions of an
NCHW tensor becomes ``BlockSize**2`` channels at one position: the output is
``{N, C * B * B, H / B, W / B}``. The order says how the new channel index is
made of the block's row, its column and the input channel.
"""

from __future__ import annotations

import jax
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract
from dmljax._src.arguments import static_int
from dmljax._src.ops import depth_space
from dmljax._src.ops.depth_space import DepthSpaceOrder
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "SPACE_TO_DEPTH",
    "SPACE_TO_DEPTH1",
    "SpaceToDepth1OperatorDesc",
    "SpaceToDepthOperatorDesc",
    "space_to_depth",
    "space_to_depth_lowering",
]

_FUNCTION = "dmljax.space_to_depth"


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


_DIRECTION = depth_space.Direction(
    _FUNCTION,
    space_to_depth_sizes,
    "{N, C * block_size**2, H / block_size, W / block_size} of input_tensor.sizes",
    space_to_depth_lowering,
)
_FACE = depth_space.functional_face(space_to_depth, _DIRECTION, SpaceToDepth1OperatorDesc)

SPACE_TO_DEPTH, SPACE_TO_DEPTH1 = depth_space.operators(
    _DIRECTION,
    ("DML_OPERATOR_SPACE_TO_DEPTH", SpaceToDepthOperatorDesc),
    ("DML_OPERATOR_SPACE_TO_DEPTH1", SpaceToDepth1OperatorDesc),
    _FACE,
)
