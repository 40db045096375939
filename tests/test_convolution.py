"""CONVOLUTION: both faces against the NumPy reference on every type, rank, direction,
mode, stride, dilation, padding and group count, the float32 bound against float64, full
precision, the fused activation, the rules, gradients, and onnxruntime's Conv and
ConvTranspose.

The cross-cutting checks (doc examples, the support table, transformations, symbolic
shapes, graphs) come from the operator's declaration in tests/test_conformance.py and the
files beside it.
"""

from __future__ import annotations

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
_ARRAYS = ("strides", "dilations", "start_padding", "end_padding", "output_padding")


def _smallest_output(sizes: Any, taps: Any, fields: dict[str, Any], backward: bool) -> list[int]:
    out = []
    for i, (size, tap) in enumerate(zip(sizes, taps, strict=True)):
        window = (tap - 1) * fields["dilations"][i] + 1
        start, end, stride = (fields[k][i] for k in ("start_padding", "end_padding", "strides"))
        if backward:
            out.append((size - 1) * stride + window - start - end)
        else:
            out.append((size + start + end - window) // stride + 1 if size + start + end >= window
                       else 0)  # fmt: skip
    return out


@st.composite
def convolutions(draw: Any, max_spatial: int = 3) -> dict[str, Any]:
    """A valid convolution: its shapes, fields, and (backward) how much longer its
    output is than the smallest."""
    spatial = draw(st.integers(1, max_spatial))
    groups = draw(st.sampled_from([1, 2, 3]))
    backward = draw(st.booleans())
    channels = groups * draw(st.integers(1, 2))
    per_group = draw(st.integers(1, 2))
    sizes = draw(st.lists(st.integers(1, 4), min_size=spatial, max_size=spatial))
    taps = draw(st.lists(st.integers(1, 3), min_size=spatial, max_size=spatial))

    def entries(low: int, high: int) -> Any:
        return st.lists(st.integers(low, high), min_size=spatial, max_size=spatial).map(tuple)

    fields = {"strides": draw(entries(1, 3)), "dilations": draw(entries(1, 2)),
              "start_padding": draw(entries(0, 2)), "end_padding": draw(entries(0, 2)),
              "output_padding": draw(entries(0, 1))}  # fmt: skip
    smallest = _smallest_output(sizes, taps, fields, backward)
    hypothesis.assume(min(smallest) >= 1)
    strides = fields["strides"]
    extra = tuple(draw(st.integers(0, s - 1)) for s in strides) if backward else None
    out_channels = groups * per_group
    w_shape = (
        (channels, per_group, *taps) if backward else (out_channels, channels // groups, *taps)
    )
    return {
        "x": (draw(st.integers(1, 2)), channels, *sizes), "w": w_shape,
        "b": (1, out_channels, *(1,) * spatial) if draw(st.booleans()) else None,
        "fields": fields | {"group_count": groups,
                            "mode": draw(st.sampled_from(["cross_correlation", "convolution"])),
                            "direction": "backward" if backward else "forward"},
        "extra": extra,
    }  # fmt: skip


def _desc(case: dict[str, Any], data_type: Any, out_shape: tuple[int, ...]) -> Any:
    fields = case["fields"]
    return dml.ConvolutionOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=data_type, sizes=case["x"]),
        filter_tensor=dml.TensorDesc(data_type=data_type, sizes=case["w"]),
        bias_tensor=None if case["b"] is None else dml.TensorDesc(data_type=data_type,
                                                                  sizes=case["b"]),
        output_tensor=dml.TensorDesc(data_type=data_type, sizes=out_shape),
        **{k: fields[k] for k in (*_ARRAYS, "group_count", "mode", "direction")},
    )  # fmt: skip


@hypothesis.settings(max_examples=80, deadline=None)
@hypothesis.given(
    dtype=st.sampled_from([np.float32, np.float16, jnp.bfloat16, np.float64]),
    case=convolutions(),
    rng=helpers.seeds(),
)
def test_both_faces_are_the_reference_on_every_type_rank_and_field(dtype, case, rng):
    # Small integers: every partial sum is exact in every type, so the results are too.
    dtype = np.dtype(dtype)
    arrays = [rng.integers(-3, 3, size=s, endpoint=True).astype(dtype)
              for s in (case["x"], case["w"], case["b"]) if s is not None]  # fmt: skip
    fields = case["fields"]
    want = reference.convolution(*arrays, **fields)
    with jax.enable_x64(dtype == np.float64):
        np.testing.assert_array_equal(dml.convolution(*arrays, **fields), want, strict=True)
        if dtype not in (np.float32, np.float16):
            return  # the page's types only
        # The desc face also takes a backward output up to stride - 1 longer.
        longer = reference.convolution(*arrays, **fields, extra=case["extra"])
        compiled = dml.compile_operator(_desc(case, T.from_dtype(dtype), longer.shape))
        np.testing.assert_array_equal(compiled(*arrays), longer, strict=True)


@pytest.mark.parametrize("groups", [1, 2])
def test_a_backward_convolution_whose_filter_outgrows_its_input_compiles(groups):
    # Found by the property above: XLA:CPU's simplifier swapped this program's operands,
    # kept the input's dilation and aborted the process (jaxlib 0.10.2).
    rng = np.random.default_rng(0)
    x = rng.integers(-3, 3, (2, groups, 1, 4), endpoint=True).astype(np.float32)
    w = rng.integers(-3, 3, (groups, 2, 3, 2), endpoint=True).astype(np.float32)
    fields = {"strides": (3, 2), "dilations": (2, 1), "start_padding": (1, 1),
              "end_padding": (1, 1), "output_padding": (1, 1), "group_count": groups,
              "mode": "cross_correlation", "direction": "backward"}  # fmt: skip
    want = reference.convolution(x, w, **fields)
    np.testing.assert_array_equal(dml.convolution(x, w, **fields), want, strict=True)


def _in_float64(x: np.ndarray, w: np.ndarray, padding: Any) -> np.ndarray:
    """A stride-1 forward cross-correlation in float64: the exact value, to 2**-53."""
    with jax.enable_x64(True):
        lhs, rhs = (jnp.asarray(a, jnp.float64) for a in (x, w))
        return np.asarray(jax.lax.conv_general_dilated(lhs, rhs, (1,) * (x.ndim - 2), padding))


def test_float32_is_within_the_bound_every_summation_order_meets_and_full_precision():
    # K * 2**-24 of the sum of the terms' magnitudes, K = 64 channels x 3 x 3 = 576 terms;
    # TF32 (10 bits) or one bfloat16 pass would miss it by orders of magnitude.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 64, 8, 8)).astype(np.float32)
    w = rng.standard_normal((16, 64, 3, 3)).astype(np.float32)
    fields: dict[str, Any] = {"start_padding": (1, 1), "end_padding": (1, 1)}
    got = np.asarray(dml.convolution(x, w, **fields), np.float64)
    exact = _in_float64(x, w, ((1, 1), (1, 1)))
    magnitude = _in_float64(np.abs(x), np.abs(w), ((1, 1), (1, 1)))
    assert np.all(np.abs(got - exact) <= 576 * 2.0**-24 * magnitude)
    assert "HIGHEST" in jax.jit(lambda a, b: dml.convolution(a, b, **fields)).lower(x, w).as_text()


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16])
def test_half_precision_accumulates_in_float32_and_rounds_once(dtype):
    # A float32 computation (within K * 2**-24 of the terms' magnitudes, plus the bias's
    # rounding) rounded once to the type: within half an ulp of the type beyond that. A
    # 16-bit accumulator would miss it (K = 128 x 3 = 384 terms).
    rng = np.random.default_rng(1)
    x, w, b = (rng.standard_normal(s).astype(dtype) for s in ((2, 128, 16), (4, 128, 3), (1, 4, 1)))
    got = np.asarray(dml.convolution(x, w, b), np.float64)
    bias = np.asarray(b, np.float64)
    exact = _in_float64(x, w, "VALID") + bias
    terms = _in_float64(np.abs(x), np.abs(w), "VALID") + np.abs(bias)
    half_ulp = np.asarray(jnp.finfo(dtype).eps, np.float64) / 2 * np.abs(exact)
    assert np.all(np.abs(got - exact) <= half_ulp + (384 + 2) * 2.0**-24 * terms)


def test_the_fused_activation_applies_before_the_output_padding():
    f32 = T.FLOAT32
    desc = dml.ConvolutionOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 3)),
        filter_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1)),
        bias_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 1)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 4)),
        strides=(1,), dilations=(1,), start_padding=(0,), end_padding=(0,),
        output_padding=(1,), fused_activation=dml.ActivationSigmoidOperatorDesc(),
    )  # fmt: skip
    x = np.array([[[1.0, -2.0, 3.0]]], np.float32)
    got = dml.compile_operator(desc)(x, np.full((1, 1, 1), 2.0, np.float32),
                                     np.full((1, 1, 1), -1.0, np.float32))  # fmt: skip
    want = np.append(1 / (1 + np.exp(-(2.0 * x[0, 0] - 1.0))), 0.0).astype(np.float32)
    np.testing.assert_allclose(got[0, 0], want, rtol=1e-6)
    assert got[0, 0, -1] == 0.0  # DirectML's zero padding of the result: not sigmoid(0)


def _base(**changes: Any) -> Any:
    f32 = T.FLOAT32
    fields: dict[str, Any] = dict(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 2, 4, 4)),
        filter_tensor=dml.TensorDesc(data_type=f32, sizes=(3, 2, 2, 2)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 3, 3, 3)),
        strides=(1, 1), dilations=(1, 1), start_padding=(0, 0), end_padding=(0, 0),
        output_padding=(0, 0),
    )  # fmt: skip
    fields.update(changes)
    return dml.ConvolutionOperatorDesc(**fields)


def test_the_rules_are_refused_naming_the_field():
    f32, f16 = T.FLOAT32, T.FLOAT16

    def tensor(*sizes: int, data_type: Any = f32) -> Any:
        return dml.TensorDesc(data_type=data_type, sizes=sizes)

    cases: tuple[tuple[dict[str, Any], str, str], ...] = (
        ({"strides": (1,)}, "strides", "DimensionCount"),
        ({"dilations": (1, 0)}, "dilations[1]", "at least 1"),
        ({"strides": (0, 1)}, "strides[0]", "at least 1"),
        ({"start_padding": (2**32, 0)}, "start_padding[0]", "UINT"),
        ({"group_count": 0}, "group_count", "at least 1"),
        ({"group_count": 2**32}, "group_count", "UINT"),
        ({"group_count": 3}, "input_tensor.sizes", "GroupCount 3 divides"),
        ({"filter_tensor": tensor(3, 1, 2, 2)}, "filter_tensor.sizes", r"sizes\[1\] 2"),
        ({"group_count": 2, "filter_tensor": tensor(3, 1, 2, 2)}, "filter_tensor.sizes",
         "multiple of GroupCount 2"),
        ({"filter_tensor": tensor(3, 2, 5, 2)}, "filter_tensor.sizes", "at least one element"),
        ({"output_tensor": tensor(1, 3, 3, 4)}, "output_tensor.sizes", "(1, 3, 3, 3)"),
        ({"output_tensor": tensor(1, 2, 3, 3)}, "output_tensor.sizes", "OutputChannelCount"),
        ({"output_padding": (1, 0)}, "output_tensor.sizes", "(1, 3, 4, 3)"),
        ({"bias_tensor": tensor(1, 3, 1)}, "bias_tensor.sizes", "4 dimensions"),
        ({"bias_tensor": tensor(1, 2, 1, 1)}, "bias_tensor.sizes", "(1, 3, 1, 1)"),
        ({"bias_tensor": tensor(1, 3, 1, 1, data_type=f16)}, "bias_tensor.data_type", "FLOAT32"),
        ({"input_tensor": tensor(1, 2, 4, 4, data_type=T.INT32)}, "input_tensor.data_type",
         "FLOAT32, FLOAT16"),
        ({"fused_activation": dml.ActivationReluOperatorDesc(),
          "input_tensor": tensor(1, 2, 4, 4, data_type=T.FLOAT64)}, "input_tensor.data_type",
         "FLOAT16"),
        # Backward: the filter is {InputChannelCount, OutputChannelCount / GroupCount, ...}.
        ({"direction": dml.ConvolutionDirection.BACKWARD}, "filter_tensor.sizes", r"sizes\[0\] 2"),
        ({"direction": dml.ConvolutionDirection.BACKWARD, "filter_tensor": tensor(2, 3, 2, 2),
          "output_tensor": tensor(1, 3, 6, 5), "strides": (2, 2)}, "output_tensor.sizes",
         "up to stride - 1 longer"),
    )  # fmt: skip
    for changes, field, match in cases:
        helpers.refused(lambda c=changes: dml.compile_operator(_base(**c)), field=field,
                        match=match, op="ConvolutionOperatorDesc")  # fmt: skip
    helpers.refused(lambda: _base(mode="SIDEWAYS"), field="mode", match="CROSS_CORRELATION")
    # Backward, stride 2: the smallest output is (4 - 1) * 2 + 2 = 8; 9 (one longer) is taken.
    backward = _base(
        direction=dml.ConvolutionDirection.BACKWARD, strides=(2, 2),
        filter_tensor=tensor(2, 3, 2, 2), output_tensor=tensor(1, 3, 9, 8),
    )  # fmt: skip
    dml.compile_operator(backward)
    one_d = _base(input_tensor=tensor(1, 2, 4), filter_tensor=tensor(3, 2, 2),
                  output_tensor=tensor(1, 3, 3), **{k: (v[0],) for k, v in
                  {"strides": (1,), "dilations": (1,), "start_padding": (0,),
                   "end_padding": (0,), "output_padding": (0,)}.items()})  # fmt: skip
    dml.compile_operator(one_d)
    at_3_1 = dml.FeatureLevel.FL_3_1
    helpers.refused(
        lambda: dml.compile_operator(one_d, feature_level=at_3_1),
        field="input_tensor.sizes", match="4 to 5 dimensions long at FL_3_1",
    )  # fmt: skip


def test_the_face_refuses_what_convolution_does_not_take():
    x, w = np.ones((1, 2, 4), np.float32), np.ones((3, 2, 2), np.float32)
    helpers.refused(lambda: dml.convolution(x[0], w[0]), field="x", match="3 to 5 dimensions")
    helpers.refused(lambda: dml.convolution(x, w[0]), field="filter", match="3 dimensions")
    helpers.refused(lambda: dml.convolution(x, w.astype(np.float16)), field="filter.dtype",
                    match="float32")  # fmt: skip
    helpers.refused(lambda: dml.convolution(x.astype(np.int32), w.astype(np.int32)), field="x",
                    match="CONVOLUTION's types")  # fmt: skip
    helpers.refused(lambda: dml.convolution(x, w, strides=(1, 1)), field="strides",
                    match="DimensionCount")  # fmt: skip
    helpers.refused(lambda: dml.convolution(x, w, group_count=2), field="filter",
                    match="multiple of GroupCount 2")  # fmt: skip
    helpers.refused(lambda: dml.convolution(x, w, np.ones((3,), np.float32)), field="bias",
                    match="(1, 3, 1)")  # fmt: skip
    helpers.refused(lambda: dml.convolution(x, w, mode="fft"), field="mode",
                    match="cross_correlation")  # fmt: skip
    helpers.refused(lambda: dml.convolution(x, w, direction="up"), field="direction",
                    match="backward")  # fmt: skip


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_gradients_flow_to_the_input_the_filter_and_the_bias(direction):
    rng = np.random.default_rng(2)
    w_shape = (2, 2, 2, 3) if direction == "backward" else (4, 1, 2, 3)
    x, w, b = (rng.standard_normal(s) for s in ((1, 2, 3, 4), w_shape, (1, 4, 1, 1)))

    def f(x: jax.Array, w: jax.Array, b: jax.Array) -> jax.Array:
        return dml.convolution(x, w, b, strides=(2, 1), dilations=(1, 2), start_padding=(1, 0),
                               end_padding=(0, 1), group_count=2, direction=direction)  # fmt: skip

    with jax.enable_x64(True):
        helpers.check_grads_by_primitive(f, tuple(jnp.asarray(a) for a in (x, w, b)))


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_vmap_over_inputs_filters_and_biases_equals_a_loop(direction):
    # The sweeps vmap inputs and biases against a constant filter (a symbolic batch cannot
    # vmap filters: JAX convolves a batch of filters as that many groups, and XLA's group
    # count is static); here the filters are batched too, in a batch of static size.
    rng = np.random.default_rng(3)
    w_shape = (2, 2, 3) if direction == "backward" else (4, 1, 3)
    x, w, b = (rng.integers(-3, 3, (3, *s), endpoint=True).astype(np.float32)
               for s in ((1, 2, 5), w_shape, (1, 4, 1)))  # fmt: skip
    fields: dict[str, Any] = dict(strides=(2,), dilations=(1,), start_padding=(1,),
                                  end_padding=(0,), output_padding=(1,), group_count=2,
                                  direction=direction)  # fmt: skip
    got = jax.vmap(lambda *a: dml.convolution(*a, **fields))(x, w, b)
    want = np.stack([reference.convolution(x[i], w[i], b[i], **fields) for i in range(3)])
    np.testing.assert_array_equal(got, want)


def _onnx_attrs(fields: dict[str, Any], taps: tuple[int, ...]) -> tuple[Any, ...]:
    attrs = {"strides": tuple(fields["strides"]), "dilations": tuple(fields["dilations"]),
             "pads": (*fields["start_padding"], *fields["end_padding"]),
             "group": fields["group_count"], "kernel_shape": tuple(taps)}  # fmt: skip
    if fields["direction"] == "backward":
        attrs["output_padding"] = tuple(fields["output_padding"])
    return tuple(sorted(attrs.items()))


@hypothesis.settings(max_examples=40, deadline=None)
@hypothesis.given(case=convolutions(max_spatial=2), rng=helpers.seeds())
def test_convolution_matches_onnxruntimes_conv_and_conv_transpose(case, rng):
    # ONNX's Conv is the forward cross-correlation, its ConvTranspose the backward one;
    # ConvTranspose's output_padding (below the stride) lengthens the output as a backward
    # OutputTensor up to stride - 1 longer does in DirectML (onnxruntime's DirectML
    # provider passes it so, with OutputPadding 0): the desc face's "extra".
    fields: dict[str, Any] = dict(case["fields"], mode="cross_correlation")
    backward = fields["direction"] == "backward"
    if backward:
        extra = case["extra"]
        fields["output_padding"] = extra
    else:
        fields["output_padding"] = (0,) * len(fields["strides"])
        extra = None
    arrays = [rng.integers(-3, 3, size=s, endpoint=True).astype(np.float32)
              for s in (case["x"], case["w"], case["b"]) if s is not None]  # fmt: skip
    if len(arrays) == 3:
        arrays[2] = arrays[2].reshape(-1)  # ONNX's B: one value per output channel
    f32 = np.dtype(np.float32)
    op = "ConvTranspose" if backward else "Conv"
    session = helpers.onnx_session(op, 11, _onnx_attrs(fields, case["w"][2:]),
                                   (f32,) * len(arrays), f32)  # fmt: skip
    (want,) = session.run(None, {f"i{k}": a for k, a in enumerate(arrays)})
    if len(arrays) == 3:
        arrays[2] = arrays[2].reshape(case["b"])
    desc_fields = dict(fields, output_padding=(0,) * len(fields["strides"]))
    desc = _desc(dict(case, fields=desc_fields), T.FLOAT32, want.shape)
    np.testing.assert_array_equal(dml.compile_operator(desc)(*arrays), want)
    if not backward or not any(extra or ()):
        np.testing.assert_array_equal(dml.convolution(*arrays, **desc_fields), want)


def _program(fn: Any, *args: Any) -> str:
    return jax.jit(fn).lower(*args).as_text()


def test_allow_half_precision_is_the_switch_to_the_backends_default_precision():
    x, w = np.ones((1, 1, 8, 8), np.float32), np.ones((1, 1, 3, 3), np.float32)
    assert "HIGHEST" in _program(dml.convolution, x, w)
    fast = _program(lambda a, b: dml.convolution(a, b, allow_half_precision=True), x, w)
    assert "HIGHEST" not in fast
    f32 = T.FLOAT32
    desc = dml.ConvolutionOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 8, 8)),
        filter_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 3, 3)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 6, 6)),
        strides=(1, 1), dilations=(1, 1), start_padding=(0, 0), end_padding=(0, 0),
        output_padding=(0, 0),
    )  # fmt: skip
    assert "HIGHEST" in _program(dml.compile_operator(desc), x, w)
    assert "HIGHEST" not in _program(dml.compile_operator(desc, allow_half_precision=True), x, w)
