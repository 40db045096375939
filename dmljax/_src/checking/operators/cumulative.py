"""CUMULATIVE_SUMMATION's and CUMULATIVE_PRODUCT's doc examples, selftest sweeps and bench
cases: what checks and measures the operators :mod:`dmljax._src.ops.cumulative` declares,
loaded on use only.
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
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.enums import AxisDirection
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.cumulative import (
    CUMULATIVE_PRODUCT,
    CUMULATIVE_SUMMATION,
    FACE_DTYPES,
    CumulativeProductOperatorDesc,
    CumulativeSummationOperatorDesc,
    cumprod,
    cumsum,
)
from dmljax._src.tensor_desc import TensorDesc

_PAGE = "MicrosoftDocs/sdk-api:sdk-api-src/content/directml/ns-directml-dml_{}_operator_desc.md"
# The pages' one input, and each example's attributes and output (both pages number
# them alike: along the last axis, exclusive, decreasing, along axis 2).
_INPUT = [[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]]
_EXAMPLES = {
    "summation": (
        (3, "INCREASING", False, [[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]),
        (3, "INCREASING", True, [[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]]),
        (3, "DECREASING", False, [[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]]),
        (2, "INCREASING", False, [[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]]),
    ),
    "product": (
        (3, "INCREASING", False, [[2, 2, 6, 30], [3, 24, 168, 504], [9, 54, 108, 432]]),
        (3, "INCREASING", True, [[1, 2, 2, 6], [1, 3, 24, 168], [1, 9, 54, 108]]),
        (3, "DECREASING", False, [[30, 15, 15, 5], [504, 168, 21, 3], [432, 48, 8, 4]]),
        (2, "INCREASING", False, [[2, 1, 3, 5], [6, 8, 21, 15], [54, 48, 42, 60]]),
    ),
}
_HEADINGS = ("Example 1", "Example 2", "Example 3", "Example 4")


def _examples(kind: str) -> tuple[dict[str, Any], ...]:
    exclusive = "HasExclusiveSum" if kind == "summation" else "HasExclusiveProduct"
    return tuple(
        {
            "id": f"cumulative_{kind}-ex{number}",
            "op": f"DML_OPERATOR_CUMULATIVE_{kind.upper()}",
            "source": f"{_PAGE.format('cumulative_' + kind)} ({heading})",
            "attrs": {
                "Axis": axis,
                "AxisDirection": f"DML_AXIS_DIRECTION_{direction}",
                exclusive: has_exclusive,
            },
            "inputs": {"InputTensor": {"sizes": [1, 1, 3, 4], "dtype": "FLOAT32", "data": _INPUT}},
            "expected": {"sizes": [1, 1, 3, 4], "dtype": "FLOAT32", "data": [[output]]},
            "notes": "The page's example, as written.",
            "status": "valid",
        }
        for number, (heading, (axis, direction, has_exclusive, output)) in enumerate(
            zip(_HEADINGS, _EXAMPLES[kind], strict=True), start=1
        )
    )


def _doc_example_face(function: Callable[..., jax.Array]) -> Callable[[Any], jax.Array]:
    def face(example: Any) -> jax.Array:
        (x,) = example.inputs
        desc = example.desc
        exclusive = getattr(desc, "has_exclusive_sum", getattr(desc, "has_exclusive_product", 0))
        reverse = desc.axis_direction is AxisDirection.DECREASING
        return function(x, desc.axis, reverse=reverse, exclusive=bool(exclusive))

    return face


def _values(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype[Any], product: bool):
    """Sums: the sweeps' small distinct integers. Products: factors of 0 to 3 (and their
    negatives where the type has them), whose products of up to five stay exact in
    every type the face takes, bfloat16's 8 bits included (3**5 = 243)."""
    if not product:
        return sweeps.draw_values(rng, shape, dtype)
    low = 0 if np.issubdtype(dtype, np.unsignedinteger) else -2
    return rng.integers(low, 3, size=shape, endpoint=True).astype(dtype)


def _sweep_of(function: Callable[..., jax.Array], product: bool) -> Callable[..., sweeps.SweepCase]:
    def sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
        """``function`` of rank 1 to 3 (sizes up to 5), every axis, both directions,
        inclusive and exclusive."""
        shape = sweeps.draw_shape(rng, int(rng.integers(1, 3, endpoint=True)), 0, 5)
        axis = int(rng.integers(-len(shape), len(shape)))
        reverse, exclusive = (bool(b) for b in rng.integers(0, 2, size=2))
        args = tuple((_values(rng, shape, dtype, product),) for _ in range(batch))
        flags = f"{' reverse' if reverse else ''}{' exclusive' if exclusive else ''}"
        at = axis % len(shape)

        def tally(x: np.ndarray) -> np.ndarray:
            return reference.cumulative(
                x, axis=at, product=product, reverse=reverse, exclusive=exclusive
            )

        return sweeps.SweepCase(
            label=f"{sweeps.label(shape, dtype)} axis {axis}{flags}",
            fn=lambda x: function(x, axis, reverse=reverse, exclusive=exclusive),
            batch=args,
            expected=tuple(tally(x) for (x,) in args),
            linear_argnums=(0,),
            linear=not product,
        )

    return sweep


def _bench_of(
    name: str,
    operator: str,
    function: Callable[..., jax.Array],
    jnp_fn: Callable[..., jax.Array],
    desc_type: type,
    exclusive: str,
) -> Callable[[], list[Case | EagerCase]]:

    def bench() -> list[Case | EagerCase]:
        """The running tally of 4096 rows of 4096 float32 along the rows, against the
        same jnp function (values near 1, so that products stay finite)."""

        def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
            rows = 256 if quick else 4096  # 4 MiB / 64 MiB of f32
            return (1 + operands.normal(key, (rows, 4096)) * np.float32(2.0**-12),)

        def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
            return (operands.tiny_operands(key, (8, 1))[0],)

        return [
            Case(
                name=name,
                operator=operator,
                make_args=make_args,
                dmljax_fn=lambda x: function(x, 1),
                jnp_fn=lambda x: jnp_fn(x, axis=1),
                bytes_moved=lambda args: 2 * args[0].nbytes,
            ),
            EagerCase(
                name=f"{name} eager",
                operator=operator,
                desc=lambda x: desc_type(
                    input_tensor=TensorDesc.from_array(x),
                    output_tensor=TensorDesc.from_array(x),
                    axis=1,
                    axis_direction=AxisDirection.INCREASING,
                    **{exclusive: False},
                ),
                functional=lambda x: function(x, 1),
                jnp_fn=lambda x: jnp_fn(x, axis=1),
                make_args=tiny,
            ),
        ]

    return bench


_TYPES = FLOATS | {DataType.INT32, DataType.UINT32}


def _documented(first: FeatureLevel) -> dict[FeatureLevel, DocumentedBand]:
    """The pages' tables, restated: 4-D from the first level, 1 to 8 dimensions from
    4_0, INT64 and UINT64 from 5_0."""
    return {
        first: ((4, 4), _TYPES, None),
        FeatureLevel.FL_4_0: ((1, 8), _TYPES, None),
        FeatureLevel.FL_5_0: ((1, 8), _TYPES | {DataType.INT64, DataType.UINT64}, None),
    }


def _support_case_of(desc_type: type, exclusive: str) -> Any:
    def case(
        rank: int, data_type: DataType, index_type: DataType
    ) -> tuple[Any, tuple[np.ndarray, ...]]:
        del index_type
        sizes = (*(1,) * (rank - 1), 3)
        t = TensorDesc(data_type=data_type, sizes=sizes)
        desc = desc_type(
            input_tensor=t, output_tensor=t, axis=rank - 1,
            axis_direction=AxisDirection.INCREASING, **{exclusive: False},
        )  # fmt: skip
        return desc, (data_of(sizes, data_type),)

    return case


_COMPUTES = "a tally adds or multiplies its elements (tests/test_cumulative.py checks its values)"

_ROWS = (
    ("summation", "cumsum", CUMULATIVE_SUMMATION, CumulativeSummationOperatorDesc, cumsum,
     jnp.cumsum, FeatureLevel.FL_2_1, "has_exclusive_sum"),
    ("product", "cumprod", CUMULATIVE_PRODUCT, CumulativeProductOperatorDesc, cumprod,
     jnp.cumprod, FeatureLevel.FL_3_1, "has_exclusive_product"),
)  # fmt: skip

CHECKS = tuple(
    OperatorChecks(
        operator,
        documented_support=_documented(first),
        support_case=_support_case_of(desc_type, exclusive),
        doc_example_face=_doc_example_face(face),
        sweep=_sweep_of(face, product=kind == "product"),
        bench=_bench_of(
            name, operator.name.removeprefix("DML_OPERATOR_"), face, jnp_fn, desc_type, exclusive
        ),
        computes=_COMPUTES,
        face_dtypes=FACE_DTYPES,
        examples=_examples(kind),
    )
    for kind, name, operator, desc_type, face, jnp_fn, first, exclusive in _ROWS
)
