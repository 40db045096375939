"""dml.onnx_slice_window: ONNX Slice's bounds as the SLICE1 window of ORT's DirectML provider."""

from __future__ import annotations

import itertools
import math

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

import dmljax as dml
from tests import helpers

InvalidArgumentError = dml.errors.InvalidArgumentError
INT32_MIN, INT32_MAX = int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max)
INT64_MIN, INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
OP = "dmljax.onnx_slice_window"


# --- Hand-worked windows -------------------------------------------------------------------------


def test_axes_that_are_not_sliced_are_taken_whole():
    window = dml.onnx_slice_window((2, 5, 3), starts=[1], ends=[4], axes=[1])
    assert window == ((0, 1, 0), (2, 3, 3), (1, 1, 1), (2, 3, 3))
    assert window._fields == ("offsets", "sizes", "strides", "output_sizes")


def test_negative_bounds_count_from_the_back():
    # On an axis of 6: start -4 is 2 and end -1 is 5, so the window is [2, 5).
    window = dml.onnx_slice_window((6,), starts=[-4], ends=[-1])
    assert window == ((2,), (3,), (1,), (3,))


def test_a_step_that_does_not_divide_the_window_rounds_the_output_up():
    # [1, 8) holds 7 elements; a step of 3 reads 1, 4 and 7.
    window = dml.onnx_slice_window((10,), starts=[1], ends=[8], steps=[3])
    assert window == ((1,), (7,), (3,), (3,))


def test_a_negative_step_walks_down_a_window_one_higher():
    # From 4 down to 1 (exclusive) reads 4, 3 and 2: the window [2, 5) walked from its end.
    window = dml.onnx_slice_window((6,), starts=[4], ends=[1], steps=[-1])
    assert window == ((2,), (3,), (-1,), (3,))
    x = jnp.arange(6)
    np.testing.assert_array_equal(dml.slice1(x, **window._asdict()), [4, 3, 2])


def test_sentinels_reverse_a_whole_axis():
    # The ONNX export of x[::-1]: start -1, end INT64_MIN, step -1.
    window = dml.onnx_slice_window((5,), starts=[-1], ends=[INT64_MIN], steps=[-1])
    assert window == ((0,), (5,), (-1,), (5,))


@pytest.mark.parametrize(
    ("start", "end", "step"),
    [(3, 3, 1), (4, 1, 1), (1, 4, -1), (7, INT64_MAX, 1), (INT64_MIN, -9, 1), (3, INT64_MAX, -1)],
)
def test_empty_slices_have_size_zero_inside_the_axis(start, end, step):
    window = dml.onnx_slice_window((2, 5), starts=[start], ends=[end], axes=[1], steps=[step])
    assert window.sizes == (2, 0)
    assert window.output_sizes == (2, 0)
    # The offset of an empty window is never read, but dml.slice1 takes it.
    assert 0 <= window.offsets[1] <= 5
    assert dml.slice1(jnp.zeros((2, 5)), **window._asdict()).shape == (2, 0)


def test_axes_may_be_negative_and_in_any_order():
    window = dml.onnx_slice_window((4, 6), starts=[1, 0], ends=[5, 3], axes=[-1, 0], steps=[2, 1])
    assert window == ((0, 1), (3, 4), (1, 2), (3, 2))


def test_bounds_and_steps_may_be_numpy_arrays():
    as_lists = dml.onnx_slice_window((4, 6), [1, -2], [3, 0], [0, 1], [1, -1])
    as_arrays = dml.onnx_slice_window(
        np.array([4, 6]),
        np.array([1, -2], np.int64),
        np.array([3, 0], np.int64),
        np.array([0, 1], np.int32),
        np.array([1, -1], np.int64),
    )
    assert as_arrays == as_lists
    assert all(type(v) is int for v in itertools.chain.from_iterable(as_arrays))


@pytest.mark.parametrize("start", [INT64_MIN, -(2**31) - 1, -(2**31)])
def test_a_negative_end_counts_from_the_back_even_after_a_start_at_or_below_int32_min(start):
    """ONNX, not SliceHelper's slip: starts=[start], ends=[-1] reads all but the last.

    SliceHelper wraps a negative end only when ``starts[i] > INT32_MIN`` (it tests
    the start), which would make this window empty for any start at or below
    -2**31, not only INT64_MIN; ONNX, ORT's CPU kernel and NumPy read ``x[:-1]``,
    and so does dmljax.
    """
    window = dml.onnx_slice_window((5,), starts=[start], ends=[-1])
    assert window == ((0,), (4,), (1,), (4,))
    assert faithful_slice_helper_axis(5, start, -1, 1)[0][1] == 0  # the slip, for the record
    assert faithful_slice_helper_axis(5, -(2**31) + 1, -1, 1)[0][1] == 4  # above: no slip


def test_steps_beyond_int32_are_saturated_like_ort_does():
    """DirectML's strides are INT32; a step that long reads one element of a short axis."""
    window = dml.onnx_slice_window((7,), starts=[INT64_MAX], ends=[INT64_MIN], steps=[-(2**40)])
    assert window == ((0,), (7,), (INT32_MIN,), (1,))
    x = jnp.arange(7)
    np.testing.assert_array_equal(dml.slice1(x, **window._asdict()), [6])


# --- Rejections ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field", "expected"),
    [
        ({"steps": [1, 0]}, "steps[1]", "non-zero"),
        ({"axes": [0, 2]}, "axes[1]", "in [-2, 2)"),
        ({"axes": [1, -3]}, "axes[1]", "in [-2, 2)"),
        ({"axes": [1, -1]}, "axes", "free of repeats"),
        ({"axes": [0]}, "axes", "2 long"),
        ({"steps": [1]}, "steps", "2 long"),
        ({"ends": [1]}, "ends", "2 long"),
        ({"starts": [0, 0, 0], "ends": [1, 1, 1]}, "starts", "at most 2 long"),
        ({"shape": (3, -1)}, "shape[1]", "non-negative"),
        ({"starts": [0, 1.5]}, "starts[1]", "an integer"),
        ({"steps": [1, True]}, "steps[1]", "not a bool"),
        ({"ends": np.zeros((2, 1), np.int64)}, "ends", "a 1-D sequence"),
    ],
)
def test_bad_arguments_are_refused_with_the_field_and_what_was_expected(kwargs, field, expected):
    arguments = {"shape": (3, 4), "starts": [0, 1], "ends": [2, 3]} | kwargs
    with pytest.raises(InvalidArgumentError) as e:
        dml.onnx_slice_window(**arguments)
    assert (e.value.op, e.value.field) == (OP, field)
    assert expected in e.value.expected
    assert str(e.value).startswith(f"{OP}: {field} must be ")


def test_duplicate_axes_error_shows_the_axes_given():
    with pytest.raises(
        InvalidArgumentError, match=r"axes must be free of repeats.*; got \(0, -2\)"
    ):
        dml.onnx_slice_window((3, 4), starts=[0, 0], ends=[1, 1], axes=[0, -2])


def test_traced_bounds_are_refused_with_a_hint():
    @jax.jit
    def window_of(starts):
        return dml.onnx_slice_window((4,), starts, [3])

    helpers.refused(lambda: window_of(jnp.array([1])), field="starts", match="static_argnames")


def test_a_number_where_a_sequence_belongs_is_a_type_error():
    with pytest.raises(dml.errors.ArgumentTypeError, match="starts must be a tuple of integers"):
        dml.onnx_slice_window((4,), 1, [3])  # type: ignore[arg-type]


# --- Against SliceHelper, transliterated -------------------------------------------------------


def saturate_to_int32(value: int) -> int:
    """ReadCpuLocalTensorIntoInt32's cast of an INT64 tensor value."""
    return min(max(value, INT32_MIN), INT32_MAX)


def faithful_slice_helper_axis(
    dim: int, start: int, end: int, step: int
) -> tuple[tuple[int, int, int, int], bool]:
    """One axis of SliceHelper::Initialize (ORT OperatorHelper.cpp), in its INT32 arithmetic.

    Returns ``((offset, size, stride, output size), overflowed)``, where
    ``overflowed`` says that ``end - start`` left INT32 (undefined in C++).
    """
    start, end, step = (saturate_to_int32(v) for v in (start, end, step))
    wrapped_start = start + dim if INT32_MIN < start < 0 else start
    wrapped_end = end + dim if end < 0 and start > INT32_MIN else end  # sic: tests start
    start, end = wrapped_start, wrapped_end
    if step < 0:
        start, end = end, start
        start += 1 if start < INT32_MAX else 0
        end += 1 if end < INT32_MAX else 0
    start = max(start, 0)
    end = min(end, dim)
    difference = end - start
    size = max(difference, 0)
    # C++ int division truncates and abs(INT32_MIN) wraps to INT32_MIN; for
    # 0 <= size < 2**31 both give what Python's exact arithmetic gives here.
    output = size // abs(step) + (size % abs(step) != 0)
    overflowed = not INT32_MIN <= difference <= INT32_MAX
    return (start, size, step, output), overflowed


def slips(start: int, end: int) -> bool:
    """Where SliceHelper leaves a negative end unwrapped (its guard tests the start)."""
    return saturate_to_int32(start) == INT32_MIN and INT32_MIN < saturate_to_int32(end) < 0


BOUNDS = st.one_of(
    st.integers(-8, 8),
    st.sampled_from([INT64_MIN, INT32_MIN - 1, INT32_MIN, INT32_MAX, INT32_MAX + 1, INT64_MAX]),
    st.integers(INT64_MIN, INT64_MAX),
)
STEPS = st.one_of(
    st.integers(-4, 4).filter(bool),
    st.sampled_from([INT64_MIN, INT32_MIN, INT32_MAX, INT64_MAX]),
)


@hypothesis.settings(max_examples=max(500, hypothesis.settings().max_examples))
@given(dim=st.integers(0, 7), start=BOUNDS, end=BOUNDS, step=STEPS)
def test_window_matches_slice_helper_and_numpy(dim, start, end, step):
    """SliceHelper's window and NumPy's ``x[start:end:step]``, on any INT64 bounds.

    SliceHelper's INT32 saturation changes nothing on these short axes; its
    guard slip and its undefined INT32 overflows are left out of the comparison.
    """
    window = dml.onnx_slice_window((dim,), [start], [end], steps=[step])
    offset, size, stride, output = (values[0] for values in window)
    (helper_offset, helper_size, helper_stride, helper_output), overflowed = (
        faithful_slice_helper_axis(dim, start, end, step)
    )
    if not (overflowed or slips(start, end)):
        assert (size, stride, output) == (helper_size, helper_stride, helper_output)
        if size:
            assert offset == helper_offset
    first = offset + (size - 1 if stride < 0 else 0)
    picked = [first + stride * c for c in range(output)]
    assert picked == list(range(dim)[start:end:step])
    assert 0 <= offset <= offset + size <= dim


@hypothesis.settings(max_examples=60)
@given(
    shape=st.lists(st.integers(0, 5), min_size=1, max_size=3),
    data=st.data(),
)
def test_onnx_slice_is_numpy_slicing_in_one_call(shape, data):
    x = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    axes = data.draw(st.permutations(range(len(shape))).map(lambda p: p[: len(p) // 2 + 1]))
    bounds = st.integers(-7, 7) | st.sampled_from([INT64_MIN, INT64_MAX])
    starts = [data.draw(bounds) for _ in axes]
    ends = [data.draw(bounds) for _ in axes]
    steps = [data.draw(st.integers(-3, 3).filter(bool)) for _ in axes]
    assume(not any(slips(s, e) for s, e in zip(starts, ends, strict=True)))
    index = [slice(None)] * len(shape)
    for axis, start, end, step in zip(axes, starts, ends, steps, strict=True):
        index[axis] = slice(start, end, step)
    got = dml.onnx_slice(jnp.asarray(x), starts, ends, axes=axes, steps=steps)
    np.testing.assert_array_equal(got, x[tuple(index)])


def test_onnx_slice_names_itself_in_errors_and_works_under_jit_and_grad():
    x = jnp.arange(6.0).reshape(2, 3)
    with pytest.raises(dml.errors.InvalidArgumentError, match="non-zero") as e:
        dml.onnx_slice(x, [0], [2], steps=[0])
    assert (e.value.op, e.value.field) == ("dmljax.onnx_slice", "steps[0]")
    with pytest.raises(dml.errors.ArgumentTypeError) as e:
        dml.onnx_slice([[1.0, 2.0]], [0], [1])  # pyright: ignore[reportArgumentType]
    assert (e.value.op, e.value.field) == ("dmljax.onnx_slice", "x")
    reverse_rows = jax.jit(lambda x: dml.onnx_slice(x, [-1], [INT64_MIN], steps=[-1]))
    np.testing.assert_array_equal(reverse_rows(x), x[::-1])
    grad = jax.grad(lambda x: dml.onnx_slice(x, [1], [3], axes=[1]).sum())(x)
    np.testing.assert_array_equal(grad, [[0, 1, 1], [0, 1, 1]])
