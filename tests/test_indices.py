"""DirectML's index rules (dmljax._src.indices), for every integer index type."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from dmljax._src import indices as index_rules
from tests import helpers

SIGNED = [np.int8, np.int16, np.int32, np.int64]
UNSIGNED = [np.uint8, np.uint16, np.uint32, np.uint64]


def expected_clamp(values, dim, wrap):
    out = []
    for v in (int(v) for v in values):
        if wrap and v < 0:
            v += dim
        out.append(min(max(v, 0), dim - 1))
    return out


def expected_drop(values, dim, wrap):
    out = []
    for v in (int(v) for v in values):
        if wrap and v < 0:
            v += dim
        out.append(v if 0 <= v < dim else dim)
    return out


def edge_values(dtype, dim):
    info = np.iinfo(dtype)
    candidates = [0, 1, dim - 1, dim, dim + 1, -1, -dim, -dim - 1, info.min, info.max, 2**31 - 1]
    return np.array([v for v in candidates if info.min <= v <= info.max], dtype)


@pytest.mark.parametrize("dtype", SIGNED + UNSIGNED)
@pytest.mark.parametrize("dim", [1, 5, 300, 70000])
@pytest.mark.parametrize("wrap", [True, False])
def test_clamp_and_drop_for_every_index_type(dtype, dim, wrap):
    with jax.enable_x64(True):
        values = edge_values(dtype, dim)
        clamped = index_rules.clamp_indices(jnp.asarray(values), dim, wrap_negative=wrap)
        dropped = index_rules.drop_out_of_range_indices(
            jnp.asarray(values), dim, wrap_negative=wrap
        )
    assert clamped.dtype == jnp.int32
    assert dropped.dtype == jnp.int32
    np.testing.assert_array_equal(clamped, expected_clamp(values, dim, wrap))
    np.testing.assert_array_equal(dropped, expected_drop(values, dim, wrap))


def test_negative_indices_wrap_from_fl_3_0():
    assert not index_rules.wraps_negative_indices(dml.FeatureLevel.FL_2_1)
    assert index_rules.wraps_negative_indices(dml.FeatureLevel.FL_3_0)
    assert index_rules.wraps_negative_indices(dml.FeatureLevel.LATEST)


@pytest.mark.filterwarnings("ignore::dmljax.errors.NarrowedIndicesWarning")
def test_as_index_array_saturates_numpy_64_bit_without_x64():
    with jax.enable_x64(False):
        signed = index_rules.as_index_array(
            np.array([2**40, -(2**40), 7], np.int64), op="op", field="indices"
        )
        unsigned = index_rules.as_index_array(
            np.array([2**63, 7], np.uint64), op="op", field="indices"
        )
    np.testing.assert_array_equal(signed, [2**31 - 1, -(2**31), 7])
    assert signed.dtype == np.int32
    np.testing.assert_array_equal(unsigned, [2**32 - 1, 7])
    assert unsigned.dtype == np.uint32
    with jax.enable_x64(True):
        kept = index_rules.as_index_array(np.array([2**40], np.int64), op="op", field="indices")
    assert kept.dtype == np.int64


@pytest.mark.parametrize("dtype", [np.float32, np.bool_, np.complex64, jnp.bfloat16])
def test_as_index_array_refuses_non_integers(dtype):
    helpers.refused(
        lambda: index_rules.as_index_array(np.zeros(2, dtype), op="op", field="indices"),
        field="indices",
        match="integer dtype",
    )


LONG_AXIS = jax.ShapeDtypeStruct((2**31 + 16,), jnp.int8)


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("dmljax.gather", lambda x: dml.gather(x, jnp.zeros(2, jnp.int32), axis=0)),
        (
            "dmljax.gather_elements",
            lambda x: dml.gather_elements(x, jnp.zeros(2, jnp.int32), axis=0),
        ),
        (
            "dmljax.scatter",
            lambda x: dml.scatter(x, jnp.zeros(2, jnp.int32), jnp.zeros(2, jnp.int8), axis=0),
        ),
    ],
)
def test_axes_beyond_int32_need_x64_instead_of_wrapping(name, call):
    with (
        jax.enable_x64(False),
        pytest.raises(dml.errors.InvalidArgumentError, match="jax_enable_x64") as e,
    ):
        jax.eval_shape(call, LONG_AXIS)  # traced: no 2 GiB array is made
    assert (e.value.op, e.value.field) == (name, "x.shape[axis]")
    with jax.enable_x64(True):
        assert jax.eval_shape(call, LONG_AXIS).shape[0] in (2, 2**31 + 16)


def test_desc_axes_beyond_int32_need_x64():
    i8, u32 = dml.DataType.INT8, dml.DataType.UINT32
    desc = dml.GatherOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=i8, sizes=(2**31 + 16,)),
        indices_tensor=dml.TensorDesc(data_type=u32, sizes=(2,)),
        output_tensor=dml.TensorDesc(data_type=i8, sizes=(2,)),
        axis=0,
        index_dimensions=1,
    )
    with (
        jax.enable_x64(False),
        pytest.raises(dml.errors.InvalidArgumentError, match="jax_enable_x64") as e,
    ):
        dml.compile_operator(desc)
    assert e.value.field == "input_tensor.sizes[0]"
    with jax.enable_x64(True):
        dml.compile_operator(desc)
