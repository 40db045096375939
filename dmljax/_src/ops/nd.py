"""Index tuples: what GATHER_ND, GATHER_ND1 and SCATTER_ND share.

An index tensor of shape ``(*batch, *positions, t)`` holds, at each position,
a tuple of ``t`` coordinates into the data's dimensions ``batch .. batch + t``;
the data's dimensions after those form the block each tuple addresses. So
the gathered (or scattered) blocks have the shape
``indices.shape[:-1] + data.shape[batch + t:]`` (:func:`block_shape`), the
form of ONNX ``GatherND``/``ScatterND`` and ``tf.gather_nd``.

DirectML's descs pad every tensor to one DimensionCount ``N`` with leading
1s, and say how many trailing dimensions mean something
(``InputDimensionCount``, ``IndicesDimensionCount``); :func:`check_desc`
holds those rules and :class:`DescLayout` the unpadded shapes the lowering
works on.

Both directions lower to one XLA gather or scatter: the tuple's coordinates
are the start indices, the batch dimensions are batching dimensions
(``operand_batching_dims``, which XLA's SPMD partitioner keeps sharded), and
the block is the slice, so a row lookup (``t = 1``) is exactly the gather
``x[idx[:, 0]]`` lowers to.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from jax import lax

from dmljax._src import rules
from dmljax._src.dtypes import require_x64_for_axis
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "DescLayout",
    "block_shape",
    "block_sizes",
    "check_desc",
    "check_index_tuples",
    "gather_dimension_numbers",
    "scatter_dimension_numbers",
]


def block_shape(
    data_shape: Sequence[int], index_shape: Sequence[int], batch: int
) -> tuple[int, ...]:
    """``indices.shape[:-1] + data.shape[batch + t:]``: the shape a gather returns and a
    scatter's updates have.

    >>> block_shape((3, 4, 5, 6, 7), (1, 2, 3), 0)
    (1, 2, 6, 7)
    """
    t = index_shape[-1]
    return (*index_shape[:-1], *data_shape[batch + t :])


def gather_dimension_numbers(
    rank: int, index_rank: int, batch: int, t: int
) -> lax.GatherDimensionNumbers:
    """A gather of ``t``-tuples into dimensions ``batch .. batch + t`` of a ``rank``-D operand,
    its blocks after the indices' dimensions."""
    positions = index_rank - 1
    return lax.GatherDimensionNumbers(
        offset_dims=tuple(range(positions, positions + rank - batch - t)),
        collapsed_slice_dims=tuple(range(batch, batch + t)),
        start_index_map=tuple(range(batch, batch + t)),
        operand_batching_dims=tuple(range(batch)),
        start_indices_batching_dims=tuple(range(batch)),
    )


def scatter_dimension_numbers(rank: int, index_rank: int, t: int) -> lax.ScatterDimensionNumbers:
    """The scatter that writes the blocks :func:`gather_dimension_numbers` reads (no batch)."""
    positions = index_rank - 1
    return lax.ScatterDimensionNumbers(
        update_window_dims=tuple(range(positions, positions + rank - t)),
        inserted_window_dims=tuple(range(t)),
        scatter_dims_to_operand_dims=tuple(range(t)),
    )


def check_index_tuples(
    data_shape: Sequence[int],
    index_shape: Sequence[int],
    batch: int,
    *,
    op: str,
    data: str = "x",
    indices: str = "indices",
) -> None:
    """A functional face's rules: indices of at least ``batch + 1`` dimensions whose last
    holds tuples no longer than the data's non-batch rank, and equal batch sizes."""
    data_shape, index_shape = tuple(data_shape), tuple(index_shape)
    if batch < 0:
        raise InvalidArgumentError(op, "batch_dims", "at least 0", batch)
    if len(index_shape) < batch + 1:
        before = f"batch_dims={batch}, then " if batch else ""
        raise InvalidArgumentError(
            op,
            f"{indices}.shape",
            f"at least {batch + 1} dimensions ({before}the index tuples along the last dimension)",
            index_shape,
            hint="A list of single coordinates needs a last dimension of 1: indices[..., None].",
        )
    t = index_shape[-1]
    if not rules.is_static_shape((t,)):
        raise InvalidArgumentError(
            op,
            f"{indices}.shape[-1]",
            "a known size: the length of each index tuple decides the rank of the result "
            "(as in jax.numpy, a rank cannot be symbolic)",
            f"the jax.export symbol {t}",
        )
    if batch + t > len(data_shape):
        bound = f"{data}.ndim - batch_dims" if batch else f"{data}.ndim"
        raise InvalidArgumentError(
            op,
            f"{indices}.shape[-1]",
            f"at most {len(data_shape) - batch} ({bound}): the length of each index tuple into "
            f"{data} of shape {data_shape}",
            t,
        )
    if index_shape[:batch] != data_shape[:batch]:
        raise InvalidArgumentError(
            op,
            f"{indices}.shape[:{batch}]",
            f"{data_shape[:batch]} ({data}.shape[:batch_dims])",
            index_shape[:batch],
        )
    for d in range(batch, batch + t):
        require_x64_for_axis(data_shape[d], op=op, field=f"{data}.shape[{d}]")


@dataclasses.dataclass(frozen=True)
class DescLayout:
    """The unpadded shapes of an ND desc: what its counts say is meaningful.

    Attributes:
        input: the last ``InputDimensionCount`` input sizes.
        indices: the last ``IndicesDimensionCount`` indices sizes.
        batch: ``BatchDimensionCount`` (0 for GATHER_ND and SCATTER_ND).
    """

    input: tuple[int, ...]
    indices: tuple[int, ...]
    batch: int

    @property
    def block(self) -> tuple[int, ...]:
        """The unpadded output (gather) or updates (scatter) shape."""
        return block_shape(self.input, self.indices, self.batch)


def _require_leading_ones(tensor: TensorDesc, count: int, *, op: str, field: str, by: str) -> None:
    leading = tensor.sizes[: tensor.dimension_count - count]
    if any(size != 1 for size in leading):
        raise InvalidArgumentError(
            op,
            f"{field}.sizes",
            f"1 in the first {len(leading)} dimensions (only the last {by}={count} are "
            "meaningful; the others are padding)",
            tensor.sizes,
        )


def check_desc(desc: Any, *, block_field: str) -> DescLayout:
    """Every rule of an ND desc's counts, index tuples and batches; its unpadded layout.

    ``desc`` is a GATHER_ND, GATHER_ND1 or SCATTER_ND desc (no
    ``batch_dimension_count`` means 0). The DimensionCounts are equal (the
    operator declares it). ``block_field`` is the tensor the blocks fill
    (``output_tensor``, ``updates_tensor``); its sizes are the block
    right-aligned to ``N`` by leading 1s, which must fit.
    """
    op = type(desc).__name__
    input_tensor: TensorDesc = desc.input_tensor
    indices_tensor: TensorDesc = desc.indices_tensor
    input_dimension_count: int = desc.input_dimension_count
    indices_dimension_count: int = desc.indices_dimension_count
    batch_dimension_count: int = getattr(desc, "batch_dimension_count", 0)
    n = input_tensor.dimension_count
    for field, count in (
        ("input_dimension_count", input_dimension_count),
        ("indices_dimension_count", indices_dimension_count),
    ):
        if not 1 <= count <= n:
            raise InvalidArgumentError(op, field, f"in [1, {n}] (the DimensionCount)", count)
    batch = batch_dimension_count
    if not 0 <= batch < min(input_dimension_count, indices_dimension_count):
        raise InvalidArgumentError(
            op,
            "batch_dimension_count",
            f"in [0, {min(input_dimension_count, indices_dimension_count) - 1}] (below "
            "input_dimension_count and indices_dimension_count: the batch dimensions come "
            "first among the meaningful ones, and the index tuples need a dimension after them)",
            batch,
        )
    _require_leading_ones(
        input_tensor, input_dimension_count, op=op, field="input_tensor", by="input_dimension_count"
    )
    _require_leading_ones(
        indices_tensor,
        indices_dimension_count,
        op=op,
        field="indices_tensor",
        by="indices_dimension_count",
    )
    layout = DescLayout(
        input_tensor.sizes[n - input_dimension_count :],
        indices_tensor.sizes[n - indices_dimension_count :],
        batch,
    )
    t = layout.indices[-1]
    if t > len(layout.input) - batch:
        raise InvalidArgumentError(
            op,
            f"indices_tensor.sizes[{n - 1}]",
            f"at most {len(layout.input) - batch} (input_dimension_count - "
            "batch_dimension_count): the length of each index tuple",
            t,
        )
    if layout.indices[:batch] != layout.input[:batch]:
        raise InvalidArgumentError(
            op,
            "indices_tensor.sizes",
            f"batch sizes {layout.input[:batch]} (the first batch_dimension_count={batch} "
            f"meaningful input sizes) before the index positions",
            indices_tensor.sizes,
        )
    if rules.right_align(layout.block, n) is None:
        raise InvalidArgumentError(
            op,
            "indices_dimension_count",
            f"small enough that the {block_field} sizes, indices[meaningful][:-1] ++ "
            f"input[meaningful][batch + t:] = {layout.block}, fit {n} dimensions by dropping "
            "leading 1s only",
            indices_dimension_count,
        )
    return layout


def block_sizes(layout: DescLayout, n: int) -> tuple[int, ...]:
    """The block right-aligned to ``n`` dimensions, as the desc's tensor holds it."""
    aligned = rules.right_align(layout.block, n)
    assert aligned is not None  # check_desc refused the others
    return aligned
