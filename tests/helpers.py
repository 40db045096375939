"""Shared test helpers: dtypes, random data and strategies, jit caches, refusals and
subprocesses; building and checking descs is in :mod:`tests.descs`.

The DirectML doc examples are read through ``dmljax._src.checking.doc_examples`` and
expected values come from ``dmljax._src.checking.reference``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import pathlib
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import strategies as st
from jax.test_util import check_grads

import dmljax as dml
from dmljax._src.checking.operators import all_checks
from dmljax._src.rules import right_align

# Every DataType JAX can hold, plus the two JAX dtypes DirectML lacks.
DATA_TYPES = tuple(t for t in dml.DataType if t is not dml.DataType.UNKNOWN)
FUNCTIONAL_DTYPES = (*(t.dtype for t in DATA_TYPES), np.dtype(np.bool_), np.dtype(jnp.bfloat16))


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Random values spanning ``dtype``'s range (never all zeros)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype in (np.dtype(jnp.int4), np.dtype(jnp.uint4)):
        info = jnp.iinfo(dtype)
        values = rng.integers(int(info.min), int(info.max), size=shape, endpoint=True)
        return values.astype(dtype)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    return rng.standard_normal(size=shape).astype(np.float32).astype(dtype)


INDEX_DTYPES = tuple(
    np.dtype(t)
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
)
# The index types DirectML's gathers and scatters take (from FL 3_0).
DML_INDEX_TYPES = (
    dml.DataType.INT32,
    dml.DataType.INT64,
    dml.DataType.UINT32,
    dml.DataType.UINT64,
)


# float32 and bfloat16 arithmetic may flush subnormal inputs and results to zero, keeping
# the sign: XLA:CPU does, and Direct3D allows it of float32 (float16 and float64 keep them).
FLUSHED = frozenset({np.dtype(np.float32), np.dtype(jnp.bfloat16)})


def flushed(x: np.ndarray, bound: float = 1) -> np.ndarray:
    """``x`` with its subnormals made zeros of the same sign, where its type may flush
    (values below ``bound`` smallest normals: a row's ``flush_bound``)."""
    if np.dtype(x.dtype) not in FLUSHED:
        return x
    tiny = float(jnp.finfo(x.dtype).tiny) * bound
    wide = np.asarray(x, np.float64)
    with np.errstate(invalid="ignore"):
        small = (wide != 0) & (np.abs(wide) < tiny)
    return np.where(small, np.copysign(0.0, wide), wide).astype(x.dtype)


def random_indices(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: Any, dim: int
) -> np.ndarray:
    """Indices in, below and above ``[0, dim)``: negatives for signed types, and extremes."""
    dtype = np.dtype(dtype)
    info = np.iinfo(dtype)
    low = max(-2 * dim - 1, int(info.min))
    high = min(2 * dim + 1, int(info.max))
    values = rng.integers(low, high, size=shape, endpoint=True).astype(dtype)
    extremes = rng.random(shape) < 0.1
    values[extremes] = rng.choice(np.array([info.min, info.max], dtype), size=int(extremes.sum()))
    return values


@st.composite
def seeds(draw: st.DrawFn) -> np.random.Generator:
    return np.random.default_rng(draw(st.integers(0, 2**32 - 1)))


def jit_cache_size(jitted: Any) -> int:
    """How many programs a ``jax.jit`` function has compiled (traced) so far."""
    return jitted._cache_size()


def face_program(function: Any) -> Any:
    """The jitted program behind a functional face, e.g. ``dml.gather``."""
    (operator,) = (op for op in dml.OPERATORS if op.function is function)
    assert operator.face is not None
    return operator.face.dispatch.jitted


def check_grads_by_primitive(f: Callable[..., Any], primals: tuple[Any, ...], **tolerances: Any):
    """``jax.test_util.check_grads(f, primals, order=2, modes=("fwd", "rev"))`` with jit
    disabled, so that each primitive of ``f`` and of its derivatives runs as a program of
    its own.

    Under jit, each of the 13 to 16 derivatives that check_grads takes to order 2 is one
    program, compiled for that operator and never used again: 28 of the 54 programs the
    conformance suite compiled per element-wise operator. Primitive by primitive, the
    programs (``sin``, ``mul``, ``select_n`` of a shape and dtype) serve every operator
    after the first: ten rows' checks took 1.2 s, not 7.1 s. The derivatives are jax's
    rules for the same primitives either way; the face's jitted program under an eager
    ``jvp`` and ``grad`` is checked exactly, on every draw, by the sweeps
    (``selftest.check_sweep_case``).

    >>> check_grads_by_primitive(jnp.sin, (jnp.ones(3),))
    """
    with jax.disable_jit():
        check_grads(f, primals, order=2, modes=("fwd", "rev"), **tolerances)


REPO = pathlib.Path(__file__).resolve().parent.parent


def run_python(
    *args: str,
    timeout: float,
    env: dict[str, str] | None = None,
    address_space: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python *args`` in a fresh interpreter that imports this checkout's dmljax.

    Hostile inputs run there, so that one that aborts the interpreter fails one test
    instead of the test run; ``address_space`` caps the process's memory (bytes).
    """
    environment = {
        **os.environ,
        # On a GPU the test process holds most of the device's memory (JAX preallocates
        # 75%): the child allocates as it goes instead of failing to preallocate, which
        # XLA reports on stderr.
        "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
        **(env or {}),
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    if address_space is not None:
        cap = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({address_space},) * 2)"
        if args[0] == "-c":
            args = ("-c", f"{cap}\n{args[1]}", *args[2:])
        else:
            raise ValueError("address_space needs a -c script")
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        env=environment,
        cwd=REPO,
        timeout=timeout,
        check=False,
    )


def refused(
    call: Callable[[], Any],
    *,
    field: str,
    match: str,
    op: str | None = None,
    error: type[dml.errors.ArgumentError] = dml.errors.InvalidArgumentError,
) -> Any:
    """The ``error`` that ``call()`` raises, checked: its message matches ``match`` (a
    regular expression), it names ``field`` and, where given, ``op``.

    >>> refused(lambda: dml.tile(jnp.ones(2), (-1,)), field="repeats[0]", match="non-negative")
    InvalidArgumentError('dmljax.tile: repeats[0] must be a non-negative integer; got -1.')
    """
    with pytest.raises(error, match=match) as caught:
        call()
    assert caught.value.field == field, caught.value
    if op is not None:
        assert caught.value.op == op, caught.value
    return caught.value


_REPORT_REFUSALS = r"""
import json as _json
_found = {}
for _name, _call in cases.items():
    try:
        _call()
        _found[_name] = None
    except dml.errors.ArgumentError as _e:
        _found[_name] = [type(_e).__name__, _e.field, str(_e)]
print(_json.dumps(_found))
"""


def refusals_in_a_subprocess(script: str, *, timeout: float) -> dict[str, Any]:
    """Runs ``script``, which imports ``dmljax as dml`` and defines ``cases`` (a name to a
    call each), in a fresh interpreter, so that a call that would abort the interpreter or
    exhaust memory fails one test instead of the run. Returns, for each name, None where
    the call returned, or the ``[type, field, message]`` of the ArgumentError it raised.
    """
    done = run_python("-c", script + _REPORT_REFUSALS, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def product_jacobians(x: Any, indices: Any, updates: Any) -> tuple[np.ndarray, np.ndarray]:
    """The Jacobians of a scatter-multiply along axis 0 of a 1-D ``x``, in float64.

    ``out[t] = x[t] * prod(updates[k] for k whose index is t)``: negative indices wrap,
    out-of-range ones drop. ``d out[t] / d x[t]`` is the product of the updates into
    ``t`` and ``d out[t] / d updates[k]`` is ``x[t]`` times every other factor into ``t``,
    each product taken without the factor itself, so that zeros differentiate exactly.
    """
    x = np.asarray(x, np.float64)
    updates = np.asarray(updates, np.float64)
    n = x.size
    targets = np.asarray(indices).astype(np.int64)
    targets = np.where(targets < 0, targets + n, targets)
    kept = (targets >= 0) & (targets < n)
    d_x = np.zeros((n, n))
    d_updates = np.zeros((n, updates.size))
    for t in range(n):
        into = np.flatnonzero(kept & (targets == t))
        d_x[t, t] = np.prod(updates[into])
        for k in into:
            d_updates[t, k] = x[t] * np.prod(updates[into[into != k]])
    return d_x, d_updates


def small_sizes(draw: st.DrawFn, rank: int, smallest: int = 1) -> tuple[int, ...]:
    """``rank`` sizes from ``smallest`` to 3 (to 2 past rank 4): every rank up to 8 stays
    a few hundred elements at most."""
    largest = 3 if rank <= 4 else 2
    return tuple(draw(st.lists(st.integers(smallest, largest), min_size=rank, max_size=rank)))


@st.composite
def element_index_cases(
    draw: st.DrawFn, *, functional: bool, data_types: Any = (), updates: bool = False
) -> tuple[Any, ...]:
    """``(x, indices, axis)`` for GATHER_ELEMENTS, with ``updates`` ``(x, indices, updates,
    axis)`` for SCATTER: indices of the data's rank along ``axis``, of the data's sizes off
    the axis for a desc (DirectML's rule), at most those for a functional face (ONNX's);
    a desc's data of one of ``data_types``, a face's of any dtype."""
    n = draw(st.integers(1, 8))
    axis = draw(st.integers(0, n - 1))
    max_size = 4 if n <= 3 else 2
    low = 0 if functional else 1
    shape = [draw(st.integers(low, max_size)) for _ in range(n)]
    index_shape = list(shape)
    index_shape[axis] = draw(st.integers(low, max_size))
    if functional:  # smaller off the axis is allowed
        index_shape = [s if d == axis else draw(st.integers(0, s)) for d, s in enumerate(shape)]
    hypothesis.assume(math.prod(shape) <= 512 and math.prod(index_shape) <= 512)
    dtypes = FUNCTIONAL_DTYPES if functional else [t.dtype for t in data_types]
    index_dtypes = INDEX_DTYPES if functional else [t.dtype for t in DML_INDEX_TYPES]
    rng = draw(seeds())
    dtype = draw(st.sampled_from(dtypes))
    x = random_array(rng, tuple(shape), dtype)
    index_dtype = draw(st.sampled_from(index_dtypes))
    indices = random_indices(rng, tuple(index_shape), index_dtype, shape[axis])
    if not updates:
        return x, indices, axis
    return x, indices, random_array(rng, tuple(index_shape), dtype), axis


@dataclasses.dataclass(frozen=True)
class IndexTupleCase:
    """A GATHER_ND or SCATTER_ND desc's sizes, each padded with leading 1s to ``n``
    dimensions; ``input_rank`` and ``indices_rank`` of them are meaningful (the descs'
    dimension counts), ``batch`` of those lead both, and each tuple holds ``t``
    coordinates, into the input's dimensions ``batch .. batch + t`` (``dims``). With
    its types, an input ``x`` and the generator to draw the rest from."""

    n: int
    input_rank: int
    indices_rank: int
    batch: int
    t: int
    input_sizes: tuple[int, ...]
    indices_sizes: tuple[int, ...]
    block_sizes: tuple[int, ...]  # GATHER_ND's output, SCATTER_ND's updates
    data_type: dml.DataType
    index_type: dml.DataType
    rng: np.random.Generator
    x: np.ndarray

    @property
    def dims(self) -> tuple[int, ...]:
        return self.input_sizes[self.n - self.input_rank + self.batch :][: self.t]

    @property
    def positions(self) -> tuple[int, ...]:
        """The indices' meaningful sizes before the tuples' own (batch dimensions included)."""
        return self.indices_sizes[self.n - self.indices_rank : -1]

    def desc_keywords(self, block: str) -> dict[str, Any]:
        """The keywords of a :mod:`tests.descs` builder for this case, the block being the
        ``block`` tensor (``"output"`` for GATHER_ND, ``"updates"`` for SCATTER_ND)."""
        return {"input_sizes": self.input_sizes, "indices_sizes": self.indices_sizes,
                f"{block}_sizes": self.block_sizes, "input_dimension_count": self.input_rank,
                "indices_dimension_count": self.indices_rank, "data_type": self.data_type,
                "index_type": self.index_type}  # fmt: skip


@st.composite
def index_tuple_cases(
    draw: st.DrawFn, *, batched: bool, unique: bool, data_types: Any
) -> IndexTupleCase:
    """Layouts of up to 8 dimensions and 512 elements a block; ``batched`` draws batch
    dimensions (GATHER_ND1), ``unique`` no more positions than twice the tuples there are
    (SCATTER_ND's unique tuples, some out of range); data of one of ``data_types``."""
    n = draw(st.integers(1, 8))
    r_in, r_idx = draw(st.integers(1, n)), draw(st.integers(1, n))
    batch = draw(st.integers(0, min(r_in, r_idx) - 1)) if batched else 0
    t = draw(st.integers(1, r_in - batch))
    sizes = st.integers(1, 3 if n <= 4 else 2)
    meaningful_input = tuple(draw(sizes) for _ in range(r_in))
    positions = tuple(draw(sizes) for _ in range(r_idx - batch - 1))
    if unique:
        hypothesis.assume(math.prod(positions) <= 2 * math.prod(meaningful_input[:t]))
    block = (*meaningful_input[:batch], *positions, *meaningful_input[batch + t :])
    block_sizes = right_align(block, n)
    hypothesis.assume(block_sizes is not None and math.prod(block) <= 512)
    assert block_sizes is not None
    data_type = draw(st.sampled_from(data_types))
    index_type = draw(st.sampled_from(DML_INDEX_TYPES))
    rng = draw(seeds())
    input_sizes = (1,) * (n - r_in) + meaningful_input
    return IndexTupleCase(
        n, r_in, r_idx, batch, t,
        input_sizes=input_sizes,
        indices_sizes=(1,) * (n - r_idx) + (*meaningful_input[:batch], *positions, t),
        block_sizes=block_sizes, data_type=data_type, index_type=index_type, rng=rng,
        x=random_array(rng, input_sizes, data_type.dtype),
    )  # fmt: skip


def support_index_type(band: Any) -> Any:
    """The index type a support-table check builds its descs with: UINT32, which every
    level has had, unless the band (a restated table row) leaves it out; None where the
    band has no other type (an operator without one, or POW before FL 3_0, whose exponent
    then has the data's type)."""
    u32 = dml.DataType.UINT32
    if band is not None and band[2] is None:
        return None
    return u32 if band is None or u32 in band[2] else min(band[2], key=str)


def support_data_type(band: Any) -> dml.DataType:
    """The data type a support-table check builds its descs with: FLOAT32, unless the band
    (a restated table row, or None) leaves it out (LOGICAL_AND's UINT32 and UINT8)."""
    f32 = dml.DataType.FLOAT32
    return f32 if band is None or f32 in band[1] else min(band[1], key=str)


def documented_data_types(name: str) -> list[dml.DataType]:
    """The data types the latest row of an operator's page table allows for its data
    tensors (the companion's restated table), e.g. ``"DML_OPERATOR_GATHER"``."""
    table = all_checks()[name].documented_support
    return sorted(table[max(table)][1], key=lambda t: t.value)


def run_onnx_node(op: str, x: np.ndarray, output_dtype: Any = None, **attrs: Any) -> np.ndarray:
    """One ONNX node of one input on onnxruntime's CPU provider (opset 13), its output of
    ``output_dtype`` (``x``'s by default); skips the test where onnxruntime is missing."""
    out = np.dtype(x.dtype if output_dtype is None else output_dtype)
    session = onnx_session(op, 13, tuple(sorted(attrs.items())), (np.dtype(x.dtype),), out)
    return session.run(None, {"i0": x})[0]


@functools.cache
def onnx_session(
    op: str,
    opset: int,
    attrs: tuple[Any, ...],
    dtypes: tuple[Any, ...],
    out: np.dtype[Any] | tuple[np.dtype[Any], ...],
) -> Any:
    """An onnxruntime CPU session of one node ``op`` at ``opset``, its inputs ``i0``,
    ``i1``, ... of ``dtypes`` (any shape), its output ``y`` of ``out`` (outputs ``y0``,
    ``y1``, ... of a tuple of dtypes: TopK's values and indices) and its attributes as
    sorted items (a cache key); skips the test where onnxruntime is missing. A type the
    operator does not take fails here (onnxruntime's InvalidGraph or NotImplemented)."""
    helper = pytest.importorskip("onnx.helper")
    ort = pytest.importorskip("onnxruntime")
    names = [f"i{k}" for k in range(len(dtypes))]
    outs = {f"y{k}": t for k, t in enumerate(out)} if isinstance(out, tuple) else {"y": out}
    graph = helper.make_graph(
        [helper.make_node(op, names, list(outs), **dict(attrs))],
        op,
        [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(t), None)
            for n, t in zip(names, dtypes, strict=True)
        ],
        [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(t), None)
            for n, t in outs.items()
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    options = ort.SessionOptions()
    options.log_severity_level = 4  # a type without a kernel is the caller's to report
    return ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def onnx_type(dtype: Any) -> int:
    """ONNX's TensorProto type of a NumPy dtype (Cast's ``to``)."""
    onnx = pytest.importorskip("onnx")
    return onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
