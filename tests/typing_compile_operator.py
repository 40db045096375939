# pyright: reportUnnecessaryTypeIgnoreComment=error
"""What type checkers know of ``compile_operator``'s result, per desc type.

Pyright checks this file in CI's lint step; nothing here runs. Each wrong call carries
an ignore comment for the error pyright must report, and an ignore that pyright finds
unnecessary is an error itself: a wrong call that stops being flagged fails the lint.
"""

from typing import Any, assert_type

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

import dmljax as dml

F32 = dml.DataType.FLOAT32


def _tensor(*sizes: int) -> dml.TensorDesc:
    return dml.TensorDesc(data_type=F32, sizes=sizes)


def _results_and_arguments_per_desc() -> None:
    x = jnp.ones((2, 3))
    i = jnp.zeros((2, 3), jnp.int32)

    tile = dml.compile_operator(
        dml.TileOperatorDesc(
            input_tensor=_tensor(2, 3), output_tensor=_tensor(4, 3), repeats=(2, 1)
        )
    )
    assert_type(tile, dml.CompiledOperator[jax.Array, ArrayLike])
    assert_type(tile(x), jax.Array)
    tile(x, x)  # pyright: ignore[reportCallIssue]
    tile(x, out_buffer=jnp.zeros(12))
    tile(x, donate=True)  # pyright: ignore[reportCallIssue]

    gather = dml.compile_operator(
        dml.GatherOperatorDesc(
            input_tensor=_tensor(2, 3),
            indices_tensor=dml.TensorDesc(data_type=dml.DataType.INT32, sizes=(2, 3)),
            output_tensor=_tensor(2, 3, 3),
            axis=0,
            index_dimensions=2,
        )
    )
    assert_type(gather(x, i), jax.Array)
    gather(x)  # pyright: ignore[reportCallIssue]
    gather(x, "0")  # pyright: ignore[reportArgumentType]

    split = dml.compile_operator(
        dml.SplitOperatorDesc(
            input_tensor=_tensor(2, 3), output_tensors=(_tensor(1, 3), _tensor(1, 3)), axis=0
        )
    )
    assert_type(split(x), tuple[jax.Array, ...])
    first: jax.Array = split(x)  # pyright: ignore[reportAssignmentType]

    join = dml.compile_operator(
        dml.JoinOperatorDesc(
            input_tensors=(_tensor(2, 3), _tensor(2, 3)), output_tensor=_tensor(4, 3), axis=0
        )
    )
    assert_type(join(x, x), jax.Array)

    eye = dml.compile_operator(
        dml.DiagonalMatrixOperatorDesc(output_tensor=_tensor(3, 3), offset=0, value=1.0)
    )
    assert_type(eye(), jax.Array)
    eye(x)  # pyright: ignore[reportCallIssue]

    dml.compile_operator(_tensor(2))  # pyright: ignore[reportCallIssue, reportArgumentType]
    dml.compile_operator(tile.desc, feature_level="FL_4_1")  # pyright: ignore[reportCallIssue, reportArgumentType]
    del first


def _a_union_of_descs(desc: dml.TileOperatorDesc | dml.SplitOperatorDesc) -> None:
    # No single signature fits both: the result is typed loosely, never refused.
    assert_type(dml.compile_operator(desc), dml.CompiledOperator[Any, *tuple[Any, ...]])
