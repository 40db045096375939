"""SPACE_TO_DEPTH and SPACE_TO_DEPTH1: both orders on both faces against the index-by-index
reference and onnxruntime's SpaceToDepth, and their own rules. Transformations, support
tables and the bad input every operator shares are the cross-cutting suites'."""

from __future__ import annotations

from typing import Any

import hypothesis
import jax
import numpy as np
import pytest
from hypothesis import strategies as st

import dmljax as dml
from dmljax._src.checking.operators.space_to_depth import reference_space_to_depth
from tests import helpers

T = dml.DataType
ORDERS = helpers.DEPTH_SPACE_ORDERS
DESCS = (dml.SpaceToDepthOperatorDesc, dml.SpaceToDepth1OperatorDesc)


def _desc(x: np.ndarray, block: int, order: str | None) -> Any:
    return helpers.depth_space_desc(
        DESCS, x, reference_space_to_depth(x, block).shape, block, order
    )


def nchw(lead: int = 1, dtypes: Any = None) -> Any:
    return helpers.blocked_nchw(to_depth=True, lead=lead, dtypes=dtypes)


@hypothesis.given(nchw(), st.sampled_from(["DCR", "CRD"]))
def test_both_faces_match_the_reference(case, order):
    x, block = case
    want = reference_space_to_depth(x, block, order)
    np.testing.assert_array_equal(dml.space_to_depth(x, block, order=order), want)
    np.testing.assert_array_equal(dml.compile_operator(_desc(x, block, order))(x), want)
    if order == "DCR":
        np.testing.assert_array_equal(dml.compile_operator(_desc(x, block, None))(x), want)


@hypothesis.given(nchw(lead=0), st.integers(0, 2))
def test_the_face_takes_any_number_of_leading_dimensions(case, extra):
    x, block = case
    x = x.reshape((1,) * extra + x.shape)
    for order in ORDERS:
        np.testing.assert_array_equal(
            dml.space_to_depth(x, block, order=order), reference_space_to_depth(x, block, order)
        )


# onnxruntime's CPU SpaceToDepth implements float32 and float64 only.
@hypothesis.settings(max_examples=30)
@hypothesis.given(nchw(dtypes=(np.float32,)))
def test_dcr_matches_onnxruntime(case):
    x, block = case
    want = helpers.run_onnx_node("SpaceToDepth", x, blocksize=block)
    np.testing.assert_array_equal(dml.space_to_depth(x, block), want)


def test_the_order_takes_directml_and_onnx_spellings():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    want = reference_space_to_depth(x, 2, "CRD")
    for order in ("CRD", dml.DepthSpaceOrder.COLUMN_ROW_DEPTH):
        np.testing.assert_array_equal(dml.space_to_depth(x, 2, order=order), want)
    assert (
        dml.DepthSpaceOrder.coerce("DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH", op="", field="")
        is dml.DepthSpaceOrder.COLUMN_ROW_DEPTH
    )


# --- Its own rules -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spoil", "field", "fragment"),
    [
        ({"block_size": 0}, "block_size", "at least 1"),
        ({"block_size": 3}, "input_tensor.sizes", "divisible by block_size 3"),
        ({"order": 2}, "order", "DML_DEPTH_SPACE_ORDER"),
        ({"order": "ZIGZAG"}, "order", "DML_DEPTH_SPACE_ORDER"),
    ],
)
def test_the_desc_rules_name_the_field(spoil, field, fragment):
    x = np.zeros((1, 1, 4, 4), np.float32)
    fields = {"input_tensor": dml.TensorDesc.from_array(x), "block_size": 2, "order": "DCR"}
    fields["output_tensor"] = dml.TensorDesc(data_type=T.FLOAT32, sizes=(1, 4, 2, 2))
    with pytest.raises(dml.errors.InvalidArgumentError) as e:
        dml.compile_operator(dml.SpaceToDepth1OperatorDesc(**{**fields, **spoil}))
    assert e.value.field == field
    assert fragment in str(e.value)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((np.zeros((4, 4), np.float32), 2), "x"),
        ((np.zeros((1, 4, 6), np.float32), 4), "x"),
        ((np.zeros((1, 4, 4), np.float32), 0), "block_size"),
        ((np.zeros((1, 4, 4), np.float32), 2.0), "block_size"),
    ],
)
def test_the_face_refuses_what_it_cannot_split(args, field):
    for call in (dml.space_to_depth, jax.jit(dml.space_to_depth, static_argnums=1)):
        with pytest.raises(dml.errors.ArgumentError) as e:
            call(*args)
        assert (e.value.op, e.value.field) == ("dmljax.space_to_depth", field)
