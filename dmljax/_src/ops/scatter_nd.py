"""SCATTER_ND: ``DML_SCATTER_ND_OPERATOR_DESC`` and :func:`dmljax.scatter_nd`.

``output = input; output[indices[p, :], rest] = updates[p, rest]``: each index
tuple (the indices' last dimension, ``t`` coordinates) addresses a whole block
of the output, ``input.shape[t:]``, which its update replaces (ONNX
``ScatterND``, ``tf.tensor_scatter_nd_update``); the inverse of GATHER_ND. The
updates' sizes are ``indices[:-1] ++ input[t:]`` over the meaningful
dimensions, right-aligned. DirectML calls two tuples that address the same
block invalid and leaves the winner unspecified; dmljax takes the fastest
lowering by default (one of them wins) and, with ``deterministic=True``, lets
the last tuple in row-major order win on every backend. A tuple with any
coordinate out of range is dropped: nothing is written outside the tensor.
"""

from __future__ import annotations

import functools
import math
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
)
from dmljax._src.arguments import static_int
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.indices import (
    drop_out_of_range_indices,
    index_constant,
    wraps_negative_indices,
)
from dmljax._src.node_call import NodeCall, require_no_reduction
from dmljax._src.ops import nd
from dmljax._src.ops.scatter import check_updates_and_options, scalar_updates
from dmljax._src.reductions import REDUCTIONS, Reduction, scatter_reduce
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = ["SCATTER_ND", "ScatterNdOperatorDesc", "scatter_nd", "scatter_nd_lowering"]

_FUNCTION = "dmljax.scatter_nd"
_DROP = lax.GatherScatterMode.FILL_OR_DROP


class ScatterNdOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike, ArrayLike]):
    """``DML_SCATTER_ND_OPERATOR_DESC``: the input with whole blocks replaced by updates.

    The rules (checked by :func:`dmljax.compile_operator`): the four tensors
    have the same DimensionCount ``N``; ``input_dimension_count`` and
    ``indices_dimension_count`` in ``[1, N]`` (the page prints ``[1, N)``, an
    erratum) count the meaningful trailing dimensions, the others being 1; the
    indices' last size ``t`` (the tuple length) is at most
    ``input_dimension_count``; the updates' sizes are the meaningful
    ``indices[:-1] ++ input[t:]`` right-aligned to ``N``; input, updates and
    output share a data type, and the output has the input's sizes.

    Indices: signed negatives count from the end of their dimension from FL 3_0;
    a tuple with any coordinate out of range is dropped. FL 2_1: 4-D 8- to
    32-bit data with UINT32 indices; 3_0: 1 to 8 dimensions, INT32/INT64/UINT32/
    UINT64 indices; 4_1: 64-bit data. ``compile_operator(desc,
    deterministic=True)`` makes the last of duplicate tuples win everywhere.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32, u32 = dml.DataType.FLOAT32, dml.DataType.UINT32
    >>> desc = dml.ScatterNdOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(3, 2)),
    ...     indices_tensor=dml.TensorDesc(data_type=u32, sizes=(2, 1)),
    ...     updates_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 2)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(3, 2)),
    ...     input_dimension_count=2, indices_dimension_count=2)
    >>> op = dml.compile_operator(desc)
    >>> op(jnp.zeros((3, 2)), jnp.array([[2], [0]], jnp.uint32), jnp.array([[1.0, 2], [3, 4]]))
    Array([[3., 4.],
           [0., 0.],
           [1., 2.]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    indices_tensor: TensorDesc = contract.tensor_field("input")
    updates_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    input_dimension_count: int = contract.attribute(static_int)
    indices_dimension_count: int = contract.attribute(static_int)


_SCATTER_ND_SUPPORT = fl.indexed_bands()


def _desc_layout(desc: ScatterNdOperatorDesc) -> nd.DescLayout:
    return nd.check_desc(desc, block_field="updates_tensor")


def _scatter_nd_rules(desc: ScatterNdOperatorDesc, level: FL) -> None:
    del level
    layout = _desc_layout(desc)
    expected = nd.block_sizes(layout, desc.input_tensor.dimension_count)
    rules.require_sizes(
        type(desc).__name__,
        "updates_tensor",
        desc.updates_tensor,
        expected,
        "indices[:-1] ++ input[t:] of the meaningful sizes, right-aligned",
    )


def _scatter_nd_output_sizes(desc: ScatterNdOperatorDesc) -> tuple[tuple[int, ...], str]:
    return desc.input_tensor.sizes, "input_tensor.sizes"


def _winners(targets: jax.Array, dims: tuple[int, ...]) -> tuple[jax.Array, jax.Array]:
    """Each block's last writer, as the row-major position of its tuple (-1 where no
    tuple lands), and every tuple's position.

    A scatter-max of the positions finds it exactly: max is order-independent.
    """
    count = math.prod(targets.shape[:-1])
    dtype = dtypes.index_type(count - 1)
    positions = jnp.arange(count, dtype=dtype).reshape(targets.shape[:-1])
    t = len(dims)
    winners = lax.scatter_max(
        jnp.full(dims, -1, dtype),
        targets,
        positions,
        lax.ScatterDimensionNumbers((), tuple(range(t)), tuple(range(t))),
        mode=_DROP,
    )
    return winners, positions


def _last_writes(x: jax.Array, targets: jax.Array, updates: jax.Array, t: int) -> jax.Array:
    """``x`` with each block overwritten by its last writer (in row-major tuple order).

    One fused pass over ``x`` reads each block's winning update, or keeps ``x``
    where no tuple landed: no second scatter, and no gather per tuple.
    """
    dims, block = x.shape[:t], x.shape[t:]
    winners, positions = _winners(targets, dims)
    rows = updates.reshape(positions.size, *block)
    picked = jnp.take(rows, jnp.maximum(winners, 0).reshape(-1), axis=0, mode="clip")
    landed = (winners >= 0).reshape(*dims, *(1,) * len(block))
    return jnp.where(landed, picked.reshape(x.shape), x)


def _last_writers_only(targets: jax.Array, dims: tuple[int, ...]) -> jax.Array:
    """``targets`` with every tuple but the last (in row-major order) per block dropped.

    The others are pointed out of range, so the remaining tuples are unique and
    any backend writes the same.
    """
    t = len(dims)
    winners, positions = _winners(targets, dims)
    winner_at_target = lax.gather(
        winners,
        targets,
        lax.GatherDimensionNumbers((), tuple(range(t)), tuple(range(t))),
        (1,) * t,
        mode=lax.GatherScatterMode.CLIP,
    )
    dropped = index_constant(dims, targets.dtype, targets.ndim)
    return jnp.where((winner_at_target == positions)[..., None], targets, dropped)


def scatter_nd_lowering(
    x: jax.Array,
    indices: jax.Array,
    updates: jax.Array,
    *,
    wrap_negative: bool,
    reduction: Reduction,
    deterministic: bool,
) -> jax.Array:
    """The one implementation of SCATTER_ND: blocks ``x[tuple]`` replaced (or combined)."""
    if math.prod(indices.shape[:-1]) == 0:
        return x
    if indices.shape[-1] == 0:
        # Empty tuples address the whole tensor: a tuple of one coordinate into a new
        # leading dimension of 1 says the same, and every duplicate rule carries over.
        zeros = jnp.zeros((*indices.shape[:-1], 1), np.int32)
        out = scatter_nd_lowering(
            x[None], zeros, updates,
            wrap_negative=wrap_negative, reduction=reduction, deterministic=deterministic,
        )  # fmt: skip
        return out[0]
    t = indices.shape[-1]
    dims = tuple(x.shape[:t])
    if 0 in dims:
        return x  # every tuple has a coordinate out of range: nothing is written
    targets = drop_out_of_range_indices(indices, dims, wrap_negative=wrap_negative)
    dimension_numbers = nd.scatter_dimension_numbers(x.ndim, indices.ndim, t)
    if reduction != "none":
        return scatter_reduce(
            x, targets, updates, dimension_numbers, reduction, mode=_DROP,
            deterministic=deterministic,
        )  # fmt: skip
    if deterministic and math.prod(x.shape[t:]) == 1:
        return bitwise.exactly(
            lambda x, u, _, targets: _last_writes(x, targets, u, t), x, updates, using=(targets,)
        )
    if deterministic:
        # Blocks of several elements: the winners' pass over a table of rows would read
        # every row; dropping the losing tuples costs one int32 per tuple instead.
        targets = _last_writers_only(targets, dims)

    def overwrite(x: jax.Array, updates: jax.Array, _: Any, targets: jax.Array) -> jax.Array:
        # DirectML calls duplicate tuples invalid: promising unique indices gives the
        # fast non-atomic path, as for SCATTER.
        return lax.scatter(x, targets, updates, dimension_numbers, unique_indices=True,
                           mode=_DROP)  # fmt: skip

    return bitwise.exactly(overwrite, x, updates, using=(targets,))


def _desc_lowering(
    x: jax.Array,
    indices: jax.Array,
    updates: jax.Array,
    *,
    layout: nd.DescLayout,
    wrap_negative: bool,
    deterministic: bool,
) -> jax.Array:
    out = scatter_nd_lowering(
        x.reshape(layout.input),
        indices.reshape(layout.indices),
        updates.reshape(layout.block),
        wrap_negative=wrap_negative,
        reduction="none",
        deterministic=deterministic,
    )
    return out.reshape(x.shape)


def _lower_scatter_nd(desc: ScatterNdOperatorDesc, options: contract.LoweringOptions) -> Any:
    return functools.partial(
        _desc_lowering,
        layout=_desc_layout(desc),
        wrap_negative=wraps_negative_indices(options.feature_level),
        deterministic=options.deterministic,
    )


def scatter_nd(
    x: ArrayLike,
    indices: ArrayLike,
    updates: ArrayLike,
    *,
    reduction: Reduction = "none",
    deterministic: bool = False,
) -> jax.Array:
    """``x`` with the blocks at the index tuples replaced by ``updates`` (DirectML SCATTER_ND).

    The functional face of :class:`ScatterNdOperatorDesc`, like ONNX ``ScatterND``
    and ``tf.tensor_scatter_nd_update``: ``indices[..., :]`` holds tuples of
    ``t = indices.shape[-1]`` coordinates into the first ``t`` dimensions of
    ``x``, and ``updates[p]`` replaces the block ``x[indices[p]]`` of shape
    ``x.shape[t:]``. ``t = 1`` writes rows (``x.at[indices[..., 0]].set(updates)``);
    ``t = 0`` writes the whole tensor. Negative coordinates of a signed type
    count from the end of their dimension; a tuple with any coordinate out of
    range is dropped.

    Duplicate tuples: DirectML leaves the winner unspecified. By default the
    fastest lowering runs and one of the duplicates wins (which one may depend
    on the backend). With ``deterministic=True`` the last tuple in row-major
    order wins on every backend, and the gradients agree with that forward
    value, at the cost of one extra scatter and gather of the tuples. With a
    float ``"add"`` or ``"mul"`` reduction, ``deterministic=True`` combines each
    block's updates in one fixed order, so that the result has the same bits on
    every run of the same program (the order follows the tuples' order).

    Args:
        x: the array to update (any dtype).
        indices: integer index tuples of any width, at least 1-D; the last
            dimension holds the tuples, at most ``x.ndim`` long.
        updates: blocks of shape ``indices.shape[:-1] + x.shape[t:]`` and the
            dtype of ``x``, or a Python scalar, written everywhere in ``x``'s dtype.
        reduction: beyond DirectML, ONNX ``ScatterND``-18 parity: ``"add"``,
            ``"mul"``, ``"max"`` or ``"min"`` combine every update (duplicates
            included) with the block it lands on; ``"none"`` overwrites. With
            ``"add"`` this is a segment sum (``x.at[ids].add(rows)``).
        deterministic: make the winner among duplicate tuples the last one;
            with a float sum or product, the same bits on every run.

    Returns:
        A new array of the shape and dtype of ``x``.

    Raises:
        InvalidArgumentError: float indices, tuples longer than ``x.ndim``,
            updates of another shape or dtype, an unknown reduction, a traced
            ``deterministic``, or ``"add"``/``"mul"`` on bools.

    Differentiable with respect to ``x`` and ``updates`` (``d out/d x`` is zero
    where a block was overwritten), except ``reduction="mul"`` with respect to
    ``updates``, which JAX does not differentiate.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.zeros((3, 2))
    >>> dml.scatter_nd(x, jnp.array([[2], [-3]]), jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    Array([[3., 4.],
           [0., 0.],
           [1., 2.]], dtype=float32)
    >>> segments = jnp.array([[0], [2], [0], [7]])  # 7 is out of range: dropped
    >>> dml.scatter_nd(jnp.zeros(3), segments, jnp.array([1.0, 2.0, 3.0, 4.0]), reduction="add")
    Array([4., 0., 2.], dtype=float32)
    """
    return _SCATTER_ND_FACE.call(x, indices, updates, reduction, deterministic)


def _checked_scatter_nd(
    x: jax.Array,
    indices: jax.Array,
    updates: jax.Array,
    reduction: Reduction,
    deterministic: bool,
) -> jax.Array:
    """:func:`scatter_nd`'s checks, while tracing, then the lowering."""
    nd.check_index_tuples(x.shape, indices.shape, 0, op=_FUNCTION)
    expected = nd.block_shape(x.shape, indices.shape, 0)
    updates = scalar_updates(x, updates, expected)
    if tuple(updates.shape) != expected:
        raise InvalidArgumentError(
            _FUNCTION,
            "updates.shape",
            f"{expected} (indices.shape[:-1] + x.shape[indices.shape[-1]:])",
            tuple(updates.shape),
        )
    check_updates_and_options(x, updates, deterministic, reduction, op=_FUNCTION)
    return scatter_nd_lowering(
        x,
        indices,
        updates,
        wrap_negative=True,
        reduction=reduction,
        deterministic=deterministic,
    )


def _scatter_nd_node(call: NodeCall) -> ScatterNdOperatorDesc:
    require_no_reduction(call.statics["reduction"], op=_FUNCTION)
    x, indices = call.arrays["x"], call.arrays["indices"]
    return ScatterNdOperatorDesc(
        input_tensor=call.aligned(x),
        indices_tensor=call.aligned(indices),
        updates_tensor=call.aligned(call.arrays["updates"]),
        output_tensor=call.aligned(call.outputs[0]),
        input_dimension_count=x.dimension_count,
        indices_dimension_count=indices.dimension_count,
    )


_SCATTER_ND_FACE = faces.FunctionalFace(
    scatter_nd,
    _checked_scatter_nd,
    faces.Data("x"),
    faces.Indices("indices"),
    faces.Data("updates"),
    faces.Choice("reduction", REDUCTIONS),
    faces.Bool("deterministic"),
    keys=lambda s: s["reduction"] == "none",
    graph_node=_scatter_nd_node,
)


SCATTER_ND = contract.Operator(
    "DML_OPERATOR_SCATTER_ND",
    ScatterNdOperatorDesc,
    support=_SCATTER_ND_SUPPORT,
    same_dimension_count=True,
    same_data_type=("input_tensor", "updates_tensor", "output_tensor"),
    rules=_scatter_nd_rules,
    output_sizes=_scatter_nd_output_sizes,
    lower=_lower_scatter_nd,
    face=_SCATTER_ND_FACE,
)
