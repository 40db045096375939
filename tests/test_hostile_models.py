"""The hostile DxDispatch model harness (tests/hostile_models.py) in a subprocess of its
own, under an address-space limit, so that a model that aborts the interpreter or
allocates without bound fails this test instead of the suite."""

import json
import sys

import pytest

from tests import helpers


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_hostile_models_end_in_a_result_or_a_clean_error():
    examples = 150
    done = helpers.run_python(str(helpers.REPO / "tests" / "hostile_models.py"), timeout=600,
                              env={"HOSTILE_EXAMPLES": str(examples)})  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    counts = json.loads(done.stdout.splitlines()[-1])
    assert counts["models"] == examples
    assert counts["ran"] + counts["refused"] == examples
    assert counts["ran"] > 0
    assert counts["refused"] > 0
