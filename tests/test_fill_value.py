"""FILL_VALUE_CONSTANT and FILL_VALUE_SEQUENCE: both faces on every type against NumPy,
integers wrapping, the union's values held exactly, the rules, onnxruntime's
ConstantOfShape and Range.

The cross-cutting checks (doc examples, the support table, transformations, graphs) come
from the operators' declarations in tests/test_conformance.py and the files beside it.
"""

from __future__ import annotations

import math
from typing import Any

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st

import dmljax as dml
from tests import helpers

T = dml.DataType
_PAGE_TYPES = [T.FLOAT32, T.FLOAT16, T.INT64, T.INT32, T.INT16, T.INT8, T.UINT64, T.UINT32,
               T.UINT16, T.UINT8]  # fmt: skip


def _sequence(shape: tuple[int, ...], start: Any, delta: Any, dtype: Any) -> np.ndarray:
    """``start + i * delta`` in float64 (exact for the tests' values), or modulo
    ``2**bits`` for integers, as the page's UINT8 example steps."""
    dtype = np.dtype(dtype)
    i = np.arange(math.prod(shape), dtype=object)
    if dtype.kind in "iu":
        bits = dtype.itemsize * 8
        wrapped = np.array([(start + k * delta) % 2**bits for k in i], np.uint64)
        return wrapped.astype(f"u{dtype.itemsize}").view(dtype).reshape(shape)
    return np.array([start + float(k) * delta for k in i], np.float64).astype(dtype).reshape(shape)


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(
    data_type=st.sampled_from(_PAGE_TYPES),
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple),
    start=st.integers(-20, 20),
    delta=st.integers(-5, 5),
)
def test_both_faces_fill_every_type_as_numpy_computes(data_type, shape, start, delta):
    dtype = data_type.dtype
    if dtype.kind == "u":
        start = abs(start)
    with jax.enable_x64(dtype.itemsize == 8):
        sequence = dml.fill_value_sequence(shape, start, delta, dtype=dtype)
        np.testing.assert_array_equal(sequence, _sequence(shape, start, delta, dtype), strict=True)
        constant = dml.fill_value_constant(shape, start, dtype=dtype)
        np.testing.assert_array_equal(constant, np.full(shape, start, dtype), strict=True)
        for desc, want in (
            (dml.FillValueSequenceOperatorDesc(
                output_tensor=dml.TensorDesc(data_type=data_type, sizes=shape),
                value_data_type=data_type, value_start=start, value_delta=delta), sequence),
            (dml.FillValueConstantOperatorDesc(
                output_tensor=dml.TensorDesc(data_type=data_type, sizes=shape),
                value_data_type=data_type, value=start), constant),
        ):  # fmt: skip
            np.testing.assert_array_equal(dml.compile_operator(desc)(), want, strict=True)


def test_integers_wrap_in_the_type_and_unions_hold_every_value():
    # Past 256 elements a uint8 sequence wraps, as the index times the step does mod 2**8.
    np.testing.assert_array_equal(dml.fill_value_sequence((300,), 0, 1, dtype=jnp.uint8),
                                  np.arange(300) % 256)  # fmt: skip
    np.testing.assert_array_equal(dml.fill_value_sequence((3,), 127, 1, dtype=jnp.int8),
                                  np.array([127, -128, -127], np.int8))  # fmt: skip
    with jax.enable_x64(True):
        big = 2**63 - 1
        desc = dml.FillValueConstantOperatorDesc(
            output_tensor=dml.TensorDesc(data_type=T.INT64, sizes=(2,)),
            value_data_type=T.INT64, value=big,
        )  # fmt: skip
        assert dml.compile_operator(desc)().tolist() == [big, big]
    bits = np.asarray(dml.fill_value_constant((2,), -0.0)).view(np.uint32)
    assert bits.tolist() == [0x80000000] * 2  # the sign of zero kept
    nan = dml.fill_value_sequence((3,), float("nan"), 1.0)
    assert np.isnan(nan).all()


def test_float_sequences_round_once_from_float32():
    # float16: start + i * delta computed in float32, rounded once; 2049 is no float16.
    got = dml.fill_value_sequence((3,), 2047.0, 1.0, dtype=jnp.float16)
    np.testing.assert_array_equal(got, np.array([2047, 2048, 2049], np.float32).astype(np.float16))
    got = dml.fill_value_sequence((4,), 0.1, 0.2)
    want = (np.float32(0.1) + np.arange(4, dtype=np.float32) * np.float32(0.2)).astype(np.float32)
    np.testing.assert_array_equal(got, want)


def test_the_rules_are_refused_naming_the_field():
    f32 = dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 2, 2))
    helpers.refused(
        lambda: dml.compile_operator(dml.FillValueConstantOperatorDesc(
            output_tensor=f32, value_data_type=T.INT32, value=1)),
        field="value_data_type", match="output_tensor.data_type",
    )  # fmt: skip
    helpers.refused(
        lambda: dml.FillValueSequenceOperatorDesc(output_tensor=f32, value_data_type=T.UINT8,
                                                  value_start=300, value_delta=1),
        field="value_start", match="0, 255",
    )  # fmt: skip
    helpers.refused(
        lambda: dml.FillValueSequenceOperatorDesc(output_tensor=f32, value_data_type=T.UINT8,
                                                  value_start=3, value_delta=256),
        field="value_delta", match="modulo",
    )  # fmt: skip
    at_2_1 = dml.FeatureLevel.FL_2_1
    one_d = dml.FillValueConstantOperatorDesc(
        output_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(4,)), value_data_type=T.FLOAT32
    )
    dml.compile_operator(one_d)
    helpers.refused(lambda: dml.compile_operator(one_d, feature_level=at_2_1),
                    field="output_tensor.sizes", match="4 dimensions long at FL_2_1")  # fmt: skip


def test_the_faces_refuse_what_they_do_not_take():
    helpers.refused(lambda: dml.fill_value_constant((2,), 1, dtype=jnp.bool_), field="dtype",
                    match="DirectML data type")  # fmt: skip
    helpers.refused(lambda: dml.fill_value_constant((2, -1), 1), field="shape[1]",
                    match="non-negative")  # fmt: skip
    helpers.refused(lambda: dml.fill_value_constant((2,), 1.5, dtype=jnp.int32), field="value",
                    match="an integer")  # fmt: skip
    helpers.refused(lambda: dml.fill_value_sequence((2,), 0, 0.5, dtype=jnp.int32),
                    field="delta", match="an integer")  # fmt: skip
    helpers.refused(lambda: dml.fill_value_constant((2**31, 2**31), 1.0), field="shape",
                    match="XLA's sizes")  # fmt: skip
    helpers.refused(
        lambda: dml.fill_value_constant((2**20, 2**20), 1.0), field="shape", match="memory"
    )  # 4 TiB: refused before any allocation


def test_a_generator_is_a_graph_node_and_vmaps_by_axis_size():
    builder = dml.GraphBuilder()
    x = builder.input(dml.TensorDesc(data_type=T.FLOAT32, sizes=(2, 3)))
    ramp = builder.fill_value_sequence((2, 3), 1.0, 1.0)
    (out,) = builder.compile([builder.add(x, ramp)])(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(out, np.arange(2.0, 8.0).reshape(2, 3))
    stacked = jax.vmap(lambda: dml.fill_value_constant((2,), 4.0), axis_size=3)()
    np.testing.assert_array_equal(stacked, np.full((3, 2), 4.0))


def _constant_of_shape(value: np.ndarray) -> Any:
    """An onnxruntime session of ConstantOfShape (its value attribute is a tensor, which
    helpers.onnx_session's cached attributes cannot hold)."""
    helper = pytest.importorskip("onnx.helper")
    ort = pytest.importorskip("onnxruntime")
    tensor = helper.make_tensor("value", helper.np_dtype_to_tensor_dtype(value.dtype), [1],
                                value.tolist())  # fmt: skip
    graph = helper.make_graph(
        [helper.make_node("ConstantOfShape", ["i0"], ["y"], value=tensor)], "fill",
        [helper.make_tensor_value_info("i0", helper.np_dtype_to_tensor_dtype(np.dtype(np.int64)),
                                       None)],
        [helper.make_tensor_value_info("y", helper.np_dtype_to_tensor_dtype(value.dtype), None)],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=8)
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_fills_match_onnxruntimes_constant_of_shape_and_range(dtype):
    with jax.enable_x64(np.dtype(dtype).itemsize == 8):
        (want,) = _constant_of_shape(np.array([7], dtype)).run(
            None, {"i0": np.array([2, 3], np.int64)}
        )
        np.testing.assert_array_equal(dml.fill_value_constant((2, 3), 7, dtype=dtype), want)
        start, limit, step = (np.array(v, dtype) for v in (5, -7, -2))
        session = helpers.onnx_session("Range", 11, (), (np.dtype(dtype),) * 3, np.dtype(dtype))
        (want,) = session.run(None, {"i0": start, "i1": limit, "i2": step})
        np.testing.assert_array_equal(dml.fill_value_sequence(want.shape, 5, -2, dtype=dtype),
                                      want)  # fmt: skip
