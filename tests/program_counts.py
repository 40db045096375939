"""The XLA programs each test compiles, and the seconds spent tracing, lowering and
compiling them: a pytest plugin for measuring the suite, read from JAX's monitoring events.

    python -m pytest -q -n 2 -p tests.program_counts --program-counts=programs.jsonl tests

writes one JSON line per test (each pytest-xdist worker appends its own) and ends the
run with a table per file, the files that compile longest first. Compiling is most of
the suite's time (CONTRIBUTING.md, "Where the test suite's time goes"): the table says
where programs can be shared, and the per-test lines which test compiles them.
"""

from __future__ import annotations

import collections
import json
import pathlib
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import pytest

# JAX's monitoring events. A compile request is a program jit needed: compiled by XLA,
# or read from the persistent compilation cache (a hit, also timed as a compile).
_EVENTS = {
    "/jax/core/compile/jaxpr_trace_duration": "trace_s",
    "/jax/core/compile/jaxpr_to_mlir_module_duration": "lower_s",
    "/jax/core/compile/backend_compile_duration": "compile_s",
}
_REQUESTS = "/jax/core/compile/backend_compile_duration"
_HITS = "/jax/compilation_cache/cache_hits"


class Recorder:
    """Sums JAX's compile events between :meth:`start` and :meth:`stop`.

    >>> import jax, jax.numpy as jnp
    >>> x = jnp.ones(7)
    >>> recorder = Recorder()
    >>> recorder.start()
    >>> _ = jax.jit(lambda x: x * 3)(x)
    >>> row = recorder.stop()  # compiled, or read back from the compilation cache
    >>> row["programs"] + row["cache_hits"]
    1
    """

    def __init__(self) -> None:
        # Imported here, once the run configures its plugins: a plugin given with -p is
        # imported before tests/conftest.py sets the XLA flags JAX reads as it starts.
        from jax import monitoring

        self._row: collections.defaultdict[str, float] | None = None
        monitoring.register_event_duration_secs_listener(self._on_duration)
        monitoring.register_event_listener(self._on_event)

    def start(self) -> None:
        self._row = collections.defaultdict(float)

    def stop(self) -> dict[str, Any]:
        """The test's figures: programs compiled, cache hits and the seconds of each step."""
        row, self._row = self._row or collections.defaultdict(float), None
        return {
            "programs": int(row["requests"] - row["hits"]),
            "cache_hits": int(row["hits"]),
            **{key: round(row[key], 4) for key in _EVENTS.values()},
        }

    def _on_duration(self, event: str, duration_secs: float, **_: str | int) -> None:
        if self._row is None or event not in _EVENTS:
            return
        self._row[_EVENTS[event]] += duration_secs
        if event == _REQUESTS:
            self._row["requests"] += 1

    def _on_event(self, event: str, **_: str | int) -> None:
        if self._row is not None and event == _HITS:
            self._row["hits"] += 1


def per_file(rows: Iterable[Mapping[str, Any]]) -> dict[str, collections.Counter[str]]:
    """The per-test rows summed per file (the part of each node id before ``::``).

    >>> per_file([{"test": "tests/a.py::t[1]", "programs": 2, "seconds": 0.5},
    ...           {"test": "tests/a.py::t[2]", "programs": 1, "seconds": 0.25}])["tests/a.py"]
    Counter({'programs': 3, 'tests': 2, 'seconds': 0.75})
    """
    files: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for row in rows:
        total = files[row["test"].split("::")[0]]
        total["tests"] += 1
        for key, value in row.items():
            if key != "test":
                total[key] += value
    return dict(files)


def table(files: Mapping[str, Mapping[str, float]], *, limit: int = 20) -> Iterator[str]:
    """The lines of the per-file table, the longest compiles first, then the totals."""
    columns = ("tests", "seconds", "programs", "cache_hits", "compile_s", "lower_s", "trace_s")
    yield f"{'file':42s}" + "".join(f"{c:>11s}" for c in columns)
    ranked = sorted(files.items(), key=lambda item: -item[1].get("compile_s", 0.0))
    everything: collections.Counter[str] = collections.Counter()
    for _, total in ranked:
        everything.update(total)
    for name, total in [*ranked[:limit], ("all files", everything)]:
        yield f"{name:42s}" + "".join(f"{total.get(c, 0):>11.0f}" for c in columns)


# The run's recorder and the file its lines go to, where --program-counts is given.
_RECORDER = pytest.StashKey["tuple[Recorder, str] | None"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--program-counts",
        metavar="PATH",
        help="append one JSON line per test (programs compiled, compile seconds) to PATH",
    )


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("--program-counts")
    if path and not hasattr(config, "workerinput"):  # the controller starts the file
        pathlib.Path(path).write_text("")
    config.stash[_RECORDER] = (Recorder(), path) if path else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    recording = item.config.stash[_RECORDER]
    if recording is None:
        return (yield)
    recorder, path = recording
    recorder.start()
    began = time.perf_counter()
    try:
        return (yield)
    finally:
        row = {"test": item.nodeid, "seconds": round(time.perf_counter() - began, 4)}
        row.update(recorder.stop())
        # One short append per test: the workers' lines do not interleave.
        with open(path, "a") as out:
            out.write(json.dumps(row) + "\n")


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    path = config.getoption("--program-counts")
    if not path or hasattr(config, "workerinput"):
        return
    lines = pathlib.Path(path).read_text().splitlines()
    terminalreporter.section(f"programs per file ({path})")
    for line in table(per_file(json.loads(line) for line in lines)):
        terminalreporter.write_line(line)
