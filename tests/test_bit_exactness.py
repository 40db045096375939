"""Data movement never touches the bits: special floats and NaN payloads, bit for bit.

Every float value an operator moves comes out as it went in, on both faces, under jit,
vmap and with jit disabled, for every float type JAX has (float64 under x64, bfloat16,
the float8 types): NaNs of either sign, signaling NaNs and payloads, infinities, signed
zeros and subnormals. The expected bits come from NumPy moving the integer bit patterns
the same way.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from dmljax._src.checking.operators import all_checks

T = dml.DataType
U32 = T.UINT32


def td(sizes: Any, data_type: Any = T.FLOAT32) -> dml.TensorDesc:
    return dml.TensorDesc(data_type=data_type, sizes=sizes)


# Data movement must never touch the bits: NaNs of either sign, infinities, signed
# zeros, subnormals and (second test) signaling NaNs and NaN payloads come out as
# they went in. The expected bits come from NumPy moving the integer bit patterns
# the same way.

_FLOATS: dict[str, tuple[Any, Any]] = {
    "float32": (np.float32, np.uint32),
    "float16": (np.float16, np.uint16),
    "bfloat16": (jnp.bfloat16, np.uint16),
}
# NaN, -NaN, +inf, -inf, -0.0, +0.0, the smallest subnormals of both signs, the
# largest finite value, -1.5.
_SPECIAL_VALUES = {
    "float32": [0x7FC00000, 0xFFC00000, 0x7F800000, 0xFF800000, 0x80000000,
                0x00000000, 0x00000001, 0x80000001, 0x7F7FFFFF, 0xBFC00000],
    "float16": [0x7E00, 0xFE00, 0x7C00, 0xFC00, 0x8000,
                0x0000, 0x0001, 0x8001, 0x7BFF, 0xBE00],
    "bfloat16": [0x7FC0, 0xFFC0, 0x7F80, 0xFF80, 0x8000,
                 0x0000, 0x0001, 0x8001, 0x7F7F, 0xBFC0],
}  # fmt: skip
# Signaling NaNs and NaN payloads of both signs, the all-ones NaNs, and a few others.
_NAN_PAYLOADS = {
    "float32": [0x7F800001, 0xFF800001, 0x7FC0BEEF, 0xFFC0BEEF, 0x7FFFFFFF,
                0xFFFFFFFF, 0x80000000, 0x7F800000, 0x3F800000, 0xBF800000],
    "float16": [0x7C01, 0xFC01, 0x7E5A, 0xFE5A, 0x7FFF,
                0xFFFF, 0x8000, 0x7C00, 0x3C00, 0xBC00],
    "bfloat16": [0x7F81, 0xFF81, 0x7FDA, 0xFFDA, 0x7FFF,
                 0xFFFF, 0x8000, 0x7F80, 0x3F80, 0xBF80],
}  # fmt: skip
_WIDTH = 10
_RNG = np.random.default_rng(7)
_PERMUTATION = _RNG.permutation(_WIDTH)  # a gather that reads every element
_PERMUTATIONS = np.stack([_RNG.permutation(_WIDTH) for _ in range(2)])
# Scatter into row 1 along axis 0: row 0 keeps the data, row 1 takes the updates.
_SCATTER_INDICES = np.ones((1, _WIDTH), np.int32)
_LENGTHS = np.array([[_WIDTH], [4]], np.int32)  # row 0 reversed whole, row 1 its first 4
# GATHER_ND reads every point (row, permuted column): _PERMUTATION along axis 1 again.
_POINTS = np.stack(np.broadcast_arrays(np.arange(2)[:, None], _PERMUTATION[None]), axis=-1)


def _bits(dtype_name: str, values: dict[str, list[int]]) -> np.ndarray:
    """The values as row 0 and, reversed, as row 1 of a (2, 10) array of bit patterns."""
    row = np.array(values[dtype_name], _FLOATS[dtype_name][1])
    return np.stack([row, row[::-1]])


def _updates(x: np.ndarray) -> np.ndarray:
    """Every value once more, in another order, as scatter updates."""
    return np.ascontiguousarray(x[:1, _PERMUTATION])


def _expected_bits(op: str, bits: np.ndarray, dtype: Any) -> np.ndarray:
    # The fill is 0 in the data type: NaN where the type has no zero (float8_e8m0fnu).
    zero = np.asarray(0.0).astype(dtype).view(bits.dtype)
    if op in ("gather", "gather_nd"):
        return np.take(bits, _PERMUTATION, axis=1)
    if op == "gather_elements":
        return np.take_along_axis(bits, _PERMUTATIONS, axis=1)
    if op in ("scatter", "scatter_nd"):
        out = bits.copy()
        np.put_along_axis(out, _SCATTER_INDICES, _updates(bits), axis=0)
        return out
    if op == "slice1":
        return bits[::-1, ::-1]
    if op == "slice_grad":
        out = np.full((2, 20), zero, bits.dtype)
        out[:, 19::-2] = bits
        return out
    if op == "join":
        return np.concatenate([bits, bits], axis=1)
    if op == "split":
        return bits[:, 3:]
    if op == "reverse_subsequences":
        return np.stack([bits[0, ::-1], np.concatenate([bits[1, 3::-1], bits[1, 4:]])])
    if op == "one_hot":
        return np.where(np.eye(_WIDTH, dtype=bool), bits[0, 1], bits[0, 0])
    if op == "pad":
        return np.pad(bits, ((0, 1), (3, 12)), mode="reflect")
    if op == "pad_constant":
        return np.pad(bits, ((0, 1), (3, 2)), constant_values=zero)
    return np.tile(bits, (2, 3))


def _functional(op: str, x: Any, updates: Any) -> jax.Array:
    if op == "gather":
        return dml.gather(x, _PERMUTATION.astype(np.int32), axis=1)
    if op == "gather_elements":
        return dml.gather_elements(x, _PERMUTATIONS.astype(np.int32), axis=1)
    if op == "scatter":
        return dml.scatter(x, _SCATTER_INDICES, updates, axis=0)
    if op == "gather_nd":
        return dml.gather_nd(x, _POINTS.astype(np.int32))
    if op == "scatter_nd":
        return dml.scatter_nd(x, np.ones((1, 1), np.int32), updates)
    if op == "slice1":
        return dml.slice1(x, offsets=(0, 0), sizes=x.shape, strides=(-1, -1))
    if op == "slice_grad":
        return dml.slice_grad(x, (2, 20), offsets=(0, 0), sizes=(2, 20), strides=(1, -2))
    if op == "join":
        # x itself twice: XLA:CPU float-converts bfloat16 slices fused into a jit, the
        # caller's as much as any.
        return dml.join((x, x), axis=1)
    if op == "split":
        return dml.split(x, (3, 7), axis=1)[1]
    if op == "reverse_subsequences":
        return dml.reverse_subsequences(x, _LENGTHS, axis=1)
    if op == "one_hot":
        return dml.one_hot(np.arange(_WIDTH, dtype=np.int32), x[0, :2], depth=_WIDTH)
    if op == "pad":
        return dml.pad(x, (0, 3), (1, 12), mode="reflection")
    if op == "pad_constant":
        return dml.pad(x, (0, 3), (1, 2))
    return dml.tile(x, (2, 3))


def _desc_face(op: str, x: np.ndarray, updates: np.ndarray) -> jax.Array:
    data_type = T.from_dtype(x.dtype)
    data = td(x.shape, data_type)
    if op == "gather":
        desc = dml.GatherOperatorDesc(
            input_tensor=data, indices_tensor=td((1, _WIDTH), U32), output_tensor=data,
            axis=1, index_dimensions=1,
        )  # fmt: skip
        return dml.compile_operator(desc)(x, _PERMUTATION.astype(np.uint32).reshape(1, -1))
    if op == "gather_elements":
        desc = dml.GatherElementsOperatorDesc(
            input_tensor=data, indices_tensor=td(x.shape, U32), output_tensor=data, axis=1
        )
        return dml.compile_operator(desc)(x, _PERMUTATIONS.astype(np.uint32))
    if op == "scatter":
        desc = dml.ScatterOperatorDesc(
            input_tensor=data, indices_tensor=td(_SCATTER_INDICES.shape, U32),
            updates_tensor=td(updates.shape, data_type), output_tensor=data, axis=0,
        )  # fmt: skip
        return dml.compile_operator(desc)(x, _SCATTER_INDICES.astype(np.uint32), updates)
    if op == "gather_nd":
        desc = dml.GatherNdOperatorDesc(
            input_tensor=data, indices_tensor=td((2, _WIDTH, 2), U32), output_tensor=td(
                (1, *x.shape), data_type), input_dimension_count=2, indices_dimension_count=3,
        )  # fmt: skip
        padded = x.reshape(1, *x.shape)
        desc = dataclasses.replace(desc, input_tensor=td(padded.shape, data_type))
        return dml.compile_operator(desc)(padded, _POINTS.astype(np.uint32))[0]
    if op == "scatter_nd":
        desc = dml.ScatterNdOperatorDesc(
            input_tensor=data, indices_tensor=td((1, 1), U32), updates_tensor=td(
                updates.shape, data_type), output_tensor=data, input_dimension_count=2,
            indices_dimension_count=2,
        )  # fmt: skip
        return dml.compile_operator(desc)(x, np.ones((1, 1), np.uint32), updates)
    if op == "slice1":
        desc = dml.Slice1OperatorDesc(
            input_tensor=data, output_tensor=data, input_window_offsets=(0, 0),
            input_window_sizes=x.shape, input_window_strides=(-1, -1),
        )  # fmt: skip
        return dml.compile_operator(desc)(x)
    if op == "slice_grad":
        desc = dml.SliceGradOperatorDesc(
            input_gradient_tensor=data, output_gradient_tensor=td((2, 20), data_type),
            input_window_offsets=(0, 0), input_window_sizes=(2, 20),
            input_window_strides=(1, -2),
        )  # fmt: skip
        return dml.compile_operator(desc)(x)
    if op == "reverse_subsequences":
        desc = dml.ReverseSubsequencesOperatorDesc(
            input_tensor=data, sequence_lengths_tensor=td(_LENGTHS.shape, U32),
            output_tensor=data, axis=1,
        )  # fmt: skip
        return dml.compile_operator(desc)(x, _LENGTHS.astype(np.uint32))
    if op == "one_hot":
        desc = dml.OneHotOperatorDesc(
            indices_tensor=td((_WIDTH, 1), U32), values_tensor=td((1, 2), data_type),
            output_tensor=td((_WIDTH, _WIDTH), data_type), axis=1,
        )  # fmt: skip
        indices = np.arange(_WIDTH, dtype=np.uint32).reshape(_WIDTH, 1)
        return dml.compile_operator(desc)(indices, np.ascontiguousarray(x[:1, :2]))
    if op == "join":
        desc = dml.JoinOperatorDesc(
            input_tensors=(data, data), output_tensor=td((2, 20), data_type), axis=1,
        )  # fmt: skip
        return dml.compile_operator(desc)(x, x)
    if op == "split":
        desc = dml.SplitOperatorDesc(
            input_tensor=data, output_tensors=(td((2, 3), data_type), td((2, 7), data_type)),
            axis=1,
        )  # fmt: skip
        return dml.compile_operator(desc)(x)[1]
    if op in ("pad", "pad_constant"):
        start, end = ((0, 3), (1, 12)) if op == "pad" else ((0, 3), (1, 2))
        padded = tuple(n + a + b for n, a, b in zip(x.shape, start, end, strict=True))
        desc = dml.Padding1OperatorDesc(
            input_tensor=data, output_tensor=td(padded, data_type),
            padding_mode=dml.PaddingMode.REFLECTION if op == "pad" else dml.PaddingMode.CONSTANT,
            padding_value_data_type=data_type, padding_value=0,
            start_padding=start, end_padding=end,
        )  # fmt: skip
        return dml.compile_operator(desc)(x)
    tiled = tuple(size * repeat for size, repeat in zip(x.shape, (2, 3), strict=True))
    desc = dml.TileOperatorDesc(
        input_tensor=data, output_tensor=td(tiled, data_type), repeats=(2, 3)
    )
    return dml.compile_operator(desc)(x)


def _functional_in_jit(op: str, x: Any, updates: Any) -> jax.Array:
    return jax.jit(functools.partial(_functional, op))(x, updates)


_OPS = (
    "gather",
    "gather_elements",
    "gather_nd",
    "scatter",
    "scatter_nd",
    "slice1",
    "tile",
    "pad",
    "pad_constant",
    "join",
    "split",
    "slice_grad",
)
_FACES: dict[str, Callable[[str, Any, Any], jax.Array]] = {
    "desc": _desc_face,
    "functional": _functional,
    "functional-in-jit": _functional_in_jit,
}
# DirectML has no bfloat16, so the desc face runs float32 and float16 only.
_FACES_AND_DTYPES = [
    ("desc", "float32"),
    ("desc", "float16"),
    *((face, name) for face in ("functional", "functional-in-jit") for name in _FLOATS),
]


def _assert_moves_bits_exactly(op: str, face: str, bits: np.ndarray, dtype: Any) -> None:
    x = bits.view(dtype)
    out = np.asarray(_FACES[face](op, x, _updates(x)))
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(out.view(bits.dtype), _expected_bits(op, bits, dtype))


@pytest.mark.parametrize("op", _OPS)
@pytest.mark.parametrize(("face", "dtype_name"), _FACES_AND_DTYPES)
def test_special_floats_pass_through_bit_exactly(op: str, face: str, dtype_name: str) -> None:
    bits = _bits(dtype_name, _SPECIAL_VALUES)
    _assert_moves_bits_exactly(op, face, bits, _FLOATS[dtype_name][0])


def _eager_vmap(op: str, x: Any, updates: Any) -> jax.Array:
    return jax.vmap(functools.partial(_functional, op))(x[None], updates[None])[0]


def _without_jit(op: str, x: Any, updates: Any) -> jax.Array:
    with jax.disable_jit():
        return _functional(op, x, updates)


_FACES["functional-eager-vmap"] = _eager_vmap
_FACES["functional-disable-jit"] = _without_jit
# Every float type JAX has: float64 under x64, the float8 types (sub-byte floats have no NaN).
_ALL_FLOATS = ("float64", "float32", "float16", "bfloat16",
               *(n for n in dir(jnp) if n.startswith("float8_")))  # fmt: skip


def _payloads(name: str) -> np.ndarray:
    """Ten bit patterns of ``name``: NaN payloads of both signs first, then others."""
    if name in _NAN_PAYLOADS:
        row = np.array(_NAN_PAYLOADS[name], _FLOATS[name][1])
    elif name == "float64":
        row = np.array([0x7FF0000000000001, 0xFFF0000000000001, 0x7FF8DEADBEEF0000,
                        0xFFF8DEADBEEF0000, 0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF,
                        0x8000000000000000, 0x7FF0000000000000, 0x3FF0000000000000,
                        0xBFF0000000000000], np.uint64)  # fmt: skip
    else:
        every = np.arange(256, dtype=np.uint8)
        nan = np.isnan(every.view(getattr(jnp, name)).astype(np.float32))
        nans = every[nan][:6]
        row = np.concatenate([nans, every[~nan][len(nans) - _WIDTH :]])
    return np.stack([row, row[::-1]])


def _nan_payload_params() -> list[Any]:
    # DirectML has no bfloat16 or float8 types: the desc face runs the other three.
    params = [("desc", name) for name in ("float64", "float32", "float16")]
    params += [(face, name) for face in _FACES if face != "desc" for name in _ALL_FLOATS]
    return [pytest.param(op, face, name) for op in (*_OPS, "reverse_subsequences", "one_hot")
            for face, name in params]  # fmt: skip


@pytest.mark.parametrize(("op", "face", "dtype_name"), _nan_payload_params())
def test_nan_payloads_pass_through_bit_exactly(op: str, face: str, dtype_name: str) -> None:
    bits = _payloads(dtype_name)
    dtype = np.float64 if dtype_name == "float64" else getattr(jnp, dtype_name)
    with jax.enable_x64(dtype_name == "float64"):
        try:
            _assert_moves_bits_exactly(op, face, bits, dtype)
        except dml.errors.InvalidArgumentError as error:
            if "never supports FLOAT64" not in str(error):
                raise
            pytest.skip("DirectML's support table has no FLOAT64 for this operator")


# --- Every face, from its companion's sweep: what it moves keeps its bits --------------------

_SWEPT = [checks for checks in all_checks().values() if checks.sweep is not None]
_SPECIAL_F32 = np.array(_SPECIAL_VALUES["float32"] + _NAN_PAYLOADS["float32"], np.uint32)
_TAG = 2**20  # tags 2**20 + i are exact in float32, and no sum of two is a tag


@pytest.mark.parametrize("checks", _SWEPT, ids=lambda c: c.operator.name)
def test_every_face_moves_special_floats_bit_exactly(checks: Any) -> None:
    # The face runs once on tagged data (distinct values 2**20 + i) to learn where each
    # output element comes from, then on special floats and NaN payloads at the same
    # positions: an element that came from one input element must carry its bits. An
    # element that is no tag (a fill, a sum) is not a move, and is not compared.
    compared = 0
    for seed in range(3):
        case = checks.sweep(np.random.default_rng(seed), np.dtype(np.float32))
        args = list(case.batch[0])
        tagged, special, source_bits = list(args), list(args), []
        offset = 0
        for i in case.linear_argnums:
            size = args[i].size
            tagged[i] = (_TAG + offset + np.arange(size)).astype(np.float32).reshape(args[i].shape)
            bits = np.resize(np.roll(_SPECIAL_F32, seed + i), size)
            special[i] = bits.view(np.float32).reshape(args[i].shape)
            source_bits.append(bits)
            offset += size
        every_bit = np.concatenate(source_bits)
        for fn in (case.fn, jax.jit(case.fn)):
            tags = jax.tree.leaves(fn(*tagged))
            moved = jax.tree.leaves(fn(*special))
            for tag, out in zip(tags, moved, strict=True):
                if out.dtype != np.float32:
                    continue  # a conversion (CAST to another type) moves no bits
                index = np.asarray(tag, np.float64).ravel() - _TAG
                is_move = (index >= 0) & (index < offset) & (index == np.round(index))
                got = np.asarray(out).view(np.uint32).ravel()[is_move]
                want = every_bit[index[is_move].astype(np.int64)]
                np.testing.assert_array_equal(got, want, err_msg=case.label)
                compared += got.size
    assert compared > 0, "no element moved: nothing was checked"
