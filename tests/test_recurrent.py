"""RNN: both faces against the NumPy reference in every direction, with and without a bias,
an initial state and sequence lengths, on every float type; the rules; onnxruntime's RNN.

The cross-cutting checks (doc examples, support tables, transformations, symbolic shapes,
graphs) come from the operator's declaration in tests/test_conformance.py and the files
beside it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st

import dmljax as dml
from dmljax._src.checking import reference
from dmljax._src.ops.recurrent import FIELDS_OF_ARRAYS
from tests import helpers

T = dml.DataType
_TANH, _RELU = dml.ActivationTanhOperatorDesc(), dml.ActivationReluOperatorDesc()
_NUMPY = {type(_TANH): np.tanh, type(_RELU): lambda v: np.maximum(v, 0)}
_BOUND = {np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-12,
          np.dtype(np.float16): 2e-3, np.dtype(jnp.bfloat16): 2e-2}  # fmt: skip


def _draw(rng, shape, dtype):
    return (rng.standard_normal(shape) * 0.5).astype(dtype)


def _rnn_operands(rng, sizes, d, dtype, optional, *, shortest, lengths_dtype):
    """RNN's x, w, r, b, h0 and sequence lengths (``shortest`` to steps), drawn in that
    order; b, h0 and lengths each None unless ``optional`` asks for it."""
    steps, batch, inputs, hidden = sizes
    x, w, r = (_draw(rng, s, dtype) for s in ((steps, batch, inputs), (d, hidden, inputs),
                                              (d, hidden, hidden)))  # fmt: skip
    b = _draw(rng, (d, 2 * hidden), dtype) if optional[0] else None
    h0 = _draw(rng, (d, batch, hidden), dtype) if optional[1] else None
    lengths = rng.integers(shortest, steps, size=batch, endpoint=True).astype(lengths_dtype)
    return x, w, r, b, h0, lengths if optional[2] else None


@hypothesis.settings(max_examples=80, deadline=None)
@hypothesis.given(
    dtype=st.sampled_from([np.float32, np.float16, jnp.bfloat16, np.float64]),
    sizes=st.tuples(*(st.integers(1, 3),) * 4),
    direction=st.sampled_from(["forward", "backward", "bidirectional"]),
    optional=st.tuples(st.booleans(), st.booleans(), st.booleans()),
    relu=st.booleans(),
    rng=helpers.seeds(),
)
def test_both_faces_are_the_reference(dtype, sizes, direction, optional, relu, rng):
    dtype = np.dtype(dtype)
    steps, batch, _, hidden = sizes
    d = 2 if direction == "bidirectional" else 1
    x, w, r, b, h0, lengths = _rnn_operands(
        rng, sizes, d, dtype, optional, shortest=0, lengths_dtype=np.uint32
    )
    activations = (_RELU if relu else _TANH,) * d
    want = reference.rnn(
        x, w, r, b, h0, lengths, activations=[_NUMPY[type(a)] for a in activations],
        backward=[direction == "backward", True][:d],
    )  # fmt: skip
    bound = _BOUND[dtype]
    with jax.enable_x64(dtype == np.float64):
        got = dml.rnn(x, w, r, b, h0, lengths, activations=activations, direction=direction)
        for g, e in zip(got, want, strict=True):
            np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(e, np.float64),
                                       rtol=bound, atol=bound)  # fmt: skip
        if dtype not in (np.float32, np.float16):
            return  # the page's types only
        t = T.from_dtype(dtype)
        padded = lambda a: None if a is None else a.reshape((1,) * (4 - a.ndim) + a.shape)
        arrays = {
            "input_tensor": padded(x), "weight_tensor": padded(w), "recurrence_tensor": padded(r),
            "bias_tensor": None if b is None else b.reshape(1, 1, d, 2 * hidden),
            "hidden_init_tensor": padded(h0),
            "sequence_lengths_tensor": None if lengths is None else lengths.reshape(1, 1, 1, -1),
        }  # fmt: skip
        tensors: dict[str, Any] = {
            name: None if a is None else dml.TensorDesc(
                data_type=T.UINT32 if a.dtype == np.uint32 else t, sizes=a.shape)
            for name, a in arrays.items()
        }  # fmt: skip
        desc = dml.RnnOperatorDesc(
            **tensors,
            output_sequence_tensor=dml.TensorDesc(data_type=t, sizes=(steps, d, batch, hidden)),
            output_single_tensor=dml.TensorDesc(data_type=t, sizes=(1, d, batch, hidden)),
            activation_descs=activations,
            direction=dml.RecurrentNetworkDirection[direction.upper()],
        )
        y, y_h = dml.compile_operator(desc)(*(a for a in arrays.values() if a is not None))
        # Within the bound too: a GPU compiles the desc's program (its leading 1s) into
        # other kernels than the face's, whose last bits may differ.
        for g, e in zip((y, y_h[0]), got, strict=True):
            np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(e, np.float64),
                                       rtol=bound, atol=bound)  # fmt: skip


def test_a_sequence_stops_at_its_length_in_both_directions():
    # Ones in, weights 1, recurrence 1, ReLU: a running count of the steps taken.
    x = np.ones((4, 2, 1), np.float32)
    w = np.ones((2, 1, 1), np.float32)
    r = np.ones((2, 1, 1), np.float32)
    y, y_h = dml.rnn(x, w, r, lengths=np.array([2, 4]), activations=(_RELU, _RELU),
                     direction="bidirectional")  # fmt: skip
    np.testing.assert_array_equal(y[:, 0, :, 0], [[1, 1], [2, 2], [0, 3], [0, 4]])
    # Backward, the short sequence starts at its own last step: 2, 1; the long one at 3.
    np.testing.assert_array_equal(y[:, 1, :, 0], [[2, 4], [1, 3], [0, 2], [0, 1]])
    np.testing.assert_array_equal(y_h[:, :, 0], [[2, 4], [2, 4]])


def test_only_the_bound_outputs_are_returned():
    f32 = T.FLOAT32
    base: dict[str, Any] = dict(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 2, 1, 1)),
        weight_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 1)),
        recurrence_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 1)),
        activation_descs=(_RELU,), direction="FORWARD",
    )  # fmt: skip
    arrays = (np.ones((1, 2, 1, 1), np.float32), np.ones((1, 1, 1, 1), np.float32),
              np.ones((1, 1, 1, 1), np.float32))  # fmt: skip
    sequence = dml.TensorDesc(data_type=f32, sizes=(2, 1, 1, 1))
    single = dml.TensorDesc(data_type=f32, sizes=(1, 1, 1, 1))
    only_sequence = dml.RnnOperatorDesc(**base, output_sequence_tensor=sequence)
    np.testing.assert_array_equal(np.ravel(dml.compile_operator(only_sequence)(*arrays)), [1, 2])
    only_single = dml.RnnOperatorDesc(**base, output_single_tensor=single)
    np.testing.assert_array_equal(np.ravel(dml.compile_operator(only_single)(*arrays)), [2])


def test_the_face_is_differentiable():
    rng = np.random.default_rng(0)
    x, w, r = _draw(rng, (3, 2, 2), np.float32), _draw(rng, (1, 2, 2), np.float32), \
        _draw(rng, (1, 2, 2), np.float32)  # fmt: skip

    def loss(x, w, r):
        y, y_h = dml.rnn(x, w, r)
        return jnp.sum(y**2) + jnp.sum(y_h)

    helpers.check_grads_by_primitive(loss, (x, w, r), atol=1e-2, rtol=1e-2)


def test_every_rule_is_refused_naming_its_field():
    f32 = T.FLOAT32
    good = dml.RnnOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 3, 2, 4)),
        weight_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 5, 4)),
        recurrence_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 5, 5)),
        output_single_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 5)),
        activation_descs=(_TANH,), direction=dml.RecurrentNetworkDirection.FORWARD,
    )  # fmt: skip
    assert dml.compile_operator(good)
    td = lambda *sizes, t=f32: dml.TensorDesc(data_type=t, sizes=sizes)
    cases = (
        ({"activation_descs": (_TANH, _TANH)}, "activation_descs", "1 activation"),
        ({"direction": "BIDIRECTIONAL"}, "activation_descs", "2 activation descs"),
        ({"weight_tensor": td(1, 1, 5, 3)}, "weight_tensor.sizes", "input_size"),
        ({"recurrence_tensor": td(1, 1, 5, 4)}, "recurrence_tensor.sizes", "hidden_size"),
        ({"bias_tensor": td(1, 1, 1, 5)}, "bias_tensor.sizes", "2 \\* hidden_size"),
        ({"hidden_init_tensor": td(1, 1, 3, 5)}, "hidden_init_tensor.sizes", "batch_size"),
        ({"sequence_lengths_tensor": td(1, 1, 1, 2)}, "sequence_lengths_tensor.data_type",
         "UINT32"),
        ({"output_single_tensor": td(1, 1, 2, 4)}, "output_single_tensor.sizes", "hidden"),
        ({"output_sequence_tensor": td(2, 1, 2, 5)}, "output_sequence_tensor.sizes",
         "seq_length"),
        ({"output_single_tensor": None}, "output_single_tensor", "computes nothing"),
        ({"input_tensor": td(2, 3, 2, 4)}, "input_tensor.sizes", "1, seq_length"),
    )  # fmt: skip
    for changes, field, match in cases:
        changed = dataclasses.replace(good, **changes)
        helpers.refused(lambda changed=changed: dml.compile_operator(changed), field=field,
                        match=match, op="RnnOperatorDesc")  # fmt: skip
    helpers.refused(lambda: dataclasses.replace(good, activation_descs=("tanh",)),
                    field="activation_descs[0]", match="activation desc",
                    error=dml.errors.ArgumentTypeError)  # fmt: skip


def test_the_face_refuses_bad_arguments_naming_them():
    x, w, r = np.ones((2, 1, 3), np.float32), np.ones((1, 4, 3), np.float32), \
        np.ones((1, 4, 4), np.float32)  # fmt: skip
    helpers.refused(lambda: dml.rnn(x[0], w, r), field="x.shape", match="3 dimensions")
    helpers.refused(lambda: dml.rnn(x, w[:, :, :2], r), field="w.shape", match="x's I")
    helpers.refused(lambda: dml.rnn(x, w, r[:, :2]), field="r.shape", match="\\(1, 4, 4\\)")
    helpers.refused(lambda: dml.rnn(x, w, r, direction="bidirectional"), field="w.shape",
                    match="\\(2, H, 3\\)")  # fmt: skip
    helpers.refused(lambda: dml.rnn(x, w, r, direction="sideways"), field="direction",
                    match="bidirectional")  # fmt: skip
    helpers.refused(lambda: dml.rnn(x, w.astype(np.float16), r), field="w", match="x's dtype")
    helpers.refused(lambda: dml.rnn(x.astype(np.int32), w, r), field="x", match="int32")
    helpers.refused(lambda: dml.rnn(x, w, r, lengths=np.ones(1, np.float32)),
                    field="lengths", match="integer")  # fmt: skip
    helpers.refused(lambda: dml.rnn(x, w, r, activations=(_TANH, _TANH)), field="activations",
                    match="1 activation")  # fmt: skip


@hypothesis.settings(max_examples=40, deadline=None)
@hypothesis.given(
    sizes=st.tuples(*(st.integers(1, 3),) * 4),
    direction=st.sampled_from(["forward", "reverse", "bidirectional"]),
    optional=st.tuples(st.booleans(), st.booleans(), st.booleans()),
    rng=helpers.seeds(),
)
def test_rnn_matches_onnxruntime(sizes, direction, optional, rng):
    hidden = sizes[3]
    d = 2 if direction == "bidirectional" else 1
    # onnxruntime's CPU RNN takes lengths of 1 to seq_length.
    x, w, r, b, h0, lengths = _rnn_operands(
        rng, sizes, d, np.dtype(np.float32), optional, shortest=1, lengths_dtype=np.int32
    )
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    helper = onnx.helper
    names = ["x", "w", "r", "b" if b is not None else "", "lengths" if lengths is not None
             else "", "h0" if h0 is not None else ""]  # fmt: skip
    while names[-1] == "":
        names.pop()
    node = helper.make_node("RNN", names, ["y", "y_h"], hidden_size=hidden, direction=direction)
    feeds = {"x": x, "w": w, "r": r, "b": b, "lengths": lengths, "h0": h0}
    kinds = {"lengths": onnx.TensorProto.INT32}
    graph = helper.make_graph(
        [node], "rnn",
        [helper.make_tensor_value_info(n, kinds.get(n, onnx.TensorProto.FLOAT), None)
         for n in names if n],
        [helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None) for n in ("y", "y_h")],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want_y, want_h = session.run(None, {n: feeds[n] for n in names if n})
    ours = "backward" if direction == "reverse" else direction
    y, y_h = dml.rnn(x, w, r, b, h0, lengths, direction=ours)
    np.testing.assert_allclose(y, want_y, rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(y_h, want_h, rtol=2e-6, atol=2e-6)


# --- LSTM and GRU -----------------------------------------------------------------------------

_SIGMOID = dml.ActivationSigmoidOperatorDesc()
_NUMPY[type(_SIGMOID)] = lambda v: 1 / (1 + np.exp(-v))
_GATED = {"lstm": 4, "gru": 3}


def _gated_case(network, dtype, sizes, direction, optional, rng, options):
    """The arrays of one LSTM or GRU draw, by face name, and its reference's result."""
    steps, batch, inputs, hidden = sizes
    d = 2 if direction == "bidirectional" else 1
    gated = _GATED[network] * hidden
    arrays = {
        "x": _draw(rng, (steps, batch, inputs), dtype), "w": _draw(rng, (d, gated, inputs), dtype),
        "r": _draw(rng, (d, gated, hidden), dtype), "b": _draw(rng, (d, 2 * gated), dtype),
        "h0": _draw(rng, (d, batch, hidden), dtype), "c0": _draw(rng, (d, batch, hidden), dtype),
        "lengths": rng.integers(0, steps, size=batch, endpoint=True).astype(np.uint32),
        "p": _draw(rng, (d, 3 * hidden), dtype),
    }  # fmt: skip
    names = ("b", "h0", "c0", "lengths", "p") if network == "lstm" else ("b", "h0", "lengths")
    for name, keep in zip(names, optional, strict=False):
        if not keep:
            arrays[name] = None
    if network == "gru":
        del arrays["c0"], arrays["p"]
    backward = [direction == "backward", True][:d]
    if network == "lstm":
        activations = (_SIGMOID, _TANH, _TANH) * d
        want = reference.lstm(
            *arrays.values(), activations=[_NUMPY[type(a)] for a in activations],
            backward=backward, **options,
        )  # fmt: skip
    else:
        activations = (_SIGMOID, _RELU) * d
        want = reference.gru(
            *arrays.values(), activations=[_NUMPY[type(a)] for a in activations],
            backward=backward, **options,
        )  # fmt: skip
    return arrays, activations, want


_DESC_FIELDS = FIELDS_OF_ARRAYS  # each face argument's desc field


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(
    network=st.sampled_from(["lstm", "gru"]),
    dtype=st.sampled_from([np.float32, np.float16, jnp.bfloat16, np.float64]),
    sizes=st.tuples(*(st.integers(1, 3),) * 4),
    direction=st.sampled_from(["forward", "backward", "bidirectional"]),
    optional=st.tuples(*(st.booleans(),) * 5),
    flags=st.tuples(st.booleans(), st.sampled_from([None, 0.0, 0.25, 1.0, np.inf])),
    rng=helpers.seeds(),
)
def test_lstm_and_gru_faces_are_the_reference(network, dtype, sizes, direction, optional,
                                              flags, rng):  # fmt: skip
    dtype = np.dtype(dtype)
    flag, clip = flags
    options = ({"couple_input_forget": flag, "clip": clip} if network == "lstm"
               else {"linear_before_reset": flag})  # fmt: skip
    arrays, activations, want = _gated_case(network, dtype, sizes, direction, optional, rng,
                                            options)  # fmt: skip
    face = dml.lstm if network == "lstm" else dml.gru
    bound = _BOUND[dtype]
    with jax.enable_x64(dtype == np.float64):
        got = face(**arrays, activations=activations, direction=direction, **options)
        assert len(got) == len(want)
        for g, e in zip(got, want, strict=True):
            np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(e, np.float64),
                                       rtol=bound, atol=bound)  # fmt: skip
        if dtype not in (np.float32, np.float16):
            return  # the pages' types only
        t = T.from_dtype(dtype)
        given: dict[str, np.ndarray] = {n: a for n, a in arrays.items() if a is not None}
        operands = [a.reshape(1, 1, *a.shape) if name in ("b", "p") else
                    a.reshape(1, 1, 1, -1) if name == "lengths" else
                    a.reshape((1,) * (4 - a.ndim) + a.shape)
                    for name, a in given.items()]  # fmt: skip
        steps, batch, _, hidden = sizes
        d = 2 if direction == "bidirectional" else 1
        state = dml.TensorDesc(data_type=t, sizes=(1, d, batch, hidden))
        extra: dict[str, Any] = (
            {"output_cell_single_tensor": state, "couple_input_forget": flag,
             "use_clip_threshold": clip is not None, "clip_threshold": clip or 0.0}
            if network == "lstm" else {"linear_before_reset": flag}
        )  # fmt: skip
        desc_type = dml.LstmOperatorDesc if network == "lstm" else dml.GruOperatorDesc
        desc = desc_type(
            **{_DESC_FIELDS[name]: dml.TensorDesc(data_type=T.from_dtype(a.dtype), sizes=o.shape)
               for (name, a), o in zip(given.items(), operands, strict=True)},
            output_sequence_tensor=dml.TensorDesc(data_type=t, sizes=(steps, d, batch, hidden)),
            output_single_tensor=state,
            activation_descs=activations,
            direction=dml.RecurrentNetworkDirection[direction.upper()],
            **extra,
        )  # fmt: skip
        results = dml.compile_operator(desc)(*operands)
        assert len(results) == len(got)
        for g, e in zip(results, got, strict=True):
            got_64 = np.asarray(g, np.float64).reshape(np.shape(e))
            np.testing.assert_allclose(got_64, np.asarray(e, np.float64), rtol=bound, atol=bound)


def test_the_output_peephole_reads_the_new_cell_memory():
    # One step from C_(t-1) = 0: the page's P_o * C_(t-1) would leave o = sigmoid(0); ONNX's
    # (and onnxruntime's, which maps LSTM onto DirectML's) P_o * C_t opens it further.
    relu, identity = _RELU, dml.ActivationIdentityOperatorDesc()
    w = np.array([0, 0, 0, 1], np.float32).reshape(1, 4, 1)  # the candidate reads x
    b = np.array([1, 0, 0, 0, 0, 0, 0, 0], np.float32).reshape(1, 8)  # i = 1, o = relu(0 + ...)
    p = np.array([0, 1, 0], np.float32).reshape(1, 3)  # P_i, P_o, P_f
    y, _, y_c = dml.lstm(np.full((1, 1, 1), 3.0, np.float32), w, np.zeros((1, 4, 1), np.float32),
                         b, p=p, activations=(relu, identity, identity))  # fmt: skip
    assert float(y_c.ravel()[0]) == 3.0  # C_1 = 0 * 0 + 1 * 3
    assert float(y.ravel()[0]) == 9.0  # o = relu(P_o * C_1) = 3, H = 3 * 3


def test_gated_rules_are_refused_naming_their_fields():
    f32 = T.FLOAT32
    td = lambda *sizes, t=f32: dml.TensorDesc(data_type=t, sizes=sizes)
    three = (_SIGMOID, _TANH, _TANH)
    lstm = dml.LstmOperatorDesc(
        input_tensor=td(1, 3, 2, 4), weight_tensor=td(1, 1, 20, 4),
        recurrence_tensor=td(1, 1, 20, 5), output_single_tensor=td(1, 1, 2, 5),
        activation_descs=three, direction=dml.RecurrentNetworkDirection.FORWARD,
    )  # fmt: skip
    assert dml.compile_operator(lstm)
    gru = dml.GruOperatorDesc(
        input_tensor=td(1, 3, 2, 4), weight_tensor=td(1, 1, 15, 4),
        recurrence_tensor=td(1, 1, 15, 5), output_sequence_tensor=td(3, 1, 2, 5),
        activation_descs=three[:2], direction=dml.RecurrentNetworkDirection.FORWARD,
    )  # fmt: skip
    assert dml.compile_operator(gru)
    cases = (
        (lstm, {"activation_descs": three[:2]}, "activation_descs",
         "3 activation descs \\(f, g, h"),
        (lstm, {"direction": "BIDIRECTIONAL"}, "activation_descs", "6 activation descs"),
        (lstm, {"weight_tensor": td(1, 1, 19, 4)}, "weight_tensor.sizes", "4 \\* hidden_size"),
        (lstm, {"recurrence_tensor": td(1, 1, 20, 4)}, "recurrence_tensor.sizes",
         "4 \\* hidden_size, hidden_size"),
        (lstm, {"bias_tensor": td(1, 1, 1, 20)}, "bias_tensor.sizes", "8 \\* hidden_size"),
        (lstm, {"cell_mem_init_tensor": td(1, 1, 3, 5)}, "cell_mem_init_tensor.sizes",
         "batch_size"),
        (lstm, {"peephole_tensor": td(1, 1, 1, 5)}, "peephole_tensor.sizes", "3 \\* hidden"),
        (lstm, {"output_cell_single_tensor": td(1, 1, 2, 4)}, "output_cell_single_tensor.sizes",
         "hidden_size"),
        (lstm, {"peephole_tensor": td(1, 1, 1, 15, t=T.FLOAT16)}, "peephole_tensor.data_type",
         "FLOAT32"),
        (lstm, {"use_clip_threshold": True, "clip_threshold": -1.0}, "clip_threshold",
         "at least 0"),
        (lstm, {"use_clip_threshold": True, "clip_threshold": float("nan")}, "clip_threshold",
         "at least 0"),
        (lstm, {"output_single_tensor": None}, "output_single_tensor", "computes nothing"),
        (gru, {"activation_descs": three}, "activation_descs", "2 activation descs \\(f, g"),
        (gru, {"weight_tensor": td(1, 1, 16, 4)}, "weight_tensor.sizes", "3 \\* hidden_size"),
        (gru, {"bias_tensor": td(1, 1, 1, 10)}, "bias_tensor.sizes", "6 \\* hidden_size"),
        (gru, {"sequence_lengths_tensor": td(1, 1, 1, 2)}, "sequence_lengths_tensor.data_type",
         "UINT32"),
        (gru, {"output_sequence_tensor": None}, "output_single_tensor", "computes nothing"),
    )  # fmt: skip
    for good, changes, field, match in cases:
        changed = dataclasses.replace(good, **changes)
        helpers.refused(lambda changed=changed: dml.compile_operator(changed), field=field,
                        match=match, op=type(good).__name__)  # fmt: skip
    # Infinity is no bound, and 0 clips every gate to f(0).
    for threshold in (np.inf, 0.0):
        assert dml.compile_operator(dataclasses.replace(lstm, use_clip_threshold=True,
                                                        clip_threshold=threshold))  # fmt: skip
    helpers.refused(lambda: dataclasses.replace(gru, linear_before_reset=1),
                    field="linear_before_reset", match="a bool",
                    error=dml.errors.ArgumentTypeError)  # fmt: skip


def test_gated_faces_refuse_bad_arguments_naming_them():
    x = np.ones((2, 1, 3), np.float32)
    w4, r4 = np.ones((1, 8, 3), np.float32), np.ones((1, 8, 2), np.float32)
    helpers.refused(lambda: dml.lstm(x, w4[:, :7], r4[:, :7]), field="w.shape",
                    match="4 H, 3")  # fmt: skip
    helpers.refused(lambda: dml.lstm(x, w4, r4, p=np.ones((1, 5), np.float32)), field="p.shape",
                    match="\\(1, 6\\)")  # fmt: skip
    helpers.refused(lambda: dml.lstm(x, w4, r4, c0=np.ones((1, 2, 2), np.float32)),
                    field="c0.shape", match="\\(1, 1, 2\\)")  # fmt: skip
    helpers.refused(lambda: dml.lstm(x, w4, r4, clip=-0.5), field="clip", match="at least 0")
    big: Any = "big"
    helpers.refused(lambda: dml.lstm(x, w4, r4, clip=big), field="clip", match="number")
    one: Any = 1
    helpers.refused(lambda: dml.lstm(x, w4, r4, couple_input_forget=one),
                    field="couple_input_forget", match="a bool",
                    error=dml.errors.ArgumentTypeError)  # fmt: skip
    helpers.refused(lambda: dml.lstm(x, w4, r4, activations=(_TANH,)), field="activations",
                    match="3 activation descs")  # fmt: skip
    w3, r3 = np.ones((1, 6, 3), np.float32), np.ones((1, 6, 2), np.float32)
    helpers.refused(lambda: dml.gru(x, w3, r3, np.ones((1, 6), np.float32)), field="b.shape",
                    match="\\(1, 12\\)")  # fmt: skip
    helpers.refused(lambda: dml.gru(x, w3, r3.astype(np.float16)), field="r",
                    match="x's dtype")  # fmt: skip
    helpers.refused(lambda: dml.gru(x, w3, r3, direction="bidirectional"), field="w.shape",
                    match="\\(2, 3 H, 3\\)")  # fmt: skip
    yes: Any = "yes"
    helpers.refused(lambda: dml.gru(x, w3, r3, linear_before_reset=yes),
                    field="linear_before_reset", match="a bool",
                    error=dml.errors.ArgumentTypeError)  # fmt: skip


def test_the_gated_faces_are_differentiable():
    rng = np.random.default_rng(1)
    x = _draw(rng, (3, 2, 2), np.float32)

    def lstm_loss(x, w, r, p):
        y, y_h, y_c = dml.lstm(x, w, r, p=p)
        return jnp.sum(y**2) + jnp.sum(y_h) + jnp.sum(y_c)

    def gru_loss(x, w, r):
        y, y_h = dml.gru(x, w, r, linear_before_reset=True)
        return jnp.sum(y**2) + jnp.sum(y_h)

    helpers.check_grads_by_primitive(
        lstm_loss, (x, _draw(rng, (1, 8, 2), np.float32), _draw(rng, (1, 8, 2), np.float32),
                    _draw(rng, (1, 6), np.float32)), atol=1e-2, rtol=1e-2,
    )  # fmt: skip
    helpers.check_grads_by_primitive(
        gru_loss, (x, _draw(rng, (1, 6, 2), np.float32), _draw(rng, (1, 6, 2), np.float32)),
        atol=1e-2, rtol=1e-2,
    )  # fmt: skip


def _onnx_run(op, names, feeds, outputs, **attributes):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    helper = onnx.helper
    while names[-1] == "":
        names.pop()
    node = helper.make_node(op, names, outputs, **attributes)
    kinds = {"lengths": onnx.TensorProto.INT32}
    graph = helper.make_graph(
        [node], op.lower(),
        [helper.make_tensor_value_info(n, kinds.get(n, onnx.TensorProto.FLOAT), None)
         for n in names if n],
        [helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None) for n in outputs],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {n: feeds[n] for n in names if n})


@hypothesis.settings(max_examples=40, deadline=None)
@hypothesis.given(
    sizes=st.tuples(*(st.integers(1, 3),) * 4),
    direction=st.sampled_from(["forward", "reverse", "bidirectional"]),
    optional=st.tuples(*(st.booleans(),) * 5),
    couple=st.booleans(),
    clip=st.sampled_from([None, 0.25, 1.0]),
    rng=helpers.seeds(),
)
def test_lstm_matches_onnxruntime(sizes, direction, optional, couple, clip, rng):
    steps, batch, inputs, hidden = sizes
    d = 2 if direction == "bidirectional" else 1
    f32 = np.dtype(np.float32)
    x, w, r = (_draw(rng, s, f32) for s in ((steps, batch, inputs), (d, 4 * hidden, inputs),
                                            (d, 4 * hidden, hidden)))  # fmt: skip
    b, h0, c0, p = (_draw(rng, s, f32) if keep else None for s, keep in zip(
        ((d, 8 * hidden), (d, batch, hidden), (d, batch, hidden), (d, 3 * hidden)), optional,
        strict=False))  # fmt: skip
    # onnxruntime's CPU LSTM takes lengths of 1 to seq_length.
    lengths = rng.integers(1, steps, size=batch, endpoint=True).astype(np.int32)
    lengths = lengths if optional[4] else None
    names = ["x", "w", "r", "b" if b is not None else "", "lengths" if lengths is not None
             else "", "h0" if h0 is not None else "", "c0" if c0 is not None else "",
             "p" if p is not None else ""]  # fmt: skip
    attributes: dict[str, Any] = {"hidden_size": hidden, "direction": direction,
                                  "input_forget": int(couple)}  # fmt: skip
    if clip is not None:
        attributes["clip"] = clip
    want = _onnx_run("LSTM", names, dict(x=x, w=w, r=r, b=b, lengths=lengths, h0=h0, c0=c0, p=p),
                     ["y", "y_h", "y_c"], **attributes)  # fmt: skip
    ours = "backward" if direction == "reverse" else direction
    got = dml.lstm(x, w, r, b, h0, c0, lengths, p, direction=ours, clip=clip,
                   couple_input_forget=couple)  # fmt: skip
    for g, e in zip(got, want, strict=True):
        np.testing.assert_allclose(g, e, rtol=2e-6, atol=2e-6)


@hypothesis.settings(max_examples=40, deadline=None)
@hypothesis.given(
    sizes=st.tuples(*(st.integers(1, 3),) * 4),
    direction=st.sampled_from(["forward", "reverse", "bidirectional"]),
    optional=st.tuples(*(st.booleans(),) * 3),
    linear_before_reset=st.booleans(),
    rng=helpers.seeds(),
)
def test_gru_matches_onnxruntime(sizes, direction, optional, linear_before_reset, rng):
    steps, batch, inputs, hidden = sizes
    d = 2 if direction == "bidirectional" else 1
    f32 = np.dtype(np.float32)
    x, w, r = (_draw(rng, s, f32) for s in ((steps, batch, inputs), (d, 3 * hidden, inputs),
                                            (d, 3 * hidden, hidden)))  # fmt: skip
    b = _draw(rng, (d, 6 * hidden), f32) if optional[0] else None
    h0 = _draw(rng, (d, batch, hidden), f32) if optional[1] else None
    lengths = rng.integers(1, steps, size=batch, endpoint=True).astype(np.int32)
    lengths = lengths if optional[2] else None
    names = ["x", "w", "r", "b" if b is not None else "", "lengths" if lengths is not None
             else "", "h0" if h0 is not None else ""]  # fmt: skip
    want = _onnx_run("GRU", names, dict(x=x, w=w, r=r, b=b, lengths=lengths, h0=h0),
                     ["y", "y_h"], hidden_size=hidden, direction=direction,
                     linear_before_reset=int(linear_before_reset))  # fmt: skip
    ours = "backward" if direction == "reverse" else direction
    got = dml.gru(x, w, r, b, h0, lengths, direction=ours,
                  linear_before_reset=linear_before_reset)  # fmt: skip
    for g, e in zip(got, want, strict=True):
        np.testing.assert_allclose(g, e, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("network", ["rnn", "lstm", "gru"])
def test_zero_strides_nan_and_inf_are_read_as_the_reference_reads_them(network):
    # One initial state broadcast over the batch by a zero stride; batch element 0 meets a
    # NaN at step 1 (NaN from there on), element 1 meets +inf at step 0 (activations
    # saturate) and a NaN at step 2, past its length of 1, which must not leak.
    rng = np.random.default_rng(7)
    gates = {"rnn": 1, "lstm": 4, "gru": 3}[network]
    hidden = 2
    x = np.array([[[0.5], [np.inf]], [[np.nan], [1.0]], [[0.25], [np.nan]]], np.float32)
    w = _draw(rng, (1, gates * hidden, 1), np.float32)
    r = _draw(rng, (1, gates * hidden, hidden), np.float32)
    state = np.array([0.25, -0.5], np.float32)
    lengths = np.array([3, 1], np.uint32)
    broadcast = np.broadcast_to(state, (1, 2, hidden))
    f32 = T.FLOAT32
    td = lambda *sizes, strides=None, t=f32: dml.TensorDesc(data_type=t, sizes=sizes,
                                                             strides=strides)  # fmt: skip
    common: dict[str, Any] = dict(
        input_tensor=td(1, 3, 2, 1), weight_tensor=td(1, 1, gates * hidden, 1),
        recurrence_tensor=td(1, 1, gates * hidden, hidden),
        hidden_init_tensor=td(1, 1, 2, hidden, strides=(0, 0, 0, 1)),
        sequence_lengths_tensor=td(1, 1, 1, 2, t=T.UINT32),
        output_sequence_tensor=td(3, 1, 2, hidden), output_single_tensor=td(1, 1, 2, hidden),
        direction=dml.RecurrentNetworkDirection.FORWARD,
    )  # fmt: skip
    sigmoid = _NUMPY[type(_SIGMOID)]
    if network == "rnn":
        desc: Any = dml.RnnOperatorDesc(**common, activation_descs=(_TANH,))
        want = reference.rnn(x, w, r, None, broadcast, lengths, activations=[np.tanh],
                             backward=[False])  # fmt: skip
    elif network == "lstm":
        desc = dml.LstmOperatorDesc(**common, activation_descs=(_SIGMOID, _TANH, _TANH))
        want = reference.lstm(
            x, w, r, None, broadcast, None, lengths, None,
            activations=[sigmoid, np.tanh, np.tanh], backward=[False],
        )[:2]  # fmt: skip
    else:
        desc = dml.GruOperatorDesc(**common, activation_descs=(_SIGMOID, _TANH))
        want = reference.gru(x, w, r, None, broadcast, lengths, activations=[sigmoid, np.tanh],
                             backward=[False])  # fmt: skip
    y, y_h = dml.compile_operator(desc)(x[None], w[None], r[None], state,
                                        lengths.reshape(1, 1, 1, 2))  # fmt: skip
    np.testing.assert_allclose(y, want[0], rtol=2e-6, atol=2e-6)  # NaNs where NumPy's are
    np.testing.assert_allclose(y_h[0], want[1], rtol=2e-6, atol=2e-6)
    assert np.isnan(np.asarray(y)[1:, 0, 0]).all()
    assert np.isfinite(np.asarray(y)[:, 0, 1]).all()  # inf saturates, the masked NaN stays out
