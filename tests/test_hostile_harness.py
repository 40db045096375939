"""The hostile-input harness (tests/hostile_harness.py) in a subprocess of its own, so
that an input that aborts the interpreter fails this test instead of killing the suite."""

import json

from tests import helpers


def test_hostile_descs_and_arguments_end_in_a_result_or_a_clean_error():
    examples = 150
    done = helpers.run_python(str(helpers.REPO / "tests" / "hostile_harness.py"), timeout=600,
                      env={"HOSTILE_EXAMPLES": str(examples)})  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    counts = json.loads(done.stdout.splitlines()[-1])
    assert counts["descs"] == counts["calls"] == examples
    assert counts["compiled"] + counts["refused"] == examples
    assert counts["refused"] > 0
    assert counts["call_refusals"] > 0
