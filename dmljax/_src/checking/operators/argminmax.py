"""ARGMIN's and ARGMAX's doc examples, selftest sweeps and bench cases: what checks and
measures the operators :mod:`dmljax._src.ops.argminmax` declares, loaded on use only.
"""

from __future__ import annotations

from collections.abc import Callable
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
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.enums import AxisDirection
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.argminmax import (
    ARGMAX,
    ARGMIN,
    FACE_DTYPES,
    ArgmaxOperatorDesc,
    ArgminOperatorDesc,
    argmax,
    argmin,
)
from dmljax._src.tensor_desc import TensorDesc

_PAGE = "MicrosoftDocs/sdk-api:sdk-api-src/content/directml/ns-directml-dml_{}_operator_desc.md"
# The pages' one input, and each example's axes and output (both pages number them alike).
_INPUT = [[1, 2, 3], [3, 0, 4], [2, 5, 2]]
_EXAMPLES = {
    "argmin": (((0,), [1, 3], [[0, 1, 2]]), ((1,), [3, 1], [[0], [1], [0]]),
               ((0, 1), [1, 1], [[4]])),
    "argmax": (((0,), [1, 3], [[1, 2, 1]]), ((1,), [3, 1], [[2], [2], [1]]),
               ((0, 1), [1, 1], [[7]])),
}  # fmt: skip


def _examples(name: str) -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "id": f"{name}-ex{number}",
            "op": f"DML_OPERATOR_{name.upper()}",
            "source": f"{_PAGE.format(name)} (Example {number})",
            "attrs": {
                "AxisCount": len(axes),
                "Axes": list(axes),
                "AxisDirection": "DML_AXIS_DIRECTION_INCREASING",
            },
            "inputs": {"InputTensor": {"sizes": [3, 3], "dtype": "FLOAT32", "data": _INPUT}},
            "expected": {"sizes": sizes, "dtype": "UINT32", "data": output},
            "notes": "The page's example, as written.",
            "status": "valid",
        }
        for number, (axes, sizes, output) in enumerate(_EXAMPLES[name], start=1)
    )


def _doc_example_face(function: Callable[..., jax.Array]) -> Callable[[Any], jax.Array]:
    def face(example: Any) -> jax.Array:
        (x,) = example.inputs
        desc = example.desc
        last = desc.axis_direction is AxisDirection.DECREASING
        return function(x, tuple(desc.axes), last=last, dtype=desc.output_tensor.dtype)

    return face


def _sweep_of(function: Callable[..., jax.Array], largest: bool) -> Callable[..., Any]:
    def sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> Any:
        """``function`` of rank 1 to 3 (sizes 1 to 4) over a random set of axes, first or
        last, values from a few (so that ties are common)."""
        rank = int(rng.integers(1, 3, endpoint=True))
        shape = sweeps.draw_shape(rng, rank, 1, 4)
        count = int(rng.integers(1, rank, endpoint=True))
        axes = tuple(int(a) - rank for a in rng.choice(rank, size=count, replace=False))
        last = bool(rng.integers(0, 2))
        args = tuple(
            (rng.integers(0, 3, size=shape, endpoint=True).astype(dtype),) for _ in range(batch)
        )
        at = tuple(a % rank for a in axes)

        def want(x: np.ndarray) -> np.ndarray:
            return reference.arg_extreme(
                x, axes=at, largest=largest, last=last, dtype=np.dtype(np.int32)
            )

        return sweeps.SweepCase(
            label=f"{sweeps.label(shape, dtype)} axes {axes}{' last' if last else ''}",
            fn=lambda x: function(x, axes, last=last),
            batch=args,
            expected=tuple(want(x) for (x,) in args),
            linear_argnums=(0,),
            differentiable=False,
        )

    return sweep


def _bench_of(
    name: str, function: Callable[..., jax.Array], jnp_fn: Callable[..., jax.Array], desc_type: type
) -> Callable[[], list[Case | EagerCase]]:
    operator = name.upper()

    def bench() -> list[Case | EagerCase]:
        """The index of each row's extreme, 4096 rows of 4096 float32, against
        ``jnp.argmin``/``jnp.argmax(x, axis=1, keepdims=True)``."""

        def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
            rows = 256 if quick else 4096  # 4 MiB / 64 MiB of f32
            return (operands.normal(key, (rows, 4096)),)

        def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
            return (operands.tiny_operands(key, (8, 1))[0],)

        def jnp_search(x: jax.Array) -> jax.Array:
            return jnp_fn(x, axis=1, keepdims=True).astype(jnp.uint32)

        return [
            Case(
                name=name,
                operator=operator,
                make_args=make_args,
                dmljax_fn=lambda x: function(x, 1, dtype=jnp.uint32),
                jnp_fn=jnp_search,
                bytes_moved=lambda args: args[0].nbytes + args[0].nbytes // args[0].shape[1],
            ),
            EagerCase(
                name=f"{name} eager",
                operator=operator,
                desc=lambda x: desc_type(
                    input_tensor=TensorDesc.from_array(x),
                    output_tensor=TensorDesc(data_type=DataType.UINT32, sizes=(x.shape[0], 1)),
                    axes=(1,),
                    axis_direction=AxisDirection.INCREASING,
                ),
                functional=lambda x: function(x, 1, dtype=jnp.uint32),
                jnp_fn=jnp_search,
                make_args=tiny,
            ),
        ]

    return bench


_DOCUMENTED: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_3_0: (
        (1, 8),
        FLOATS | INTS_8_32,
        {DataType.INT64, DataType.INT32, DataType.UINT64, DataType.UINT32},
    ),
}


def _support_case_of(desc_type: type) -> Any:
    def case(
        rank: int, data_type: DataType, index_type: DataType
    ) -> tuple[Any, tuple[np.ndarray, ...]]:
        sizes = (*(1,) * (rank - 1), 3)
        desc = desc_type(
            input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
            output_tensor=TensorDesc(data_type=index_type, sizes=(*(1,) * (rank - 1), 1)),
            axes=(rank - 1,),
            axis_direction=AxisDirection.INCREASING,
        )
        return desc, (data_of(sizes, data_type),)

    return case


_COMPUTES = "a search writes indices, not the input's elements (tests/test_argminmax.py)"
_NOT_SMOOTH = "indices: integers, with no derivative"

_ROWS = (
    ("argmin", ARGMIN, ArgminOperatorDesc, argmin, jnp.argmin),
    ("argmax", ARGMAX, ArgmaxOperatorDesc, argmax, jnp.argmax),
)

CHECKS = tuple(
    OperatorChecks(
        operator,
        documented_support=_DOCUMENTED,
        support_case=_support_case_of(desc_type),
        doc_example_face=_doc_example_face(face),
        sweep=_sweep_of(face, largest=name == "argmax"),
        bench=_bench_of(name, face, jnp_fn, desc_type),
        computes=_COMPUTES,
        not_smooth=_NOT_SMOOTH,
        face_dtypes=FACE_DTYPES,
        examples=_examples(name),
    )
    for name, operator, desc_type, face, jnp_fn in _ROWS
)
