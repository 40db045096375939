"""GATHER_ND1: ``DML_GATHER_ND1_OPERATOR_DESC``, GATHER_ND with batch dimensions.

``output[b, p, rest] = input[b, indices[b, p, :], rest]`` where ``b`` runs
over the first ``BatchDimensionCount`` meaningful dimensions, which the input
and the indices share. With ``BatchDimensionCount = 0`` it is GATHER_ND. Its
rules, lowering and functional face (:func:`dmljax.gather_nd` with
``batch_dims``) are GATHER_ND's (:mod:`dmljax._src.ops.gather_nd`).
"""

from __future__ import annotations

import jax
from jax.typing import ArrayLike

from dmljax._src import contract, feature_levels as fl
from dmljax._src.arguments import static_int
from dmljax._src.node_call import NodeCall
from dmljax._src.ops import gather_nd
from dmljax._src.ops.gather_nd import (
    GatherNdOperatorDesc,
    gather_nd_output_sizes,
    gather_nd_rules,
    lower_gather_nd,
)
from dmljax._src.tensor_desc import TensorDesc

__all__ = ["GATHER_ND1", "GatherNd1OperatorDesc"]


class GatherNd1OperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike]):
    """``DML_GATHER_ND1_OPERATOR_DESC``: GATHER_ND within each of a batch of blocks.

    The rules are GATHER_ND's (:class:`dmljax.GatherNdOperatorDesc`) plus:
    ``batch_dimension_count`` is below both ``input_dimension_count`` and
    ``indices_dimension_count`` (the page's ``[0, DimensionCount)`` bound,
    applied to the meaningful dimensions, as DirectMLX checks it); the first
    ``batch_dimension_count`` meaningful sizes of the input and the indices are
    equal; each tuple is at most ``input_dimension_count -
    batch_dimension_count`` long. Introduced at FL 3_0 (1 to 8 dimensions,
    INT32/INT64/UINT32/UINT64 indices); 4_1: 64-bit data.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32, i32 = dml.DataType.FLOAT32, dml.DataType.INT32
    >>> desc = dml.GatherNd1OperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 3)),
    ...     indices_tensor=dml.TensorDesc(data_type=i32, sizes=(2, 1)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 2)),
    ...     input_dimension_count=2, indices_dimension_count=2, batch_dimension_count=1)
    >>> x = jnp.array([[0.0, 1, 2], [3, 4, 5]])
    >>> dml.compile_operator(desc)(x, jnp.array([[2], [-3]], jnp.int32))  # x[b, i[b]]
    Array([[2., 3.]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    indices_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    input_dimension_count: int = contract.attribute(static_int)
    indices_dimension_count: int = contract.attribute(static_int)
    batch_dimension_count: int = contract.attribute(static_int)


# GATHER_ND's table from FL 3_0, where GATHER_ND1 was introduced.
_GATHER_ND1_SUPPORT = fl.indexed_bands()[1:]


def _gather_nd_node(call: NodeCall) -> GatherNdOperatorDesc | GatherNd1OperatorDesc:
    """GATHER_ND, or GATHER_ND1 (FL 3_0) for batch dimensions."""
    x, indices = call.arrays["x"], call.arrays["indices"]
    tensors = {
        "input_tensor": call.aligned(x),
        "indices_tensor": call.aligned(indices),
        "output_tensor": call.aligned(call.outputs[0]),
        "input_dimension_count": x.dimension_count,
        "indices_dimension_count": indices.dimension_count,
    }
    batch = call.statics["batch_dims"]
    if batch == 0:
        return GatherNdOperatorDesc(**tensors)
    return GatherNd1OperatorDesc(**tensors, batch_dimension_count=batch)


# dmljax.gather_nd's face is GATHER_ND's, declared in gather_nd.py, which cannot import
# this module's desc (this module imports it): its graph node is declared here.
gather_nd.GATHER_ND_FACE.graph_node = _gather_nd_node

GATHER_ND1 = contract.Operator(
    "DML_OPERATOR_GATHER_ND1",
    GatherNd1OperatorDesc,
    support=_GATHER_ND1_SUPPORT,
    same_dimension_count=True,
    same_data_type=("input_tensor", "output_tensor"),
    rules=gather_nd_rules,
    output_sizes=gather_nd_output_sizes,
    lower=lower_gather_nd,
    face=None,
    served_by="DML_OPERATOR_GATHER_ND",  # dmljax.gather_nd(..., batch_dims=)
)
