"""``python -m dmljax scaling``: batch-sharded GATHER and SCATTER on 1 and on N devices.

Weak scaling: every device holds the same operand (1 GiB of f32 on a GPU,
1 MiB with ``--quick`` or on CPU) whatever the number of devices, sharded
along its batch axis while the operator works along another axis. With no
communication the time per call stays flat as devices are added, so the
throughput grows N-fold: ``scaling = N * time(1 device) / time(N devices)``.
Each program is also checked for collectives: a batch-sharded operand must
stay where it is.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

import dmljax as dml
from dmljax._src.bench.environment import environment
from dmljax._src.bench.operands import normal, permutation, randint
from dmljax._src.bench.timing import Contender, interleave, per_call_seconds
from dmljax._src.text import describe_device, table_formatter

__all__ = ["ScalingResult", "scaling"]

_COLLECTIVES = re.compile(r"\s(all-gather|all-reduce|all-to-all|collective-permute|reduce-scatter)")


@dataclasses.dataclass(frozen=True)
class ScalingResult:
    """One operator on ``devices`` devices.

    Attributes:
        operator: ``"GATHER"`` or ``"SCATTER"``.
        devices: how many devices the batch axis is sharded over.
        operand: the global operand's shape.
        time_ms: median time per call.
        scaling: ``devices * time(1 device) / time(devices)``.
        collectives: the collective opcodes in the compiled program (none expected).
    """

    operator: str
    devices: int
    operand: tuple[int, ...]
    time_ms: float
    scaling: float
    collectives: tuple[str, ...]


def _per_device_shape(small: bool) -> tuple[int, int, int]:
    # (batch rows, gathered axis, minor) per device: 1 GiB of f32, or 1 MiB.
    return (4, 64, 1024) if small else (64, 4096, 1024)


def _operands(
    key: jax.Array, mesh: Mesh, shape: tuple[int, int, int]
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """x (batch-sharded), replicated gather indices, and batch-sharded scatter indices
    and updates that write each target at most once (a shifted random permutation)."""
    batch, axis_size, minor = shape
    picked = axis_size // 2
    x_key, gather_key, permutation_key, shift_key, update_key = jax.random.split(key, 5)
    sharded = NamedSharding(mesh, P("batch"))
    x = jax.device_put(normal(x_key, shape), sharded)
    rows = randint(gather_key, (picked,), 0, axis_size)
    order = permutation(permutation_key, axis_size)[:picked]

    @jax.jit
    def scatter_indices(shift: jax.Array) -> jax.Array:
        return (order[None, :, None] + shift[:, None, :]) % axis_size

    shift = randint(shift_key, (batch, minor), 0, axis_size)
    indices = jax.device_put(scatter_indices(shift), sharded)
    updates = jax.device_put(normal(update_key, indices.shape), sharded)
    return x, jax.device_put(rows, NamedSharding(mesh, P())), indices, updates


_OPERATORS: dict[str, Callable[..., jax.Array]] = {
    "GATHER": lambda x, rows, indices, updates: dml.gather(x, rows, axis=1),
    "SCATTER": lambda x, rows, indices, updates: dml.scatter(x, indices, updates, axis=1),
}


def _measure(
    devices: Sequence[Any], per_device: tuple[int, int, int], seed: int, calls: int
) -> dict[str, tuple[float, tuple[str, ...]]]:
    mesh = Mesh(np.array(devices), ("batch",))
    batch, axis_size, minor = per_device
    operands = _operands(jax.random.key(seed), mesh, (batch * len(devices), axis_size, minor))
    collectives: dict[str, tuple[str, ...]] = {}
    contenders = {}
    for name, fn in _OPERATORS.items():
        jitted = jax.jit(fn, out_shardings=NamedSharding(mesh, P("batch")))
        compiled = jitted.lower(*operands).compile()
        collectives[name] = tuple(sorted(set(_COLLECTIVES.findall(compiled.as_text() or ""))))
        contenders[name] = Contender(compiled, operands)
    samples = interleave(contenders, groups=7, calls=calls)
    return {
        name: (1e3 * per_call_seconds(samples[name]), found) for name, found in collectives.items()
    }


def scaling(
    *, quick: bool = False, json_path: str | None = None, seed: int = 0, out: TextIO | None = None
) -> int:
    """The ``scaling`` command: 1 device, then every device; returns the exit status.

    Exit status 1, with a one-line reason on standard error, when a program communicates
    or there is only one device.
    """
    out = out or sys.stdout
    devices = jax.devices()
    if len(devices) < 2:
        flag = "XLA_FLAGS=--xla_force_host_platform_device_count=8"
        print(
            f"dmljax scaling: needs several devices, and {jax.default_backend()} has 1; on "
            f"the CPU, run it as {flag} python -m dmljax scaling",
            file=sys.stderr,
        )
        return 1
    small = quick or jax.default_backend() == "cpu"
    per_device = _per_device_shape(small)
    calls = 5 if small else 20
    print(f"dmljax scaling: {describe_device()}, {len(devices)} devices", file=out, flush=True)
    counts = sorted({1, len(devices)})
    timings = {n: _measure(devices[:n], per_device, seed, calls) for n in counts}
    results = [
        ScalingResult(
            operator=name,
            devices=n,
            operand=(per_device[0] * n, *per_device[1:]),
            time_ms=timings[n][name][0],
            scaling=n * timings[1][name][0] / timings[n][name][0],
            collectives=timings[n][name][1],
        )
        for name in _OPERATORS
        for n in counts
    ]
    rows = [
        [
            r.operator,
            str(r.devices),
            "x".join(map(str, r.operand)),
            f"{r.time_ms:.3f}",
            f"{r.scaling:.2f}x",
            ", ".join(r.collectives) or "none",
        ]
        for r in results
    ]
    header = ["operator", "devices", "operand (f32)", "ms/call", "scaling", "collectives"]
    print(table_formatter(out)(header, rows, 1), file=out, flush=True)
    if json_path is not None:
        record = {
            "environment": environment(quick=quick, small=small),
            "results": [dataclasses.asdict(r) for r in results],
        }
        with open(json_path, "w") as file:
            json.dump(record, file, indent=2)
        print(f"wrote {json_path}", file=out)
    communicating = sorted({r.operator for r in results if r.collectives})
    if communicating:
        print(
            f"dmljax scaling: {', '.join(communicating)} communicate between devices "
            "(see the collectives column): a batch-sharded operand should need none",
            file=sys.stderr,
        )
        return 1
    return 0
