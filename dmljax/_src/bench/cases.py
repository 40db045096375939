"""The fixed suite of ``python -m dmljax bench``: one function per operator.

Each function returns that operator's timed :class:`Case` s and its
:class:`EagerCase`; :data:`OPERATORS` lists the functions in report order. To
add an operator, write its function here and append it to :data:`OPERATORS`.
Full sizes follow performance.md §1 (working sets of at least 256 MiB); quick
sizes keep each case to a few MiB.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp

import dmljax as dml
from dmljax._src.bench.case import Case, EagerCase

__all__ = ["OPERATORS", "all_cases", "gather_cases", "tile_cases"]

_F32 = jnp.float32
_I32 = jnp.int32


def _output_nbytes(fn: Callable[..., jax.Array], args: Sequence[jax.Array]) -> int:
    out = jax.eval_shape(fn, *args)
    return out.size * out.dtype.itemsize


def _tile_case(repeats: tuple[int, int]) -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        side = 512 if quick else 4096  # 1 MiB / 64 MiB of f32
        return (jax.random.normal(key, (side, side), _F32),)

    def jnp_tile(x: jax.Array) -> jax.Array:
        return jnp.tile(x, repeats)

    def bytes_moved(args: Sequence[jax.Array]) -> int:
        # in + out; an input larger than L2 is re-read once per major repeat, so
        # DRAM traffic is out + repeats[0]·in (performance.md §2.4).
        return args[0].nbytes + _output_nbytes(jnp_tile, args)

    return Case(
        name=f"tile ({repeats[0]},{repeats[1]})",
        operator="TILE",
        make_args=make_args,
        dmljax_fn=lambda x: dml.tile(x, repeats),
        jnp_fn=jnp_tile,
        bytes_moved=bytes_moved,
    )


def _tile_eager() -> EagerCase:
    f32 = dml.DataType.FLOAT32

    def desc_op(x: jax.Array) -> Callable[..., jax.Array]:
        desc = dml.TileOperatorDesc(
            input_tensor=dml.TensorDesc(data_type=f32, sizes=x.shape),
            output_tensor=dml.TensorDesc(data_type=f32, sizes=(2 * x.shape[0], 2 * x.shape[1])),
            repeats=(2, 2),
        )
        return dml.compile_operator(desc)

    return EagerCase(
        name="tile eager",
        operator="TILE",
        make_args=lambda key: (jax.random.normal(key, (8, 8), _F32),),
        functional=lambda x: dml.tile(x, (2, 2)),
        desc_op=desc_op,
        jnp_fn=lambda x: jnp.tile(x, (2, 2)),
    )


def tile_cases() -> list[Case | EagerCase]:
    """TILE (2,2), (1,4) and (4,1) of a 4096x4096 f32, against ``jnp.tile``."""
    return [_tile_case((2, 2)), _tile_case((1, 4)), _tile_case((4, 1)), _tile_eager()]


def _gather_bytes(fn: Callable[..., jax.Array]) -> Callable[[Sequence[jax.Array]], int]:
    def bytes_moved(args: Sequence[jax.Array]) -> int:
        # Read the gathered slices, write them, read the indices: 2·out + idx.
        return 2 * _output_nbytes(fn, args) + args[1].nbytes

    return bytes_moved


def _gather_rows() -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        # An embedding table of 1 KiB rows: 1 GiB with 2^18 rows picked (256 MiB out).
        rows, width, picked = (2**14, 64, 2**12) if quick else (2**20, 256, 2**18)
        table_key, index_key = jax.random.split(key)
        table = jax.random.normal(table_key, (rows, width), _F32)
        return table, jax.random.randint(index_key, (picked,), 0, rows, _I32)

    def jnp_take(table: jax.Array, idx: jax.Array) -> jax.Array:
        return jnp.take(table, idx, axis=0)

    return Case(
        name="gather rows",
        operator="GATHER",
        make_args=make_args,
        dmljax_fn=lambda table, idx: dml.gather(table, idx, axis=0),
        jnp_fn=jnp_take,
        bytes_moved=_gather_bytes(jnp_take),
    )


def _gather_columns() -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        # 4096x16384 f32 (256 MiB); 8192 random columns (128 MiB out).
        rows, columns, picked = (512, 2048, 1024) if quick else (4096, 16384, 8192)
        x_key, index_key = jax.random.split(key)
        x = jax.random.normal(x_key, (rows, columns), _F32)
        return x, jax.random.randint(index_key, (picked,), 0, columns, _I32)

    def jnp_take(x: jax.Array, idx: jax.Array) -> jax.Array:
        return jnp.take(x, idx, axis=1)

    return Case(
        name="gather columns",
        operator="GATHER",
        make_args=make_args,
        dmljax_fn=lambda x, idx: dml.gather(x, idx, axis=1),
        jnp_fn=jnp_take,
        bytes_moved=_gather_bytes(jnp_take),
    )


def _gather_eager() -> EagerCase:
    def make_args(key: jax.Array) -> tuple[jax.Array, ...]:
        x_key, index_key = jax.random.split(key)
        x = jax.random.normal(x_key, (8, 8), _F32)
        # DirectML indices have the input's rank; (1, 4) with IndexDimensions 1.
        return x, jax.random.randint(index_key, (1, 4), 0, 8, _I32)

    def desc_op(x: jax.Array, idx: jax.Array) -> Callable[..., jax.Array]:
        f32, i32 = dml.DataType.FLOAT32, dml.DataType.INT32
        desc = dml.GatherOperatorDesc(
            input_tensor=dml.TensorDesc(data_type=f32, sizes=x.shape),
            indices_tensor=dml.TensorDesc(data_type=i32, sizes=idx.shape),
            output_tensor=dml.TensorDesc(data_type=f32, sizes=(idx.shape[1], x.shape[1])),
            axis=0,
            index_dimensions=1,
        )
        return dml.compile_operator(desc)

    return EagerCase(
        name="gather eager",
        operator="GATHER",
        make_args=make_args,
        functional=lambda x, idx: dml.gather(x, idx, axis=0),
        desc_op=desc_op,
        jnp_fn=lambda x, idx: jnp.take(x, idx, axis=0),
    )


def gather_cases() -> list[Case | EagerCase]:
    """GATHER of embedding rows (axis 0) and of columns (axis 1), against ``jnp.take``."""
    return [_gather_rows(), _gather_columns(), _gather_eager()]


OPERATORS: tuple[Callable[[], list[Case | EagerCase]], ...] = (tile_cases, gather_cases)


def all_cases() -> list[Case | EagerCase]:
    """Every case of every operator in :data:`OPERATORS`, in report order.

    >>> [case.name for case in all_cases()][:3]
    ['tile (2,2)', 'tile (1,4)', 'tile (4,1)']
    """
    return [case for operator in OPERATORS for case in operator()]
