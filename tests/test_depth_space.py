"""SPACE_TO_DEPTH[1] and DEPTH_TO_SPACE[1], the two directions of one family: both orders
on both faces against the index-by-index references, each direction as the other's
inverse, against onnxruntime's SpaceToDepth and DepthToSpace, and their own rules.
Transformations, support tables and the bad input every operator shares are the
cross-cutting suites'."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import hypothesis
import jax
import numpy as np
import pytest
from hypothesis import strategies as st

import dmljax as dml
from dmljax._src.checking.operators.depth_to_space import reference_depth_to_space
from dmljax._src.checking.operators.space_to_depth import reference_space_to_depth
from tests import helpers

T = dml.DataType
ORDERS = {"DCR": dml.DepthSpaceOrder.DEPTH_COLUMN_ROW, "CRD": dml.DepthSpaceOrder.COLUMN_ROW_DEPTH}


@dataclasses.dataclass(frozen=True)
class Direction:
    """One direction of the family, as the tests below need it."""

    name: str
    to_depth: bool  # SPACE_TO_DEPTH: the block divides H and W; else C by block**2
    face: Callable[..., Any]
    inverse: Callable[..., Any]
    reference: Callable[..., np.ndarray]
    descs: tuple[Any, Any]  # the older desc (DCR only) and the newer (with order)
    onnx: str
    onnx_orders: tuple[str, ...]  # what onnxruntime's CPU kernel implements for float32


DIRECTIONS = [
    Direction("space_to_depth", True, dml.space_to_depth, dml.depth_to_space,
              reference_space_to_depth,
              (dml.SpaceToDepthOperatorDesc, dml.SpaceToDepth1OperatorDesc),
              "SpaceToDepth", ("DCR",)),
    Direction("depth_to_space", False, dml.depth_to_space, dml.space_to_depth,
              reference_depth_to_space,
              (dml.DepthToSpaceOperatorDesc, dml.DepthToSpace1OperatorDesc),
              "DepthToSpace", ("DCR", "CRD")),
]  # fmt: skip
each_direction = pytest.mark.parametrize("way", DIRECTIONS, ids=lambda way: way.name)


@st.composite
def blocked_nchw(
    draw: st.DrawFn, way: Direction, *, lead: int = 1, dtypes: Any = None
) -> tuple[np.ndarray, int]:
    """``(x, block)``: distinct values of shape ``(..., C, H, W)`` that the block divides
    as ``way`` needs."""
    block = draw(st.integers(1, 4 if way.to_depth else 3))
    batch = draw(st.lists(st.integers(1, 2), min_size=lead, max_size=lead))
    c, h, w = (draw(st.integers(1, 3)) for _ in range(3))
    shape = (c, h * block, w * block) if way.to_depth else (c * block * block, h, w)
    choices = dtypes or (np.float32, np.float16, np.int8, np.uint32, np.int32)
    dtype = draw(st.sampled_from(choices))
    full = (*batch, *shape)
    return np.arange(np.prod(full)).astype(dtype).reshape(full), block


def _desc(way: Direction, x: np.ndarray, block: int, order: str | None) -> Any:
    """The older desc (``order`` None) or the newer one, for 4-D ``x``."""
    data_type = T.from_dtype(x.dtype)
    tensors = {
        "input_tensor": dml.TensorDesc(data_type=data_type, sizes=x.shape),
        "output_tensor": dml.TensorDesc(data_type=data_type, sizes=way.reference(x, block).shape),
    }
    if order is None:
        return way.descs[0](**tensors, block_size=block)
    return way.descs[1](**tensors, block_size=block, order=ORDERS[order])


@each_direction
@hypothesis.given(data=st.data(), order=st.sampled_from(list(ORDERS)), lead=st.integers(0, 3))
def test_both_faces_match_the_reference_and_the_inverse_undoes_them(way, data, order, lead):
    # The face takes any number of leading dimensions (none: C, H, W alone); the descs are
    # 4-D, so they see the leading dimensions as one batch.
    x, block = data.draw(blocked_nchw(way, lead=lead))
    want = way.reference(x, block, order)
    np.testing.assert_array_equal(way.face(x, block, order=order), want)
    np.testing.assert_array_equal(way.inverse(want, block, order=order), x)
    x, want = (a.reshape((-1, *a.shape[-3:])) for a in (x, want))
    np.testing.assert_array_equal(dml.compile_operator(_desc(way, x, block, order))(x), want)
    if order == "DCR":  # the older desc has DCR's order
        np.testing.assert_array_equal(dml.compile_operator(_desc(way, x, block, None))(x), want)


@each_direction
@hypothesis.settings(max_examples=30)
@hypothesis.given(data=st.data())
def test_the_orders_onnxruntime_implements_match_it(way, data):
    x, block = data.draw(blocked_nchw(way, dtypes=(np.float32,)))
    order = data.draw(st.sampled_from(way.onnx_orders))
    modes = {"mode": order} if way.onnx == "DepthToSpace" else {}  # SpaceToDepth has none
    want = helpers.run_onnx_node(way.onnx, x, blocksize=block, **modes)
    np.testing.assert_array_equal(way.face(x, block, order=order), want)


def test_the_order_takes_directml_and_onnx_spellings():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    want = reference_space_to_depth(x, 2, "CRD")
    for order in ("CRD", dml.DepthSpaceOrder.COLUMN_ROW_DEPTH):
        np.testing.assert_array_equal(dml.space_to_depth(x, 2, order=order), want)
    assert (
        dml.DepthSpaceOrder.coerce("DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH", op="", field="")
        is dml.DepthSpaceOrder.COLUMN_ROW_DEPTH
    )


# --- Their own rules ------------------------------------------------------------------------------

_VALID = {  # a valid desc of each direction, (1, 4, 2, 2) <-> (1, 1, 4, 4)
    "space_to_depth": (dml.SpaceToDepth1OperatorDesc, (1, 1, 4, 4), (1, 4, 2, 2)),
    "depth_to_space": (dml.DepthToSpace1OperatorDesc, (1, 4, 2, 2), (1, 1, 4, 4)),
}


@pytest.mark.parametrize(
    ("name", "spoil", "field", "fragment"),
    [
        ("space_to_depth", {"block_size": 0}, "block_size", "at least 1"),
        ("space_to_depth", {"block_size": 3}, "input_tensor.sizes", "divisible by block_size 3"),
        ("depth_to_space", {"block_size": 0}, "block_size", "at least 1"),
        ("depth_to_space", {"block_size": 3}, "input_tensor.sizes",
         "divisible by block_size**2 = 9"),
        *((name, {"order": order}, "order", "DML_DEPTH_SPACE_ORDER")
          for name in _VALID for order in (2, "ZIGZAG")),
    ],
)  # fmt: skip
def test_the_desc_rules_name_the_field(name, spoil, field, fragment):
    desc, input_sizes, output_sizes = _VALID[name]
    fields = {
        "input_tensor": dml.TensorDesc(data_type=T.FLOAT32, sizes=input_sizes),
        "output_tensor": dml.TensorDesc(data_type=T.FLOAT32, sizes=output_sizes),
        "block_size": 2,
        "order": "DCR",
    }
    dml.compile_operator(desc(**fields))  # valid as it is
    with pytest.raises(dml.errors.InvalidArgumentError) as e:
        dml.compile_operator(desc(**{**fields, **spoil}))
    assert e.value.field == field
    assert fragment in str(e.value)


@pytest.mark.parametrize(
    ("name", "shape", "block", "field"),
    [
        ("space_to_depth", (4, 4), 2, "x"),
        ("space_to_depth", (1, 4, 6), 4, "x"),
        ("space_to_depth", (1, 4, 4), 0, "block_size"),
        ("space_to_depth", (1, 4, 4), 2.0, "block_size"),
        ("depth_to_space", (4, 4), 2, "x"),
        ("depth_to_space", (6, 2, 2), 2, "x"),
        ("depth_to_space", (4, 2, 2), 0, "block_size"),
        ("depth_to_space", (4, 2, 2), 2.0, "block_size"),
        ("space_to_depth", (1, 4, 4), 2, None),  # valid: (4, 2, 2)
        ("depth_to_space", (4, 2, 2), 2, None),  # valid: (1, 4, 4)
    ],
)
def test_the_face_refuses_what_it_cannot_regroup(name, shape, block, field):
    face = getattr(dml, name)
    x = np.zeros(shape, np.float32)
    for call in (face, jax.jit(face, static_argnums=1)):
        if field is None:
            assert call(x, block).shape == {(1, 4, 4): (4, 2, 2), (4, 2, 2): (1, 4, 4)}[shape]
            continue
        with pytest.raises(dml.errors.ArgumentError) as e:
            call(x, block)
        assert (e.value.op, e.value.field) == (f"dmljax.{name}", field)
