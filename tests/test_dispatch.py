"""Operators check once per signature while jit traces, and are one program under any trace."""

from __future__ import annotations

import logging
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from dmljax._src import indices
from dmljax._src.face import Dispatch, is_concrete_array
from dmljax.errors import InvalidArgumentError
from tests import descs, helpers


def test_concrete_arrays_are_told_apart():
    assert is_concrete_array(jnp.ones(2))
    assert not is_concrete_array(np.ones(2))
    assert not is_concrete_array(2.0)
    jax.jit(lambda x: assert_traced(x))(jnp.ones(2))


def test_only_plain_int_tuples_take_the_fast_path():
    # (True,) equals (1,) and hashes alike: the fast path must not hand it to jit, even
    # right after the face saw (1,) plain twice (the second time as the same object).
    x = jnp.arange(2)
    once = (1,)
    dml.tile(x, once)
    dml.tile(x, once)
    with pytest.raises(InvalidArgumentError, match=r"repeats\[0\] must be an integer"):
        dml.tile(x, (True,))
    # Lists and NumPy integers are coerced on the slow path to the same program.
    expected = dml.tile(x, (2,))
    np.testing.assert_array_equal(dml.tile(x, [2]), expected)
    np.testing.assert_array_equal(dml.tile(x, (np.int64(2),)), expected)


def test_plain_arrays_with_other_spellings_of_statics_skip_the_slow_path(monkeypatch):
    # repeats=[2, 2], axis=np.int64(0), alpha=np.float32(1): the statics coerced and the
    # program of the plain spelling called (3.3x the plain call through _slow, 1.7x so).
    from dmljax._src.face import FunctionalFace

    x, i = jnp.arange(6.0).reshape(2, 3), jnp.array([[1, 0, 1]])
    calls = [
        (lambda: dml.tile(x, (2, 2)), lambda: dml.tile(x, [2, 2])),
        (lambda: dml.gather_elements(x, i, axis=0),
         lambda: dml.gather_elements(x, i, axis=np.int64(0))),  # type: ignore[arg-type]
        (lambda: dml.elu(x, 0.5), lambda: dml.elu(x, np.float32(0.5))),
    ]  # fmt: skip
    expected = [plain() for plain, _ in calls]
    programs = [helpers.face_program(f) for f in (dml.tile, dml.gather_elements, dml.elu)]
    sizes = [helpers.jit_cache_size(program) for program in programs]

    def no_slow(self, arrays, statics):
        raise AssertionError("took the slow path")

    monkeypatch.setattr(FunctionalFace, "_slow", no_slow)
    for (_, other), want in zip(calls, expected, strict=True):
        np.testing.assert_array_equal(other(), want)
    assert sizes == [helpers.jit_cache_size(program) for program in programs]
    with pytest.raises(InvalidArgumentError, match=r"repeats\[1\] must be an integer"):
        dml.tile(x, [2, 2.0])  # type: ignore[list-item]
    with pytest.raises(InvalidArgumentError, match=r"dmljax\.tile: repeats"):
        dml.tile(x, [2])  # one entry per dimension of x


def assert_traced(x):
    assert not is_concrete_array(x)
    return x


def test_checks_run_once_per_signature():
    checks: list[tuple] = []

    def checked(x, n):
        checks.append((x.shape, n))
        return x * n

    dispatch = Dispatch(checked, name="double", static_count=1)
    x = jnp.ones(3)
    assert float(dispatch(x, 2)[0]) == 2.0
    assert float(dispatch(x + 1, 2)[0]) == 4.0  # same shapes and statics: no new check
    assert len(checks) == 1
    dispatch(jnp.ones(4), 2)  # a new shape
    dispatch(x, 3)  # a new static value
    assert len(checks) == 3


def _programs_compiled(caplog: pytest.LogCaptureFixture, run) -> list[str]:
    caplog.clear()
    with caplog.at_level(logging.WARNING), jax.log_compiles():
        run()
    return re.findall(r"Compiling jit\((\w+)\)", caplog.text)


def test_under_any_trace_the_operator_is_one_program_named_after_it(caplog):
    # As jax.numpy's functions: a caller's jit holds one call of it, and an eager vmap, jvp
    # or vjp compiles one program (the vjp two: forward and backward), never one for each
    # primitive of the lowering, run op by op.
    x, indices = jnp.ones((3, 7)), jnp.array([2, 0])
    text = jax.jit(lambda x: dml.tile(x, (2, 5))).lower(x).as_text()
    assert "call @tile(" in text
    gather = lambda x: dml.gather(x, indices, axis=1)
    batch, primal, cotangent = jnp.ones((4, 3, 6)), jnp.ones((3, 5)), jnp.ones((3, 2))
    assert _programs_compiled(caplog, lambda: jax.vmap(gather)(batch)) == ["gather"]
    assert _programs_compiled(caplog, lambda: jax.jvp(gather, (primal,), (primal,))) == ["gather"]
    _, backward = jax.vjp(gather, jnp.ones((3, 6)))
    assert _programs_compiled(caplog, lambda: backward(cotangent)) == ["gather"]
    compiled = dml.compile_operator(descs.gather())  # the desc face: the same
    arrays = (jnp.ones((5, 1, 1, 3, 2)), jnp.zeros((5, 1, 1, 1, 4), jnp.uint32))
    assert _programs_compiled(caplog, lambda: jax.vmap(compiled)(*arrays)) == ["gather"]


def test_an_error_after_a_cached_success_still_names_the_op():
    x = jnp.ones((2, 3))
    dml.tile(x, (2, 1))
    with pytest.raises(dml.errors.InvalidArgumentError, match=r"dmljax\.tile: repeats"):
        dml.tile(x, (2,))
    with pytest.raises(dml.errors.InvalidArgumentError, match=r"repeats\[0\]"):
        dml.tile(x, (-1, 1))
    with pytest.raises(dml.errors.InvalidArgumentError, match=r"repeats\[0\]"):
        dml.tile(x, (True, 1))  # never the program of (1, 1)


def test_both_spellings_of_an_axis_share_one_program():
    x, i = jnp.ones((4, 5)), jnp.zeros(3, jnp.int32)
    dml.gather(x, i, axis=1)
    size = helpers.jit_cache_size(helpers.face_program(dml.gather))
    dml.gather(x, i, axis=-1)
    assert helpers.jit_cache_size(helpers.face_program(dml.gather)) == size


@pytest.mark.parametrize(
    "same_value_casts",
    [False, pytest.param(True, marks=pytest.mark.skipif(
        not indices._SAME_VALUE_CASTS, reason="NumPy before 2.4 has no same_value casts"))],
)  # fmt: skip
def test_common_numpy_arrays_take_the_fast_path(monkeypatch, same_value_casts):
    from dmljax._src.face import Data, FunctionalFace, Indices
    from dmljax.errors import NarrowedIndicesWarning

    # Both ways of testing that 64-bit values fit 32 bits: one cast, or a min and a max.
    monkeypatch.setattr(indices, "_SAME_VALUE_CASTS", same_value_casts)

    slow: list[str] = []

    class Counting(FunctionalFace):
        def _slow(self, arrays, statics):
            slow.append(str(arrays[1].dtype))
            return super()._slow(arrays, statics)

    def pick(x, indices):
        return face.call(x, indices)

    face = Counting(pick, lambda x, i: x[i], Data("x"), Indices("indices"))
    x = np.arange(6.0, dtype=np.float32)
    # NumPy's default int64 too, narrowed to int32 when every value fits.
    for dtype in (np.int8, np.int32, np.uint32, np.int64, np.uint64):
        np.testing.assert_array_equal(pick(x, np.array([1, 4], dtype)), [1.0, 4.0])
    np.testing.assert_array_equal(pick(x, np.array([], np.int64)), np.zeros(0))
    assert slow == []
    with pytest.warns(NarrowedIndicesWarning):  # saturated on the slow path, and said so
        np.testing.assert_array_equal(pick(x, np.array([2**40, -(2**40)])), [5.0, 0.0])
    np.testing.assert_array_equal(pick(x, np.array([3], ">i4")), [3.0])
    with pytest.raises(dml.errors.ArgumentTypeError, match="masked"):
        pick(x, np.ma.array([1, 2], mask=[False, True]))
    assert slow == ["int64", ">i4", "int64"]
