"""TOP_K's and TOP_K1's doc examples, selftest sweep and bench cases: what checks and
measures the operators :mod:`dmljax._src.ops.top_k` declares, loaded on use only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from dmljax._src.bench import operands
from dmljax._src.bench.case import Case, EagerCase
from dmljax._src.checking import reference, sweeps
from dmljax._src.checking.doc_entries import Entry, tensor_desc_of
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
from dmljax._src.ops.top_k import (
    FACE_DTYPES,
    TOP_K,
    TOP_K1,
    TopK1OperatorDesc,
    TopKOperatorDesc,
    top_k,
)
from dmljax._src.tensor_desc import TensorDesc

_PAGE = "MicrosoftDocs/sdk-api:sdk-api-src/content/directml/ns-directml-dml_{}_operator_desc.md"
# The pages' two inputs, and each example's input, axis, K, direction and two outputs
# (TOP_K's page has the first three, without a direction).
_FIRST = [[[[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]]]]
_TIED = [[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]]
_EXAMPLES = (
    ("Example 1", _FIRST, 3, 2, "DECREASING",
     [[11, 10], [9, 8], [7, 6]], [[3, 2], [2, 3], [3, 2]]),
    ("Example 2. Using a different axis", _FIRST, 2, 2, "DECREASING",
     [[4, 5, 10, 11], [3, 2, 9, 8]], [[2, 2, 0, 0], [1, 1, 1, 1]]),
    ("Example 3. Tied values", _TIED, 3, 3, "DECREASING",
     [[3, 2, 2], [5, 5, 4], [6, 6, 6]], [[3, 1, 2], [2, 3, 1], [0, 1, 2]]),
    ("Example 4. Increasing axis direction", _TIED, 3, 3, "INCREASING",
     [[1, 2, 2], [3, 4, 5], [6, 6, 6]], [[0, 1, 2], [0, 1, 2], [0, 1, 2]]),
)  # fmt: skip


def _examples(name: str) -> tuple[dict[str, Any], ...]:
    """Each example twice, once per output (``output_index``): an entry shows one output."""
    examples = _EXAMPLES if name == "top_k1" else _EXAMPLES[:3]
    entries = []
    for number, (heading, data, axis, k, direction, values, indices) in enumerate(examples, 1):
        sizes = [1, 1, *np.shape(values)]
        attrs: dict[str, Any] = {"Axis": axis, "K": k}
        if name == "top_k1":
            attrs["AxisDirection"] = f"DML_AXIS_DIRECTION_{direction}"
        for index, (output, dtype, shown) in enumerate(
            (("values", "FLOAT32", values), ("indices", "UINT32", indices))
        ):
            entries.append({
                "id": f"{name}-ex{number}-{output}",
                "op": f"DML_OPERATOR_{name.upper()}",
                "source": f"{_PAGE.format(name)} ({heading})",
                "attrs": {**attrs, "output_index": index},
                "inputs": {
                    "InputTensor": {"sizes": [1, 1, 3, 4], "dtype": "FLOAT32", "data": data}
                },
                "expected": {"sizes": sizes, "dtype": dtype, "data": [[shown]]},
                "notes": f"The page's example, as written: its {output}.",
                "status": "valid",
            })  # fmt: skip
    return tuple(entries)


def _doc_example(e: Entry) -> Any:
    """A TOP_K or TOP_K1 example: the entry gives one output, whose sizes both share."""
    input_tensor = tensor_desc_of(e["inputs"]["InputTensor"])
    sizes = tuple(e["expected"]["sizes"])
    fields: dict[str, Any] = {
        "input_tensor": input_tensor,
        "output_value_tensor": TensorDesc(data_type=input_tensor.data_type, sizes=sizes),
        "output_index_tensor": TensorDesc(data_type=DataType.UINT32, sizes=sizes),
        "axis": e["attrs"]["Axis"],
        "k": e["attrs"]["K"],
    }
    if "AxisDirection" not in e["attrs"]:
        return TopKOperatorDesc(**fields)
    direction = AxisDirection[e["attrs"]["AxisDirection"].removeprefix("DML_AXIS_DIRECTION_")]
    return TopK1OperatorDesc(**fields, axis_direction=direction)


def _doc_example_face(example: Any) -> tuple[jax.Array, jax.Array]:
    (x,) = example.inputs
    desc = example.desc
    direction = getattr(desc, "axis_direction", AxisDirection.DECREASING)
    return top_k(x, desc.k, desc.axis, largest=direction is AxisDirection.DECREASING)


def _draw(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype[Any], distinct: bool
) -> np.ndarray:
    """Values from a few, so that ties are common, floats with signed zeros, NaNs and
    -inf; or ``distinct`` ones (a permutation), where the selection is differentiable
    and finite differences (``check_grads``, of a sweep's first draw) cross no tie."""
    if distinct:
        return rng.permutation(int(np.prod(shape))).reshape(shape).astype(dtype)
    x = rng.integers(0, 3, size=shape, endpoint=True).astype(dtype)
    if jnp.issubdtype(dtype, jnp.floating):
        special = np.array([-0.0, np.nan, -np.inf], dtype)
        pick = rng.random(shape) < 0.15
        x = np.where(pick, special[rng.integers(0, 3, size=shape)], x).astype(dtype)
    return x


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
    """``dml.top_k`` of rank 1 to 3 (sizes 1 to 5) along any axis, any K, both directions;
    the first draw of distinct values, the others with ties and special floats."""
    shape = sweeps.draw_shape(rng, int(rng.integers(1, 3, endpoint=True)), 1, 5)
    axis = int(rng.integers(-len(shape), len(shape)))
    k = int(rng.integers(1, shape[axis], endpoint=True))
    largest = bool(rng.integers(0, 2))
    args = tuple((_draw(rng, shape, dtype, distinct=i == 0),) for i in range(batch))
    return sweeps.SweepCase(
        label=f"{sweeps.label(shape, dtype)} k {k} axis {axis}{'' if largest else ' smallest'}",
        fn=lambda x: top_k(x, k, axis, largest=largest),
        batch=args,
        expected=tuple(
            reference.top_k(x, k, axis=axis, largest=largest, index_dtype=np.uint32)
            for (x,) in args
        ),
        linear_argnums=(0,),
        # The selection is piecewise: linear in x away from ties, which finite differences
        # of values this close would cross; the exact jvp and grad checks still run.
        linear=False,
    )


def _bench() -> list[Case | EagerCase]:
    """The 8 largest (smallest) of each of 4096 rows of 4096 float32, against
    :func:`jax.lax.top_k` (of ``-x`` for the smallest) with uint32 indices."""

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        rows = 256 if quick else 4096  # 4 MiB / 64 MiB of f32
        return (operands.normal(key, (rows, 4096)),)

    def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
        return (operands.tiny_operands(key, (8, 8))[0],)

    def jnp_largest(x: jax.Array, k: int = 8) -> tuple[jax.Array, jax.Array]:
        values, indices = lax.top_k(x, k)
        return values, indices.astype(np.uint32)

    def jnp_smallest(x: jax.Array) -> tuple[jax.Array, jax.Array]:
        values, indices = lax.top_k(-x, 8)
        return -values, indices.astype(np.uint32)

    def moved(args: Sequence[jax.Array]) -> int:
        return args[0].nbytes + 2 * args[0].nbytes * 8 // args[0].shape[1]

    return [
        Case(
            name="top_k 8 of 4096",
            operator="TOP_K1",
            make_args=make_args,
            dmljax_fn=lambda x: top_k(x, 8),
            jnp_fn=jnp_largest,
            bytes_moved=moved,
        ),
        Case(
            name="top_k 8 smallest",
            operator="TOP_K1",
            make_args=make_args,
            dmljax_fn=lambda x: top_k(x, 8, largest=False),
            jnp_fn=jnp_smallest,
            bytes_moved=moved,
        ),
        EagerCase(
            name="top_k eager",
            operator="TOP_K1",
            desc=lambda x: TopK1OperatorDesc(
                input_tensor=TensorDesc.from_array(x),
                output_value_tensor=TensorDesc.from_array(x[:, :2]),
                output_index_tensor=TensorDesc(data_type=DataType.UINT32, sizes=(8, 2)),
                axis=1,
                k=2,
                axis_direction=AxisDirection.DECREASING,
            ),
            functional=lambda x: top_k(x, 2),
            jnp_fn=lambda x: jnp_largest(x, 2),
            make_args=tiny,
        ),
    ]


def _fixed_size(k: int, d: int, arrays: Any, error: Any) -> bool:
    """K is checked against the selected axis's size: a symbol there is refused."""
    del k, d, arrays
    return "a static size (k is checked against it)" in str(error)


_UINT32 = {DataType.UINT32}
_WIDENED: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_2_1: ((4, 4), FLOATS | INTS_8_32, _UINT32),
    FeatureLevel.FL_3_1: ((1, 8), FLOATS | INTS_8_32, _UINT32),
    FeatureLevel.FL_5_0: (
        (1, 8),
        FLOATS | INTS_8_32 | {DataType.INT64, DataType.UINT64},
        {DataType.UINT32, DataType.UINT64},
    ),
}


def _support_case_of(desc_type: type) -> Any:
    def case(
        rank: int, data_type: DataType, index_type: DataType
    ) -> tuple[Any, tuple[np.ndarray, ...]]:
        sizes = (*(1,) * (rank - 1), 3)
        out = (*(1,) * (rank - 1), 2)
        fields: dict[str, Any] = {}
        if desc_type is TopK1OperatorDesc:
            fields["axis_direction"] = AxisDirection.INCREASING
        desc = desc_type(
            input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
            output_value_tensor=TensorDesc(data_type=data_type, sizes=out),
            output_index_tensor=TensorDesc(data_type=index_type, sizes=out),
            axis=rank - 1,
            k=2,
            **fields,
        )
        return desc, (data_of(sizes, data_type),)

    return case


_COMPUTES = "a selection writes indices beside the elements (tests/test_top_k.py)"

CHECKS = (
    OperatorChecks(
        TOP_K1,
        doc_example=_doc_example,
        doc_example_face=_doc_example_face,
        sweep=_sweep,
        bench=_bench,
        documented_support=_WIDENED,
        support_case=_support_case_of(TopK1OperatorDesc),
        fixed_size=_fixed_size,
        computes=_COMPUTES,
        face_dtypes=FACE_DTYPES,
        examples=_examples("top_k1"),
    ),
    # TOP_K1's face, sweep and bench serve TOP_K (Operator(served_by=...)).
    OperatorChecks(
        TOP_K,
        doc_example=_doc_example,
        doc_example_face=_doc_example_face,
        documented_support={
            FeatureLevel.FL_2_0: ((4, 4), FLOATS, _UINT32),
            **_WIDENED,
        },
        support_case=_support_case_of(TopKOperatorDesc),
        computes=_COMPUTES,
        examples=_examples("top_k"),
    ),
)
