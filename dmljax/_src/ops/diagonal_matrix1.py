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
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from dmljax._src import (
    feature_levels as fl,
    operator as contract,
    reference,
    rules,
    scalars,
    sweeps,
)
from dmljax._src.arguments import static_int, static_number
from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.doc_entries import Entry, tensor_desc_of
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.ops.diagonal_matrix import (
    DIAGONAL_MATRIX_FACE,
    check_matrix_sizes,
    diagonal_matrix,
    diagonal_matrix_lowering,
    generated_diagonal_matrix,
)
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

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
    if desc.value_data_type != desc.output_tensor.data_type:
        raise InvalidArgumentError(
            op,
            "value_data_type",
            f"output_tensor.data_type ({desc.output_tensor.data_type})",
            str(desc.value_data_type),
        )


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


# --- What reads the declaration: the doc examples, the selftest sweep, the bench -----------------


def _doc_example(e: Entry) -> DiagonalMatrix1OperatorDesc:
    attrs = e["attrs"]
    given = e["inputs"].get("InputTensor")
    return DiagonalMatrix1OperatorDesc(
        input_tensor=None if given is None else tensor_desc_of(given),
        output_tensor=tensor_desc_of(e["expected"]),
        value_data_type=DataType[attrs["ValueDataType"]],
        value=attrs["Value"],
        diagonal_fill_begin=attrs["DiagonalFillBegin"],
        diagonal_fill_end=attrs["DiagonalFillEnd"],
    )


def _doc_example_face(example: Any) -> jax.Array:
    desc = example.desc
    output = desc.output_tensor
    x = example.inputs[0] if example.inputs else jax.ShapeDtypeStruct(output.sizes, output.dtype)
    return diagonal_matrix(
        x, value=desc.value, fill_begin=desc.diagonal_fill_begin, fill_end=desc.diagonal_fill_end
    )


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.diagonal_matrix`` of rank 2 to 4: bands, inverted bands and extreme bounds."""
    shape = sweeps.draw_shape(rng, int(rng.integers(2, 4, endpoint=True)), 1, 5)
    bounds = [-(2**31), -3, -1, 0, 1, 2, 4, 2**31 - 1]
    begin, end = (int(b) for b in rng.choice(bounds, size=2))
    # Value 0 keeps the face linear in x for the derivative checks; the tests take others.
    value = 0
    xs = tuple(sweeps.draw_values(rng, shape, dtype) for _ in range(batch))
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} value {value} band [{begin}, {end})",
        fn=lambda x: diagonal_matrix(x, value=value, fill_begin=begin, fill_end=end),
        batch=tuple((x,) for x in xs),
        expected=tuple(
            reference.diagonal_matrix(x, x.shape, value=value, fill_begin=begin, fill_end=end)
            for x in xs
        ),
        linear_argnums=(0,),
    )


def _triangle_case(name: str, begin: int, end: int, jnp_fn: Any) -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        side = 1024 if quick else 16384  # 4 MiB / 1 GiB of f32
        return (jax.random.normal(key, (side, side), operands.F32),)

    return Case(
        name=f"diagonal_matrix {name}",
        operator="DIAGONAL_MATRIX1",
        make_args=make_args,
        dmljax_fn=lambda x: diagonal_matrix(x, value=0, fill_begin=begin, fill_end=end),
        jnp_fn=jnp_fn,
        bytes_moved=lambda args: 2 * args[0].nbytes,
    )


def _bench() -> list[Case | EagerCase]:
    """DIAGONAL_MATRIX1 over a 16384x16384 f32 against ``jnp.tril`` and ``jnp.triu``."""
    return [
        _triangle_case("tril", 2, 2**31 - 1, lambda x: jnp.tril(x, 1)),
        _triangle_case("triu", -(2**31), -1, lambda x: jnp.triu(x, -1)),
        EagerCase(
            name="diagonal_matrix eager",
            operator="DIAGONAL_MATRIX1",
            desc=lambda x: _tril_desc(TensorDesc.from_array(x)),
            functional=lambda x: diagonal_matrix(x, value=0, fill_begin=1, fill_end=2**31 - 1),
            jnp_fn=jnp.tril,
            make_args=operands.tiny_operands,
        ),
    ]


def _tril_desc(tensor: TensorDesc) -> DiagonalMatrix1OperatorDesc:
    return DiagonalMatrix1OperatorDesc(
        input_tensor=tensor,
        output_tensor=tensor,
        value_data_type=tensor.data_type,
        value=0,
        diagonal_fill_begin=1,
        diagonal_fill_end=2**31 - 1,
    )


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
    doc_example=_doc_example,
    doc_example_face=_doc_example_face,
    sweep=_sweep,
    bench=_bench,
)
