"""Test configuration: eight CPU devices, strict JAX numerics, hypothesis profiles, one
compilation cache for the whole run and MLIR contexts shared among lowerings.

Set DMLJAX_HYPOTHESIS_PROFILE=thorough for a longer property sweep.
"""

import os
import shutil
import tempfile
from collections.abc import Callable
from typing import Any

# Eight CPU devices for the sharding tests; the flag is read when JAX starts its
# backends, so it must be set before anything imports jax.
_DEVICES_FLAG = "--xla_force_host_platform_device_count=8"
if _DEVICES_FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_DEVICES_FLAG}".strip()

# One persistent compilation cache for the run: the pytest-xdist workers and the
# subprocesses that the tests start inherit these variables, so a program that one of
# them compiled (a random operand's generator, a helper's program, one that
# jax.clear_caches() dropped after a module) is read back instead of compiled again.
# Compiling is most of the suite's time (CONTRIBUTING.md); the cache holds the same
# executables XLA builds, so what runs is what a user's program runs. A run's cache is
# its own (a new folder, removed at the end): nothing from an earlier checkout is read.
_CACHE_VARIABLE = "DMLJAX_TEST_COMPILATION_CACHE"
_OWNS_CACHE = _CACHE_VARIABLE not in os.environ  # the first process of the run makes it
if _OWNS_CACHE:
    os.environ[_CACHE_VARIABLE] = tempfile.mkdtemp(prefix="dmljax-test-programs-")
    os.environ["JAX_COMPILATION_CACHE_DIR"] = os.environ[_CACHE_VARIABLE]
    # Every program, however small or quick to compile: most take 30-60 ms.
    os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    os.environ["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = "0"

import hypothesis  # noqa: E402
import jax  # noqa: E402
import pytest  # noqa: E402
from jax._src.interpreters import mlir  # noqa: E402  (where JAX makes its MLIR contexts)

jax.config.update("jax_numpy_rank_promotion", "raise")

# Outside IPython, JAX filters the traceback of every exception that leaves a jax API
# (jit, vmap, export) and notes it, testing each frame's file against JAX's folders with
# os.path calls: about 15 ms an error under pytest's deep stacks, and the suite raises
# thousands on purpose (bad input, refused exports). An error's type and message are the
# same either way; only a failing test's report lists JAX's own frames too.
jax.config.update("jax_traceback_filtering", "off")


class SharedIrContexts:
    """A ``make_ir_context`` by which ``lowerings`` lowerings in turn share one MLIR
    context, each made by ``make``.

    JAX 0.10 makes a new context, with its dialects loaded, for each lowering and
    export: about 5 ms, more than half of a small program's lowering, and the suite
    lowers some 22 000. JAX 0.11 shares one among 10 lowerings of a thread itself; the
    tests let 200 share one on JAX 0.10 (10 measured slower, with a higher peak memory:
    one file 68 s and 0.74 GB, against 59 s and 0.49 GB). A context only interns types
    and attributes and holds the dialects: the module lowered in it, and so the program
    XLA compiles, is the same (``tests/test_conftest.py``). It keeps all it interned, so
    a new one after ``lowerings`` bounds what a worker holds.

    >>> contexts = SharedIrContexts(object, lowerings=2)
    >>> first = contexts()
    >>> contexts() is first, contexts() is first
    (True, False)
    """

    def __init__(self, make: Callable[[], Any], lowerings: int) -> None:
        self.make = make
        self.lowerings = lowerings
        self._context: Any = None
        self.served = 0

    def __call__(self) -> Any:
        if self._context is None or self.served >= self.lowerings:
            self._context, self.served = self.make(), 0
        self.served += 1
        return self._context


# JAX 0.11's make_ir_context shares already: its fresh contexts come from _create_ir_context.
if not hasattr(mlir, "_create_ir_context") and callable(getattr(mlir, "make_ir_context", None)):
    mlir.make_ir_context = SharedIrContexts(mlir.make_ir_context, lowerings=200)

# Every example compiles a new XLA program, so wall-clock deadlines measure the
# compiler, not the code; the budgets are kept by example counts instead.
hypothesis.settings.register_profile(
    "default", deadline=None, max_examples=60, print_blob=True, derandomize=False
)
hypothesis.settings.register_profile("thorough", deadline=None, max_examples=1000, print_blob=True)
hypothesis.settings.load_profile(os.environ.get("DMLJAX_HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True, scope="module")
def _programs_of_one_module_only():
    """Drops every compiled program after each test module.

    The suite compiles thousands of small XLA programs (each hypothesis example is a new
    shape), and jit caches keep them all loaded; on a GPU, where each one holds device
    memory for its code, one process running the whole suite aborted inside XLA's compiler
    (jax 0.11.2, H100). A module never needs another module's programs.
    """
    yield
    jax.clear_caches()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Removes the run's compilation cache, in the process that made it."""
    del config
    if _OWNS_CACHE:
        shutil.rmtree(os.environ[_CACHE_VARIABLE], ignore_errors=True)
