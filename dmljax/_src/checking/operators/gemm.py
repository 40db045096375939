"""GEMM's doc examples, selftest sweep and bench cases: what checks and measures the
operator :mod:`dmljax._src.ops.gemm` declares, loaded on use only.
"""

from __future__ import annotations

from collections.abc import Sequence
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
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.gemm import FACE_DTYPES, GEMM, GemmOperatorDesc, gemm
from dmljax._src.tensor_desc import TensorDesc

_SOURCE = (
    "dmljax: the DML_GEMM_OPERATOR_DESC page (MicrosoftDocs/sdk-api, "
    "sdk-api-src/content/directml/ns-directml-dml_gemm_operator_desc.md) has no example"
)


def _tensor(sizes: list[int], data: list[Any]) -> dict[str, Any]:
    return {"sizes": sizes, "dtype": "FLOAT32", "data": data}


EXAMPLES = (
    {
        "id": "gemm-dmljax-outer-product-plus-c",
        "op": "DML_OPERATOR_GEMM",
        "source": _SOURCE,
        "attrs": {"TransA": "DML_MATRIX_TRANSFORM_NONE", "TransB": "DML_MATRIX_TRANSFORM_NONE",
                  "Alpha": 1.0, "Beta": 1.0},
        "inputs": {
            "ATensor": _tensor([3, 1], [[1], [2], [3]]),
            "BTensor": _tensor([1, 3], [[4, 5, 6]]),
            "CTensor": _tensor([3, 3], [[2, 2, 2], [2, 2, 2], [2, 2, 2]]),
        },
        "expected": _tensor([3, 3], [[6, 7, 8], [10, 12, 14], [14, 17, 20]]),
        "notes": "DirectML's dml_gemm.json DxDispatch model: A (3x1) x B (1x3) + C, C all 2s.",
        "status": "dmljax",
    },
    {
        "id": "gemm-dmljax-transposed-scaled-batch",
        "op": "DML_OPERATOR_GEMM",
        "source": _SOURCE,
        "attrs": {"TransA": "DML_MATRIX_TRANSFORM_TRANSPOSE",
                  "TransB": "DML_MATRIX_TRANSFORM_NONE", "Alpha": 0.5, "Beta": -1.0},
        "inputs": {
            "ATensor": _tensor([2, 1, 2, 2], [[[[1, 2], [3, 4]]], [[[0, 1], [1, 0]]]]),
            "BTensor": _tensor([2, 1, 2, 2], [[[[1, 0], [0, 1]]], [[[2, 4], [6, 8]]]]),
            "CTensor": _tensor([2, 1, 2, 2], [[[[1, 1], [1, 1]]], [[[0, 0], [0, 1]]]]),
        },
        # Batch 0: 0.5 * A^T - C = [[0.5, 1.5], [1, 2]] - 1; batch 1: 0.5 * A^T B - C,
        # A^T = [[0, 1], [1, 0]] swaps B's rows: 0.5 * [[6, 8], [2, 4]] - [[0, 0], [0, 1]].
        "expected": _tensor([2, 1, 2, 2], [[[[-0.5, 0.5], [0, 1]]], [[[3, 4], [1, 1]]]]),
        "notes": "Two independent products (BatchCount 2), A read transposed, Alpha and Beta.",
        "status": "dmljax",
    },
)  # fmt: skip


def _doc_example_face(example: Any) -> jax.Array:
    desc = example.desc
    a, b, *c = example.inputs
    return gemm(
        a, b, c[0] if c else None, trans_a=bool(desc.trans_a), trans_b=bool(desc.trans_b),
        alpha=desc.alpha, beta=desc.beta,
    )  # fmt: skip


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> Any:
    """A product of rank 2 to 4 (sizes 1 to 4), either operand transposed, with or
    without C, small integers (every partial sum exact in every float type)."""
    rank = int(rng.integers(2, 4, endpoint=True))
    lead = sweeps.draw_shape(rng, rank - 2, 1, 3)
    m, k, n = sweeps.draw_shape(rng, 3, 1, 4)
    trans_a, trans_b = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
    alpha = float(rng.choice([1.0, 0.5, -2.0]))
    beta = float(rng.choice([1.0, 0.25, -1.0]))
    with_c = bool(rng.integers(0, 2))
    shapes = [(*lead, *((k, m) if trans_a else (m, k))), (*lead, *((n, k) if trans_b else (k, n)))]
    shapes += [(*lead, m, n)] if with_c else []
    args = tuple(
        tuple(rng.integers(-2, 2, size=shape, endpoint=True).astype(dtype) for shape in shapes)
        for _ in range(batch)
    )

    def fn(a: Any, b: Any, c: Any = None) -> jax.Array:
        return gemm(a, b, c, trans_a=trans_a, trans_b=trans_b, alpha=alpha, beta=beta)

    def want(a: Any, b: Any, c: Any = None) -> np.ndarray:
        return reference.gemm(a, b, c, trans_a=trans_a, trans_b=trans_b, alpha=alpha, beta=beta)

    flags = f"{' trans_a' if trans_a else ''}{' trans_b' if trans_b else ''}"
    return sweeps.SweepCase(
        label=f"{sweeps.label(shapes[0], dtype)} x {shapes[1]}{flags} alpha {alpha}"
        f"{f' + {beta} C' if with_c else ''}",
        fn=fn,
        batch=args,
        expected=tuple(want(*x) for x in args),
        linear_argnums=tuple(range(len(shapes))),
        linear=False,  # a product: linear in each operand, not in all at once
    )


def _bench() -> list[Case | EagerCase]:
    """4096 x 4096 float32 matrices, against ``jnp.matmul`` at the same precision:
    HIGHEST (DirectML's default), and the backend's default with
    ``allow_half_precision``; plus C against ``jnp.matmul(a, b) + c``."""

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        size = 256 if quick else 4096
        keys = jax.random.split(key, 3)
        return tuple(operands.normal(k, (size, size)) for k in keys)

    def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
        x = operands.tiny_operands(key, (8, 8))[0]
        return (x, x)

    def moved(args: Sequence[jax.Array]) -> int:
        return sum(x.nbytes for x in args) + args[0].nbytes

    highest = jax.lax.Precision.HIGHEST
    return [
        Case(
            name="gemm",
            operator="GEMM",
            make_args=lambda key, quick: make_args(key, quick)[:2],
            dmljax_fn=lambda a, b: gemm(a, b),
            jnp_fn=lambda a, b: jnp.matmul(a, b, precision=highest),
            bytes_moved=moved,
        ),
        Case(
            name="gemm half precision",
            operator="GEMM",
            make_args=lambda key, quick: make_args(key, quick)[:2],
            dmljax_fn=lambda a, b: gemm(a, b, allow_half_precision=True),
            jnp_fn=lambda a, b: jnp.matmul(a, b),
            bytes_moved=moved,
        ),
        Case(
            name="gemm plus c",
            operator="GEMM",
            make_args=make_args,
            dmljax_fn=lambda a, b, c: gemm(a, b, c),
            jnp_fn=lambda a, b, c: jnp.matmul(a, b, precision=highest) + c,
            bytes_moved=moved,
        ),
        EagerCase(
            name="gemm eager",
            operator="GEMM",
            desc=lambda a, b: GemmOperatorDesc(
                a_tensor=TensorDesc.from_array(a),
                b_tensor=TensorDesc.from_array(b),
                output_tensor=TensorDesc.from_array(a),
            ),
            functional=lambda a, b: gemm(a, b),
            jnp_fn=lambda a, b: jnp.matmul(a, b, precision=highest),
            make_args=tiny,
        ),
    ]


_DOCUMENTED: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: ((4, 4), FLOATS, None),
    FeatureLevel.FL_4_0: ((2, 4), FLOATS, None),
}


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    del index_type  # GEMM's tensors all have one type
    lead = (1,) * (rank - 2)
    shapes = [(*lead, 2, 3), (*lead, 3, 2), (*lead, 2, 2)]
    if rank < 2:  # no matrix: refused by the table before any rule reads the sizes
        shapes = [(3,)] * 3
    desc = GemmOperatorDesc(
        a_tensor=TensorDesc(data_type=data_type, sizes=shapes[0]),
        b_tensor=TensorDesc(data_type=data_type, sizes=shapes[1]),
        c_tensor=TensorDesc(data_type=data_type, sizes=shapes[2]),
        output_tensor=TensorDesc(data_type=data_type, sizes=shapes[2]),
    )
    return desc, tuple(data_of(shape, data_type) for shape in shapes)


CHECKS = OperatorChecks(
    GEMM,
    documented_support=_DOCUMENTED,
    support_case=_support_case,
    doc_example_face=_doc_example_face,
    sweep=_sweep,
    bench=_bench,
    computes="a matrix product sums products: its values are arithmetic's (tests/test_gemm.py)",
    face_dtypes=FACE_DTYPES,
    examples=EXAMPLES,
)
