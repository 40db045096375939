"""RNN's, LSTM's and GRU's doc examples, selftest sweeps and bench cases: what checks and
measures the operators :mod:`dmljax._src.ops.recurrent` declares, loaded on use only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from dmljax._src import contract
from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.c_names import snake_case
from dmljax._src.checking import reference, sweeps
from dmljax._src.checking.doc_entries import Entry, tensor_desc_of
from dmljax._src.checking.operator_checks import FLOATS, DocumentedBand, OperatorChecks, data_of
from dmljax._src.dtypes import DataType
from dmljax._src.enums import RecurrentNetworkDirection
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.element_wise_names import (
    ActivationIdentityOperatorDesc,
    ActivationReluOperatorDesc,
    ActivationSigmoidOperatorDesc,
    ActivationTanhOperatorDesc,
)
from dmljax._src.ops.recurrent import (
    FACE_DTYPES,
    FIELDS_OF_ARRAYS,
    GRU,
    LSTM,
    NETWORK_OF,
    RNN,
    GruOperatorDesc,
    LstmOperatorDesc,
    gru,
    lstm,
    rnn,
)
from dmljax._src.tensor_desc import TensorDesc


def _source(name: str) -> str:
    return (
        f"dmljax: the DML_{name}_OPERATOR_DESC page (MicrosoftDocs/sdk-api, sdk-api-src/"
        f"content/directml/ns-directml-dml_{name.lower()}_operator_desc.md) has no example"
    )


def _tensor(sizes: list[int], data: list[Any]) -> dict[str, Any]:
    return {"sizes": sizes, "dtype": "FLOAT32", "data": data}


_FORWARD = "DML_RECURRENT_NETWORK_DIRECTION_FORWARD"
_STEPS_123 = _tensor([1, 3, 1, 1], [[[[1]], [[2]], [[3]]]])

EXAMPLES = (
    {
        "id": "rnn-dmljax-relu-running-sum",
        "op": "DML_OPERATOR_RNN",
        "source": _source("RNN"),
        "attrs": {"Direction": _FORWARD, "Activations": ["RELU"], "output_index": 0},
        "inputs": {
            "InputTensor": _STEPS_123,
            "WeightTensor": _tensor([1, 1, 1, 1], [[[[2]]]]),
            "RecurrenceTensor": _tensor([1, 1, 1, 1], [[[[1]]]]),
        },
        # H_t = relu(2 x_t + H_(t-1)): 2, 2 + 4 = 6, 6 + 6 = 12.
        "expected": _tensor([3, 1, 1, 1], [[[[2]]], [[[6]]], [[[12]]]]),
        "notes": "The output sequence of a forward RNN with a ReLU: a running sum.",
        "status": "dmljax",
    },
    {
        "id": "rnn-dmljax-backward-single",
        "op": "DML_OPERATOR_RNN",
        "source": _source("RNN"),
        "attrs": {"Direction": "DML_RECURRENT_NETWORK_DIRECTION_BACKWARD",
                  "Activations": ["RELU"], "output_index": 1},
        "inputs": {
            "InputTensor": _STEPS_123,
            "WeightTensor": _tensor([1, 1, 1, 1], [[[[1]]]]),
            "RecurrenceTensor": _tensor([1, 1, 1, 1], [[[[10]]]]),
        },
        # From the last step back: 3, then 2 + 30 = 32, then 1 + 320 = 321.
        "expected": _tensor([1, 1, 1, 1], [[[[321]]]]),
        "notes": "The single output of a backward RNN: its hidden state after step 0.",
        "status": "dmljax",
    },
    {
        "id": "lstm-dmljax-open-gates-running-sum",
        "op": "DML_OPERATOR_LSTM",
        "source": _source("LSTM"),
        "attrs": {"Direction": _FORWARD, "Activations": ["RELU", "IDENTITY", "IDENTITY"],
                  "output_index": 2},
        "inputs": {
            "InputTensor": _STEPS_123,
            # Gates i, o, f, c: only the cell candidate reads x.
            "WeightTensor": _tensor([1, 1, 4, 1], [[[[0], [0], [0], [1]]]]),
            "RecurrenceTensor": _tensor([1, 1, 4, 1], [[[[0], [0], [0], [0]]]]),
            # W_b opens i, o and f (relu(1) = 1); R_b is 0.
            "BiasTensor": _tensor([1, 1, 1, 8], [[[[1, 1, 1, 0, 0, 0, 0, 0]]]]),
        },
        # C_t = 1 * C_(t-1) + 1 * x_t: 1, 3, 6.
        "expected": _tensor([1, 1, 1, 1], [[[[6]]]]),
        "notes": "The last cell memory of an LSTM whose gates are all open: a running sum.",
        "status": "dmljax",
    },
    {
        "id": "lstm-dmljax-coupled-gates",
        "op": "DML_OPERATOR_LSTM",
        "source": _source("LSTM"),
        "attrs": {"Direction": _FORWARD, "Activations": ["RELU", "IDENTITY", "IDENTITY"],
                  "CoupleInputForget": True, "output_index": 0},
        "inputs": {
            "InputTensor": _STEPS_123,
            "WeightTensor": _tensor([1, 1, 4, 1], [[[[0], [0], [0], [1]]]]),
            "RecurrenceTensor": _tensor([1, 1, 4, 1], [[[[0], [0], [0], [0]]]]),
            "BiasTensor": _tensor([1, 1, 1, 8], [[[[1, 1, 1, 0, 0, 0, 0, 0]]]]),
        },
        # The forget gate is 1 - i = 0: each step keeps only its own input.
        "expected": _tensor([3, 1, 1, 1], [[[[1]]], [[[2]]], [[[3]]]]),
        "notes": "The same LSTM with CoupleInputForget: the forget gate is 1 - i, here 0.",
        "status": "dmljax",
    },
    {
        "id": "gru-dmljax-half-update",
        "op": "DML_OPERATOR_GRU",
        "source": _source("GRU"),
        "attrs": {"Direction": _FORWARD, "Activations": ["RELU", "IDENTITY"],
                  "output_index": 0},
        "inputs": {
            "InputTensor": _STEPS_123,
            # Gates z, r, h: the hidden gate reads 2 x.
            "WeightTensor": _tensor([1, 1, 3, 1], [[[[0], [0], [2]]]]),
            "RecurrenceTensor": _tensor([1, 1, 3, 1], [[[[0], [0], [0]]]]),
            # W_b: z = relu(0.5), r = relu(1).
            "BiasTensor": _tensor([1, 1, 1, 6], [[[[0.5, 1, 0, 0, 0, 0]]]]),
        },
        # H_t = 0.5 * 2 x_t + 0.5 H_(t-1): 1, 2.5, 4.25.
        "expected": _tensor([3, 1, 1, 1], [[[[1]]], [[[2.5]]], [[[4.25]]]]),
        "notes": "A GRU whose update gate is 0.5: half the new candidate, half the last state.",
        "status": "dmljax",
    },
    {
        "id": "gru-dmljax-linear-before-reset",
        "op": "DML_OPERATOR_GRU",
        "source": _source("GRU"),
        "attrs": {"Direction": _FORWARD, "Activations": ["RELU", "IDENTITY"],
                  "LinearBeforeReset": True, "output_index": 1},
        "inputs": {
            "InputTensor": _STEPS_123,
            "WeightTensor": _tensor([1, 1, 3, 1], [[[[0], [0], [1]]]]),
            "RecurrenceTensor": _tensor([1, 1, 3, 1], [[[[0], [0], [1]]]]),
            # W_b: z = 0, r = relu(0.5); R_bh = 1, inside the reset's product.
            "BiasTensor": _tensor([1, 1, 1, 6], [[[[0, 0.5, 0, 0, 0, 1]]]]),
        },
        # H_t = x_t + 0.5 * (H_(t-1) + 1): 1.5, 3.25, 5.125 (without LinearBeforeReset
        # the bias stays outside: x_t + 0.5 H_(t-1) + 1, ending at 6).
        "expected": _tensor([1, 1, 1, 1], [[[[5.125]]]]),
        "notes": "A GRU with LinearBeforeReset: the reset gate scales R_h H + R_bh.",
        "status": "dmljax",
    },
)  # fmt: skip

_ACTIVATIONS = {
    "RELU": ActivationReluOperatorDesc,
    "TANH": ActivationTanhOperatorDesc,
    "SIGMOID": ActivationSigmoidOperatorDesc,
    "IDENTITY": ActivationIdentityOperatorDesc,
}
_OPERATORS = {operator.name: operator for operator in (RNN, LSTM, GRU)}
_OUTPUTS = ("output_sequence_tensor", "output_single_tensor", "output_cell_single_tensor")


def _doc_example(e: Entry) -> Any:
    """A recurrent example: every output bound, the entry shows the one ``output_index``
    names; ``Activations`` are one direction's, repeated for each."""
    desc_type = _OPERATORS[e["op"]].desc_type
    fields: dict[str, Any] = {snake_case(k): tensor_desc_of(v) for k, v in e["inputs"].items()}
    _, steps, batch, _ = fields["input_tensor"].sizes
    _, directions, gates_hidden, _ = fields["weight_tensor"].sizes
    hidden = gates_hidden // NETWORK_OF[desc_type].gates
    f32 = DataType.FLOAT32
    outputs = {
        "output_sequence_tensor": (steps, directions, batch, hidden),
        "output_single_tensor": (1, directions, batch, hidden),
        "output_cell_single_tensor": (1, directions, batch, hidden),
    }
    names = {f.name for f in dataclasses.fields(desc_type)}
    attrs = e["attrs"]
    options = {snake_case(k): v for k, v in attrs.items()
               if k in ("CoupleInputForget", "LinearBeforeReset")}  # fmt: skip
    return desc_type(
        **fields,
        **{n: TensorDesc(data_type=f32, sizes=s) for n, s in outputs.items() if n in names},
        **options,
        activation_descs=tuple(_ACTIVATIONS[a]() for a in attrs["Activations"]) * directions,
        direction=RecurrentNetworkDirection.coerce(attrs["Direction"], op="", field=""),
    )


# Each desc input field's functional face argument.
_FACE_ARGUMENTS = {field: name for name, field in FIELDS_OF_ARRAYS.items()}


def _doc_example_face(example: Any) -> tuple[jax.Array, ...]:
    """The example through its face: the arrays without the desc's leading 1s, the
    single outputs with one."""
    desc = example.desc
    bound = [label for label, _ in contract.bound_tensors(desc, contract.Role.INPUT)]
    arrays = {_FACE_ARGUMENTS[label]: a for label, a in zip(bound, example.inputs, strict=True)}
    kwargs: dict[str, Any] = {
        name: a.reshape(a.shape[-2:]) if name in ("b", "p") else a[0] for name, a in arrays.items()
    }
    options: dict[str, Any] = {
        "activations": desc.activation_descs, "direction": desc.direction.name.lower()
    }  # fmt: skip
    if isinstance(desc, LstmOperatorDesc):
        options.update(couple_input_forget=desc.couple_input_forget,
                       clip=desc.clip_threshold if desc.use_clip_threshold else None)  # fmt: skip
        face: Callable[..., Any] = lstm
    elif isinstance(desc, GruOperatorDesc):
        options.update(linear_before_reset=desc.linear_before_reset)
        face = gru
    else:
        face = rnn
    y, *singles = face(**kwargs, **options)
    return (y, *(s[None] for s in singles))


_NUMPY = {ActivationTanhOperatorDesc: np.tanh,
          ActivationSigmoidOperatorDesc: lambda v: 1 / (1 + np.exp(-v))}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class _Network:
    """What a sweep draws for one network: its operator (whose declared network gives its
    gates and activations per direction), its optional arrays after ``b`` and ``h0``
    (LSTM's ``c0`` and ``p``), its face, and its options as a draw and as the reference
    takes them."""

    operator: Any
    more: tuple[str, ...]
    face: Callable[..., Any]
    reference: Callable[..., Any]
    options: Callable[[np.random.Generator], dict[str, Any]]

    @property
    def gates(self) -> int:
        return NETWORK_OF[self.operator.desc_type].gates

    @property
    def activations(self) -> int:
        return len(NETWORK_OF[self.operator.desc_type].activations)


_NETWORKS = {
    "RNN": _Network(RNN, (), rnn, reference.rnn, lambda rng: {}),
    "LSTM": _Network(
        LSTM, ("c0", "p"), lstm, reference.lstm,
        lambda rng: {"couple_input_forget": bool(rng.integers(0, 2))},
    ),
    "GRU": _Network(
        GRU, (), gru, reference.gru,
        lambda rng: {"linear_before_reset": bool(rng.integers(0, 2))},
    ),
}  # fmt: skip


def _sweep(name: str) -> Callable[..., sweeps.SweepCase]:
    """The network's sweep: its face of 1 to 3 steps, batches of 1 or 2, 1 to 3 inputs
    and hidden units, any direction, tanh or sigmoid activations (smooth, for
    ``check_grads``), with or without each optional array but the sequence lengths and
    each option (LSTM's coupled gates, GRU's ``linear_before_reset``; LSTM's clip is not
    smooth: tests/test_recurrent.py checks it)."""
    network = _NETWORKS[name]

    def sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
        steps, size, inputs, hidden = (int(n) for n in rng.integers(1, 3, size=4, endpoint=True))
        direction = str(rng.choice(["forward", "backward", "bidirectional"]))
        directions = 2 if direction == "bidirectional" else 1
        kinds = [(ActivationTanhOperatorDesc, ActivationSigmoidOperatorDesc)[int(k)]
                 for k in rng.integers(0, 2, size=directions * network.activations)]  # fmt: skip
        activations = tuple(kind() for kind in kinds)
        options = network.options(rng)
        gated = network.gates * hidden
        shapes = {"b": (directions, 2 * gated), "h0": (directions, size, hidden),
                  "c0": (directions, size, hidden), "p": (directions, 3 * hidden)}  # fmt: skip
        optional = [n for n in ("b", "h0", *network.more) if rng.integers(0, 2)]

        def draw(shape: tuple[int, ...]) -> np.ndarray:
            return (rng.standard_normal(shape) * 0.5).astype(dtype)

        args = tuple(
            (draw((steps, size, inputs)), draw((directions, gated, inputs)),
             draw((directions, gated, hidden)), *(draw(shapes[n]) for n in optional))
            for _ in range(batch)
        )  # fmt: skip

        def call(x: jax.Array, w: jax.Array, r: jax.Array, *rest: jax.Array) -> Any:
            given = dict(zip(optional, rest, strict=True))
            return network.face(x, w, r, **given, activations=activations, direction=direction,
                                **options)  # fmt: skip

        def want(arrays: tuple[np.ndarray, ...]) -> Any:
            x, w, r, *rest = arrays
            given = dict(zip(optional, rest, strict=True))
            more = [given.get(n) for n in ("h0", *network.more[:1])]
            return network.reference(
                x, w, r, given.get("b"), *more, None, *(given.get(n) for n in network.more[1:]),
                activations=[_NUMPY[k] for k in kinds],
                backward=[direction == "backward", True][:directions], **options,
            )  # fmt: skip

        return sweeps.SweepCase(
            label=f"{sweeps.label((steps, size, inputs), dtype)} hidden {hidden} {direction} "
            f"{' '.join(optional)} {' '.join(k for k, v in options.items() if v)}".rstrip(),
            fn=call,
            batch=args,
            expected=tuple(want(a) for a in args),
            linear_argnums=tuple(range(len(args[0]))),
            linear=False,
            # float32 steps against float64: a few roundings per step, carried through
            # the activations.
            ulps=64,
            magnitude=1.0,
        )

    return sweep


def _scan_step(name: str, r: jax.Array) -> Callable[..., Any]:
    """One step of the network written by hand (ONNX's defaults: no bias, sigmoid and
    tanh), for the bench's ``lax.scan``."""
    highest = lax.Precision.HIGHEST

    def rnn_step(h: jax.Array, p: jax.Array) -> tuple[jax.Array, jax.Array]:
        h = jnp.tanh(p + jnp.matmul(h, r.T, precision=highest))
        return h, h

    def lstm_step(state: Any, p: jax.Array) -> tuple[Any, jax.Array]:
        h, c = state
        i, o, f, g = jnp.split(p + jnp.matmul(h, r.T, precision=highest), 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h

    def gru_step(h: jax.Array, p: jax.Array) -> tuple[jax.Array, jax.Array]:
        n = h.shape[-1]
        z, reset = jnp.split(
            jax.nn.sigmoid(p[:, : 2 * n] + jnp.matmul(h, r[: 2 * n].T, precision=highest)), 2,
            axis=-1,
        )  # fmt: skip
        candidate = jnp.tanh(p[:, 2 * n :] + jnp.matmul(reset * h, r[2 * n :].T, precision=highest))
        h = (1 - z) * candidate + z * h
        return h, h

    return {"RNN": rnn_step, "LSTM": lstm_step, "GRU": gru_step}[name]


def _bench(name: str) -> list[Case | EagerCase]:
    """A forward network (ONNX's default activations) of 256 steps, a batch of 64, 256
    inputs and hidden units (float32), against the same recurrence written as
    ``lax.scan``; RNN also eagerly, through both faces."""
    network = _NETWORKS[name]
    gates = network.gates

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        steps = 16 if quick else 256
        keys = jax.random.split(key, 3)
        scale = np.float32(1 / 16)
        return (
            operands.normal(keys[0], (steps, 64, 256)),
            operands.normal(keys[1], (1, gates * 256, 256)) * scale,
            operands.normal(keys[2], (1, gates * 256, 256)) * scale,
        )

    def scan(
        x: jax.Array, w: jax.Array, r: jax.Array, lengths: jax.Array | None = None
    ) -> tuple[jax.Array, ...]:
        """The network as a JAX user writes it; with ``lengths``, each sequence's steps
        past its length keep the state and output 0."""
        projected = jnp.einsum("tbi,gi->tbg", x, w[0], precision=lax.Precision.HIGHEST)
        h = jnp.zeros((x.shape[1], r.shape[2]), x.dtype)
        start: Any = (h, h) if name == "LSTM" else h
        step = _scan_step(name, r[0])
        if lengths is None:
            final, y = lax.scan(step, start, projected)
        else:
            steps = jnp.arange(x.shape[0], dtype=jnp.int32)[:, None]
            valid = (steps < jnp.clip(lengths, 0, x.shape[0]).astype(jnp.int32)[None])[..., None]

            def masked(state: Any, given: tuple[jax.Array, jax.Array]) -> tuple[Any, jax.Array]:
                p, keep = given
                new, out = step(state, p)
                kept = jax.tree.map(lambda n, o: jnp.where(keep, n, o), new, state)
                return kept, jnp.where(keep, out, jnp.zeros_like(out))

            final, y = lax.scan(masked, start, (projected, valid))
        finals: tuple[jax.Array, ...] = final if name == "LSTM" else (final,)
        return (y[:, None], *(f[None] for f in finals))

    def moved(args: Any) -> int:
        return 2 * args[0].nbytes + args[1].nbytes + args[2].nbytes

    cases: list[Case | EagerCase] = [
        Case(
            name=f"{name.lower()} 256 steps",
            operator=name,
            make_args=make_args,
            dmljax_fn=lambda x, w, r: network.face(x, w, r),
            jnp_fn=scan,
            bytes_moved=moved,
            target_ratio=1.1,  # the target for a recurrence against lax.scan
        )
    ]
    return [*cases, _eager(name, scan)]


def _eager(name: str, scan: Callable[..., Any]) -> EagerCase:
    """The network eagerly: 4 steps, a batch of 2, 4 inputs, 1 unit and sequence lengths
    of 4 and 3 (UINT32, as the desc's; NumPy int64 through the face), through both
    faces, against the same masked recurrence written as ``lax.scan``."""
    network = _NETWORKS[name]
    gates = network.gates

    def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
        x = operands.tiny_operands(key)[0]
        w, r = x[4 : 4 + gates, :4], x[4 : 4 + gates, 4:5]  # rows 4 to 7: no x's
        return (x[:4].reshape(4, 2, 4), w[None], r[None], jnp.array([4, 3], jnp.uint32))

    f32 = DataType.FLOAT32
    desc_type = network.operator.desc_type
    single = TensorDesc(data_type=f32, sizes=(1, 1, 2, 1))
    extra: dict[str, Any] = {"output_cell_single_tensor": single} if name == "LSTM" else {}
    defaults = {"RNN": (ActivationTanhOperatorDesc(),),
                "LSTM": (ActivationSigmoidOperatorDesc(), ActivationTanhOperatorDesc(),
                         ActivationTanhOperatorDesc()),
                "GRU": (ActivationSigmoidOperatorDesc(), ActivationTanhOperatorDesc())}  # fmt: skip

    return EagerCase(
        name=f"{name.lower()} eager",
        operator=name,
        desc_operands=lambda x, w, r, n: (x[None], w[None], r[None], n.reshape(1, 1, 1, -1)),
        desc=lambda x, w, r, n: desc_type(
            input_tensor=TensorDesc(data_type=f32, sizes=(1, 4, 2, 4)),
            weight_tensor=TensorDesc(data_type=f32, sizes=(1, 1, gates, 4)),
            recurrence_tensor=TensorDesc(data_type=f32, sizes=(1, 1, gates, 1)),
            output_sequence_tensor=TensorDesc(data_type=f32, sizes=(4, 1, 2, 1)),
            sequence_lengths_tensor=TensorDesc(data_type=DataType.UINT32, sizes=(1, 1, 1, 2)),
            output_single_tensor=single,
            **extra,
            activation_descs=defaults[name],
            direction=RecurrentNetworkDirection.FORWARD,
        ),
        functional=lambda x, w, r, n: network.face(x, w, r, lengths=n),
        jnp_fn=scan,
        make_args=tiny,
        numpy_indices=3,
    )


def _support_case(name: str) -> Callable[..., tuple[Any, tuple[np.ndarray, ...]]]:
    """The network's support case: forward, 2 steps, 2 inputs and 2 units, with every
    optional tensor bound (sequence lengths of ``index_type``); at a rank other than the
    page's 4 its tensors' sizes padded with leading 1s or cut to their last ``rank``."""
    network = _NETWORKS[name]
    desc_type = network.operator.desc_type
    gated = 2 * network.gates
    names = {f.name for f in dataclasses.fields(desc_type)}

    def case(
        rank: int, data_type: DataType, index_type: DataType
    ) -> tuple[Any, tuple[np.ndarray, ...]]:
        def sized(*sizes: int) -> tuple[int, ...]:
            return (*(1,) * (rank - 4), *sizes) if rank >= 4 else sizes[4 - rank :]

        shapes = {
            "input_tensor": sized(1, 2, 1, 2), "weight_tensor": sized(1, 1, gated, 2),
            "recurrence_tensor": sized(1, 1, gated, 2), "bias_tensor": sized(1, 1, 1, 2 * gated),
            "hidden_init_tensor": sized(1, 1, 1, 2), "cell_mem_init_tensor": sized(1, 1, 1, 2),
            "sequence_lengths_tensor": sized(1, 1, 1, 1), "peephole_tensor": sized(1, 1, 1, 6),
        }  # fmt: skip
        shapes = {n: s for n, s in shapes.items() if n in names}
        types = {n: index_type if n == "sequence_lengths_tensor" else data_type for n in shapes}
        outputs = {"output_sequence_tensor": sized(2, 1, 1, 2),
                   "output_single_tensor": sized(1, 1, 1, 2),
                   "output_cell_single_tensor": sized(1, 1, 1, 2)}  # fmt: skip
        desc = desc_type(
            **{n: TensorDesc(data_type=types[n], sizes=sizes) for n, sizes in shapes.items()},
            **{n: TensorDesc(data_type=data_type, sizes=sizes)
               for n, sizes in outputs.items() if n in names},
            activation_descs=(ActivationReluOperatorDesc(),) * network.activations,
            direction=RecurrentNetworkDirection.FORWARD,
        )  # fmt: skip
        return desc, tuple(data_of(sizes, types[n]) for n, sizes in shapes.items())

    return case


def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    """Every size but the steps and the batch is the direction count or another
    argument's (``w``'s hidden and input sizes are ``r``'s and ``x``'s): a symbol there
    is refused for the size it must equal."""
    del k, d, arrays
    return ".shape must be" in str(error)


_DOCUMENTED: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: ((4, 4), FLOATS, {DataType.UINT32}),
}

CHECKS = tuple(
    OperatorChecks(
        operator,
        doc_example=_doc_example,
        doc_example_face=_doc_example_face,
        sweep=_sweep(name),
        bench=lambda name=name: _bench(name),
        documented_support=_DOCUMENTED,
        support_case=_support_case(name),
        fixed_size=_fixed_size,
        computes="a recurrence of products and activations (tests/test_recurrent.py)",
        face_dtypes=FACE_DTYPES,
        examples=tuple(e for e in EXAMPLES if e["op"] == operator.name),
    )
    for name, operator in (("RNN", RNN), ("LSTM", LSTM), ("GRU", GRU))
)
