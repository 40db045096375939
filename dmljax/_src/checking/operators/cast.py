"""CAST's reference, examples, selftest sweep and bench cases: what checks and measures
the operator :mod:`dmljax._src.ops.cast` declares, loaded on use only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking import sweeps
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
from dmljax._src.ops.cast import CAST, CastOperatorDesc, cast
from dmljax._src.tensor_desc import TensorDesc

__all__ = ["CHECKS", "reference_cast"]


def _float_to_int(value: float, dtype: np.dtype[Any]) -> int:
    """One value by the rule, in Python's exact integers: truncate, saturate, NaN to 0."""
    info = jnp.iinfo(dtype)  # NumPy's and ml_dtypes' integers alike
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return int(info.max) if value > 0 else int(info.min)
    return min(max(math.trunc(value), int(info.min)), int(info.max))


def _int_to_int(value: int, dtype: np.dtype[Any]) -> int:
    """One value's low bits, read as ``dtype`` (two's complement)."""
    info = jnp.iinfo(dtype)  # NumPy's and ml_dtypes' integers alike
    bits = info.bits
    low = value % (1 << bits)
    return low - (1 << bits) if info.min < 0 and low >= 1 << (bits - 1) else low


def reference_cast(x: np.ndarray, dtype: Any) -> np.ndarray:
    """CAST's rules in NumPy and Python integers, element by element (the oracle).

    >>> reference_cast(np.array([-1.5, 300.0, np.nan], np.float32), np.int8).tolist()
    [-1, 127, 0]
    """
    dtype = np.dtype(dtype)
    source = np.dtype(x.dtype)
    is_float = bool(jnp.issubdtype(source, jnp.floating))
    if dtype == np.bool_:
        return np.asarray(x.astype(np.float64) != 0 if is_float else x != 0)
    if jnp.issubdtype(dtype, jnp.integer):
        if is_float:
            values = [_float_to_int(float(v), dtype) for v in x.astype(np.float64).ravel()]
        else:
            values = [_int_to_int(int(v), dtype) for v in x.ravel()]
        return np.array(values, dtype=dtype).reshape(x.shape)
    # To a float: NumPy's conversion rounds to nearest even (an infinity beyond the range).
    with np.errstate(over="ignore"):
        return x.astype(dtype)


# The sweep's targets: from a float, the floats that hold each of its values (a cast is
# then linear, so the sweep's derivative checks hold); from an integer or bool, any type.
_WIDER_FLOATS = {
    np.dtype(np.float16): (np.float16, np.float32),
    np.dtype(jnp.bfloat16): (jnp.bfloat16, np.float32),
    np.dtype(np.float32): (np.float32,),
}


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.cast`` of rank 0 to 3: a float to the floats that hold it, others to any type.

    Narrowing float casts (rounding, overflow, float to integer) are drawn by the
    tests (tests/test_cast.py) against :func:`reference_cast`.
    """
    shape = sweeps.draw_shape(rng, int(rng.integers(0, 3, endpoint=True)), 1, 4)
    choices = _WIDER_FLOATS.get(np.dtype(dtype), sweeps.DATA_DTYPES)
    target = np.dtype(choices[int(rng.integers(len(choices)))])
    xs = tuple(sweeps.draw_values(rng, shape, dtype) for _ in range(batch))
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} to {target.name}",
        fn=lambda x: cast(x, target),
        batch=tuple((x,) for x in xs),
        expected=tuple(reference_cast(x, target) for x in xs),
        linear_argnums=(0,),
    )


def _cast_case(target: Any, jnp_fn: Any) -> Case:
    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        side = 512 if quick else 4096  # 1 MiB / 64 MiB of f32
        return (1000 * operands.normal(key, (side, side)),)

    def bytes_moved(args: Sequence[jax.Array]) -> int:
        return args[0].nbytes + operands.output_nbytes(jnp_fn, args)

    name = np.dtype(target).name
    return Case(
        name=f"cast float32 to {name}",
        operator="CAST",
        make_args=make_args,
        dmljax_fn=lambda x: cast(x, target),
        jnp_fn=jnp_fn,
        bytes_moved=bytes_moved,
    )


def _jnp_saturating_int8(x: jax.Array) -> jax.Array:
    # What a jnp user writes for the same result: NaN to 0, clip, then astype truncates.
    return jnp.where(jnp.isnan(x), 0, jnp.clip(x, -128, 127)).astype(jnp.int8)


def _bench() -> list[Case | EagerCase]:
    """CAST of a 4096x4096 f32 to float16 and to int8, against ``astype`` (and a clip)."""
    return [
        _cast_case(jnp.float16, lambda x: x.astype(jnp.float16)),
        _cast_case(jnp.int8, _jnp_saturating_int8),
        EagerCase(
            name="cast eager",
            operator="CAST",
            desc=lambda x: CastOperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                output_tensor=TensorDesc(data_type=DataType.FLOAT16, sizes=tuple(x.shape)),
            ),
            functional=lambda x: cast(x, jnp.float16),
            jnp_fn=lambda x: x.astype(jnp.float16),
            make_args=operands.tiny_operands,
        ),
    ]


_T = DataType
_INTS_8_16 = frozenset({_T.INT16, _T.INT8, _T.UINT16, _T.UINT8})
_WITH_32_64_INTS = FLOATS | INTS_8_32 | {_T.INT64, _T.UINT64}
# The CAST page's table. Input and output types are independent: the third entry holds
# the output's (where other operators hold their index input's).
DOCUMENTED_SUPPORT: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: ((4, 4), FLOATS | _INTS_8_16, FLOATS | _INTS_8_16),
    FeatureLevel.FL_3_0: ((4, 4), _WITH_32_64_INTS, _WITH_32_64_INTS),
    FeatureLevel.FL_3_1: ((1, 8), _WITH_32_64_INTS, _WITH_32_64_INTS),
    FeatureLevel.FL_4_1: ((1, 8), FLOATS | INTS_8_32 | TYPES_64, FLOATS | INTS_8_32 | TYPES_64),
}


def _support_case(
    rank: int, data_type: DataType, output_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    sizes = (2,) + (1,) * (rank - 1)
    desc = CastOperatorDesc(
        input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        output_tensor=TensorDesc(data_type=output_type, sizes=sizes),
    )
    return desc, (data_of(sizes, data_type),)


def _doc_example_face(example: Any) -> jax.Array:
    (x,) = example.inputs
    return cast(x, example.desc.output_tensor.data_type.dtype)


_SOURCE = (
    "dmljax: the DML_CAST_OPERATOR_DESC page (MicrosoftDocs/sdk-api, "
    "sdk-api-src/content/directml/ns-directml-dml_cast_operator_desc.md) has no example"
)


def _example(
    example_id: str, notes: str, source: tuple[str, list[Any]], output: tuple[str, list[Any]]
) -> dict[str, Any]:
    sizes = [1, 1, len(source[1]), len(source[1][0])]
    return {
        "id": example_id,
        "op": "DML_OPERATOR_CAST",
        "source": _SOURCE,
        "attrs": {},
        "inputs": {"InputTensor": {"sizes": sizes, "dtype": source[0], "data": [[source[1]]]}},
        "expected": {"sizes": sizes, "dtype": output[0], "data": [[output[1]]]},
        "notes": notes,
        "status": "dmljax",
    }


_NAN, _INF = float("nan"), float("inf")
EXAMPLES = (
    _example(
        "cast-dmljax-float-to-int8",
        "Float to integer truncates toward zero, saturates and turns NaN into 0.",
        ("FLOAT32", [[-2.7, -0.5, 0.5, 2.7], [127.9, 128.0, -129.0, _NAN]]),
        ("INT8", [[-2, 0, 0, 2], [127, 127, -128, 0]]),
    ),
    _example(
        "cast-dmljax-int32-to-uint8",
        "Integer to integer keeps the low 8 bits: 256 is 0, -1 is 255.",
        ("INT32", [[-1, 0, 255, 256], [257, -256, 1000, -129]]),
        ("UINT8", [[255, 0, 255, 0], [1, 0, 232, 127]]),
    ),
    _example(
        "cast-dmljax-float32-to-float16",
        "Float to float rounds to nearest even: 65520 is beyond float16's largest "
        "(65504) by half a step and becomes inf; 2049 is halfway and rounds to 2048.",
        ("FLOAT32", [[65504.0, 65520.0, 2049.0, 2051.0], [-_INF, 0.1, 1e-8, -0.0]]),
        ("FLOAT16", [[65504.0, _INF, 2048.0, 2052.0], [-_INF, 0.0999755859375, 0.0, -0.0]]),
    ),
)


CHECKS = OperatorChecks(
    CAST,
    doc_example_face=_doc_example_face,
    sweep=_sweep,
    bench=_bench,
    documented_support=DOCUMENTED_SUPPORT,
    support_case=_support_case,
    not_smooth="a cast rounds every value it narrows (float64 to float32 included), and "
    "float to integer is a staircase, so finite differences never match its derivative",
    examples=EXAMPLES,
)
