"""Test configuration: eight CPU devices, strict JAX numerics and hypothesis profiles.

Set DMLJAX_HYPOTHESIS_PROFILE=thorough for a longer property sweep.
"""

import os

# Eight CPU devices for the sharding tests; the flag is read when JAX starts its
# backends, so it must be set before anything imports jax.
_DEVICES_FLAG = "--xla_force_host_platform_device_count=8"
if _DEVICES_FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_DEVICES_FLAG}".strip()

import hypothesis  # noqa: E402
import jax  # noqa: E402
import pytest  # noqa: E402

jax.config.update("jax_numpy_rank_promotion", "raise")

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
