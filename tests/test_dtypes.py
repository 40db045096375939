import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from dmljax._src.dtypes import require_x64
from tests import helpers

T = dml.DataType

# DirectML's DML_TENSOR_DATA_TYPE, as numbered in DirectML.h.
DIRECTML_VALUES = {
    "UNKNOWN": 0, "FLOAT32": 1, "FLOAT16": 2, "UINT32": 3, "UINT16": 4, "UINT8": 5, "INT32": 6,
    "INT16": 7, "INT8": 8, "FLOAT64": 9, "UINT64": 10, "INT64": 11, "UINT4": 12, "INT4": 13,
}  # fmt: skip


def test_members_have_directml_values():
    assert {t.name: t.value for t in T} == DIRECTML_VALUES


@pytest.mark.parametrize("data_type", helpers.DATA_TYPES, ids=str)
def test_type_properties(data_type):
    # Each type is the JAX dtype of its name (FLOAT32 is jnp.float32, INT4 jnp.int4), whose
    # NumPy/ml_dtypes info gives its width and sign.
    dtype = np.dtype(getattr(jnp, data_type.name.lower()))
    floating = bool(jnp.issubdtype(dtype, jnp.floating))
    info = jnp.finfo(dtype) if floating else jnp.iinfo(dtype)
    assert data_type.dtype == dtype
    assert data_type.bit_width == info.bits
    assert data_type.is_signed is (floating or int(info.min) < 0)
    assert data_type.is_floating is floating
    assert data_type.is_integer is not floating
    assert data_type.is_64_bit is (info.bits == 64)
    assert T.from_dtype(dtype) is data_type
    assert T.from_dtype(dtype.name) is data_type


@pytest.mark.parametrize("dtype", [np.bool_, jnp.bfloat16, np.complex64])
def test_dtypes_without_a_directml_type_are_refused(dtype):
    helpers.refused(lambda: T.from_dtype(dtype), field="dtype", match="DML_TENSOR_DATA_TYPE")


def test_non_dtype_is_a_type_error():
    with pytest.raises(dml.errors.ArgumentTypeError, match="dtype"):
        T.from_dtype(object())


def test_unknown_has_no_dtype():
    with pytest.raises(dml.errors.InvalidArgumentError, match="UNKNOWN"):
        _ = T.UNKNOWN.dtype


@pytest.mark.parametrize("data_type", [T.FLOAT64, T.INT64, T.UINT64])
def test_64_bit_types_need_x64_and_say_how_to_enable_it(data_type):
    with (
        jax.enable_x64(False),
        pytest.raises(dml.errors.InvalidArgumentError, match="jax_enable_x64") as e,
    ):
        require_x64(data_type, op="Op", field="input_tensor.data_type")
    assert "jax.config.update('jax_enable_x64', True)" in str(e.value)
    assert e.value.field == "input_tensor.data_type"
    with jax.enable_x64(True):
        require_x64(data_type, op="Op", field="input_tensor.data_type")


def test_32_bit_types_need_nothing():
    with jax.enable_x64(False):
        for data_type in T:
            if data_type is not T.UNKNOWN and not data_type.is_64_bit:
                require_x64(data_type, op="Op", field="f")
