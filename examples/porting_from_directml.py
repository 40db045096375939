"""A DirectML program's descs, ported: buffer tensors, NHWC strides, a feature level.

A DirectML program fills DML_BUFFER_TENSOR_DESC and DML_*_OPERATOR_DESC structs, compiles
each operator for the device's feature level, binds buffers and dispatches. The port keeps
the descs as they are (same fields, snake_case), compiles them with dml.compile_operator at
the same feature level, and calls the results with arrays. Here an image batch arrives in
channels-last (NHWC) memory, described as DirectML describes it: NCHW sizes with strides.

Run: python examples/porting_from_directml.py
"""

import jax.numpy as jnp
import numpy as np

import dmljax as dml

T = dml.DataType
LEVEL = dml.FeatureLevel.FL_3_0  # what DMLCreateDevice1 would be asked for
N, C, H, W = 1, 3, 4, 5


def buffer_tensor(data_type, sizes, strides=None):
    """DML_BUFFER_TENSOR_DESC; TotalTensorSizeInBytes is DMLCalcBufferTensorSize's."""
    return dml.TensorDesc(data_type=data_type, sizes=sizes, strides=strides)


def nhwc_strides(n, c, h, w):
    """Strides of an NCHW-sized tensor stored channels last (DirectMLX's InterleavedChannel)."""
    del n
    return (h * w * c, 1, w * c, c)


# The image as a channels-last producer (a camera, a decoder) hands it over: one flat buffer.
image = np.arange(N * C * H * W, dtype=np.float32).reshape(N, C, H, W)  # the logical NCHW view
image_nhwc = buffer_tensor(T.FLOAT32, (N, C, H, W), nhwc_strides(N, C, H, W))
image_buffer = np.ascontiguousarray(image.transpose(0, 2, 3, 1)).reshape(-1)
print(
    f"input: NCHW sizes {image_nhwc.sizes}, NHWC strides {image_nhwc.strides}, "
    f"{image_nhwc.total_tensor_size_in_bytes} bytes"
)

# 1. DML_SLICE1_OPERATOR_DESC: crop rows 1..3 and mirror the columns, reading the NHWC buffer
#    and writing a packed NCHW tensor.
crop = dml.Slice1OperatorDesc(
    input_tensor=image_nhwc,
    output_tensor=buffer_tensor(T.FLOAT32, (N, C, 3, W)),
    input_window_offsets=(0, 0, 1, 0),
    input_window_sizes=(N, C, 3, W),
    input_window_strides=(1, 1, 1, -1),
)
cropped = dml.compile_operator(crop, feature_level=LEVEL)(jnp.asarray(image_buffer))
np.testing.assert_array_equal(cropped, image[:, :, 1:4, ::-1])
print("SLICE1 crop and mirror, channel 0:\n", cropped[0, 0])

# 2. DML_GATHER_OPERATOR_DESC: reorder the channels (RGB -> BGR) with UINT32 indices.
bgr = dml.GatherOperatorDesc(
    input_tensor=crop.output_tensor,
    indices_tensor=buffer_tensor(T.UINT32, (1, 1, 1, C)),
    output_tensor=buffer_tensor(T.FLOAT32, (N, C, 3, W)),
    axis=1,
    index_dimensions=1,
)
order = jnp.array([2, 1, 0], jnp.uint32).reshape(1, 1, 1, C)
swapped = dml.compile_operator(bgr, feature_level=LEVEL)(cropped, order)
np.testing.assert_array_equal(swapped, np.asarray(cropped)[:, ::-1])
print("GATHER channel order [2, 1, 0], first pixel of each channel:", swapped[0, :, 0, 0])

# 3. DML_SCATTER_OPERATOR_DESC: blank one column per channel (an in-place update, so the
#    input buffer is donated to the output).
blank = dml.ScatterOperatorDesc(
    input_tensor=bgr.output_tensor,
    indices_tensor=buffer_tensor(T.UINT32, (N, C, 3, 1)),
    updates_tensor=buffer_tensor(T.FLOAT32, (N, C, 3, 1)),
    output_tensor=bgr.output_tensor,
    axis=3,
)
blank_op = dml.compile_operator(blank, feature_level=LEVEL, donate_input=True)
columns = jnp.full((N, C, 3, 1), W - 1, jnp.uint32)
blanked = blank_op(swapped, columns, jnp.zeros((N, C, 3, 1), jnp.float32))
assert swapped.is_deleted()  # donated: the output reused its buffer
print("SCATTER of zeros into the last column, channel 0:\n", blanked[0, 0])

# 4. DML_TILE_OPERATOR_DESC with repeats of 1 as a layout copy: write the result back
#    channels last, into an existing output buffer (the output desc has NHWC strides).
back = dml.TileOperatorDesc(
    input_tensor=blank.output_tensor,
    output_tensor=buffer_tensor(T.FLOAT32, (N, C, 3, W), nhwc_strides(N, C, 3, W)),
    repeats=(1, 1, 1, 1),
)
out_buffer = jnp.full(back.output_tensor.buffer_element_count, -1.0, jnp.float32)
written = dml.compile_operator(back, feature_level=LEVEL)(blanked, out_buffer=out_buffer)
np.testing.assert_array_equal(
    dml.from_strided_buffer(written, back.output_tensor), np.asarray(blanked)
)
print("TILE into an NHWC output buffer, first pixel (3 channels):", written[:C])

# The same SLICE1 at FL 2_0, where DirectML has no SLICE1: compile_operator refuses it, as
# CompileOperator would fail on a device of that level.
try:
    dml.compile_operator(crop, feature_level=dml.FeatureLevel.FL_2_0)
except dml.errors.InvalidArgumentError as error:
    print("At FL_2_0:", error)
