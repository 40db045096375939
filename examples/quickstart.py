"""dmljax in one minute: a few operators through both faces.

Run: python examples/quickstart.py
"""

import jax
import jax.numpy as jnp

import dmljax as dml

f32 = dml.DataType.FLOAT32

# --- TILE ----------------------------------------------------------------------------------------
# The desc face: DML_TILE_OPERATOR_DESC as a DirectML program builds it (the example on its page).
desc = dml.TileOperatorDesc(
    input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 3)),
    output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 6, 9)),
    repeats=(1, 1, 3, 3),
)
tile_op = dml.compile_operator(desc, feature_level=dml.FeatureLevel.FL_1_0)  # validates the desc
x = jnp.array([[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]])
print("TILE (desc face):\n", tile_op(x)[0, 0])

# The functional face: any rank and dtype, usable under jit, vmap and grad.
print("TILE (functional face):", dml.tile(jnp.array([1, 2]), (3,)))
batch = jnp.arange(12.0).reshape(4, 3)
print("vmap:", jax.vmap(lambda row: dml.tile(row, (2,)))(batch).shape)
print("grad:", jax.grad(lambda x: dml.tile(x, (2, 2)).sum())(jnp.ones((2, 2))))

# --- GATHER --------------------------------------------------------------------------------------
# Example 2 of the DML_GATHER_OPERATOR_DESC page: whole rows picked by UINT32 indices.
u32 = dml.DataType.UINT32
gather_desc = dml.GatherOperatorDesc(
    input_tensor=dml.TensorDesc(data_type=f32, sizes=(3, 2)),
    indices_tensor=dml.TensorDesc(data_type=u32, sizes=(1, 4)),
    output_tensor=dml.TensorDesc(data_type=f32, sizes=(4, 2)),
    axis=0,
    index_dimensions=1,
)
table = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
rows = jnp.array([[0, 1, 1, 2]], jnp.uint32)
print("GATHER (desc face):\n", dml.compile_operator(gather_desc)(table, rows))

# The functional face: negative indices count from the end, out-of-range ones clamp.
print(
    "GATHER (functional face):", dml.gather(jnp.array([10, 20, 30]), jnp.array([-1, 0, 9]), axis=0)
)
embedding = jax.grad(lambda t: dml.gather(t, jnp.array([0, 0, 2]), axis=0).sum())(table)
print("grad of a gather adds up repeated rows:\n", embedding)

# --- GATHER_ELEMENTS and SCATTER -----------------------------------------------------------------
# SCATTER Example 1: index 3 appears twice. DirectML leaves the winner unspecified;
# deterministic=True makes the last update in row-major order win on every backend.
scatter_desc = dml.ScatterOperatorDesc(
    input_tensor=dml.TensorDesc(data_type=f32, sizes=(5,)),
    indices_tensor=dml.TensorDesc(data_type=u32, sizes=(4,)),
    updates_tensor=dml.TensorDesc(data_type=f32, sizes=(4,)),
    output_tensor=dml.TensorDesc(data_type=f32, sizes=(5,)),
    axis=0,
)
scatter_op = dml.compile_operator(scatter_desc, deterministic=True)
print(
    "SCATTER (desc face):",
    scatter_op(jnp.arange(5.0), jnp.array([3, 1, 3, 0], jnp.uint32), jnp.array([5.0, 6, 7, 8])),
)

# GATHER_ELEMENTS, the page's example: output[y, x] = input[indices[y, x], x].
gather_elements_desc = dml.GatherElementsOperatorDesc(
    input_tensor=dml.TensorDesc(data_type=f32, sizes=(3, 3)),
    indices_tensor=dml.TensorDesc(data_type=u32, sizes=(2, 3)),
    output_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 3)),
    axis=0,
)
print(
    "GATHER_ELEMENTS (desc face):\n",
    dml.compile_operator(gather_elements_desc)(
        jnp.arange(1.0, 10.0).reshape(3, 3), jnp.array([[1, 2, 0], [2, 0, 0]], jnp.uint32)
    ),
)

# The functional faces: torch.gather / take_along_axis and ONNX ScatterElements, DirectML rules.
scores = jnp.array([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2]])
picked = dml.gather_elements(scores, jnp.array([[1], [0]]), axis=1)
print("GATHER_ELEMENTS (functional face):", picked.ravel())
counts = dml.scatter(jnp.zeros(4, jnp.int32), jnp.array([1, 3, 1]), jnp.ones(3, jnp.int32), axis=0,
                     reduction="add")  # fmt: skip
print("SCATTER with reduction='add':", counts)

# --- SLICE1 --------------------------------------------------------------------------------------
# Example 2 of the DML_SLICE1_OPERATOR_DESC page: a negative stride walks from the window's end.
slice_desc = dml.Slice1OperatorDesc(
    input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 4, 4)),
    output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 2)),
    input_window_offsets=(0, 0, 0, 1),
    input_window_sizes=(1, 1, 4, 3),
    input_window_strides=(1, 1, -2, 2),
)
grid = jnp.arange(1.0, 17.0).reshape(1, 1, 4, 4)
print("SLICE1 (desc face):\n", dml.compile_operator(slice_desc)(grid)[0, 0])
print(
    "SLICE1 (functional face):", dml.slice1(jnp.arange(10), offsets=(1,), sizes=(8,), strides=(-3,))
)

# SLICE (FL 1_0), SLICE1's predecessor: its sizes are the output sizes, its strides positive.
old_slice_desc = dml.SliceOperatorDesc(
    input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 4, 4)),
    output_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 1, 2, 2)),
    offsets=(0, 0, 1, 0),
    sizes=(1, 1, 2, 2),
    strides=(1, 1, 2, 3),
)
old_slice_op = dml.compile_operator(old_slice_desc, feature_level=dml.FeatureLevel.FL_1_0)
print("SLICE (desc face):\n", old_slice_op(grid)[0, 0])

# --- Strided buffers -----------------------------------------------------------------------------
# A TensorDesc with strides describes a flat buffer, as DML_BUFFER_TENSOR_DESC.Strides does: here
# rows padded to 4 elements. A strided input is bound as that buffer.
padded_rows = dml.TensorDesc(data_type=f32, sizes=(2, 3), strides=(4, 1))
buffer = jnp.array([1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0])
print("The buffer read through the strides:\n", dml.from_strided_buffer(buffer, padded_rows))
flip_rows = dml.Slice1OperatorDesc(
    input_tensor=padded_rows,
    output_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 3)),
    input_window_offsets=(0, 0),
    input_window_sizes=(2, 3),
    input_window_strides=(-1, 1),
)
print("SLICE1 of the strided input:\n", dml.compile_operator(flip_rows)(buffer))
