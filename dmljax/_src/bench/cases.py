"""The fixed suite of ``python -m dmljax bench``: one function per operator.

Each function returns that operator's timed :class:`Case` s and its
:class:`EagerCase`; :data:`OPERATORS` lists the functions in report order. To
add an operator, write its function here and append it to :data:`OPERATORS`.
Full sizes follow performance.md §1 (working sets of at least 256 MiB); quick
sizes keep each case to a few MiB.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
from jax import lax

import dmljax as dml
from dmljax._src.bench.case import Case, EagerCase

__all__ = [
    "OPERATORS",
    "all_cases",
    "gather_cases",
    "gather_elements_cases",
    "scatter_cases",
    "slice1_cases",
    "strided_cases",
    "tile_cases",
]

_F32 = jnp.float32
_I32 = jnp.int32


def _output_nbytes(fn: Callable[..., jax.Array], args: Sequence[jax.Array]) -> int:
    out = jax.eval_shape(fn, *args)
    return out.size * out.dtype.itemsize


def _operand_and_indices(
    key: jax.Array, shape: tuple[int, ...], index_shape: tuple[int, ...], bound: int
) -> tuple[jax.Array, jax.Array]:
    """A normal f32 array of ``shape`` and int32 indices of ``index_shape`` below ``bound``."""
    x_key, index_key = jax.random.split(key)
    x = jax.random.normal(x_key, shape, _F32)
    return x, jax.random.randint(index_key, index_shape, 0, bound, _I32)


def _tiny_operands(
    key: jax.Array, index_shape: tuple[int, ...] | None = None
) -> tuple[jax.Array, ...]:
    """An eager case's operands: an 8x8 f32 and, given a shape, int32 indices below 8."""
    x, idx = _operand_and_indices(key, (8, 8), index_shape or (), 8)
    return (x,) if index_shape is None else (x, idx)


def _like(x: jax.Array) -> dml.TensorDesc:
    return dml.TensorDesc.from_array(x)


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


def tile_cases() -> list[Case | EagerCase]:
    """TILE (2,2), (1,4) and (4,1) of a 4096x4096 f32, against ``jnp.tile``."""
    return [
        _tile_case((2, 2)),
        _tile_case((1, 4)),
        _tile_case((4, 1)),
        EagerCase(
            name="tile eager",
            operator="TILE",
            desc=lambda x: dml.TileOperatorDesc(
                input_tensor=_like(x), output_tensor=_like(jnp.tile(x, (2, 2))), repeats=(2, 2)
            ),
            functional=lambda x: dml.tile(x, (2, 2)),
            jnp_fn=lambda x: jnp.tile(x, (2, 2)),
            make_args=_tiny_operands,
        ),
    ]


def _gather_bytes(fn: Callable[..., jax.Array]) -> Callable[[Sequence[jax.Array]], int]:
    def bytes_moved(args: Sequence[jax.Array]) -> int:
        # Read the gathered slices, write them, read the indices: 2·out + idx.
        return 2 * _output_nbytes(fn, args) + args[1].nbytes

    return bytes_moved


def _gather_case(
    name: str,
    axis: int,
    quick_sizes: tuple[tuple[int, int], int],
    full_sizes: tuple[tuple[int, int], int],
    min_pct_of_copy: float | None = None,
) -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        shape, picked = quick_sizes if quick else full_sizes
        return _operand_and_indices(key, shape, (picked,), shape[axis])

    def jnp_take(x: jax.Array, idx: jax.Array) -> jax.Array:
        return jnp.take(x, idx, axis=axis)

    return Case(
        name=name,
        operator="GATHER",
        make_args=make_args,
        dmljax_fn=lambda x, idx: dml.gather(x, idx, axis=axis),
        jnp_fn=jnp_take,
        bytes_moved=_gather_bytes(jnp_take),
        min_pct_of_copy=min_pct_of_copy,
    )


def gather_cases() -> list[Case | EagerCase]:
    """GATHER of embedding rows (axis 0) and of columns (axis 1), against ``jnp.take``."""
    return [
        # An embedding table of 1 KiB rows: 1 GiB with 2^18 rows picked (256 MiB out). Rows
        # of 1 KiB stream like a copy (jnp: 95 % of it on an H100).
        _gather_case(
            "gather rows", 0, ((2**14, 64), 2**12), ((2**20, 256), 2**18), min_pct_of_copy=85.0
        ),
        # 4096x16384 f32 (256 MiB); 8192 random columns (128 MiB out).
        _gather_case("gather columns", 1, ((512, 2048), 1024), ((4096, 16384), 8192)),
        EagerCase(
            name="gather eager",
            operator="GATHER",
            desc=lambda x, idx: dml.GatherOperatorDesc(
                input_tensor=_like(x),
                indices_tensor=_like(idx),
                output_tensor=_like(x[:4]),
                axis=0,
                index_dimensions=1,
            ),
            functional=lambda x, idx: dml.gather(x, idx, axis=0),
            jnp_fn=lambda x, idx: jnp.take(x, idx, axis=0),
            make_args=lambda key: _tiny_operands(key, index_shape=(1, 4)),
        ),
    ]


def _gather_elements_case(axis: int, target_ratio: float) -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        # 4096x16384 f32 (256 MiB) and one random int32 index per element (256 MiB).
        shape = (256, 2048) if quick else (4096, 16384)
        return _operand_and_indices(key, shape, shape, shape[axis])

    def jnp_take_along(x: jax.Array, idx: jax.Array) -> jax.Array:
        return jnp.take_along_axis(x, idx, axis=axis)

    return Case(
        name=f"gather_elements axis {axis}",
        operator="GATHER_ELEMENTS",
        make_args=make_args,
        dmljax_fn=lambda x, idx: dml.gather_elements(x, idx, axis=axis),
        jnp_fn=jnp_take_along,
        bytes_moved=_gather_bytes(jnp_take_along),  # out + idx + out, as for GATHER
        target_ratio=target_ratio,
    )


def gather_elements_cases() -> list[Case | EagerCase]:
    """GATHER_ELEMENTS of a 4096x16384 f32 along axis 1 and 0, against ``jnp.take_along_axis``.

    Along axis 0 dmljax must be 2.5x faster than that direct form, whose reads
    stride across rows: it moves the axis last (performance.md §2.1).
    """
    return [
        _gather_elements_case(axis=1, target_ratio=1.05),
        _gather_elements_case(axis=0, target_ratio=1 / 2.5),
        EagerCase(
            name="gather_elements eager",
            operator="GATHER_ELEMENTS",
            desc=lambda x, idx: dml.GatherElementsOperatorDesc(
                input_tensor=_like(x), indices_tensor=_like(idx), output_tensor=_like(x), axis=1
            ),
            functional=lambda x, idx: dml.gather_elements(x, idx, axis=1),
            jnp_fn=lambda x, idx: jnp.take_along_axis(x, idx, axis=1),
            make_args=lambda key: _tiny_operands(key, index_shape=(8, 8)),
        ),
    ]


def _distinct_indices(key: jax.Array, shape: tuple[int, int], picked: int, axis: int) -> jax.Array:
    """``picked`` distinct random indices into each line of ``shape`` along ``axis``.

    A random permutation per line (argsort of uniform noise, on the device), cut
    to its first ``picked``: unique targets, so that every scatter writes the
    same output and dmljax's can be checked bit for bit against jnp's.
    """
    order = jnp.argsort(jax.random.uniform(key, shape, _F32), axis=axis).astype(_I32)
    return lax.slice_in_dim(order, 0, picked, axis=axis)


def _scatter_args(axis: int) -> Callable[[jax.Array, bool], tuple[jax.Array, ...]]:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        # 4096x16384 f32 (256 MiB) takes half a line of updates: 8192 per row along
        # axis 1 (performance.md §1), 2048 per column along axis 0.
        shape = (256, 2048) if quick else (4096, 16384)
        picked = shape[axis] // 2
        x_key, index_key, update_key = jax.random.split(key, 3)
        x = jax.random.normal(x_key, shape, _F32)
        idx = _distinct_indices(index_key, shape, picked, axis)
        return x, idx, jax.random.normal(update_key, idx.shape, _F32)

    return make_args


def _jnp_scatter_axis1(x: jax.Array, idx: jax.Array, updates: jax.Array) -> jax.Array:
    rows = jnp.arange(x.shape[0])[:, None]
    return x.at[rows, idx].set(updates)


def _jnp_scatter_axis0(x: jax.Array, idx: jax.Array, updates: jax.Array) -> jax.Array:
    columns = jnp.arange(x.shape[1])[None, :]
    return x.at[idx, columns].set(updates)


def _scatter_out_of_place_bytes(args: Sequence[jax.Array]) -> int:
    # Copy the operand (read + write), read the updates and indices; the updates' writes
    # land in the copy and are not counted twice (performance.md §5 item 7).
    x, idx, updates = args
    return 2 * x.nbytes + updates.nbytes + idx.nbytes


def _scatter_in_place_bytes(args: Sequence[jax.Array]) -> int:
    # The operand is updated where it lies: read the updates and indices, write the updates.
    _, idx, updates = args
    return 2 * updates.nbytes + idx.nbytes


def _scatter_case(
    name: str,
    *,
    axis: int,
    deterministic: bool = False,
    donated: bool = False,
    target_ratio: float | None = 1.05,
) -> Case:
    return Case(
        name=name,
        operator="SCATTER",
        make_args=_scatter_args(axis),
        dmljax_fn=lambda x, idx, u: dml.scatter(x, idx, u, axis=axis, deterministic=deterministic),
        jnp_fn=_jnp_scatter_axis1 if axis == 1 else _jnp_scatter_axis0,
        bytes_moved=_scatter_in_place_bytes if donated else _scatter_out_of_place_bytes,
        donate_argnums=(0,) if donated else (),
        target_ratio=target_ratio,
    )


def _scatter_eager_args(key: jax.Array) -> tuple[jax.Array, ...]:
    (x,) = _tiny_operands(key)
    idx = _distinct_indices(key, (8, 8), 4, axis=1)
    return x, idx, x[:, :4]


def scatter_cases() -> list[Case | EagerCase]:
    """SCATTER of unique random indices into a 4096x16384 f32, against ``x.at[...].set``.

    Along axis 1 out of place and donated (in place); along axis 0, where dmljax
    must be 1.8x faster (it moves the axis last, performance.md §2.2); and
    ``deterministic=True`` along axis 1, reported only: its cost against the
    default (the "scatter axis 1" row) is the figure of interest.
    """
    return [
        _scatter_case("scatter axis 1", axis=1),
        _scatter_case("scatter axis 1 donated", axis=1, donated=True),
        _scatter_case("scatter axis 0", axis=0, target_ratio=1 / 1.8),
        _scatter_case(
            "scatter axis 1 deterministic", axis=1, deterministic=True, target_ratio=None
        ),
        EagerCase(
            name="scatter eager",
            operator="SCATTER",
            desc=lambda x, idx, u: dml.ScatterOperatorDesc(
                input_tensor=_like(x),
                indices_tensor=_like(idx),
                updates_tensor=_like(u),
                output_tensor=_like(x),
                axis=1,
            ),
            functional=lambda x, idx, u: dml.scatter(x, idx, u, axis=1),
            jnp_fn=_jnp_scatter_axis1,
            make_args=_scatter_eager_args,
        ),
    ]


def _slice1_case(
    name: str,
    strides: tuple[int, int],
    jnp_fn: Callable[[jax.Array], jax.Array],
    *,
    min_pct_of_copy: float | None = None,
) -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        side = 1024 if quick else 8192  # 4 MiB / 256 MiB of f32
        return (jax.random.normal(key, (side, side), _F32),)

    def bytes_moved(args: Sequence[jax.Array]) -> int:
        # Useful bytes: the elements copied, read once and written once. A strided
        # window touches more (whole 32 B sectors) than it uses (performance.md §2.3).
        return 2 * _output_nbytes(jnp_fn, args)

    return Case(
        name=name,
        operator="SLICE1",
        make_args=make_args,
        dmljax_fn=lambda x: dml.slice1(x, offsets=(0, 0), sizes=x.shape, strides=strides),
        jnp_fn=jnp_fn,
        bytes_moved=bytes_moved,
        min_pct_of_copy=min_pct_of_copy,
    )


def slice1_cases() -> list[Case | EagerCase]:
    """SLICE1 of an 8192x8192 f32 against basic indexing: ``x[::-1]`` and ``x[::-2, ::-2]``.

    The reversal moves every byte once, like a copy, and must run at 85 % of the
    copy's bandwidth as well as within 1.05x of jnp.
    """
    return [
        _slice1_case("slice1 reversal", (-1, 1), lambda x: x[::-1], min_pct_of_copy=85.0),
        _slice1_case("slice1 [::-2, ::-2]", (-2, -2), lambda x: x[::-2, ::-2]),
        EagerCase(
            name="slice1 eager",
            operator="SLICE1",
            desc=lambda x: dml.Slice1OperatorDesc(
                input_tensor=_like(x),
                output_tensor=_like(x[::2, ::2]),
                input_window_offsets=(0, 0),
                input_window_sizes=x.shape,
                input_window_strides=(-2, -2),
            ),
            functional=lambda x: dml.slice1(x, offsets=(0, 0), sizes=x.shape, strides=(-2, -2)),
            jnp_fn=lambda x: x[::-2, ::-2],
            make_args=_tiny_operands,
        ),
    ]


def _nhwc_desc(shape: tuple[int, int, int, int]) -> dml.TensorDesc:
    """NCHW sizes laid out channels-last: N, then H, then W, then C in memory."""
    _, c, h, w = shape
    return dml.TensorDesc(
        data_type=dml.DataType.FLOAT32, sizes=shape, strides=(h * w * c, 1, w * c, c)
    )


def _nchw_from_nhwc(buffer: jax.Array, shape: tuple[int, int, int, int]) -> jax.Array:
    n, c, h, w = shape
    return jnp.transpose(buffer.reshape(n, h, w, c), (0, 3, 1, 2))


def _strided_case(operator: str, desc_of: Callable[[dml.TensorDesc], object]) -> Case:
    quick_shape, full_shape = (4, 32, 14, 14), (64, 256, 56, 56)  # 100 KiB / 196 MiB of f32

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        shape = quick_shape if quick else full_shape
        return (jax.random.normal(key, (math.prod(shape),), _F32),)

    def shape_of(buffer: jax.Array) -> tuple[int, int, int, int]:
        return quick_shape if buffer.size == math.prod(quick_shape) else full_shape

    def dmljax_fn(buffer: jax.Array) -> jax.Array:
        return dml.compile_operator(desc_of(_nhwc_desc(shape_of(buffer))))(buffer)

    def jnp_fn(buffer: jax.Array) -> jax.Array:
        # The same op on an explicitly transposed dense array: TILE of repeats 1 and a
        # full SLICE1 window both copy it.
        return _nchw_from_nhwc(buffer, shape_of(buffer))[:, :, :, :]

    return Case(
        name=f"{operator.lower()} NHWC-strided input",
        operator=operator,
        make_args=make_args,
        dmljax_fn=dmljax_fn,
        jnp_fn=jnp_fn,
        bytes_moved=lambda args: 2 * args[0].nbytes,  # read the buffer, write the NCHW tensor
        target_ratio=1.1,
    )


def _dense(tensor: dml.TensorDesc) -> dml.TensorDesc:
    return dml.TensorDesc(data_type=tensor.data_type, sizes=tensor.sizes)


def strided_cases() -> list[Case | EagerCase]:
    """An NHWC-strided 64x256x56x56 f32 input to TILE (repeats 1) and to a full SLICE1
    window, against a transpose of the dense buffer: a permuted layout must lower to one
    transpose, with no gather of computed offsets (target 1.1x)."""
    return [
        _strided_case(
            "TILE",
            lambda nhwc: dml.TileOperatorDesc(
                input_tensor=nhwc, output_tensor=_dense(nhwc), repeats=(1, 1, 1, 1)
            ),
        ),
        _strided_case(
            "SLICE1",
            lambda nhwc: dml.Slice1OperatorDesc(
                input_tensor=nhwc,
                output_tensor=_dense(nhwc),
                input_window_offsets=(0, 0, 0, 0),
                input_window_sizes=nhwc.sizes,
                input_window_strides=(1, 1, 1, 1),
            ),
        ),
    ]


OPERATORS: tuple[Callable[[], list[Case | EagerCase]], ...] = (
    tile_cases,
    gather_cases,
    gather_elements_cases,
    scatter_cases,
    slice1_cases,
    strided_cases,
    # Operators that declare their cases next to their desc (Operator(bench=...)).
    *(op.bench for op in dml.OPERATORS if op.bench is not None),
)


def all_cases() -> list[Case | EagerCase]:
    """Every case of every operator in :data:`OPERATORS`, in report order.

    >>> [case.name for case in all_cases()][:3]
    ['tile (2,2)', 'tile (1,4)', 'tile (4,1)']
    """
    return [case for operator in OPERATORS for case in operator()]
