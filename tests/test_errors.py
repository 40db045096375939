import pickle

import pytest

from dmljax import errors


@pytest.mark.parametrize("cls", [errors.InvalidArgumentError, errors.ArgumentTypeError])
def test_message_attributes_and_pickling(cls):
    e = cls("TileOperatorDesc", "repeats[1]", "greater than 0", 0, hint="Use 1.")
    assert str(e) == "TileOperatorDesc: repeats[1] must be greater than 0; got 0. Use 1."
    assert (e.op, e.field, e.expected, e.given, e.hint) == (
        "TileOperatorDesc", "repeats[1]", "greater than 0", 0, "Use 1."
    )  # fmt: skip
    copy = pickle.loads(pickle.dumps(e))
    assert type(copy) is cls
    assert str(copy) == str(e)
    assert copy.field == e.field


def test_hierarchy():
    assert issubclass(errors.InvalidArgumentError, ValueError)
    assert issubclass(errors.ArgumentTypeError, TypeError)
    assert issubclass(errors.InvalidArgumentError, errors.ArgumentError)
    assert issubclass(errors.ArgumentTypeError, errors.ArgumentError)
