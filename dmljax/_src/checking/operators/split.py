"""SPLIT's doc examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.split` declares, loaded on use only.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking import reference, sweeps
from dmljax._src.checking.doc_entries import Entry, tensor_desc_of
from dmljax._src.checking.operator_checks import (
    FLOATS,
    INTS_8_32,
    INTS_16_32,
    TYPES_64,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.split import SPLIT, SplitOperatorDesc, split
from dmljax._src.tensor_desc import TensorDesc


def _doc_example(e: Entry) -> SplitOperatorDesc:
    """A SPLIT example: the page gives each output apart, one entry each (``output_index``)."""
    input_tensor = tensor_desc_of(e["inputs"]["InputTensor"])
    axis = e["attrs"]["Axis"]
    outputs = []
    for size in e["attrs"]["OutputAxisSizes"]:
        sizes = list(input_tensor.sizes)
        sizes[axis] = size
        outputs.append(TensorDesc(data_type=input_tensor.data_type, sizes=tuple(sizes)))
    return SplitOperatorDesc(input_tensor=input_tensor, output_tensors=tuple(outputs), axis=axis)


def _doc_example_face(example: Any) -> tuple[jax.Array, ...]:
    desc = example.desc
    sizes = tuple(tensor.sizes[desc.axis] for tensor in desc.output_tensors)
    return split(example.inputs[0], sizes, axis=desc.axis)


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.split`` of rank 1 to 3 into 1 to 4 parts, empty ones too, or equal parts."""
    shape = list(sweeps.draw_shape(rng, int(rng.integers(1, 3, endpoint=True)), 1, 3))
    axis = int(rng.integers(-len(shape), len(shape)))
    parts = [int(n) for n in rng.integers(0, 3, size=int(rng.integers(1, 4, endpoint=True)))]
    shape[axis] = sum(parts)
    sizes: int | tuple[int, ...] = tuple(parts)
    if rng.random() < 0.25:
        sizes = len(parts)
        shape[axis] = 2 * len(parts)
    xs = tuple(sweeps.draw_values(rng, tuple(shape), dtype) for _ in range(batch))
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} sizes {sizes} axis {axis}",
        # The parts as the face returns them: joined again in the same jit (jnp.concatenate,
        # or JOIN of raveled parts), XLA:CPU computes bfloat16 and float8 reshapes and slices
        # in float32, which quiets NaN payloads, and the bit-exactness check could not run.
        fn=lambda x: split(x, sizes, axis=axis),
        batch=tuple((x,) for x in xs),
        expected=tuple(tuple(reference.split(x, sizes, axis=axis)) for x in xs),
        linear_argnums=(0,),
    )


def _split_case() -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        rows = 512 if quick else 65536  # 8 MiB / 1 GiB of f32
        return (operands.normal(key, (rows, 4096)),)

    return Case(
        name="split 8 parts",
        operator="SPLIT",
        make_args=make_args,
        dmljax_fn=lambda x: split(x, 8, axis=0),
        jnp_fn=lambda x: tuple(jnp.split(x, 8, axis=0)),
        bytes_moved=lambda args: 2 * args[0].nbytes,
    )


def _bench() -> list[Case | EagerCase]:
    """SPLIT of a 65536x4096 f32 into 8 row blocks, against ``jnp.split``."""
    return [
        _split_case(),
        EagerCase(
            name="split eager",
            operator="SPLIT",
            desc=lambda x: SplitOperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                output_tensors=(TensorDesc.from_array(x[:4]), TensorDesc.from_array(x[4:])),
                axis=0,
            ),
            functional=lambda x: split(x, 2, axis=0),
            jnp_fn=lambda x: tuple(jnp.split(x, 2, axis=0)),
            make_args=operands.tiny_operands,
        ),
    ]


DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: (
        (4, 4),
        FLOATS | INTS_16_32,
        None,
    ),
    FeatureLevel.FL_2_1: ((4, 4), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_3_0: ((1, 8), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_4_1: ((1, 8), FLOATS | INTS_8_32 | TYPES_64, None),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type
    whole = (2,) * (rank - 1) + (3,)
    desc = SplitOperatorDesc(
        input_tensor=TensorDesc(data_type=data_type, sizes=whole),
        output_tensors=tuple(
            TensorDesc(data_type=data_type, sizes=(2,) * (rank - 1) + (n,)) for n in (1, 2)
        ),
        axis=rank - 1,
    )
    return desc, (data_of(whole, data_type),)


# The sizes must add up to the split dimension: no symbol stands there.
def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    return error.field == "sizes"


CHECKS = OperatorChecks(
    SPLIT,
    fixed_size=_fixed_size,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    doc_example=_doc_example,
    doc_example_face=_doc_example_face,
    sweep=_sweep,
    bench=_bench,
)
