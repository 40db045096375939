"""DIAGONAL_MATRIX: ``DML_DIAGONAL_MATRIX_OPERATOR_DESC``, the band rule it shares with
DIAGONAL_MATRIX1, and :func:`dmljax.diagonal_matrix`.

Each output is a stack of matrices over its last two dimensions. Element
``(y, x)`` lies on diagonal ``x - y`` (the page's ``topX``): DIAGONAL_MATRIX1
writes its value on the diagonals in ``[fill_begin, fill_end)``, or, when the
band is inverted (``fill_begin > fill_end``), on those outside
``[fill_end, fill_begin)``; elsewhere it keeps its input (zeros without one).
DIAGONAL_MATRIX is the band ``[offset, offset + 1)`` over zeros.
:mod:`dmljax._src.ops.diagonal_matrix1` declares DIAGONAL_MATRIX1.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import (
    bitwise,
    contract,
    dtypes,
    face as faces,
    feature_levels as fl,
    rules,
    scalars,
)
from dmljax._src.arguments import static_int
from dmljax._src.dtypes import require_x64_for_axis
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "DIAGONAL_MATRIX",
    "DiagonalMatrixOperatorDesc",
    "check_matrix_sizes",
    "diagonal_matrix",
    "diagonal_matrix_lowering",
    "generated_diagonal_matrix",
]

_FUNCTION = "dmljax.diagonal_matrix"


class DiagonalMatrixOperatorDesc(contract.OperatorDesc[jax.Array]):
    """``DML_DIAGONAL_MATRIX_OPERATOR_DESC``: ``value`` on diagonal ``offset`` of each matrix,
    zeros elsewhere.

    ``output[..., y, x] = value if x - y == offset else 0``. The rules (checked by
    :func:`dmljax.compile_operator`): ``offset`` is an ``INT``; ``value`` is a
    float32, truncated toward zero for integer outputs (the page's "10.6 will
    become 10"), and refused where no integer of the type holds it. A generator:
    the compiled operator takes no arrays. Introduced at FL 2_0 (4-D
    FLOAT32/FLOAT16); 8- to 32-bit integers from 2_1.
    :class:`dmljax.DiagonalMatrix1OperatorDesc` fills any band over an optional input.

    >>> import dmljax as dml
    >>> desc = dml.DiagonalMatrixOperatorDesc(
    ...     output_tensor=dml.TensorDesc(data_type=dml.DataType.INT32, sizes=(1, 1, 2, 3)),
    ...     offset=1, value=7.9)
    >>> dml.compile_operator(desc)()[0, 0]
    Array([[0, 7, 0],
           [0, 0, 7]], dtype=int32)
    """

    output_tensor: TensorDesc = contract.tensor_field("output")
    offset: int = contract.attribute(static_int, default=0)
    value: float = contract.attribute(scalars.float32_attribute, default=1.0)


_DIAGONAL_SUPPORT = (
    fl.band(FL.FL_2_0, (4, 4), fl.FLOATS_16_32),
    fl.band(FL.FL_2_1, (4, 4), fl.TYPES_8_32),
)


def check_matrix_sizes(sizes: tuple[int, ...], *, op: str, field: str) -> None:
    """The last two sizes are a matrix's, whose diagonals need 64-bit indices past int32."""
    rows, cols = sizes[-2:]
    require_x64_for_axis(rows + cols, op=op, field=field)


def _diagonal_rules(desc: DiagonalMatrixOperatorDesc, level: FL) -> None:
    del level
    op = type(desc).__name__
    rules.require_c_int(desc.offset, signed=True, op=op, field="offset")
    check_matrix_sizes(desc.output_tensor.sizes, op=op, field="output_tensor.sizes")
    _value_of(desc)


def _value_of(desc: DiagonalMatrixOperatorDesc) -> np.ndarray:
    return scalars.truncated_value(
        desc.value,
        desc.output_tensor.data_type,
        op=type(desc).__name__,
        field="value",
        exact_desc="DiagonalMatrix1OperatorDesc",
    )


def diagonal_matrix_lowering(
    x: jax.Array, *, value: np.ndarray, fill_begin: int, fill_end: int
) -> jax.Array:
    """The one implementation of DIAGONAL_MATRIX and DIAGONAL_MATRIX1, shared by both faces.

    ``x`` is the input (zeros where there is none); ``value`` goes on the band of
    diagonals, computed from two iotas (no array of the output's size is read
    for it), and one select writes it, every bit of ``x`` and ``value`` kept. The
    page's ``(end >= begin) ^ (topX >= begin) ^ (topX < end)`` is an ``and`` of
    the two bounds for a band and an ``or`` for an inverted one.
    """
    return bitwise.exactly(
        functools.partial(_banded, fill_begin, fill_end), x, fill=np.asarray(value, x.dtype)
    )


def generated_diagonal_matrix(
    shape: tuple[int, ...], dtype: Any, *, value: np.ndarray, fill_begin: int, fill_end: int
) -> jax.Array:
    """The band over zeros of ``shape``: the generators (DIAGONAL_MATRIX, DIAGONAL_MATRIX1
    without an input, and :func:`diagonal_matrix` of a ShapeDtypeStruct)."""
    zeros = lax.full(shape, 0, dtype)
    return diagonal_matrix_lowering(zeros, value=value, fill_begin=fill_begin, fill_end=fill_end)


def _banded(begin: int, end: int, x: jax.Array, fill: Any) -> jax.Array:
    rows, cols = x.shape[-2:]
    # Diagonals run from -(rows - 1) to cols - 1: bounds clamped to [-rows, cols] compare alike
    # with each of them and fit the index type.
    index = dtypes.index_type(rows + cols)
    if rules.is_static_shape((rows, cols)):
        b, e = (min(max(bound, -rows), cols) for bound in (begin, end))
    else:  # a jax.export symbol: clamped when the program runs
        low, high = jnp.asarray(-rows, index), jnp.asarray(cols, index)
        b, e = (jnp.clip(jnp.asarray(bound, index), low, high) for bound in (begin, end))
    top_x = lax.broadcasted_iota(index, (rows, cols), 1) - lax.broadcasted_iota(
        index, (rows, cols), 0
    )
    band = _band_of(top_x, b, e, inverted=end < begin, rows=rows, cols=cols)
    dims = (x.ndim - 2, x.ndim - 1)
    band = lax.broadcast_in_dim(band, x.shape, dims)
    return lax.select(band, lax.full(x.shape, fill, x.dtype), x)


def _band_of(
    top_x: jax.Array, b: Any, e: Any, *, inverted: bool, rows: Any, cols: Any
) -> jax.Array:
    """``topX`` in ``[b, e)``, or outside ``[e, b)`` when ``inverted``, from the compares
    that can fail: a bound past every diagonal is left out (``jnp.tril``'s one compare
    for a half-plane, so that a tiny call's program is no larger than jnp's)."""
    static = isinstance(b, int) and isinstance(e, int)
    if inverted:  # an ``or``: a side no diagonal meets drops out
        kept = [top_x >= b] if not static or b < cols else []
        kept += [top_x < e] if not static or e > -rows else []
        return functools.reduce(operator.or_, kept) if kept else jnp.zeros(top_x.shape, bool)
    # an ``and``: a side every diagonal meets drops out
    kept = [top_x >= b] if not static or b > -rows else []
    kept += [top_x < e] if not static or e < cols else []
    return functools.reduce(operator.and_, kept) if kept else jnp.ones(top_x.shape, bool)


def _lower_diagonal(desc: DiagonalMatrixOperatorDesc, options: contract.LoweringOptions) -> Any:
    del options
    output = desc.output_tensor
    return functools.partial(
        generated_diagonal_matrix,
        output.sizes,
        output.dtype,
        value=_value_of(desc),
        fill_begin=desc.offset,
        fill_end=desc.offset + 1,
    )


# --- The functional face ------------------------------------------------------------------------


def diagonal_matrix(
    x: ArrayLike | jax.ShapeDtypeStruct,
    *,
    value: ArrayLike = 1,
    fill_begin: int = 0,
    fill_end: int = 1,
) -> jax.Array:
    """``value`` on a band of diagonals of each matrix of ``x`` (DirectML DIAGONAL_MATRIX1).

    The functional face of :class:`DiagonalMatrix1OperatorDesc` (and of
    :class:`DiagonalMatrixOperatorDesc`, the band ``[offset, offset + 1)`` of a
    shape). The matrices are ``x``'s last two dimensions; element ``[..., i, j]``
    lies on diagonal ``j - i``. Diagonals in ``[fill_begin, fill_end)`` get
    ``value``; with ``fill_begin > fill_end`` (an inverted band) the diagonals
    outside ``[fill_end, fill_begin)`` do. Everything else is ``x``'s, or zeros
    where ``x`` is a :class:`jax.ShapeDtypeStruct`.

    Args:
        x: an array of at least two dimensions, kept outside the band, or a
            :class:`jax.ShapeDtypeStruct` for a generated array (zeros outside).
        value: a Python number the dtype holds exactly.
        fill_begin, fill_end: the band's first diagonal and the one past its
            last (any Python ints: ``2**31 - 1`` reaches past every diagonal).

    Returns:
        An array of ``x``'s shape and dtype.

    Raises:
        InvalidArgumentError: fewer than two dimensions, a value the dtype
            cannot hold, or traced statics.

    ``jnp.eye(n, m, k)`` is ``diagonal_matrix(ShapeDtypeStruct((n, m), dtype),
    fill_begin=k, fill_end=k + 1)``; ``jnp.tril(x, k)`` is ``diagonal_matrix(x,
    value=0, fill_begin=k + 1, fill_end=2**31 - 1)`` and ``jnp.triu(x, k)``
    ``diagonal_matrix(x, value=0, fill_begin=-2**31, fill_end=k)``.
    Differentiable in ``x``, and usable under :func:`jax.jit` and :func:`jax.vmap`.

    >>> import jax, jax.numpy as jnp, dmljax as dml
    >>> dml.diagonal_matrix(jax.ShapeDtypeStruct((2, 3), jnp.int32), value=5, fill_begin=1,
    ...                     fill_end=3)
    Array([[0, 5, 5],
           [0, 0, 5]], dtype=int32)
    >>> dml.diagonal_matrix(jnp.ones((2, 3)), value=0, fill_begin=1, fill_end=0)
    Array([[1., 0., 0.],
           [0., 1., 0.]], dtype=float32)
    """
    if isinstance(x, jax.ShapeDtypeStruct):
        return GENERATED_FACE.call(x.shape, x.dtype, value, fill_begin, fill_end)
    return DIAGONAL_MATRIX_FACE.call(x, value, fill_begin, fill_end)


def _checked_band(shape: tuple[int, ...], dtype: Any, value: Any) -> np.ndarray:
    """The checks both spellings of :func:`diagonal_matrix` share; ``value`` in ``dtype``."""
    if len(shape) < 2:
        raise InvalidArgumentError(
            _FUNCTION, "x.shape", "at least 2 dimensions (a stack of matrices)", shape
        )
    check_matrix_sizes(shape, op=_FUNCTION, field="x.shape")
    return scalars.value_in(value, dtype, op=_FUNCTION, field="value")


def _checked_diagonal(
    x: jax.Array, value: int | float, fill_begin: int, fill_end: int
) -> jax.Array:
    """:func:`diagonal_matrix`'s checks for an array, while tracing, then the lowering."""
    held = _checked_band(tuple(x.shape), x.dtype, value)
    return diagonal_matrix_lowering(x, value=held, fill_begin=fill_begin, fill_end=fill_end)


def _checked_generated(
    shape: tuple[int, ...], dtype: np.dtype[Any], value: int | float, fill_begin: int, fill_end: int
) -> jax.Array:
    """:func:`diagonal_matrix`'s checks for a ShapeDtypeStruct, then the lowering over zeros."""
    held = _checked_band(shape, dtype, value)
    for i, size in enumerate(shape):
        if size < 0:
            raise InvalidArgumentError(_FUNCTION, f"x.shape[{i}]", "non-negative", size)
    rules.require_fits_xla(shape, dtype, op=_FUNCTION, field="x.shape", given=str(shape))
    return generated_diagonal_matrix(
        shape, dtype, value=held, fill_begin=fill_begin, fill_end=fill_end
    )


DIAGONAL_MATRIX_FACE = faces.FunctionalFace(
    diagonal_matrix,
    _checked_diagonal,
    faces.Data("x"),
    faces.Number("value"),
    faces.Int("fill_begin"),
    faces.Int("fill_end"),
)
"""The face of an array ``x`` (DIAGONAL_MATRIX1's, with an input tensor)."""

GENERATED_FACE = faces.FunctionalFace(
    diagonal_matrix,
    _checked_generated,
    faces.IntTuple("x.shape"),
    faces.DType("x.dtype"),
    faces.Number("value"),
    faces.Int("fill_begin"),
    faces.Int("fill_end"),
)


DIAGONAL_MATRIX = contract.Operator(
    "DML_OPERATOR_DIAGONAL_MATRIX",
    DiagonalMatrixOperatorDesc,
    support=_DIAGONAL_SUPPORT,
    same_dimension_count=False,  # one tensor
    same_data_type=(),
    rules=_diagonal_rules,
    output_sizes=None,  # a generator: the output's sizes are the desc's choice
    lower=_lower_diagonal,
    face=None,
    served_by="DML_OPERATOR_DIAGONAL_MATRIX1",  # dmljax.diagonal_matrix of a ShapeDtypeStruct
)
