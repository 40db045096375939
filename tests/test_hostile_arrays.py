"""Arrays JAX cannot hold, or would hold wrongly, at the functional faces (issue 27)."""

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from dmljax._src.checking.operators import all_checks
from dmljax.errors import ArgumentTypeError
from tests import helpers

X = jnp.arange(3.0)


@pytest.mark.parametrize(
    ("call", "field", "fragment"),
    [
        # NumPy counts timedelta64 as an integer: it was taken as indices.
        (lambda: dml.gather(X, np.array([1, 2], "timedelta64[s]"), axis=0), "indices",
         "timedelta64"),
        (lambda: dml.tile(np.array(["2024-01-01"], "datetime64[D]"), (2,)), "x", "datetime64"),
        # The mask was dropped and the masked index used.
        (lambda: dml.gather(X, np.ma.array([1, 2], mask=[False, True]), axis=0), "indices",
         "masked"),
        (lambda: dml.tile(np.ones(2, np.clongdouble), (2,)), "x", "dtype complex"),
    ],
)  # fmt: skip
def test_dtypes_jax_cannot_hold_are_refused_naming_the_argument(call, field, fragment):
    helpers.refused(lambda: call(), field=field, match=fragment, error=ArgumentTypeError)


@pytest.mark.skipif(np.dtype(np.longdouble).itemsize <= 8, reason="longdouble is float64 here")
def test_extended_precision_floats_are_refused():
    with pytest.raises(ArgumentTypeError, match="JAX holds") as e:
        dml.tile(np.ones(2, np.longdouble), (2,))
    assert e.value.op == "dmljax.tile"


def test_big_endian_arrays_are_read_in_native_order():
    np.testing.assert_array_equal(dml.tile(np.arange(3, dtype=">f4"), (2,)), [0, 1, 2, 0, 1, 2])
    np.testing.assert_array_equal(dml.gather(X, np.array([2, 0], ">i4"), axis=0), [2.0, 0.0])


def test_big_endian_arrays_bind_to_a_compiled_operator_and_a_wrong_dtype_reads_plainly():
    f32 = dml.DataType.FLOAT32
    tensor = dml.TensorDesc(data_type=f32, sizes=(2, 3))
    op = dml.compile_operator(
        dml.TileOperatorDesc(input_tensor=tensor, output_tensor=tensor, repeats=(1, 1))
    )
    x = np.arange(6, dtype=">f4").reshape(2, 3)
    # It said "must be of dtype float32 ...; got float32": '>f4' is named float32 too.
    np.testing.assert_array_equal(op(x), x)
    np.testing.assert_array_equal(op.lower(x).compile()(x.astype(np.float32)), x)
    with pytest.raises(dml.errors.InvalidArgumentError) as e:
        op(x.astype(">f8"))
    assert "float32" in e.value.expected
    assert e.value.given == "float64"


def test_to_strided_buffer_writes_into_a_numpy_out_buffer():
    desc = dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(2, 3), strides=(2, 3))
    x = jnp.arange(6.0).reshape(2, 3)
    out = dml.to_strided_buffer(x, desc, out_buffer=np.full(9, -1.0, np.float32))
    expected = np.full(9, -1.0, np.float32)
    for i in range(2):
        for j in range(3):
            expected[2 * i + 3 * j] = x[i, j]
    np.testing.assert_array_equal(out, expected)


def test_arrays_on_different_devices_are_named():
    import jax

    if len(jax.devices()) < 2:
        pytest.skip("needs two devices (the tests' conftest makes eight on the CPU)")
    first, second = jax.devices()[:2]
    x = jax.device_put(jnp.arange(4.0), first)
    indices = jax.device_put(jnp.array([1, 2]), second)
    with pytest.raises(dml.errors.InvalidArgumentError, match=r"dmljax\.gather: indices") as e:
        dml.gather(x, indices, axis=0)
    assert e.value.field == "indices"
    assert "device_put" in str(e.value)
    # Any other ValueError passes through unchanged.
    with pytest.raises(dml.errors.InvalidArgumentError, match="axis"):
        dml.gather(x, jax.device_put(indices, first), axis=5)


def test_64_bit_numpy_indices_past_int32_warn_and_stay_out_of_range():
    import warnings

    from dmljax.errors import NarrowedIndicesWarning

    x = jnp.zeros(4)
    with pytest.warns(NarrowedIndicesWarning, match="jax_enable_x64"):
        out = dml.scatter(x, np.array([2**32 + 1]), jnp.ones(1), axis=0)
    np.testing.assert_array_equal(out, x)  # dropped, not written to x[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dml.gather(x, np.array([1, -1], np.int64), axis=0)  # values that fit: no warning


def test_64_bit_jax_indices_made_under_x64_and_used_after_it_never_wrap():
    import jax

    from dmljax.errors import NarrowedIndicesWarning

    with jax.enable_x64(True):
        far = jnp.array([2**32 + 1], jnp.int64)  # JAX would wrap it to 1 with x64 off
    x = jnp.arange(4.0)
    with pytest.warns(NarrowedIndicesWarning):
        np.testing.assert_array_equal(dml.scatter(x, far, jnp.ones(1), axis=0), x)  # dropped
    with pytest.warns(NarrowedIndicesWarning):
        np.testing.assert_array_equal(dml.gather(x, far, axis=0), [3.0])  # clamped, not x[1]
    with pytest.warns(NarrowedIndicesWarning):
        np.testing.assert_array_equal(dml.gather_nd(x, far[:, None]), [3.0])


def _donating_scatter():
    f32, i32 = dml.DataType.FLOAT32, dml.DataType.INT32
    desc = dml.ScatterOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=f32, sizes=(4,)),
        indices_tensor=dml.TensorDesc(data_type=i32, sizes=(4,)),
        updates_tensor=dml.TensorDesc(data_type=f32, sizes=(4,)),
        output_tensor=dml.TensorDesc(data_type=f32, sizes=(4,)),
        axis=0,
    )
    return dml.compile_operator(desc, donate_input=True)


def test_a_donated_input_passed_twice_or_reused_is_explained():
    op = _donating_scatter()
    i = jnp.array([3, 2, 1, 0], jnp.int32)
    x = jnp.arange(4.0)
    with pytest.raises(dml.errors.InvalidArgumentError, match="updates_tensor") as e:
        op(x, i, x)
    assert e.value.field == "input_tensor"
    out = op(x, i, jnp.ones(4))
    np.testing.assert_array_equal(out, jnp.ones(4))
    if x.is_deleted():  # donation is honoured on this backend
        helpers.refused(lambda: op(x, i, jnp.ones(4)), field="input_tensor", match="earlier call")


@pytest.mark.parametrize(
    "call",
    [
        lambda: dml.gather(jnp.float32(1.0), jnp.array([0]), axis=0),
        lambda: dml.gather_elements(jnp.float32(1.0), jnp.int32(0), axis=0),
        lambda: dml.scatter(jnp.float32(1.0), jnp.int32(0), jnp.float32(2), axis=0),
    ],
)
def test_an_axis_of_a_0_d_array_says_it_has_none(call):
    with pytest.raises(dml.errors.InvalidArgumentError, match="has none") as e:
        call()
    assert e.value.field == "axis"
    assert "[0, 0)" not in str(e.value)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda k: dml.scatter(k, jnp.array([0]), k[1:2], axis=0, reduction="add"), "x"),
        (lambda k: dml.pad(k, (1,), (1,)), "x"),  # a fill value, as jnp.pad refuses too
        (lambda k: dml.slice_grad(k, (8,), offsets=(0,), sizes=(4,), strides=(1,)), "dy"),
    ],
)
def test_typed_key_arrays_where_jax_numpy_refuses_them_too(call, field):
    import jax

    keys = jax.random.split(jax.random.key(0), 4)
    helpers.refused(lambda: call(keys), field=field, match="key_data", error=ArgumentTypeError)


def test_keys_and_numbers_do_not_mix():
    import jax

    keys = jax.random.split(jax.random.key(0), 4)
    helpers.refused(
        lambda: dml.scatter(keys, jnp.array([0]), jnp.ones(1), axis=0),
        field="updates",
        match="a key array, as the other data",
        error=ArgumentTypeError,
    )


@pytest.mark.parametrize("value", [1, 2.5])
def test_python_scalar_updates_are_written_everywhere_in_the_dtype_of_x(value):
    x = jnp.zeros((4, 2), jnp.bfloat16)
    rows = jnp.array([[3, 0], [1, 1]])
    want = x.at[rows, jnp.arange(2)].set(value)
    np.testing.assert_array_equal(dml.scatter(x, rows, value, axis=0), want)
    np.testing.assert_array_equal(dml.scatter_nd(x, jnp.array([[3], [1]]), value),
                                  x.at[jnp.array([3, 1])].set(value))  # fmt: skip
    # A typed array keeps DirectML's rule: the updates' dtype is x's.
    with pytest.raises(dml.errors.InvalidArgumentError, match=r"updates\.dtype"):
        dml.scatter(x, rows, jnp.ones((2, 2), jnp.float32), axis=0)


@pytest.mark.parametrize(
    "call",
    [
        lambda x, r: dml.tile(x, r),
        lambda x, r: dml.pad(x, r, (0, 0)),
        lambda x, r: dml.slice1(x, offsets=r, sizes=(1, 1), strides=(1, 1)),
    ],
)
def test_a_long_static_sequence_is_refused_by_its_length_alone(call):
    import time

    started = time.perf_counter()
    with pytest.raises(dml.errors.InvalidArgumentError) as e:
        call(jnp.ones((2, 3)), range(10**7))  # converting each entry took 30 s
    assert time.perf_counter() - started < 1.0
    assert len(str(e.value)) < 300  # printing each entry took 89 MB
    assert "10000000 entries (0, 1, 2, 3, 4, 5, 6, 7, ...)" in str(e.value)


# --- Every face, from its companion's sweep ------------------------------------------------------

_SWEPT = [checks for checks in all_checks().values() if checks.sweep is not None]


def _first_argument(checks):
    """A float32 draw of the face, and its first argument's name."""
    case = checks.sweep(np.random.default_rng(4), checks.first_dtype)
    name = next(iter(inspect.signature(checks.operator.function).parameters))
    return case, name


@pytest.mark.parametrize("checks", _SWEPT, ids=lambda c: c.operator.name)
def test_every_face_reads_big_endian_arrays_in_native_order(checks):
    case, _ = _first_argument(checks)
    args = case.batch[0]
    swapped = [a.astype(a.dtype.newbyteorder(">")) if a.dtype.itemsize > 1 else a for a in args]
    native = jax.tree.leaves(case.fn(*args))
    for got, want in zip(jax.tree.leaves(case.fn(*swapped)), native, strict=True):
        np.testing.assert_array_equal(got, want, err_msg=case.label)


@pytest.mark.parametrize("checks", _SWEPT, ids=lambda c: c.operator.name)
@pytest.mark.parametrize(
    ("hostile", "fragment"),
    [
        (lambda a: np.ma.array(a, mask=np.zeros(a.shape, bool)), "masked"),
        (lambda a: np.zeros(a.shape, "datetime64[D]"), "datetime64"),
        (lambda a: np.zeros(a.shape, np.clongdouble), "complex"),
    ],
    ids=["masked", "datetime64", "complex"],
)
def test_every_face_refuses_arrays_jax_cannot_hold_naming_the_argument(checks, hostile, fragment):
    case, name = _first_argument(checks)
    if not case.batch[0]:
        pytest.skip("a generator takes no array (tests/test_bad_input.py: its shape's rows)")
    first, *rest = case.batch[0]
    with pytest.raises(ArgumentTypeError, match=fragment) as e:
        case.fn(hostile(first), *rest)
    assert e.value.field.startswith(name), e.value
