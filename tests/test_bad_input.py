"""Bad input, as one table: every rule of every operator, on the desc and functional faces.

Each row triggers exactly one fault and names the error it must raise: a
:class:`dml.errors.InvalidArgumentError` (or an ``ArgumentTypeError`` for a
value of the wrong Python type) whose ``op`` and ``field`` say where the fault
is, never an XLA error, a Python crash deep inside JAX or a silent result.
Functional rows run eagerly and inside :func:`jax.jit`, where the checks must
fire while tracing; so do calls of a compiled desc. Rows that dmljax cannot pass
yet are marked with the gap they expose (strict xfails). Bit-exact data movement
is ``tests/test_bit_exactness.py``'s.

The rows every operator shares (a spoiled field, call or compile option, an output of
the wrong rank or type, 64-bit data without x64, a face's array of strings) are built
by :func:`operator_rows` from :data:`dml.OPERATORS` and each operator's companion, so a
new operator gets them with no line added here.
"""

# Every row passes a wrong argument on purpose.
# pyright: reportArgumentType=false

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from dmljax._src import contract
from dmljax._src.checking.operators import all_checks
from tests import descs, helpers

T = dml.DataType
FL = dml.FeatureLevel
ArgumentError = dml.errors.ArgumentError
InvalidArgumentError = dml.errors.InvalidArgumentError
ArgumentTypeError = dml.errors.ArgumentTypeError

F32, F16, U32, I32 = T.FLOAT32, T.FLOAT16, T.UINT32, T.INT32
X64_HINT = ("jax_enable_x64", "jax.config.update('jax_enable_x64', True)")
TRACED = ("a traced value", "static_argnames")


class Case(NamedTuple):
    """One row: calling ``trigger`` must raise ``error`` naming ``op`` and ``field``."""

    id: str
    trigger: Callable[[], Any]
    error: type[ArgumentError]
    op: str
    field: str
    fragments: tuple[str, ...] = ()  # more text the message must contain
    gap: str | None = None  # why dmljax cannot pass this row yet (a strict xfail)
    # The generic rows name a tuple or sequence field as a whole: field[i] matches too.
    any_element: bool = False


def row(
    slug: str,
    op: str,
    field: str,
    trigger: Callable[[], Any],
    error: type[ArgumentError] = InvalidArgumentError,
    fragments: tuple[str, ...] = (),
    gap: str | None = None,
) -> list[Case]:
    """A row run once, as written (desc construction, compilation, a traced static value)."""
    return [Case(f"{op}/{slug}", trigger, error, op, field, fragments, gap)]


def eager_and_jit(
    slug: str,
    op: str,
    field: str,
    call: Callable[..., Any],
    *arrays: Any,
    error: type[ArgumentError] = InvalidArgumentError,
    fragments: tuple[str, ...] = (),
    gap: str | None = None,
) -> list[Case]:
    """A row run eagerly and inside ``jax.jit``, with ``arrays`` traced there."""
    case_id = f"{op}/{slug}"
    return [
        Case(f"{case_id}[eager]", lambda: call(*arrays), error, op, field, fragments, gap),
        Case(f"{case_id}[jit]", lambda: jax.jit(call)(*arrays), error, op, field, fragments, gap),
    ]


def traced(make: Callable[[Any], Any], value: Any) -> Callable[[], Any]:
    """A trigger that passes ``value`` through ``jax.jit``, so ``make`` sees a tracer."""
    return lambda: jax.jit(make)(value)


def without_x64(make: Callable[[], Any]) -> Callable[[], Any]:
    def trigger() -> Any:
        with jax.enable_x64(False):
            return make()

    return trigger


def with_x64(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with jax.enable_x64(True):
        return fn(*args, **kwargs)


def td(sizes: Any, data_type: Any = F32, **kwargs: Any) -> dml.TensorDesc:
    return dml.TensorDesc(data_type=data_type, sizes=sizes, **kwargs)


# --- Valid descs, each spoiled in one place per row ----------------------------------------------
# Each builder takes the desc's fields as overrides; the defaults compile at FL LATEST.


# fmt: off
B = descs.desc_builder
tile_desc = B(dml.TileOperatorDesc, input_sizes=(2, 3), output_sizes=(4, 3), repeats=(2, 1))
gather_desc = B(dml.GatherOperatorDesc, input_sizes=(3, 2), indices_sizes=(1, 4),
                output_sizes=(4, 2), axis=0, index_dimensions=1)
gather_elements_desc = B(dml.GatherElementsOperatorDesc, input_sizes=(3, 3),
                         indices_sizes=(2, 3), output_sizes=(2, 3), axis=0)
scatter_desc = B(dml.ScatterOperatorDesc, input_sizes=(3, 3), indices_sizes=(2, 3),
                 updates_sizes=(2, 3), output_sizes=(3, 3), axis=0)
slice1_desc = B(dml.Slice1OperatorDesc, input_sizes=(4, 4), output_sizes=(2, 2),
                input_window_offsets=(0, 1), input_window_sizes=(4, 3),
                input_window_strides=(-2, 2),
                aliases={"offsets": "input_window_offsets", "sizes": "input_window_sizes",
                         "strides": "input_window_strides"})
slice_desc = B(dml.SliceOperatorDesc, input_sizes=(4, 4), output_sizes=(2, 2), offsets=(1, 0),
               sizes=(2, 2), strides=(2, 3))
gather_nd_desc = B(dml.GatherNdOperatorDesc, input_sizes=(3, 2), indices_sizes=(4, 1),
                   output_sizes=(4, 2), input_dimension_count=2, indices_dimension_count=2)
gather_nd1_desc = B(dml.GatherNd1OperatorDesc, input_sizes=(2, 3, 4), indices_sizes=(2, 5, 1),
                    output_sizes=(2, 5, 4), index_type=I32, input_dimension_count=3,
                    indices_dimension_count=3, batch_dimension_count=1)
scatter_nd_desc = B(dml.ScatterNdOperatorDesc, input_sizes=(3, 2), indices_sizes=(2, 1),
                    updates_sizes=(2, 2), output_sizes=(3, 2), input_dimension_count=2,
                    indices_dimension_count=2)
_PADDING: dict[str, Any] = dict(input_sizes=(2, 3), output_sizes=(3, 5),
                                padding_mode=dml.PaddingMode.CONSTANT, padding_value=0.0,
                                start_padding=(1, 0), end_padding=(0, 2))
padding_desc = B(dml.PaddingOperatorDesc, **_PADDING)
padding1_desc = B(dml.Padding1OperatorDesc, **_PADDING, padding_value_data_type=F32)
join_desc = B(dml.JoinOperatorDesc, input_tensors=(td((2, 3)), td((2, 1))), output_sizes=(2, 4),
              axis=1)
split_desc = B(dml.SplitOperatorDesc, input_sizes=(2, 4), output_tensors=(td((2, 3)), td((2, 1))),
               axis=1)
slice_grad_desc = B(dml.SliceGradOperatorDesc, input_gradient_sizes=(2, 2),
                    output_gradient_sizes=(4, 4), input_window_offsets=(0, 0),
                    input_window_sizes=(4, 4), input_window_strides=(2, -2))
one_hot_desc = B(dml.OneHotOperatorDesc, indices_sizes=(3, 1), values_sizes=(1, 2),
                 output_sizes=(3, 4), axis=1)
reverse_desc = B(dml.ReverseSubsequencesOperatorDesc, input_sizes=(3, 4),
                 sequence_lengths_sizes=(3, 1), output_sizes=(3, 4), axis=1)
diagonal_desc = B(dml.DiagonalMatrixOperatorDesc, output_sizes=(1, 1, 3, 4), offset=0, value=1.0)
diagonal1_desc = B(dml.DiagonalMatrix1OperatorDesc, input_sizes=(3, 4), output_sizes=(3, 4),
                   value_data_type=F32, value=0, diagonal_fill_begin=1,
                   diagonal_fill_end=2**31 - 1)
# fmt: on


def compiled(desc: Any) -> dml.CompiledOperator:
    return dml.compile_operator(desc)


def f32(*shape: int) -> np.ndarray:
    return np.zeros(shape, np.float32)


def u32(*shape: int) -> np.ndarray:
    return np.zeros(shape, np.uint32)


def u8(*shape: int) -> np.ndarray:
    return np.zeros(shape, np.uint8)


def i32(*shape: int) -> np.ndarray:
    return np.zeros(shape, np.int32)


STRINGS = np.array(["a", "b", "c"])
_SEQUENCE_INPUTS = ("input_tensors",)
TOO_BIG_FOR_INT64 = 2**70


def desc_rows(operator: dml.Operator) -> list[Case]:
    """Rows every operator desc shares: wrong fields, call-time arguments, compile options.

    The call rows spoil the desc's first input (``input_tensor``, or ONE_HOT's indices).
    """
    op = operator.desc_type.__name__
    build, valid = DESC_BUILDERS[op], VALID_INPUTS[op][0]
    input_shape, first, output = valid.shape, operator.input_fields[0], operator.output_fields[0]
    argument, dtype = f"the {first} argument", valid.dtype.name
    other_dtype = i32 if valid.dtype == np.float32 else f32
    return [
        *row(f"{first}-not-a-tensor-desc", op, first,
             lambda: build(**{first: (2, 3)}), ArgumentTypeError),
        *row(f"{output}-a-numpy-array", op, output,
             lambda: build(**{output: np.zeros((2, 3))}), ArgumentTypeError),
        *eager_and_jit("call-input-of-wrong-rank", op, argument,
                       lambda x, *rest: compiled(build())(x, *rest),
                       valid.reshape(*input_shape, 1), *CALL_EXTRAS[op], fragments=("of shape",)),
        *eager_and_jit("call-input-of-wrong-dtype", op, argument,
                       lambda x, *rest: compiled(build())(x, *rest),
                       other_dtype(*input_shape), *CALL_EXTRAS[op],
                       fragments=(f"of dtype {dtype}",)),
        # Eager only: jax.jit would canonicalize the float64 array to float32.
        *row("call-input-float64-numpy", op, argument,
             lambda: compiled(build())(np.zeros(input_shape), *CALL_EXTRAS[op]),
             fragments=(f".astype('{dtype}')",)),
        *eager_and_jit("call-input-a-list", op, argument,
                       lambda *rest: compiled(build())([0.0] * input_shape[-1], *rest),
                       *CALL_EXTRAS[op], error=ArgumentTypeError),
        *row("call-without-arguments", op, "arguments",
             lambda: compiled(build())(), ArgumentTypeError),
        *row("call-with-one-argument-too-many", op, "arguments",
             lambda: compiled(build())(valid, *CALL_EXTRAS[op], f32(1)), ArgumentTypeError),
        *row("call-with-input-by-keyword", op, first,
             lambda: compiled(build())(**{first: valid}), ArgumentTypeError),
        *row("feature-level-a-string", op, "feature_level",
             lambda: dml.compile_operator(build(), feature_level="FL_4_1"), ArgumentTypeError),  # pyright: ignore[reportCallIssue]
        *row("feature-level-unknown", op, "feature_level",
             lambda: dml.compile_operator(build(), feature_level=0x4200)),
        *row("deterministic-not-a-bool", op, "deterministic",
             lambda: dml.compile_operator(build(), deterministic=1), ArgumentTypeError),  # pyright: ignore[reportCallIssue]
    ]  # fmt: skip


TILE, GATHER, GATHER_ELEMENTS = (
    "TileOperatorDesc",
    "GatherOperatorDesc",
    "GatherElementsOperatorDesc",
)
SCATTER, SLICE1, SLICE = "ScatterOperatorDesc", "Slice1OperatorDesc", "SliceOperatorDesc"
GATHER_ND, GATHER_ND1 = "GatherNdOperatorDesc", "GatherNd1OperatorDesc"
SCATTER_ND = "ScatterNdOperatorDesc"
PADDING, PADDING1 = "PaddingOperatorDesc", "Padding1OperatorDesc"
JOIN, SPLIT = "JoinOperatorDesc", "SplitOperatorDesc"
SLICE_GRAD = "SliceGradOperatorDesc"
ONE_HOT = "OneHotOperatorDesc"
REVERSE = "ReverseSubsequencesOperatorDesc"
DIAGONAL, DIAGONAL1 = "DiagonalMatrixOperatorDesc", "DiagonalMatrix1OperatorDesc"


@functools.cache  # the generic rows ask for it several times per operator
def _valid_case(operator: dml.Operator) -> tuple[Any, tuple[np.ndarray, ...]]:
    """A valid desc of 4 dimensions and its inputs, from the operator's companion."""
    checks = all_checks()[operator.name]
    assert checks.support_case is not None, operator.name
    table = checks.documented_support
    latest = table[max(table)] if table else None
    data_type, other = helpers.support_data_type(latest), helpers.support_index_type(latest)
    return checks.support_case(4, data_type, other)


def _builder(desc: Any) -> Callable[..., Any]:
    """``build(**fields)``: ``desc`` with ``fields`` replaced, validated as a new desc."""
    return lambda **fields: dataclasses.replace(desc, **fields)


# Every operator's valid desc and the arrays of a valid call of it: each generic row spoils
# one thing of these. An operator of one sequence input (JOIN) is called differently.
VALID_CASES = {
    operator.desc_type.__name__: _valid_case(operator)
    for operator in dml.OPERATORS
    if operator.input_fields and operator.input_fields[0] not in _SEQUENCE_INPUTS
}
DESC_BUILDERS: dict[str, Callable[..., Any]] = {
    op: _builder(desc) for op, (desc, _) in VALID_CASES.items()
}
VALID_INPUTS: dict[str, tuple[np.ndarray, ...]] = {
    op: inputs for op, (_, inputs) in VALID_CASES.items()
}
CALL_EXTRAS = {op: inputs[1:] for op, inputs in VALID_INPUTS.items()}
TILE_FN, GATHER_FN, GATHER_ELEMENTS_FN = "dmljax.tile", "dmljax.gather", "dmljax.gather_elements"
SCATTER_FN, SLICE1_FN = "dmljax.scatter", "dmljax.slice1"
GATHER_ND_FN, SCATTER_ND_FN = "dmljax.gather_nd", "dmljax.scatter_nd"
PAD_FN, JOIN_FN, SPLIT_FN = "dmljax.pad", "dmljax.join", "dmljax.split"
SLICE_GRAD_FN, ONE_HOT_FN = "dmljax.slice_grad", "dmljax.one_hot"
REVERSE_FN, DIAGONAL_FN = "dmljax.reverse_subsequences", "dmljax.diagonal_matrix"
REFLECTION, SYMMETRIC, WRAP = (
    dml.PaddingMode.REFLECTION,
    dml.PaddingMode.SYMMETRIC,
    dml.PaddingMode.WRAP,
)

# fmt: off
TABLE: list[Case] = [
    # --- TensorDesc: shared by every desc -------------------------------------------------------
    *row("sizes-product-over-2**32-1", "TensorDesc", "sizes",
         lambda: td((2**16, 2**16 + 1)), fragments=("4294967295",)),
    *row("sizes-a-dimension-over-2**64", "TensorDesc", "sizes[0]",
         lambda: td((2**70,))),
    *row("sizes-empty", "TensorDesc", "sizes", lambda: td(())),
    *row("sizes-nine-dimensions", "TensorDesc", "sizes", lambda: td((1,) * 9)),
    *row("sizes-zero", "TensorDesc", "sizes[1]", lambda: td((2, 0))),
    *row("sizes-negative", "TensorDesc", "sizes[0]", lambda: td((-1,))),
    *row("sizes-float", "TensorDesc", "sizes[0]", lambda: td((2.0,))),
    *row("sizes-bool", "TensorDesc", "sizes[0]", lambda: td((True,))),
    *row("sizes-none-entry", "TensorDesc", "sizes[1]", lambda: td((2, None))),
    *row("sizes-a-string", "TensorDesc", "sizes", lambda: td("23"),
         ArgumentTypeError),
    *row("sizes-none", "TensorDesc", "sizes", lambda: td(None), ArgumentTypeError),
    *row("sizes-a-2d-array", "TensorDesc", "sizes", lambda: td(np.ones((2, 2), int))),
    *row("sizes-traced", "TensorDesc", "sizes",
         traced(lambda s: td(s), np.array([2, 3], np.int32)), fragments=TRACED),
    *row("sizes-entry-traced", "TensorDesc", "sizes[1]",
         traced(lambda s: td((2, s)), 3), fragments=TRACED),
    *row("data_type-a-string", "TensorDesc", "data_type",
         lambda: td((2,), "FLOAT32"), ArgumentTypeError),
    *row("data_type-a-numpy-dtype", "TensorDesc", "data_type",
         lambda: td((2,), np.float32), ArgumentTypeError),
    *row("data_type-unknown-value", "TensorDesc", "data_type", lambda: td((2,), 99)),
    *row("data_type-UNKNOWN", "TensorDesc", "data_type",
         lambda: td((2,), T.UNKNOWN)),
    *row("strides-wrong-length", "TensorDesc", "strides",
         lambda: td((2, 3), strides=(1,))),
    *row("strides-negative", "TensorDesc", "strides[0]",
         lambda: td((2, 3), strides=(-3, 1))),
    *row("strides-span-over-2**32-1", "TensorDesc", "strides",
         lambda: td((2, 3), strides=(2**32 - 1, 1))),
    *row("strides-over-uint32", "TensorDesc", "strides[0]",
         lambda: td((2, 3), strides=(2**40, 1))),
    *row("alignment-over-uint32", "TensorDesc", "guaranteed_base_offset_alignment",
         lambda: td((2,), guaranteed_base_offset_alignment=2**40)),
    *row("total-size-over-uint64", "TensorDesc", "total_tensor_size_in_bytes",
         lambda: td((2,), total_tensor_size_in_bytes=2**70)),
    *row("total-size-over-the-element-limit", "TensorDesc", "total_tensor_size_in_bytes",
         lambda: td((2,), total_tensor_size_in_bytes=2**64 - 4)),
    *row("alignment-not-a-power-of-two", "TensorDesc",
         "guaranteed_base_offset_alignment",
         lambda: td((2,), guaranteed_base_offset_alignment=12)),
    *row("total-size-too-small", "TensorDesc", "total_tensor_size_in_bytes",
         lambda: td((2, 3), total_tensor_size_in_bytes=20)),
    *row("total-size-a-float", "TensorDesc", "total_tensor_size_in_bytes",
         lambda: td((2, 3), total_tensor_size_in_bytes=24.0)),
    *row("from_array-of-a-list", "TensorDesc", "x",
         lambda: dml.TensorDesc.from_array([1.0, 2.0]), ArgumentTypeError),
    *row("from_dtype-bool", "DataType", "dtype",
         lambda: dml.TensorDesc.from_array(np.zeros(2, bool))),
    *row("from_dtype-bfloat16", "DataType", "dtype",
         lambda: T.from_dtype(jnp.bfloat16)),
    *row("from_dtype-not-a-dtype", "DataType", "dtype",
         lambda: T.from_dtype(object()), ArgumentTypeError),
    *row("not-a-desc", "compile_operator", "desc",
         lambda: dml.compile_operator(td((2,))), ArgumentTypeError, ("TileOperatorDesc",)),  # pyright: ignore[reportCallIssue]

    # --- TILE, desc face --------------------------------------------------------------------------
    *row("repeats-an-int", TILE, "repeats", lambda: tile_desc(repeats=2), ArgumentTypeError),
    *row("repeats-a-string", TILE, "repeats", lambda: tile_desc(repeats="21"),
         ArgumentTypeError),
    *row("repeats-none", TILE, "repeats", lambda: tile_desc(repeats=None),
         ArgumentTypeError),
    *row("repeats-float", TILE, "repeats[1]", lambda: tile_desc(repeats=(2, 1.0))),
    *row("repeats-bool", TILE, "repeats[1]", lambda: tile_desc(repeats=(2, True))),
    *row("repeats-none-entry", TILE, "repeats[1]", lambda: tile_desc(repeats=(2, None))),
    *row("repeats-a-2d-array", TILE, "repeats",
         lambda: tile_desc(repeats=np.ones((1, 2), np.int32))),
    *row("repeats-traced", TILE, "repeats",
         traced(lambda r: tile_desc(repeats=r), np.array([2, 1], np.int32)), fragments=TRACED),
    *row("repeats-entry-traced", TILE, "repeats[0]",
         traced(lambda r: tile_desc(repeats=(r, 1)), 2), fragments=TRACED),
    *row("repeats-count", TILE, "repeats",
         lambda: compiled(tile_desc(repeats=(1, 2, 1))), fragments=("RepeatsCount",)),
    *row("repeats-zero", TILE, "repeats[1]",
         lambda: compiled(tile_desc(repeats=(2, 0)))),
    *row("repeats-negative", TILE, "repeats[0]",
         lambda: compiled(tile_desc(repeats=(-2, 1)))),
    *row("repeats-over-2**64", TILE, "output_tensor.sizes",
         lambda: compiled(tile_desc(repeats=(2, 2**70)))),
    *row("tile-output-over-2**32-1-elements", "TensorDesc", "sizes",
         lambda: tile_desc(input_tensor=td((2**16, 1)), output_tensor=td((2**16, 2**17)),
                           repeats=(1, 2**17))),
    *row("output-sizes", TILE, "output_tensor.sizes",
         lambda: compiled(tile_desc(output_tensor=td((4, 6))))),
    *row("output-rank", TILE, "output_tensor.sizes",
         lambda: compiled(tile_desc(output_tensor=td((1, 4, 3))))),
    *row("output-data-type", TILE, "output_tensor.data_type",
         lambda: compiled(tile_desc(output_tensor=td((4, 3), F16)))),
    *row("rank-2-at-FL_3_0", TILE, "input_tensor.sizes",
         lambda: dml.compile_operator(tile_desc(), feature_level=FL.FL_3_0),
         fragments=("FL_3_1",)),
    *row("int32-at-FL_2_0", TILE, "input_tensor.data_type",
         lambda: dml.compile_operator(
             tile_desc(td((1, 1, 2, 3), I32), td((1, 1, 4, 3), I32), (1, 1, 2, 1)),
             feature_level=FL.FL_2_0)),
    *row("float64-never", TILE, "input_tensor.data_type",
         lambda: compiled(tile_desc(td((2, 3), T.FLOAT64), td((4, 3), T.FLOAT64))),
         fragments=("never supports FLOAT64",)),
    *row("int4", TILE, "input_tensor.data_type",
         lambda: compiled(tile_desc(td((2, 3), T.INT4), td((4, 3), T.INT4)))),
    # Strided tensors are bound as flat buffers (DML_BUFFER_TENSOR_DESC.Strides).
    *eager_and_jit("call-strided-input-buffer-too-short", TILE, "the input_tensor argument",
                   lambda b: compiled(tile_desc(td((2, 3), strides=(1, 2))))(b), f32(5),
                   fragments=("at least 6",)),
    *eager_and_jit("call-strided-input-not-flat", TILE, "the input_tensor argument",
                   lambda b: compiled(tile_desc(td((2, 3), strides=(1, 2))))(b), f32(2, 3)),
    *eager_and_jit("call-out_buffer-for-a-packed-output", TILE, "out_buffer",
                   lambda x, b: compiled(tile_desc())(x, out_buffer=b), f32(2, 3), f32(12)),
    *row("strided-output-overlapping", TILE, "output_tensor.strides[0]",
         lambda: compiled(tile_desc(output_tensor=td((4, 3), strides=(0, 1))))),
    *row("int64-without-x64", TILE, "input_tensor.data_type",
         without_x64(lambda: compiled(tile_desc(td((2, 3), T.INT64), td((4, 3), T.INT64)))),
         fragments=X64_HINT),

    # --- GATHER, desc face ------------------------------------------------------------------------
    *row("indices_tensor-a-list", GATHER, "indices_tensor",
         lambda: gather_desc(indices_tensor=[1, 4]), ArgumentTypeError),
    *row("axis-float", GATHER, "axis", lambda: gather_desc(axis=0.0)),
    *row("axis-bool", GATHER, "axis", lambda: gather_desc(axis=False)),
    *row("axis-string", GATHER, "axis", lambda: gather_desc(axis="0")),
    *row("axis-none", GATHER, "axis", lambda: gather_desc(axis=None)),
    *row("axis-traced", GATHER, "axis",
         traced(lambda a: gather_desc(axis=a), 0), fragments=TRACED),
    *row("axis-negative", GATHER, "axis", lambda: compiled(gather_desc(axis=-1)),
         fragments=("in [0, 2)",)),
    *row("axis-past-the-rank", GATHER, "axis", lambda: compiled(gather_desc(axis=2))),
    *row("index_dimensions-float", GATHER, "index_dimensions",
         lambda: gather_desc(index_dimensions=1.5)),
    *row("index_dimensions-traced", GATHER, "index_dimensions",
         traced(lambda k: gather_desc(index_dimensions=k), 1), fragments=TRACED),
    *row("index_dimensions-negative", GATHER, "index_dimensions",
         lambda: compiled(gather_desc(index_dimensions=-1))),
    *row("index_dimensions-past-the-rank", GATHER, "index_dimensions",
         lambda: compiled(gather_desc(index_dimensions=3))),
    *row("index_dimensions-too-small-to-align", GATHER, "index_dimensions",
         lambda: compiled(gather_desc(indices_tensor=td((2, 4), U32), index_dimensions=2))),
    *row("leading-index-dimension-not-1", GATHER, "indices_tensor.sizes",
         lambda: compiled(gather_desc(indices_tensor=td((2, 4), U32)))),
    *row("indices-rank", GATHER, "indices_tensor.sizes",
         lambda: compiled(gather_desc(indices_tensor=td((4,), U32))),
         fragments=("DimensionCount",)),
    *row("output-sizes", GATHER, "output_tensor.sizes",
         lambda: compiled(gather_desc(output_tensor=td((2, 4))))),
    *row("output-data-type", GATHER, "output_tensor.data_type",
         lambda: compiled(gather_desc(output_tensor=td((4, 2), I32)))),
    *row("float-indices", GATHER, "indices_tensor.data_type",
         lambda: compiled(gather_desc(indices_tensor=td((1, 4), F32)))),
    *row("int16-indices", GATHER, "indices_tensor.data_type",
         lambda: compiled(gather_desc(indices_tensor=td((1, 4), T.INT16)))),
    *row("int32-indices-at-FL_2_1", GATHER, "indices_tensor.data_type",
         lambda: dml.compile_operator(
             gather_desc(td((1, 1, 3, 2)), td((1, 1, 1, 4), I32), td((1, 1, 4, 2)), axis=2,
                         index_dimensions=1), feature_level=FL.FL_2_1),
         fragments=("FL_3_0",)),
    *row("rank-2-at-FL_1_0", GATHER, "input_tensor.sizes",
         lambda: dml.compile_operator(gather_desc(), feature_level=FL.FL_1_0)),
    *row("float64-without-x64", GATHER, "input_tensor.data_type",
         without_x64(lambda: compiled(gather_desc(td((3, 2), T.FLOAT64),
                                                  output_tensor=td((4, 2), T.FLOAT64)))),
         fragments=X64_HINT),
    *row("int64-indices-without-x64", GATHER, "indices_tensor.data_type",
         without_x64(lambda: compiled(gather_desc(indices_tensor=td((1, 4), T.INT64)))),
         fragments=X64_HINT),
    *eager_and_jit("call-indices-of-another-type", GATHER, "the indices_tensor argument",
                   lambda x, i: compiled(gather_desc())(x, i), f32(3, 2), i32(1, 4),
                   fragments=("uint32",)),
    *eager_and_jit("call-float-indices", GATHER, "the indices_tensor argument",
                   lambda x, i: compiled(gather_desc())(x, i), f32(3, 2), f32(1, 4)),
    *eager_and_jit("call-indices-of-another-shape", GATHER,
                   "the indices_tensor argument",
                   lambda x, i: compiled(gather_desc())(x, i), f32(3, 2), u32(4)),

    # --- GATHER_ELEMENTS, desc face ---------------------------------------------------------------
    *row("axis-traced", GATHER_ELEMENTS, "axis",
         traced(lambda a: gather_elements_desc(axis=a), 0), fragments=TRACED),
    *row("axis-float", GATHER_ELEMENTS, "axis",
         lambda: gather_elements_desc(axis=1.0)),
    *row("axis-negative", GATHER_ELEMENTS, "axis",
         lambda: compiled(gather_elements_desc(axis=-2))),
    *row("axis-past-the-rank", GATHER_ELEMENTS, "axis",
         lambda: compiled(gather_elements_desc(axis=2))),
    *row("indices-size-off-axis", GATHER_ELEMENTS, "indices_tensor.sizes[1]",
         lambda: compiled(gather_elements_desc(indices_tensor=td((2, 2), U32),
                                               output_tensor=td((2, 2))))),
    *row("indices-rank", GATHER_ELEMENTS, "indices_tensor.sizes",
         lambda: compiled(gather_elements_desc(indices_tensor=td((1, 2, 3), U32)))),
    *row("output-sizes", GATHER_ELEMENTS, "output_tensor.sizes",
         lambda: compiled(gather_elements_desc(output_tensor=td((3, 3))))),
    *row("output-data-type", GATHER_ELEMENTS, "output_tensor.data_type",
         lambda: compiled(gather_elements_desc(output_tensor=td((2, 3), F16)))),
    *row("before-FL_2_1", GATHER_ELEMENTS, "feature_level",
         lambda: dml.compile_operator(gather_elements_desc(), feature_level=FL.FL_2_0),
         fragments=("introduced at FL_2_1",)),
    *row("uint8-indices", GATHER_ELEMENTS, "indices_tensor.data_type",
         lambda: compiled(gather_elements_desc(indices_tensor=td((2, 3), T.UINT8)))),
    *row("uint64-indices-without-x64", GATHER_ELEMENTS,
         "indices_tensor.data_type",
         without_x64(lambda: compiled(gather_elements_desc(indices_tensor=td((2, 3), T.UINT64)))),
         fragments=X64_HINT),
    *eager_and_jit("call-indices-of-another-shape", GATHER_ELEMENTS,
                   "the indices_tensor argument",
                   lambda x, i: compiled(gather_elements_desc())(x, i), f32(3, 3), u32(3, 3)),
    *eager_and_jit("call-bool-indices", GATHER_ELEMENTS,
                   "the indices_tensor argument",
                   lambda x, i: compiled(gather_elements_desc())(x, i), f32(3, 3),
                   np.zeros((2, 3), bool)),

    # --- SCATTER, desc face -----------------------------------------------------------------------
    *row("axis-traced", SCATTER, "axis",
         traced(lambda a: scatter_desc(axis=a), 0), fragments=TRACED),
    *row("axis-string", SCATTER, "axis", lambda: scatter_desc(axis="1")),
    *row("axis-negative", SCATTER, "axis", lambda: compiled(scatter_desc(axis=-1))),
    *row("axis-past-the-rank", SCATTER, "axis", lambda: compiled(scatter_desc(axis=5))),
    *row("updates_tensor-not-a-tensor-desc", SCATTER, "updates_tensor",
         lambda: scatter_desc(updates_tensor="f32[2,3]"), ArgumentTypeError),
    *row("indices-size-off-axis", SCATTER, "indices_tensor.sizes[1]",
         lambda: compiled(scatter_desc(indices_tensor=td((2, 2), U32),
                                       updates_tensor=td((2, 2))))),
    *row("updates-sizes", SCATTER, "updates_tensor.sizes",
         lambda: compiled(scatter_desc(updates_tensor=td((3, 3))))),
    *row("updates-rank", SCATTER, "updates_tensor.sizes",
         lambda: compiled(scatter_desc(updates_tensor=td((6,))))),
    *row("updates-data-type", SCATTER, "updates_tensor.data_type",
         lambda: compiled(scatter_desc(updates_tensor=td((2, 3), F16)))),
    *row("output-sizes", SCATTER, "output_tensor.sizes",
         lambda: compiled(scatter_desc(output_tensor=td((2, 3))))),
    *row("output-data-type", SCATTER, "output_tensor.data_type",
         lambda: compiled(scatter_desc(output_tensor=td((3, 3), I32)))),
    *row("before-FL_2_0", SCATTER, "feature_level",
         lambda: dml.compile_operator(scatter_desc(), feature_level=FL.FL_1_0),
         fragments=("FL_2_0",)),
    *row("int8-at-FL_2_0", SCATTER, "input_tensor.data_type",
         lambda: dml.compile_operator(
             scatter_desc(td((1, 1, 3, 3), T.INT8), td((1, 1, 2, 3), U32),
                          td((1, 1, 2, 3), T.INT8), td((1, 1, 3, 3), T.INT8), axis=2),
             feature_level=FL.FL_2_0),
         fragments=("FL_2_1",)),
    *row("float64-without-x64", SCATTER, "input_tensor.data_type",
         without_x64(lambda: compiled(scatter_desc(
             td((3, 3), T.FLOAT64), updates_tensor=td((2, 3), T.FLOAT64),
             output_tensor=td((3, 3), T.FLOAT64)))),
         fragments=X64_HINT),
    *row("donate_input-not-a-bool", SCATTER, "donate_input",
         lambda: dml.compile_operator(scatter_desc(), donate_input="yes"), ArgumentTypeError),  # pyright: ignore[reportCallIssue]
    *eager_and_jit("call-updates-of-another-dtype", SCATTER, "the updates_tensor argument",
                   lambda x, i, u: compiled(scatter_desc())(x, i, u), f32(3, 3), u32(2, 3),
                   i32(2, 3)),
    *eager_and_jit("call-updates-of-another-shape", SCATTER,
                   "the updates_tensor argument",
                   lambda x, i, u: compiled(scatter_desc())(x, i, u), f32(3, 3), u32(2, 3),
                   f32(3, 2)),
    *eager_and_jit("call-indices-a-list", SCATTER, "the indices_tensor argument",
                   lambda x, u: compiled(scatter_desc())(x, [[0, 1, 2]] * 2, u), f32(3, 3),
                   f32(2, 3), error=ArgumentTypeError),

    # --- SLICE1, desc face ------------------------------------------------------------------------
    *row("offsets-traced", SLICE1, "input_window_offsets",
         traced(lambda o: slice1_desc(offsets=o), np.array([0, 1], np.int32)), fragments=TRACED),
    *row("sizes-entry-traced", SLICE1, "input_window_sizes[0]",
         traced(lambda s: slice1_desc(sizes=(s, 3)), 4), fragments=TRACED),
    *row("strides-traced", SLICE1, "input_window_strides",
         traced(lambda s: slice1_desc(strides=s), np.array([-2, 2], np.int32)),
         fragments=TRACED),
    *row("offsets-float", SLICE1, "input_window_offsets[1]",
         lambda: slice1_desc(offsets=(0, 1.0))),
    *row("sizes-none", SLICE1, "input_window_sizes", lambda: slice1_desc(sizes=None),
         ArgumentTypeError),
    *row("strides-a-string", SLICE1, "input_window_strides",
         lambda: slice1_desc(strides="-22"), ArgumentTypeError),
    *row("offsets-length", SLICE1, "input_window_offsets",
         lambda: compiled(slice1_desc(offsets=(0,)))),
    *row("sizes-length", SLICE1, "input_window_sizes",
         lambda: compiled(slice1_desc(sizes=(4, 3, 1)))),
    *row("strides-length", SLICE1, "input_window_strides",
         lambda: compiled(slice1_desc(strides=(1,)))),
    *row("offsets-negative", SLICE1, "input_window_offsets[1]",
         lambda: compiled(slice1_desc(offsets=(0, -1)))),
    *row("sizes-zero", SLICE1, "input_window_sizes[1]",
         lambda: compiled(slice1_desc(sizes=(4, 0)))),
    *row("window-outside-the-input", SLICE1, "input_window_sizes[1]",
         lambda: compiled(slice1_desc(sizes=(4, 4)))),
    *row("window-past-2**64", SLICE1, "input_window_sizes[1]",
         lambda: compiled(slice1_desc(offsets=(0, 2**64), sizes=(4, 2**64)))),
    *row("strides-zero", SLICE1, "input_window_strides[1]",
         lambda: compiled(slice1_desc(strides=(-2, 0)))),
    *row("strides-beyond-INT", SLICE1, "input_window_strides[1]",
         lambda: compiled(slice1_desc(output_tensor=td((2, 1)), strides=(-2, 2**40))),
         fragments=("INT",)),
    *row("output-size-too-large", SLICE1, "output_tensor.sizes[1]",
         lambda: compiled(slice1_desc(output_tensor=td((2, 3))))),
    *row("output-rank", SLICE1, "output_tensor.sizes",
         lambda: compiled(slice1_desc(output_tensor=td((1, 2, 2))))),
    *row("output-data-type", SLICE1, "output_tensor.data_type",
         lambda: compiled(slice1_desc(output_tensor=td((2, 2), F16)))),
    *row("before-FL_2_1", SLICE1, "feature_level",
         lambda: dml.compile_operator(slice1_desc(), feature_level=FL.FL_2_0)),
    *row("rank-2-at-FL_2_1", SLICE1, "input_tensor.sizes",
         lambda: dml.compile_operator(slice1_desc(), feature_level=FL.FL_2_1)),
    *row("int64-without-x64", SLICE1, "input_tensor.data_type",
         without_x64(lambda: compiled(slice1_desc(td((4, 4), T.INT64), td((2, 2), T.INT64)))),
         fragments=X64_HINT),

    # --- SLICE, desc face -------------------------------------------------------------------------
    *row("offsets-traced", SLICE, "offsets[0]",
         traced(lambda o: slice_desc(offsets=(o, 0)), 1), fragments=TRACED),
    *row("strides-bool", SLICE, "strides[0]", lambda: slice_desc(strides=(True, 3))),
    *row("offsets-length", SLICE, "offsets", lambda: compiled(slice_desc(offsets=(1,)))),
    *row("strides-negative", SLICE, "strides[1]",
         lambda: compiled(slice_desc(strides=(2, -3)))),
    *row("strides-beyond-UINT", SLICE, "strides[1]",
         lambda: compiled(slice_desc(output_tensor=td((2, 1)), sizes=(2, 1),
                                     strides=(2, 2**32))),
         fragments=("UINT",)),
    *row("offsets-negative", SLICE, "offsets[0]",
         lambda: compiled(slice_desc(offsets=(-1, 0)))),
    *row("last-read-outside-the-input", SLICE, "sizes[1]",
         lambda: compiled(slice_desc(offsets=(1, 1)))),
    *row("output-sizes", SLICE, "output_tensor.sizes",
         lambda: compiled(slice_desc(output_tensor=td((2, 1))))),
    *row("output-data-type", SLICE, "output_tensor.data_type",
         lambda: compiled(slice_desc(output_tensor=td((2, 2), I32)))),
    *row("int8-at-FL_1_0", SLICE, "input_tensor.data_type",
         lambda: dml.compile_operator(
             slice_desc(td((1, 1, 4, 4), T.INT8), td((1, 1, 2, 2), T.INT8), (0, 0, 1, 0),
                        (1, 1, 2, 2), (1, 1, 2, 3)), feature_level=FL.FL_1_0),
         fragments=("FL_2_1",)),
    *row("uint64-without-x64", SLICE, "input_tensor.data_type",
         without_x64(lambda: compiled(slice_desc(td((4, 4), T.UINT64), td((2, 2), T.UINT64)))),
         fragments=X64_HINT),

    # --- dmljax.tile ------------------------------------------------------------------------------
    *eager_and_jit("x-a-list", TILE_FN, "x", lambda: dml.tile([1, 2], (2,)),
                   error=ArgumentTypeError),
    *eager_and_jit("x-none", TILE_FN, "x", lambda: dml.tile(None, ()),
                   error=ArgumentTypeError),
    *eager_and_jit("x-of-strings", TILE_FN, "x", lambda: dml.tile(STRINGS, (2,)),
                   error=ArgumentTypeError, fragments=("numbers or bools",)),
    *eager_and_jit("x-an-int-over-int64", TILE_FN, "x",
                   lambda: dml.tile(TOO_BIG_FOR_INT64, ())),
    # One int repeats the last dimension, as in jnp.tile: a 0-D x has none.
    *eager_and_jit("repeats-an-int-for-a-0d-x", TILE_FN, "repeats", lambda x: dml.tile(x, 2),
                   np.float32(3)),
    *eager_and_jit("repeats-none", TILE_FN, "repeats", lambda x: dml.tile(x, None),
                   f32(3), error=ArgumentTypeError),
    *eager_and_jit("repeats-a-string", TILE_FN, "repeats", lambda x: dml.tile(x, "2"),
                   f32(3), error=ArgumentTypeError),
    *eager_and_jit("repeats-length", TILE_FN, "repeats", lambda x: dml.tile(x, (2,)),
                   f32(2, 3), fragments=("one entry per dimension",)),
    *eager_and_jit("repeats-negative", TILE_FN, "repeats[1]",
                   lambda x: dml.tile(x, (2, -1)), f32(2, 3)),
    *eager_and_jit("repeats-float", TILE_FN, "repeats[1]",
                   lambda x: dml.tile(x, (2, 1.0)), f32(2, 3)),
    *eager_and_jit("repeats-bool", TILE_FN, "repeats[0]",
                   lambda x: dml.tile(x, (True, 1)), f32(2, 3)),
    *eager_and_jit("repeats-string-entry", TILE_FN, "repeats[1]",
                   lambda x: dml.tile(x, (2, "1")), f32(2, 3)),
    *eager_and_jit("repeats-none-entry", TILE_FN, "repeats[1]",
                   lambda x: dml.tile(x, (2, None)), f32(2, 3)),
    *eager_and_jit("repeats-a-float-array", TILE_FN, "repeats[0]",
                   lambda x: dml.tile(x, np.array([2.0, 1.0])), f32(2, 3)),
    *eager_and_jit("repeats-a-negative-int", TILE_FN, "repeats[0]",
                   lambda x: dml.tile(x, np.array(-2)), f32(3)),
    *row("repeats-traced", TILE_FN, "repeats",
         traced(lambda r: dml.tile(jnp.ones((2, 3)), r), np.array([2, 1], np.int32)),
         fragments=TRACED),
    *row("repeats-entry-traced", TILE_FN, "repeats[1]",
         traced(lambda r: dml.tile(jnp.ones((2, 3)), (2, r)), 1), fragments=TRACED),
    # Outputs XLA cannot size (jnp.tile aborts the process on some of these); sizes it can
    # express but not allocate fail as out of memory, as with jnp.
    *eager_and_jit("output-bytes-over-int64", TILE_FN, "repeats",
                   lambda x: dml.tile(x, (2**62,)), f32(2), fragments=("bytes",)),
    *eager_and_jit("output-product-over-int64", TILE_FN, "repeats",
                   lambda x: dml.tile(x, (2**61, 4)), np.zeros((2, 4), np.int8)),
    *eager_and_jit("repeat-over-int64-of-an-empty-x", TILE_FN, "repeats",
                   lambda x: dml.tile(x, (2**70, 1)), f32(0, 3)),

    # --- dmljax.gather ----------------------------------------------------------------------------
    *eager_and_jit("x-none", GATHER_FN, "x",
                   lambda i: dml.gather(None, i, axis=0), i32(2), error=ArgumentTypeError),
    *eager_and_jit("x-of-strings", GATHER_FN, "x",
                   lambda: dml.gather(STRINGS, np.array([0], np.int32), axis=0),
                   error=ArgumentTypeError),
    *eager_and_jit("x-0d", GATHER_FN, "axis",
                   lambda x, i: dml.gather(x, i, axis=0), np.float32(1.0), i32(2)),
    *eager_and_jit("float-indices", GATHER_FN, "indices",
                   lambda x, i: dml.gather(x, i, axis=0), f32(3), f32(2),
                   fragments=("integer dtype",)),
    *eager_and_jit("bool-indices", GATHER_FN, "indices",
                   lambda x, i: dml.gather(x, i, axis=0), f32(3), np.zeros(2, bool)),
    *eager_and_jit("complex-indices", GATHER_FN, "indices",
                   lambda x, i: dml.gather(x, i, axis=0), f32(3), np.zeros(2, np.complex64)),
    *eager_and_jit("bfloat16-indices", GATHER_FN, "indices",
                   lambda x, i: dml.gather(x, i, axis=0), f32(3), np.zeros(2, jnp.bfloat16)),
    *eager_and_jit("python-float-index", GATHER_FN, "indices",
                   lambda x: dml.gather(x, 1.0, axis=0), f32(3)),
    *eager_and_jit("indices-a-list", GATHER_FN, "indices",
                   lambda x: dml.gather(x, [0, 1], axis=0), f32(3), error=ArgumentTypeError),
    *eager_and_jit("indices-of-strings", GATHER_FN, "indices",
                   lambda x: dml.gather(x, STRINGS, axis=0), f32(3), error=ArgumentTypeError),
    *eager_and_jit("index-over-int64", GATHER_FN, "indices",
                   lambda x: dml.gather(x, 2**70, axis=0), f32(3)),
    *eager_and_jit("axis-past-the-rank", GATHER_FN, "axis",
                   lambda x, i: dml.gather(x, i, axis=2), f32(2, 3), i32(2),
                   fragments=("[-2, 2)",)),
    *eager_and_jit("axis-below-minus-the-rank", GATHER_FN, "axis",
                   lambda x, i: dml.gather(x, i, axis=-3), f32(2, 3), i32(2)),
    *eager_and_jit("axis-over-2**64", GATHER_FN, "axis",
                   lambda x, i: dml.gather(x, i, axis=2**70), f32(2, 3), i32(2)),
    *eager_and_jit("axis-float", GATHER_FN, "axis",
                   lambda x, i: dml.gather(x, i, axis=1.0), f32(2, 3), i32(2)),
    *eager_and_jit("axis-bool", GATHER_FN, "axis",
                   lambda x, i: dml.gather(x, i, axis=True), f32(2, 3), i32(2)),
    *eager_and_jit("axis-string", GATHER_FN, "axis",
                   lambda x, i: dml.gather(x, i, axis="1"), f32(2, 3), i32(2)),
    *eager_and_jit("axis-none", GATHER_FN, "axis",
                   lambda x, i: dml.gather(x, i, axis=None), f32(2, 3), i32(2)),
    *eager_and_jit("axis-a-1d-array", GATHER_FN, "axis",
                   lambda x, i: dml.gather(x, i, axis=np.array([1])), f32(2, 3), i32(2)),
    *row("axis-traced", GATHER_FN, "axis",
         traced(lambda a: dml.gather(jnp.ones((2, 3)), jnp.zeros(2, jnp.int32), axis=a), 1),
         fragments=TRACED),
    *row("axis-a-jnp-array-made-in-jit", GATHER_FN, "axis",
         lambda: jax.jit(lambda x: dml.gather(x, jnp.zeros(2, jnp.int32), axis=jnp.array(1)))(
             jnp.ones((2, 3))),
         fragments=TRACED),
    *eager_and_jit("empty-axis", GATHER_FN, "x.shape[axis]",
                   lambda x, i: dml.gather(x, i, axis=1), f32(2, 0), i32(1)),

    # --- GATHER_ND and GATHER_ND1, desc face ------------------------------------------------------
    *row("input_dimension_count-float", GATHER_ND, "input_dimension_count",
         lambda: gather_nd_desc(input_dimension_count=2.0)),
    *row("indices_dimension_count-traced", GATHER_ND, "indices_dimension_count",
         traced(lambda k: gather_nd_desc(indices_dimension_count=k), 2), fragments=TRACED),
    *row("input_dimension_count-zero", GATHER_ND, "input_dimension_count",
         lambda: compiled(gather_nd_desc(input_dimension_count=0)), fragments=("[1, 2]",)),
    *row("input_dimension_count-past-the-rank", GATHER_ND, "input_dimension_count",
         lambda: compiled(gather_nd_desc(input_dimension_count=3))),
    *row("indices_dimension_count-zero", GATHER_ND, "indices_dimension_count",
         lambda: compiled(gather_nd_desc(indices_dimension_count=0))),
    *row("input-leading-dimension-not-1", GATHER_ND, "input_tensor.sizes",
         lambda: compiled(gather_nd_desc(input_dimension_count=1)), fragments=("padding",)),
    *row("indices-leading-dimension-not-1", GATHER_ND, "indices_tensor.sizes",
         lambda: compiled(gather_nd_desc(indices_dimension_count=1))),
    *row("tuple-longer-than-the-input", GATHER_ND, "indices_tensor.sizes[1]",
         lambda: compiled(gather_nd_desc(indices_tensor=td((1, 3), U32),
                                         output_tensor=td((1, 1))))),
    *row("output-too-long-to-align", GATHER_ND, "indices_dimension_count",
         lambda: compiled(gather_nd_desc(input_tensor=td((3, 2, 2)), indices_tensor=td(
             (4, 2, 1), U32), output_tensor=td((2, 2, 2)), input_dimension_count=3,
             indices_dimension_count=3))),
    *row("output-sizes", GATHER_ND, "output_tensor.sizes",
         lambda: compiled(gather_nd_desc(output_tensor=td((2, 4))))),
    *row("output-data-type", GATHER_ND, "output_tensor.data_type",
         lambda: compiled(gather_nd_desc(output_tensor=td((4, 2), F16)))),
    *row("indices-rank", GATHER_ND, "indices_tensor.sizes",
         lambda: compiled(gather_nd_desc(indices_tensor=td((4,), U32))),
         fragments=("DimensionCount",)),
    *eager_and_jit("call-indices-of-another-type", GATHER_ND, "the indices_tensor argument",
                   lambda x, i: compiled(gather_nd_desc())(x, i), f32(3, 2), i32(4, 1),
                   fragments=("of dtype uint32",)),
    *eager_and_jit("call-indices-of-another-shape", GATHER_ND1, "the indices_tensor argument",
                   lambda x, i: compiled(gather_nd1_desc())(x, i), f32(2, 3, 4), i32(2, 1, 5)),
    *row("float-indices", GATHER_ND, "indices_tensor.data_type",
         lambda: compiled(gather_nd_desc(indices_tensor=td((4, 1))))),
    *row("rank-2-at-FL_2_1", GATHER_ND, "input_tensor.sizes",
         lambda: dml.compile_operator(gather_nd_desc(), feature_level=FL.FL_2_1),
         fragments=("FL_3_0",)),
    *row("before-FL_2_1", GATHER_ND, "feature_level",
         lambda: dml.compile_operator(gather_nd_desc(td((1, 1, 3, 2)), td((1, 1, 4, 1), U32),
                                                     td((1, 1, 4, 2))),
                                      feature_level=FL.FL_2_0),
         fragments=("FL_2_1",)),
    *row("int64-without-x64", GATHER_ND, "input_tensor.data_type",
         without_x64(lambda: compiled(gather_nd_desc(td((3, 2), T.INT64),
                                                     output_tensor=td((4, 2), T.INT64)))),
         fragments=X64_HINT),
    *row("batch_dimension_count-negative", GATHER_ND1, "batch_dimension_count",
         lambda: compiled(gather_nd1_desc(batch_dimension_count=-1))),
    *row("batch_dimension_count-the-whole-input", GATHER_ND1, "batch_dimension_count",
         lambda: compiled(gather_nd1_desc(input_dimension_count=1, indices_dimension_count=1,
                                          batch_dimension_count=1))),
    *row("batch-sizes-differ", GATHER_ND1, "indices_tensor.sizes",
         lambda: compiled(gather_nd1_desc(indices_tensor=td((3, 5, 1), I32),
                                          output_tensor=td((3, 5, 4)))),
         fragments=("batch sizes (2,)",)),
    *row("tuple-longer-than-the-batch-leaves", GATHER_ND1, "indices_tensor.sizes[2]",
         lambda: compiled(gather_nd1_desc(indices_tensor=td((2, 5, 3), I32),
                                          output_tensor=td((1, 2, 5))))),
    *row("output-sizes", GATHER_ND1, "output_tensor.sizes",
         lambda: compiled(gather_nd1_desc(output_tensor=td((2, 4, 5))))),
    *row("output-data-type", GATHER_ND1, "output_tensor.data_type",
         lambda: compiled(gather_nd1_desc(output_tensor=td((2, 5, 4), T.INT32)))),
    *row("before-FL_3_0", GATHER_ND1, "feature_level",
         lambda: dml.compile_operator(gather_nd1_desc(td((1, 2, 3, 4)), td((1, 2, 5, 1), U32),
                                                      td((1, 2, 5, 4))),
                                      feature_level=FL.FL_2_1),
         fragments=("FL_3_0",)),
    *row("int64-without-x64", GATHER_ND1, "input_tensor.data_type",
         without_x64(lambda: compiled(gather_nd1_desc(td((2, 3, 4), T.INT64),
                                                      output_tensor=td((2, 5, 4), T.INT64)))),
         fragments=X64_HINT),

    # --- dmljax.gather_nd -------------------------------------------------------------------------
    *eager_and_jit("x-a-list", GATHER_ND_FN, "x",
                   lambda i: dml.gather_nd([1.0, 2.0], i), i32(2, 1), error=ArgumentTypeError),
    *eager_and_jit("float-indices", GATHER_ND_FN, "indices",
                   lambda x, i: dml.gather_nd(x, i), f32(3), f32(2, 1),
                   fragments=("integer dtype",)),
    *eager_and_jit("0d-indices", GATHER_ND_FN, "indices.shape",
                   lambda x, i: dml.gather_nd(x, i), f32(3), i32(),
                   fragments=("indices[..., None]",)),
    *eager_and_jit("tuple-longer-than-x", GATHER_ND_FN, "indices.shape[-1]",
                   lambda x, i: dml.gather_nd(x, i), f32(3, 2), i32(4, 3),
                   fragments=("at most 2",)),
    *eager_and_jit("tuple-longer-than-x-after-the-batch", GATHER_ND_FN, "indices.shape[-1]",
                   lambda x, i: dml.gather_nd(x, i, batch_dims=1), f32(3, 2), i32(3, 2)),
    *eager_and_jit("batch-sizes-differ", GATHER_ND_FN, "indices.shape[:1]",
                   lambda x, i: dml.gather_nd(x, i, batch_dims=1), f32(3, 2), i32(4, 1)),
    *eager_and_jit("indices-too-few-dimensions-for-the-batch", GATHER_ND_FN, "indices.shape",
                   lambda x, i: dml.gather_nd(x, i, batch_dims=1), f32(3, 2), i32(3)),
    *eager_and_jit("batch_dims-negative", GATHER_ND_FN, "batch_dims",
                   lambda x, i: dml.gather_nd(x, i, batch_dims=-1), f32(3, 2), i32(4, 1)),
    *eager_and_jit("batch_dims-float", GATHER_ND_FN, "batch_dims",
                   lambda x, i: dml.gather_nd(x, i, batch_dims=1.0), f32(3, 2), i32(3, 1)),
    *row("batch_dims-traced", GATHER_ND_FN, "batch_dims",
         traced(lambda b: dml.gather_nd(jnp.ones((3, 2)), jnp.zeros((3, 1), jnp.int32),
                                        batch_dims=b), 1),
         fragments=TRACED),
    *eager_and_jit("empty-dimension", GATHER_ND_FN, "x.shape[0:1]",
                   lambda x, i: dml.gather_nd(x, i), f32(0, 3), i32(2, 1),
                   fragments=("nothing to gather",)),

    # --- PADDING and PADDING1, desc face ----------------------------------------------------------
    *row("padding_mode-unknown", PADDING, "padding_mode",
         lambda: padding_desc(padding_mode=7), fragments=("DML_PADDING_MODE",)),
    *row("padding_mode-a-float", PADDING, "padding_mode",
         lambda: padding_desc(padding_mode=1.0), ArgumentTypeError),
    *row("padding_value-a-string", PADDING, "padding_value",
         lambda: padding_desc(padding_value="9")),
    *row("start_padding-short", PADDING, "start_padding",
         lambda: compiled(padding_desc(start_padding=(1,))), fragments=("DimensionCount",)),
    *row("end_padding-negative", PADDING, "end_padding[1]",
         lambda: compiled(padding_desc(end_padding=(0, -1), output_tensor=td((3, 2)))),
         fragments=("UINT",)),
    *row("start_padding-beyond-uint", PADDING, "start_padding[0]",
         lambda: compiled(padding_desc(start_padding=(2**32, 0))), fragments=("UINT",)),
    *row("start_padding-traced", PADDING, "start_padding",
         traced(lambda p: padding_desc(start_padding=p), np.array([1, 0])), fragments=TRACED),
    *row("output-sizes", PADDING, "output_tensor.sizes",
         lambda: compiled(padding_desc(output_tensor=td((3, 4)))),
         fragments=("(3, 5)", "start_padding plus end_padding")),
    *row("output-data-type", PADDING, "output_tensor.data_type",
         lambda: compiled(padding_desc(output_tensor=td((3, 5), F16)))),
    *row("output-dimension-count", PADDING, "output_tensor.sizes",
         lambda: compiled(padding_desc(output_tensor=td((1, 3, 5))))),
    *row("symmetric-before-FL_3_0", PADDING, "padding_mode",
         lambda: dml.compile_operator(
             padding_desc(td((1, 1, 2, 3)), td((1, 1, 3, 5)), SYMMETRIC,
                          start_padding=(0, 0, 1, 0), end_padding=(0, 0, 0, 2)),
             feature_level=FL.FL_2_1),
         fragments=("FL_3_0",)),
    *row("wrap-before-FL_6_4", PADDING, "padding_mode",
         lambda: dml.compile_operator(padding_desc(padding_mode=WRAP), feature_level=FL.FL_6_3),
         fragments=("FL_6_4",)),
    *row("2d-before-FL_3_1", PADDING, "input_tensor.sizes",
         lambda: dml.compile_operator(padding_desc(), feature_level=FL.FL_3_0),
         fragments=("4 to 5 dimensions",)),
    *row("before-FL_1_0-never", PADDING, "feature_level",
         lambda: dml.compile_operator(padding_desc(), feature_level=0x0F00)),
    *row("reflection-of-one-element", PADDING, "input_tensor.sizes[0]",
         lambda: compiled(padding_desc(td((1, 3)), td((3, 5)), REFLECTION,
                                       start_padding=(1, 0), end_padding=(1, 2))),
         fragments=("at least 2",)),
    *row("int-value-nan", PADDING, "padding_value",
         lambda: compiled(padding_desc(td((2, 3), I32), td((3, 5), I32),
                                       padding_value=float("nan"))),
         fragments=("finite", "Padding1OperatorDesc")),
    *row("uint8-value-out-of-range", PADDING, "padding_value",
         lambda: compiled(padding_desc(td((2, 3), T.UINT8), td((3, 5), T.UINT8),
                                       padding_value=300.0)),
         fragments=("[0, 255]",)),
    *row("int64-without-x64", PADDING, "input_tensor.data_type",
         without_x64(lambda: compiled(padding_desc(td((2, 3), T.INT64), td((3, 5), T.INT64)))),
         fragments=X64_HINT),
    *row("output-sizes", PADDING1, "output_tensor.sizes",
         lambda: compiled(padding1_desc(output_tensor=td((4, 5))))),
    *row("output-data-type", PADDING1, "output_tensor.data_type",
         lambda: compiled(padding1_desc(output_tensor=td((3, 5), I32),
                                        padding_value_data_type=I32))),
    *row("before-FL_5_0", PADDING1, "feature_level",
         lambda: dml.compile_operator(padding1_desc(), feature_level=FL.FL_4_1),
         fragments=("FL_5_0",)),
    *row("value-data-type-differs", PADDING1, "padding_value_data_type",
         lambda: compiled(padding1_desc(padding_value_data_type=F16)),
         fragments=("FLOAT32",)),
    *row("value-data-type-not-a-type", PADDING1, "padding_value_data_type",
         lambda: padding1_desc(padding_value_data_type="FLOAT32"), ArgumentTypeError),
    *row("value-with-a-fraction-for-int32", PADDING1, "padding_value",
         lambda: padding1_desc(td((2, 3), I32), td((3, 5), I32), padding_value_data_type=I32,
                               padding_value=2.5)),
    *row("value-beyond-uint64", PADDING1, "padding_value",
         lambda: padding1_desc(td((2, 3), T.UINT64), td((3, 5), T.UINT64),
                               padding_value_data_type=T.UINT64, padding_value=2**64),
         fragments=("18446744073709551615",)),
    *row("wrap-before-FL_6_4", PADDING1, "padding_mode",
         lambda: dml.compile_operator(padding1_desc(padding_mode=WRAP), feature_level=FL.FL_6_3),
         fragments=("FL_6_4",)),
    *row("int64-without-x64", PADDING1, "input_tensor.data_type",
         without_x64(lambda: compiled(padding1_desc(td((2, 3), T.INT64), td((3, 5), T.INT64),
                                                    padding_value_data_type=T.INT64))),
         fragments=X64_HINT),

    # --- dmljax.pad -------------------------------------------------------------------------------
    *eager_and_jit("x-a-list", PAD_FN, "x",
                   lambda: dml.pad([1.0, 2.0], (1,), (1,)), error=ArgumentTypeError),
    *eager_and_jit("start_padding-short", PAD_FN, "start_padding",
                   lambda x: dml.pad(x, (1,), (1, 1)), f32(2, 3), fragments=("2 long",)),
    *eager_and_jit("end_padding-a-float", PAD_FN, "end_padding[0]",
                   lambda x: dml.pad(x, (1,), (1.0,)), f32(2)),
    *eager_and_jit("negative-output-size", PAD_FN, "start_padding[0], end_padding[0]",
                   lambda x: dml.pad(x, (-2,), (-1,)), f32(2), fragments=("start + end >= -2",)),
    *eager_and_jit("edge-crop-past-the-dimension", PAD_FN, "start_padding[0], end_padding[0]",
                   lambda x: dml.pad(x, (-5,), (3,), mode="edge"), f32(3),
                   fragments=("at most 3", "EDGE mode crops")),
    *eager_and_jit("mode-unknown", PAD_FN, "mode",
                   lambda x: dml.pad(x, (1,), (1,), mode="mirror"), f32(2),
                   fragments=("'reflection'",)),
    *eager_and_jit("edge-of-an-empty-dimension", PAD_FN, "x.shape[0]",
                   lambda x: dml.pad(x, (1,), (0,), mode="edge"), f32(0),
                   fragments=("CONSTANT mode pads any dimension",)),
    *eager_and_jit("reflection-of-a-cropped-to-one-dimension", PAD_FN, "x.shape[0]",
                   lambda x: dml.pad(x, (-2,), (1,), mode="reflection"), f32(3),
                   fragments=("at least 2",)),
    *eager_and_jit("value-with-a-fraction-for-int32", PAD_FN, "value",
                   lambda x: dml.pad(x, (1,), (1,), value=0.5), i32(2),
                   fragments=("[-2147483648, 2147483647]",)),
    *eager_and_jit("value-out-of-range-for-uint8", PAD_FN, "value",
                   lambda x: dml.pad(x, (1,), (1,), value=-1), np.zeros(2, np.uint8)),
    *eager_and_jit("value-a-string", PAD_FN, "value",
                   lambda x: dml.pad(x, (1,), (1,), value="0"), f32(2)),
    *eager_and_jit("result-beyond-xla-sizes", PAD_FN, "start_padding, end_padding",
                   lambda x: dml.pad(x, (2**62, 0), (0, 2**62)), f32(1, 1),
                   fragments=("XLA's sizes",)),
    *eager_and_jit("pad_width-three-pairs-for-two-dimensions", PAD_FN, "pad_width",
                   lambda x: dml.pad(x, ((1, 1), (1, 1), (1, 1))), f32(2, 2),
                   fragments=("shape (2, 2)", "shape (3, 2)")),
    *eager_and_jit("mode-of-jnp-only", PAD_FN, "mode",
                   lambda x: dml.pad(x, 1, "mean"), f32(2),
                   fragments=("have no DirectML mode",)),
    *eager_and_jit("constant_values-in-edge-mode", PAD_FN, "constant_values",
                   lambda x: dml.pad(x, 1, "edge", constant_values=1.0), f32(2),
                   fragments=("absent in 'edge' mode",)),
    *eager_and_jit("value-and-constant_values", PAD_FN, "value, constant_values",
                   lambda x: dml.pad(x, 1, value=1, constant_values=2), f32(2),
                   fragments=("one of them",)),
    *eager_and_jit("constant_values-per-side-with-a-crop", PAD_FN, "start_padding, end_padding",
                   lambda x: dml.pad(x, ((1, -1),), constant_values=(1.0, 2.0)), f32(3),
                   fragments=("a crop takes one constant_values",)),
    *row("start_padding-traced", PAD_FN, "start_padding",
         traced(lambda p: dml.pad(jnp.ones(2), p, (1,)), np.array([1])), fragments=TRACED),

    # --- JOIN and SPLIT, desc face ----------------------------------------------------------------
    *row("input_tensors-a-tensor-desc", JOIN, "input_tensors",
         lambda: join_desc(input_tensors=td((2, 3))), ArgumentTypeError),
    *row("input_tensors-holds-an-array", JOIN, "input_tensors[1]",
         lambda: join_desc(input_tensors=(td((2, 3)), np.zeros((2, 1)))), ArgumentTypeError),
    *row("no-inputs", JOIN, "input_tensors",
         lambda: compiled(join_desc(input_tensors=())), fragments=("greater than 0",)),
    *row("axis-past-the-rank", JOIN, "axis", lambda: compiled(join_desc(axis=2)),
         fragments=("[0, 2)",)),
    *row("axis-traced", JOIN, "axis", traced(lambda a: join_desc(axis=a), 1),
         fragments=TRACED),
    *row("input-sizes-differ-off-the-axis", JOIN, "input_tensors[1].sizes",
         lambda: compiled(join_desc(input_tensors=(td((2, 3)), td((3, 1)))))),
    *row("input-rank-differs", JOIN, "input_tensors[1].sizes",
         lambda: compiled(join_desc(input_tensors=(td((2, 3)), td((2, 1, 1)))))),
    *row("input-data-type-differs", JOIN, "input_tensors[1].data_type",
         lambda: compiled(join_desc(input_tensors=(td((2, 3)), td((2, 1), F16))))),
    *row("output-sizes", JOIN, "output_tensor.sizes",
         lambda: compiled(join_desc(output_tensor=td((2, 5)))), fragments=("(2, 4)", "summed")),
    *row("output-data-type", JOIN, "output_tensor.data_type",
         lambda: compiled(join_desc(output_tensor=td((2, 4), I32)))),
    *row("2d-before-FL_4_1", JOIN, "input_tensors[0].sizes",
         lambda: dml.compile_operator(join_desc(), feature_level=FL.FL_3_1),
         fragments=("4 to 5 dimensions", "FL_4_1")),
    *row("int8-at-FL_1_0", JOIN, "input_tensors[0].data_type",
         lambda: dml.compile_operator(
             join_desc((td((1, 1, 2, 3), T.INT8), td((1, 1, 2, 1), T.INT8)),
                       td((1, 1, 2, 4), T.INT8), axis=3), feature_level=FL.FL_1_0),
         fragments=("FL_2_1",)),
    *row("before-FL_1_0-never", JOIN, "feature_level",
         lambda: dml.compile_operator(join_desc(), feature_level=0x0F00)),
    *row("int64-without-x64", JOIN, "input_tensors[0].data_type",
         without_x64(lambda: compiled(join_desc((td((2, 3), T.INT64), td((2, 1), T.INT64)),
                                                td((2, 4), T.INT64)))),
         fragments=X64_HINT),
    *eager_and_jit("call-one-array-too-few", JOIN, "arguments",
                   lambda a: compiled(join_desc())(a), f32(2, 3), error=ArgumentTypeError),
    *eager_and_jit("call-second-input-of-wrong-shape", JOIN, "the input_tensors[1] argument",
                   lambda a, b: compiled(join_desc())(a, b), f32(2, 3), f32(2, 2),
                   fragments=("(2, 1)",)),
    *eager_and_jit("call-first-input-of-wrong-dtype", JOIN, "the input_tensors[0] argument",
                   lambda a, b: compiled(join_desc())(a, b), i32(2, 3), f32(2, 1)),
    *row("no-outputs", SPLIT, "output_tensors",
         lambda: compiled(split_desc(output_tensors=())), fragments=("greater than 0",)),
    *row("axis-negative", SPLIT, "axis", lambda: compiled(split_desc(axis=-1))),
    *row("output-sizes-differ-off-the-axis", SPLIT, "output_tensors[0].sizes",
         lambda: compiled(split_desc(output_tensors=(td((1, 3)), td((2, 1)))))),
    *row("output-sizes-do-not-sum", SPLIT, "output_tensors[:].sizes[1]",
         lambda: compiled(split_desc(output_tensors=(td((2, 3)), td((2, 2))))),
         fragments=("sum 5",)),
    *row("output-data-type", SPLIT, "output_tensors[1].data_type",
         lambda: compiled(split_desc(output_tensors=(td((2, 3)), td((2, 1), I32))))),
    *row("2d-before-FL_3_0", SPLIT, "input_tensor.sizes",
         lambda: dml.compile_operator(split_desc(), feature_level=FL.FL_2_1),
         fragments=("4 dimensions", "FL_3_0")),
    *row("before-FL_1_0-never", SPLIT, "feature_level",
         lambda: dml.compile_operator(split_desc(), feature_level=0x0F00)),
    *row("int64-without-x64", SPLIT, "input_tensor.data_type",
         without_x64(lambda: compiled(split_desc(td((2, 4), T.INT64),
                                                 (td((2, 3), T.INT64), td((2, 1), T.INT64))))),
         fragments=X64_HINT),
    *row("out_buffer-for-several-outputs", SPLIT, "out_buffer",
         lambda: compiled(split_desc())(f32(2, 4), out_buffer=f32(8))),

    # --- dmljax.join and dmljax.split -------------------------------------------------------------
    *eager_and_jit("arrays-an-array", JOIN_FN, "arrays",
                   lambda x: dml.join(x, axis=0), f32(2), error=ArgumentTypeError,
                   fragments=("(a, b)",)),
    *eager_and_jit("no-arrays", JOIN_FN, "arrays", lambda: dml.join((), axis=0)),
    *eager_and_jit("arrays-hold-a-list", JOIN_FN, "arrays[1]",
                   lambda x: dml.join((x, [1.0]), axis=0), f32(2), error=ArgumentTypeError),
    *eager_and_jit("0d-arrays", JOIN_FN, "arrays[0].shape",
                   lambda a, b: dml.join((a, b), axis=0), f32(), f32()),
    *eager_and_jit("ranks-differ", JOIN_FN, "arrays[1].ndim",
                   lambda a, b: dml.join((a, b), axis=0), f32(2), f32(2, 1)),
    *eager_and_jit("dtypes-differ", JOIN_FN, "arrays[1].dtype",
                   lambda a, b: dml.join((a, b), axis=0), f32(2), i32(2),
                   fragments=("does not promote", ".astype('float32')")),
    *eager_and_jit("shapes-differ-off-the-axis", JOIN_FN, "arrays[1].shape",
                   lambda a, b: dml.join((a, b), axis=1), f32(2, 3), f32(3, 3)),
    *eager_and_jit("axis-out-of-range", JOIN_FN, "axis",
                   lambda a, b: dml.join((a, b), axis=-3), f32(2, 3), f32(2, 3),
                   fragments=("[-2, 2)",)),
    *row("axis-traced", JOIN_FN, "axis",
         traced(lambda a: dml.join((jnp.ones(2), jnp.ones(1)), axis=a), 0), fragments=TRACED),
    *eager_and_jit("0d-x", SPLIT_FN, "x.shape", lambda x: dml.split(x, 1, axis=0), f32()),
    *eager_and_jit("sizes-do-not-sum", SPLIT_FN, "sizes",
                   lambda x: dml.split(x, (1, 1), axis=0), f32(3), fragments=("sum 2",)),
    *eager_and_jit("count-does-not-divide", SPLIT_FN, "sizes",
                   lambda x: dml.split(x, 2, axis=0), f32(3),
                   fragments=("divides x.shape[0] = 3",)),
    *eager_and_jit("count-zero", SPLIT_FN, "sizes",
                   lambda x: dml.split(x, 0, axis=0), f32(0)),
    *eager_and_jit("no-sizes", SPLIT_FN, "sizes", lambda x: dml.split(x, (), axis=0), f32(0)),
    *eager_and_jit("negative-size", SPLIT_FN, "sizes[0]",
                   lambda x: dml.split(x, (-1, 4), axis=0), f32(3)),
    *eager_and_jit("float-size", SPLIT_FN, "sizes[1]",
                   lambda x: dml.split(x, (1, 2.0), axis=0), f32(3)),
    *eager_and_jit("axis-out-of-range", SPLIT_FN, "axis",
                   lambda x: dml.split(x, 1, axis=1), f32(3)),
    *row("sizes-traced", SPLIT_FN, "sizes",
         traced(lambda s: dml.split(jnp.ones(3), s, axis=0), np.array([1, 2])),
         fragments=TRACED),

    # --- SLICE_GRAD, desc face --------------------------------------------------------------------
    *row("zero-stride", SLICE_GRAD, "input_window_strides[0]",
         lambda: compiled(slice_grad_desc(input_window_strides=(0, 1))), fragments=("non-zero",)),
    *row("window-outside", SLICE_GRAD, "input_window_sizes[1]",
         lambda: compiled(slice_grad_desc(input_window_offsets=(0, 1)))),
    *row("offsets-short", SLICE_GRAD, "input_window_offsets",
         lambda: compiled(slice_grad_desc(input_window_offsets=(0,)))),
    *row("offsets-traced", SLICE_GRAD, "input_window_offsets",
         traced(lambda o: slice_grad_desc(input_window_offsets=o), np.array([0, 0])),
         fragments=TRACED),
    *row("input-gradient-larger-than-the-window", SLICE_GRAD, "input_gradient_tensor.sizes[0]",
         lambda: compiled(slice_grad_desc(input_gradient_tensor=td((3, 2))))),
    *row("output-sizes-too-small-for-the-window", SLICE_GRAD, "output_gradient_tensor.sizes",
         lambda: compiled(slice_grad_desc(output_gradient_tensor=td((4, 4, 1))))),
    *row("output-data-type", SLICE_GRAD, "output_gradient_tensor.data_type",
         lambda: compiled(slice_grad_desc(output_gradient_tensor=td((4, 4), I32)))),
    *row("output-window-outside", SLICE_GRAD, "input_window_sizes[0]",
         lambda: compiled(slice_grad_desc(output_gradient_tensor=td((3, 4))))),
    *row("before-FL_3_0", SLICE_GRAD, "feature_level",
         lambda: dml.compile_operator(
             slice_grad_desc(td((1, 1, 2, 2)), td((1, 1, 4, 4)), (0, 0, 0, 0), (1, 1, 4, 4),
                             (1, 1, 2, -2)), feature_level=FL.FL_2_1),
         fragments=("FL_3_0",)),
    *row("2d-at-FL_3_0", SLICE_GRAD, "input_gradient_tensor.sizes",
         lambda: dml.compile_operator(slice_grad_desc(), feature_level=FL.FL_3_0),
         fragments=("FL_3_1",)),
    *row("int64-without-x64", SLICE_GRAD, "input_gradient_tensor.data_type",
         without_x64(lambda: compiled(slice_grad_desc(td((2, 2), T.INT64),
                                                      td((4, 4), T.INT64)))),
         fragments=X64_HINT),
    *eager_and_jit("call-dy-of-wrong-shape", SLICE_GRAD, "the input_gradient_tensor argument",
                   lambda dy: compiled(slice_grad_desc())(dy), f32(4, 4),
                   fragments=("(2, 2)",)),

    # --- dmljax.slice_grad ------------------------------------------------------------------------
    *eager_and_jit("dy-a-list", SLICE_GRAD_FN, "dy",
                   lambda: dml.slice_grad([1.0], (2,), offsets=(0,), sizes=(2,), strides=(2,)),
                   error=ArgumentTypeError),
    *eager_and_jit("input_sizes-short", SLICE_GRAD_FN, "input_sizes",
                   lambda dy: dml.slice_grad(dy, (4,), offsets=(0, 0), sizes=(4, 4),
                                             strides=(2, 2)), f32(2, 2)),
    *eager_and_jit("input_sizes-negative", SLICE_GRAD_FN, "input_sizes[0]",
                   lambda dy: dml.slice_grad(dy, (-1,), offsets=(0,), sizes=(0,), strides=(1,)),
                   f32(0)),
    *eager_and_jit("zero-stride", SLICE_GRAD_FN, "strides[0]",
                   lambda dy: dml.slice_grad(dy, (4,), offsets=(0,), sizes=(4,), strides=(0,)),
                   f32(2)),
    *eager_and_jit("window-outside", SLICE_GRAD_FN, "sizes[0]",
                   lambda dy: dml.slice_grad(dy, (4,), offsets=(1,), sizes=(4,), strides=(2,)),
                   f32(2)),
    *eager_and_jit("dy-larger-than-the-window", SLICE_GRAD_FN, "dy.shape[0]",
                   lambda dy: dml.slice_grad(dy, (4,), offsets=(0,), sizes=(4,), strides=(2,)),
                   f32(3), fragments=("[0, 2]",)),
    *eager_and_jit("result-beyond-xla-sizes", SLICE_GRAD_FN, "input_sizes",
                   lambda dy: dml.slice_grad(dy, (2**62, 2**62), offsets=(0, 0), sizes=(1, 1),
                                             strides=(1, 1)), f32(1, 1),
                   fragments=("XLA's sizes",)),
    *row("strides-traced", SLICE_GRAD_FN, "strides",
         traced(lambda t: dml.slice_grad(jnp.ones(2), (4,), offsets=(0,), sizes=(4,), strides=t),
                np.array([2])), fragments=TRACED),

    # --- ONE_HOT, desc face -----------------------------------------------------------------------
    *row("axis-a-float", ONE_HOT, "axis", lambda: one_hot_desc(axis=1.0)),
    *row("axis-past-the-rank", ONE_HOT, "axis", lambda: compiled(one_hot_desc(axis=2)),
         fragments=("[0, 2)",)),
    *row("indices-not-1-at-axis", ONE_HOT, "indices_tensor.sizes",
         lambda: compiled(one_hot_desc(indices_tensor=td((3, 4), U32)))),
    *row("indices-other-sizes", ONE_HOT, "indices_tensor.sizes",
         lambda: compiled(one_hot_desc(indices_tensor=td((2, 1), U32)))),
    *row("one-value", ONE_HOT, "values_tensor.sizes",
         lambda: compiled(one_hot_desc(values_tensor=td((1, 1)))), fragments=("at least 2",)),
    *row("output-rank", ONE_HOT, "output_tensor.sizes",
         lambda: compiled(one_hot_desc(output_tensor=td((3, 4, 1)))),
         fragments=("DimensionCount",)),
    *row("output-data-type", ONE_HOT, "output_tensor.data_type",
         lambda: compiled(one_hot_desc(output_tensor=td((3, 4), F16)))),
    *row("float-indices", ONE_HOT, "indices_tensor.data_type",
         lambda: compiled(one_hot_desc(indices_tensor=td((3, 1))))),
    *row("signed-indices-before-FL_3_0", ONE_HOT, "indices_tensor.data_type",
         lambda: dml.compile_operator(
             one_hot_desc(td((1, 1, 3, 1), I32), td((1, 1, 1, 2)), td((1, 1, 3, 4)), axis=3),
             feature_level=FL.FL_2_1),
         fragments=("FL_3_0",)),
    *row("before-FL_2_0", ONE_HOT, "feature_level",
         lambda: dml.compile_operator(
             one_hot_desc(td((1, 1, 3, 1), U32), td((1, 1, 1, 2)), td((1, 1, 3, 4)), axis=3),
             feature_level=FL.FL_1_0),
         fragments=("FL_2_0",)),
    *row("int64-indices-without-x64", ONE_HOT, "indices_tensor.data_type",
         without_x64(lambda: compiled(one_hot_desc(indices_tensor=td((3, 1), T.INT64)))),
         fragments=X64_HINT),
    *eager_and_jit("call-values-of-another-shape", ONE_HOT, "the values_tensor argument",
                   lambda i, v: compiled(one_hot_desc())(i, v), u32(3, 1), f32(2, 1),
                   fragments=("(1, 2)",)),

    # --- dmljax.one_hot ---------------------------------------------------------------------------
    *eager_and_jit("indices-a-list", ONE_HOT_FN, "indices",
                   lambda: dml.one_hot([[1.0]], jnp.zeros(2), depth=2), error=ArgumentTypeError),
    *eager_and_jit("float-indices", ONE_HOT_FN, "indices",
                   lambda i: dml.one_hot(i, jnp.zeros(2), depth=2), f32(3),
                   fragments=("integer",)),
    *eager_and_jit("one-value", ONE_HOT_FN, "values",
                   lambda i, v: dml.one_hot(i, v, depth=2), i32(3), f32(1),
                   fragments=("at least 2",)),
    *eager_and_jit("depth-negative", ONE_HOT_FN, "depth",
                   lambda i, v: dml.one_hot(i, v, depth=-1), i32(3), f32(2)),
    *eager_and_jit("axis-past-the-result", ONE_HOT_FN, "axis",
                   lambda i, v: dml.one_hot(i, v, depth=2, axis=-3), i32(3), f32(2),
                   fragments=("[-2, 2)",)),
    *eager_and_jit("result-beyond-xla-sizes", ONE_HOT_FN, "depth",
                   lambda i, v: with_x64(dml.one_hot, i, v, depth=2**62), i32(4), f32(2),
                   fragments=("XLA's sizes",)),
    *row("depth-traced", ONE_HOT_FN, "depth",
         traced(lambda d: dml.one_hot(jnp.ones(2, jnp.int32), jnp.zeros(2), depth=d),
                np.array(2)), fragments=TRACED),

    # --- REVERSE_SUBSEQUENCES, desc face ----------------------------------------------------------
    *row("axis-past-the-rank", REVERSE, "axis", lambda: compiled(reverse_desc(axis=2)),
         fragments=("[0, 2)",)),
    *row("axis-traced", REVERSE, "axis", traced(lambda a: reverse_desc(axis=a), np.array(1)),
         fragments=TRACED),
    *row("lengths-not-1-at-axis", REVERSE, "sequence_lengths_tensor.sizes",
         lambda: compiled(reverse_desc(sequence_lengths_tensor=td((3, 4), U32)))),
    *row("lengths-rank", REVERSE, "sequence_lengths_tensor.sizes",
         lambda: compiled(reverse_desc(sequence_lengths_tensor=td((3,), U32))),
         fragments=("DimensionCount",)),
    *row("signed-lengths", REVERSE, "sequence_lengths_tensor.data_type",
         lambda: compiled(reverse_desc(sequence_lengths_tensor=td((3, 1), I32)))),
    *row("output-sizes", REVERSE, "output_tensor.sizes",
         lambda: compiled(reverse_desc(output_tensor=td((3, 5))))),
    *row("output-data-type", REVERSE, "output_tensor.data_type",
         lambda: compiled(reverse_desc(output_tensor=td((3, 4), F16)))),
    *row("2d-before-FL_4_0", REVERSE, "input_tensor.sizes",
         lambda: dml.compile_operator(reverse_desc(), feature_level=FL.FL_3_1),
         fragments=("FL_4_0",)),
    *row("before-FL_2_1", REVERSE, "feature_level",
         lambda: dml.compile_operator(
             reverse_desc(td((1, 1, 3, 4)), td((1, 1, 3, 1), U32), td((1, 1, 3, 4)), axis=3),
             feature_level=FL.FL_2_0),
         fragments=("FL_2_1",)),
    *row("int64-never", REVERSE, "input_tensor.data_type",
         lambda: with_x64(compiled, reverse_desc(td((3, 4), T.INT64), output_tensor=td((3, 4),
                                                                                      T.INT64))),
         fragments=("never supports INT64",)),
    *eager_and_jit("call-lengths-of-another-type", REVERSE, "the sequence_lengths_tensor argument",
                   lambda x, n: compiled(reverse_desc())(x, n), f32(3, 4), i32(3, 1),
                   fragments=("of dtype uint32",)),

    # --- dmljax.reverse_subsequences --------------------------------------------------------------
    *eager_and_jit("x-a-list", REVERSE_FN, "x",
                   lambda: dml.reverse_subsequences([1.0], jnp.ones(1, jnp.int32), axis=0),
                   error=ArgumentTypeError),
    *eager_and_jit("x-0d", REVERSE_FN, "x",
                   lambda x, n: dml.reverse_subsequences(x, n, axis=0), f32(), i32()),
    *eager_and_jit("float-lengths", REVERSE_FN, "lengths",
                   lambda x, n: dml.reverse_subsequences(x, n, axis=0), f32(3), f32(1),
                   fragments=("integer",)),
    *eager_and_jit("lengths-not-1-at-axis", REVERSE_FN, "lengths.shape",
                   lambda x, n: dml.reverse_subsequences(x, n, axis=1), f32(2, 3), i32(2, 3)),
    *eager_and_jit("lengths-too-many-dimensions", REVERSE_FN, "lengths.shape",
                   lambda x, n: dml.reverse_subsequences(x, n, axis=0), f32(3), i32(1, 1)),
    *eager_and_jit("axis-past-the-rank", REVERSE_FN, "axis",
                   lambda x, n: dml.reverse_subsequences(x, n, axis=2), f32(2, 3), i32(2, 1)),
    *row("axis-traced", REVERSE_FN, "axis",
         traced(lambda a: dml.reverse_subsequences(jnp.ones(2), jnp.ones(1, jnp.int32), axis=a),
                np.array(0)), fragments=TRACED),

    # --- DIAGONAL_MATRIX, desc face ---------------------------------------------------------------
    *row("output_tensor-not-a-tensor-desc", DIAGONAL, "output_tensor",
         lambda: diagonal_desc(output_tensor=(3, 4)), ArgumentTypeError),
    *row("offset-a-float", DIAGONAL, "offset", lambda: diagonal_desc(offset=0.5)),
    *row("offset-past-int", DIAGONAL, "offset", lambda: compiled(diagonal_desc(offset=2**31)),
         fragments=("an INT",)),
    *row("value-a-string", DIAGONAL, "value", lambda: diagonal_desc(value="1")),
    *row("value-nan-for-integers", DIAGONAL, "value",
         lambda: compiled(diagonal_desc(td((1, 1, 3, 4), I32), value=float("nan"))),
         fragments=("finite", "DiagonalMatrix1OperatorDesc")),
    *row("output-rank", DIAGONAL, "output_tensor.sizes",
         lambda: compiled(diagonal_desc(td((3, 4))))),
    *row("output-data-type", DIAGONAL, "output_tensor.data_type",
         lambda: compiled(diagonal_desc(td((1, 1, 3, 4), T.INT64)))),
    *row("before-FL_2_0", DIAGONAL, "feature_level",
         lambda: dml.compile_operator(diagonal_desc(), feature_level=FL.FL_1_0),
         fragments=("FL_2_0",)),
    *row("call-without-arguments", DIAGONAL, "arguments",
         lambda: compiled(diagonal_desc())(f32(1)), ArgumentTypeError),
    *eager_and_jit("call-with-an-argument", DIAGONAL, "arguments",
                   lambda x: compiled(diagonal_desc())(x), f32(1, 1, 3, 4),
                   error=ArgumentTypeError),

    # --- DIAGONAL_MATRIX1, desc face --------------------------------------------------------------
    *row("fill-begin-past-int", DIAGONAL1, "diagonal_fill_begin",
         lambda: compiled(diagonal1_desc(diagonal_fill_begin=-(2**31) - 1)),
         fragments=("an INT",)),
    *row("fill-end-traced", DIAGONAL1, "diagonal_fill_end",
         traced(lambda e: diagonal1_desc(diagonal_fill_end=e), np.array(1)), fragments=TRACED),
    *row("value-data-type-not-the-output's", DIAGONAL1, "value_data_type",
         lambda: compiled(diagonal1_desc(value_data_type=F16))),
    *row("value-data-type-unknown", DIAGONAL1, "value_data_type",
         lambda: diagonal1_desc(value_data_type=99)),
    *row("value-beyond-the-type", DIAGONAL1, "value",
         lambda: diagonal1_desc(td((3, 4), U32), td((3, 4), U32), U32, value=-1),
         fragments=("[0, 4294967295]",)),
    *row("input-sizes", DIAGONAL1, "output_tensor.sizes",
         lambda: compiled(diagonal1_desc(td((4, 3))))),
    *row("output-data-type", DIAGONAL1, "output_tensor.data_type",
         lambda: compiled(diagonal1_desc(output_tensor=td((3, 4), F16), value_data_type=F16))),
    *row("rank-5", DIAGONAL1, "input_tensor.sizes",
         lambda: compiled(diagonal1_desc(td((1, 1, 1, 3, 4)), td((1, 1, 1, 3, 4)))),
         fragments=("2 to 4 dimensions",)),
    *row("before-FL_5_1", DIAGONAL1, "feature_level",
         lambda: dml.compile_operator(diagonal1_desc(), feature_level=FL.FL_5_0),
         fragments=("FL_5_1",)),
    *row("int64-without-x64", DIAGONAL1, "input_tensor.data_type",
         without_x64(lambda: compiled(diagonal1_desc(td((3, 4), T.INT64),
                                                     td((3, 4), T.INT64), T.INT64))),
         fragments=X64_HINT),

    # --- dmljax.diagonal_matrix -------------------------------------------------------------------
    *eager_and_jit("x-a-list", DIAGONAL_FN, "x",
                   lambda: dml.diagonal_matrix([[1.0]]), error=ArgumentTypeError),
    *eager_and_jit("x-1d", DIAGONAL_FN, "x.shape",
                   lambda x: dml.diagonal_matrix(x), f32(3), fragments=("at least 2",)),
    *row("shape-1d", DIAGONAL_FN, "x.shape",
         lambda: dml.diagonal_matrix(jax.ShapeDtypeStruct((3,), jnp.float32))),
    *row("shape-beyond-xla-sizes", DIAGONAL_FN, "x.shape",
         lambda: dml.diagonal_matrix(jax.ShapeDtypeStruct((2**31, 2**31, 2, 2), jnp.float32)),
         fragments=("XLA's sizes",)),
    *eager_and_jit("value-beyond-the-dtype", DIAGONAL_FN, "value",
                   lambda x: dml.diagonal_matrix(x, value=256), u8(2, 2), fragments=("255",)),
    *eager_and_jit("fill_begin-a-float", DIAGONAL_FN, "fill_begin",
                   lambda x: dml.diagonal_matrix(x, fill_begin=0.5), f32(2, 2)),
    *row("fill_end-traced", DIAGONAL_FN, "fill_end",
         traced(lambda e: dml.diagonal_matrix(jnp.ones((2, 2)), fill_end=e), np.array(1)),
         fragments=TRACED),

    # --- SCATTER_ND, desc face --------------------------------------------------------------------
    *row("input_dimension_count-zero", SCATTER_ND, "input_dimension_count",
         lambda: compiled(scatter_nd_desc(input_dimension_count=0))),
    *row("indices_dimension_count-past-the-rank", SCATTER_ND, "indices_dimension_count",
         lambda: compiled(scatter_nd_desc(indices_dimension_count=3))),
    *row("indices_dimension_count-traced", SCATTER_ND, "indices_dimension_count",
         traced(lambda k: scatter_nd_desc(indices_dimension_count=k), 2), fragments=TRACED),
    *row("input-leading-dimension-not-1", SCATTER_ND, "input_tensor.sizes",
         lambda: compiled(scatter_nd_desc(input_dimension_count=1))),
    *row("tuple-longer-than-the-input", SCATTER_ND, "indices_tensor.sizes[1]",
         lambda: compiled(scatter_nd_desc(indices_tensor=td((2, 3), U32),
                                          updates_tensor=td((1, 2))))),
    *row("updates-sizes", SCATTER_ND, "updates_tensor.sizes",
         lambda: compiled(scatter_nd_desc(updates_tensor=td((2, 3)))),
         fragments=("(2, 2)",)),
    *row("updates-data-type", SCATTER_ND, "updates_tensor.data_type",
         lambda: compiled(scatter_nd_desc(updates_tensor=td((2, 2), F16)))),
    *row("output-sizes", SCATTER_ND, "output_tensor.sizes",
         lambda: compiled(scatter_nd_desc(output_tensor=td((2, 3))))),
    *row("output-data-type", SCATTER_ND, "output_tensor.data_type",
         lambda: compiled(scatter_nd_desc(output_tensor=td((3, 2), I32)))),
    *row("float-indices", SCATTER_ND, "indices_tensor.data_type",
         lambda: compiled(scatter_nd_desc(indices_tensor=td((2, 1))))),
    *row("before-FL_2_1", SCATTER_ND, "feature_level",
         lambda: dml.compile_operator(
             scatter_nd_desc(td((1, 1, 3, 2)), td((1, 1, 2, 1), U32), td((1, 1, 2, 2)),
                             td((1, 1, 3, 2))),
             feature_level=FL.FL_2_0),
         fragments=("FL_2_1",)),
    *row("int64-without-x64", SCATTER_ND, "input_tensor.data_type",
         without_x64(lambda: compiled(scatter_nd_desc(
             td((3, 2), T.INT64), updates_tensor=td((2, 2), T.INT64),
             output_tensor=td((3, 2), T.INT64)))),
         fragments=X64_HINT),
    *eager_and_jit("call-indices-of-another-type", SCATTER_ND, "the indices_tensor argument",
                   lambda x, i, u: compiled(scatter_nd_desc())(x, i, u), f32(3, 2), i32(2, 1),
                   f32(2, 2), fragments=("of dtype uint32",)),
    *eager_and_jit("call-updates-of-another-shape", SCATTER_ND, "the updates_tensor argument",
                   lambda x, i, u: compiled(scatter_nd_desc())(x, i, u), f32(3, 2), u32(2, 1),
                   f32(2, 3)),

    # --- dmljax.scatter_nd ------------------------------------------------------------------------
    *eager_and_jit("x-a-list", SCATTER_ND_FN, "x",
                   lambda i, u: dml.scatter_nd([1.0, 2.0], i, u), i32(1, 1), f32(1),
                   error=ArgumentTypeError),
    *eager_and_jit("float-indices", SCATTER_ND_FN, "indices",
                   lambda x, i, u: dml.scatter_nd(x, i, u), f32(3), f32(1, 1), f32(1)),
    *eager_and_jit("0d-indices", SCATTER_ND_FN, "indices.shape",
                   lambda x, i, u: dml.scatter_nd(x, i, u), f32(3), i32(), f32()),
    *eager_and_jit("tuple-longer-than-x", SCATTER_ND_FN, "indices.shape[-1]",
                   lambda x, i, u: dml.scatter_nd(x, i, u), f32(3), i32(1, 2), f32(1)),
    *eager_and_jit("updates-shape", SCATTER_ND_FN, "updates.shape",
                   lambda x, i, u: dml.scatter_nd(x, i, u), f32(3, 2), i32(4, 1), f32(4, 3),
                   fragments=("(4, 2)",)),
    *eager_and_jit("updates-dtype", SCATTER_ND_FN, "updates.dtype",
                   lambda x, i, u: dml.scatter_nd(x, i, u), f32(3, 2), i32(4, 1), i32(4, 2),
                   fragments=(".astype('float32')",)),
    *eager_and_jit("reduction-unknown", SCATTER_ND_FN, "reduction",
                   lambda x, i, u: dml.scatter_nd(x, i, u, reduction="sum"), f32(3), i32(1, 1),
                   f32(1)),
    *eager_and_jit("bool-add", SCATTER_ND_FN, "reduction",
                   lambda x, i, u: dml.scatter_nd(x, i, u, reduction="add"),
                   np.zeros(3, bool), i32(1, 1), np.zeros(1, bool)),
    *row("deterministic-traced", SCATTER_ND_FN, "deterministic",
         traced(lambda d: dml.scatter_nd(jnp.ones(3), jnp.zeros((1, 1), jnp.int32), jnp.ones(1),
                                         deterministic=d), True),
         fragments=("a static bool",)),

    # --- dmljax.gather_elements -------------------------------------------------------------------
    *eager_and_jit("x-a-tuple", GATHER_ELEMENTS_FN, "x",
                   lambda i: dml.gather_elements((1.0, 2.0), i, axis=0), i32(2),
                   error=ArgumentTypeError),
    *eager_and_jit("float-indices", GATHER_ELEMENTS_FN, "indices",
                   lambda x, i: dml.gather_elements(x, i, axis=0), f32(3, 2), f32(2, 2)),
    *eager_and_jit("bool-indices", GATHER_ELEMENTS_FN, "indices",
                   lambda x, i: dml.gather_elements(x, i, axis=0), f32(3, 2),
                   np.zeros((2, 2), bool)),
    *eager_and_jit("indices-rank", GATHER_ELEMENTS_FN, "indices.shape",
                   lambda x, i: dml.gather_elements(x, i, axis=0), f32(3, 2), i32(2)),
    *eager_and_jit("indices-larger-off-axis", GATHER_ELEMENTS_FN,
                   "indices.shape[1]",
                   lambda x, i: dml.gather_elements(x, i, axis=0), f32(3, 2), i32(2, 3)),
    *eager_and_jit("axis-past-the-rank", GATHER_ELEMENTS_FN, "axis",
                   lambda x, i: dml.gather_elements(x, i, axis=2), f32(3, 2), i32(2, 2)),
    *eager_and_jit("axis-float", GATHER_ELEMENTS_FN, "axis",
                   lambda x, i: dml.gather_elements(x, i, axis=0.0), f32(3, 2), i32(2, 2)),
    *eager_and_jit("axis-numpy-bool", GATHER_ELEMENTS_FN, "axis",
                   lambda x, i: dml.gather_elements(x, i, axis=np.True_), f32(3, 2), i32(2, 2)),
    *row("axis-traced", GATHER_ELEMENTS_FN, "axis",
         traced(lambda a: dml.gather_elements(jnp.ones((3, 2)), jnp.zeros((2, 2), jnp.int32),
                                              axis=a), 0),
         fragments=TRACED),
    *eager_and_jit("empty-axis", GATHER_ELEMENTS_FN, "x.shape[axis]",
                   lambda x, i: dml.gather_elements(x, i, axis=0), f32(0, 2), i32(1, 2)),

    # --- dmljax.scatter ---------------------------------------------------------------------------
    *eager_and_jit("updates-a-list", SCATTER_FN, "updates",
                   lambda x, i: dml.scatter(x, i, [1.0, 2.0], axis=0), f32(3), i32(2),
                   error=ArgumentTypeError),
    *eager_and_jit("updates-shape", SCATTER_FN, "updates.shape",
                   lambda x, i, u: dml.scatter(x, i, u, axis=0), f32(3), i32(2), f32(3)),
    # A typed scalar; a Python scalar is written at every index, as x.at[i].set(1.0).
    *eager_and_jit("updates-a-typed-scalar", SCATTER_FN, "updates.shape",
                   lambda x, i: dml.scatter(x, i, np.float32(1.0), axis=0), f32(3), i32(2)),
    *eager_and_jit("updates-dtype", SCATTER_FN, "updates.dtype",
                   lambda x, i, u: dml.scatter(x, i, u, axis=0), f32(3), i32(2), i32(2),
                   fragments=(".astype('float32')",)),
    *eager_and_jit("float-indices", SCATTER_FN, "indices",
                   lambda x, i, u: dml.scatter(x, i, u, axis=0), f32(3), f32(2), f32(2)),
    *eager_and_jit("complex-indices", SCATTER_FN, "indices",
                   lambda x, i, u: dml.scatter(x, i, u, axis=0), f32(3),
                   np.zeros(2, np.complex64), f32(2)),
    *eager_and_jit("indices-rank", SCATTER_FN, "indices.shape",
                   lambda x, i, u: dml.scatter(x, i, u, axis=0), f32(3, 2), i32(2), f32(2)),
    *eager_and_jit("indices-larger-off-axis", SCATTER_FN, "indices.shape[0]",
                   lambda x, i, u: dml.scatter(x, i, u, axis=1), f32(3, 2), i32(4, 1),
                   f32(4, 1)),
    *eager_and_jit("axis-past-the-rank", SCATTER_FN, "axis",
                   lambda x, i, u: dml.scatter(x, i, u, axis=1), f32(3), i32(2), f32(2)),
    *eager_and_jit("axis-none", SCATTER_FN, "axis",
                   lambda x, i, u: dml.scatter(x, i, u, axis=None), f32(3), i32(2), f32(2)),
    *row("axis-traced", SCATTER_FN, "axis",
         traced(lambda a: dml.scatter(jnp.ones(3), jnp.zeros(2, jnp.int32), jnp.ones(2),
                                      axis=a), 0),
         fragments=TRACED),
    *eager_and_jit("reduction-unknown", SCATTER_FN, "reduction",
                   lambda x, i, u: dml.scatter(x, i, u, axis=0, reduction="sum"),
                   f32(3), i32(2), f32(2), fragments=("'none', 'add', 'mul', 'max', 'min'",)),
    *eager_and_jit("reduction-upper-case", SCATTER_FN, "reduction",
                   lambda x, i, u: dml.scatter(x, i, u, axis=0, reduction="ADD"),
                   f32(3), i32(2), f32(2)),
    *eager_and_jit("reduction-none-object", SCATTER_FN, "reduction",
                   lambda x, i, u: dml.scatter(x, i, u, axis=0, reduction=None),
                   f32(3), i32(2), f32(2)),
    *eager_and_jit("reduction-a-numpy-string-array", SCATTER_FN, "reduction",
                   lambda x, i, u: dml.scatter(x, i, u, axis=0, reduction=np.array("add")),
                   f32(3), i32(2), f32(2)),
    *eager_and_jit("reduction-add-on-bools", SCATTER_FN, "reduction",
                   lambda x, i, u: dml.scatter(x, i, u, axis=0, reduction="add"),
                   np.zeros(3, bool), i32(2), np.zeros(2, bool)),
    *eager_and_jit("deterministic-an-int", SCATTER_FN, "deterministic",
                   lambda x, i, u: dml.scatter(x, i, u, axis=0, deterministic=1),
                   f32(3), i32(2), f32(2), error=ArgumentTypeError),
    *eager_and_jit("deterministic-a-string", SCATTER_FN, "deterministic",
                   lambda x, i, u: dml.scatter(x, i, u, axis=0, deterministic="yes"),
                   f32(3), i32(2), f32(2), error=ArgumentTypeError),
    *row("deterministic-traced", SCATTER_FN, "deterministic",
         traced(lambda d: dml.scatter(jnp.ones(3), jnp.zeros(2, jnp.int32), jnp.ones(2),
                                      axis=0, deterministic=d), True),
         fragments=TRACED),

    # --- dmljax.slice1 ----------------------------------------------------------------------------
    *eager_and_jit("x-a-list", SLICE1_FN, "x",
                   lambda: dml.slice1([1, 2], offsets=(0,), sizes=(1,), strides=(1,)),
                   error=ArgumentTypeError),
    *eager_and_jit("offsets-length", SLICE1_FN, "offsets",
                   lambda x: dml.slice1(x, offsets=(0,), sizes=(2, 3), strides=(1, 1)),
                   f32(2, 3)),
    *eager_and_jit("sizes-length", SLICE1_FN, "sizes",
                   lambda x: dml.slice1(x, offsets=(0, 0), sizes=(2, 3, 1), strides=(1, 1)),
                   f32(2, 3)),
    *eager_and_jit("strides-length", SLICE1_FN, "strides",
                   lambda x: dml.slice1(x, offsets=(0, 0), sizes=(2, 3), strides=()),
                   f32(2, 3)),
    *eager_and_jit("offsets-negative", SLICE1_FN, "offsets[1]",
                   lambda x: dml.slice1(x, offsets=(0, -1), sizes=(2, 1), strides=(1, 1)),
                   f32(2, 3)),
    *eager_and_jit("sizes-negative", SLICE1_FN, "sizes[0]",
                   lambda x: dml.slice1(x, offsets=(0, 0), sizes=(-1, 3), strides=(1, 1)),
                   f32(2, 3)),
    *eager_and_jit("window-outside-x", SLICE1_FN, "sizes[1]",
                   lambda x: dml.slice1(x, offsets=(0, 1), sizes=(2, 3), strides=(1, 1)),
                   f32(2, 3), fragments=("at most 2",)),
    *eager_and_jit("offset-over-2**64", SLICE1_FN, "sizes[1]",
                   lambda x: dml.slice1(x, offsets=(0, 2**70), sizes=(2, 0), strides=(1, 1)),
                   f32(2, 3)),
    *eager_and_jit("strides-zero", SLICE1_FN, "strides[1]",
                   lambda x: dml.slice1(x, offsets=(0, 0), sizes=(2, 3), strides=(1, 0)),
                   f32(2, 3)),
    *eager_and_jit("offsets-float", SLICE1_FN, "offsets[0]",
                   lambda x: dml.slice1(x, offsets=(0.0, 0), sizes=(2, 3), strides=(1, 1)),
                   f32(2, 3)),
    *eager_and_jit("sizes-bool", SLICE1_FN, "sizes[0]",
                   lambda x: dml.slice1(x, offsets=(0, 0), sizes=(True, 3), strides=(1, 1)),
                   f32(2, 3)),
    *eager_and_jit("strides-a-string", SLICE1_FN, "strides",
                   lambda x: dml.slice1(x, offsets=(0, 0), sizes=(2, 3), strides="11"),
                   f32(2, 3), error=ArgumentTypeError),
    *eager_and_jit("strides-none", SLICE1_FN, "strides",
                   lambda x: dml.slice1(x, offsets=(0, 0), sizes=(2, 3), strides=None),
                   f32(2, 3), error=ArgumentTypeError),
    *eager_and_jit("output_sizes-length", SLICE1_FN, "output_sizes",
                   lambda x: dml.slice1(x, offsets=(0, 0), sizes=(2, 3), strides=(1, 1),
                                        output_sizes=(2,)), f32(2, 3)),
    *eager_and_jit("output_sizes-too-large", SLICE1_FN, "output_sizes[1]",
                   lambda x: dml.slice1(x, offsets=(0, 0), sizes=(2, 3), strides=(1, 2),
                                        output_sizes=(2, 3)), f32(2, 3), fragments=("[0, 2]",)),
    *eager_and_jit("output_sizes-negative", SLICE1_FN, "output_sizes[0]",
                   lambda x: dml.slice1(x, offsets=(0, 0), sizes=(2, 3), strides=(1, 1),
                                        output_sizes=(-1, 3)), f32(2, 3)),
    *eager_and_jit("output_sizes-a-string", SLICE1_FN, "output_sizes",
                   lambda x: dml.slice1(x, offsets=(0, 0), sizes=(2, 3), strides=(1, 1),
                                        output_sizes="23"), f32(2, 3), error=ArgumentTypeError),
    *row("offsets-traced", SLICE1_FN, "offsets",
         traced(lambda o: dml.slice1(jnp.ones((2, 3)), offsets=o, sizes=(2, 3), strides=(1, 1)),
                np.array([0, 0], np.int32)),
         fragments=TRACED),
    *row("sizes-entry-traced", SLICE1_FN, "sizes[1]",
         traced(lambda s: dml.slice1(jnp.ones((2, 3)), offsets=(0, 0), sizes=(2, s),
                                     strides=(1, 1)), 3),
         fragments=TRACED),
    *row("strides-traced", SLICE1_FN, "strides",
         traced(lambda s: dml.slice1(jnp.ones((2, 3)), offsets=(0, 0), sizes=(2, 3), strides=s),
                np.array([1, 1], np.int32)),
         fragments=TRACED),
    *row("output_sizes-traced", SLICE1_FN, "output_sizes",
         traced(lambda o: dml.slice1(jnp.ones((2, 3)), offsets=(0, 0), sizes=(2, 3),
                                     strides=(1, 1), output_sizes=o),
                np.array([2, 3], np.int32)),
         fragments=TRACED),
]
# fmt: on


def _spoiled_output(operator: dml.Operator, field: str, **changes: Any) -> tuple[Any, str]:
    """The valid desc with output ``field`` changed (a tuple field: its first tensor), and
    that tensor's label."""
    desc, _ = _valid_case(operator)
    (label, tensor), *_ = contract.bound_tensors(desc, fields=(field,))
    spoiled = dml.TensorDesc(**{"data_type": tensor.data_type, "sizes": tensor.sizes, **changes})
    value = getattr(desc, field)
    value = (spoiled, *value[1:]) if isinstance(value, tuple) else spoiled
    return dataclasses.replace(desc, **{field: value}), label


def _unsupported_type(operator: dml.Operator, field: str) -> dml.DataType:
    """A DataType the operator's output ``field`` never takes at the latest level."""
    allowed = operator.support.bands[-1].tensors[field].data_types
    return next(t for t in T if t not in allowed and t is not T.UNKNOWN)


def _x64_case(operator: dml.Operator) -> tuple[Any, str] | None:
    """A valid desc holding a 64-bit type, and the label of its first such tensor."""
    latest = operator.support.bands[-1].tensors
    wide = [T.FLOAT64, T.INT64, T.UINT64]
    # The output's data type, or (a test's output is UINT32 or UINT8) its inputs'.
    fields = (operator.output_fields[0], *operator.input_fields)
    data = next((w for f in fields for w in wide if w in latest[f].data_types), None)
    checks = all_checks()[operator.name]
    support_case = checks.support_case
    assert support_case is not None
    # The other input's types too (IF's condition is UINT8 only).
    others = sorted(checks.documented_support[max(checks.documented_support)][2] or (), key=str)
    with jax.enable_x64(True):
        for types in [(data, U32), *((data, t) for t in others), (F32, T.INT64), (F32, T.UINT64)]:
            if types[0] is None:
                continue
            desc, _ = support_case(4, *types)  # pyright: ignore[reportArgumentType]
            try:
                dml.compile_operator(desc)
            except InvalidArgumentError:
                continue
            labels = [
                label for label, tensor in contract.bound_tensors(desc) if tensor.data_type in wide
            ]
            if labels:  # an operator without an index input ignores the index type
                return desc, labels[0]
    return None


def operator_rows(operator: dml.Operator) -> list[Case]:
    """What every operator must refuse, built from its declaration and its companion.

    A new operator gets these rows with no line added here; its own rules' rows live in
    its test file.
    """
    op = operator.desc_type.__name__
    rows: list[Case] = []
    if op in VALID_CASES:
        rows += desc_rows(operator)
        build, inputs = DESC_BUILDERS[op], VALID_INPUTS[op]
        # The inputs the valid desc binds (an optional one left out has no array).
        bound = [label for label, _ in contract.bound_tensors(build(), contract.Role.INPUT)]
        for i, field in enumerate(bound[1:], start=1):
            wrong = (i32 if inputs[i].dtype == np.float32 else f32)(*inputs[i].shape)
            spoiled = (*inputs[:i], wrong, *inputs[i + 1 :])
            rows += eager_and_jit(f"any-call-{field}-of-wrong-dtype", op, f"the {field} argument",
                                  lambda *arrays: compiled(build())(*arrays), *spoiled,
                                  fragments=("of dtype",))  # fmt: skip
    for number, field in enumerate(operator.output_fields):
        # Each output (TOP_K's values and indices): the first keeps its rows' old ids.
        output = "output" if number == 0 else field
        if getattr(_valid_case(operator)[0], field) is None:
            continue  # an optional output the valid desc leaves out (RNN's sequence)
        if operator.input_fields:  # an output of no input may have any sizes
            desc = _valid_case(operator)[0]
            sizes = contract.bound_tensors(desc, fields=(field,))[0][1].sizes
            one_more, label = _spoiled_output(operator, field, sizes=(1, *sizes))
            rows += [case._replace(any_element=True) for case in
                     row(f"any-{output}-of-one-dimension-more", op, f"{label}.sizes",
                         lambda one_more=one_more: dml.compile_operator(one_more))]  # fmt: skip
        data_type = _unsupported_type(operator, field)
        wrong_type, label = _spoiled_output(operator, field, data_type=data_type)
        rows += row(f"any-{output}-of-an-unsupported-type", op, f"{label}.data_type",
                    lambda wrong_type=wrong_type: dml.compile_operator(wrong_type),
                    fragments=(str(data_type),))  # fmt: skip
    x64 = _x64_case(operator)
    if x64 is not None:
        wide_desc, wide_label = x64
        rows += row("any-64-bit-without-x64", op, f"{wide_label}.data_type",
                    without_x64(lambda: dml.compile_operator(wide_desc)),
                    fragments=X64_HINT)  # fmt: skip
    if not operator.input_fields and op not in _HAND_WRITTEN_GENERATORS:
        rows += generator_rows(operator)
    if operator.function is not None:
        rows += face_rows(operator)
    return rows


# DIAGONAL_MATRIX's rows are written out above; every other generator's come from here.
_HAND_WRITTEN_GENERATORS = {DIAGONAL}


def generator_rows(operator: dml.Operator) -> list[Case]:
    """What a generator (an operator of no input) must refuse, from its support case: an
    array passed to it, a level below its first, a rank its first level refuses."""
    op = operator.desc_type.__name__
    desc, _ = _valid_case(operator)
    band = operator.support.bands[0]
    first = band.since
    below = max((level for level in FL if level < first), default=None)
    output = band.tensors[operator.output_fields[0]]
    rank = next(r for r in range(1, 9) if not output.allows_rank(r))
    spoiled, label = _spoiled_output(operator, operator.output_fields[0], sizes=(1,) * rank)
    rows = [
        *eager_and_jit("any-generator-call-with-an-argument", op, "arguments",
                       lambda x: compiled(desc)(x), f32(2), error=ArgumentTypeError),
        *row("any-generator-output-of-a-rank-its-first-level-refuses", op, f"{label}.sizes",
             lambda: dml.compile_operator(spoiled, feature_level=first)),
    ]  # fmt: skip
    if below is not None:
        rows += row("any-generator-below-its-first-level", op, "feature_level",
                    lambda: dml.compile_operator(desc, feature_level=below))  # fmt: skip
    return rows


def face_rows(operator: dml.Operator) -> list[Case]:
    """The functional face's first array argument of strings, from the companion's sweep."""
    assert operator.function is not None
    checks = all_checks()[operator.name]
    assert checks.sweep is not None, operator.name
    drawn = checks.sweep(np.random.default_rng(0), checks.first_dtype)
    name = f"dmljax.{operator.function.__name__}"
    parameters = inspect.signature(operator.function).parameters
    argument = next(iter(parameters))
    if not drawn.batch[0]:  # a generator takes no array: its first argument, the shape
        positional = [p for p in parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
        others = (1,) * (len(positional) - 1)
        function = operator.function
        return [
            case._replace(any_element=True)
            for case in eager_and_jit("any-shape-of-strings", name, argument,
                                      lambda: function(("a", "b"), *others))
        ]  # fmt: skip
    first, *rest = drawn.batch[0]
    strings = np.full(np.shape(first), "a")
    return [
        case._replace(any_element=True)
        for case in eager_and_jit("any-first-array-of-strings", name, argument,
                                  lambda: drawn.fn(strings, *rest), error=ArgumentTypeError)
    ]  # fmt: skip


# One set of face rows per function: an operator served by another's face has none.
TABLE += [case for operator in dml.OPERATORS for case in operator_rows(operator)]


@pytest.mark.parametrize("op", DESC_BUILDERS)
def test_the_unspoiled_descs_compile_and_run(op: str) -> None:
    # Each desc row spoils one field of these; they must be valid as they are.
    desc = DESC_BUILDERS[op]()
    out = dml.compile_operator(desc)(*VALID_INPUTS[op])
    outputs = contract.bound_tensors(desc, contract.Role.OUTPUT)
    assert [x.shape for x in jax.tree.leaves(out)] == [tensor.sizes for _, tensor in outputs]


def _param(case: Case) -> Any:
    marks = () if case.gap is None else (pytest.mark.xfail(strict=True, reason=case.gap),)
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_param(case) for case in TABLE])
def test_bad_input_raises_an_error_naming_the_op_and_the_field(case: Case) -> None:
    # Only dmljax's errors are caught: an XLA error, a crash inside JAX or a
    # result instead of an error fails the row.
    with pytest.raises(ArgumentError) as info:
        case.trigger()
    error = info.value
    assert type(error) is case.error, f"{type(error).__name__}: {error}"
    field = re.sub(r"\[\d+\]$", "", error.field) if case.any_element else error.field
    assert (error.op, field) == (case.op, case.field), str(error)
    message = str(error)
    for fragment in (case.op, case.field, *case.fragments):
        assert fragment in message


def _functional_ops() -> set[str]:
    """The op names of the functional faces, e.g. ``dmljax.gather`` (aliases included once)."""
    functions = (getattr(dml, name) for name in dml.__all__)
    return {
        f"dmljax.{function.__name__}"
        for function in functions
        if inspect.isfunction(function) and function.__module__.startswith("dmljax._src.ops.")
    }


def _takes_64_bit_types(operator: dml.Operator) -> bool:
    """Whether some tensor of the operator takes a 64-bit type at some level (which needs x64)."""
    wide = {T.FLOAT64, T.INT64, T.UINT64}
    return any(
        wide & tensor.data_types
        for band in operator.support.bands
        for tensor in band.tensors.values()
    )


def test_the_table_covers_every_operator_on_both_faces() -> None:
    ops = {case.op for case in TABLE}
    desc_ops = {operator.desc_type.__name__ for operator in dml.OPERATORS}
    functional_ops = _functional_ops()
    assert functional_ops == {
        f"dmljax.{operator.function.__name__}"
        for operator in dml.OPERATORS
        if operator.function is not None
    }
    assert desc_ops <= ops
    assert functional_ops <= ops
    # Functional checks must fire while tracing, too.
    assert functional_ops <= {case.op for case in TABLE if case.id.endswith("[jit]")}
    for operator in dml.OPERATORS:
        op = operator.desc_type.__name__
        # A tuple field's rows name one of its tensors: input_tensors[1].
        fields = {re.sub(r"\[\d+\]", "", case.field) for case in TABLE if case.op == op}
        required = {
            "arguments",
            *(f"the {field} argument" for field in operator.input_fields),
            *(f"{field}.sizes" for field in operator.output_fields),
            *(f"{field}.data_type" for field in operator.output_fields),
            "feature_level",
        }
        assert required <= fields, f"{op} lacks rows for {required - fields}"
        if _takes_64_bit_types(operator):
            assert any(case.op == op and X64_HINT[0] in case.fragments for case in TABLE), op
        # Call-time checks run while tracing, too.
        assert any(case.op == op and case.id.endswith("[jit]") for case in TABLE), op


def test_table_ids_are_unique() -> None:
    ids = [case.id for case in TABLE]
    assert len(ids) == len(set(ids))


# --- Extreme but valid inputs: a result, never a crash inside JAX --------------------------------


@pytest.mark.parametrize("narrow", [jnp.int4, jnp.uint4, jnp.int2, jnp.uint2])
def test_sub_byte_indices_work_like_8_bit_ones(narrow: Any) -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    info = jnp.iinfo(narrow)
    values = np.array([[info.min, -1, 0, info.max]], np.int64).clip(info.min, info.max)
    wide = values.astype(np.int8 if info.min < 0 else np.uint8)
    indices = wide.astype(narrow)
    updates = np.ones((1, 4), np.float32)
    for call in (
        lambda i: dml.gather(x, i, axis=1),
        lambda i: dml.gather_elements(x, i, axis=1),
        lambda i: dml.scatter(x, i, updates, axis=1),
    ):
        np.testing.assert_array_equal(call(indices), call(wide))


@pytest.mark.filterwarnings("ignore::dmljax.errors.NarrowedIndicesWarning")
def test_numpy_64_bit_scalar_indices_keep_their_meaning_without_x64() -> None:
    # Like NumPy arrays of int64: saturated to 32 bits, so out of range stays out of range.
    x = np.arange(5, dtype=np.float32)
    with jax.enable_x64(False):
        for index in (np.int64(2**40), np.int64(-(2**40)), np.uint64(2**64 - 1)):
            np.testing.assert_array_equal(
                dml.gather(x, index, axis=0), dml.gather(x, np.array([index]), axis=0)[0]
            )


def test_functional_faces_take_64_bit_numpy_inputs_as_jnp_does_without_x64() -> None:
    # Not an error on the functional faces: like jnp, they canonicalize to 32 bits.
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    indices = np.zeros((2, 3), np.int64)
    with jax.enable_x64(False):
        expected = jnp.take_along_axis(x, indices, axis=1)
        results = {
            "gather": dml.gather(x, indices[0], axis=1),
            "gather_elements": dml.gather_elements(x, indices, axis=1),
            "scatter": dml.scatter(x, indices, x, axis=1),
            "slice1": dml.slice1(x, offsets=(0, 0), sizes=(2, 3), strides=(1, 1)),
            "tile": dml.tile(x, (1, 1)),
        }
    for name, result in results.items():
        assert result.dtype == expected.dtype, name


@pytest.mark.parametrize("stride", [2**62, 2**70, -(2**70)])
def test_slice1_strides_beyond_int64_pick_one_element(stride: int) -> None:
    x = np.arange(6, dtype=np.int32)
    out = dml.slice1(x, offsets=(1,), sizes=(4,), strides=(stride,))
    np.testing.assert_array_equal(out, x[1:5][:: 1 if stride > 0 else -1][:1])
