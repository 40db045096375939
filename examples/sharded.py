"""Every operator on a device mesh: batch-sharded operands stay on their devices.

The operands are sharded along a batch axis that the operators leave whole; each device then
runs the operator on its own rows, and the compiled programs contain no collective. Sharding
the axis an operator works on (gathering along it, say) is also correct, but XLA must move
data between devices; the last case shows that.

On a CPU, this script asks XLA for eight host devices when no device count is set. When JAX
has already started (as under pytest), it uses the devices that exist, at least one.

Run: python examples/sharded.py
"""

import os

_DEVICES_FLAG = "--xla_force_host_platform_device_count"
if _DEVICES_FLAG not in os.environ.get("XLA_FLAGS", ""):
    # Read when JAX starts its CPU backend; it does not affect GPUs or TPUs.
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_DEVICES_FLAG}=8".strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

import dmljax as dml  # noqa: E402

try:
    from jax import shard_map
except ImportError:  # older jax
    from jax.experimental.shard_map import shard_map  # type: ignore[no-redef]

COLLECTIVES = ("all-gather", "all-reduce", "all-to-all", "collective-permute", "reduce-scatter")


def collectives(fn, *args):
    """The collective operations in the compiled program of ``jax.jit(fn)``."""
    text = jax.jit(fn).lower(*args).compile().as_text() or ""
    return [name for name in COLLECTIVES if f" {name}(" in text or f" {name}-start(" in text]


def main():
    devices = jax.devices()
    mesh = Mesh(np.array(devices), ("batch",))
    rows = 2 * len(devices)  # two rows per device
    batch = NamedSharding(mesh, P("batch"))
    replicated = NamedSharding(mesh, P())
    print(f"{len(devices)} {devices[0].platform} device(s); operands of {rows} rows")

    rng = np.random.default_rng(0)
    x = jax.device_put(rng.standard_normal((rows, 6, 5)).astype(np.float32), batch)
    picks = jax.device_put(np.array([4, -1, 0, 9, 2], np.int32), replicated)
    elements = jax.device_put(rng.integers(-2, 6, (rows, 3, 5)).astype(np.int32), batch)
    updates = jax.device_put(rng.standard_normal((rows, 3, 5)).astype(np.float32), batch)
    f32, i32 = dml.DataType.FLOAT32, dml.DataType.INT32
    gather_desc = dml.GatherOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(rows, 6, 5)),
        indices_tensor=dml.TensorDesc(data_type=i32, sizes=(1, 1, 5)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(rows, 5, 5)),
        axis=1,
        index_dimensions=1,
    )
    gather_op = dml.compile_operator(gather_desc)

    cases = {
        "tile (1, 2, 3)": (lambda x: dml.tile(x, (1, 2, 3)), (x,)),
        "gather axis 1": (lambda x, i: dml.gather(x, i, axis=1), (x, picks)),
        "gather desc, axis 1": (gather_op, (x, picks.reshape(1, 1, 5))),
        "gather_elements axis 1": (
            lambda x, i: dml.gather_elements(x, i, axis=1),
            (x, elements),
        ),
        "scatter axis 1, deterministic": (
            lambda x, i, u: dml.scatter(x, i, u, axis=1, deterministic=True),
            (x, elements, updates),
        ),
        "slice1 [:, 5:0:-2, ::3]": (
            lambda x: dml.slice1(x, offsets=(0, 1, 0), sizes=(rows, 5, 4), strides=(1, -2, 3)),
            (x,),
        ),
    }
    for name, (fn, args) in cases.items():
        out = jax.jit(fn)(*args)
        unsharded = jax.jit(fn)(*(np.asarray(a) for a in args))
        np.testing.assert_array_equal(out, unsharded)
        assert out.sharding.is_equivalent_to(batch, out.ndim), out.sharding
        found = collectives(fn, *args)
        assert not found, f"{name}: {found}"
        print(f"{name:32s} -> {out.shape}, batch-sharded, no collectives")

    # Inside shard_map each device sees its own rows, so a desc describes one device's block.
    local_rows = rows // len(devices)
    local_desc = dml.Slice1OperatorDesc(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(local_rows, 6, 5)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(local_rows, 6, 5)),
        input_window_offsets=(0, 0, 0),
        input_window_sizes=(local_rows, 6, 5),
        input_window_strides=(1, -1, 1),
    )
    local = shard_map(
        dml.compile_operator(local_desc), mesh=mesh, in_specs=(P("batch"),), out_specs=P("batch")
    )
    np.testing.assert_array_equal(jax.jit(local)(x), np.asarray(x)[:, ::-1])
    print(f"{'shard_map, SLICE1 desc per block':32s} -> reversed axis 1 on each device")

    # Gathering along the sharded axis itself: still exact, but XLA must communicate.
    along_batch = lambda x: dml.gather(x, jnp.arange(rows)[::-1], axis=0)
    np.testing.assert_array_equal(jax.jit(along_batch)(x), np.asarray(x)[::-1])
    found = collectives(along_batch, x)
    print(f"{'gather along the sharded axis':32s} -> exact; collectives: {found or 'none'}")


if __name__ == "__main__":
    main()
