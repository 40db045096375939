"""SOFTMAX, LOG_SOFTMAX and HARDMAX with their FL 5_1 versions: what is specific to them.

Their values against the float64 reference within the stated bounds (bit for bit against
jax.nn's functions in float32, whose formula they share), ties, NaN and infinities,
the first versions' effective-rank rule and last axis, the axes' rules on both faces, and
onnxruntime's Softmax, LogSoftmax and Hardmax. The conformance suite runs the rest
(support tables, examples, transformations, sharding) from the declarations.
"""

from __future__ import annotations

import json
import math
from typing import Any

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st

import dmljax as dml
from dmljax._src.checking.operators import softmax as checking
from dmljax._src.ops import softmax
from dmljax._src.ops.softmax import ROWS, Normalization
from tests import descs, helpers

T = dml.DataType
BY_NAME = {row.name: row for row in ROWS}
FACES = {row.name: softmax.FUNCTIONS[row.face] for row in ROWS}
SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e-40, 3.0, -2.5])


def _ulps(got: np.ndarray, want: np.ndarray, dtype: Any, size: Any = None) -> np.ndarray:
    """|got - want| in units in the last place, in ``dtype``, of ``want`` (float64) or of
    ``size`` where that is larger; 0 where both are NaN or equal."""
    info = jnp.finfo(dtype)
    with np.errstate(invalid="ignore"):
        scale = np.abs(want) if size is None else np.fmax(np.abs(want), size)
        _, exponent = np.frexp(scale)
        ulp = np.ldexp(1.0, np.maximum(exponent - 1, info.minexp) - info.nmant)
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        return np.where(same, 0.0, np.abs(got - want) / ulp)


@st.composite
def _draw(draw: Any, dtypes: tuple[Any, ...] = (np.float32,)) -> tuple[np.ndarray, tuple[int, ...]]:
    """An array of rank 1 to 8 (at most 256 elements) and a set of its axes."""
    rank = draw(st.integers(1, 8))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    hypothesis.assume(math.prod(shape) <= 256)
    dtype = draw(st.sampled_from(dtypes))
    seed = draw(st.integers(0, 2**32 - 1))
    scale = draw(st.sampled_from([0.25, 1.0, 8.0, 30.0]))
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * scale).astype(dtype)
    axes = tuple(draw(st.permutations(range(rank)))[: draw(st.integers(0, rank))])
    return x, axes


@hypothesis.settings(max_examples=100, deadline=None)
@hypothesis.given(_draw())
def test_float32_is_jax_nn_bit_for_bit_and_within_the_bound_of_float64(case):
    x, axes = case
    got_softmax = np.asarray(dml.softmax(x, axes)).astype(np.float64)
    # The face's program is jax.nn's under jit (op by op, XLA's exp may round otherwise).
    namesakes = {
        f: jax.jit(getattr(jax.nn, f), static_argnames="axis") for f in ("softmax", "log_softmax")
    }
    np.testing.assert_array_equal(got_softmax, namesakes["softmax"](x, axis=axes))
    np.testing.assert_array_equal(dml.log_softmax(x, axes), namesakes["log_softmax"](x, axis=axes))
    want = softmax.reference_softmax(x, axes)
    top = np.max(x.astype(np.float64), axis=axes, keepdims=True)
    distance = np.abs(x - top)
    count = math.prod(x.shape[a] for a in axes)
    normal = want >= np.finfo(np.float32).tiny  # below, the family's rule: may flush to 0
    bound = checking.softmax_ulps(distance, count)
    assert np.all(_ulps(got_softmax, want, np.float32)[normal] <= bound[normal])
    assert np.all(np.abs(got_softmax - want)[~normal] <= np.finfo(np.float32).tiny)
    # LOG_SOFTMAX in ulps of its terms' size: it cancels toward 0.
    got_log = np.asarray(dml.log_softmax(x, axes)).astype(np.float64)
    want_log = softmax.reference_log_softmax(x, axes)
    total = np.log(np.sum(np.exp(x.astype(np.float64) - top), axis=axes, keepdims=True))
    size = np.maximum(np.maximum(1.0, distance), total)
    assert np.all(_ulps(got_log, want_log, np.float32, size) <= checking.LOG_SOFTMAX_ULPS)


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16])
@pytest.mark.parametrize("name", ["SOFTMAX", "LOG_SOFTMAX"])
def test_half_precision_is_float32_rounded_once(name, dtype):
    # float16 and bfloat16 compute in float32 and round once: within one ulp of the
    # float64 value (half an ulp, and float32's error far below it), and equal to the
    # float32 result rounded.
    x = (np.random.default_rng(0).standard_normal((64, 16)) * 4).astype(dtype)
    got = np.asarray(FACES[name](x)).astype(np.float64)
    wide = np.asarray(FACES[name](x.astype(np.float32)))
    np.testing.assert_array_equal(got, wide.astype(dtype).astype(np.float64))
    want = BY_NAME[name].reference(x, (1,))
    assert _ulps(got, want, dtype).max() <= 1


def test_float16_is_more_accurate_than_jax_nn_in_float16():
    x = np.array([1.0, 2.0, 3.0], np.float16)
    want = softmax.reference_softmax(x, (0,))
    mine = np.abs(np.asarray(dml.softmax(x), np.float64) - want).max()
    theirs = np.abs(np.asarray(jax.nn.softmax(x), np.float64) - want).max()
    assert mine < theirs


@hypothesis.settings(max_examples=100, deadline=None)
@hypothesis.given(_draw((np.float32, np.float16)), st.integers(0, 2**32 - 1))
def test_hardmax_is_the_first_maximum_exactly_with_ties_nan_and_infinities(case, seed):
    x, axes = case
    rng = np.random.default_rng(seed)
    # Ties (a few distinct values) and special values where drawn.
    x = np.where(rng.random(x.shape) < 0.5, np.round(x), x).astype(x.dtype)
    specials = rng.random(x.shape) < 0.1
    x[specials] = rng.choice(SPECIALS, size=int(specials.sum())).astype(x.dtype)
    got = np.asarray(dml.hardmax(x, axes))
    # A float32 subnormal compares as the backend reads it (the Subnormals rule).
    readings = [softmax.reference_hardmax(x, axes, flush=f) for f in (False, True)]
    if jax.default_backend() != "cpu" and axes:  # a GPU's argmax picks any NaN of several
        several = np.sum(np.isnan(x), axis=axes, keepdims=True) > 1
        at_a_nan = np.sum(np.where(np.isnan(x), got, 0), axis=axes, keepdims=True) == 1
        assert np.all(at_a_nan | ~several)  # its one 1 (counted below) is at a NaN
        readings = [np.where(several, got, want) for want in readings]
    assert any(np.array_equal(got, want) for want in readings)
    assert got.dtype == x.dtype
    if axes:  # one 1 in each group
        np.testing.assert_array_equal(np.sum(got, axis=axes), np.ones_like(np.sum(got, axis=axes)))


@pytest.mark.parametrize(
    ("values", "softmax_of", "log_softmax_of", "hardmax_of"),
    [
        # An infinity or a NaN: inf - inf is NaN, and so is the whole group.
        ([1.0, np.inf], [np.nan, np.nan], [np.nan, np.nan], [0, 1]),
        ([np.nan, 2.0], [np.nan, np.nan], [np.nan, np.nan], [1, 0]),
        ([-np.inf, -np.inf], [np.nan, np.nan], [np.nan, np.nan], [1, 0]),
        # -inf beside a finite value: exp(-inf) is 0.
        ([-np.inf, 2.0], [0.0, 1.0], [-np.inf, 0.0], [0, 1]),
        # -0.0 and 0.0 tie: the first wins.
        ([-0.0, 0.0], [0.5, 0.5], [-math.log(2), -math.log(2)], [1, 0]),
        ([2.0, np.nan, np.nan], [np.nan] * 3, [np.nan] * 3, [0, 1, 0]),
    ],
)
def test_special_values(values, softmax_of, log_softmax_of, hardmax_of):
    x = np.array(values, np.float32)
    np.testing.assert_allclose(dml.softmax(x), np.float32(softmax_of), rtol=1e-7)
    np.testing.assert_allclose(dml.log_softmax(x), np.float32(log_softmax_of), rtol=1e-7)
    np.testing.assert_array_equal(dml.hardmax(x), np.float32(hardmax_of))


def test_no_axes_normalizes_each_element_by_itself():
    x = np.array([[1.0, -7.0], [np.inf, 0.0]], np.float32)
    np.testing.assert_array_equal(dml.softmax(x, ()), [[1, 1], [np.nan, 1]])
    np.testing.assert_array_equal(dml.log_softmax(x, ()), [[0, 0], [np.nan, 0]])
    np.testing.assert_array_equal(dml.hardmax(x, ()), np.ones((2, 2)))


def test_empty_groups_and_empty_arrays():
    for face in FACES.values():
        assert face(np.zeros((3, 0), np.float32)).shape == (3, 0)
        assert face(np.zeros((0, 3), np.float32), (0,)).shape == (0, 3)


@pytest.mark.parametrize("axes", sorted(checking.PAGE_OUTPUTS))
def test_the_log_softmax1_page_prints_hardmax1_s_outputs(axes):
    # The erratum: the LOG_SOFTMAX1 page's examples are the HARDMAX1 page's, 1s and 0s.
    # dml.log_softmax on that input is within its bound of float64, as everywhere.
    sizes, data = checking.PAGE_INPUT
    x = np.array(data, np.float32).reshape(sizes)
    printed = np.array(checking.PAGE_OUTPUTS[axes], np.float32)
    np.testing.assert_array_equal(dml.hardmax(x, axes), printed)
    got = np.asarray(dml.log_softmax(x, axes)).astype(np.float64)
    assert not np.array_equal(got, printed)
    want = softmax.reference_log_softmax(x, axes)
    top = np.max(x.astype(np.float64), axis=axes, keepdims=True)
    total = np.log(np.sum(np.exp(x - top), axis=axes, keepdims=True))
    size = np.maximum(np.maximum(1.0, np.abs(x - top)), total)
    assert np.all(_ulps(got, want, np.float32, size) <= checking.LOG_SOFTMAX_ULPS)


def test_hardmax_reads_a_float32_subnormal_as_the_backend_does():
    # The Subnormals rule: XLA:CPU reads 1e-40 as 0 (tying with 0, the first wins), a GPU
    # as itself; float16 keeps its subnormals everywhere.
    x = np.array([0.0, 1e-40, -1e-40], np.float32)
    flushing = jax.default_backend() == "cpu"
    np.testing.assert_array_equal(dml.hardmax(x), [1, 0, 0] if flushing else [0, 1, 0])
    np.testing.assert_array_equal(
        dml.hardmax(x), softmax.reference_hardmax(x, (0,), flush=flushing)
    )
    half = np.array([0.0, 1e-7, -1e-7], np.float16)  # float16's subnormals
    np.testing.assert_array_equal(dml.hardmax(half), [0, 1, 0])


def test_hardmax_counts_in_row_major_order_over_the_axes():
    # Two maxima in one group over axes (0, 2): [0, 0, 1] comes before [1, 0, 0].
    x = np.zeros((2, 1, 2), np.float32)
    x[0, 0, 1] = x[1, 0, 0] = 5
    want = np.zeros_like(x)
    want[0, 0, 1] = 1
    np.testing.assert_array_equal(dml.hardmax(x, (0, 2)), want)
    np.testing.assert_array_equal(dml.hardmax(x, (2, 0)), want)  # the order of axes is moot


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_the_gradient_is_jax_nn_s(row: Normalization):
    x = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
    g = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)
    if row.name == "HARDMAX":  # a staircase: its derivative is 0
        _, pullback = jax.vjp(dml.hardmax, x)
        np.testing.assert_array_equal(pullback(g)[0], np.zeros_like(x))
        return
    namesake = getattr(jax.nn, row.face)

    def pullback(f: Any) -> Any:
        return jax.jit(lambda v, c: jax.vjp(f, v)[1](c)[0])(x, g)

    ours = pullback(lambda v: FACES[row.name](v, (0, 1)))
    np.testing.assert_array_equal(ours, pullback(lambda v: namesake(v, axis=(0, 1))))


# --- The first versions: the last dimension, an effective rank of at most 2 ----------------------


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_the_first_version_is_the_second_over_the_last_dimension(row: Normalization):
    x = np.random.default_rng(3).standard_normal((1, 1, 3, 5)).astype(np.float32)
    first, second = (softmax.DESCS[kind] for kind in row.kinds)
    tensor = dml.TensorDesc.from_array(x)
    old = dml.compile_operator(first(input_tensor=tensor, output_tensor=tensor))(x)
    new = second(input_tensor=tensor, output_tensor=tensor, axes=(3,))
    np.testing.assert_array_equal(old, dml.compile_operator(new)(x))
    np.testing.assert_array_equal(old, FACES[row.name](x))


_FIRST = {
    row.name: descs.desc_builder(
        softmax.DESCS[row.kinds[0]], input_sizes=(1, 1, 3, 5), output_sizes=(1, 1, 3, 5)
    )
    for row in ROWS
}
_SECOND = {
    row.name: descs.desc_builder(
        softmax.DESCS[row.kinds[1]], input_sizes=(2, 3, 5), output_sizes=(2, 3, 5), axes=(0, 2)
    )
    for row in ROWS
}

test_the_first_versions_rules_name_the_field = descs.rule_table_test(
    _FIRST,
    [
        ({"input_sizes": (1, 2, 3, 5), "output_sizes": (1, 2, 3, 5)}, "input_tensor.sizes",
         "effective rank of at most 2"),
        ({"input_sizes": (2, 1, 1, 5), "output_sizes": (2, 1, 1, 5)}, "input_tensor.sizes",
         "effective rank"),
        ({"output_sizes": (1, 1, 3, 4)}, "output_tensor.sizes", r"\(1, 1, 3, 5\)"),
        ({"output_data_type": T.FLOAT16}, "output_tensor.data_type", "FLOAT32"),
        ({"data_type": T.INT32}, "input_tensor.data_type", "FLOAT"),
    ],
)  # fmt: skip

test_the_second_versions_rules_name_the_field = descs.rule_table_test(
    _SECOND,
    [
        ({"axes": (0, 3)}, "axes[1]", r"in \[0, 3\)"),
        ({"axes": (2, 2)}, "axes[1]", "not named before"),
        ({"axes": (-1,)}, "axes[0]", r"in \[0, 3\)"),
        ({"output_sizes": (2, 3, 4)}, "output_tensor.sizes", r"\(2, 3, 5\)"),
        ({"data_type": T.UINT8}, "input_tensor.data_type", "FLOAT"),
    ],
)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_the_second_version_needs_feature_level_5_1(row: Normalization):
    desc = _SECOND[row.name]()
    with pytest.raises(dml.errors.InvalidArgumentError, match="FL_5_1"):
        dml.compile_operator(desc, feature_level=dml.FeatureLevel.FL_5_0)
    # The first version, at its first level: four dimensions, the two leading ones 1.
    dml.compile_operator(_FIRST[row.name](), feature_level=dml.FeatureLevel.FL_1_0)


# --- The faces' arguments -------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FACES))
def test_the_face_reads_axes_as_jax_nn_reads_axis(name):
    face = FACES[name]
    x = np.random.default_rng(4).standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(face(x), face(x, 2))
    np.testing.assert_array_equal(face(x, -2), face(x, (1,)))
    np.testing.assert_array_equal(face(x, (-1, 0)), face(x, (0, 2)))
    np.testing.assert_array_equal(face(x, axes=np.array([0, 1])), face(x, (0, 1)))


@pytest.mark.parametrize(
    ("x", "axes", "field", "fragment"),
    [
        (np.ones((2, 3), np.float32), 2, "axes", r"in \[-2, 2\)"),
        (np.ones((2, 3), np.float32), (0, -2), "axes[1]", "not named before"),
        (np.ones((2, 3), np.float32), (0, 5), "axes[1]", r"in \[-2, 2\)"),
        (np.ones((2, 3), np.float32), 1.5, "axes", "integer"),
        (np.ones(3, np.int32), -1, "x", "float32"),
        (np.ones(3, np.bool_), -1, "x", "float32"),
        (np.float32(1.0), -1, "axes", "none"),
    ],
)
@pytest.mark.parametrize("name", sorted(FACES))
def test_the_face_refuses_bad_arguments_naming_them(name, x, axes, field, fragment):
    with pytest.raises(dml.errors.ArgumentError, match=fragment) as error:
        FACES[name](x, axes)
    assert error.value.field == field
    assert error.value.op == f"dmljax.{BY_NAME[name].face}"


def test_every_desc_and_face_is_bound_to_its_name():
    for kind, desc in softmax.DESCS.items():
        assert getattr(softmax, desc.__name__) is desc, kind
        assert getattr(dml, desc.__name__) is desc, kind
    for name, function in softmax.FUNCTIONS.items():
        assert getattr(softmax, name) is function
        assert getattr(dml, name) is function


def test_a_face_in_a_graph_is_the_second_version():
    builder = dml.GraphBuilder()
    x = builder.input(dml.TensorDesc(data_type=T.FLOAT32, sizes=(2, 3)))
    graph = builder.build(builder.softmax(builder.hardmax(x, 0), (-1,)))
    names = [
        type(node.operator).__name__
        for node in graph.nodes
        if isinstance(node, dml.OperatorGraphNodeDesc)
    ]
    assert names == ["ActivationHardmax1OperatorDesc", "ActivationSoftmax1OperatorDesc"]
    data = np.random.default_rng(5).standard_normal((2, 3)).astype(np.float32)
    want = dml.softmax(dml.hardmax(data, 0), -1)
    np.testing.assert_array_equal(dml.compile_graph(graph)(data)[0], want)


# --- DxDispatch: AxisCount counts Axes ------------------------------------------------------------


def _model(axis_count: int) -> str:
    return json.dumps({
        "resources": {
            "in": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 5, 3, 4, 2, 6]},
            "out": {"initialValuesDataType": "FLOAT32", "initialValues": [0, 0, 0, 0, 0, 0]},
        },
        "dispatchables": {"hardmax": {"type": "DML_OPERATOR_ACTIVATION_HARDMAX1", "desc": {
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [2, 3]},
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2, 3]},
            "AxisCount": axis_count, "Axes": [0]}}},
        "commands": [
            {"type": "dispatch", "dispatchable": "hardmax",
             "bindings": {"InputTensor": "in", "OutputTensor": "out"}},
            {"type": "print", "resource": "out"},
        ],
    })  # fmt: skip


def test_a_dxdispatch_model_runs_and_axis_count_must_count_axes():
    assert dml.load_dxdispatch(_model(1)).run() == ["Resource 'out': 0, 1, 0, 1, 0, 1"]
    with pytest.raises(dml.errors.InvalidArgumentError, match="the length of axes") as error:
        dml.load_dxdispatch(_model(2))
    assert error.value.field == "dispatchables.hardmax.desc.AxisCount"


# --- onnxruntime: Softmax, LogSoftmax and Hardmax -------------------------------------------------


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("name", sorted(FACES))
def test_onnxruntime_agrees(name, axis):
    # ONNX's opset-13 operators normalize one axis; values of every sign and size, ties,
    # -0.0 and -inf (NaN and +inf, where both give NaN rows, are in test_special_values).
    onnx_name = {"SOFTMAX": "Softmax", "LOG_SOFTMAX": "LogSoftmax", "HARDMAX": "Hardmax"}[name]
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((16, 9, 12)) * rng.choice([0.5, 4, 40], (16, 1, 1))).astype(np.float32)
    x[rng.random(x.shape) < 0.2] = 1.0  # ties
    x[rng.random(x.shape) < 0.05] = -0.0
    x[rng.random(x.shape) < 0.05] = -np.inf
    theirs = helpers.run_onnx_node(onnx_name, x, axis=axis).astype(np.float64)
    ours = np.asarray(FACES[name](x, axis)).astype(np.float64)
    if name == "HARDMAX":
        np.testing.assert_array_equal(ours, theirs)
        return
    # Both round: each is within the bound this module states of the float64 value.
    axes = (axis % x.ndim,)
    want = BY_NAME[name].reference(x, axes)
    top = np.max(x.astype(np.float64), axis=axes, keepdims=True)
    with np.errstate(invalid="ignore"):
        distance = np.abs(x - top)
    if name == "SOFTMAX":
        bound = checking.softmax_ulps(distance, x.shape[axis])
        normal = want >= np.finfo(np.float32).tiny
        for got in (ours, theirs):
            assert np.all(_ulps(got, want, np.float32)[normal] <= bound[normal])
            assert np.all(np.abs(got - want)[~normal] <= np.finfo(np.float32).tiny)
        return
    total = np.log(np.sum(np.exp(x.astype(np.float64) - top), axis=axes, keepdims=True))
    with np.errstate(invalid="ignore"):
        size = np.maximum(np.maximum(1.0, distance), total)
    for got in (ours, theirs):
        assert np.all(_ulps(got, want, np.float32, size) <= checking.LOG_SOFTMAX_ULPS)


def test_the_desc_face_reads_a_broadcast_input_through_zero_strides():
    # Each row is one value read three times (a zero stride): a third each, 1 then 0s.
    sizes = (1, 1, 2, 3)
    tensor = dml.TensorDesc(data_type=T.FLOAT32, sizes=sizes, strides=(0, 0, 1, 0))
    out = dml.TensorDesc(data_type=T.FLOAT32, sizes=sizes)
    buffer = np.array([2.0, -7.0], np.float32)
    for kind, want in (
        ("ACTIVATION_SOFTMAX", np.full(sizes, np.float32(1 / 3))),
        ("ACTIVATION_HARDMAX", np.tile(np.array([1, 0, 0], np.float32), (1, 1, 2, 1))),
    ):
        desc = softmax.DESCS[kind](input_tensor=tensor, output_tensor=out)
        np.testing.assert_array_equal(dml.compile_operator(desc)(buffer), want)
