"""What SPACE_TO_DEPTH and DEPTH_TO_SPACE share: :class:`DepthSpaceOrder`, the block-size
rule, the support tables, and the functional face's checks and declaration.

The two are each other's inverse over the same layouts, so each module keeps only its
own direction: the desc, the sizes it computes and its reshape-transpose lowering.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import jax

from dmljax._src import contract, face as faces, feature_levels as fl
from dmljax._src.enums import DmlEnum
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax.errors import InvalidArgumentError

__all__ = [
    "NEWER_SUPPORT",
    "OLDER_SUPPORT",
    "DepthSpaceOrder",
    "Direction",
    "functional_face",
    "lower",
    "operators",
    "require_block_size",
    "rules",
]


class DepthSpaceOrder(DmlEnum):
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

    @classmethod
    def other_names(cls) -> Mapping[str, DepthSpaceOrder]:
        """ONNX's names: ``"DCR"`` and ``"CRD"``."""
        return {"DCR": cls.DEPTH_COLUMN_ROW, "CRD": cls.COLUMN_ROW_DEPTH}


_FL_2_1 = fl.band(FL.FL_2_1, (4, 4), fl.TYPES_8_32)
# SPACE_TO_DEPTH's and DEPTH_TO_SPACE's pages: floats at FL 1_0, 8- to 32-bit integers
# from 2_1, 64-bit types from 5_0, always 4-D.
OLDER_SUPPORT = (fl.band(FL.FL_1_0, (4, 4), fl.FLOATS_16_32), _FL_2_1,
                 fl.band(FL.FL_5_0, (4, 4), fl.TYPES_8_64))  # fmt: skip
# The "1" versions' pages have one table, from FL 2_1, with no 64-bit type.
NEWER_SUPPORT = (_FL_2_1,)

Sizes = Callable[..., tuple[int, ...]]
"""``sizes(input_sizes, block_size, *, op, field) -> output sizes``; raises where the
block does not divide them."""


@dataclasses.dataclass(frozen=True)
class Direction:
    """One direction of the rearrangement: the sizes it computes and its lowering.

    Attributes:
        function: the face's public name, ``"dmljax.space_to_depth"``.
        sizes: the output sizes of input sizes and a block (:data:`Sizes`).
        why: how the output sizes follow, for a desc's error.
        lowering: ``lowering(x, *, block_size, order)``.
    """

    function: str
    sizes: Sizes
    why: str
    lowering: Callable[..., Any]

    def output_sizes(self, desc: Any) -> tuple[tuple[int, ...], str]:
        """The desc's output sizes (``Operator(output_sizes=)``)."""
        op = type(desc).__name__
        sizes = self.sizes(
            desc.input_tensor.sizes, desc.block_size, op=op, field="input_tensor.sizes"
        )
        return sizes, self.why

    def checked(self, x: jax.Array, block_size: int, order: Any) -> jax.Array:
        """The functional face's checks, while tracing, then the lowering."""
        if x.ndim < 3:
            raise InvalidArgumentError(
                self.function, "x", "an array of at least 3 dimensions (..., C, H, W)",
                f"shape {x.shape}",
            )  # fmt: skip
        require_block_size(block_size, op=self.function)
        self.sizes(tuple(x.shape), block_size, op=self.function, field="x")
        order = DepthSpaceOrder.coerce(order, op=self.function, field="order")
        return self.lowering(x, block_size=block_size, order=order)


def require_block_size(block_size: int, *, op: str) -> None:
    """DirectML's BlockSize is a UINT and a block has at least one element."""
    if block_size < 1:
        raise InvalidArgumentError(op, "block_size", "at least 1", block_size)


def rules(desc: Any, level: FL) -> None:
    """The rule both descs have beyond their table and output sizes."""
    del level
    require_block_size(desc.block_size, op=type(desc).__name__)


def lower(direction: Direction) -> Callable[[Any, contract.LoweringOptions], Any]:
    """``Operator(lower=)``: the direction's lowering with the desc's block and order."""

    def lowered(desc: Any, options: contract.LoweringOptions) -> Any:
        del options
        order = getattr(desc, "order", DepthSpaceOrder.DEPTH_COLUMN_ROW)  # the older version's
        return functools.partial(direction.lowering, block_size=desc.block_size, order=order)

    return lowered


Older = TypeVar("Older", bound=contract.OperatorDesc)
Newer = TypeVar("Newer", bound=contract.OperatorDesc)


def operators(
    direction: Direction,
    older: tuple[str, type[Older]],
    newer: tuple[str, type[Newer]],
    face: faces.FunctionalFace,
) -> tuple[contract.Operator[Older], contract.Operator[Newer]]:
    """The direction's two operators, from their DirectML names and descs: the older
    (DCR order only, served by the newer one's face) and the newer (with ``Order``)."""
    shared: dict[str, Any] = {
        "same_dimension_count": True,
        "same_data_type": ("input_tensor", "output_tensor"),
        "rules": rules,
        "output_sizes": direction.output_sizes,
        "lower": lower(direction),
    }
    return (
        contract.Operator(*older, support=OLDER_SUPPORT, face=None, served_by=newer[0], **shared),
        contract.Operator(*newer, support=NEWER_SUPPORT, face=face, **shared),
    )


_ORDER_ALIASES = tuple((order, order.onnx_mode) for order in DepthSpaceOrder)


def functional_face(
    function: Callable[..., Any], direction: Direction, desc_type: type
) -> faces.FunctionalFace:
    """``function(x, block_size, *, order)``'s face: it moves keys, as any data movement;
    in a graph, a node of ``desc_type`` (the newer desc, which has the order)."""

    def graph_node(call: NodeCall) -> Any:
        return desc_type(
            input_tensor=call.arrays["x"],
            output_tensor=call.outputs[0],
            block_size=call.statics["block_size"],
            order=call.statics["order"],
        )

    return faces.FunctionalFace(
        function,
        direction.checked,
        faces.Data("x"),
        faces.Int("block_size"),
        faces.Choice("order", ("DCR", "CRD"), aliases=_ORDER_ALIASES),
        keys=True,
        graph_node=graph_node,
    )
