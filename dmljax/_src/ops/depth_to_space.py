"""DEPTH_TO_SPACE and DEPTH_TO_SPACE1: ``DML_DEPTH_TO_SPACE[1]_OPERATOR_DESC`` and
:func:`dmljax.depth_to_space`, the inverse of SPACE_TO_DEPTH.

Each group of ``BlockSize**2`` channels of an NCHW tensor becomes one
``BlockSize x BlockSize`` block of height and width: the output is
``{N, C / (B * B), H * B, W * B}``. The :class:`DepthSpaceOrder` says how a depth
index is made of the block's row, its column and the output channel.
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
    "DEPTH_TO_SPACE",
    "DEPTH_TO_SPACE1",
    "DepthToSpace1OperatorDesc",
    "DepthToSpaceOperatorDesc",
    "depth_to_space",
    "depth_to_space_lowering",
]

_FUNCTION = "dmljax.depth_to_space"


class DepthToSpaceOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_DEPTH_TO_SPACE_OPERATOR_DESC``: groups of channels into blocks of height and
    width, in :attr:`DepthSpaceOrder.DEPTH_COLUMN_ROW` order.

    The rules (checked by :func:`dmljax.compile_operator`): 4-D NCHW tensors of one
    data type; ``block_size`` at least 1, its square dividing C; the output is
    ``{N, C / (B * B), H * B, W * B}``. Introduced at FL 1_0 (floats); integers of 8
    to 32 bits from 2_1, 64-bit types from 5_0.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.DepthToSpaceOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 4, 1, 1)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 2)),
    ...     block_size=2)
    >>> dml.compile_operator(desc)(jnp.arange(4.0).reshape(1, 4, 1, 1))[0, 0]
    Array([[0., 1.],
           [2., 3.]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    block_size: int = contract.attribute(static_int)


class DepthToSpace1OperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_DEPTH_TO_SPACE1_OPERATOR_DESC``: DEPTH_TO_SPACE with a choice of ``order``.

    The rules are DEPTH_TO_SPACE's. Introduced at FL 2_1 (4-D, floats and integers
    of 8 to 32 bits; the page lists no 64-bit type at any level).

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.DepthToSpace1OperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 8, 1, 1)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 2, 2, 2)),
    ...     block_size=2, order=dml.DepthSpaceOrder.COLUMN_ROW_DEPTH)
    >>> dml.compile_operator(desc)(jnp.arange(8.0).reshape(1, 8, 1, 1)).ravel()
    Array([0., 1., 2., 3., 4., 5., 6., 7.], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    block_size: int = contract.attribute(static_int)
    order: DepthSpaceOrder = contract.attribute(DepthSpaceOrder.coerce)


def depth_to_space_sizes(
    sizes: tuple[int, ...], block_size: int, *, op: str, field: str
) -> tuple[int, ...]:
    """``(..., C / (B * B), H * B, W * B)``; raises unless B * B divides C."""
    *batch, channels, height, width = sizes
    square = block_size * block_size
    # A jax.export symbol cannot be proven divisible (unless the block is 1).
    if square != 1 and (not isinstance(channels, int) or channels % square):
        raise InvalidArgumentError(
            op,
            field,
            f"a channel count divisible by block_size**2 = {square}",
            f"channels {channels} of sizes {tuple(sizes)}",
        )
    return (*batch, channels // square, height * block_size, width * block_size)


def depth_to_space_lowering(x: jax.Array, *, block_size: int, order: DepthSpaceOrder) -> jax.Array:
    """The one implementation of DEPTH_TO_SPACE, shared by both faces: a reshape that
    splits the channels, one transpose, and a reshape (one copy in XLA)."""
    *batch, channels, height, width = x.shape
    b = block_size
    lead = len(batch)
    out_channels = channels // (b * b)
    if order is DepthSpaceOrder.DEPTH_COLUMN_ROW:
        split = (b, b, out_channels)  # axes after the batch: BH 0, BW 1, C 2, H 3, W 4
        axes = (2, 3, 0, 4, 1)
    else:
        split = (out_channels, b, b)  # C 0, BH 1, BW 2, H 3, W 4
        axes = (0, 3, 1, 4, 2)
    grouped = lax.reshape(x, (*batch, *split, height, width))
    moved = lax.transpose(grouped, (*range(lead), *(lead + axis for axis in axes)))
    return lax.reshape(moved, (*batch, out_channels, height * b, width * b))


def depth_to_space(
    x: ArrayLike, block_size: int, *, order: DepthSpaceOrder | str = "DCR"
) -> jax.Array:
    """Moves each group of ``block_size**2`` channels into a ``block_size x block_size``
    block of the last two dimensions (DirectML DEPTH_TO_SPACE1; ONNX's DepthToSpace,
    PyTorch's ``pixel_shuffle`` with ``order="CRD"``).

    The functional face of :class:`DepthToSpace1OperatorDesc`, for ``x`` of shape
    ``(..., C, H, W)`` (NCHW, any number of leading dimensions), any JAX dtype; the
    inverse of :func:`dmljax.space_to_depth` with the same block size and order.

    Args:
        x: the array, of at least three dimensions.
        block_size: the block's side, at least 1, its square dividing C; a Python int.
        order: a :class:`DepthSpaceOrder`, or ONNX's ``"DCR"`` (the default,
            DirectML's DEPTH_TO_SPACE) or ``"CRD"``.

    Returns:
        An array of shape ``(..., C / block_size**2, H * block_size, W * block_size)``.

    Raises:
        InvalidArgumentError: fewer than three dimensions, a block size below 1 or
            whose square does not divide C, or an unknown order.

    Differentiable (the gradient is :func:`dmljax.space_to_depth` of the cotangent),
    and usable under :func:`jax.jit` and :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.arange(4).reshape(1, 4, 1, 1)
    >>> dml.depth_to_space(x, 2)[0, 0]
    Array([[0, 1],
           [2, 3]], dtype=int32)
    """
    return _FACE.call(x, block_size, order)


_DIRECTION = depth_space.Direction(
    _FUNCTION,
    depth_to_space_sizes,
    "{N, C / block_size**2, H * block_size, W * block_size} of input_tensor.sizes",
    depth_to_space_lowering,
)
_FACE = depth_space.functional_face(depth_to_space, _DIRECTION, DepthToSpace1OperatorDesc)

DEPTH_TO_SPACE, DEPTH_TO_SPACE1 = depth_space.operators(
    _DIRECTION,
    ("DML_OPERATOR_DEPTH_TO_SPACE", DepthToSpaceOperatorDesc),
    ("DML_OPERATOR_DEPTH_TO_SPACE1", DepthToSpace1OperatorDesc),
    _FACE,
)
