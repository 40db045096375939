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


class _FailingIndex:
    """An integer-like whose __index__ raises something other than TypeError."""

    def __index__(self):
        raise ValueError("not today")


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda dml, jnp: dml.tile(jnp.ones(2), (_FailingIndex(),)), "repeats[0]"),
        (
            lambda dml, jnp: dml.gather(jnp.ones(3), jnp.zeros(1, jnp.int32), axis=_FailingIndex()),
            "axis",
        ),
        (
            lambda dml, jnp: dml.TensorDesc(
                data_type=dml.DataType.FLOAT32, sizes=(_FailingIndex(),)
            ),
            "sizes[0]",
        ),
    ],
)
def test_an_index_that_raises_is_an_error_naming_the_field(call, field):
    import jax.numpy as jnp

    import dmljax as dml

    with pytest.raises(errors.InvalidArgumentError, match="__index__ raised ValueError") as e:
        call(dml, jnp)
    assert e.value.field == field


@pytest.mark.parametrize("name", ["from_strided_buffer", "to_strided_buffer"])
def test_strided_buffers_need_a_tensor_desc(name):
    import jax.numpy as jnp

    import dmljax as dml

    with pytest.raises(errors.ArgumentTypeError, match=r"desc must be a dmljax\.TensorDesc") as e:
        getattr(dml, name)(jnp.ones(3), None)
    assert e.value.field == "desc"
