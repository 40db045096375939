"""What SPACE_TO_DEPTH's and DEPTH_TO_SPACE's companions share, as
:mod:`dmljax._src.ops.depth_space` is what their modules share: the depth index of the
order's definition, the pages' tables and example arrays, and the builders of their
support cases, doc-example faces and bench cases. It declares no operator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax

from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking.operator_checks import (
    FLOATS,
    INTS_8_32,
    TYPES_64,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.depth_space import DepthSpaceOrder
from dmljax._src.tensor_desc import TensorDesc

__all__ = [
    "CHECKS",
    "DOCUMENTED_SUPPORT",
    "DOCUMENTED_SUPPORT_1",
    "bench",
    "depth_channel",
    "doc_example_face",
    "page_example",
    "support_case",
]

CHECKS: tuple[OperatorChecks, ...] = ()  # the two companions declare them


def depth_channel(
    channel: Any, row: Any, column: Any, *, channels: int, block: int, order: str
) -> Any:
    """The depth index of (channel, block row, block column), as
    ``DML_DEPTH_SPACE_ORDER``'s page defines it: ``(BlockHeight, BlockWidth, Channels)``
    flattened for DCR, ``(Channels, BlockHeight, BlockWidth)`` for CRD.

    >>> depth_channel(1, 0, 1, channels=2, block=2, order="DCR")
    3
    """
    if order == "DCR":
        return (row * block + column) * channels + channel
    return (channel * block + row) * block + column


_8_32 = FLOATS | INTS_8_32
# SPACE_TO_DEPTH's and DEPTH_TO_SPACE's pages.
DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: ((4, 4), FLOATS, None),
    FeatureLevel.FL_2_1: ((4, 4), _8_32, None),
    FeatureLevel.FL_5_0: ((4, 4), _8_32 | TYPES_64, None),
}
# The "1" versions' pages: one table, and no 64-bit type in it.
DOCUMENTED_SUPPORT_1: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_2_1: ((4, 4), _8_32, None),
}


def support_case(
    desc_type: Any, block_of_1: tuple[int, int, int], **attributes: Any
) -> Callable[[int, DataType, DataType], Any]:
    """Valid descs of blocks of 2 whose input is ``block_of_1`` (C, H, W), output its
    rearrangement, with leading 1s up to the rank (ranks below 3 are refused anyway)."""
    square = {(1, 2, 2): (4, 1, 1), (4, 1, 1): (1, 2, 2)}[block_of_1]

    def case(rank: int, data_type: DataType, index_type: DataType) -> Any:
        del index_type
        sizes = (1,) * (rank - 3) + block_of_1 if rank >= 3 else (2,) * rank
        out = (1,) * (rank - 3) + square if rank >= 3 else sizes
        desc = desc_type(
            input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
            output_tensor=TensorDesc(data_type=data_type, sizes=out),
            block_size=2,
            **attributes,
        )
        return desc, (data_of(sizes, data_type),)

    return case


def doc_example_face(function: Callable[..., jax.Array]) -> Callable[[Any], jax.Array]:
    """An example through ``function`` (the face), with its desc's block and order."""

    def face(example: Any) -> jax.Array:
        (x,) = example.inputs
        order = getattr(example.desc, "order", DepthSpaceOrder.DEPTH_COLUMN_ROW)
        return function(x, example.desc.block_size, order=order)

    return face


# The arrays of the pages' examples: the same {1, 2, 4, 6} and {1, 8, 2, 3} on all four.
_DEPTH = [[[9 * c + 3 * row + col for col in range(3)] for row in range(2)] for c in range(8)]
_SPACE = {
    "DCR": [[[0, 18, 1, 19, 2, 20], [36, 54, 37, 55, 38, 56], [3, 21, 4, 22, 5, 23],
             [39, 57, 40, 58, 41, 59]],
            [[9, 27, 10, 28, 11, 29], [45, 63, 46, 64, 47, 65], [12, 30, 13, 31, 14, 32],
             [48, 66, 49, 67, 50, 68]]],
    "CRD": [[[0, 9, 1, 10, 2, 11], [18, 27, 19, 28, 20, 29], [3, 12, 4, 13, 5, 14],
             [21, 30, 22, 31, 23, 32]],
            [[36, 45, 37, 46, 38, 47], [54, 63, 55, 64, 56, 65], [39, 48, 40, 49, 41, 50],
             [57, 66, 58, 67, 59, 68]]],
}  # fmt: skip
_PAGES = "MicrosoftDocs/sdk-api:sdk-api-src/content/directml/ns-directml-dml_{}_operator_desc.md"


def page_example(
    name: str, number: int, heading: str, order: str | None, *, to_depth: bool, notes: str
) -> dict[str, Any]:
    """Example ``number`` of the page of ``name`` (``space_to_depth1``, ...), as an entry."""
    attrs: dict[str, Any] = {"BlockSize": 2}
    if order is not None:
        attrs["Order"] = (
            "DML_DEPTH_SPACE_ORDER_" + DepthSpaceOrder.coerce(order, op="", field="").name
        )
    space = {"sizes": [1, 2, 4, 6], "dtype": "UINT32", "data": [_SPACE[order or "DCR"]]}
    depth = {"sizes": [1, 8, 2, 3], "dtype": "UINT32", "data": [_DEPTH]}
    return {
        "id": f"{name}-ex{number}",
        "op": f"DML_OPERATOR_{name.upper()}",
        "source": f"{_PAGES.format(name)} ({heading})",
        "attrs": attrs,
        "inputs": {"InputTensor": space if to_depth else depth},
        "expected": depth if to_depth else space,
        "notes": notes,
        "status": "valid",
    }


def bench(
    function: Callable[..., jax.Array],
    jnp_function: Callable[[jax.Array, int, str], jax.Array],
    desc_type: Any,
    shapes: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]],
) -> Callable[[], list[Case | EagerCase]]:
    """Blocks of 4 in both orders on a (quick, full) f32 shape against the jnp reshape-
    transpose, and an eager call on a tiny one."""
    quick, full, tiny = shapes
    name = function.__name__

    def case(order: str) -> Case:
        def make_args(key: jax.Array, is_quick: bool) -> tuple[jax.Array, ...]:
            return (operands.normal(key, quick if is_quick else full),)

        def bytes_moved(args: Sequence[jax.Array]) -> int:
            return 2 * args[0].nbytes  # read once, written once

        return Case(
            name=f"{name} {order} block 4",
            operator=f"{name.upper()}1",
            make_args=make_args,
            dmljax_fn=lambda x: function(x, 4, order=order),
            jnp_fn=lambda x: jnp_function(x, 4, order),
            bytes_moved=bytes_moved,
        )

    def cases() -> list[Case | EagerCase]:
        return [
            case("DCR"),
            case("CRD"),
            EagerCase(
                name=f"{name} eager",
                operator=f"{name.upper()}1",
                desc=lambda x: desc_type(
                    input_tensor=TensorDesc.from_array(x),
                    output_tensor=TensorDesc.from_array(jnp_function(x, 2, "DCR")),
                    block_size=2,
                    order=DepthSpaceOrder.DEPTH_COLUMN_ROW,
                ),
                functional=lambda x: function(x, 2),
                jnp_fn=lambda x: jnp_function(x, 2, "DCR"),
                make_args=lambda key: (operands.normal(key, tiny),),
            ),
        ]

    return cases
