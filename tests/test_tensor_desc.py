import dataclasses

import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from tests import helpers

T = dml.DataType
InvalidArgumentError = dml.errors.InvalidArgumentError


@pytest.mark.parametrize(
    ("data_type", "sizes", "strides", "expected"),
    [
        # The worked values of DMLCalcBufferTensorSize in the semantics notes (§1.2).
        (T.FLOAT32, (1, 1, 3, 5), None, 60),
        (T.FLOAT16, (3,), None, 8),
        (T.FLOAT32, (2, 3), (0, 1), 12),
        (T.FLOAT32, (2, 3), (5, 1), 32),
        (T.FLOAT32, (1, 1, 3, 5), (15, 1, 5, 1), 60),
        (T.UINT4, (5,), None, 4),  # 20 bits -> 3 bytes -> rounded up to 4
        (T.UINT8, (3,), None, 4),
        (T.INT64, (3,), None, 24),
        (T.FLOAT32, (2, 3), (1, 2), 24),  # column-major: still 6 elements
        (T.FLOAT32, (2, 2, 3), (0, 0, 0), 4),  # a broadcast scalar
    ],
)
def test_total_size_is_dml_calc_buffer_tensor_size(data_type, sizes, strides, expected):
    desc = dml.TensorDesc(data_type=data_type, sizes=sizes, strides=strides)
    assert desc.total_tensor_size_in_bytes == expected


def test_a_larger_total_size_is_kept_and_a_smaller_one_refused():
    desc = dml.TensorDesc(data_type=T.FLOAT32, sizes=(2, 3), total_tensor_size_in_bytes=64)
    assert desc.total_tensor_size_in_bytes == 64
    with pytest.raises(InvalidArgumentError, match="total_tensor_size_in_bytes") as e:
        dml.TensorDesc(data_type=T.FLOAT32, sizes=(2, 3), total_tensor_size_in_bytes=20)
    assert "at least 24" in str(e.value)


def test_frozen_hashable_and_normalised():
    a = dml.TensorDesc(data_type=T.INT8, sizes=[2, np.int64(3)])  # pyright: ignore[reportArgumentType]
    b = dml.TensorDesc(data_type=8, sizes=(2, 3))  # pyright: ignore[reportArgumentType]
    assert a == b
    assert hash(a) == hash(b)
    assert a.sizes == (2, 3)
    assert type(a.sizes[1]) is int
    assert a.data_type is T.INT8
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.sizes = (1,)  # type: ignore[misc]
    assert (a.dimension_count, a.element_count, a.dtype) == (2, 6, np.dtype(np.int8))


def test_from_array():
    desc = dml.TensorDesc.from_array(jnp.zeros((2, 1, 4), jnp.float16))
    assert desc == dml.TensorDesc(data_type=T.FLOAT16, sizes=(2, 1, 4))
    with pytest.raises(InvalidArgumentError, match="DML_TENSOR_DATA_TYPE"):
        dml.TensorDesc.from_array(jnp.zeros((2,), jnp.bool_))
    with pytest.raises(InvalidArgumentError, match="sizes"):
        dml.TensorDesc.from_array(jnp.zeros(()))
    with pytest.raises(dml.errors.ArgumentTypeError):
        dml.TensorDesc.from_array([1.0, 2.0])


@pytest.mark.parametrize(
    ("kwargs", "field", "fragment"),
    [
        ({"sizes": ()}, "sizes", "1 to 8 dimensions"),
        ({"sizes": (1,) * 9}, "sizes", "1 to 8 dimensions"),
        ({"sizes": (2, 0)}, "sizes[1]", "at least 1"),
        ({"sizes": (2, -3)}, "sizes[1]", "at least 1"),
        ({"sizes": (2, 2.5)}, "sizes[1]", "an integer"),
        ({"sizes": (2, True)}, "sizes[1]", "not a bool"),
        ({"sizes": (2**16, 2**16)}, "sizes", "4294967295 elements"),
        ({"strides": (1,)}, "strides", "2 long"),
        ({"strides": (3, -1)}, "strides[1]", "non-negative"),
        ({"strides": (2**32 - 1, 1)}, "strides", "4294967295 elements"),
        ({"strides": (2**32, 1)}, "strides[0]", "at most 4294967295"),
        ({"sizes": (1, 2**70)}, "sizes[1]", "at most 4294967295"),
        ({"sizes": (1, 1), "strides": (2**70, 2**70)}, "strides[0]", "UINT32"),
        ({"guaranteed_base_offset_alignment": 2**40}, "guaranteed_base_offset_alignment", "UINT32"),
        ({"total_tensor_size_in_bytes": 2**64 - 4}, "total_tensor_size_in_bytes", "4294967295 el"),
        ({"total_tensor_size_in_bytes": 2**70}, "total_tensor_size_in_bytes", "beyond a UINT64"),
        ({"total_tensor_size_in_bytes": 4 * 2**32}, "total_tensor_size_in_bytes", "at most"),
        ({"guaranteed_base_offset_alignment": 3}, "guaranteed_base_offset_alignment", "power of 2"),
        ({"guaranteed_base_offset_alignment": 2}, "guaranteed_base_offset_alignment", "least 4"),
        ({"data_type": 0}, "data_type", "never UNKNOWN"),
        ({"data_type": 99}, "data_type", "DML_TENSOR_DATA_TYPE"),
    ],
)
def test_invalid_descs_are_refused_with_the_field_named(kwargs, field, fragment):
    arguments = {"data_type": T.FLOAT32, "sizes": (2, 3), **kwargs}
    helpers.refused(
        lambda: dml.TensorDesc(**arguments), field=field, match=fragment, op="TensorDesc"
    )


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"sizes": 3}, "sizes"), ({"data_type": "FLOAT32"}, "data_type"), ({"strides": 1}, "strides")],
)
def test_wrong_python_types_are_type_errors(kwargs, field):
    with pytest.raises(dml.errors.ArgumentTypeError) as e:
        dml.TensorDesc(**{"data_type": T.FLOAT32, "sizes": (2, 3), **kwargs})
    assert e.value.field == field


@pytest.mark.parametrize(
    ("data_type", "hint"),
    [
        (jnp.float32, "Write dml.DataType.FLOAT32 (dml.DataType.from_dtype converts"),
        (np.dtype(np.int8), "Write dml.DataType.INT8 (dml.DataType.from_dtype converts"),
        ("uint16", "Write dml.DataType.UINT16."),
        (jnp.bfloat16, "DirectML has no DML_TENSOR_DATA_TYPE for bfloat16"),
    ],
)
def test_a_dtype_given_as_data_type_says_which_data_type_to_write(data_type, hint):
    with pytest.raises(dml.errors.ArgumentTypeError) as e:
        dml.TensorDesc(data_type=data_type, sizes=(2,))
    assert e.value.field == "data_type"
    assert e.value.hint is not None
    assert e.value.hint.startswith(hint)
    with pytest.raises(dml.errors.ArgumentTypeError) as e:  # the same rule for PADDING1's field
        dml.Padding1OperatorDesc(
            input_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(2,)),
            output_tensor=dml.TensorDesc(data_type=T.FLOAT32, sizes=(2,)),
            padding_mode=dml.PaddingMode.CONSTANT,
            padding_value_data_type=data_type,
            padding_value=0,
            start_padding=(0,),
            end_padding=(0,),
        )
    assert e.value.hint is not None
    assert e.value.hint.startswith(hint)


def test_valid_alignments():
    for alignment in (0, 4, 16, 256):
        dml.TensorDesc(data_type=T.FLOAT32, sizes=(2,), guaranteed_base_offset_alignment=alignment)
    dml.TensorDesc(data_type=T.UINT8, sizes=(2,), guaranteed_base_offset_alignment=1)


def test_issue_27_total_size_reproducer_is_refused_before_anything_runs():
    # TotalTensorSizeInBytes = 2**64 - 4 fits its UINT64, but a buffer that large aborted
    # the interpreter inside XLA ("overflow in static extent product"); DirectML's limit
    # of 2**32 - 1 elements per buffer refuses it when the desc is made.
    f32 = T.FLOAT32
    with pytest.raises(InvalidArgumentError) as e:
        dml.TensorDesc(
            data_type=f32, sizes=(2,), strides=(1,), total_tensor_size_in_bytes=2**64 - 4
        )
    assert e.value.field == "total_tensor_size_in_bytes"
    assert "4294967295 elements" in str(e.value)
    largest = dml.TensorDesc(data_type=f32, sizes=(2,), total_tensor_size_in_bytes=4 * (2**32 - 1))
    assert largest.buffer_element_count == 2**32 - 1


_FIELD_RANGES_SCRIPT = r"""
import jax.numpy as jnp, dmljax as dml
f32 = dml.DataType.FLOAT32
tensor = lambda **kw: lambda: dml.TensorDesc(data_type=f32, sizes=(2,), **kw)

def issue_27_reproducer():  # as the issue gives it: make the desc, compile, call
    out = dml.TensorDesc(data_type=f32, sizes=(2,), strides=(1,),
                         total_tensor_size_in_bytes=2**64 - 4)
    op = dml.compile_operator(dml.TileOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(2,)), output_tensor=out, repeats=(1,)))
    op(jnp.ones(2))

cases = {
    "reproducer": issue_27_reproducer,
    "total 2**64 - 4": tensor(strides=(1,), total_tensor_size_in_bytes=2**64 - 4),
    "total 2**64": tensor(total_tensor_size_in_bytes=2**64),
    "total 2**70": tensor(total_tensor_size_in_bytes=2**70),
    "strides 2**70 on size 1": lambda: dml.TensorDesc(data_type=f32, sizes=(1, 2),
                                                      strides=(2**70, 1)),
    "strides 2**32": lambda: dml.TensorDesc(data_type=f32, sizes=(1, 2), strides=(2**32, 1)),
    "alignment 2**40": tensor(guaranteed_base_offset_alignment=2**40),
    "elements 2**32": lambda: dml.TensorDesc(data_type=f32, sizes=(2**16, 2**16)),
}
"""


def test_desc_fields_past_their_c_ranges_are_refused_in_a_process_that_survives():
    # Issues 19 (item 3) and 27 (item 1): each used to be accepted, and the first aborted
    # the interpreter inside XLA; a subprocess keeps a regression to one failed test.
    found = helpers.refusals_in_a_subprocess(_FIELD_RANGES_SCRIPT, timeout=120)
    total, strides = "total_tensor_size_in_bytes", "strides[0]"
    assert {name: refusal and refusal[1] for name, refusal in found.items()} == {
        "reproducer": total, "total 2**64 - 4": total, "total 2**64": total,
        "total 2**70": total, "strides 2**70 on size 1": strides, "strides 2**32": strides,
        "alignment 2**40": "guaranteed_base_offset_alignment", "elements 2**32": "sizes",
    }  # fmt: skip
