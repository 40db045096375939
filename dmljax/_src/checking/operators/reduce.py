"""REDUCE's doc examples, selftest sweep and bench cases: what checks and measures the
operator :mod:`dmljax._src.ops.reduce` declares, loaded on use only.
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
    INDEX_TYPES,
    INTS_8_32,
    DocumentedBand,
    OperatorChecks,
    data_of,
)
from dmljax._src.dtypes import DataType
from dmljax._src.enums import ReduceFunction
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops.reduce import (
    FACE_DTYPES,
    REDUCE,
    ROWS,
    ReduceOperatorDesc,
    face_dtypes,
    reduce,
)
from dmljax._src.tensor_desc import TensorDesc

_F = ReduceFunction
_PAGE = "MicrosoftDocs/sdk-api:sdk-api-src/content/directml/ns-directml-dml_reduce_operator_desc.md"
# The page's one input, and each example's axes and output: SUM over columns, rows, all.
_INPUT = [[1, 2, 3], [3, 0, 4], [2, 4, 2]]
_EXAMPLES = (((0,), [1, 3], [[6, 6, 9]]), ((1,), [3, 1], [[6], [7], [8]]), ((0, 1), [1, 1], [[21]]))

EXAMPLES = tuple(
    {
        "id": f"reduce-ex{number}",
        "op": "DML_OPERATOR_REDUCE",
        "source": f"{_PAGE} (Example {number})",
        "attrs": {
            "Function": "DML_REDUCE_FUNCTION_SUM",
            "AxisCount": len(axes),
            "Axes": list(axes),
        },
        "inputs": {"InputTensor": {"sizes": [3, 3], "dtype": "FLOAT32", "data": _INPUT}},
        "expected": {"sizes": sizes, "dtype": "FLOAT32", "data": output},
        "notes": "The page's example, as written (Example 3's comment lists a 5 where the "
        "input has a 4; its sum, 21, is the input's).",
        "status": "valid",
    }
    for number, (axes, sizes, output) in enumerate(_EXAMPLES, start=1)
)


def _doc_example_face(example: Any) -> jax.Array:
    (x,) = example.inputs
    desc = example.desc
    search = ROWS[desc.function].writes_indices
    return reduce(x, desc.function, desc.axes, dtype=desc.output_tensor.dtype if search else None)


# --- The sweep ------------------------------------------------------------------------------------

# How far a float result may be from the float64 value rounded once, in ulps: 0 where
# every partial result the draws make is exact (sums and products of the draws' eighths
# and powers of two); 1 for AVERAGE (XLA multiplies by the reciprocal of n) and L2 (a
# square root); the logarithms and exponentials of XLA's math library are within a few
# ulps of max(|value|, 1).
_ULPS = {_F.LOG_SUM: 4, _F.LOG_SUM_EXP: 4, _F.L2: 1, _F.AVERAGE: 1}
_CANCELS = frozenset({_F.LOG_SUM, _F.LOG_SUM_EXP})
_LINEAR = frozenset({_F.SUM, _F.AVERAGE})


def _values(rng: np.random.Generator, shape: tuple[int, ...], function: ReduceFunction) -> Any:
    """Distinct nonzero eighths (so that no group ties and every function is smooth at
    them), positive for LOG_SUM; powers of two for MULTIPLY (exact products)."""
    size = int(np.prod(shape))
    if function is _F.MULTIPLY:
        return rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], size=shape)
    eighths = (rng.permutation(size) - size / 2 + 0.5) / 4
    if function is _F.LOG_SUM:
        eighths = np.abs(eighths)
    return eighths.reshape(shape)


def _sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> Any:
    """One function the dtype takes, over a random set of axes of a rank 1 to 3 array
    (sizes 1 to 4), against :func:`reference.reduce`."""
    takes = [f for f in ReduceFunction if dtype in face_dtypes(f)]
    function = takes[int(rng.integers(len(takes)))]
    rank = int(rng.integers(1, 3, endpoint=True))
    shape = sweeps.draw_shape(rng, rank, 1, 4)
    count = int(rng.integers(1, rank, endpoint=True))
    axes = tuple(int(a) - rank for a in rng.choice(rank, size=count, replace=False))
    at = tuple(a % rank for a in axes)
    search = ROWS[function].writes_indices
    if np.issubdtype(dtype, np.floating):
        draws = [_values(rng, shape, function) for _ in range(batch)]
    else:  # small integers: MULTIPLY's of a group of 64 still wraps in 8 bits
        draws = [rng.integers(0, 3, size=shape, endpoint=True) for _ in range(batch)]
    args = tuple((d.astype(dtype),) for d in draws)

    def want(x: np.ndarray) -> np.ndarray:
        if search:
            largest = function is _F.ARGMAX
            return reference.arg_extreme(
                x, axes=at, largest=largest, last=False, dtype=np.dtype(np.int32)
            )
        return reference.reduce(x, function=function.function_name, axes=at)

    return sweeps.SweepCase(
        label=f"{function.function_name} {sweeps.label(shape, dtype)} axes {axes}",
        fn=lambda x: reduce(x, function.function_name, axes),
        batch=args,
        expected=tuple(want(x) for (x,) in args),
        linear_argnums=(0,),
        linear=function in _LINEAR,
        ulps=_ULPS.get(function, 0),
        differentiable=not search,
        magnitude=1.0 if function in _CANCELS else 0.0,
    )


# --- The bench ------------------------------------------------------------------------------------


def _bench() -> list[Case | EagerCase]:
    """SUM along rows and columns and MAX along rows of 4096 x 4096 float32, against
    ``jnp.sum`` and ``jnp.nanmax`` (MAX skips NaNs) with ``keepdims``."""

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        rows = 256 if quick else 4096  # 4 MiB / 64 MiB of f32
        return (operands.normal(key, (rows, 4096)),)

    def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
        return (operands.tiny_operands(key, (8, 1))[0],)

    def moved(axis: int) -> Any:
        return lambda args: args[0].nbytes + args[0].nbytes // args[0].shape[axis]

    # (name, function, axis, the jnp equivalent): MAX skips NaNs, as jnp.nanmax does.
    timed = (
        ("reduce sum rows", "sum", 1, jnp.sum),
        ("reduce sum columns", "sum", 0, jnp.sum),
        ("reduce max rows", "max", 1, jnp.nanmax),
    )
    return [
        *(
            Case(
                name=name,
                operator="REDUCE",
                make_args=make_args,
                dmljax_fn=lambda x, f=function, a=axis: reduce(x, f, a),
                jnp_fn=lambda x, j=jnp_fn, a=axis: j(x, axis=a, keepdims=True),
                bytes_moved=moved(axis),
            )
            for name, function, axis, jnp_fn in timed
        ),
        EagerCase(
            name="reduce eager",
            operator="REDUCE",
            desc=lambda x: ReduceOperatorDesc(
                function=ReduceFunction.SUM,
                input_tensor=TensorDesc.from_array(x),
                output_tensor=TensorDesc(data_type=DataType.FLOAT32, sizes=(x.shape[0], 1)),
                axes=(1,),
            ),
            functional=lambda x: reduce(x, "sum", 1),
            jnp_fn=lambda x: jnp.sum(x, axis=1, keepdims=True),
            make_args=tiny,
        ),
    ]


# --- The support table ----------------------------------------------------------------------------

# The conformance suite checks the operator's own table (the widest of the page's tables
# per function) through ARGMAX, whose input column is the widest at every level and whose
# output takes the index types; tests/test_reduce.py checks every function's table.
_DOCUMENTED: dict[FeatureLevel, DocumentedBand] = {
    FeatureLevel.FL_1_0: ((4, 4), FLOATS, {DataType.UINT32}),
    FeatureLevel.FL_2_1: ((4, 4), FLOATS | INTS_8_32, {DataType.UINT32}),
    FeatureLevel.FL_3_0: ((1, 8), FLOATS | INTS_8_32, INDEX_TYPES),
    FeatureLevel.FL_4_1: (
        (1, 8), FLOATS | INTS_8_32 | {DataType.INT64, DataType.UINT64}, INDEX_TYPES,
    ),
}  # fmt: skip


def _support_case(
    rank: int, data_type: DataType, index_type: DataType
) -> tuple[Any, tuple[np.ndarray, ...]]:
    sizes = (*(1,) * (rank - 1), 3)
    desc = ReduceOperatorDesc(
        function=ReduceFunction.ARGMAX,
        input_tensor=TensorDesc(data_type=data_type, sizes=sizes),
        output_tensor=TensorDesc(data_type=index_type, sizes=(*(1,) * (rank - 1), 1)),
        axes=(rank - 1,),
    )
    return desc, (data_of(sizes, data_type),)


CHECKS = OperatorChecks(
    REDUCE,
    documented_support=_DOCUMENTED,
    support_case=_support_case,
    doc_example_face=_doc_example_face,
    sweep=_sweep,
    bench=_bench,
    computes="a reduction sums, multiplies and searches: its values are arithmetic's "
    "(tests/test_reduce.py)",
    face_dtypes=FACE_DTYPES,
    examples=EXAMPLES,
)
