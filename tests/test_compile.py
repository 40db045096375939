"""compile_operator and CompiledOperator, exercised through TILE."""

import dataclasses

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from tests import helpers

T = dml.DataType
FL = dml.FeatureLevel
InvalidArgumentError = dml.errors.InvalidArgumentError


def tile_desc(data_type=T.FLOAT32, sizes=(2, 3), repeats=(2, 1), **input_kwargs):
    output_sizes = tuple(s * r for s, r in zip(sizes, repeats, strict=True))
    return dml.TileOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=data_type, sizes=sizes, **input_kwargs),
        output_tensor=dml.TensorDesc(data_type=data_type, sizes=output_sizes),
        repeats=repeats,
    )


def test_compiled_operator_exposes_desc_level_and_output_desc():
    desc = tile_desc()
    op = dml.compile_operator(desc, feature_level=FL.FL_3_1)
    assert isinstance(op, dml.CompiledOperator)
    assert op.desc is desc
    assert op.feature_level is FL.FL_3_1
    assert op.output_desc == dml.TensorDesc(data_type=T.FLOAT32, sizes=(4, 3))
    assert "FL_3_1" in repr(op)


def test_compilation_is_cached_per_desc_and_level():
    op = dml.compile_operator(tile_desc())
    assert dml.compile_operator(tile_desc()) is op  # an equal desc, built again
    assert dml.compile_operator(tile_desc(), feature_level=FL.LATEST) is op
    assert dml.compile_operator(tile_desc(), feature_level=FL.FL_4_1) is not op


def test_default_feature_level_is_latest():
    assert dml.compile_operator(tile_desc()).feature_level is FL.LATEST


def test_unknown_desc_types_and_levels_are_refused():
    @dataclasses.dataclass(frozen=True)
    class NotADesc:
        axis: int = 0

    with pytest.raises(dml.errors.ArgumentTypeError, match="TileOperatorDesc"):
        dml.compile_operator(NotADesc())  # pyright: ignore[reportCallIssue, reportArgumentType]
    with pytest.raises(InvalidArgumentError, match="feature_level"):
        dml.compile_operator(tile_desc(), feature_level=0x1234)


def test_arguments_are_checked_against_the_descs():
    op = dml.compile_operator(tile_desc())
    x = jnp.ones((2, 3), jnp.float32)
    chex.assert_trees_all_equal(op(x), jnp.ones((4, 3)))
    with pytest.raises(InvalidArgumentError, match=r"shape \(2, 3\)") as e:
        op(jnp.ones((3, 2), jnp.float32))
    assert e.value.field == "the input_tensor argument"
    with pytest.raises(InvalidArgumentError, match="float32") as e:
        op(jnp.ones((2, 3), jnp.float16))
    assert ".astype('float32')" in str(e.value)
    with pytest.raises(dml.errors.ArgumentTypeError, match="1 arrays"):
        op(x, x)  # pyright: ignore[reportCallIssue]
    with pytest.raises(dml.errors.ArgumentTypeError, match="an array"):
        op([[1.0] * 3] * 2)  # pyright: ignore[reportArgumentType]


def test_argument_checks_fire_while_tracing():
    op = dml.compile_operator(tile_desc())
    with pytest.raises(InvalidArgumentError, match="shape"):
        jax.jit(op)(jnp.ones((2, 4), jnp.float32))
    batched = jax.vmap(op)(jnp.ones((5, 2, 3), jnp.float32))  # per-example shapes match
    assert batched.shape == (5, 4, 3)


def test_numpy_arguments_are_accepted():
    op = dml.compile_operator(tile_desc(T.INT16))
    x = np.arange(6, dtype=np.int16).reshape(2, 3)
    np.testing.assert_array_equal(op(x), np.concatenate([x, x]))


def test_strided_tensors_are_bound_as_buffers_not_treated_as_dense():
    op = dml.compile_operator(tile_desc(strides=(1, 2)))  # a column-major input
    column_major = jnp.array([1.0, 4.0, 2.0, 5.0, 3.0, 6.0])
    chex.assert_trees_all_equal(op(column_major), jnp.array([[1.0, 2, 3], [4, 5, 6]] * 2))
    helpers.refused(
        lambda: op(jnp.ones((2, 3), jnp.float32)),
        field="the input_tensor argument",
        match="1-D buffer",
    )


def test_64_bit_descs_need_x64():
    desc = tile_desc(T.INT64)
    with jax.enable_x64(False), pytest.raises(InvalidArgumentError, match="jax_enable_x64"):
        dml.compile_operator(desc)
    with jax.enable_x64(True):
        op = dml.compile_operator(desc)
        x = jnp.array([[2**40, -1, 3]] * 2, jnp.int64)
        assert op(x).dtype == jnp.int64
        assert int(op(x)[3, 0]) == 2**40


def test_lower_gives_the_hlo():
    op = dml.compile_operator(tile_desc())
    text = op.lower(jnp.ones((2, 3), jnp.float32)).as_text()
    assert "tensor<4x3xf32>" in text


def test_each_desc_type_declares_the_arrays_its_compiled_operator_takes_and_returns():
    # The type parameters of OperatorDesc, which type checkers read for compile_operator's
    # result, against the desc's tensor fields: one ArrayLike per input field, a variadic
    # tail for a tensor array or an optional tensor; a tuple result for several outputs.
    import typing

    from jax.typing import ArrayLike

    from dmljax._src.contract import Role, tensor_fields
    from dmljax._src.ops.join import JoinOperatorDesc

    for operator in dml.OPERATORS:
        # The class that declares the type parameters: the desc, or the shape a row of a
        # family's table subclasses (ElementWiseAddOperatorDesc is an ElementWiseBinary).
        declaring = next(c for c in operator.desc_type.__mro__ if "__orig_bases__" in vars(c))
        (base,) = [b for b in vars(declaring)["__orig_bases__"] if typing.get_args(b)]
        result, *inputs = typing.get_args(base)
        fields = tensor_fields(operator.desc_type, Role.INPUT)
        fixed = [f for f in fields if not (f.metadata["many"] or f.metadata["optional"])]
        variadic = len(fixed) < len(fields)
        assert inputs[: len(fixed)] == [ArrayLike] * len(fixed), operator.name
        starred = typing.get_args(vars(JoinOperatorDesc)["__orig_bases__"][0])[
            1
        ]  # *tuple[ArrayLike, ...]
        tail = [starred] if variadic else []
        assert inputs[len(fixed) :] == tail, operator.name
        outputs = tensor_fields(operator.desc_type, Role.OUTPUT)
        if any(f.metadata["many"] for f in outputs):
            assert result == tuple[jax.Array, ...], operator.name
        elif len(outputs) > 1:  # TOP_K's values and indices
            several = tuple[(jax.Array,) * len(outputs)]
            if any(f.metadata["optional"] for f in outputs):  # RNN's: the bound ones
                # Two: one or both; more (LSTM's three): one, or a tuple of any count.
                several = jax.Array | (several if len(outputs) == 2 else tuple[jax.Array, ...])
            assert result == several, operator.name
        else:
            assert result == jax.Array, operator.name
