"""PADDING1: ``DML_PADDING1_OPERATOR_DESC``, PADDING with a value of the tensor's own type.

Everything but the value is PADDING's (:mod:`dmljax._src.ops.padding`): the same
rules, output sizes, lowering and functional face, :func:`dmljax.pad`.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
from jax.typing import ArrayLike

from dmljax._src import contract, scalars
from dmljax._src.arguments import static_int_tuple, static_number
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.ops import padding
from dmljax._src.ops.padding import PaddingMode
from dmljax._src.tensor_desc import TensorDesc

__all__ = ["PADDING1", "Padding1OperatorDesc"]


class Padding1OperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike]):
    """``DML_PADDING1_OPERATOR_DESC``: PADDING whose value has the tensors' type.

    ``padding_value`` is a ``DML_SCALAR_UNION`` read as ``padding_value_data_type``,
    which must be the output's data type: it is held exactly (an INT64 or UINT64
    extreme, -inf, a NaN), and must fit that type (an integer in range for
    integer types; a float is rounded to FLOAT16 or FLOAT32). Every other rule
    is :class:`dmljax.PaddingOperatorDesc`'s. Introduced at FL 5_0: 1 to 8
    dimensions of every type up to 64 bits; SYMMETRIC from the start, WRAP from
    6_4.

    >>> import jax, jax.numpy as jnp, numpy as np, dmljax as dml
    >>> i64 = dml.DataType.INT64
    >>> desc = dml.Padding1OperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=i64, sizes=(2,)),
    ...     output_tensor=dml.TensorDesc(data_type=i64, sizes=(3,)),
    ...     padding_mode=dml.PaddingMode.CONSTANT, padding_value_data_type=i64,
    ...     padding_value=-2**63, start_padding=(1,), end_padding=(0,))
    >>> with jax.enable_x64(True):
    ...     print(dml.compile_operator(desc)(np.array([1, 2])))
    [-9223372036854775808                    1                    2]
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    padding_mode: PaddingMode = contract.attribute(PaddingMode.coerce)
    padding_value_data_type: DataType = contract.attribute(scalars.data_type_attribute)
    padding_value: int | float = contract.attribute(static_number, default=0)
    start_padding: tuple[int, ...] = contract.attribute(static_int_tuple)
    end_padding: tuple[int, ...] = contract.attribute(static_int_tuple)

    def __post_init__(self) -> None:
        super().__post_init__()
        # The union holds the value in its type: keep what that type holds, exactly.
        held = scalars.exact_value(
            self.padding_value,
            self.padding_value_data_type,
            op=type(self).__name__,
            field="padding_value",
        )
        object.__setattr__(self, "padding_value", held)


def _padding1_rules(desc: Padding1OperatorDesc, level: FL) -> None:
    padding.check_padding(desc, level)
    scalars.require_union_type(desc, "padding_value_data_type", op=type(desc).__name__)


def _lower_padding1(desc: Padding1OperatorDesc, options: contract.LoweringOptions) -> Any:
    del options
    value = scalars.value_in(
        desc.padding_value, desc.output_tensor.dtype, op=type(desc).__name__, field="padding_value"
    )
    return functools.partial(
        padding.pad_lowering,
        start_padding=desc.start_padding,
        end_padding=desc.end_padding,
        mode=desc.padding_mode,
        value=value,
    )


def _pad_node(call: NodeCall) -> padding.PaddingOperatorDesc | Padding1OperatorDesc:
    """:func:`dmljax.pad` as a node: PADDING1 (its value exact in the tensor's type) from
    its level, PADDING below it (the value a float32, truncated for integer tensors)."""
    x = call.arrays["x"]
    fields: dict[str, Any] = {
        "input_tensor": x,
        "output_tensor": call.outputs[0],
        "padding_mode": PaddingMode[call.statics["mode"].upper()],
        "start_padding": call.statics["start_padding"],
        "end_padding": call.statics["end_padding"],
    }
    value = call.statics["value"]
    if call.feature_level >= _PADDING1_SINCE:
        return Padding1OperatorDesc(**fields, padding_value_data_type=x.data_type,
                                    padding_value=value)  # fmt: skip
    return padding.PaddingOperatorDesc(**fields, padding_value=float(value))


# dmljax.pad's face is PADDING's, declared in padding.py, which cannot import this
# module's desc (this module imports it): its graph node is declared here.
padding.PAD_FACE.graph_node = _pad_node
_PADDING1_SINCE = padding.PADDING_BANDS[-1].since

PADDING1 = contract.Operator(
    "DML_OPERATOR_PADDING1",
    Padding1OperatorDesc,
    support=(padding.PADDING_BANDS[-1],),
    same_dimension_count=True,
    same_data_type=("input_tensor", "output_tensor"),
    rules=_padding1_rules,
    output_sizes=padding.output_sizes_of,
    lower=_lower_padding1,
    face=None,
    served_by="DML_OPERATOR_PADDING",  # dmljax.pad: values are exact in the array's dtype
)
