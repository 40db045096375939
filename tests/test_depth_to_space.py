"""DEPTH_TO_SPACE and DEPTH_TO_SPACE1: both orders on both faces against the index-by-index
reference, as SPACE_TO_DEPTH's inverse, against onnxruntime's DepthToSpace (DCR and CRD),
and their own rules. Transformations, support tables and the bad input every operator
shares are the cross-cutting suites'."""

from __future__ import annotations

from typing import Any

import hypothesis
import jax
import numpy as np
import pytest
from hypothesis import strategies as st

import dmljax as dml
from dmljax._src.checking.operators.depth_to_space import reference_depth_to_space
from tests import helpers

T = dml.DataType
ORDERS = helpers.DEPTH_SPACE_ORDERS
DESCS = (dml.DepthToSpaceOperatorDesc, dml.DepthToSpace1OperatorDesc)


def _desc(x: np.ndarray, block: int, order: str | None) -> Any:
    return helpers.depth_space_desc(
        DESCS, x, reference_depth_to_space(x, block).shape, block, order
    )


def nchw(lead: int = 1, dtypes: Any = None) -> Any:
    return helpers.blocked_nchw(to_depth=False, lead=lead, dtypes=dtypes)


@hypothesis.given(nchw(), st.sampled_from(["DCR", "CRD"]))
def test_both_faces_match_the_reference_and_invert_space_to_depth(case, order):
    x, block = case
    want = reference_depth_to_space(x, block, order)
    np.testing.assert_array_equal(dml.depth_to_space(x, block, order=order), want)
    np.testing.assert_array_equal(dml.compile_operator(_desc(x, block, order))(x), want)
    if order == "DCR":
        np.testing.assert_array_equal(dml.compile_operator(_desc(x, block, None))(x), want)
    np.testing.assert_array_equal(dml.space_to_depth(want, block, order=order), x)


@hypothesis.given(nchw(lead=0), st.integers(0, 2))
def test_the_face_takes_any_number_of_leading_dimensions(case, extra):
    x, block = case
    x = x.reshape((1,) * extra + x.shape)
    for order in ORDERS:
        np.testing.assert_array_equal(
            dml.depth_to_space(x, block, order=order), reference_depth_to_space(x, block, order)
        )


# onnxruntime's CPU DepthToSpace implements float32 and float64 (and uint8 for DCR).
@hypothesis.settings(max_examples=30)
@hypothesis.given(nchw(dtypes=(np.float32,)), st.sampled_from(["DCR", "CRD"]))
def test_both_orders_match_onnxruntime(case, order):
    x, block = case
    want = helpers.run_onnx_node("DepthToSpace", x, blocksize=block, mode=order)
    np.testing.assert_array_equal(dml.depth_to_space(x, block, order=order), want)


# --- Its own rules -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spoil", "field", "fragment"),
    [
        ({"block_size": 0}, "block_size", "at least 1"),
        ({"block_size": 3}, "input_tensor.sizes", "divisible by block_size**2 = 9"),
        ({"order": 2}, "order", "DML_DEPTH_SPACE_ORDER"),
    ],
)
def test_the_desc_rules_name_the_field(spoil, field, fragment):
    fields = {
        "input_tensor": dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 8, 2, 2)),
        "output_tensor": dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 2, 4, 4)),
        "block_size": 2,
        "order": "CRD",
    }
    with pytest.raises(dml.errors.InvalidArgumentError) as e:
        dml.compile_operator(dml.DepthToSpace1OperatorDesc(**{**fields, **spoil}))
    assert e.value.field == field
    assert fragment in str(e.value)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((np.zeros((4, 4), np.float32), 2), "x"),
        ((np.zeros((6, 2, 2), np.float32), 2), "x"),
        ((np.zeros((4, 2, 2), np.float32), 0), "block_size"),
        ((np.zeros((4, 2, 2), np.float32), 2), None),
    ],
)
def test_the_face_refuses_what_it_cannot_group(args, field):
    for call in (dml.depth_to_space, jax.jit(dml.depth_to_space, static_argnums=1)):
        if field is None:
            assert call(*args).shape == (1, 4, 4)
            continue
        with pytest.raises(dml.errors.ArgumentError) as e:
            call(*args)
        assert (e.value.op, e.value.field) == ("dmljax.depth_to_space", field)
