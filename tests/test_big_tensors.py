"""Operands of more than 2**31 elements: 64-bit offsets reach the far end exactly.

Skipped on CPU (the operands take several GiB); run on a GPU with x64 on, as
``PYTHONPATH=. python3 -m pytest -q tests/test_big_tensors.py``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import dmljax as dml

pytestmark = pytest.mark.skipif(
    jax.default_backend() == "cpu", reason="needs an accelerator with > 8 GiB of memory"
)

LONG = 2**31 + 2**20  # one axis longer than int32 can count
ROWS, COLUMNS = 2**16 + 16, 2**15  # 2**31 + 2**19 elements, each axis small


def _pattern(shape: tuple[int, ...]) -> jax.Array:
    """int8 values that tell every position apart modulo 127, built on the device."""

    @jax.jit
    def build() -> jax.Array:
        flat = lax.iota(np.int64, int(np.prod(shape))).reshape(shape)
        return (flat % 127).astype(jnp.int8)

    return build()


@jax.jit
def _total(x: jax.Array) -> jax.Array:
    # Fused with the widening, unlike an eager astype of the whole operand.
    return jnp.sum(x.astype(jnp.int32))


def _expected(flat_positions: np.ndarray) -> np.ndarray:
    return (flat_positions % 127).astype(np.int8)


@pytest.fixture(autouse=True)
def x64():
    with jax.enable_x64(True):
        yield


def test_gather_and_gather_elements_read_past_2_to_the_31():
    x = _pattern((LONG,))
    indices = np.array([LONG - 1, 2**31, 2**31 + 7, -1, -(2**31) - 5, 5], np.int64)
    positions = np.where(indices < 0, indices + LONG, indices)
    np.testing.assert_array_equal(dml.gather(x, indices, axis=0), _expected(positions))
    np.testing.assert_array_equal(dml.gather_elements(x, indices, axis=0), _expected(positions))
    desc = dml.GatherOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=dml.DataType.INT8, sizes=(LONG,)),
        indices_tensor=dml.TensorDesc(data_type=dml.DataType.UINT32, sizes=(3,)),
        output_tensor=dml.TensorDesc(data_type=dml.DataType.INT8, sizes=(3,)),
        axis=0,
        index_dimensions=1,
    )
    far = np.array([LONG - 1, 2**31 + 3, 2**32 - 1], np.uint32)  # the last one clamps
    got = dml.compile_operator(desc)(x, far)
    np.testing.assert_array_equal(got, _expected(np.array([LONG - 1, 2**31 + 3, LONG - 1])))


def test_scatter_writes_past_2_to_the_31():
    x = jnp.zeros((LONG,), jnp.int8)
    indices = np.array([LONG - 1, 2**31 + 3, -2, LONG], np.int64)  # the last one is dropped
    updates = np.array([1, 2, 3, 4], np.int8)
    out = dml.scatter(x, indices, updates, axis=0)
    np.testing.assert_array_equal(out[np.array([LONG - 1, 2**31 + 3, LONG - 2])], [1, 2, 3])
    assert int(_total(out)) == 6


def test_element_ops_on_a_matrix_of_more_than_2_to_the_31_elements():
    x = _pattern((ROWS, COLUMNS))
    rows = np.array([[ROWS - 1, 0, -1, 2**16 + 3]], np.int64)  # into 4 columns
    got = dml.gather_elements(x, rows, axis=0)
    positions = np.where(rows < 0, rows + ROWS, rows) * COLUMNS + np.arange(4)
    np.testing.assert_array_equal(got, _expected(positions))
    last_row = jnp.full((1, 2), ROWS - 1, jnp.int64).at[0, 1].set(-1)
    written = dml.scatter(
        jnp.zeros((ROWS, COLUMNS), jnp.int8), last_row, jnp.array([[7, 9]], jnp.int8), axis=0
    )
    np.testing.assert_array_equal(written[ROWS - 1, :3], [7, 9, 0])
    assert int(_total(written)) == 16
