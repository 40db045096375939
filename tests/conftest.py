"""Test configuration: strict JAX numerics and hypothesis profiles.

Set DMLJAX_HYPOTHESIS_PROFILE=thorough for a longer property sweep.
"""

import os

import hypothesis
import jax

jax.config.update("jax_numpy_rank_promotion", "raise")

# Every example compiles a new XLA program, so wall-clock deadlines measure the
# compiler, not the code; the budgets are kept by example counts instead.
hypothesis.settings.register_profile(
    "default", deadline=None, max_examples=60, print_blob=True, derandomize=False
)
hypothesis.settings.register_profile("thorough", deadline=None, max_examples=1000, print_blob=True)
hypothesis.settings.load_profile(os.environ.get("DMLJAX_HYPOTHESIS_PROFILE", "default"))
