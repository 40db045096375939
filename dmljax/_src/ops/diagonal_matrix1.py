"""DIAGONAL_MATRIX1: ``DML_DIAGONAL_MATRIX1_OPERATOR_DESC``, a band of diagonals over an
optional input.

The band rule, the lowering and the functional face, :func:`dmljax.diagonal_matrix`,
are DIAGONAL_MATRIX's (:mod:`dmljax._src.ops.diagonal_matrix`): this operator adds
the optional input, a value of the tensor's own type and any band, inverted ones too.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
from jax.typing import ArrayLike

from dmljax._src import (
    contract,
    feature_levels as fl,
    rules,
    scalars,
)
from dmljax._src.arguments import static_int, static_number
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.ops.diagonal_matrix import (
    DIAGONAL_MATRIX_FACE,
    GENERATED_FACE,
    check_matrix_sizes,
    diagonal_matrix_lowering,
    generated_diagonal_matrix,
)
from dmljax._src.tensor_desc import TensorDesc

__all__ = ["DIAGONAL_MATRIX1", "DiagonalMatrix1OperatorDesc"]


class DiagonalMatrix1OperatorDesc(contract.OperatorDesc[jax.Array, *tuple[ArrayLike, ...]]):
    """``DML_DIAGONAL_MATRIX1_OPERATOR_DESC``: ``value`` on the diagonals in
    ``[diagonal_fill_begin, diagonal_fill_end)`` of each matrix, the input elsewhere.

    Element ``(y, x)`` of a matrix (the last two dimensions) lies on diagonal
    ``x - y``. With ``diagonal_fill_begin > diagonal_fill_end`` the band is
    inverted: the diagonals outside ``[diagonal_fill_end, diagonal_fill_begin)``
    get ``value``. ``input_tensor`` is optional: without it the rest is zeros and
    the compiled operator takes no arrays. ``value`` is a ``DML_SCALAR_UNION``
    read as ``value_data_type``, which must be the output's data type, held
    exactly. The rules (checked by :func:`dmljax.compile_operator`): the bounds
    fit C ``INT`` fields; input and output share data type, DimensionCount and sizes.
    Introduced at FL 5_1: 2 to 4 dimensions of every type up to 64 bits.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.DiagonalMatrix1OperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(3, 3)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(3, 3)),
    ...     value_data_type=f32, value=0, diagonal_fill_begin=1, diagonal_fill_end=2**31 - 1)
    >>> dml.compile_operator(desc)(jnp.ones((3, 3)))  # jnp.tril
    Array([[1., 0., 0.],
           [1., 1., 0.],
           [1., 1., 1.]], dtype=float32)
    """

    input_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    output_tensor: TensorDesc = contract.tensor_field("output")
    value_data_type: DataType = contract.attribute(scalars.data_type_attribute)
    value: int | float = contract.attribute(static_number, default=0)
    diagonal_fill_begin: int = contract.attribute(static_int, default=0)
    diagonal_fill_end: int = contract.attribute(static_int, default=1)

    def __post_init__(self) -> None:
        super().__post_init__()
        # The union holds the value in its type: keep what that type holds, exactly.
        held = scalars.exact_value(
            self.value, self.value_data_type, op=type(self).__name__, field="value"
        )
        object.__setattr__(self, "value", held)


def _diagonal1_rules(desc: DiagonalMatrix1OperatorDesc, level: FL) -> None:
    del level
    op = type(desc).__name__
    for field in ("diagonal_fill_begin", "diagonal_fill_end"):
        rules.require_c_int(getattr(desc, field), signed=True, op=op, field=field)
    check_matrix_sizes(desc.output_tensor.sizes, op=op, field="output_tensor.sizes")
    scalars.require_union_type(desc, "value_data_type", op=op)


def _diagonal1_output_sizes(desc: DiagonalMatrix1OperatorDesc) -> tuple[tuple[int, ...], str]:
    if desc.input_tensor is None:
        return desc.output_tensor.sizes, "the output's own (no input_tensor)"
    return desc.input_tensor.sizes, "input_tensor.sizes"


def _lower_diagonal1(desc: DiagonalMatrix1OperatorDesc, options: contract.LoweringOptions) -> Any:
    del options
    output = desc.output_tensor
    band = dict(
        value=scalars.value_in(desc.value, output.dtype, op=type(desc).__name__, field="value"),
        fill_begin=desc.diagonal_fill_begin,
        fill_end=desc.diagonal_fill_end,
    )
    if desc.input_tensor is None:
        return functools.partial(generated_diagonal_matrix, output.sizes, output.dtype, **band)
    return functools.partial(diagonal_matrix_lowering, **band)


def _diagonal_node(call: NodeCall) -> DiagonalMatrix1OperatorDesc:
    """Either face of :func:`dmljax.diagonal_matrix` as a node: an array's (an input
    tensor) or a ShapeDtypeStruct's (none)."""
    out = call.outputs[0]
    return DiagonalMatrix1OperatorDesc(
        input_tensor=call.arrays.get("x"),
        output_tensor=out,
        value_data_type=out.data_type,
        value=call.statics["value"],
        diagonal_fill_begin=call.statics["fill_begin"],
        diagonal_fill_end=call.statics["fill_end"],
    )


# The faces are declared in diagonal_matrix.py, which cannot import this module's desc
# (this module imports it): their graph nodes are declared here, beside the desc.
DIAGONAL_MATRIX_FACE.graph_node = _diagonal_node
GENERATED_FACE.graph_node = _diagonal_node

DIAGONAL_MATRIX1 = contract.Operator(
    "DML_OPERATOR_DIAGONAL_MATRIX1",
    DiagonalMatrix1OperatorDesc,
    support=(fl.band(FL.FL_5_1, (2, 4), fl.TYPES_8_64),),
    same_dimension_count=True,
    same_data_type=("input_tensor", "output_tensor"),
    rules=_diagonal1_rules,
    output_sizes=_diagonal1_output_sizes,
    lower=_lower_diagonal1,
    face=DIAGONAL_MATRIX_FACE,
)
