"""The hostile-input harnesses (tests/hostile_harness.py: descs and functional arguments;
tests/hostile_models.py: DxDispatch models, under an address-space limit) in subprocesses
of their own, so that an input that aborts the interpreter fails one test instead of
killing the suite."""

import json
import sys

import pytest

from tests import helpers

EXAMPLES = 150


def _counts(harness: str) -> dict[str, int]:
    """The counts ``tests/<harness>`` prints after ``EXAMPLES`` examples of each property."""
    done = helpers.run_python(str(helpers.REPO / "tests" / harness), timeout=600,
                              env={"HOSTILE_EXAMPLES": str(EXAMPLES)})  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_hostile_descs_and_arguments_end_in_a_result_or_a_clean_error():
    counts = _counts("hostile_harness.py")
    assert counts["descs"] == counts["calls"] == EXAMPLES
    assert counts["compiled"] + counts["refused"] == EXAMPLES
    assert counts["refused"] > 0
    assert counts["call_refusals"] > 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_hostile_models_end_in_a_result_or_a_clean_error():
    counts = _counts("hostile_models.py")
    assert counts["models"] == EXAMPLES
    assert counts["ran"] + counts["refused"] == EXAMPLES
    assert counts["ran"] > 0
    assert counts["refused"] > 0
