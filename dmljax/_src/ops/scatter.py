"""SCATTER: ``DML_SCATTER_OPERATOR_DESC`` (= ``DML_SCATTER_ELEMENTS_OPERATOR_DESC``) and
:func:`dmljax.scatter`.

``output = input; output[c with c[axis] := indices[c]] = updates[c]`` for every
coordinate ``c`` of the indices: the inverse of GATHER_ELEMENTS. DirectML calls
duplicate target indices invalid and leaves the winner unspecified; dmljax
takes the fastest lowering by default (one of the duplicates wins) and, with
``deterministic=True``, lets the last update in row-major order win on every
backend. Out-of-range updates are dropped: nothing is written outside the
tensor.
"""

from __future__ import annotations

import functools
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
from dmljax._src.indices import drop_out_of_range_indices, wraps_negative_indices
from dmljax._src.node_call import NodeCall, require_no_reduction
from dmljax._src.ops import elements
from dmljax._src.reductions import REDUCTIONS, Reduction, scatter_reduce
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import InvalidArgumentError

__all__ = [
    "REDUCTIONS",
    "SCATTER",
    "Reduction",
    "ScatterOperatorDesc",
    "check_updates_and_options",
    "scatter",
]

_FUNCTION = "dmljax.scatter"

_DROP = lax.GatherScatterMode.FILL_OR_DROP


class ScatterOperatorDesc(contract.OperatorDesc[jax.Array, ArrayLike, ArrayLike, ArrayLike]):
    """``DML_SCATTER_OPERATOR_DESC``: the input with some elements replaced by updates.

    Also available as ``ScatterElementsOperatorDesc``, DirectML's newer name.
    The rules (checked by :func:`dmljax.compile_operator`): the four tensors
    have the same DimensionCount; ``axis`` in ``[0, DimensionCount)``; the
    indices' sizes equal the input's on every dimension but ``axis``; the
    updates have the indices' sizes; input, updates and output share a data
    type, and the output has the input's sizes. Introduced at FL 2_0 (4-D
    floats, UINT32 indices; the page's FL_1_0 table is an erratum); 2_1:
    integer data; 3_0: 1 to 8 dimensions, INT32/INT64/UINT32/UINT64 indices;
    4_1: 64-bit data.

    ``compile_operator(desc, deterministic=True)`` makes the last of duplicate
    updates (in row-major order) win everywhere; ``donate_input=True`` lets XLA
    write into the input's buffer instead of copying it.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32, u32 = dml.DataType.FLOAT32, dml.DataType.UINT32
    >>> desc = dml.ScatterOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(5,)),
    ...     indices_tensor=dml.TensorDesc(data_type=u32, sizes=(4,)),
    ...     updates_tensor=dml.TensorDesc(data_type=f32, sizes=(4,)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(5,)),
    ...     axis=0)
    >>> op = dml.compile_operator(desc, deterministic=True)
    >>> op(jnp.arange(5.0), jnp.array([3, 1, 3, 0], jnp.uint32), jnp.array([5.0, 6, 7, 8]))
    Array([8., 6., 2., 7., 4.], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    indices_tensor: TensorDesc = contract.tensor_field("input")
    updates_tensor: TensorDesc = contract.tensor_field("input")
    output_tensor: TensorDesc = contract.tensor_field("output")
    axis: int = contract.attribute(static_int)


# The SCATTER page prints an FL_1_0 band, but DirectML.h declares the operator for
# DML_TARGET_VERSION >= 0x2000 and the feature-level history adds it in FL_2_0: the
# page's first band applies from FL_2_0.
_SCATTER_SUPPORT = fl.indexed_bands(FL.FL_2_0)


def _scatter_rules(desc: ScatterOperatorDesc, level: FL) -> None:
    op = type(desc).__name__
    elements.check_desc_indices(desc.input_tensor, desc.indices_tensor, desc.axis, op=op)
    rules.require_sizes(
        op, "updates_tensor", desc.updates_tensor, desc.indices_tensor.sizes, "indices_tensor.sizes"
    )


def _scatter_output_sizes(desc: ScatterOperatorDesc) -> tuple[tuple[int, ...], str]:
    return desc.input_tensor.sizes, "input_tensor.sizes"


def _last_writes(
    x: jax.Array,
    axis_indices: jax.Array,
    positions: jax.Array,
    updates: jax.Array,
    axis: int,
) -> jax.Array:
    """``x`` with each target overwritten by its last writer.

    The updates that can reach a target differ only in their coordinate along
    ``axis``, so the last in row-major order is the one of the largest
    ``positions`` (that coordinate). A scatter-max of it finds each target's
    writer exactly (max is order-independent); one fused pass over ``x`` then
    reads that writer's update along ``axis`` (batch dimensions stay where they
    are, so a batch-sharded scatter stays on its devices), or keeps ``x`` where
    no update landed. That pass replaces an overwrite scatter and a gather per
    update.
    """
    dimension_numbers = elements.scatter_dimension_numbers(x.ndim, axis)
    winners = lax.scatter_max(
        jnp.full(x.shape, -1, positions.dtype),
        axis_indices[..., None],
        positions,
        dimension_numbers,
        mode=_DROP,
    )
    picked = elements.gather_along_axis(updates, jnp.maximum(winners, 0), axis)
    return jnp.where(winners >= 0, picked, x)


def scatter_lowering(
    x: jax.Array,
    indices: jax.Array,
    updates: jax.Array,
    *,
    axis: int,
    wrap_negative: bool,
    reduction: Reduction,
    deterministic: bool,
) -> jax.Array:
    """The one implementation of SCATTER; ``indices`` may be smaller than ``x`` off ``axis``."""
    if indices.size == 0:
        return x
    positions = None
    if deterministic and reduction == "none":
        # Each update's coordinate along the axis, taken before any transposition.
        dtype = dtypes.index_type(updates.shape[axis] - 1)
        positions = lax.broadcasted_iota(dtype, updates.shape, axis)
    minor = elements.uses_minor_axis_form(x.ndim, axis)
    if minor:
        x, indices, updates = (elements.to_minor_axis(a, axis) for a in (x, indices, updates))
        if positions is not None:
            positions = elements.to_minor_axis(positions, axis)
    last = x.ndim - 1 if minor else axis
    axis_indices = drop_out_of_range_indices(indices, x.shape[last], wrap_negative=wrap_negative)
    dimension_numbers = elements.scatter_dimension_numbers(x.ndim, last)
    if reduction == "none":

        def overwrite(
            x: jax.Array, updates: jax.Array, _: Any, axis_indices: jax.Array, *positions: Any
        ) -> jax.Array:
            # The updates are padded here, on their bits: padded as bfloat16 or float8,
            # XLA:CPU pads them in float32, which quiets NaN payloads.
            if positions:
                where, updates, order = elements.pad_to_operand(
                    axis_indices, updates, positions[0], shape=x.shape, axis=last
                )
                return _last_writes(x, where, order, updates, last)
            where, updates = elements.pad_to_operand(
                axis_indices, updates, shape=x.shape, axis=last
            )
            # DirectML SCATTER overwrites and calls duplicates invalid: promising unique
            # indices gives the fast non-atomic path (1.3-1.45x for 16- and 8-bit types).
            return lax.scatter(x, where[..., None], updates, dimension_numbers,
                               unique_indices=True, mode=_DROP)  # fmt: skip

        using = (axis_indices,) if positions is None else (axis_indices, positions)
        out = bitwise.exactly(overwrite, x, updates, using=using)
    else:
        axis_indices, updates = elements.pad_to_operand(
            axis_indices, updates, shape=x.shape, axis=last
        )
        out = scatter_reduce(
            x,
            axis_indices[..., None],
            updates,
            dimension_numbers,
            reduction,
            mode=_DROP,
            deterministic=deterministic,
        )
    return elements.from_minor_axis(out, axis) if minor else out


def _lower_scatter(desc: ScatterOperatorDesc, options: contract.LoweringOptions) -> Any:
    return functools.partial(
        scatter_lowering,
        axis=desc.axis,
        wrap_negative=wraps_negative_indices(options.feature_level),
        reduction="none",
        deterministic=options.deterministic,
    )


def scalar_updates(x: jax.Array, updates: jax.Array, shape: tuple[int, ...]) -> jax.Array:
    """A Python scalar given as ``updates`` (JAX makes it weakly typed), in ``x``'s dtype at
    every index, as ``x.at[i].set(1.0)`` takes it; any other ``updates`` as it is.

    >>> scalar_updates(jnp.zeros(3, jnp.bfloat16), jnp.asarray(1.0), (2,))
    Array([1, 1], dtype=bfloat16)
    """
    if updates.ndim or not jax.typeof(updates).weak_type:
        return updates
    return jnp.broadcast_to(updates.astype(x.dtype), shape)


def check_updates_and_options(
    x: jax.Array, updates: jax.Array, deterministic: bool, reduction: str, *, op: str
) -> None:
    """What the scatter faces share: updates of ``x``'s dtype, and a reduction that fits
    ``x``."""
    x_dtype = jax.dtypes.canonicalize_dtype(x.dtype)
    if jax.dtypes.canonicalize_dtype(updates.dtype) != x_dtype:
        raise InvalidArgumentError(
            op,
            "updates.dtype",
            f"{x_dtype.name} (x.dtype)",
            np.dtype(updates.dtype).name,
            hint=f"Convert the updates with .astype({x_dtype.name!r}).",
        )
    if x_dtype == np.bool_ and reduction in ("add", "mul"):
        raise InvalidArgumentError(
            op,
            "reduction",
            "'none', 'max' or 'min' for bool x ('max' is a logical or, 'min' a logical and)",
            repr(reduction),
        )


def scatter(
    x: ArrayLike,
    indices: ArrayLike,
    updates: ArrayLike,
    *,
    axis: int,
    deterministic: bool = False,
    reduction: Reduction = "none",
) -> jax.Array:
    """``x`` with ``updates`` written at ``indices`` along ``axis`` (DirectML SCATTER).

    The functional face of :class:`ScatterOperatorDesc` (alias
    ``dml.scatter_elements``), like ONNX ``ScatterElements`` and
    ``torch.scatter``: ``out[c with c[axis] := indices[c]] = updates[c]``,
    returning a new array. Negative indices of a signed type count from the
    end; updates at out-of-range indices are dropped.

    Duplicate indices: DirectML leaves the winner unspecified. By default the
    fastest lowering runs and one of the duplicates wins (which one may depend
    on the backend). With ``deterministic=True`` the last update in row-major
    order of ``updates`` wins on every backend, and the gradients agree with
    that forward value, at the cost of one extra scatter and a pass over ``x``.
    With a float ``"add"`` or ``"mul"`` reduction, ``deterministic=True`` combines
    each target's updates in one fixed order, so that the result has the same
    bits on every run of the same program (the order follows the updates' order:
    permuting the updates may change the last bits of a sum).

    Args:
        x: the array to update (any dtype).
        indices: integer indices of any width, with the rank of ``x`` and sizes
            no larger than ``x``'s on every dimension but ``axis``.
        updates: values of the shape of ``indices`` and the dtype of ``x``, or a
            Python scalar, written at every index in ``x``'s dtype (as ``x.at[i].set(1.0)``).
        axis: a static axis; negative values count from the end.
        deterministic: make the winner among duplicate indices the last update;
            with a float sum or product, the same bits on every run.
        reduction: beyond DirectML, ONNX ``ScatterElements`` parity: ``"add"``,
            ``"mul"``, ``"max"`` or ``"min"`` combine every update (duplicates
            included) with the element they land on; ``"none"`` overwrites.

    Returns:
        A new array of the shape and dtype of ``x``.

    Raises:
        InvalidArgumentError: float indices, a rank mismatch, indices larger
            than ``x`` off ``axis``, updates of another shape or dtype, an
            unknown reduction, a traced ``deterministic``, or ``"add"``/``"mul"``
            on bools.

    Differentiable with respect to ``x`` and ``updates`` (``d out/d x`` is zero
    where an update landed), except ``reduction="mul"`` with respect to
    ``updates``, which JAX does not differentiate. To update ``x`` in place,
    donate it to an enclosing :func:`jax.jit` (``donate_argnums``).

    >>> import jax.numpy as jnp, dmljax as dml
    >>> x = jnp.zeros((2, 3))
    >>> dml.scatter(x, jnp.array([[2], [0]]), jnp.array([[1.0], [2.0]]), axis=1)
    Array([[0., 0., 1.],
           [2., 0., 0.]], dtype=float32)
    >>> dml.scatter(jnp.zeros(3), jnp.array([1, 1, -1]), jnp.array([1.0, 2, 3]), axis=0,
    ...             reduction="add")
    Array([0., 3., 3.], dtype=float32)
    """
    return _SCATTER_FACE.call(x, indices, updates, axis, deterministic, reduction)


def _checked_scatter(
    x: jax.Array,
    indices: jax.Array,
    updates: jax.Array,
    axis: int,
    deterministic: bool,
    reduction: Reduction,
) -> jax.Array:
    """:func:`scatter`'s checks, while tracing, then the lowering."""
    axis = rules.require_array_axis(axis, x, op=_FUNCTION)
    if indices.ndim == 1 and x.ndim > 1:
        # A list of row ids: the element scatter needs one index per element, and the user
        # most likely wants whole rows written (a segment sum, an embedding update).
        raise InvalidArgumentError(
            _FUNCTION,
            "indices.shape",
            f"{x.ndim} dimensions long, like x.shape (one index per updated element)",
            f"1 dimension {tuple(indices.shape)}",
            hint="To write whole rows (a segment sum, say), use dml.scatter_nd(x, "
            "indices[:, None], rows, reduction=...): its index tuples address sub-blocks.",
        )
    elements.check_index_shape(
        x.shape, indices.shape, axis, op=_FUNCTION, data_field="x.shape",
        index_field="indices.shape", exact=False,
    )  # fmt: skip
    updates = scalar_updates(x, updates, tuple(indices.shape))
    if tuple(updates.shape) != tuple(indices.shape):
        raise InvalidArgumentError(
            _FUNCTION, "updates.shape", f"{tuple(indices.shape)} (indices.shape)", updates.shape
        )
    check_updates_and_options(x, updates, deterministic, reduction, op=_FUNCTION)
    return scatter_lowering(
        x,
        indices,
        updates,
        axis=axis,
        wrap_negative=True,
        reduction=reduction,
        deterministic=deterministic,
    )


def _scatter_node(call: NodeCall) -> ScatterOperatorDesc:
    require_no_reduction(call.statics["reduction"], op=_FUNCTION)
    return ScatterOperatorDesc(
        input_tensor=call.arrays["x"],
        indices_tensor=call.arrays["indices"],
        updates_tensor=call.arrays["updates"],
        output_tensor=call.outputs[0],
        axis=call.axis("axis", of="x"),
    )


_SCATTER_FACE = faces.FunctionalFace(
    scatter,
    _checked_scatter,
    faces.Data("x"),
    faces.Indices("indices"),
    faces.Data("updates"),
    faces.Axis(),
    faces.Bool("deterministic"),
    faces.Choice("reduction", REDUCTIONS),
    keys=lambda s: s["reduction"] == "none",
    graph_node=_scatter_node,
)


SCATTER = contract.Operator(
    "DML_OPERATOR_SCATTER",
    ScatterOperatorDesc,
    support=_SCATTER_SUPPORT,
    same_dimension_count=True,
    same_data_type=("input_tensor", "updates_tensor", "output_tensor"),
    rules=_scatter_rules,
    output_sizes=_scatter_output_sizes,
    lower=_lower_scatter,
    face=_SCATTER_FACE,
    aliases=("DML_OPERATOR_SCATTER_ELEMENTS",),  # its newer name, GATHER_ELEMENTS' inverse
)
