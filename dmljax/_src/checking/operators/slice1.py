"""SLICE1's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.slice1` declares, loaded on use only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking import reference, sweeps
from dmljax._src.checking.operator_checks import (
    FLOATS,
    INTS_8_32,
    TYPES_64,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.slice1 import SLICE1, Slice1OperatorDesc, slice1
from dmljax._src.tensor_desc import TensorDesc


def _window(rng: np.random.Generator, dim: int) -> tuple[int, int, int, int]:
    """One dimension's SLICE1 window inside ``[0, dim)``: offset, size, stride, output size.

    Windows of at least half of what follows their offset, strides of either
    sign up to 5 (now and then past the window: one element), and an output
    size anywhere in the page's range ``[1, 1 + (size - 1) // |stride|]``.
    """
    offset = int(rng.integers(0, dim // 2, endpoint=True))
    rest = dim - offset
    size = int(rng.integers(max(1, rest // 2), rest, endpoint=True))
    stride = int(rng.choice([-1, 1])) * int(rng.choice([1, 2, 3, 5], p=[0.4, 0.3, 0.2, 0.1]))
    output_size = int(rng.integers(1, 1 + (size - 1) // abs(stride), endpoint=True))
    return offset, size, stride, output_size


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.slice1`` of rank 1 to 3: a window per dimension, strides of either sign.

    Output sizes are drawn in their legal range, now and then one of them 0 (an
    empty result, which the functional face allows); a third of the draws pass
    no output sizes and get the largest ones.
    """
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 3, endpoint=True)), 1, 6)
    offsets, sizes, strides, output_sizes = (
        tuple(column) for column in zip(*(_window(rng, dim) for dim in shape), strict=True)
    )
    if rng.random() < 1 / 3:
        output_sizes = tuple(1 + (s - 1) // abs(t) for s, t in zip(sizes, strides, strict=True))
        passed_sizes = None
    else:
        if rng.random() < 0.1:
            emptied = int(rng.integers(len(shape)))
            output_sizes = tuple(0 if d == emptied else o for d, o in enumerate(output_sizes))
        passed_sizes = output_sizes
    xs = tuple(sweeps.draw_values(rng, shape, dtype) for _ in range(batch))
    window = dict(offsets=offsets, sizes=sizes, strides=strides)
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} offsets {offsets} sizes {sizes} strides {strides} "
        f"output {'largest ' if passed_sizes is None else ''}{output_sizes}",
        fn=lambda x: slice1(x, **window, output_sizes=passed_sizes),
        batch=tuple((x,) for x in xs),
        expected=tuple(reference.slice1(x, **window, output_sizes=output_sizes) for x in xs),
        linear_argnums=(0,),
    )


def _slice1_case(
    name: str,
    strides: tuple[int, int],
    jnp_fn: Callable[[jax.Array], jax.Array],
    *,
    min_pct_of_copy: float | None = None,
) -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        side = 1024 if quick else 8192  # 4 MiB / 256 MiB of f32
        return (operands.normal(key, (side, side)),)

    def bytes_moved(args: Sequence[jax.Array]) -> int:
        # Useful bytes: the elements copied, read once and written once. A strided
        # window touches more (whole 32 B sectors) than it uses (performance.md §2.3).
        return 2 * operands.output_nbytes(jnp_fn, args)

    return Case(
        name=name,
        operator="SLICE1",
        make_args=make_args,
        dmljax_fn=lambda x: slice1(x, offsets=(0, 0), sizes=x.shape, strides=strides),
        jnp_fn=jnp_fn,
        bytes_moved=bytes_moved,
        min_pct_of_copy=min_pct_of_copy,
    )


def _bench() -> list[Case | EagerCase]:
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
            desc=lambda x: Slice1OperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                output_tensor=TensorDesc.from_array(x[::2, ::2]),
                input_window_offsets=(0, 0),
                input_window_sizes=x.shape,
                input_window_strides=(-2, -2),
            ),
            functional=lambda x: slice1(x, offsets=(0, 0), sizes=(8, 8), strides=(-2, -2)),
            jnp_fn=lambda x: x[::-2, ::-2],
            make_args=operands.tiny_operands,
        ),
    ]


DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_2_1: ((4, 5), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_3_0: ((1, 8), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_4_1: ((1, 8), FLOATS | INTS_8_32 | TYPES_64, None),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type
    sizes = (1,) * (rank - 1) + (5,)
    out = (1,) * (rank - 1) + (2,)
    desc = Slice1OperatorDesc(
        input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        output_tensor=TensorDesc(data_type=data_type, sizes=out),
        input_window_offsets=(0,) * rank,
        input_window_sizes=sizes,
        input_window_strides=(1,) * (rank - 1) + (-3,),
    )
    return desc, (data_of(sizes, data_type),)


CHECKS = OperatorChecks(
    SLICE1,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    sweep=_sweep,
    bench=_bench,
)
