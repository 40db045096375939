"""Data movement never touches the bits: special floats and NaN payloads, bit for bit.

Every float an operator moves comes out as it went in, on both faces, for every float
type JAX has (float64 under x64, float32, float16, bfloat16 and the float8 types): NaNs of
either sign, signaling NaNs and payloads, infinities, signed zeros, subnormals and the
largest finite values. Nothing here names an operator: the functional faces run their
companions' sweeps, eagerly, under ``vmap`` and with jit disabled; the descs run their
companions' support cases through ``compile_operator``.

Each case runs first on tagged float32 data (distinct values ``2**20 + i``) to learn where
every output element comes from, then on special bit patterns at the same positions: an
element that came from one input element must carry its bits. An element that is no
tag (a fill value, a sum, a converted value) is not a move and is not compared.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from dmljax._src.checking.operator_checks import OperatorChecks
from dmljax._src.checking.operators import all_checks
from tests import helpers

T = dml.DataType
_TAG = 2**20  # tags 2**20 + i are exact in float32, and no sum of two is a tag

# Bit patterns per float type: NaN, -NaN, +inf, -inf, -0.0, +0.0, the smallest subnormals
# of both signs, the largest finite value, -1.5; then signaling NaNs and NaN payloads of
# both signs, the all-ones NaNs, and a few others.
_PATTERNS: dict[str, list[int]] = {
    "float32": [0x7FC00000, 0xFFC00000, 0x7F800000, 0xFF800000, 0x80000000,
                0x00000000, 0x00000001, 0x80000001, 0x7F7FFFFF, 0xBFC00000,
                0x7F800001, 0xFF800001, 0x7FC0BEEF, 0xFFC0BEEF, 0x7FFFFFFF,
                0xFFFFFFFF, 0x3F800000, 0xBF800000],
    "float16": [0x7E00, 0xFE00, 0x7C00, 0xFC00, 0x8000, 0x0000, 0x0001, 0x8001, 0x7BFF,
                0xBE00, 0x7C01, 0xFC01, 0x7E5A, 0xFE5A, 0x7FFF, 0xFFFF, 0x3C00, 0xBC00],
    "bfloat16": [0x7FC0, 0xFFC0, 0x7F80, 0xFF80, 0x8000, 0x0000, 0x0001, 0x8001, 0x7F7F,
                 0xBFC0, 0x7F81, 0xFF81, 0x7FDA, 0xFFDA, 0x7FFF, 0xFFFF, 0x3F80, 0xBF80],
    "float64": [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000000,
                0xFFF0000000000000, 0x8000000000000000, 0x0000000000000000,
                0x0000000000000001, 0x8000000000000001, 0x7FEFFFFFFFFFFFFF,
                0x7FF0000000000001, 0xFFF0000000000001, 0x7FF8DEADBEEF0000,
                0xFFF8DEADBEEF0000, 0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF,
                0x3FF0000000000000, 0xBFF0000000000000],
}  # fmt: skip
# Every float type JAX has (sub-byte floats have no NaN, and no desc holds them).
FLOAT_TYPES = (
    *(np.dtype(t) for t in (np.float64, np.float32, np.float16, jnp.bfloat16)),
    *(np.dtype(getattr(jnp, name)) for name in sorted(dir(jnp)) if name.startswith("float8_")),
)
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _as_float32(x: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings():  # ml_dtypes warns of the NaNs it converts
        warnings.simplefilter("ignore", RuntimeWarning)
        return x.astype(np.float32)


def _patterns(dtype: np.dtype[Any]) -> np.ndarray:
    """Special bit patterns of ``dtype``, as unsigned integers of its width."""
    unsigned = _UNSIGNED[dtype.itemsize]
    if dtype.name in _PATTERNS:
        return np.array(_PATTERNS[dtype.name], unsigned)
    # An 8-bit float: every NaN it has (up to six), then its largest values of both signs.
    every = np.arange(256, dtype=np.uint8)
    nan = np.isnan(_as_float32(every.view(dtype)))
    finite = every[~nan]
    return np.concatenate([every[nan][:6], finite[:4], finite[-8:]])


def _special(dtype: np.dtype[Any], shape: tuple[int, ...], shift: int) -> np.ndarray:
    """An array of ``shape`` holding ``dtype``'s special patterns, rotated by ``shift``."""
    bits = np.resize(np.roll(_patterns(dtype), shift), int(np.prod(shape, dtype=np.int64)))
    return bits.view(dtype).reshape(shape)


Run = Callable[[Sequence[Any]], Any]


def _sources(run: Run, args: Sequence[Any], data: Sequence[int]) -> list[np.ndarray]:
    """For each output of ``run``, the flat position (among the elements of the arguments
    at ``data``, one after another) each of its elements came from; -1 where it is no
    move. Learned from a run on tagged float32 data."""
    tagged, offset = list(args), 0
    for i in data:
        shape = np.shape(args[i])
        size = int(np.prod(shape, dtype=np.int64))
        tagged[i] = (_TAG + offset + np.arange(size)).astype(np.float32).reshape(shape)
        offset += size
    sources = []
    for out in jax.tree.leaves(run(tagged)):
        index = np.asarray(out, np.float64).ravel() - _TAG
        is_move = (index >= 0) & (index < offset) & (index == np.round(index))
        sources.append(np.where(is_move, index, -1).astype(np.int64))
    return sources


def _compare_moves(
    run: Run,
    args: Sequence[Any],
    data: Sequence[int],
    dtype: Any,
    sources: list[np.ndarray],
    shift: int = 0,
) -> set[int] | None:
    """``run`` on special ``dtype`` patterns (rotated by ``shift``) at the positions
    ``data`` of ``args``: each output element with a source (:func:`_sources`) must carry
    that source's bits. Returns the patterns that were moved; None when no output is of
    ``dtype`` (a conversion, which moves no bits)."""
    # The patterns go to the elements that move first, one after another, so that a draw
    # that moves n elements moves n patterns (every pattern, for n large enough).
    sizes = [int(np.prod(np.shape(args[i]), dtype=np.int64)) for i in data]
    rolled = np.roll(_patterns(dtype), shift)
    every_bit = np.resize(rolled, sum(sizes))
    movers = np.unique(np.concatenate([np.zeros(0, np.int64), *(s[s >= 0] for s in sources)]))
    every_bit[movers] = np.resize(rolled, movers.size)
    special = list(args)
    for i, part in zip(data, np.split(every_bit, np.cumsum(sizes)[:-1]), strict=True):
        special[i] = part.view(dtype).reshape(np.shape(args[i]))
    moved_patterns: set[int] | None = None
    for source, out in zip(sources, jax.tree.leaves(run(special)), strict=True):
        out = np.asarray(out)
        if out.dtype != dtype:
            continue  # a conversion (CAST to another type) moves no bits
        moved = source >= 0
        got = out.view(every_bit.dtype).ravel()[moved]
        np.testing.assert_array_equal(got, every_bit[source[moved]], err_msg=f"{dtype}")
        moved_patterns = (moved_patterns or set()) | set(got.tolist())
    return moved_patterns


def test_the_patterns_are_what_they_say():
    for dtype in FLOAT_TYPES:
        assert np.isnan(_as_float32(_patterns(dtype).view(dtype))).any(), dtype
        assert len(set(_patterns(dtype).tolist())) == len(_patterns(dtype)), dtype
    f32 = _patterns(np.dtype(np.float32)).view(np.float32)
    assert np.isinf(f32).sum() == 2
    assert np.signbit(f32[np.isnan(f32)]).any()
    assert {np.dtype(n) for n in ("float64", "float32", "float16")} <= set(FLOAT_TYPES)
    assert np.dtype(jnp.bfloat16) in FLOAT_TYPES
    assert sum(dtype.itemsize == 1 for dtype in FLOAT_TYPES) >= 4  # the float8 types


# --- The functional faces, from their companions' sweeps -----------------------------------------

_SWEPT = [checks for checks in all_checks().values() if checks.sweep is not None]
# Eagerly every type; vmapped and op by op (jit disabled, each primitive a program of its
# own) the types of each width and kind: XLA treats the float8 types alike (it computes
# them in a wider type wherever it does).
_TYPES_OF = {
    "vmap": {np.dtype(t) for t in (np.float64, np.float32, np.float16, jnp.bfloat16,
                                   jnp.float8_e4m3fn, jnp.float8_e5m2)},
    "disable_jit": {np.dtype(t) for t in (np.float32, jnp.bfloat16, jnp.float8_e5m2)},
}  # fmt: skip


def _transforms(fn: Callable[..., Any]) -> dict[str, Run]:
    batched = jax.jit(jax.vmap(fn))

    def vmapped(args: Sequence[Any]) -> Any:
        # Unbatched on the host: an eager x[0] is an XLA program of its own.
        out = batched(*(np.asarray(a)[None] for a in args))
        return jax.tree.map(lambda x: np.asarray(x)[0], out)

    def op_by_op(args: Sequence[Any]) -> Any:
        with jax.disable_jit():
            return fn(*args)

    return {"eager": lambda args: fn(*args), "vmap": vmapped, "disable_jit": op_by_op}


@pytest.mark.parametrize("checks", _SWEPT, ids=lambda c: c.operator.name)
def test_every_face_moves_special_floats_bit_exactly(checks: OperatorChecks) -> None:
    # Float32 draws (their statics suit any float type), each for a few of the types, so
    # that the types see different statics. Draws go on until each type was moved eagerly
    # (a draw may move nothing: an empty output, a fill) or converted (CAST to another
    # type). A draw that moves n elements moves min(n, 18) of its type's patterns.
    assert checks.sweep is not None
    if checks.computes is not None:
        pytest.skip(f"{checks.operator.name} computes: {checks.computes}")
    left = list(FLOAT_TYPES)
    for seed in range(4 * len(FLOAT_TYPES)):
        if not left:
            break
        case = checks.sweep(np.random.default_rng(seed), checks.first_dtype)
        args, data = case.batch[0], case.linear_argnums
        types, left = left[:4], left[4:]
        for name, run in _transforms(case.fn).items():
            sources = _sources(run, args, data)
            for dtype in types:
                if dtype not in _TYPES_OF.get(name, FLOAT_TYPES):
                    continue
                with jax.enable_x64(dtype == np.float64):
                    try:
                        moved = _compare_moves(run, args, data, dtype, sources, shift=seed)
                    except AssertionError as error:
                        raise AssertionError(f"{case.label}, {name}: {error}") from None
                if name == "eager" and moved == set():
                    left.append(dtype)  # again, in another draw
    assert left == [], f"no draw moved {[str(dtype) for dtype in left]}"


# --- The descs, from their companions' support cases ---------------------------------------------

_TABLED = [checks for checks in all_checks().values() if checks.support_case is not None]
_DESC_FLOATS = {T.FLOAT64: np.dtype(np.float64), T.FLOAT32: np.dtype(np.float32),
                T.FLOAT16: np.dtype(np.float16)}  # fmt: skip


@pytest.mark.parametrize("checks", _TABLED, ids=lambda c: c.operator.name)
def test_every_desc_moves_special_floats_bit_exactly(checks: OperatorChecks) -> None:
    # Each float type the page's latest table row allows, at its lowest rank.
    if checks.computes is not None:
        pytest.skip(f"{checks.operator.name} computes: {checks.computes}")
    case = checks.support_case
    assert case is not None
    band = checks.documented_support[max(checks.documented_support)]
    (rank, _), data_types, _ = band
    index = helpers.support_index_type(band)
    moved: list[set[int] | None] = []
    with jax.enable_x64(True):
        desc, inputs = case(rank, T.FLOAT32, index)  # the same desc but for its data type
        data = [i for i, x in enumerate(inputs) if np.asarray(x).dtype == np.float32]
        if not data:
            pytest.skip(f"{checks.operator.name} has no float input to move")
        float32 = dml.compile_operator(desc)
        sources = _sources(lambda args: float32(*args), inputs, data)
        for data_type in sorted(set(data_types) & set(_DESC_FLOATS), key=str):
            desc, inputs = case(rank, data_type, index)
            program = dml.compile_operator(desc)
            moved.append(
                _compare_moves(lambda args, p=program: p(*args), inputs, data,
                               _DESC_FLOATS[data_type], sources)
            )  # fmt: skip
    if all(patterns is None for patterns in moved):
        pytest.skip(f"{checks.operator.name} converts: its output has another data type")
    assert any(moved)
