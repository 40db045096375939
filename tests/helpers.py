"""Shared test helpers: the DirectML doc examples, dtypes and random data."""

from __future__ import annotations

import functools
import json
import pathlib
from typing import Any

import jax.numpy as jnp
import numpy as np
from hypothesis import strategies as st

import dmljax as dml

DOC_EXAMPLES_PATH = pathlib.Path(dml.__file__).parent / "_src" / "data" / "dml-doc-examples.json"

# Every DataType JAX can hold, plus the two JAX dtypes DirectML lacks.
DATA_TYPES = tuple(t for t in dml.DataType if t is not dml.DataType.UNKNOWN)
FUNCTIONAL_DTYPES = (*(t.dtype for t in DATA_TYPES), np.dtype(np.bool_), np.dtype(jnp.bfloat16))


@functools.cache
def _doc_examples() -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in json.loads(DOC_EXAMPLES_PATH.read_text())}


def doc_example(example_id: str) -> dict[str, Any]:
    """One worked example from the DirectML docs (see tests/data/dml-doc-examples.json)."""
    return _doc_examples()[example_id]


def doc_examples(op: str) -> list[dict[str, Any]]:
    """Every doc example of one DML_OPERATOR_* name."""
    return [e for e in _doc_examples().values() if e["op"] == op]


def tensor_of(entry: dict[str, Any]) -> np.ndarray:
    """A doc example's tensor ({sizes, dtype, data}) as a NumPy array of its sizes."""
    dtype = dml.DataType[entry["dtype"]].dtype
    return np.asarray(entry["data"], dtype=dtype).reshape(entry["sizes"])


def tensor_desc_of(entry: dict[str, Any]) -> dml.TensorDesc:
    return dml.TensorDesc(data_type=dml.DataType[entry["dtype"]], sizes=tuple(entry["sizes"]))


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
