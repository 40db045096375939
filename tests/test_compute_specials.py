"""The compute operators read zero strides, NaN and infinity as their NumPy references
do: each desc reads an input through zero strides (a buffer smaller than the tensor, as
DirectML binds it) holding NaN and infinity, against the reference of the same values
broadcast.

The operators' own files check every type, rank and field; this one checks the two
things no random draw of theirs holds: an input shared by zero strides, and the
special values flowing through sums, products, searches and windows.
"""

from __future__ import annotations

import numpy as np
import pytest

import dmljax as dml
from dmljax._src.checking import reference

T = dml.DataType
F = dml.ReduceFunction
NAN, INF = np.nan, np.inf

# Two rows of four, each read three times: sizes (1, 2, 3, 4), strides (0, 4, 0, 1).
ROWS = np.array([[1.0, INF, 3.0, -2.0], [NAN, 1.0, 2.0, 3.0]], np.float32)
ROWS_SIZES, ROWS_STRIDES = (1, 2, 3, 4), (0, 4, 0, 1)
ROWS_READ = np.broadcast_to(ROWS[None, :, None, :], ROWS_SIZES)


def _td(sizes, strides=None, data_type=T.FLOAT32):
    return dml.TensorDesc(data_type=data_type, sizes=tuple(sizes), strides=strides)


def _same(got, want, rtol=1e-6):
    got = np.asarray(got)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                               atol=0)  # fmt: skip
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))


@pytest.mark.parametrize("function", list(F), ids=lambda f: f.name)
def test_reduce_of_a_zero_strided_input_with_nan_and_inf(function):
    searches = function in (F.ARGMAX, F.ARGMIN)
    out_type = T.UINT32 if searches else T.FLOAT32
    desc = dml.ReduceOperatorDesc(
        function=function, input_tensor=_td(ROWS_SIZES, ROWS_STRIDES),
        output_tensor=_td((1, 2, 3, 1), data_type=out_type), axes=(3,),
    )  # fmt: skip
    if searches:
        want = reference.arg_extreme(ROWS_READ, axes=(3,), largest=function is F.ARGMAX,
                                     last=False, dtype=np.dtype(np.uint32))  # fmt: skip
        np.testing.assert_array_equal(dml.compile_operator(desc)(ROWS.ravel()), want)
        return
    want = reference.reduce(ROWS_READ, function=function.function_name, axes=(3,))
    _same(dml.compile_operator(desc)(ROWS.ravel()), want, rtol=4e-7)


@pytest.mark.parametrize("largest", [True, False])
def test_argmax_argmin_and_top_k_of_a_zero_strided_input_with_nan_and_inf(largest):
    desc_type = dml.ArgmaxOperatorDesc if largest else dml.ArgminOperatorDesc
    desc = desc_type(
        input_tensor=_td(ROWS_SIZES, ROWS_STRIDES),
        output_tensor=_td((1, 2, 3, 1), data_type=T.UINT32), axes=(3,),
        axis_direction=dml.AxisDirection.INCREASING,
    )  # fmt: skip
    want = reference.arg_extreme(ROWS_READ, axes=(3,), largest=largest, last=False,
                                 dtype=np.dtype(np.uint32))  # fmt: skip
    np.testing.assert_array_equal(dml.compile_operator(desc)(ROWS.ravel()), want)
    top = dml.TopK1OperatorDesc(
        input_tensor=_td(ROWS_SIZES, ROWS_STRIDES), output_value_tensor=_td((1, 2, 3, 2)),
        output_index_tensor=_td((1, 2, 3, 2), data_type=T.UINT32), axis=3, k=2,
        axis_direction=dml.AxisDirection.DECREASING if largest else dml.AxisDirection.INCREASING,
    )  # fmt: skip
    values, indices = dml.compile_operator(top)(ROWS.ravel())
    want_values, want_indices = reference.top_k(ROWS_READ, 2, axis=3, largest=largest,
                                                index_dtype=np.uint32)  # fmt: skip
    _same(values, want_values, rtol=0)
    np.testing.assert_array_equal(indices, want_indices)


def test_gemm_adds_a_c_broadcast_by_strides_and_carries_nan_and_inf():
    a = np.array([[1.0, NAN, 2.0], [1.0, -1.0, 2.0]], np.float32).reshape(1, 1, 2, 3)
    b = np.array([[1.0, 2.0], [3.0, 4.0], [INF, 5.0]], np.float32).reshape(1, 1, 3, 2)
    c_row = np.array([10.0, 20.0], np.float32)  # one row of C, read for both rows
    desc = dml.GemmOperatorDesc(
        a_tensor=_td((1, 1, 2, 3)), b_tensor=_td((1, 1, 3, 2)),
        c_tensor=_td((1, 1, 2, 2), strides=(0, 0, 0, 1)), output_tensor=_td((1, 1, 2, 2)),
        trans_a=dml.MatrixTransform.NONE, trans_b=dml.MatrixTransform.NONE, alpha=1.0, beta=1.0,
    )  # fmt: skip
    want = reference.gemm(a, b, np.broadcast_to(c_row, (1, 1, 2, 2)), trans_a=False,
                          trans_b=False, alpha=1.0, beta=1.0)  # fmt: skip
    got = dml.compile_operator(desc)(a, b, c_row)
    _same(got, want)
    assert np.isnan(np.asarray(got)[0, 0, 0]).all()  # the NaN's row
    assert np.asarray(got)[0, 0, 1, 0] == INF  # 2 * inf, then + 10


def test_convolution_reads_one_filter_for_every_channel_and_keeps_nan_in_its_windows():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    x[0, 0, 0, 0], x[0, 0, 3, 3] = NAN, INF
    kernel = np.array([1.0, -1.0, 0.5, 2.0], np.float32)  # one 2x2 filter, both channels
    bias = np.array([1.0, -1.0], np.float32).reshape(1, 2, 1, 1)
    desc = dml.ConvolutionOperatorDesc(
        input_tensor=_td((1, 1, 4, 4)), filter_tensor=_td((2, 1, 2, 2), strides=(0, 0, 2, 1)),
        bias_tensor=_td((1, 2, 1, 1)), output_tensor=_td((1, 2, 3, 3)),
        mode=dml.ConvolutionMode.CROSS_CORRELATION, direction=dml.ConvolutionDirection.FORWARD,
        strides=(1, 1), dilations=(1, 1), start_padding=(0, 0), end_padding=(0, 0),
        output_padding=(0, 0), group_count=1,
    )  # fmt: skip
    w = np.broadcast_to(kernel.reshape(1, 1, 2, 2), (2, 1, 2, 2))
    want = reference.convolution(x, w, bias, strides=(1, 1), dilations=(1, 1),
                                 start_padding=(0, 0), end_padding=(0, 0),
                                 output_padding=(0, 0))  # fmt: skip
    got = np.asarray(dml.compile_operator(desc)(x, kernel, bias))
    _same(got, want)
    assert np.isnan(got[0, :, 0, 0]).all()
    assert np.isinf(got[0, :, 2, 2]).all()
    assert np.isfinite(got[0, :, 1, 1]).all()


def test_nearest_resampling_copies_nan_and_inf_through_zero_strides():
    buffer = np.array([[1.0, NAN], [INF, -INF]], np.float32)  # both channels read it
    desc = dml.Resample1OperatorDesc(
        input_tensor=_td((1, 2, 2, 2), strides=(0, 0, 2, 1)), output_tensor=_td((1, 2, 4, 4)),
        interpolation_mode=dml.InterpolationMode.NEAREST_NEIGHBOR, scales=(1.0, 1.0, 2.0, 2.0),
        input_pixel_offsets=(0.5,) * 4, output_pixel_offsets=(-0.5,) * 4,
    )  # fmt: skip
    want = reference.resample(np.broadcast_to(buffer, (1, 2, 2, 2)), (1, 2, 4, 4),
                              scales=(1.0, 1.0, 2.0, 2.0), input_offsets=(0.5,) * 4,
                              output_offsets=(-0.5,) * 4, linear=False)  # fmt: skip
    _same(dml.compile_operator(desc)(buffer.ravel()), want, rtol=0)
