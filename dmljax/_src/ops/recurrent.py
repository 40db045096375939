"""The recurrent networks: RNN, and :func:`dmljax.rnn`.

One layer of a simple recurrent network over a sequence: for each step ``t`` (from the
start, FORWARD; from each sequence's last element back, BACKWARD; both, each with its
own weights, BIDIRECTIONAL)

``H_t = f(X_t W^T + H_(t-1) R^T + W_b + R_b)``

with ``f`` the direction's activation desc. A sequence shorter than the input's
``seq_length`` (``SequenceLengthsTensor``) stops there: its later outputs are 0, and its
single output is its hidden state after its last element, as ONNX's RNN (which
onnxruntime's DirectML provider maps onto this operator) defines them. The lowering is
one ``lax.scan`` per direction over the steps, the input's projections computed for
every step at once before it.

Numerics: DirectML computes float32 in float32, and so does dmljax on every backend:
every product at ``Precision.HIGHEST``; float16 steps in float32, each output rounded
once. Each element of a step's pre-activation is within ``(input_size + hidden_size +
2) * 2**-24`` of the sum of its terms' magnitudes, and the recurrence carries each step's
error into the next through ``R`` and ``f``.

>>> import jax.numpy as jnp, dmljax as dml
>>> x = jnp.ones((3, 1, 1))  # three steps, a batch of one, one input
>>> y, y_h = dml.rnn(x, jnp.ones((1, 1, 1)), jnp.full((1, 1, 1), 0.5))
>>> y.ravel(), y_h.ravel()
(Array([0.7615942 , 0.88112956, 0.8938113 ], dtype=float32), Array([0.8938113], dtype=float32))
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules
from dmljax._src.dtypes import DataType
from dmljax._src.enums import RecurrentNetworkDirection
from dmljax._src.feature_levels import FeatureLevel as FL
from dmljax._src.node_call import NodeCall
from dmljax._src.ops.element_wise import (
    Activation,
    apply_fused_activation,
    check_activation,
    fused_activation_attribute,
)
from dmljax._src.ops.element_wise_names import ActivationTanhOperatorDesc
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "FACE_DTYPES",
    "RNN",
    "RnnOperatorDesc",
    "activation_descs_attribute",
    "rnn",
    "rnn_lowering",
]

_FUNCTION = "dmljax.rnn"


def activation_descs_attribute(value: Any, *, op: str, field: str) -> tuple[Activation, ...]:
    """An ``ActivationDescs`` array: a sequence of activation descs without tensors, one
    per direction."""
    if isinstance(value, Activation):
        value = (value,)
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise ArgumentTypeError(op, field, "a tuple of activation descs", repr(value)[:80])
    found = []
    for i, activation in enumerate(value):
        checked = fused_activation_attribute(activation, op=op, field=f"{field}[{i}]")
        if checked is None:
            raise ArgumentTypeError(op, f"{field}[{i}]", "an activation desc", "None")
        found.append(checked)
    return tuple(found)


class RnnOperatorDesc(
    contract.OperatorDesc[
        jax.Array | tuple[jax.Array, jax.Array],
        ArrayLike, ArrayLike, ArrayLike, *tuple[ArrayLike, ...],
    ]
):  # fmt: skip
    """``DML_RNN_OPERATOR_DESC``: one layer of a simple recurrent network.

    ``input_tensor`` is ``{1, seq_length, batch_size, input_size}``, ``weight_tensor``
    ``{1, num_directions, hidden_size, input_size}``, ``recurrence_tensor`` ``{1,
    num_directions, hidden_size, hidden_size}``; optional: ``bias_tensor`` ``{1, 1,
    num_directions, 2 * hidden_size}`` (``W_b`` then ``R_b``), ``hidden_init_tensor``
    ``{1, num_directions, batch_size, hidden_size}``, ``sequence_lengths_tensor``
    (UINT32) ``{1, 1, 1, batch_size}``. The outputs, each optional:
    ``output_sequence_tensor`` ``{seq_length, num_directions, batch_size, hidden_size}``
    and ``output_single_tensor`` ``{1, num_directions, batch_size, hidden_size}``; the
    compiled operator returns the bound ones, in that order. ``activation_descs`` holds
    one activation desc per direction; ``direction`` is a
    :class:`dmljax.RecurrentNetworkDirection`. Introduced at FL 1_0 (4 dimensions;
    FLOAT32, FLOAT16). Its functional face is :func:`dmljax.rnn`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.RnnOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 2, 1, 1)),
    ...     weight_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 1)),
    ...     recurrence_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 1)),
    ...     output_single_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 1)),
    ...     activation_descs=(dml.ActivationReluOperatorDesc(),),
    ...     direction=dml.RecurrentNetworkDirection.FORWARD)
    >>> dml.compile_operator(desc)(jnp.array([1.0, 2.0]).reshape(1, 2, 1, 1),
    ...                            jnp.full((1, 1, 1, 1), 2.0), jnp.full((1, 1, 1, 1), 3.0))
    Array([[[[10.]]]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    weight_tensor: TensorDesc = contract.tensor_field("input")
    recurrence_tensor: TensorDesc = contract.tensor_field("input")
    bias_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    hidden_init_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    sequence_lengths_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    output_sequence_tensor: TensorDesc | None = contract.tensor_field("output", default=None)
    output_single_tensor: TensorDesc | None = contract.tensor_field("output", default=None)
    activation_descs: tuple[Activation, ...] = contract.attribute(activation_descs_attribute)
    direction: RecurrentNetworkDirection = contract.attribute(RecurrentNetworkDirection.coerce)


# --- The one lowering -----------------------------------------------------------------------------


def _reversed_flags(direction: RecurrentNetworkDirection) -> tuple[bool, ...]:
    """Each direction's run, in the weights' order: False forward, True backward."""
    return {
        RecurrentNetworkDirection.FORWARD: (False,),
        RecurrentNetworkDirection.BACKWARD: (True,),
        RecurrentNetworkDirection.BIDIRECTIONAL: (False, True),
    }[direction]


@dataclasses.dataclass(frozen=True)
class _Run:
    """One direction: its activation and whether it runs backward."""

    activation: Activation
    backward: bool


def rnn_lowering(
    x: jax.Array,
    w: jax.Array,
    r: jax.Array,
    b: jax.Array | None,
    h0: jax.Array | None,
    lengths: jax.Array | None,
    *,
    runs: tuple[_Run, ...],
) -> tuple[jax.Array, jax.Array]:
    """The one implementation, shared by both faces, in ONNX's layout: ``x`` ``(T, B,
    I)``, ``w`` ``(D, H, I)``, ``r`` ``(D, H, H)``, ``b`` ``(D, 2H)``, ``h0`` ``(D, B,
    H)``, ``lengths`` ``(B,)``; returns ``y`` ``(T, D, B, H)`` and ``y_h`` ``(D, B, H)``.

    Each direction is one ``lax.scan`` over the steps (in reverse for BACKWARD), its
    input projections ``X W^T + W_b + R_b`` computed for every step at once before it; a
    step past a sequence's length keeps its hidden state and writes 0.
    """
    steps, batch, _ = x.shape
    hidden = w.shape[1]
    wide = jnp.promote_types(x.dtype, jnp.float32)
    highest = lax.Precision.HIGHEST
    xs = x.astype(wide)
    valid = None
    if lengths is not None:
        # In [0, T] in their own type first: a uint32 length beyond int32 is just "all".
        within = jnp.clip(lengths, 0, steps).astype(jnp.int32)
        valid = (jnp.arange(steps, dtype=jnp.int32)[:, None] < within[None, :])[..., None]
    ys, finals = [], []
    for d, run in enumerate(runs):
        projected = jnp.einsum("tbi,hi->tbh", xs, w[d].astype(wide), precision=highest)
        if b is not None:
            projected = projected + (b[d, :hidden] + b[d, hidden:]).astype(wide)[None, None]
        start = jnp.zeros((batch, hidden), wide) if h0 is None else h0[d].astype(wide)
        step = functools.partial(_step, recurrence=r[d].astype(wide), activation=run.activation)
        final, y = lax.scan(
            step, start, projected if valid is None else (projected, valid), reverse=run.backward
        )
        ys.append(y)
        finals.append(final)
    return jnp.stack(ys, axis=1).astype(x.dtype), jnp.stack(finals).astype(x.dtype)


def _step(
    h: jax.Array, given: Any, *, recurrence: jax.Array, activation: Activation
) -> tuple[jax.Array, jax.Array]:
    """One step: the new hidden state (and output); with a mask (sequence lengths), a
    step past the sequence's end keeps the state and outputs 0."""
    projected, keep = given if isinstance(given, tuple) else (given, None)
    pre = projected + jnp.matmul(h, recurrence.T, precision=lax.Precision.HIGHEST)
    new = apply_fused_activation(pre, activation)
    if keep is None:
        return new, new
    return jnp.where(keep, new, h), jnp.where(keep, new, jnp.zeros_like(new))


# --- The desc's rules and lowering ----------------------------------------------------------------


def _expect(
    op: str, field: str, tensor: TensorDesc | None, sizes: tuple[int, ...], why: str
) -> None:
    """An optional tensor, where given, has the ``sizes`` the page's layout ``why`` says."""
    if tensor is not None:
        rules.require_sizes(op, field, tensor, sizes, why)


def _rules(desc: RnnOperatorDesc, level: FL) -> None:
    op = type(desc).__name__
    _, steps, batch, inputs = desc.input_tensor.sizes
    directions = len(_reversed_flags(desc.direction))
    if len(desc.activation_descs) != directions:
        raise InvalidArgumentError(
            op, "activation_descs",
            f"{directions} activation descs (one per direction of {desc.direction.name})",
            len(desc.activation_descs),
        )  # fmt: skip
    weight = desc.weight_tensor.sizes
    if weight[0] != 1 or weight[1] != directions or weight[3] != inputs:
        raise InvalidArgumentError(
            op, "weight_tensor.sizes",
            f"(1, {directions}, hidden_size, {inputs}) (num_directions, input_size)",
            str(weight),
        )  # fmt: skip
    hidden = weight[2]
    if desc.input_tensor.sizes[0] != 1:
        raise InvalidArgumentError(
            op, "input_tensor.sizes", "(1, seq_length, batch_size, input_size)",
            str(desc.input_tensor.sizes),
        )  # fmt: skip
    _expect(op, "recurrence_tensor", desc.recurrence_tensor, (1, directions, hidden, hidden),
            "{1, num_directions, hidden_size, hidden_size}")  # fmt: skip
    _expect(op, "bias_tensor", desc.bias_tensor, (1, 1, directions, 2 * hidden),
            "{1, 1, num_directions, 2 * hidden_size}")  # fmt: skip
    _expect(op, "hidden_init_tensor", desc.hidden_init_tensor, (1, directions, batch, hidden),
            "{1, num_directions, batch_size, hidden_size}")  # fmt: skip
    _expect(op, "sequence_lengths_tensor", desc.sequence_lengths_tensor, (1, 1, 1, batch),
            "{1, 1, 1, batch_size}")  # fmt: skip
    _expect(op, "output_sequence_tensor", desc.output_sequence_tensor,
            (steps, directions, batch, hidden),
            "{seq_length, num_directions, batch_size, hidden_size}")  # fmt: skip
    _expect(op, "output_single_tensor", desc.output_single_tensor, (1, directions, batch, hidden),
            "{1, num_directions, batch_size, hidden_size}")  # fmt: skip
    for i, activation in enumerate(desc.activation_descs):
        check_activation(activation, f"activation_descs[{i}]", op=op, level=level)
    if desc.output_sequence_tensor is None and desc.output_single_tensor is None:
        raise InvalidArgumentError(
            op, "output_single_tensor", "a TensorDesc (or output_sequence_tensor): an RNN "
            "with no output computes nothing", "None for both outputs",
        )  # fmt: skip


def _lower(desc: RnnOperatorDesc, options: contract.LoweringOptions) -> Any:
    del options
    runs = tuple(
        _Run(activation, backward)
        for activation, backward in zip(
            desc.activation_descs, _reversed_flags(desc.direction), strict=True
        )
    )
    present = {
        name: getattr(desc, f"{name}_tensor") is not None
        for name in ("bias", "hidden_init", "sequence_lengths")
    }
    sequence, single = desc.output_sequence_tensor, desc.output_single_tensor

    def lowered(x: jax.Array, w: jax.Array, r: jax.Array, *optional: jax.Array) -> Any:
        given = iter(optional)
        b = next(given)[0, 0] if present["bias"] else None
        h0 = next(given)[0] if present["hidden_init"] else None
        lengths = next(given).reshape(-1) if present["sequence_lengths"] else None
        y, y_h = rnn_lowering(x[0], w[0], r[0], b, h0, lengths, runs=runs)
        outputs = []
        if sequence is not None:
            outputs.append(y)
        if single is not None:
            outputs.append(y_h[None])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    return lowered


# --- The functional face --------------------------------------------------------------------------

FACE_DTYPES: frozenset[np.dtype[Any]] = frozenset(
    np.dtype(t) for t in (np.float32, np.float16, jnp.bfloat16, np.float64)
)
"""The face's dtypes: the page's FLOAT32 and FLOAT16, and bfloat16 and float64 as the
family's."""

_TANH = ActivationTanhOperatorDesc()
_DIRECTIONS = ("forward", "backward", "bidirectional")


def rnn(
    x: ArrayLike,
    w: ArrayLike,
    r: ArrayLike,
    b: ArrayLike | None = None,
    h0: ArrayLike | None = None,
    lengths: ArrayLike | None = None,
    *,
    activations: Any = None,
    direction: str = "forward",
) -> tuple[jax.Array, jax.Array]:
    """One layer of a simple recurrent network over ``x`` (DirectML RNN).

    The functional face of :class:`RnnOperatorDesc`, in ONNX RNN's layout: ``x`` ``(T,
    B, I)``, ``w`` ``(D, H, I)``, ``r`` ``(D, H, H)``; optional ``b`` ``(D, 2 H)``
    (``W_b`` then ``R_b``), ``h0`` ``(D, B, H)`` and ``lengths`` ``(B,)`` (integers in
    ``[0, T]``). ``D`` is 2 for ``direction="bidirectional"``, else 1.

    Args:
        activations: one activation desc per direction (``f``); None: tanh, ONNX's
            default.
        direction: ``"forward"``, ``"backward"`` or ``"bidirectional"``.

    Returns:
        ``(y, y_h)``: every step's hidden state ``(T, D, B, H)`` (0 past a sequence's
        length) and each sequence's last ``(D, B, H)``.

    Differentiable in the float arrays, and usable under :func:`jax.jit` and
    :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> relu = dml.ActivationReluOperatorDesc()
    >>> y, y_h = dml.rnn(jnp.ones((2, 1, 1)), jnp.ones((1, 1, 1)), jnp.ones((1, 1, 1)),
    ...                  lengths=jnp.array([1]), activations=(relu,))
    >>> y.ravel(), y_h.ravel()
    (Array([1., 0.], dtype=float32), Array([1.], dtype=float32))
    """
    return _FACE.call(x, w, r, b, h0, lengths, activations, direction)


def _checked(
    x: jax.Array,
    w: jax.Array,
    r: jax.Array,
    b: jax.Array | None,
    h0: jax.Array | None,
    lengths: jax.Array | None,
    activations: tuple[Activation, ...] | None,
    direction: str,
) -> tuple[jax.Array, jax.Array]:
    enum = RecurrentNetworkDirection[direction.upper()]
    flags = _reversed_flags(enum)
    if activations is None:
        activations = (_TANH,) * len(flags)
    for name, array in (("x", x), ("w", w), ("r", r), ("b", b), ("h0", h0)):
        if array is not None:
            rules.require_array_dtype(
                array, FACE_DTYPES, op=_FUNCTION, field=name, why="DML_OPERATOR_RNN's types"
            )
            if array.dtype != x.dtype:
                raise InvalidArgumentError(
                    _FUNCTION, name, f"an array of x's dtype ({x.dtype})", str(array.dtype)
                )
    if x.ndim != 3:
        raise InvalidArgumentError(_FUNCTION, "x.shape", "(T, B, I): 3 dimensions", str(x.shape))
    _, batch, inputs = x.shape
    directions = len(flags)
    if w.ndim != 3 or w.shape[0] != directions or w.shape[2] != inputs:
        raise InvalidArgumentError(
            _FUNCTION, "w.shape", f"({directions}, H, {inputs}) (directions, hidden, x's I)",
            str(w.shape),
        )  # fmt: skip
    hidden = w.shape[1]
    for name, array, want in (
        ("r", r, (directions, hidden, hidden)),
        ("b", b, (directions, 2 * hidden)),
        ("h0", h0, (directions, batch, hidden)),
        ("lengths", lengths, (batch,)),
    ):
        if array is not None and tuple(array.shape) != want:
            raise InvalidArgumentError(_FUNCTION, f"{name}.shape", str(want), str(array.shape))
    if lengths is not None and not jnp.issubdtype(lengths.dtype, jnp.integer):
        raise InvalidArgumentError(
            _FUNCTION, "lengths", "an integer array", f"an array of {lengths.dtype}"
        )
    if len(activations) != directions:
        raise InvalidArgumentError(
            _FUNCTION, "activations", f"{directions} activation descs (one per direction)",
            len(activations),
        )  # fmt: skip
    runs = tuple(_Run(a, back) for a, back in zip(activations, flags, strict=True))
    return rnn_lowering(x, w, r, b, h0, lengths, runs=runs)


def _graph_node(call: NodeCall) -> RnnOperatorDesc:
    arrays, statics = call.arrays, call.statics
    enum = RecurrentNetworkDirection[statics["direction"].upper()]
    directions = len(_reversed_flags(enum))
    activations = statics["activations"] or (_TANH,) * directions

    def padded(tensor: TensorDesc | None, sizes: tuple[int, ...] | None = None) -> Any:
        if tensor is None:
            return None
        sizes = sizes or (1,) * (4 - tensor.dimension_count) + tensor.sizes
        return TensorDesc(data_type=tensor.data_type, sizes=sizes)

    lengths, bias = arrays["lengths"], arrays["b"]
    y, y_h = call.outputs
    return RnnOperatorDesc(
        input_tensor=padded(arrays["x"]),
        weight_tensor=padded(arrays["w"]),
        recurrence_tensor=padded(arrays["r"]),
        bias_tensor=padded(bias, None if bias is None else (1, 1, *bias.sizes)),
        hidden_init_tensor=padded(arrays["h0"]),
        sequence_lengths_tensor=None if lengths is None else TensorDesc(
            data_type=DataType.UINT32, sizes=(1, 1, 1, *lengths.sizes)
        ),
        output_sequence_tensor=y,
        output_single_tensor=padded(y_h),
        activation_descs=tuple(activations),
        direction=enum,
    )  # fmt: skip


def _plain_activations(value: Any) -> bool:
    return type(value) is tuple and all(
        isinstance(a, Activation) and a.input_tensor is None and a.output_tensor is None
        for a in value
    )


_FACE = faces.FunctionalFace(
    rnn,
    _checked,
    faces.Data("x"),
    faces.Data("w"),
    faces.Data("r"),
    faces.Data("b", optional=True),
    faces.Data("h0", optional=True),
    faces.Indices("lengths", optional=True),
    faces.Coerced("activations", activation_descs_attribute, _plain_activations, optional=True),
    faces.Choice("direction", _DIRECTIONS),
    graph_node=_graph_node,
)

_TYPES = fl.FLOATS_16_32
RNN: contract.Operator[RnnOperatorDesc] = contract.Operator(
    "DML_OPERATOR_RNN",
    RnnOperatorDesc,
    support=(
        fl.band(FL.FL_1_0, (4, 4), _TYPES, sequence_lengths_tensor=frozenset({DataType.UINT32})),
    ),
    same_dimension_count=True,
    same_data_type=(
        "input_tensor",
        "weight_tensor",
        "recurrence_tensor",
        "bias_tensor",
        "hidden_init_tensor",
        "output_sequence_tensor",
        "output_single_tensor",
    ),
    rules=_rules,
    output_sizes=None,  # two optional outputs: the rules check both
    lower=_lower,
    face=_FACE,
)
