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
from tests import helpers

T = dml.DataType
_TANH, _RELU = dml.ActivationTanhOperatorDesc(), dml.ActivationReluOperatorDesc()
_NUMPY = {type(_TANH): np.tanh, type(_RELU): lambda v: np.maximum(v, 0)}
_BOUND = {np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-12,
          np.dtype(np.float16): 2e-3, np.dtype(jnp.bfloat16): 2e-2}  # fmt: skip


def _draw(rng, shape, dtype):
    return (rng.standard_normal(shape) * 0.5).astype(dtype)


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
    steps, batch, inputs, hidden = sizes
    d = 2 if direction == "bidirectional" else 1
    x, w, r = (_draw(rng, s, dtype) for s in ((steps, batch, inputs), (d, hidden, inputs),
                                              (d, hidden, hidden)))  # fmt: skip
    b = _draw(rng, (d, 2 * hidden), dtype) if optional[0] else None
    h0 = _draw(rng, (d, batch, hidden), dtype) if optional[1] else None
    lengths = rng.integers(0, steps, size=batch, endpoint=True).astype(np.uint32)
    lengths = lengths if optional[2] else None
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
    steps, batch, inputs, hidden = sizes
    d = 2 if direction == "bidirectional" else 1
    f32 = np.dtype(np.float32)
    x, w, r = (_draw(rng, s, f32) for s in ((steps, batch, inputs), (d, hidden, inputs),
                                            (d, hidden, hidden)))  # fmt: skip
    b = _draw(rng, (d, 2 * hidden), f32) if optional[0] else None
    h0 = _draw(rng, (d, batch, hidden), f32) if optional[1] else None
    # onnxruntime's CPU RNN takes lengths of 1 to seq_length.
    lengths = rng.integers(1, steps, size=batch, endpoint=True).astype(np.int32)
    lengths = lengths if optional[2] else None
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
