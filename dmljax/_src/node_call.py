"""A functional face's call as a graph node: what each face's node builder reads.

:class:`dmljax.GraphBuilder` runs a face on symbolic tensors: the face coerces its
statics as it always does, :func:`jax.eval_shape` finds its results, and the face's
``graph_node`` (declared beside the face) turns the call into the operator desc of one
node. DirectML wants one rank for every tensor of most operators, and a graph edge
joins tensors of equal bytes whatever their sizes, so a node's tensors are the face's
arrays right-aligned to the node's rank (leading 1s) where they have fewer dimensions.

>>> import dmljax as dml
>>> f32 = dml.DataType.FLOAT32
>>> call = NodeCall(arrays={"x": dml.TensorDesc(data_type=f32, sizes=(3,))}, statics={"axis": -1},
...                 outputs=(dml.TensorDesc(data_type=f32, sizes=(2, 3)),),
...                 feature_level=dml.FeatureLevel.FL_6_4)
>>> call.rank, call.aligned(call.arrays["x"]).sizes, call.axis("axis", of="x")
(2, (1, 3), 1)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["NodeCall", "require_no_reduction"]


@dataclasses.dataclass(frozen=True)
class NodeCall:
    """A face's call as one node of a graph.

    Attributes:
        arrays: the face's array arguments by name, as the TensorDescs of the tensors
            that feed them (a tuple for JOIN's ``arrays``; None for an absent one).
        statics: the face's static arguments by name, coerced as the face coerces them.
        outputs: the TensorDescs of the face's results, shapes and dtypes as
            :func:`jax.eval_shape` found them.
        feature_level: the graph's feature level.
    """

    arrays: Mapping[str, Any]
    statics: Mapping[str, Any]
    outputs: tuple[TensorDesc, ...]
    feature_level: FeatureLevel

    def _tensors(self) -> list[TensorDesc]:
        found = list(self.outputs)
        for value in self.arrays.values():
            found += list(value) if isinstance(value, tuple) else [value] if value else []
        return found

    @property
    def rank(self) -> int:
        """The node's rank: the most dimensions of any of its tensors."""
        return max(t.dimension_count for t in self._tensors())

    def aligned(self, tensor: TensorDesc) -> TensorDesc:
        """``tensor`` with leading 1s up to the node's rank: the same bytes, as DirectML
        reads them."""
        missing = self.rank - tensor.dimension_count
        if missing <= 0:
            return tensor
        strides = None if tensor.strides is None else (0,) * missing + tensor.strides
        return dataclasses.replace(tensor, sizes=(1,) * missing + tensor.sizes, strides=strides)

    def axis(self, name: str, *, of: str | None = None) -> int:
        """The static axis ``name`` (of the array ``of``, or of the first output), in
        ``[0, rank)`` of the node's aligned tensors."""
        if of is None:
            ndim = self.outputs[0].dimension_count
        else:
            value = self.arrays[of]
            ndim = (value[0] if isinstance(value, tuple) else value).dimension_count
        axis = self.statics[name]
        return (axis % ndim if ndim else 0) + self.rank - ndim


def require_no_reduction(reduction: str, *, op: str) -> None:
    """Refuses a scatter's reduction in a graph: DirectML's SCATTER and SCATTER_ND
    replace elements, and no desc of theirs reduces."""
    if reduction != "none":
        raise InvalidArgumentError(
            op, "reduction", "'none' in a graph (DirectML's SCATTER and SCATTER_ND replace; "
            "they do not reduce)", repr(reduction),
        )  # fmt: skip
