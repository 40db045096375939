"""PADDING's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.padding` declares, loaded on use only.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
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
from dmljax._src.ops.padding import PADDING, PaddingMode, PaddingOperatorDesc, pad
from dmljax._src.tensor_desc import TensorDesc


def doc_example_face(example: Any) -> jax.Array:
    """A PADDING or PADDING1 doc example through :func:`dmljax.pad`."""
    desc = example.desc
    return pad(
        example.inputs[0],
        desc.start_padding,
        desc.end_padding,
        mode=desc.padding_mode,
        value=desc.padding_value,
    )


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.pad`` of rank 1 to 3 in every mode, paddings from cropping to past the size."""
    mode = PaddingMode(int(rng.integers(len(PaddingMode))))
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 3, endpoint=True)), 3, 4)
    # A crop on one side only: REFLECTION keeps at least the two elements it mirrors.
    start = tuple(int(rng.integers(-1, 2 * s, endpoint=True)) for s in shape)
    end = tuple(int(rng.integers(0, 2 * s, endpoint=True)) for s in shape)
    # CONSTANT pads with 0 here, to stay linear for the derivative checks; the tests take others.
    value = 0 if mode is PaddingMode.CONSTANT else int(rng.integers(0, 2))
    xs = tuple(sweeps.draw_values(rng, shape, dtype) for _ in range(batch))
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} {mode.function_name} {start} {end}",
        fn=lambda x: pad(x, start, end, mode=mode, value=value),
        batch=tuple((x,) for x in xs),
        expected=tuple(
            reference.pad(x, start, end, mode=mode.function_name, value=value) for x in xs
        ),
        linear_argnums=(0,),
    )


# jnp.pad's name for each mode.
_JNP_MODES = {
    PaddingMode.CONSTANT: "constant",
    PaddingMode.EDGE: "edge",
    PaddingMode.REFLECTION: "reflect",
    PaddingMode.SYMMETRIC: "symmetric",
    PaddingMode.WRAP: "wrap",
}


def _pad_case(mode: PaddingMode) -> Case:
    widths = ((64, 64), (64, 64))

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        side = 512 if quick else 16384  # 1 MiB / 1 GiB of f32
        return (operands.normal(key, (side, side)),)

    def jnp_pad(x: jax.Array) -> jax.Array:
        return jnp.pad(x, widths, mode=_JNP_MODES[mode])

    def dml_pad(x: jax.Array) -> jax.Array:
        return pad(x, (64, 64), (64, 64), mode=mode)

    return Case(
        name=f"pad {mode.function_name}",
        operator="PADDING",
        make_args=make_args,
        dmljax_fn=dml_pad,
        jnp_fn=jnp_pad,
        bytes_moved=lambda args: args[0].nbytes + operands.output_nbytes(jnp_pad, args),
    )


def _bench() -> list[Case | EagerCase]:
    """PADDING of a 16384x16384 f32 by 64 on every side in each mode, against ``jnp.pad``."""
    return [
        *(_pad_case(mode) for mode in PaddingMode),
        EagerCase(
            name="pad eager",
            operator="PADDING",
            desc=lambda x: PaddingOperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                output_tensor=TensorDesc.from_array(jnp.pad(x, 1)),
                padding_mode=PaddingMode.CONSTANT,
                start_padding=(1,) * x.ndim,
                end_padding=(1,) * x.ndim,
            ),
            functional=lambda x: pad(x, (1, 1), (1, 1)),  # 8x8: statics as a user writes them
            jnp_fn=lambda x: jnp.pad(x, 1),
            make_args=operands.tiny_operands,
        ),
    ]


DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: ((4, 5), FLOATS, None),
    FeatureLevel.FL_2_1: ((4, 5), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_3_1: ((1, 8), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_5_0: ((1, 8), FLOATS | INTS_8_32 | TYPES_64, None),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type
    sizes = (2,) * rank
    desc = PaddingOperatorDesc(
        input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        output_tensor=TensorDesc(data_type=data_type, sizes=(3,) * rank),
        padding_mode=PaddingMode.REFLECTION,
        padding_value=0.0,
        start_padding=(1,) * rank,
        end_padding=(0,) * rank,
    )
    return desc, (data_of(sizes, data_type),)


CHECKS = OperatorChecks(
    PADDING,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    doc_example_face=doc_example_face,
    sweep=_sweep,
    bench=_bench,
)
