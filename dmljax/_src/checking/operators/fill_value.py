"""FILL_VALUE_CONSTANT's and FILL_VALUE_SEQUENCE's doc examples, selftest sweeps and bench
cases: what checks and measures the operators :mod:`dmljax._src.ops.fill_value` declares,
loaded on use only.
"""

from __future__ import annotations

import math
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
    DocumentedBand,
    OperatorChecks,
)
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.fill_value import (
    FACE_DTYPES,
    FILL_VALUE_CONSTANT,
    FILL_VALUE_SEQUENCE,
    FillValueConstantOperatorDesc,
    FillValueSequenceOperatorDesc,
    fill_value_constant,
    fill_value_sequence,
)
from dmljax._src.tensor_desc import TensorDesc

_PAGE = (
    "MicrosoftDocs/sdk-api:sdk-api-src/content/directml/"
    "ns-directml-dml_fill_value_{}_operator_desc.md"
)


def _example(
    kind: str, number: int, attrs: dict[str, Any], sizes: list[int], dtype: str, data: Any
) -> dict[str, Any]:
    return {
        "id": f"fill-value-{kind}-ex{number}",
        "op": f"DML_OPERATOR_FILL_VALUE_{kind.upper()}",
        "source": f"{_PAGE.format(kind)} (Example {number})",
        "attrs": {"ValueDataType": f"DML_TENSOR_DATA_TYPE_{dtype}", **attrs},
        "inputs": {},
        "expected": {"sizes": sizes, "dtype": dtype, "data": data},
        "notes": "The page's example, as written (a UINT8 ValueDelta of -2 is the union's "
        "254, C's conversion, which steps each UINT8 sum down by 2)."
        if dtype == "UINT8" else "The page's example, as written.",
        "status": "valid",
    }  # fmt: skip


EXAMPLES = (
    _example("constant", 1, {"Value": 13.0}, [1, 1, 2, 4], "FLOAT32", [[[[13.0] * 4] * 2]]),
    _example("sequence", 1, {"ValueStart": 3, "ValueDelta": 2}, [1, 1, 1, 3], "FLOAT32",
             [[[[3, 5, 7]]]]),
    _example("sequence", 2, {"ValueStart": 10, "ValueDelta": -2}, [1, 1, 2, 2], "UINT8",
             [[[[10, 8], [6, 4]]]]),
)  # fmt: skip


def _constant_face(example: Any) -> jax.Array:
    desc = example.desc
    output = desc.output_tensor
    return fill_value_constant(output.sizes, desc.value, dtype=output.dtype)


def _sequence_face(example: Any) -> jax.Array:
    desc = example.desc
    output = desc.output_tensor
    return fill_value_sequence(output.sizes, desc.value_start, desc.value_delta, dtype=output.dtype)


def _cases() -> tuple[list[Case | EagerCase], list[Case | EagerCase]]:
    """2**28 float32 values against ``jnp.full`` and ``jnp.arange`` (each only written):
    FILL_VALUE_CONSTANT's cases, then FILL_VALUE_SEQUENCE's."""
    like = (1, 1, 8, 8)

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        # Only its shape is read: both sides generate an array like it.
        return (operands.normal(key, ((1 << 20) if quick else (1 << 28),)),)

    def written(args: Any) -> int:
        return args[0].nbytes

    f32 = TensorDesc(data_type=DataType.FLOAT32, sizes=like)
    constant: list[Case | EagerCase] = [
        Case(
            name="fill_value_constant",
            operator="FILL_VALUE_CONSTANT",
            make_args=make_args,
            dmljax_fn=lambda x: fill_value_constant(x.shape, 3.0),
            jnp_fn=lambda x: jnp.full(x.shape, 3.0, jnp.float32),
            bytes_moved=written,
        ),
        EagerCase(
            name="fill_value_constant eager",
            operator="FILL_VALUE_CONSTANT",
            desc=lambda: FillValueConstantOperatorDesc(
                output_tensor=f32, value_data_type=DataType.FLOAT32, value=3
            ),
            functional=lambda: fill_value_constant(like, 3.0),
            jnp_fn=lambda: jnp.full(like, 3.0, jnp.float32),
            make_args=lambda key: (),  # a generator: no operands
        ),
    ]
    sequence: list[Case | EagerCase] = [
        Case(
            name="fill_value_sequence",
            operator="FILL_VALUE_SEQUENCE",
            make_args=make_args,
            dmljax_fn=lambda x: fill_value_sequence(x.shape, 1.0, 0.5),
            jnp_fn=lambda x: 1.0 + jnp.arange(x.shape[0], dtype=jnp.float32) * 0.5,
            bytes_moved=written,
        ),
        EagerCase(
            name="fill_value_sequence eager",
            operator="FILL_VALUE_SEQUENCE",
            desc=lambda: FillValueSequenceOperatorDesc(
                output_tensor=f32,
                value_data_type=DataType.FLOAT32,
                value_start=1,
                value_delta=2,
            ),
            functional=lambda: fill_value_sequence(like, 1.0, 2.0),
            jnp_fn=lambda: (1.0 + jnp.arange(64, dtype=jnp.float32) * 2.0).reshape(like),
            make_args=lambda key: (),  # a generator: no operands
        ),
    ]
    return constant, sequence


_T = DataType
_UNTIL_4_0: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_2_1: ((4, 4), FLOATS | INTS_8_32, None),
    FeatureLevel.FL_4_0: ((1, 8), FLOATS | INTS_8_32, None),
}
_CONSTANT_SUPPORT = _UNTIL_4_0 | {
    FeatureLevel.FL_4_1: ((1, 8), FLOATS | INTS_8_32 | {_T.FLOAT64, _T.INT64, _T.UINT64}, None),
}
_SEQUENCE_SUPPORT = _UNTIL_4_0 | {
    FeatureLevel.FL_5_0: ((1, 8), FLOATS | INTS_8_32 | {_T.INT64, _T.UINT64}, None),
}


def _constant_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type
    output = TensorDesc(data_type=data_type, sizes=(2,) * max(rank, 1))
    return FillValueConstantOperatorDesc(
        output_tensor=output, value_data_type=data_type, value=3
    ), ()


def _sequence_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type
    output = TensorDesc(data_type=data_type, sizes=(2,) * max(rank, 1))
    return FillValueSequenceOperatorDesc(
        output_tensor=output, value_data_type=data_type, value_start=1, value_delta=2
    ), ()


def _constant_sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> Any:
    """A shape of rank 1 to 4 and a value the type holds: the type's extremes too."""
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 4, endpoint=True)), 1, 4)
    if jnp.issubdtype(dtype, jnp.integer):
        info = jnp.iinfo(dtype)
        value: int | float = int(rng.choice([int(info.min), int(info.max), 0, 7]))
    else:
        value = float(rng.choice([-2.5, 0.0, -0.0, float(jnp.finfo(dtype).max), np.inf]))
    want = np.full(shape, value, dtype)
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, np.dtype(dtype))} of {value}",
        fn=lambda: fill_value_constant(shape, value, dtype=dtype),
        batch=((),) * batch,
        expected=(want,) * batch,
        linear_argnums=(),
        linear=False,
        differentiable=False,  # no array argument to differentiate
    )


def _sequence_sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> Any:
    """A shape of rank 1 to 4 and a start and delta the type holds; the value of each
    element computed from its index in float64 (exact for the draws' halves), wrapped for
    integers."""
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 4, endpoint=True)), 1, 4)
    integer = jnp.issubdtype(dtype, jnp.integer)
    low = 0 if integer and not jnp.issubdtype(dtype, jnp.signedinteger) else -4
    start = int(rng.integers(low, 8)) if integer else float(rng.integers(-8, 8)) / 2
    delta = int(rng.integers(-3, 4)) if integer else float(rng.integers(-4, 4)) / 2
    count = math.prod(shape)
    if integer:
        bits = np.dtype(dtype).itemsize * 8
        want = ((start + np.arange(count) * delta) % 2**bits).astype(f"u{bits // 8}")
        want = want.view(dtype).reshape(shape)
    else:
        want = (start + np.arange(count) * delta).astype(dtype).reshape(shape)
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, np.dtype(dtype))} from {start} by {delta}",
        fn=lambda: fill_value_sequence(shape, start, delta, dtype=dtype),
        batch=((),) * batch,
        expected=(want,) * batch,
        linear_argnums=(),
        linear=False,
        differentiable=False,  # no array argument to differentiate
    )


CHECKS = (
    OperatorChecks(
        FILL_VALUE_CONSTANT,
        documented_support=_CONSTANT_SUPPORT,
        support_case=_constant_case,
        doc_example_face=_constant_face,
        sweep=_constant_sweep,
        bench=lambda: _cases()[0],
        computes="a fill moves no array: its value is a static, held exactly in the type "
        "(tests/test_fill_value.py)",
        face_dtypes=FACE_DTYPES,
        examples=EXAMPLES[:1],
    ),
    OperatorChecks(
        FILL_VALUE_SEQUENCE,
        documented_support=_SEQUENCE_SUPPORT,
        support_case=_sequence_case,
        doc_example_face=_sequence_face,
        sweep=_sequence_sweep,
        bench=lambda: _cases()[1],
        computes="start + i * delta: arithmetic, checked against float64 and wrapped "
        "integers (tests/test_fill_value.py)",
        face_dtypes=FACE_DTYPES,
        examples=EXAMPLES[1:],
    ),
)
