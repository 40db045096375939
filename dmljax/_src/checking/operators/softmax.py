"""SOFTMAX, LOG_SOFTMAX and HARDMAX with their FL 5_1 versions: the worked examples, the
sweeps, the bench cases and the restated support tables of what
:mod:`dmljax._src.ops.softmax` declares, loaded on use only.
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
from dmljax._src.checking.operator_checks import FLOATS, DocumentedBand, OperatorChecks
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops import softmax
from dmljax._src.ops.softmax import ROWS, Normalization
from dmljax._src.tensor_desc import TensorDesc

_FL = FeatureLevel

# The SOFTMAX, LOG_SOFTMAX and HARDMAX pages' table, and the FL 5_1 versions' pages'.
DOCUMENTED_FIRST: dict[FeatureLevel, DocumentedBand] = {
    _FL.FL_1_0: ((4, 4), FLOATS, None),
    _FL.FL_2_0: ((4, 5), FLOATS, None),
    _FL.FL_3_0: ((1, 8), FLOATS, None),
}
DOCUMENTED_AXES: dict[FeatureLevel, DocumentedBand] = {_FL.FL_5_1: ((1, 8), FLOATS, None)}


# Error bounds against the float64 reference, for float32 (float16 and bfloat16 are
# computed in float32 and rounded once: half an ulp, and one more for the reference's own
# rounding), measured in tests/test_softmax.py on groups of up to 256 elements:
# SOFTMAX within 4 + |x - max| + log2(n) ulps of the result (the rounding of x - max is
# an error of its exponential), LOG_SOFTMAX within 4 ulps of the size of its terms,
# max(1, |x - max|, log(sum)), as its result cancels toward 0.
def softmax_ulps(distance: Any, count: int) -> Any:
    """SOFTMAX's bound in ulps of the result, at ``|x - max|`` of ``distance`` in a group of
    ``count``."""
    return 4 + distance + math.log2(max(count, 1))


LOG_SOFTMAX_ULPS = 4

# The sweeps' draws (differences from the maximum at most 8, groups of at most 64) in
# ulps of the result, and LOG_SOFTMAX's in ulps of max(|result|, 1), which is at least
# half its terms' size: twice the bound.
_SWEEP_ULPS = {"SOFTMAX": int(softmax_ulps(8, 64)) + 1, "LOG_SOFTMAX": 2 * LOG_SOFTMAX_ULPS + 1}
_SWEEP_MAGNITUDE = {"LOG_SOFTMAX": 1.0}


def _tensor(data_type: DataType, sizes: tuple[int, ...]) -> TensorDesc:
    return TensorDesc(data_type=data_type, sizes=sizes)


def _desc(kind: str, data_type: DataType, sizes: tuple[int, ...], axes: Any = None) -> Any:
    fields: dict[str, Any] = {"axes": axes} if axes is not None else {}
    tensor = _tensor(data_type, sizes)
    return softmax.DESCS[kind](input_tensor=tensor, output_tensor=tensor, **fields)


def _support_case_of(row: Normalization, *, last: bool) -> Any:
    kind = row.kinds[0] if last else row.kinds[1]
    # Groups of two equal values (0.5 each, HARDMAX's 1 and 0: exact in every type); a
    # LOG_SOFTMAX group of one (0: -log 2 rounds differently in float16).
    group = 1 if row.name == "LOG_SOFTMAX" else 2

    def case(rank: int, data_type: DataType, index_type: Any) -> tuple[Any, tuple[np.ndarray]]:
        del index_type
        sizes = (*(1,) * (rank - 2), 3, group) if rank >= 2 else (group,)
        if not last and rank >= 3:
            sizes = (2, *sizes[1:])  # a leading dimension the FL 5_1 versions may keep
        data = np.repeat(np.arange(math.prod(sizes) // group) % 7, group).reshape(sizes)
        return _desc(kind, data_type, sizes, None if last else (rank - 1,)), (
            data.astype(data_type.dtype),
        )

    return case


def _entry(
    example_id: str,
    kind: str,
    source: str,
    attrs: dict[str, Any],
    x: tuple[list[int], list[Any]],
    y: list[Any],
    notes: str,
    status: str,
) -> dict[str, Any]:
    sizes, data = x
    return {
        "id": example_id,
        "op": f"DML_OPERATOR_{kind}",
        "source": source,
        "attrs": attrs,
        "inputs": {"InputTensor": {"sizes": sizes, "dtype": "FLOAT32", "data": data}},
        "expected": {"sizes": sizes, "dtype": "FLOAT32", "data": y},
        "notes": notes,
        "status": status,
    }


# The HARDMAX1 page's input and its three examples' outputs, by their Axes
# (MicrosoftDocs/windows-ai-docs@f9f7981f, docs/directml/api/
# ns-directml-dml_activation_hardmax1_operator_desc.md). The LOG_SOFTMAX1 page prints
# the same three, an erratum (tests/test_softmax.py holds them to dml.hardmax).
PAGE_INPUT = ([2, 2, 2], [[[12, 0], [-101, 11]], [[3, 234], [0, -101]]])
PAGE_OUTPUTS: dict[tuple[int, ...], list[Any]] = {
    (1,): [[[1, 0], [0, 1]], [[1, 1], [0, 0]]],
    (0,): [[[1, 0], [0, 1]], [[0, 1], [1, 0]]],
    (0, 2): [[[0, 0], [0, 1]], [[0, 1], [0, 0]]],
}
_PAGE = (
    "MicrosoftDocs/windows-ai-docs@f9f7981f:docs/directml/api/"
    "ns-directml-dml_activation_hardmax1_operator_desc.md"
)

EXAMPLES: dict[str, tuple[dict[str, Any], ...]] = {
    "ACTIVATION_HARDMAX1": tuple(
        _entry(
            f"hardmax1-ex{number}",
            "ACTIVATION_HARDMAX1",
            f"{_PAGE} (Example {number})",
            {"AxisCount": len(axes), "Axes": list(axes)},
            PAGE_INPUT,
            output,
            "As the page prints it: the first maximum of each group over the axes.",
            "valid",
        )
        for number, (axes, output) in enumerate(PAGE_OUTPUTS.items(), start=1)
    ),
    "ACTIVATION_HARDMAX": (
        _entry(
            "hardmax-dmljax-1",
            "ACTIVATION_HARDMAX",
            "dmljax: the DML_ACTIVATION_HARDMAX_OPERATOR_DESC page has no example",
            {},
            ([1, 1, 2, 3], [[[[1, 5, 5], [-2, -7, -3]]]]),
            [[[[0, 1, 0], [1, 0, 0]]]],
            "Worked by hand: the last dimension of each row; the first of two 5s wins.",
            "dmljax",
        ),
    ),
    # Softmax of [a, a + ln 3] is [1/4, 3/4]: exact where the inputs are ln's of small
    # integers, which they are not; these use 0 and equal values, whose results are exact.
    "ACTIVATION_SOFTMAX": (
        _entry(
            "softmax-dmljax-1",
            "ACTIVATION_SOFTMAX",
            "dmljax: the DML_ACTIVATION_SOFTMAX_OPERATOR_DESC page has no example",
            {},
            ([1, 1, 2, 4], [[[[7, 7, 7, 7], [-3, -3, -3, -3]]]]),
            [[[[0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25]]]],
            "Worked by hand: four equal values share the sum equally.",
            "dmljax",
        ),
    ),
    "ACTIVATION_SOFTMAX1": (
        _entry(
            "softmax1-dmljax-1",
            "ACTIVATION_SOFTMAX1",
            "dmljax: the DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC page has no example",
            {"AxisCount": 2, "Axes": [0, 2]},
            ([2, 2, 2], [[[5, 5], [0, -200]], [[5, 5], [-200, -200]]]),
            [[[0.25, 0.25], [1, 0]], [[0.25, 0.25], [0, 0]]],
            "Worked by hand: x[:, 0, :] is four 5s, a quarter each; in x[:, 1, :] the 0 "
            "takes everything, as exp(-200) is 0 in float32.",
            "dmljax",
        ),
    ),
    "ACTIVATION_LOG_SOFTMAX": (
        _entry(
            "log-softmax-dmljax-1",
            "ACTIVATION_LOG_SOFTMAX",
            "dmljax: the DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC page has no example",
            {},
            ([1, 1, 2, 1], [[[[3], [-8]]]]),
            [[[[0], [0]]]],
            "Worked by hand: a group of one element is log(1) = 0.",
            "dmljax",
        ),
    ),
    "ACTIVATION_LOG_SOFTMAX1": (
        _entry(
            "log-softmax1-dmljax-1",
            "ACTIVATION_LOG_SOFTMAX1",
            "dmljax: the LOG_SOFTMAX1 page's examples print HARDMAX1's outputs, 1 and 0, "
            "which no log-softmax gives (an erratum)",
            {"AxisCount": 2, "Axes": [0, 2]},
            ([2, 1, 2], [[[3, -197]], [[-197, -197]]]),
            [[[0, -200]], [[-200, -200]]],
            "Worked by hand: x - max over the group, less log(1 + 3 * exp(-200)), which is 0 "
            "in float32.",
            "dmljax",
        ),
    ),
}
"""Each version's worked examples, in the doc examples' form."""


def _values(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
    """Multiples of 1/4 in [-4, 4]: exact in every float type, and so are their
    differences, so the only roundings are the formula's."""
    return (rng.integers(-16, 16, size=shape, endpoint=True) / 4).astype(dtype)


def _sweep_of(row: Normalization) -> Any:
    function = softmax.FUNCTIONS[row.face]

    def sweep(rng: np.random.Generator, dtype: np.dtype[Any], batch: int = 2) -> sweeps.SweepCase:
        """The face of one row on 1 to 4 dimensions, over one axis (a negative one now and
        then) or several."""
        rank = int(rng.integers(1, 4, endpoint=True))
        shape = sweeps.draw_shape(rng, rank, 1, 4)
        count = int(rng.integers(1, rank, endpoint=True))
        chosen = tuple(int(a) for a in rng.permutation(rank)[:count])
        axes: int | tuple[int, ...] = (
            chosen[0] - rank if count == 1 and rng.random() < 0.5 else chosen
        )
        members = tuple((_values(rng, shape, dtype),) for _ in range(batch))
        normalized = tuple(a % rank for a in ((axes,) if isinstance(axes, int) else axes))

        def fn(x: jax.Array) -> jax.Array:
            return function(x, axes)

        return sweeps.SweepCase(
            label=f"{sweeps.label(shape, dtype)} axes {axes}",
            fn=fn,
            batch=members,
            expected=tuple(row.reference(x, normalized).astype(dtype) for (x,) in members),
            linear_argnums=(0,),
            linear=False,
            ulps=_SWEEP_ULPS.get(row.name, 0),
            magnitude=_SWEEP_MAGNITUDE.get(row.name, 0.0),
            differentiable=not row.exact,
        )

    return sweep


def _namesake(row: Normalization) -> Any:
    """The hand-written jax form of the face over the last axis."""
    if row.name == "HARDMAX":
        return lambda x: jax.nn.one_hot(jnp.argmax(x, axis=-1), x.shape[-1], dtype=x.dtype)
    return getattr(jax.nn, row.face)


def _bench_of(row: Normalization) -> Any:
    function, namesake = softmax.FUNCTIONS[row.face], _namesake(row)

    def make_args(key: jax.Array, quick: bool) -> tuple[jax.Array, ...]:
        side = 512 if quick else 4096  # 1 MiB / 64 MiB of f32
        return (operands.normal(key, (side, side)),)

    def bytes_moved(args: Sequence[jax.Array]) -> int:
        return 2 * args[0].nbytes

    def tiny(key: jax.Array) -> tuple[jax.Array, ...]:
        return (operands.normal(key, (8, 8)),)

    def desc(x: jax.Array) -> Any:
        return _desc(row.kinds[1], DataType.FLOAT32, tuple(x.shape), (x.ndim - 1,))

    def bench() -> list[Case | EagerCase]:
        """The face over the rows of a 4096x4096 float32 against jax.nn's (HARDMAX: a
        one_hot of jnp.argmax), and eagerly on 8x8."""
        return [
            Case(
                name=f"{row.face} float32",
                operator=row.kinds[1],
                make_args=make_args,
                dmljax_fn=function,
                jnp_fn=namesake,
                bytes_moved=bytes_moved,
            ),
            EagerCase(
                name=f"{row.face} eager",
                operator=row.kinds[1],
                desc=desc,
                functional=function,
                jnp_fn=namesake,
                make_args=tiny,
            ),
        ]

    return bench


def _face_example_of(row: Normalization) -> Any:
    function = softmax.FUNCTIONS[row.face]

    def face(example: Any) -> jax.Array:
        (x,) = example.inputs
        return function(jnp.asarray(x), example.desc.axes)

    return face


def _checks(row: Normalization, *, last: bool) -> OperatorChecks:
    kind = row.kinds[0] if last else row.kinds[1]
    first = ROWS[0]
    return OperatorChecks(
        next(op for op in softmax.FAMILY if op.name == f"DML_OPERATOR_{kind}"),
        structure_checked_on=(
            None if row is first else f"DML_OPERATOR_{first.kinds[0] if last else first.kinds[1]}"
        ),
        doc_example_face=None if last else _face_example_of(row),
        sweep=None if last else _sweep_of(row),
        bench=None if last else _bench_of(row),
        documented_support=DOCUMENTED_FIRST if last else DOCUMENTED_AXES,
        support_case=_support_case_of(row, last=last),
        computes=f"{row.page}, checked against its NumPy reference (tests/test_softmax.py)",
        face_dtypes=softmax.FACE_DTYPES,
        not_smooth=(
            "a staircase: 1 at each group's first maximum, 0 elsewhere" if row.exact else None
        ),
        examples=EXAMPLES[kind],
    )


CHECKS = tuple(_checks(row, last=last) for row in ROWS for last in (False, True))
