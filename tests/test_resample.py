"""UPSAMPLE_2D, RESAMPLE, RESAMPLE1 and RESAMPLE2: both faces against the NumPy reference
on every type, rank, mode and rounding, LINEAR's bound against float64, special floats,
the rules, and onnxruntime's Resize in every coordinate mode that maps onto DirectML's.

The cross-cutting checks (doc examples, support tables, transformations, symbolic shapes,
graphs) come from the operators' declarations in tests/test_conformance.py and the files
beside it.
"""

from __future__ import annotations

import dataclasses
import math
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
NEAREST, LINEAR = dml.InterpolationMode.NEAREST_NEIGHBOR, dml.InterpolationMode.LINEAR
_DTYPES = [np.float32, np.float16, jnp.bfloat16, np.float64, np.int8, np.uint8]
_DML_TYPES = {np.dtype(t) for t in (np.float32, np.float16, np.int8, np.uint8)}
_DYADIC = [0.25, 0.5, 1.0, 2.0, 4.0]


def _reference(x, shape, scales, offsets, linear, rounding="nearest"):
    rank = x.ndim
    return reference.resample(
        x, shape, scales=scales, input_offsets=(offsets[0],) * rank,
        output_offsets=(offsets[1],) * rank, linear=linear, rounding=rounding,
    )  # fmt: skip


def _desc(x, shape, scales, offsets, linear, rounding):
    rank = x.ndim
    fields: dict[str, Any] = dict(
        input_tensor=dml.TensorDesc(data_type=T.from_dtype(x.dtype), sizes=x.shape),
        output_tensor=dml.TensorDesc(data_type=T.from_dtype(x.dtype), sizes=tuple(shape)),
        interpolation_mode=LINEAR if linear else NEAREST,
        scales=tuple(scales),
        input_pixel_offsets=(offsets[0],) * rank,
        output_pixel_offsets=(offsets[1],) * rank,
    )
    if rounding == "nearest":
        return dml.Resample1OperatorDesc(**fields)
    up = dml.AxisDirection.INCREASING if rounding == "ceil" else dml.AxisDirection.DECREASING
    return dml.Resample2OperatorDesc(**fields, rounding_direction=up)


@hypothesis.settings(max_examples=120, deadline=None)
@hypothesis.given(
    dtype=st.sampled_from(_DTYPES),
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    data=st.data(),
    linear=st.booleans(),
    rounding=st.sampled_from(["nearest", "floor", "ceil"]),
    centers=st.booleans(),
    rng=helpers.seeds(),
)
def test_both_faces_are_the_reference_on_every_type_and_rank(
    dtype, shape, data, linear, rounding, centers, rng
):
    # Dyadic scales and small integers: every weight and sum is exact in every type, so
    # the faces, the descs and the reference agree bit for bit.
    dtype = np.dtype(dtype)
    x = rng.integers(0, 5, size=shape).astype(dtype)
    scales = tuple(data.draw(st.sampled_from(_DYADIC)) for _ in shape)
    out = [
        math.floor(n * s) + data.draw(st.integers(-1, 1))
        for n, s in zip(shape, scales, strict=True)
    ]
    out = [max(n, 0) for n in out]
    offsets = (0.5, -0.5) if centers else (0.0, 0.0)
    want = _reference(x, out, scales, offsets, linear, rounding)
    mode = "linear" if linear else "nearest"
    with jax.enable_x64(dtype == np.float64):
        got = dml.resample(
            x, tuple(out), scales, mode=mode, rounding=rounding,
            input_pixel_offsets=offsets[0], output_pixel_offsets=offsets[1],
        )  # fmt: skip
        np.testing.assert_array_equal(got, want, strict=True)
        integers = not jnp.issubdtype(dtype, jnp.floating)
        if dtype not in _DML_TYPES or (rounding != "nearest" and integers) or 0 in out:
            return  # no desc of bfloat16 or float64, nor RESAMPLE2 of integers, nor empty
        desc = _desc(x, out, scales, offsets, linear, rounding)
        np.testing.assert_array_equal(dml.compile_operator(desc)(x), want, strict=True)


def test_resample_and_upsample_2d_are_resample1_at_pixel_centers():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    for linear in (False, True):
        mode = LINEAR if linear else NEAREST
        want = _reference(x, (2, 3, 8, 15), (1, 1, 2, 3), (0.5, -0.5), linear)
        upsample = dml.Upsample2dOperatorDesc(
            input_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=x.shape),
            output_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(2, 3, 8, 15)),
            scale_size=dml.Size2D(width=3, height=2), interpolation_mode=mode,
        )  # fmt: skip
        resample = dml.ResampleOperatorDesc(
            input_tensor=upsample.input_tensor, output_tensor=upsample.output_tensor,
            interpolation_mode=mode, scales=(1, 1, 2, 3),
        )  # fmt: skip
        for desc in (upsample, resample):
            np.testing.assert_allclose(dml.compile_operator(desc)(x), want, rtol=4e-7, atol=4e-7)
    # Five dimensions: UPSAMPLE_2D scales the last two only, the depth stays.
    x5 = rng.standard_normal((1, 2, 3, 2, 2)).astype(np.float32)
    desc = dml.Upsample2dOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=x5.shape),
        output_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 2, 3, 4, 2)),
        scale_size=dml.Size2D(width=1, height=2), interpolation_mode=NEAREST,
    )  # fmt: skip
    np.testing.assert_array_equal(dml.compile_operator(desc)(x5), np.repeat(x5, 2, axis=3))


def test_the_two_nearest_rules_are_one_rule_half_a_pixel_apart():
    # onnxruntime's DirectML provider writes ONNX's round_prefer_floor as RESAMPLE2's
    # ceil with input offsets half a pixel larger: RESAMPLE1's nearest element.
    x = np.arange(7, dtype=np.float32)
    for scale in (0.5, 1.5, 2.0, 3.0):
        n = math.floor(7 * scale)
        nearest = dml.resample(x, (n,), scale)
        ceil = dml.resample(x, (n,), scale, rounding="ceil", input_pixel_offsets=1.0)
        np.testing.assert_array_equal(nearest, ceil)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_linear_is_within_its_bound_of_float64(dtype):
    # Each dimension weighs two elements in float32 (three roundings of at most half an
    # ulp of the larger magnitude) and the next dimension weighs those: over d dimensions
    # within 3 * d * 2**-24 of max |x|, then the one rounding to the type.
    rng = np.random.default_rng(1)
    worst = 0.0
    for rank in (1, 2, 3, 4):
        shape = tuple(rng.integers(2, 6, size=rank))
        x = rng.standard_normal(shape).astype(dtype)
        scales = tuple(float(s) for s in rng.uniform(0.3, 3.0, size=rank))
        out = tuple(max(1, math.floor(n * s)) for n, s in zip(shape, scales, strict=True))
        got = np.asarray(dml.resample(x, out, scales, mode="linear"), np.float64)
        exact = _exact(x.astype(np.float64), out, scales)
        bound = 3 * rank * 2.0**-24 * np.abs(x).max() + np.abs(exact) * np.finfo(dtype).eps / 2
        error = np.abs(got - exact)
        assert np.all(error <= bound), (rank, float((error - bound).max()))
        worst = max(worst, float((error / np.abs(x).max()).max()))
    if dtype == np.float32:
        assert worst <= 12 * 2.0**-24


def _exact(x, out, scales):
    """The float64 value of LINEAR at the float32 coordinates (the reference, unrounded)."""
    return _reference(x, out, scales, (0.5, -0.5), True)


def test_special_floats_move_bit_for_bit_and_an_exact_coordinate_reads_alone():
    payload = np.array([0x7FC00001, 0xFFC00000, 0x80000000, 0x7F800000], np.uint32)
    x = payload.view(np.float32)  # NaN(1), -NaN, -0.0, inf
    nearest = np.asarray(dml.resample(x, (8,), 2.0)).view(np.uint32)
    np.testing.assert_array_equal(nearest, np.repeat(payload, 2))
    # Linear at corners: even outputs sit on an element, odd ones between two.
    y = np.array([np.inf, 1.0, -0.0], np.float32)
    got = np.asarray(dml.resample(y, (5,), 2.0, mode="linear",
                                  input_pixel_offsets=0.0, output_pixel_offsets=0.0))  # fmt: skip
    np.testing.assert_array_equal(got, [np.inf, np.inf, 1.0, 0.5, -0.0])
    assert np.signbit(got[4])


def test_integers_truncate_toward_zero():
    x = np.array([-3, 0, 3], np.int8)
    got = dml.resample(x, (5,), 2.0, mode="linear", input_pixel_offsets=0.0,
                       output_pixel_offsets=0.0)  # fmt: skip
    np.testing.assert_array_equal(got, [-3, -1, 0, 1, 3])  # -1.5 -> -1, 1.5 -> 1


def test_the_face_is_differentiable_and_batches():
    x = jnp.arange(4.0)
    grad = jax.grad(lambda x: jnp.sum(dml.resample(x, (8,), 2.0, mode="linear")))(x)
    np.testing.assert_allclose(grad, [2.0, 2.0, 2.0, 2.0])
    batch = jnp.arange(12.0).reshape(3, 4)
    each = jax.vmap(lambda r: dml.resample(r, (2,), mode="linear"))(batch)
    np.testing.assert_array_equal(each, dml.resample(batch, (3, 2), mode="linear"))


def test_every_rule_is_refused_naming_its_field():
    x = dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 2, 2))
    y = dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 4, 4))
    good = dml.Resample1OperatorDesc(
        input_tensor=x, output_tensor=y, interpolation_mode=LINEAR, scales=(1, 1, 2, 2),
        input_pixel_offsets=(0.5,) * 4, output_pixel_offsets=(-0.5,) * 4,
    )  # fmt: skip
    assert dml.compile_operator(good)
    cases = (
        ({"scales": (1, 2, 2)}, "scales", "4 values"),
        ({"scales": (1, 1, 0, 2)}, "scales[2]", "positive"),
        ({"scales": (1, 1, -2, 2)}, "scales[2]", "positive"),
        ({"input_pixel_offsets": (0.5, 0.5, math.inf, 0.5)}, "input_pixel_offsets[2]", "finite"),
        ({"output_pixel_offsets": (0.0,)}, "output_pixel_offsets", "4 values"),
        ({"output_tensor": dml.TensorDesc(data_type=T.FLOAT16, sizes=(1, 1, 4, 4))},
         "output_tensor.data_type", "FLOAT32"),
    )  # fmt: skip
    for changes, field, match in cases:
        changed = dataclasses.replace(good, **changes)
        helpers.refused(lambda changed=changed: dml.compile_operator(changed), field=field,
                        match=match)  # fmt: skip
    helpers.refused(lambda: dataclasses.replace(good, interpolation_mode="CUBIC"),
                    field="interpolation_mode", match="NEAREST_NEIGHBOR, LINEAR")  # fmt: skip
    # RESAMPLE2 came at 5_1; RESAMPLE1 took 1 to 4 dimensions and INT8 later than 4-D.
    resample2 = dml.Resample2OperatorDesc(
        **{f.name: getattr(good, f.name) for f in dataclasses.fields(good)},
        rounding_direction=dml.AxisDirection.DECREASING,
    )
    with pytest.raises(dml.errors.InvalidArgumentError, match="FL_5_1"):
        dml.compile_operator(resample2, feature_level=dml.FeatureLevel.FL_5_0)
    flat = dataclasses.replace(
        good, input_tensor=dml.TensorDesc(data_type=T.INT8, sizes=(2,)),
        output_tensor=dml.TensorDesc(data_type=T.INT8, sizes=(4,)), scales=(2,),
        input_pixel_offsets=(0.5,), output_pixel_offsets=(-0.5,),
    )  # fmt: skip
    with pytest.raises(dml.errors.InvalidArgumentError, match="INT8"):
        dml.compile_operator(flat, feature_level=dml.FeatureLevel.FL_6_1)
    assert dml.compile_operator(flat, feature_level=dml.FeatureLevel.FL_6_2)
    # UPSAMPLE_2D: its output is the input scaled, its scale sizes positive.
    upsample = dml.Upsample2dOperatorDesc(
        input_tensor=x, output_tensor=y, scale_size=dml.Size2D(width=2, height=2),
        interpolation_mode=NEAREST,
    )  # fmt: skip
    assert dml.compile_operator(upsample)
    helpers.refused(
        lambda: dml.compile_operator(
            dataclasses.replace(upsample, scale_size=dml.Size2D(width=3, height=2))
        ),
        field="output_tensor.sizes", match="width times 3",
    )  # fmt: skip
    helpers.refused(lambda: dataclasses.replace(upsample, scale_size={"Width": 0, "Height": 2}),
                    field="scale_size.width", match="positive")  # fmt: skip
    helpers.refused(lambda: dataclasses.replace(upsample, scale_size={"Width": 2}),
                    field="scale_size", match="Width and Height")  # fmt: skip


def test_the_face_refuses_bad_arguments_naming_them():
    x = np.ones((2, 3), np.float32)
    helpers.refused(lambda: dml.resample(x), field="shape", match="shape, scales or both")
    helpers.refused(lambda: dml.resample(x, (4,)), field="shape", match="2 sizes")
    helpers.refused(lambda: dml.resample(x, scales=(1.0,)), field="scales", match="2 values")
    helpers.refused(lambda: dml.resample(x, scales=0.0), field="scales[0]", match="positive")
    helpers.refused(lambda: dml.resample(x, (2, 3), mode="cubic"), field="mode", match="linear")
    helpers.refused(lambda: dml.resample(x, (2, 3), rounding="up"), field="rounding",
                    match="ceil")  # fmt: skip
    helpers.refused(lambda: dml.resample(x, (2, -1)), field="shape[1]", match="non-negative")
    helpers.refused(lambda: dml.resample(np.ones(3, np.int32), (6,)), field="x", match="int32")
    helpers.refused(lambda: dml.resample(np.float32(1), ()), field="x", match="0-D")
    helpers.refused(lambda: dml.resample(x, scales=1e30), field="shape", match="fits")
    helpers.refused(lambda: dml.resample(np.ones((0, 2), np.float32), (1, 2)),
                    field="shape[0]", match="nothing to read")  # fmt: skip


# --- onnxruntime's Resize, mapped as its DirectML provider maps it ----------------------------

# ONNX's coordinate modes: DirectML's input and output pixel offsets (and align_corners'
# scale), as onnxruntime's DirectML provider computes them.
_OFFSETS = {"half_pixel": (0.5, -0.5), "asymmetric": (0.0, 0.0),
            "tf_half_pixel_for_nn": (0.0, -0.5), "align_corners": (0.0, 0.0)}  # fmt: skip
# ONNX's nearest modes: the face's rounding and the shift of the input offsets.
_ROUNDING = {"round_prefer_floor": ("nearest", 0.0), "round_prefer_ceil": ("floor", -0.5),
             "floor": ("floor", 0.0), "ceil": ("ceil", 0.0)}  # fmt: skip


def _onnx_resize(x, scales, mode, ctm, nearest_mode):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    helper = onnx.helper
    node = helper.make_node(
        "Resize", ["x", "", "s"], ["y"], mode=mode, coordinate_transformation_mode=ctm,
        nearest_mode=nearest_mode,
    )  # fmt: skip
    kind = helper.np_dtype_to_tensor_dtype(x.dtype)
    graph = helper.make_graph(
        [node], "resize",
        [helper.make_tensor_value_info("x", kind, None),
         helper.make_tensor_value_info("s", onnx.TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("y", kind, None)],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x, "s": np.array(scales, np.float32)})[0]


@hypothesis.settings(max_examples=80, deadline=None)
@hypothesis.given(
    shape=st.lists(st.integers(2, 5), min_size=1, max_size=3),
    data=st.data(),
    ctm=st.sampled_from(sorted(_OFFSETS)),
    nearest_mode=st.sampled_from(sorted(_ROUNDING)),
    linear=st.booleans(),
    rng=helpers.seeds(),
)
def test_resize_matches_onnxruntime(shape, data, ctm, nearest_mode, linear, rng):
    # onnxruntime's CPU Resize interpolates 2-D and 3-D arrays (4-D and 5-D ones with
    # their outer scales 1).
    hypothesis.assume(not linear or len(shape) in (2, 3))
    x = rng.standard_normal(shape).astype(np.float32)
    # Dyadic scales: coordinates are exact in float32 whichever order a runtime computes
    # them in, so that a nearest tie rounds the same on both sides.
    scales = tuple(data.draw(st.sampled_from(_DYADIC)) for _ in shape)
    # onnxruntime's CPU provider copies a dimension of scale 1 as it is, where
    # tf_half_pixel_for_nn's formula shifts it by half a pixel (its DirectML provider
    # passes the formula on).
    hypothesis.assume(ctm != "tf_half_pixel_for_nn" or 1.0 not in scales)
    mode = "linear" if linear else "nearest"
    want = _onnx_resize(x, scales, mode, ctm, nearest_mode)
    out = want.shape
    ours_scales = scales
    input_offset, output_offset = _OFFSETS[ctm]
    if ctm == "align_corners":
        ours_scales = tuple(
            (m - 1) / (n - 1) if m > 1 else 1e30 for n, m in zip(shape, out, strict=True)
        )
    rounding, shift = _ROUNDING[nearest_mode] if not linear else ("nearest", 0.0)
    if ctm == "tf_half_pixel_for_nn" and linear:
        return  # onnxruntime's CPU provider takes that mode for nearest only
    got = dml.resample(x, out, ours_scales, mode=mode, rounding=rounding,
                       input_pixel_offsets=input_offset + shift,
                       output_pixel_offsets=output_offset)  # fmt: skip
    if linear:
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)
    else:
        np.testing.assert_array_equal(got, want)
