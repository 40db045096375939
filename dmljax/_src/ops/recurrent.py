"""The recurrent networks: RNN, LSTM and GRU, and :func:`dmljax.rnn`,
:func:`dmljax.lstm` and :func:`dmljax.gru`.

One layer of a recurrent network over a sequence: for each step ``t`` (from the start,
FORWARD; from each sequence's last element back, BACKWARD; both, each with its own
weights, BIDIRECTIONAL) a cell computes the new hidden state from ``X_t`` and the last
one. RNN's cell is ``H_t = f(X_t W^T + H_(t-1) R^T + W_b + R_b)``; LSTM's has input,
output, forget and cell gates (``W`` stacks them in ONNX's order ``i, o, f, c``),
optional peepholes, clipping and coupled input and forget gates, and a cell memory
``C_t``; GRU's has update, reset and hidden gates (``z, r, h``), the reset applied
before or after the hidden gate's product (``LinearBeforeReset``). The equations are
the pages' and ONNX's, which onnxruntime maps onto these operators one to one.

A sequence shorter than the input's ``seq_length`` (``SequenceLengthsTensor``) stops
there: its later outputs are 0, and its single outputs are its states after its last
element, as ONNX defines them. The lowering is one ``lax.scan`` per direction over the
steps, the input projections (and the biases outside the recurrence) computed for
every step at once before it.

Numerics: DirectML computes float32 in float32, and so does dmljax on every backend:
every product at ``Precision.HIGHEST``; float16 steps in float32, each output rounded
once. Each element of a gate's pre-activation is within ``(input_size + hidden_size +
2) * 2**-24`` of the sum of its terms' magnitudes, and the recurrence carries each step's
error into the next through ``R`` and the activations.

>>> import jax.numpy as jnp, dmljax as dml
>>> x = jnp.ones((3, 1, 1))  # three steps, a batch of one, one input
>>> y, y_h = dml.rnn(x, jnp.ones((1, 1, 1)), jnp.full((1, 1, 1), 0.5))
>>> y.ravel(), y_h.ravel()
(Array([0.7615942 , 0.88112956, 0.8938113 ], dtype=float32), Array([0.8938113], dtype=float32))
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from dmljax._src import contract, face as faces, feature_levels as fl, rules, scalars
from dmljax._src.arguments import static_bool
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
from dmljax._src.ops.element_wise_names import (
    ActivationSigmoidOperatorDesc,
    ActivationTanhOperatorDesc,
)
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "FACE_DTYPES",
    "FIELDS_OF_ARRAYS",
    "GRU",
    "LSTM",
    "NETWORK_OF",
    "RNN",
    "GruOperatorDesc",
    "LstmOperatorDesc",
    "Network",
    "RnnOperatorDesc",
    "activation_descs_attribute",
    "gru",
    "lstm",
    "recurrent_lowering",
    "rnn",
]


def activation_descs_attribute(value: Any, *, op: str, field: str) -> tuple[Activation, ...]:
    """An ``ActivationDescs`` array: a sequence of activation descs without tensors, the
    network's activations for each direction in turn."""
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


_SEVERAL = jax.Array | tuple[jax.Array, ...]


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


class LstmOperatorDesc(
    contract.OperatorDesc[_SEVERAL, ArrayLike, ArrayLike, ArrayLike, *tuple[ArrayLike, ...]]
):
    """``DML_LSTM_OPERATOR_DESC``: one layer of a long short-term memory network.

    RNN's tensors with four gates stacked along the hidden dimension in the order ``i,
    o, f, c`` (``weight_tensor`` ``{1, num_directions, 4 * hidden_size, input_size}``,
    ``recurrence_tensor`` ``{1, num_directions, 4 * hidden_size, hidden_size}``,
    ``bias_tensor`` ``{1, 1, num_directions, 8 * hidden_size}``, ``W_b`` then ``R_b``),
    and optional ``cell_mem_init_tensor`` ``{1, num_directions, batch_size,
    hidden_size}``, ``peephole_tensor`` ``{1, 1, num_directions, 3 * hidden_size}``
    (``P_i, P_o, P_f``) and ``output_cell_single_tensor`` (the last cell memory, as
    ``output_single_tensor``). ``activation_descs`` holds ``f, g, h`` for each
    direction; ``clip_threshold`` bounds every gate's pre-activation to ``[-t, t]`` where
    ``use_clip_threshold``; ``couple_input_forget`` makes the forget gate ``1 - i``.
    Introduced at FL 1_0 (4 dimensions; FLOAT32, FLOAT16). Its functional face is
    :func:`dmljax.lstm`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> tensor = lambda *sizes: dml.TensorDesc(data_type=f32, sizes=sizes)
    >>> desc = dml.LstmOperatorDesc(
    ...     input_tensor=tensor(1, 1, 1, 1), weight_tensor=tensor(1, 1, 4, 1),
    ...     recurrence_tensor=tensor(1, 1, 4, 1), output_cell_single_tensor=tensor(1, 1, 1, 1),
    ...     activation_descs=(dml.ActivationSigmoidOperatorDesc(),
    ...                       dml.ActivationTanhOperatorDesc(), dml.ActivationTanhOperatorDesc()),
    ...     direction=dml.RecurrentNetworkDirection.FORWARD)
    >>> # Weights 0: every gate is sigmoid(0) = 0.5, the cell candidate tanh(0) = 0.
    >>> dml.compile_operator(desc)(jnp.ones((1, 1, 1, 1)), jnp.zeros((1, 1, 4, 1)),
    ...                            jnp.zeros((1, 1, 4, 1)))
    Array([[[[0.]]]], dtype=float32)
    """

    input_tensor: TensorDesc = contract.tensor_field("input")
    weight_tensor: TensorDesc = contract.tensor_field("input")
    recurrence_tensor: TensorDesc = contract.tensor_field("input")
    bias_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    hidden_init_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    cell_mem_init_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    sequence_lengths_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    peephole_tensor: TensorDesc | None = contract.tensor_field("input", default=None)
    output_sequence_tensor: TensorDesc | None = contract.tensor_field("output", default=None)
    output_single_tensor: TensorDesc | None = contract.tensor_field("output", default=None)
    output_cell_single_tensor: TensorDesc | None = contract.tensor_field("output", default=None)
    activation_descs: tuple[Activation, ...] = contract.attribute(activation_descs_attribute)
    direction: RecurrentNetworkDirection = contract.attribute(RecurrentNetworkDirection.coerce)
    clip_threshold: float = contract.attribute(scalars.float32_attribute, default=0.0)
    use_clip_threshold: bool = contract.attribute(static_bool, default=False)
    couple_input_forget: bool = contract.attribute(static_bool, default=False)


class GruOperatorDesc(
    contract.OperatorDesc[
        jax.Array | tuple[jax.Array, jax.Array],
        ArrayLike, ArrayLike, ArrayLike, *tuple[ArrayLike, ...],
    ]
):  # fmt: skip
    """``DML_GRU_OPERATOR_DESC``: one layer of a gated recurrent unit network.

    RNN's tensors with three gates stacked along the hidden dimension in the order ``z,
    r, h`` (``weight_tensor`` ``{1, num_directions, 3 * hidden_size, input_size}``,
    ``recurrence_tensor`` ``{1, num_directions, 3 * hidden_size, hidden_size}``,
    ``bias_tensor`` ``{1, 1, num_directions, 6 * hidden_size}``, ``W_b`` then ``R_b``).
    ``activation_descs`` holds ``f, g`` for each direction; ``linear_before_reset``
    applies the reset gate after the hidden gate's recurrence product (ONNX's
    ``linear_before_reset``). Introduced at FL 1_0 (4 dimensions; FLOAT32, FLOAT16). Its
    functional face is :func:`dmljax.gru`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> tensor = lambda *sizes: dml.TensorDesc(data_type=f32, sizes=sizes)
    >>> desc = dml.GruOperatorDesc(
    ...     input_tensor=tensor(1, 1, 1, 1), weight_tensor=tensor(1, 1, 3, 1),
    ...     recurrence_tensor=tensor(1, 1, 3, 1), output_single_tensor=tensor(1, 1, 1, 1),
    ...     activation_descs=(dml.ActivationSigmoidOperatorDesc(),
    ...                       dml.ActivationReluOperatorDesc()),
    ...     direction=dml.RecurrentNetworkDirection.FORWARD)
    >>> # z = sigmoid(0) = 0.5 and the hidden gate relu(2 x) = 4: half of it.
    >>> dml.compile_operator(desc)(jnp.full((1, 1, 1, 1), 2.0),
    ...                            jnp.array([0.0, 0.0, 2.0]).reshape(1, 1, 3, 1),
    ...                            jnp.zeros((1, 1, 3, 1)))
    Array([[[[2.]]]], dtype=float32)
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
    linear_before_reset: bool = contract.attribute(static_bool, default=False)


# --- The networks and their cells -----------------------------------------------------------------

_SIGMOID, _TANH = ActivationSigmoidOperatorDesc(), ActivationTanhOperatorDesc()


@dataclasses.dataclass(frozen=True)
class Cell:
    """One call's cell: its network and the network's static options (LSTM's clip
    threshold and coupled gates, GRU's ``linear_before_reset``)."""

    network: Network
    clip: float | None = None
    couple_input_forget: bool = False
    linear_before_reset: bool = False


def _reversed_flags(direction: RecurrentNetworkDirection) -> tuple[bool, ...]:
    """Each direction's run, in the weights' order: False forward, True backward."""
    return {
        RecurrentNetworkDirection.FORWARD: (False,),
        RecurrentNetworkDirection.BACKWARD: (True,),
        RecurrentNetworkDirection.BIDIRECTIONAL: (False, True),
    }[direction]


@dataclasses.dataclass(frozen=True)
class _Run:
    """One direction: its activations and whether it runs backward."""

    activations: tuple[Activation, ...]
    backward: bool


def _runs(
    network: Network, activations: tuple[Activation, ...], direction: RecurrentNetworkDirection
) -> tuple[_Run, ...]:
    """``activations`` (the network's for each direction in turn) split by direction."""
    n = len(network.activations)
    return tuple(
        _Run(activations[d * n : (d + 1) * n], backward)
        for d, backward in enumerate(_reversed_flags(direction))
    )


_HIGHEST = lax.Precision.HIGHEST
_State = tuple[jax.Array, ...]


def _rnn_step(state: _State, projected: jax.Array, *, r: jax.Array, run: _Run, **_: Any) -> _State:
    """``H_t = f(projected + H_(t-1) R^T)``: ``projected`` holds ``X_t W^T`` and both biases."""
    (h,) = state
    return (apply_fused_activation(projected + jnp.matmul(h, r.T, precision=_HIGHEST),
                                   run.activations[0]),)  # fmt: skip


def _lstm_step(
    state: _State,
    projected: jax.Array,
    *,
    r: jax.Array,
    run: _Run,
    cell: Cell,
    peephole: jax.Array | None,
    **_: Any,
) -> _State:
    """The page's (and ONNX's) LSTM step; the output gate's peephole reads the new cell
    memory ``C_t``, as ONNX's equation and onnxruntime's kernels do (the page writes
    ``C_(t-1)``)."""
    h, c = state
    f, g, h_of = run.activations
    i, o, forget, candidate = jnp.split(
        projected + jnp.matmul(h, r.T, precision=_HIGHEST), 4, axis=-1
    )
    bound = cell.clip
    clip = (lambda v: v) if bound is None else (lambda v: jnp.clip(v, -bound, bound))
    p_o = None
    if peephole is not None:
        p_i, p_o, p_f = jnp.split(peephole[None], 3, axis=-1)
        i, forget = i + p_i * c, forget + p_f * c
    i = apply_fused_activation(clip(i), f)
    forget = 1 - i if cell.couple_input_forget else apply_fused_activation(clip(forget), f)
    c = forget * c + i * apply_fused_activation(clip(candidate), g)
    if p_o is not None:
        o = o + p_o * c
    return apply_fused_activation(clip(o), f) * apply_fused_activation(c, h_of), c


def _gru_step(
    state: _State,
    projected: jax.Array,
    *,
    r: jax.Array,
    run: _Run,
    cell: Cell,
    hidden_bias: jax.Array | None,
    **_: Any,
) -> _State:
    """The page's (and ONNX's) GRU step: ``projected`` holds ``X_t W^T``, ``W_b`` and
    the biases outside the recurrence (all of ``R_b`` unless ``linear_before_reset``,
    which multiplies ``R_bh`` by the reset gate: ``hidden_bias``)."""
    (h,) = state
    f, g = run.activations
    size = h.shape[-1]
    if cell.linear_before_reset:
        recurrent = jnp.matmul(h, r.T, precision=_HIGHEST)
        update, reset = jnp.split(
            apply_fused_activation(projected[..., : 2 * size] + recurrent[..., : 2 * size], f), 2,
            axis=-1,
        )  # fmt: skip
        linear = recurrent[..., 2 * size :]
        if hidden_bias is not None:
            linear = linear + hidden_bias[None]
        candidate = projected[..., 2 * size :] + reset * linear
    else:
        gates = projected[..., : 2 * size] + jnp.matmul(h, r[: 2 * size].T, precision=_HIGHEST)
        update, reset = jnp.split(apply_fused_activation(gates, f), 2, axis=-1)
        candidate = projected[..., 2 * size :] + jnp.matmul(
            reset * h, r[2 * size :].T, precision=_HIGHEST
        )
    candidate = apply_fused_activation(candidate, g)
    return ((1 - update) * candidate + update * h,)


@dataclasses.dataclass(frozen=True)
class Network:
    """What sets one recurrent operator apart: its gates (stacked along ``W``'s and
    ``R``'s hidden dimension), its activations per direction, ONNX's defaults for them,
    its step, and whether it keeps a cell memory (LSTM's ``C``)."""

    function: str
    gates: int
    activations: tuple[str, ...]
    defaults: tuple[Activation, ...]
    step: Callable[..., _State]
    cell_memory: bool = False


_RNN = Network("dmljax.rnn", 1, ("f",), (_TANH,), _rnn_step)
_LSTM = Network(
    "dmljax.lstm", 4, ("f", "g", "h"), (_SIGMOID, _TANH, _TANH), _lstm_step, cell_memory=True
)
_GRU = Network("dmljax.gru", 3, ("f", "g"), (_SIGMOID, _TANH), _gru_step)


# --- The one lowering -----------------------------------------------------------------------------


def recurrent_lowering(
    cell: Cell,
    x: jax.Array,
    w: jax.Array,
    r: jax.Array,
    b: jax.Array | None,
    h0: jax.Array | None,
    c0: jax.Array | None,
    lengths: jax.Array | None,
    p: jax.Array | None,
    *,
    runs: tuple[_Run, ...],
) -> tuple[jax.Array, jax.Array, jax.Array | None]:
    """The one implementation, shared by every network and both faces, in ONNX's layout:
    ``x`` ``(T, B, I)``, ``w`` ``(D, G H, I)``, ``r`` ``(D, G H, H)``, ``b`` ``(D, 2 G
    H)``, ``h0`` and ``c0`` ``(D, B, H)``, ``lengths`` ``(B,)``, ``p`` ``(D, 3 H)``, for
    ``G`` gates; returns ``y`` ``(T, D, B, H)``, ``y_h`` ``(D, B, H)`` and, for LSTM,
    ``y_c`` ``(D, B, H)`` (else None).

    Each direction is one ``lax.scan`` over the steps (in reverse for BACKWARD), its
    input projections ``X W^T`` and the biases outside the recurrence computed for every
    step at once before it; a step past a sequence's length keeps the states and writes 0.
    """
    steps, batch, _ = x.shape
    hidden = r.shape[-1]
    wide = jnp.promote_types(x.dtype, jnp.float32)
    xs = x.astype(wide)
    valid = None
    if lengths is not None:
        # In [0, T] in their own type first: a uint32 length beyond int32 is just "all".
        within = jnp.clip(lengths, 0, steps).astype(jnp.int32)
        valid = (jnp.arange(steps, dtype=jnp.int32)[:, None] < within[None, :])[..., None]
    ys, finals, cells = [], [], []
    for d, run in enumerate(runs):
        projected = jnp.einsum("tbi,gi->tbg", xs, w[d].astype(wide), precision=_HIGHEST)
        hidden_bias = None
        if b is not None:
            bias_w, bias_r = jnp.split(b[d].astype(wide), 2)
            if cell.linear_before_reset:  # R_bh is multiplied by the reset gate
                hidden_bias = bias_r[2 * hidden :]
                bias_r = bias_r.at[2 * hidden :].set(0)
            projected = projected + (bias_w + bias_r)[None, None]
        zeros = jnp.zeros((batch, hidden), wide)
        state: _State = (zeros if h0 is None else h0[d].astype(wide),)
        if cell.network.cell_memory:
            state += (zeros if c0 is None else c0[d].astype(wide),)
        step = functools.partial(
            cell.network.step, r=r[d].astype(wide), run=run, cell=cell, hidden_bias=hidden_bias,
            peephole=None if p is None else p[d].astype(wide),
        )  # fmt: skip
        final, y = lax.scan(
            functools.partial(_masked, step=step), state,
            projected if valid is None else (projected, valid), reverse=run.backward,
        )  # fmt: skip
        ys.append(y)
        finals.append(final[0])
        cells.append(final[-1])
    y_c = jnp.stack(cells).astype(x.dtype) if cell.network.cell_memory else None
    return jnp.stack(ys, axis=1).astype(x.dtype), jnp.stack(finals).astype(x.dtype), y_c


def _masked(
    state: _State, given: Any, *, step: Callable[[_State, jax.Array], _State]
) -> tuple[_State, jax.Array]:
    """One step and its output (the hidden state); with a mask (sequence lengths), a step
    past the sequence's end keeps the states and outputs 0."""
    projected, keep = given if isinstance(given, tuple) else (given, None)
    new = step(state, projected)
    if keep is None:
        return new, new[0]
    kept = tuple(jnp.where(keep, n, old) for n, old in zip(new, state, strict=True))
    return kept, jnp.where(keep, new[0], jnp.zeros_like(new[0]))


# --- The descs' rules and lowering ----------------------------------------------------------------

_OPTIONAL_INPUTS = ("bias", "hidden_init", "cell_mem_init", "sequence_lengths", "peephole")
# Each desc's network: what its rules, lowering and graph node read.
NETWORK_OF: dict[type[contract.OperatorDesc[Any, *tuple[Any, ...]]], Network] = {
    RnnOperatorDesc: _RNN, LstmOperatorDesc: _LSTM, GruOperatorDesc: _GRU
}  # fmt: skip


def _expect(
    op: str, field: str, tensor: TensorDesc | None, sizes: tuple[int, ...], why: str
) -> None:
    """An optional tensor, where given, has the ``sizes`` the page's layout ``why`` says."""
    if tensor is not None:
        rules.require_sizes(op, field, tensor, sizes, why)


def _rules(desc: Any, level: FL) -> None:
    op = type(desc).__name__
    network = NETWORK_OF[type(desc)]
    gates = network.gates
    g = "" if gates == 1 else f"{gates} * "
    _, steps, batch, inputs = desc.input_tensor.sizes
    directions = len(_reversed_flags(desc.direction))
    wanted = directions * len(network.activations)
    if len(desc.activation_descs) != wanted:
        names = ", ".join(network.activations)
        raise InvalidArgumentError(
            op, "activation_descs",
            f"{wanted} activation descs ({names} for each direction of {desc.direction.name})",
            len(desc.activation_descs),
        )  # fmt: skip
    weight = desc.weight_tensor.sizes
    if weight[0] != 1 or weight[1] != directions or weight[2] % gates or weight[3] != inputs:
        raise InvalidArgumentError(
            op, "weight_tensor.sizes",
            f"(1, {directions}, {g}hidden_size, {inputs}) (num_directions, input_size)",
            str(weight),
        )  # fmt: skip
    hidden = weight[2] // gates
    if desc.input_tensor.sizes[0] != 1:
        raise InvalidArgumentError(
            op, "input_tensor.sizes", "(1, seq_length, batch_size, input_size)",
            str(desc.input_tensor.sizes),
        )  # fmt: skip
    state = (1, directions, batch, hidden)
    layout = "{1, num_directions, batch_size, hidden_size}"
    for field, sizes, why in (
        ("recurrence_tensor", (1, directions, gates * hidden, hidden),
         f"{{1, num_directions, {g}hidden_size, hidden_size}}"),
        ("bias_tensor", (1, 1, directions, 2 * gates * hidden),
         f"{{1, 1, num_directions, {2 * gates} * hidden_size}}"),
        ("hidden_init_tensor", state, layout),
        ("cell_mem_init_tensor", state, layout),
        ("sequence_lengths_tensor", (1, 1, 1, batch), "{1, 1, 1, batch_size}"),
        ("peephole_tensor", (1, 1, directions, 3 * hidden),
         "{1, 1, num_directions, 3 * hidden_size}"),
        ("output_sequence_tensor", (steps, directions, batch, hidden),
         "{seq_length, num_directions, batch_size, hidden_size}"),
        ("output_single_tensor", state, layout),
        ("output_cell_single_tensor", state, layout),
    ):  # fmt: skip
        _expect(op, field, getattr(desc, field, None), sizes, why)
    for i, activation in enumerate(desc.activation_descs):
        check_activation(activation, f"activation_descs[{i}]", op=op, level=level)
    if getattr(desc, "use_clip_threshold", False):
        _clip_threshold(desc.clip_threshold, op=op, field="clip_threshold")
    outputs = [f.name for f in contract.tensor_fields(type(desc), contract.Role.OUTPUT)]
    if all(getattr(desc, name) is None for name in outputs):
        raise InvalidArgumentError(
            op, "output_single_tensor", f"a TensorDesc (or another of {', '.join(outputs)}): "
            f"a {network.function.removeprefix('dmljax.').upper()} with no output computes "
            "nothing", "None for every output",
        )  # fmt: skip


def _clip_threshold(value: Any, *, op: str, field: str) -> float:
    """A clip threshold: a FLOAT of at least 0 (infinity: no bound)."""
    threshold = scalars.float32_attribute(value, op=op, field=field)
    if not threshold >= 0:  # NaN too
        raise InvalidArgumentError(op, field, "a threshold of at least 0", repr(value))
    return threshold


def _cell_of(desc: Any) -> Cell:
    return Cell(
        NETWORK_OF[type(desc)],
        clip=desc.clip_threshold if getattr(desc, "use_clip_threshold", False) else None,
        couple_input_forget=getattr(desc, "couple_input_forget", False),
        linear_before_reset=getattr(desc, "linear_before_reset", False),
    )


def _lower(desc: Any, options: contract.LoweringOptions) -> Any:
    del options
    cell = _cell_of(desc)
    runs = _runs(cell.network, desc.activation_descs, desc.direction)
    present = {name: getattr(desc, f"{name}_tensor", None) is not None for name in _OPTIONAL_INPUTS}
    bound = [
        getattr(desc, f"output_{name}_tensor", None) is not None
        for name in ("sequence", "single", "cell_single")
    ]

    def lowered(x: jax.Array, w: jax.Array, r: jax.Array, *optional: jax.Array) -> Any:
        given = iter(optional)
        arrays = {name: next(given) if present[name] else None for name in _OPTIONAL_INPUTS}
        b, h0, c0, lengths, p = arrays.values()
        y, y_h, y_c = recurrent_lowering(
            cell, x[0], w[0], r[0],
            None if b is None else b[0, 0],
            None if h0 is None else h0[0],
            None if c0 is None else c0[0],
            None if lengths is None else lengths.reshape(-1),
            None if p is None else p[0, 0],
            runs=runs,
        )  # fmt: skip
        results = (y, y_h[None], None if y_c is None else y_c[None])
        outputs = [result for result, wanted in zip(results, bound, strict=True) if wanted]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    return lowered


# --- The functional faces -------------------------------------------------------------------------

FACE_DTYPES: frozenset[np.dtype[Any]] = frozenset(
    np.dtype(t) for t in (np.float32, np.float16, jnp.bfloat16, np.float64)
)
"""The faces' dtypes: the pages' FLOAT32 and FLOAT16, and bfloat16 and float64 as the
family's."""

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
    return _RNN_FACE.call(x, w, r, b, h0, lengths, activations, direction)


def lstm(
    x: ArrayLike,
    w: ArrayLike,
    r: ArrayLike,
    b: ArrayLike | None = None,
    h0: ArrayLike | None = None,
    c0: ArrayLike | None = None,
    lengths: ArrayLike | None = None,
    p: ArrayLike | None = None,
    *,
    activations: Any = None,
    direction: str = "forward",
    clip: float | None = None,
    couple_input_forget: bool = False,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """One layer of a long short-term memory network over ``x`` (DirectML LSTM).

    The functional face of :class:`LstmOperatorDesc`, in ONNX LSTM's layout: ``x`` ``(T,
    B, I)``, ``w`` ``(D, 4 H, I)`` and ``r`` ``(D, 4 H, H)`` (gates ``i, o, f, c``);
    optional ``b`` ``(D, 8 H)`` (``W_b`` then ``R_b``), ``h0`` and ``c0`` ``(D, B, H)``,
    ``lengths`` ``(B,)`` (integers in ``[0, T]``) and peepholes ``p`` ``(D, 3 H)``
    (``P_i, P_o, P_f``). ``D`` is 2 for ``direction="bidirectional"``, else 1.

    Args:
        activations: ``f, g, h`` for each direction; None: sigmoid, tanh, tanh, ONNX's
            defaults.
        direction: ``"forward"``, ``"backward"`` or ``"bidirectional"``.
        clip: bounds every gate's pre-activation to ``[-clip, clip]``; None: no bound.
        couple_input_forget: the forget gate is ``1 - i`` (ONNX's ``input_forget``).

    Returns:
        ``(y, y_h, y_c)``: every step's hidden state ``(T, D, B, H)`` (0 past a
        sequence's length), each sequence's last hidden state and last cell memory ``(D,
        B, H)``.

    Differentiable in the float arrays, and usable under :func:`jax.jit` and
    :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> w = jnp.array([1.0, 1.0, -1.0, 1.0]).reshape(1, 4, 1)  # i, o, f, c
    >>> y, y_h, y_c = dml.lstm(jnp.full((2, 1, 1), 10.0), w, jnp.zeros((1, 4, 1)))
    >>> y_c.ravel()  # i and o open, f shut, the candidate tanh(10): C stays at 1
    Array([1.], dtype=float32)
    """
    return _LSTM_FACE.call(
        x, w, r, b, h0, c0, lengths, p, activations, direction, clip, couple_input_forget
    )


def gru(
    x: ArrayLike,
    w: ArrayLike,
    r: ArrayLike,
    b: ArrayLike | None = None,
    h0: ArrayLike | None = None,
    lengths: ArrayLike | None = None,
    *,
    activations: Any = None,
    direction: str = "forward",
    linear_before_reset: bool = False,
) -> tuple[jax.Array, jax.Array]:
    """One layer of a gated recurrent unit network over ``x`` (DirectML GRU).

    The functional face of :class:`GruOperatorDesc`, in ONNX GRU's layout: ``x`` ``(T, B,
    I)``, ``w`` ``(D, 3 H, I)`` and ``r`` ``(D, 3 H, H)`` (gates ``z, r, h``); optional
    ``b`` ``(D, 6 H)`` (``W_b`` then ``R_b``), ``h0`` ``(D, B, H)`` and ``lengths``
    ``(B,)`` (integers in ``[0, T]``). ``D`` is 2 for ``direction="bidirectional"``,
    else 1.

    Args:
        activations: ``f, g`` for each direction; None: sigmoid, tanh, ONNX's defaults.
        direction: ``"forward"``, ``"backward"`` or ``"bidirectional"``.
        linear_before_reset: multiply the hidden gate's recurrence product (and its
            bias), not the state, by the reset gate.

    Returns:
        ``(y, y_h)``: every step's hidden state ``(T, D, B, H)`` (0 past a sequence's
        length) and each sequence's last ``(D, B, H)``.

    Differentiable in the float arrays, and usable under :func:`jax.jit` and
    :func:`jax.vmap`.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> w = jnp.array([0.0, 0.0, 1.0]).reshape(1, 3, 1)  # z, r, h
    >>> y, y_h = dml.gru(jnp.ones((2, 1, 1)), w, jnp.zeros((1, 3, 1)))
    >>> y.ravel()  # z = 0.5: half the last state, half tanh(1)
    Array([0.3807971, 0.5711956], dtype=float32)
    """
    return _GRU_FACE.call(x, w, r, b, h0, lengths, activations, direction, linear_before_reset)


def _checked(
    cell: Cell,
    x: jax.Array,
    w: jax.Array,
    r: jax.Array,
    optional: dict[str, jax.Array | None],
    activations: tuple[Activation, ...] | None,
    direction: str,
) -> tuple[jax.Array, jax.Array, jax.Array | None]:
    """Every face's checks, then the lowering: ``optional`` are the face's optional
    arrays by name (``b``, ``h0``, ``c0``, ``lengths``, ``p``; a network's absent ones
    None)."""
    network = cell.network
    function = network.function
    enum = RecurrentNetworkDirection[direction.upper()]
    directions = len(_reversed_flags(enum))
    if activations is None:
        activations = network.defaults * directions
    for name, array in (("x", x), ("w", w), ("r", r), *optional.items()):
        if array is not None and name != "lengths":
            rules.require_array_dtype(
                array, FACE_DTYPES, op=function, field=name,
                why=f"DML_OPERATOR_{function.removeprefix('dmljax.').upper()}'s types",
            )  # fmt: skip
            if array.dtype != x.dtype:
                raise InvalidArgumentError(
                    function, name, f"an array of x's dtype ({x.dtype})", str(array.dtype)
                )
    if x.ndim != 3:
        raise InvalidArgumentError(function, "x.shape", "(T, B, I): 3 dimensions", str(x.shape))
    _, batch, inputs = x.shape
    gates = network.gates
    g = "" if gates == 1 else f"{gates} "
    if w.ndim != 3 or w.shape[0] != directions or w.shape[1] % gates or w.shape[2] != inputs:
        raise InvalidArgumentError(
            function, "w.shape",
            f"({directions}, {g}H, {inputs}) (directions, {g}hidden, x's I)", str(w.shape),
        )  # fmt: skip
    hidden = w.shape[1] // gates
    state = (directions, batch, hidden)
    for name, want in (
        ("r", (directions, gates * hidden, hidden)),
        ("b", (directions, 2 * gates * hidden)),
        ("h0", state),
        ("c0", state),
        ("lengths", (batch,)),
        ("p", (directions, 3 * hidden)),
    ):
        array = {"r": r, **optional}.get(name)
        if array is not None and tuple(array.shape) != want:
            raise InvalidArgumentError(function, f"{name}.shape", str(want), str(array.shape))
    lengths = optional.get("lengths")
    if lengths is not None and not jnp.issubdtype(lengths.dtype, jnp.integer):
        raise InvalidArgumentError(
            function, "lengths", "an integer array", f"an array of {lengths.dtype}"
        )
    wanted = directions * len(network.activations)
    if len(activations) != wanted:
        raise InvalidArgumentError(
            function, "activations",
            f"{wanted} activation descs ({', '.join(network.activations)} for each direction)",
            len(activations),
        )  # fmt: skip
    return recurrent_lowering(
        cell, x, w, r, optional.get("b"), optional.get("h0"), optional.get("c0"), lengths,
        optional.get("p"), runs=_runs(network, activations, enum),
    )  # fmt: skip


def _rnn_checked(
    x: jax.Array, w: jax.Array, r: jax.Array, b: jax.Array | None, h0: jax.Array | None,
    lengths: jax.Array | None, activations: tuple[Activation, ...] | None, direction: str,
) -> tuple[jax.Array, jax.Array]:  # fmt: skip
    optional = {"b": b, "h0": h0, "lengths": lengths}
    y, y_h, _ = _checked(Cell(_RNN), x, w, r, optional, activations, direction)
    return y, y_h


def _lstm_checked(
    x: jax.Array, w: jax.Array, r: jax.Array, b: jax.Array | None, h0: jax.Array | None,
    c0: jax.Array | None, lengths: jax.Array | None, p: jax.Array | None,
    activations: tuple[Activation, ...] | None, direction: str, clip: float | None,
    couple_input_forget: bool,
) -> tuple[jax.Array, jax.Array, jax.Array]:  # fmt: skip
    optional = {"b": b, "h0": h0, "c0": c0, "lengths": lengths, "p": p}
    cell = Cell(_LSTM, clip=clip, couple_input_forget=couple_input_forget)
    y, y_h, y_c = _checked(cell, x, w, r, optional, activations, direction)
    assert y_c is not None
    return y, y_h, y_c


def _gru_checked(
    x: jax.Array, w: jax.Array, r: jax.Array, b: jax.Array | None, h0: jax.Array | None,
    lengths: jax.Array | None, activations: tuple[Activation, ...] | None, direction: str,
    linear_before_reset: bool,
) -> tuple[jax.Array, jax.Array]:  # fmt: skip
    optional = {"b": b, "h0": h0, "lengths": lengths}
    cell = Cell(_GRU, linear_before_reset=linear_before_reset)
    y, y_h, _ = _checked(cell, x, w, r, optional, activations, direction)
    return y, y_h


# Each face array's desc field (the desc's layout adds leading 1s: see _graph_node).
FIELDS_OF_ARRAYS = {
    "x": "input_tensor", "w": "weight_tensor", "r": "recurrence_tensor", "b": "bias_tensor",
    "h0": "hidden_init_tensor", "c0": "cell_mem_init_tensor",
    "lengths": "sequence_lengths_tensor", "p": "peephole_tensor",
}  # fmt: skip
_OUTPUT_FIELDS = ("output_sequence_tensor", "output_single_tensor", "output_cell_single_tensor")


def _graph_node(desc_type: type[Any], call: NodeCall) -> Any:
    """A face's call as its desc: each array's TensorDesc in the desc's 4-dimensional
    layout (``b`` and ``p`` as ``{1, 1, D, n}``, ``lengths`` as UINT32 ``{1, 1, 1,
    B}``), the statics as the desc's fields."""
    network = NETWORK_OF[desc_type]
    statics = call.statics
    enum = RecurrentNetworkDirection[statics["direction"].upper()]
    fields: dict[str, Any] = {
        "activation_descs": tuple(
            statics["activations"] or network.defaults * len(_reversed_flags(enum))
        ),
        "direction": enum,
    }
    for name, tensor in call.arrays.items():
        if tensor is None:
            continue
        sizes = (1,) * (4 - tensor.dimension_count) + tensor.sizes
        data_type = DataType.UINT32 if name == "lengths" else tensor.data_type
        fields[FIELDS_OF_ARRAYS[name]] = TensorDesc(data_type=data_type, sizes=sizes)
    for field, tensor in zip(_OUTPUT_FIELDS, call.outputs, strict=False):
        sizes = (1,) * (4 - tensor.dimension_count) + tensor.sizes
        fields[field] = TensorDesc(data_type=tensor.data_type, sizes=sizes)
    if "clip" in statics:
        fields.update(
            clip_threshold=statics["clip"] or 0.0,
            use_clip_threshold=statics["clip"] is not None,
            couple_input_forget=statics["couple_input_forget"],
        )
    if "linear_before_reset" in statics:
        fields["linear_before_reset"] = statics["linear_before_reset"]
    return desc_type(**fields)


def _plain_activations(value: Any) -> bool:
    return type(value) is tuple and all(
        isinstance(a, Activation) and a.input_tensor is None and a.output_tensor is None
        for a in value
    )


def _plain_clip(value: Any) -> bool:
    return type(value) is float and value >= 0 and value == float(np.float32(value))


_ACTIVATIONS = faces.Coerced(
    "activations", activation_descs_attribute, _plain_activations, optional=True
)
_RNN_FACE = faces.FunctionalFace(
    rnn,
    _rnn_checked,
    faces.Data("x"),
    faces.Data("w"),
    faces.Data("r"),
    faces.Data("b", optional=True),
    faces.Data("h0", optional=True),
    faces.Indices("lengths", optional=True),
    _ACTIVATIONS,
    faces.Choice("direction", _DIRECTIONS),
    graph_node=functools.partial(_graph_node, RnnOperatorDesc),
)
_LSTM_FACE = faces.FunctionalFace(
    lstm,
    _lstm_checked,
    faces.Data("x"),
    faces.Data("w"),
    faces.Data("r"),
    faces.Data("b", optional=True),
    faces.Data("h0", optional=True),
    faces.Data("c0", optional=True),
    faces.Indices("lengths", optional=True),
    faces.Data("p", optional=True),
    _ACTIVATIONS,
    faces.Choice("direction", _DIRECTIONS),
    faces.Coerced("clip", _clip_threshold, _plain_clip, optional=True),
    faces.Bool("couple_input_forget"),
    graph_node=functools.partial(_graph_node, LstmOperatorDesc),
)
_GRU_FACE = faces.FunctionalFace(
    gru,
    _gru_checked,
    faces.Data("x"),
    faces.Data("w"),
    faces.Data("r"),
    faces.Data("b", optional=True),
    faces.Data("h0", optional=True),
    faces.Indices("lengths", optional=True),
    _ACTIVATIONS,
    faces.Choice("direction", _DIRECTIONS),
    faces.Bool("linear_before_reset"),
    graph_node=functools.partial(_graph_node, GruOperatorDesc),
)


def _operator(name: str, desc_type: type[Any], face: faces.FunctionalFace) -> Any:
    """A recurrent operator as the pages declare each: FL 1_0, 4 dimensions, FLOAT32 and
    FLOAT16 (sequence lengths UINT32), every float tensor of one type."""
    floats = [
        f.name for f in contract.tensor_fields(desc_type) if f.name != "sequence_lengths_tensor"
    ]
    lengths = frozenset({DataType.UINT32})
    return contract.Operator(
        name,
        desc_type,
        support=(fl.band(FL.FL_1_0, (4, 4), fl.FLOATS_16_32, sequence_lengths_tensor=lengths),),
        same_dimension_count=True,
        same_data_type=tuple(floats),
        rules=_rules,
        output_sizes=None,  # optional outputs: the rules check each
        lower=_lower,
        face=face,
    )


RNN: contract.Operator[RnnOperatorDesc] = _operator("DML_OPERATOR_RNN", RnnOperatorDesc, _RNN_FACE)
LSTM: contract.Operator[LstmOperatorDesc] = _operator(
    "DML_OPERATOR_LSTM", LstmOperatorDesc, _LSTM_FACE
)
GRU: contract.Operator[GruOperatorDesc] = _operator("DML_OPERATOR_GRU", GruOperatorDesc, _GRU_FACE)
