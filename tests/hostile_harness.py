"""Hypothesis over hostile desc fields and functional arguments, run by
tests/test_hostile_harness.py in a subprocess: every outcome must be a valid result or a
dmljax ArgumentError or TypeError (for descs, raised before the desc's validation
allocates 1 MiB), and the process must never abort. Prints the counts as JSON.

    HOSTILE_EXAMPLES=500 python tests/hostile_harness.py
"""

import json
import os
import tracemalloc

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import strategies as st

import dmljax as dml
from dmljax.errors import ArgumentError

T = dml.DataType
LIMITS = [2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**40, 2**62, 2**63, 2**64, 2**70, -(2**31), -1]
HUGE = st.one_of(st.integers(-2, 4), st.sampled_from(LIMITS))
SMALL = st.integers(1, 3)
TYPES = st.sampled_from([T.FLOAT32, T.FLOAT16, T.INT32, T.UINT8, T.INT64, T.FLOAT64])
MIB = 2**20
counts = {"descs": 0, "compiled": 0, "ran": 0, "refused": 0, "calls": 0, "call_refusals": 0}


class Build:
    """A desc's class and fields, built only when called: building validates, and a
    hostile field's error is one of the outcomes under test."""

    def __init__(self, kind, fields):
        self.kind, self.fields = kind, fields

    def __call__(self):
        built = {k: v() if isinstance(v, Build) else v for k, v in self.fields.items()}
        if "input_tensors" in built:
            built["input_tensors"] = tuple(t() for t in built["input_tensors"])
        return self.kind(**built)

    def __repr__(self):
        return f"{self.kind.__name__}({self.fields})"


@st.composite
def tensors(draw, sizes=None, data_type=None):
    sizes = tuple(draw(st.lists(HUGE, max_size=9))) if sizes is None else sizes
    fields = {"data_type": data_type or draw(TYPES), "sizes": sizes}
    if draw(st.booleans()):
        fields["strides"] = tuple(draw(st.lists(HUGE, min_size=len(sizes), max_size=len(sizes))))
    if draw(st.booleans()):
        fields["total_tensor_size_in_bytes"] = draw(HUGE)
    if draw(st.booleans()):
        fields["guaranteed_base_offset_alignment"] = draw(HUGE)
    return Build(dml.TensorDesc, fields)


@st.composite
def descs(draw):
    """A hostile desc, or (half the time) a TILE or PADDING desc whose output fits."""
    kind = draw(st.sampled_from(["tile", "pad", "gather", "slice1", "one_hot", "join"]))
    small = draw(st.booleans())
    a = (
        draw(tensors(tuple(draw(st.lists(SMALL, min_size=1, max_size=4)))))
        if small
        else draw(tensors())
    )
    a_sizes, a_type = a.fields["sizes"], a.fields["data_type"]
    rank = len(a_sizes)
    ints = lambda s: tuple(draw(st.lists(s, min_size=rank, max_size=rank)))
    if kind == "tile":
        repeats = ints(SMALL if small else HUGE)
        out = tuple(n * r for n, r in zip(a_sizes, repeats, strict=True)) if small else None
        b = draw(tensors(out, a_type)) if out else draw(tensors())
        return Build(
            dml.TileOperatorDesc, {"input_tensor": a, "output_tensor": b, "repeats": repeats}
        )
    if kind == "pad":
        start, end = ints(SMALL if small else HUGE), ints(SMALL if small else HUGE)
        out = tuple(n + s + e for n, s, e in zip(a_sizes, start, end, strict=True))
        b = draw(tensors(out, a_type)) if small else draw(tensors())
        return Build(
            dml.PaddingOperatorDesc,
            {
                "input_tensor": a,
                "output_tensor": b,
                "padding_mode": "EDGE",
                "padding_value": 0.0,
                "start_padding": start,
                "end_padding": end,
            },
        )
    b, c = draw(tensors()), draw(tensors())
    if kind == "gather":
        return Build(
            dml.GatherOperatorDesc,
            {
                "input_tensor": a,
                "indices_tensor": b,
                "output_tensor": c,
                "axis": draw(HUGE),
                "index_dimensions": draw(HUGE),
            },
        )
    if kind == "slice1":
        return Build(
            dml.Slice1OperatorDesc,
            {
                "input_tensor": a,
                "output_tensor": b,
                "input_window_offsets": ints(HUGE),
                "input_window_sizes": ints(HUGE),
                "input_window_strides": ints(HUGE),
            },
        )
    if kind == "one_hot":
        return Build(
            dml.OneHotOperatorDesc,
            {"indices_tensor": a, "values_tensor": b, "output_tensor": c, "axis": draw(HUGE)},
        )
    return Build(
        dml.JoinOperatorDesc, {"input_tensors": (a, b), "output_tensor": c, "axis": draw(HUGE)}
    )


def _bounded(step):
    """Runs ``step`` and fails if it allocated more than 1 MiB of host memory on the way."""
    tracemalloc.start()
    try:
        return step()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < MIB, f"{peak} bytes allocated"


SETTINGS = hypothesis.settings(
    max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "100")),
    deadline=None,
    database=None,
    derandomize=os.environ.get("HOSTILE_RANDOM") is None,  # CI sees the same examples
    suppress_health_check=[hypothesis.HealthCheck.too_slow, hypothesis.HealthCheck.filter_too_much],
)


@SETTINGS
@hypothesis.given(descs())
def hostile_descs(build):
    counts["descs"] += 1
    desc = None
    try:
        desc = _bounded(build)
        op = _bounded(lambda: dml.compile_operator(desc))
    except (ArgumentError, TypeError):
        counts["refused"] += 1
        return
    counts["compiled"] += 1
    packed = set(build.fields["input_tensor"].fields) == {"data_type", "sizes"}
    if packed and isinstance(desc, dml.TileOperatorDesc | dml.PaddingOperatorDesc):
        source = desc.input_tensor
        x = np.zeros(source.sizes, source.data_type.dtype)
        if x.nbytes < MIB and np.prod(op.output_desc.sizes) * x.itemsize < MIB:
            jax.block_until_ready(op(x))
            counts["ran"] += 1


@SETTINGS
@hypothesis.given(
    face=st.sampled_from(["tile", "pad", "one_hot", "slice_grad"]),
    value=st.one_of(st.integers(-2, 2**63), st.sampled_from([2**61 - 1, 2**62, 2**63 - 1])),
    batch=st.sampled_from([None, 1, 2**10, 2**20]),
)
def hostile_arguments(face, value, batch):
    """Sizes, repeats and depths up to 2**63, eagerly and under vmap (shapes only)."""
    counts["calls"] += 1
    calls = {
        "tile": (lambda a: dml.tile(a, (1, value)), jnp.float32),
        "pad": (lambda a: dml.pad(a, (0, value), (0, 0)), jnp.float32),
        "one_hot": (lambda i: dml.one_hot(i[:, 0], jnp.array([0.0, 1.0]), depth=value), jnp.int32),
        "slice_grad": (
            lambda d: dml.slice_grad(d, (2, value), offsets=(0, 0), sizes=(2, 2), strides=(1, 1)),
            jnp.float32,
        ),
    }
    fn, dtype = calls[face]
    spec = jax.ShapeDtypeStruct((2, 2) if batch is None else (batch, 2, 2), dtype)
    try:
        jax.eval_shape(fn if batch is None else jax.vmap(fn), spec)  # shapes only
    except (ArgumentError, TypeError):
        counts["call_refusals"] += 1


if __name__ == "__main__":
    hostile_descs()
    hostile_arguments()
    print(json.dumps(counts))
