"""GEMM: ``Output = FusedActivation(Alpha * TransA(A) x TransB(B) + Beta * C)``.

The last two dimensions of each tensor are the matrices; the ones before them (none, one
or two: DirectML's ``BatchCount`` and ``ChannelCount``) count independent products, of
equal sizes in every tensor (a tensor broadcasts along one by a stride of 0, as every
DirectML tensor can). ``TransA`` and ``TransB`` (``DML_MATRIX_TRANSFORM``) read a matrix
transposed. ``C`` is optional (0 without it); ``Alpha`` and ``Beta`` are C ``FLOAT``
values.

Numerics: DirectML computes float32 in float32, and so does dmljax on every backend: the
product is :func:`jax.lax.dot_general` at ``Precision.HIGHEST`` (no TF32 on a GPU, no
bfloat16 passes on a TPU), unless DirectML's
``DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION`` (``allow_half_precision=True``
on either face, ``executionFlags`` in a DxDispatch model) allows the backend's faster
default. float16 (and the face's bfloat16) multiply into a float32
accumulator, and ``Alpha``, ``Beta``, ``C`` and the fused activation apply in float32,
rounded once to the type at the end. Each element of a float32 product of ``K`` terms is
within ``K * 2**-24`` of the sum of its terms' magnitudes (any order of summation meets
it), before ``Alpha`` and ``Beta``.

>>> import jax.numpy as jnp, dmljax as dml
>>> a, b = jnp.array([[1.0], [2.0], [3.0]]), jnp.array([[4.0, 5.0, 6.0]])
>>> dml.gemm(a, b, jnp.full((3, 3), 2.0))
Array([[ 6.,  7.,  8.],
       [10., 12., 14.],
       [14., 17., 20.]], dtype=float32)
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules, scalars
from dmljax._src.dtypes import accumulator
from dmljax._src.enums import MatrixTransform
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.ops.element_wise import (
    Activation,
    apply_fused_activation,
    check_fused_activation,
    fused_activation_attribute,
)
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["FACE_DTYPES", "GEMM", "GemmOperatorDesc", "gemm", "gemm_lowering"]


class GemmOperatorDesc(
    contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike, *tuple[ArrayLike, ...]]
):
    """``DML_GEMM_OPERATOR_DESC``: ``alpha * TransA(A) x TransB(B) + beta * C``, then the
    optional fused activation.

    Every tensor has the same DimensionCount (4 at FL 1_0, 2 to 4 from FL 4_0) and data
    type (FLOAT32 or FLOAT16). ``a_tensor`` is ``{..., M, K}`` (``{..., K, M}`` with
    ``trans_a`` TRANSPOSE), ``b_tensor`` ``{..., K, N}`` (``{..., N, K}``), the optional
    ``c_tensor`` and ``output_tensor`` ``{..., M, N}``; the leading sizes are the
    output's. Its functional face is :func:`dmljax.gemm`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.GemmOperatorDesc(
    ...     a_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 3)),
    ...     b_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 3)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 2)),
    ...     trans_b=dml.MatrixTransform.TRANSPOSE, alpha=0.5)
    >>> x = jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> dml.compile_operator(desc)(x, x)  # C left out: no third array
    Array([[ 7. , 16. ],
           [16. , 38.5]], dtype=float32)
    """

    a_tensor: TensorDesc = contract.tensor_field("input")
    b_tensor: TensorDesc = contract.tensor_field("input")
    c_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    output_tensor: TensorDesc = contract.tensor_field("output")
    trans_a: MatrixTransform = contract.attribute(MatrixTransform.coerce, default=0)
    trans_b: MatrixTransform = contract.attribute(MatrixTransform.coerce, default=0)
    alpha: float = contract.attribute(scalars.float32_attribute, default=1.0)
    beta: float = contract.attribute(scalars.float32_attribute, default=1.0)
    fused_activation: Activation | None = contract.attribute(
        fused_activation_attribute, default=None
    )


def gemm_lowering(
    a: jax.Array,
    b: jax.Array,
    c: jax.Array | None = None,
    *,
    trans_a: bool,
    trans_b: bool,
    alpha: float,
    beta: float,
    activation: Any = None,
    allow_half_precision: bool = False,
) -> jax.Array:
    """The one implementation, shared by both faces: one ``dot_general`` over the last two
    dimensions (the leading ones batch), at full precision into the accumulator type
    (the backend's default precision with ``allow_half_precision``), then ``alpha``,
    ``beta * c`` and the activation, rounded once."""
    rank = a.ndim
    batch = tuple(range(rank - 2))
    contract_a = rank - 2 if trans_a else rank - 1
    contract_b = rank - 1 if trans_b else rank - 2
    wide = accumulator(a.dtype)
    y = lax.dot_general(
        a,
        b,
        (((contract_a,), (contract_b,)), (batch, batch)),
        precision=lax.Precision.DEFAULT if allow_half_precision else lax.Precision.HIGHEST,
        preferred_element_type=wide,
    )
    if alpha != 1.0:
        y = y * np.array(alpha, wide)
    if c is not None:
        c = c.astype(wide)
        y = y + (c if beta == 1.0 else c * np.array(beta, wide))
    return apply_fused_activation(y, activation).astype(a.dtype)


FACE_DTYPES: frozenset[np.dtype[Any]] = frozenset(
    np.dtype(t) for t in (np.float32, np.float16, jnp.bfloat16, np.float64)
)
"""The face's dtypes: the page's FLOAT32 and FLOAT16, and bfloat16 and float64 as the
family's faces take them."""


# --- The rules ----------------------------------------------------------------------------------


def _matrix_sizes(desc: Any) -> tuple[int, int, int]:
    """``(M, K, N)`` as ``a_tensor`` and ``b_tensor`` give them (K from A)."""
    *_, a_rows, a_columns = desc.a_tensor.sizes
    m, k = (a_columns, a_rows) if desc.trans_a else (a_rows, a_columns)
    *_, b_rows, b_columns = desc.b_tensor.sizes
    n = b_rows if desc.trans_b else b_columns
    return m, k, n


def _rules(desc: Any, level: FL) -> None:
    op = type(desc).__name__
    check_fused_activation(desc, op=op, level=level)
    _, k, _ = _matrix_sizes(desc)
    *_, b_rows, b_columns = desc.b_tensor.sizes
    b_k, b_k_at = (b_columns, -1) if desc.trans_b else (b_rows, -2)
    if b_k != k:
        rank = desc.b_tensor.dimension_count
        raise InvalidArgumentError(
            op, f"b_tensor.sizes[{rank + b_k_at}]",
            f"{k} (K: a_tensor's {'rows' if desc.trans_a else 'columns'}"
            f"{', trans_b' if desc.trans_b else ''})", b_k,
        )  # fmt: skip
    batch = desc.output_tensor.sizes[:-2]
    for field in ("a_tensor", "b_tensor"):
        tensor = getattr(desc, field)
        if tensor.sizes[:-2] != batch:
            raise InvalidArgumentError(
                op, f"{field}.sizes",
                f"leading sizes {batch} (output_tensor's BatchCount and ChannelCount)",
                tensor.sizes,
            )  # fmt: skip
    if desc.c_tensor is not None:
        rules.require_sizes(
            op, "c_tensor", desc.c_tensor, desc.output_tensor.sizes, "output_tensor.sizes"
        )


def _output_sizes(desc: Any) -> tuple[tuple[int, ...], str]:
    m, _, n = _matrix_sizes(desc)
    return (*desc.a_tensor.sizes[:-2], m, n), "a_tensor's leading sizes, then M and N"


def _lower(desc: Any, options: contract.LoweringOptions) -> Any:
    return functools.partial(
        gemm_lowering,
        trans_a=bool(desc.trans_a),
        trans_b=bool(desc.trans_b),
        alpha=desc.alpha,
        beta=desc.beta,
        activation=desc.fused_activation,
        allow_half_precision=options.allow_half_precision,
    )


# --- The functional face ------------------------------------------------------------------------

_OP = "dmljax.gemm"


def _checked(
    a: jax.Array,
    b: jax.Array,
    c: jax.Array | None,
    trans_a: bool,
    trans_b: bool,
    alpha: float,
    beta: float,
    allow_half_precision: bool,
) -> jax.Array:
    for name, x in (("a", a), ("b", b), ("c", c)):
        if x is None:
            continue
        rules.require_array_dtype(
            x, FACE_DTYPES, op=_OP, field=name, why="DML_OPERATOR_GEMM's types"
        )
        if x.dtype != a.dtype:
            raise InvalidArgumentError(_OP, f"{name}.dtype", f"{a.dtype} (a's)", str(x.dtype))
        if x.ndim < 2 or x.ndim != a.ndim:
            raise InvalidArgumentError(
                _OP, name, f"an array of {max(a.ndim, 2)} dimensions or more, as a (the "
                "last two the matrix, those before it batch)", f"shape {x.shape}",
            )  # fmt: skip
    m, k = (a.shape[-1], a.shape[-2]) if trans_a else (a.shape[-2], a.shape[-1])
    b_k, n = (b.shape[-1], b.shape[-2]) if trans_b else (b.shape[-2], b.shape[-1])
    if b_k != k:
        raise InvalidArgumentError(
            _OP, "b", f"K = {k} along its {'last' if trans_b else 'second-to-last'} "
            "dimension (a's K)", f"shape {b.shape}",
        )  # fmt: skip
    if b.shape[:-2] != a.shape[:-2]:
        raise InvalidArgumentError(
            _OP, "b", f"a's leading (batch) sizes {a.shape[:-2]}", f"shape {b.shape}"
        )
    out_shape = (*a.shape[:-2], m, n)
    if c is not None and c.shape != out_shape:
        raise InvalidArgumentError(
            _OP, "c", f"the result's shape {out_shape} (broadcast it first: "
            "jnp.broadcast_to)", f"shape {c.shape}",
        )  # fmt: skip
    return gemm_lowering(
        a, b, c, trans_a=trans_a, trans_b=trans_b,
        alpha=scalars.float32_attribute(alpha, op=_OP, field="alpha"),
        beta=scalars.float32_attribute(beta, op=_OP, field="beta"),
        allow_half_precision=allow_half_precision,
    )  # fmt: skip


def _graph_node(call: NodeCall) -> Any:
    statics = call.statics
    return GemmOperatorDesc(
        a_tensor=call.arrays["a"],
        b_tensor=call.arrays["b"],
        c_tensor=call.arrays.get("c"),
        output_tensor=call.outputs[0],
        trans_a=MatrixTransform(int(statics["trans_a"])),
        trans_b=MatrixTransform(int(statics["trans_b"])),
        alpha=statics["alpha"],
        beta=statics["beta"],
    )


def gemm(
    a: ArrayLike,
    b: ArrayLike,
    c: ArrayLike | None = None,
    *,
    trans_a: bool = False,
    trans_b: bool = False,
    alpha: float = 1.0,
    beta: float = 1.0,
    allow_half_precision: bool = False,
) -> jax.Array:
    """``alpha * a @ b + beta * c`` at full precision (DirectML GEMM).

    The functional face of :class:`GemmOperatorDesc`: the last two dimensions of each
    array are the matrices, those before them batch (equal in every array);
    ``trans_a``/``trans_b`` read ``a``/``b`` transposed (``a.mT``). float32 multiplies in
    float32 on every backend (``jnp.matmul(a, b, precision="highest")``: no TF32);
    float16 and bfloat16 accumulate in float32 and round once. ``alpha`` and ``beta``
    are rounded to float32, as DirectML's ``FLOAT`` fields are.

    Args:
        a: float32, float16, bfloat16 or float64, of 2 dimensions or more: ``(..., M, K)``,
            or ``(..., K, M)`` with ``trans_a``.
        b: ``(..., K, N)`` (``(..., N, K)`` with ``trans_b``), of ``a``'s dtype and rank.
        c: None (0), or ``(..., M, N)``, added times ``beta``.
        trans_a, trans_b: DirectML's ``DML_MATRIX_TRANSFORM_TRANSPOSE``.
        alpha, beta: the scales of the product and of ``c``.
        allow_half_precision: DirectML's
            ``DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION``: the backend's faster
            precision (``jnp.matmul``'s default: TF32 on a recent NVIDIA GPU).

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.array([[1.0, 2.0], [3.0, 4.0]])
    >>> dml.gemm(x, x, trans_a=True, alpha=2.0)
    Array([[20., 28.],
           [28., 40.]], dtype=float32)
    """
    return _FACE.call(a, b, c, trans_a, trans_b, alpha, beta, allow_half_precision)


_FACE = faces.FunctionalFace(
    gemm,
    _checked,
    faces.Data("a"),
    faces.Data("b"),
    faces.Data("c", optional=True),
    faces.Bool("trans_a"),
    faces.Bool("trans_b"),
    faces.Number("alpha"),
    faces.Number("beta"),
    faces.Bool("allow_half_precision"),
    graph_node=_graph_node,
)

GEMM: contract.Operator[GemmOperatorDesc] = contract.Operator(
    "DML_OPERATOR_GEMM",
    GemmOperatorDesc,
    support=(
        fl.band(FL.FL_1_0, (4, 4), fl.FLOATS_16_32),
        fl.band(FL.FL_4_0, (2, 4), fl.FLOATS_16_32),
    ),
    same_dimension_count=True,
    same_data_type=("a_tensor", "b_tensor", "c_tensor", "output_tensor"),
    rules=_rules,
    output_sizes=_output_sizes,
    lower=_lower,
    face=_FACE,
)
