"""GEMM: both faces against the NumPy reference on every type, rank and transpose, the
float32 bound against float64, full precision, the fused activation, the rules, and
onnxruntime's Gemm and MatMul.

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
_TRANSPOSE = dml.MatrixTransform.TRANSPOSE


def _shapes(lead: tuple[int, ...], m: int, k: int, n: int, trans_a: bool, trans_b: bool) -> Any:
    a = (*lead, *((k, m) if trans_a else (m, k)))
    b = (*lead, *((n, k) if trans_b else (k, n)))
    return a, b, (*lead, m, n)


@hypothesis.settings(max_examples=80, deadline=None)
@hypothesis.given(
    dtype=st.sampled_from([np.float32, np.float16, jnp.bfloat16, np.float64]),
    lead=st.lists(st.integers(1, 3), max_size=2).map(tuple),
    mkn=st.tuples(st.integers(1, 5), st.integers(1, 5), st.integers(1, 5)),
    trans=st.tuples(st.booleans(), st.booleans()),
    scales=st.tuples(st.sampled_from([1.0, -0.5, 2.0]), st.sampled_from([1.0, 0.0, -3.0])),
    with_c=st.booleans(),
    rng=helpers.seeds(),
)
def test_both_faces_are_the_reference_on_every_type_rank_and_transpose(
    dtype, lead, mkn, trans, scales, with_c, rng
):
    # Small integers: every partial sum is exact in every type, so the results are too.
    dtype = np.dtype(dtype)
    (m, k, n), (trans_a, trans_b) = mkn, trans
    a_shape, b_shape, out_shape = _shapes(lead, m, k, n, trans_a, trans_b)
    a, b, c = (rng.integers(-3, 3, size=s, endpoint=True).astype(dtype)
               for s in (a_shape, b_shape, out_shape))  # fmt: skip
    c = c if with_c else None
    alpha, beta = scales
    want = reference.gemm(a, b, c, trans_a=trans_a, trans_b=trans_b, alpha=alpha, beta=beta)
    with jax.enable_x64(dtype == np.float64):
        got = dml.gemm(a, b, c, trans_a=trans_a, trans_b=trans_b, alpha=alpha, beta=beta)
        np.testing.assert_array_equal(got, want, strict=True)
        if dtype not in (np.float32, np.float16):
            return  # the page's types only
        f = T.from_dtype(dtype)
        desc = dml.GemmOperatorDesc(
            a_tensor=dml.TensorDesc(data_type=f, sizes=a_shape),
            b_tensor=dml.TensorDesc(data_type=f, sizes=b_shape),
            c_tensor=None if c is None else dml.TensorDesc(data_type=f, sizes=out_shape),
            output_tensor=dml.TensorDesc(data_type=f, sizes=out_shape),
            trans_a=dml.MatrixTransform(int(trans_a)), trans_b=dml.MatrixTransform(int(trans_b)),
            alpha=alpha, beta=beta,
        )  # fmt: skip
        arrays = (a, b) if c is None else (a, b, c)
        np.testing.assert_array_equal(dml.compile_operator(desc)(*arrays), want, strict=True)


def test_float32_is_within_the_bound_every_summation_order_meets_and_full_precision():
    # K * 2**-24 of the sum of the terms' magnitudes, K = 1024; TF32 (10 bits) or one
    # bfloat16 pass would miss it by orders of magnitude on these random values.
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 1024)).astype(np.float32)
    b = rng.standard_normal((1024, 48)).astype(np.float32)
    got = np.asarray(dml.gemm(a, b), np.float64)
    wide_a, wide_b = a.astype(np.float64), b.astype(np.float64)
    exact = wide_a @ wide_b
    magnitude = np.abs(wide_a) @ np.abs(wide_b)
    assert np.all(np.abs(got - exact) <= 1024 * 2.0**-24 * magnitude)
    # The program asks for HIGHEST: a backend's faster default is never taken.
    hlo = jax.jit(dml.gemm).lower(a, b).as_text()
    assert "HIGHEST" in hlo


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16])
def test_half_precision_accumulates_in_float32_and_rounds_once(dtype):
    # A float32 computation (within K * 2**-24 of the terms' magnitudes, plus alpha's,
    # beta's and the sum's roundings) rounded once to the type: within half an ulp of the
    # type beyond that. A 16-bit accumulator would miss it (K = 256 terms). The GPU's
    # order of summation is its own: not the float32 product's bits, rounded.
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal(s).astype(dtype) for s in ((8, 256), (256, 8), (8, 8)))
    got = np.asarray(dml.gemm(a, b, c, alpha=0.5, beta=2.0), np.float64)
    wide_a, wide_b, wide_c = (x.astype(np.float64) for x in (a, b, c))
    exact = 0.5 * wide_a @ wide_b + 2.0 * wide_c
    terms = 0.5 * np.abs(wide_a) @ np.abs(wide_b) + 2.0 * np.abs(wide_c)
    half_ulp = np.asarray(jnp.finfo(dtype).eps, np.float64) / 2 * np.abs(exact)
    assert np.all(np.abs(got - exact) <= half_ulp + (256 + 3) * 2.0**-24 * terms)


def test_the_fused_activation_applies_to_the_whole_result():
    f32 = T.FLOAT32
    x = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)
    desc = dml.GemmOperatorDesc(
        a_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 2)),
        b_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 2)),
        c_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 2)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 2)),
        beta=-10.0, fused_activation=dml.ActivationReluOperatorDesc(),
    )  # fmt: skip
    c = np.ones((2, 2), np.float32)
    want = np.maximum(x @ x - 10.0, 0.0)
    np.testing.assert_array_equal(dml.compile_operator(desc)(x, x, c), want)


def _desc(**changes: Any) -> Any:
    f32 = T.FLOAT32
    fields: dict[str, Any] = dict(
        a_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 3)),
        b_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 3, 4)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 4)),
    )  # fmt: skip
    fields.update(changes)
    return dml.GemmOperatorDesc(**fields)


def test_the_rules_are_refused_naming_the_field():
    f32, f16 = T.FLOAT32, T.FLOAT16
    cases: tuple[tuple[dict[str, Any], str, str], ...] = (
        ({"b_tensor": dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 4))}, "b_tensor.sizes[2]",
         "K: a_tensor's columns"),
        ({"trans_b": _TRANSPOSE}, "b_tensor.sizes[3]", "trans_b"),
        ({"b_tensor": dml.TensorDesc(data_type=f32, sizes=(2, 1, 3, 4))}, "b_tensor.sizes",
         "leading sizes"),
        ({"c_tensor": dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 1))}, "c_tensor.sizes",
         "output_tensor.sizes"),
        ({"output_tensor": dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 3))},
         "output_tensor.sizes", "M and N"),
        ({"b_tensor": dml.TensorDesc(data_type=f16, sizes=(1, 1, 3, 4))}, "b_tensor.data_type",
         "FLOAT32"),
        ({"b_tensor": dml.TensorDesc(data_type=f32, sizes=(1, 3, 4))}, "b_tensor.sizes",
         "4 dimensions"),
        ({"a_tensor": dml.TensorDesc(data_type=T.INT32, sizes=(1, 1, 2, 3))},
         "a_tensor.data_type", "FLOAT32, FLOAT16"),
    )  # fmt: skip
    for changes, field, match in cases:
        helpers.refused(lambda c=changes: dml.compile_operator(_desc(**c)), field=field,
                        match=match, op="GemmOperatorDesc")  # fmt: skip
    helpers.refused(lambda: _desc(trans_a="SIDEWAYS"), field="trans_a", match="TRANSPOSE")
    at_1_0 = _desc(
        a_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 3)),
        b_tensor=dml.TensorDesc(data_type=f32, sizes=(3, 4)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 4)),
    )  # fmt: skip
    dml.compile_operator(at_1_0)
    helpers.refused(lambda: dml.compile_operator(at_1_0, feature_level=dml.FeatureLevel.FL_3_1),
                    field="a_tensor.sizes", match="4 dimensions long at FL_3_1")  # fmt: skip


def test_the_face_refuses_what_gemm_does_not_take():
    x = np.ones((2, 3), np.float32)
    helpers.refused(lambda: dml.gemm(x, x), field="b", match="K = 3")
    helpers.refused(lambda: dml.gemm(np.ones(3, np.float32), x), field="a", match="2 dimensions")
    helpers.refused(lambda: dml.gemm(x, x.T.astype(np.float16)), field="b.dtype",
                    match="float32")  # fmt: skip
    helpers.refused(lambda: dml.gemm(x, x.T[None]), field="b", match="2 dimensions")
    helpers.refused(lambda: dml.gemm(np.ones((2, 3), np.int32), np.ones((3, 2), np.int32)),
                    field="a", match="GEMM's types")  # fmt: skip
    helpers.refused(lambda: dml.gemm(x, x.T, np.ones((1, 2), np.float32)), field="c",
                    match="broadcast")  # fmt: skip


def test_gradients_flow_to_a_b_and_c():
    rng = np.random.default_rng(2)
    a, b, c = (rng.standard_normal(s) for s in ((2, 3), (2, 3), (2, 2)))

    def f(a: jax.Array, b: jax.Array, c: jax.Array) -> jax.Array:
        return dml.gemm(a, b, c, trans_b=True, alpha=0.5, beta=2.0)

    with jax.enable_x64(True):
        helpers.check_grads_by_primitive(f, tuple(jnp.asarray(x) for x in (a, b, c)))


@hypothesis.settings(max_examples=30, deadline=None)
@hypothesis.given(
    mkn=st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4)),
    trans=st.tuples(st.booleans(), st.booleans()),
    scales=st.tuples(st.sampled_from([1.0, 0.5, -2.0]), st.sampled_from([1.0, 0.0, 3.0])),
    rng=helpers.seeds(),
)
def test_gemm_matches_onnxruntimes_gemm(mkn, trans, scales, rng):
    (trans_a, trans_b), (alpha, beta), (m, k, n) = trans, scales, mkn
    a_shape, b_shape, out_shape = _shapes((), m, k, n, trans_a, trans_b)
    a, b, c = (rng.integers(-3, 3, size=s, endpoint=True).astype(np.float32)
               for s in (a_shape, b_shape, out_shape))  # fmt: skip
    attrs = (("alpha", alpha), ("beta", beta), ("transA", int(trans_a)),
             ("transB", int(trans_b)))  # fmt: skip
    f32 = np.dtype(np.float32)
    session = helpers.onnx_session("Gemm", 13, attrs, (f32, f32, f32), f32)
    (want,) = session.run(None, {"i0": a, "i1": b, "i2": c})
    got = dml.gemm(a, b, c, trans_a=trans_a, trans_b=trans_b, alpha=alpha, beta=beta)
    np.testing.assert_array_equal(got, want)


def test_batched_products_match_onnxruntimes_matmul():
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 3, size=(2, 3, 4, 5), endpoint=True).astype(np.float32)
    b = rng.integers(-3, 3, size=(2, 3, 5, 2), endpoint=True).astype(np.float32)
    f32 = np.dtype(np.float32)
    (want,) = helpers.onnx_session("MatMul", 13, (), (f32, f32), f32).run(None, {"i0": a, "i1": b})
    np.testing.assert_array_equal(dml.gemm(a, b), want)


def _program(fn: Any, *args: Any) -> str:
    return jax.jit(fn).lower(*args).as_text()


def test_allow_half_precision_is_the_switch_to_the_backends_default_precision(tmp_path):
    import json
    import pickle

    a = np.ones((1, 1, 32, 32), np.float32)
    assert "HIGHEST" in _program(dml.gemm, a, a)
    assert "HIGHEST" not in _program(lambda x, y: dml.gemm(x, y, allow_half_precision=True), a, a)
    f32 = T.FLOAT32
    t = dml.TensorDesc(data_type=f32, sizes=(1, 1, 32, 32))
    desc = dml.GemmOperatorDesc(a_tensor=t, b_tensor=t, output_tensor=t)
    fast = dml.compile_operator(desc, allow_half_precision=True)
    assert "allow_half_precision=True" in repr(fast)
    assert "HIGHEST" not in _program(fast, a, a)
    assert pickle.loads(pickle.dumps(fast)).allow_half_precision
    assert "HIGHEST" in _program(dml.compile_operator(desc), a, a)
    helpers.refused(
        lambda: dml.compile_operator(desc, allow_half_precision=1),  # pyright: ignore[reportArgumentType, reportCallIssue]
        field="allow_half_precision", match="a bool", error=dml.errors.ArgumentTypeError,
    )  # fmt: skip
    # DxDispatch: the dispatchable's executionFlags are the switch (DirectML's model sets it).
    model = json.loads((helpers.REPO / "tests/data/dxdispatch/dml_gemm_graph.json").read_text())
    for flags, highest in (("DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION", False),
                           ("DML_EXECUTION_FLAG_NONE", True)):  # fmt: skip
        model["dispatchables"]["gemm"]["executionFlags"] = flags
        (tmp_path / "m.json").write_text(json.dumps(model))
        run = dml.load_dxdispatch(tmp_path / "m.json").dispatchables["gemm"].function
        assert ("HIGHEST" in _program(run, a, a)) == highest, flags  # A, and B (owned)


def test_a_graph_takes_the_precision_switch_as_a_whole():
    # As deterministic=: a node that asks for it makes the graph's compile allow it.
    a = np.ones((2, 2), np.float32)
    for allow in (False, True):
        builder = dml.GraphBuilder()
        x = builder.input(dml.TensorDesc(data_type=T.FLOAT32, sizes=(2, 2)))
        graph = builder.compile([builder.relu(builder.gemm(x, x, allow_half_precision=allow))])
        assert graph.allow_half_precision == allow
        assert ("HIGHEST" in _program(graph, a)) != allow
