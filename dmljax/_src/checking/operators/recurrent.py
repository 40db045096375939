"""RNN's doc examples, selftest sweep and bench cases: what checks and measures the operator
:mod:`dmljax._src.ops.recurrent` declares, loaded on use only.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking import reference, sweeps
from dmljax._src.checking.doc_entries import Entry, tensor_desc_of
from dmljax._src.checking.operator_checks import FLOATS, DocumentedBand, OperatorChecks, data_of
from dmljax._src.dtypes import DataType
from dmljax._src.enums import RecurrentNetworkDirection
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.element_wise_names import (
    ActivationReluOperatorDesc,
    ActivationSigmoidOperatorDesc,
    ActivationTanhOperatorDesc,
)
from dmljax._src.ops.recurrent import FACE_DTYPES, RNN, RnnOperatorDesc, rnn
from dmljax._src.tensor_desc import TensorDesc

_SOURCE = (
    "dmljax: the DML_RNN_OPERATOR_DESC page (MicrosoftDocs/sdk-api, "
    "sdk-api-src/content/directml/ns-directml-dml_rnn_operator_desc.md) has no example"
)


def _tensor(sizes: list[int], data: list[Any]) -> dict[str, Any]:
    return {"sizes": sizes, "dtype": "FLOAT32", "data": data}


EXAMPLES = (
    {
        "id": "rnn-dmljax-relu-running-sum",
        "op": "DML_OPERATOR_RNN",
        "source": _SOURCE,
        "attrs": {"Direction": "DML_RECURRENT_NETWORK_DIRECTION_FORWARD",
                  "Activation": "RELU", "output_index": 0},
        "inputs": {
            "InputTensor": _tensor([1, 3, 1, 1], [[[[1]], [[2]], [[3]]]]),
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
        "source": _SOURCE,
        "attrs": {"Direction": "DML_RECURRENT_NETWORK_DIRECTION_BACKWARD",
                  "Activation": "RELU", "output_index": 1},
        "inputs": {
            "InputTensor": _tensor([1, 3, 1, 1], [[[[1]], [[2]], [[3]]]]),
            "WeightTensor": _tensor([1, 1, 1, 1], [[[[1]]]]),
            "RecurrenceTensor": _tensor([1, 1, 1, 1], [[[[10]]]]),
        },
        # From the last step back: 3, then 2 + 30 = 32, then 1 + 320 = 321.
        "expected": _tensor([1, 1, 1, 1], [[[[321]]]]),
        "notes": "The single output of a backward RNN: its hidden state after step 0.",
        "status": "dmljax",
    },
)  # fmt: skip

_ACTIVATIONS = {"RELU": ActivationReluOperatorDesc, "TANH": ActivationTanhOperatorDesc}


def _doc_example(e: Entry) -> RnnOperatorDesc:
    """An RNN example: both outputs, the entry shows the one ``output_index`` names."""
    fields = {
        "input_tensor": tensor_desc_of(e["inputs"]["InputTensor"]),
        "weight_tensor": tensor_desc_of(e["inputs"]["WeightTensor"]),
        "recurrence_tensor": tensor_desc_of(e["inputs"]["RecurrenceTensor"]),
    }
    _, steps, batch, _ = fields["input_tensor"].sizes
    _, directions, hidden, _ = fields["weight_tensor"].sizes
    f32 = DataType.FLOAT32
    return RnnOperatorDesc(
        **fields,
        output_sequence_tensor=TensorDesc(data_type=f32, sizes=(steps, directions, batch, hidden)),
        output_single_tensor=TensorDesc(data_type=f32, sizes=(1, directions, batch, hidden)),
        activation_descs=(_ACTIVATIONS[e["attrs"]["Activation"]](),) * directions,
        direction=RecurrentNetworkDirection.coerce(e["attrs"]["Direction"], op="", field=""),
    )


def _doc_example_face(example: Any) -> tuple[jax.Array, jax.Array]:
    desc = example.desc
    x, w, r = example.inputs
    y, y_h = rnn(
        x[0], w[0], r[0], activations=desc.activation_descs,
        direction=desc.direction.name.lower(),
    )  # fmt: skip
    return y, y_h[None]


_NUMPY = {ActivationTanhOperatorDesc: np.tanh,
          ActivationSigmoidOperatorDesc: lambda v: 1 / (1 + np.exp(-v))}  # fmt: skip


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.rnn`` of 1 to 3 steps, batches of 1 or 2, 1 to 3 inputs and hidden units, any
    direction, tanh or sigmoid (smooth, for ``check_grads``), with or without a bias and
    an initial state; sequence lengths in the other draws."""
    steps, size, inputs, hidden = (int(n) for n in rng.integers(1, 3, size=4, endpoint=True))
    direction = str(rng.choice(["forward", "backward", "bidirectional"]))
    directions = 2 if direction == "bidirectional" else 1
    kinds = [(ActivationTanhOperatorDesc, ActivationSigmoidOperatorDesc)[int(k)]
             for k in rng.integers(0, 2, size=directions)]  # fmt: skip
    activations = tuple(kind() for kind in kinds)
    with_bias, with_state = (bool(v) for v in rng.integers(0, 2, size=2))

    def draw(shape: tuple[int, ...]) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.5).astype(dtype)

    args = []
    for _ in range(batch):
        arrays = [draw((steps, size, inputs)), draw((directions, hidden, inputs)),
                  draw((directions, hidden, hidden))]  # fmt: skip
        if with_bias:
            arrays.append(draw((directions, 2 * hidden)))
        if with_state:
            arrays.append(draw((directions, size, hidden)))
        args.append(tuple(arrays))

    def call(*arrays: jax.Array) -> tuple[jax.Array, jax.Array]:
        x, w, r, *rest = arrays
        b = rest.pop(0) if with_bias else None
        h0 = rest.pop(0) if with_state else None
        return rnn(x, w, r, b, h0, activations=activations, direction=direction)

    def want(arrays: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        x, w, r, *rest = arrays
        b = rest.pop(0) if with_bias else None
        h0 = rest.pop(0) if with_state else None
        return reference.rnn(
            x, w, r, b, h0, None, activations=[_NUMPY[k] for k in kinds],
            backward=[direction == "backward", True][:directions],
        )  # fmt: skip

    return sweeps.SweepCase(
        label=f"{sweeps.label((steps, size, inputs), dtype)} hidden {hidden} {direction}"
        f"{' bias' if with_bias else ''}{' h0' if with_state else ''}",
        fn=call,
        batch=tuple(args),
        expected=tuple(want(a) for a in args),
        linear_argnums=tuple(range(len(args[0]))),
        linear=False,
        # float32 steps against float64: a few roundings per step, carried through tanh.
        ulps=64,
        magnitude=1.0,
    )


def _bench() -> list[Case | EagerCase]:
    """A forward tanh RNN of 256 steps, a batch of 64, 256 inputs and hidden units
    (float32), against the same recurrence written as ``lax.scan``."""

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        steps = 16 if quick else 256
        keys = jax.random.split(key, 3)
        scale = np.float32(1 / 16)
        return (
            operands.normal(keys[0], (steps, 64, 256)),
            operands.normal(keys[1], (1, 256, 256)) * scale,
            operands.normal(keys[2], (1, 256, 256)) * scale,
        )

    def scan(x: jax.Array, w: jax.Array, r: jax.Array) -> tuple[jax.Array, jax.Array]:
        highest = lax.Precision.HIGHEST
        projected = jnp.einsum("tbi,hi->tbh", x, w[0], precision=highest)

        def step(h: jax.Array, p: jax.Array) -> tuple[jax.Array, jax.Array]:
            h = jnp.tanh(p + jnp.matmul(h, r[0].T, precision=highest))
            return h, h

        final, y = lax.scan(step, jnp.zeros(x.shape[1:2] + w.shape[1:2], x.dtype), projected)
        return y[:, None], final[None]

    def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
        """4 steps, a batch of 2, 4 inputs, 1 unit, and both sequences' lengths, the whole
        4 (UINT32, as the desc's)."""
        x = operands.tiny_operands(key)[0]
        return (x[:4].reshape(4, 2, 4), x[4:5, :4].reshape(1, 1, 4), x[5:6, :1].reshape(1, 1, 1),
                jnp.full((2,), 4, jnp.uint32))  # fmt: skip

    def moved(args: Any) -> int:
        return 2 * args[0].nbytes + args[1].nbytes + args[2].nbytes

    return [
        Case(
            name="rnn tanh 256 steps",
            operator="RNN",
            make_args=make_args,
            dmljax_fn=lambda x, w, r: rnn(x, w, r),
            jnp_fn=scan,
            bytes_moved=moved,
            target_ratio=1.1,  # the target for a recurrence against lax.scan
        ),
        EagerCase(
            name="rnn eager",
            operator="RNN",
            desc_operands=lambda x, w, r, n: (x[None], w[None], r[None], n.reshape(1, 1, 1, -1)),
            desc=lambda x, w, r, n: RnnOperatorDesc(
                input_tensor=TensorDesc(data_type=DataType.FLOAT32, sizes=(1, 4, 2, 4)),
                weight_tensor=TensorDesc(data_type=DataType.FLOAT32, sizes=(1, 1, 1, 4)),
                recurrence_tensor=TensorDesc(data_type=DataType.FLOAT32, sizes=(1, 1, 1, 1)),
                sequence_lengths_tensor=TensorDesc(data_type=DataType.UINT32, sizes=(1, 1, 1, 2)),
                output_sequence_tensor=TensorDesc(data_type=DataType.FLOAT32, sizes=(4, 1, 2, 1)),
                output_single_tensor=TensorDesc(data_type=DataType.FLOAT32, sizes=(1, 1, 2, 1)),
                activation_descs=(ActivationTanhOperatorDesc(),),
                direction=RecurrentNetworkDirection.FORWARD,
            ),
            functional=lambda x, w, r, n: rnn(x, w, r, lengths=n),
            jnp_fn=lambda x, w, r, n: scan(x, w, r),  # lengths of all: no mask
            make_args=tiny,
            numpy_indices=3,
        ),
    ]


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    """A forward RNN of 2 steps, 2 inputs and 2 units with every optional tensor bound
    (sequence lengths of ``index_type``); at a rank other than the page's 4 its tensors'
    sizes padded with leading 1s or cut to their last ``rank``."""
    f = data_type

    def sized(*sizes: int) -> tuple[int, ...]:
        return (*(1,) * (rank - 4), *sizes) if rank >= 4 else sizes[4 - rank :]

    shapes = {
        "input_tensor": sized(1, 2, 1, 2), "weight_tensor": sized(1, 1, 2, 2),
        "recurrence_tensor": sized(1, 1, 2, 2), "bias_tensor": sized(1, 1, 1, 4),
        "hidden_init_tensor": sized(1, 1, 1, 2), "sequence_lengths_tensor": sized(1, 1, 1, 1),
    }  # fmt: skip
    types = {name: index_type if name == "sequence_lengths_tensor" else f for name in shapes}
    desc = RnnOperatorDesc(
        **{name: TensorDesc(data_type=types[name], sizes=sizes) for name, sizes in shapes.items()},
        output_sequence_tensor=TensorDesc(data_type=f, sizes=sized(2, 1, 1, 2)),
        output_single_tensor=TensorDesc(data_type=f, sizes=sized(1, 1, 1, 2)),
        activation_descs=(ActivationReluOperatorDesc(),),
        direction=RecurrentNetworkDirection.FORWARD,
    )
    return desc, tuple(data_of(sizes, types[name]) for name, sizes in shapes.items())


def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    """Every size but the steps and the batch is the direction count or another
    argument's (``w``'s hidden and input sizes are ``r``'s and ``x``'s): a symbol there
    is refused for the size it must equal."""
    del k, d, arrays
    return ".shape must be" in str(error)


_DOCUMENTED: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: ((4, 4), FLOATS, {DataType.UINT32}),
}

CHECKS = OperatorChecks(
    RNN,
    doc_example=_doc_example,
    doc_example_face=_doc_example_face,
    sweep=_sweep,
    bench=_bench,
    documented_support=_DOCUMENTED,
    support_case=_support_case,
    fixed_size=_fixed_size,
    computes="a recurrence of products and activations (tests/test_recurrent.py)",
    face_dtypes=FACE_DTYPES,
    examples=EXAMPLES,
)
