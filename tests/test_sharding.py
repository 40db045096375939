"""Every operator on a device mesh: NamedSharding under jit, and inside shard_map.

On CPU the mesh has the eight devices that tests/conftest.py asks XLA for; on a
machine with several GPUs it has the GPUs. A batch-sharded operand (the
gathered, scattered, sliced or tiled axes not sharded) must stay where it is:
the compiled program may not contain a collective.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

import dmljax as dml
from dmljax._src.checking.operators import all_checks

try:
    from jax import shard_map  # jax >= 0.7
except ImportError:  # pragma: no cover - older jax
    from jax.experimental.shard_map import shard_map  # type: ignore[no-redef]

T = dml.DataType
COLLECTIVES = ("all-gather", "all-reduce", "all-to-all", "collective-permute", "reduce-scatter")


def _mesh_devices() -> list[Any]:
    devices = jax.devices()
    return devices if len(devices) >= 2 else jax.devices("cpu")


DEVICES = _mesh_devices()
pytestmark = pytest.mark.skipif(len(DEVICES) < 2, reason="needs at least two devices")
N = len(DEVICES)
BATCH = 2 * N  # two rows per device


@pytest.fixture(scope="module")
def mesh() -> Mesh:
    return Mesh(np.array(DEVICES), ("batch",))


def _collectives(compiled: Any) -> list[str]:
    text = compiled.as_text()
    return [op for op in COLLECTIVES if re.search(rf"\s{op}(-start)?\(", text)]


def _random(shape: tuple[int, ...], dtype: Any = jnp.float32, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-100, 100, size=shape).astype(dtype)


def _unique_lines(shape: tuple[int, ...], axis: int, dim: int, seed: int = 1) -> np.ndarray:
    """Indices along ``axis`` that never repeat within a line (a permutation prefix each)."""
    rng = np.random.default_rng(seed)
    moved = list(shape)
    count = moved.pop(axis)
    lines = rng.random((*moved, dim)).argsort(axis=-1)[..., :count]
    return np.moveaxis(lines, -1, axis).astype(np.int32)


# Each case: the function of the arrays, the arrays, and which of them are batch-sharded.
Case = tuple[Callable[..., jax.Array], tuple[np.ndarray, ...], tuple[bool, ...]]


def _cases(batch: int) -> dict[str, Case]:
    """The cases for ``batch`` rows (the global arrays, or one device's rows in shard_map)."""
    x = _random((batch, 6, 5))
    rows = np.array([4, -1, 0, 9, 2], np.int32)  # negative and out of range too
    elements = _random((batch, 3, 5), np.int32, seed=2) % 8 - 2
    unique = _unique_lines((batch, 3, 5), axis=1, dim=6)
    updates = _random((batch, 3, 5), seed=3)
    duplicates = np.zeros((batch, 3, 5), np.int32)
    f32, i32 = T.FLOAT32, T.INT32

    gather_desc = dml.GatherOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(batch, 6, 5)),
        indices_tensor=dml.TensorDesc(data_type=i32, sizes=(1, 1, 5)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(batch, 5, 5)),
        axis=1,
        index_dimensions=1,
    )
    scatter_desc = dml.ScatterOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(batch, 6, 5)),
        indices_tensor=dml.TensorDesc(data_type=i32, sizes=(batch, 3, 5)),
        updates_tensor=dml.TensorDesc(data_type=f32, sizes=(batch, 3, 5)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(batch, 6, 5)),
        axis=1,
    )
    slice1_desc = dml.Slice1OperatorDesc(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(batch, 6, 5)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(batch, 3, 2)),
        input_window_offsets=(0, 1, 0),
        input_window_sizes=(batch, 5, 4),
        input_window_strides=(1, -2, 3),
    )
    gather_nd1_desc = dml.GatherNd1OperatorDesc(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(batch, 6, 5)),
        indices_tensor=dml.TensorDesc(data_type=i32, sizes=(batch, 4, 1)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(batch, 4, 5)),
        input_dimension_count=3,
        indices_dimension_count=3,
        batch_dimension_count=1,
    )
    scatter_nd_desc = dml.ScatterNdOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 6, 5)),
        indices_tensor=dml.TensorDesc(data_type=i32, sizes=(1, 3, 1)),
        updates_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 3, 5)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 6, 5)),
        input_dimension_count=2,
        indices_dimension_count=2,
    )
    row_ids = np.random.default_rng(6).integers(-7, 7, size=(batch, 4, 1)).astype(np.int32)
    unique_rows = _unique_lines((batch, 3, 1), axis=1, dim=6)
    row_updates = _random((batch, 3, 5), seed=7)
    gather_op = dml.compile_operator(gather_desc)
    scatter_op = dml.compile_operator(scatter_desc, deterministic=True)
    gather_nd1_op = dml.compile_operator(gather_nd1_desc)
    # SCATTER_ND addresses the leading dimensions: a batch of them is a vmap (or a desc
    # with a leading padding dimension, vmapped), whose batch is a batching dimension.
    scatter_nd_op = jax.vmap(dml.compile_operator(scatter_nd_desc))
    slice1_op = dml.compile_operator(slice1_desc)
    padding1_op = dml.compile_operator(
        dml.Padding1OperatorDesc(
            input_tensor=dml.TensorDesc(data_type=f32, sizes=(batch, 6, 5)),
            output_tensor=dml.TensorDesc(data_type=f32, sizes=(batch, 9, 17)),
            padding_mode=dml.PaddingMode.SYMMETRIC,
            padding_value_data_type=f32,
            start_padding=(0, 2, 5),
            end_padding=(0, 1, 7),
        )
    )
    join_op = dml.compile_operator(
        dml.JoinOperatorDesc(
            input_tensors=(
                dml.TensorDesc(data_type=f32, sizes=(batch, 6, 5)),
                dml.TensorDesc(data_type=f32, sizes=(batch, 3, 5)),
            ),
            output_tensor=dml.TensorDesc(data_type=f32, sizes=(batch, 9, 5)),
            axis=1,
        )
    )
    split_op = dml.compile_operator(
        dml.SplitOperatorDesc(
            input_tensor=dml.TensorDesc(data_type=f32, sizes=(batch, 6, 5)),
            output_tensors=(
                dml.TensorDesc(data_type=f32, sizes=(batch, 6, 2)),
                dml.TensorDesc(data_type=f32, sizes=(batch, 6, 3)),
            ),
            axis=2,
        )
    )
    return {
        "gather": (lambda x, i: dml.gather(x, i, axis=1), (x, rows), (True, False)),
        "gather desc": (gather_op, (x, rows.reshape(1, 1, 5)), (True, False)),
        "gather_elements": (
            lambda x, i: dml.gather_elements(x, i, axis=1),
            (x, elements),
            (True, True),
        ),
        "scatter": (
            lambda x, i, u: dml.scatter(x, i, u, axis=1),
            (x, unique, updates),
            (True, True, True),
        ),
        "scatter deterministic": (
            lambda x, i, u: dml.scatter(x, i, u, axis=1, deterministic=True),
            (x, duplicates, updates),
            (True, True, True),
        ),
        "scatter add": (
            lambda x, i, u: dml.scatter(x, i, u, axis=1, reduction="add"),
            # Quarters add up exactly in any order, which a GPU's atomics do not keep.
            (np.round(4 * x) / 4, duplicates, np.round(4 * updates) / 4),
            (True, True, True),
        ),
        "scatter desc": (scatter_op, (x, duplicates, updates), (True, True, True)),
        "gather_nd batch_dims": (
            lambda x, i: dml.gather_nd(x, i, batch_dims=1),
            (x, row_ids),
            (True, True),
        ),
        "gather_nd1 desc": (gather_nd1_op, (x, row_ids), (True, True)),
        "gather_nd vmapped": (
            jax.vmap(lambda x, i: dml.gather_nd(x, i)),
            (x, np.stack([row_ids[:, :, 0], row_ids[:, :, 0] % 5], axis=-1)),
            (True, True),
        ),
        "scatter_nd vmapped": (
            jax.vmap(lambda x, i, u: dml.scatter_nd(x, i, u)),
            (x, unique_rows, row_updates),
            (True, True, True),
        ),
        "scatter_nd deterministic vmapped": (
            jax.vmap(lambda x, i, u: dml.scatter_nd(x, i, u, deterministic=True)),
            (x, np.zeros_like(unique_rows), row_updates),
            (True, True, True),
        ),
        "scatter_nd add vmapped": (
            jax.vmap(lambda x, i, u: dml.scatter_nd(x, i, u, reduction="add")),
            (np.round(4 * x) / 4, np.zeros_like(unique_rows), np.round(4 * row_updates) / 4),
            (True, True, True),
        ),
        "scatter_nd desc vmapped": (
            lambda x, i, u: scatter_nd_op(x[:, None], i[:, None], u[:, None])[:, 0],
            (x, unique_rows, row_updates),
            (True, True, True),
        ),
        "slice1": (
            lambda x: dml.slice1(x, offsets=(0, 1, 0), sizes=(batch, 5, 4), strides=(1, -2, 3)),
            (x,),
            (True,),
        ),
        "slice1 desc": (slice1_op, (x,), (True,)),
        "tile": (lambda x: dml.tile(x, (1, 2, 3)), (x,), (True,)),
        **{
            f"pad {mode}": (
                lambda x, mode=mode: dml.pad(x, (0, 2, -1), (0, 9, 3), mode=mode, value=4),
                (x,),
                (True,),
            )
            for mode in ("constant", "edge", "reflection", "symmetric", "wrap")
        },
        "padding1 desc": (padding1_op, (x,), (True,)),
        "join": (
            lambda x, y: dml.join((x, y, x), axis=-2),
            (x, updates),
            (True, True),
        ),
        "join desc": (join_op, (x, updates), (True, True)),
        "split": (lambda x: dml.split(x, (2, 0, 4), axis=1)[2], (x,), (True,)),
        "split desc": (lambda x: split_op(x)[0], (x,), (True,)),
        "slice_grad": (
            lambda x: dml.slice_grad(
                x, (batch, 9, 11), offsets=(0, 0, 1), sizes=(batch, 9, 10), strides=(1, -1, 2)
            ),
            (x,),
            (True,),
        ),
    }


CASES = _cases(BATCH)
ROWS_PER_DEVICE = _cases(BATCH // N)


def _place(mesh: Mesh, arrays: tuple[np.ndarray, ...], sharded: tuple[bool, ...]):
    return tuple(
        jax.device_put(a, NamedSharding(mesh, P("batch") if s else P()))
        for a, s in zip(arrays, sharded, strict=True)
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_batch_sharded_inputs_give_the_unsharded_result_without_communication(mesh, name):
    fn, arrays, sharded = CASES[name]
    expected = jax.jit(fn)(*arrays)
    placed = _place(mesh, arrays, sharded)
    jitted = jax.jit(fn)
    result = jitted(*placed)
    np.testing.assert_array_equal(result, expected)
    assert result.sharding.is_equivalent_to(NamedSharding(mesh, P("batch")), result.ndim)
    assert _collectives(jitted.lower(*placed).compile()) == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_inside_shard_map_each_device_runs_its_rows(mesh, name):
    global_fn, arrays, sharded = CASES[name]
    fn = ROWS_PER_DEVICE[name][0]  # descs and windows of one device's rows
    specs = tuple(P("batch") if s else P() for s in sharded)
    local = shard_map(fn, mesh=mesh, in_specs=specs, out_specs=P("batch"))
    result = jax.jit(local)(*_place(mesh, arrays, sharded))
    np.testing.assert_array_equal(result, jax.jit(global_fn)(*arrays))


# Shardings that cut across the operator's own axes: XLA must move data, and the
# results are still exact.
CROSSING = {
    "gather along the sharded axis": (lambda x, i: dml.gather(x, i, axis=0), "rows"),
    "scatter along the sharded axis": (
        lambda x, i, u: dml.scatter(x, i, u, axis=0),
        "unique rows",
    ),
    "reversing the sharded axis": (
        lambda x: dml.slice1(x, offsets=(0, 0, 0), sizes=(BATCH, 6, 5), strides=(-1, 1, 1)),
        None,
    ),
    "tiling the sharded axis": (lambda x: dml.tile(x, (2, 1, 1)), None),
}


@pytest.mark.parametrize("name", sorted(CROSSING))
def test_shardings_across_the_operated_axis_stay_exact(mesh, name):
    fn, kind = CROSSING[name]
    x = _random((BATCH, 6, 5))
    if kind == "rows":
        rows = np.random.default_rng(5).integers(-BATCH, BATCH, size=BATCH).astype(np.int32)
        arrays: tuple[np.ndarray, ...] = (x, rows)
    elif kind == "unique rows":
        indices = _unique_lines((BATCH - 1, 6, 5), axis=0, dim=BATCH)
        arrays = (x, np.pad(indices, ((0, 1), (0, 0), (0, 0)), constant_values=BATCH))
        arrays = (*arrays, _random(arrays[1].shape, seed=4))
    else:
        arrays = (x,)
    placed = tuple(jax.device_put(a, NamedSharding(mesh, P("batch"))) for a in arrays)
    np.testing.assert_array_equal(jax.jit(fn)(*placed), jax.jit(fn)(*arrays))


def test_the_gradient_of_a_row_lookup_with_sharded_ids_equals_the_unsharded_one(mesh):
    """An embedding table replicated on every device, ids and cotangent weights sharded by
    batch: the table's gradient (a scatter-add of the rows' cotangents) is exact."""
    table = _random((10, 4), seed=8)
    ids = np.random.default_rng(9).integers(-10, 12, size=(BATCH, 3, 1)).astype(np.int32)
    # Quarters add up exactly in any order, so the summed cotangents compare bit for bit.
    weights = np.round(4 * _random((BATCH, 3, 4), seed=10)) / 4

    def loss(table, ids, weights):
        return jnp.sum(dml.gather_nd(table, ids) * weights)

    grad = jax.jit(jax.grad(loss))
    expected = grad(table, ids, weights)
    placed = (
        jax.device_put(table, NamedSharding(mesh, P())),
        jax.device_put(ids, NamedSharding(mesh, P("batch"))),
        jax.device_put(weights, NamedSharding(mesh, P("batch"))),
    )
    result = grad(*placed)
    np.testing.assert_array_equal(result, expected)
    assert result.sharding.is_fully_replicated


# --- Every face, from its companion's sweep: a batch sharded over the mesh -------------------

_SWEPT = [checks for checks in all_checks().values() if checks.sweep is not None]


# Faces whose lax function JAX itself all-gathers inside a nested jit (a face's program
# is one): jax 0.10.2 replicates chlo.erf there, `jax.jit(jax.jit(lax.erf))` included.
_JAX_GATHERS = {"DML_OPERATOR_ELEMENT_WISE_ERF": jax.lax.erf}


@pytest.mark.parametrize("checks", _SWEPT, ids=lambda c: c.operator.name)
def test_every_face_vmapped_over_a_sharded_batch_runs_without_communication(mesh, checks):
    # BATCH draws of the selftest sweep, stacked and sharded along the batch: each device
    # computes its own members, the result equals the unsharded one, and XLA moves nothing.
    if checks.operator.name in _JAX_GATHERS:
        x = jax.device_put(np.ones((BATCH, 3), np.float32), NamedSharding(mesh, P("batch")))
        nested = jax.jit(jax.jit(_JAX_GATHERS[checks.operator.name]))
        # When JAX keeps the batch sharded here, this fails: drop the entry.
        assert _collectives(nested.lower(x).compile()) != []
        pytest.skip(f"jax {jax.__version__} gathers its own function in a nested jit")
    case = checks.sweep(np.random.default_rng(3), checks.first_dtype, batch=BATCH)
    if not case.batch[0]:
        pytest.skip("a generator takes no array: there is no batch to shard")
    stacked = tuple(np.stack(column) for column in zip(*case.batch, strict=True))
    batched = jax.jit(jax.vmap(case.fn))
    placed = _place(mesh, stacked, (True,) * len(stacked))
    result = batched(*placed)
    for got, want in zip(jax.tree.leaves(result), jax.tree.leaves(batched(*stacked)), strict=True):
        np.testing.assert_array_equal(got, want, err_msg=case.label)
        if got.size:  # XLA places an empty result whole: no rows to keep apart
            assert got.sharding.is_equivalent_to(NamedSharding(mesh, P("batch")), got.ndim)
    assert _collectives(batched.lower(*placed).compile()) == [], case.label
