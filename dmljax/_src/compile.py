"""``compile_operator``: DirectML's ``CompileOperator`` for JAX, and ``CompiledOperator``.

``compile_operator`` finds the desc's :class:`~dmljax._src.contract.Operator`
in :data:`dmljax.OPERATORS`, runs every check once per (desc, feature level)
and caches the result, so a second call with an equal desc costs nothing. The
result calls its jitted lowering through the same
:class:`~dmljax._src.face.Dispatch` as the functional faces.
"""

from __future__ import annotations

import functools
import typing
from typing import Any, Generic

import jax
from jax.core import Tracer
from jax.typing import ArrayLike

from dmljax._src.arguments import native_byte_order
from dmljax._src.contract import (
    Inputs,
    Lowering,
    LoweringOptions,
    Operator,
    OperatorDesc,
    Result,
    Role,
    bound_tensors,
)
from dmljax._src.dtypes import require_x64, x64_enabled
from dmljax._src.face import Dispatch
from dmljax._src.feature_levels import FeatureLevel
from dmljax._src.ops import OPERATORS
from dmljax._src.rules import check_bound_array, require_fits_memory
from dmljax._src.strides import (
    check_buffer_array,
    read_strided,
    require_non_overlapping,
    write_strided,
)
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "CompiledOperator",
    "compile_checked",
    "compile_operator",
    "operator_for",
    "through_buffers",
]

_BY_DESC_TYPE: dict[type, Operator[Any]] = {op.desc_type: op for op in OPERATORS}


def operator_for(desc: Any) -> Operator[Any]:
    """The operator whose desc ``desc`` is; a clear error for anything else."""
    operator = _BY_DESC_TYPE.get(type(desc))
    if operator is None:
        known = ", ".join(sorted(t.__name__ for t in _BY_DESC_TYPE))
        raise ArgumentTypeError(
            "compile_operator", "desc", f"an operator desc ({known})", type(desc).__name__
        )
    return operator


class CompiledOperator(Generic[Result, *Inputs]):
    """A validated operator: call it with the input arrays in DirectML's order.

    Made by :func:`compile_operator` (DirectML's ``IDMLCompiledOperator``), not
    constructed directly. The call checks each array's shape and dtype against
    its TensorDesc (while tracing, so also under ``jit`` and ``vmap``) and runs
    the jitted lowering. A tensor whose desc has strides is bound as a flat
    buffer, as in DirectML: a strided input is a 1-D array of at least
    ``buffer_element_count`` elements, and a strided output is returned as such
    a buffer, written over zeros or over ``out_buffer=``, whose unaddressed
    elements are kept.

    Attributes:
        desc: the operator desc it was compiled from.
        feature_level: the feature level it was validated at.
        deterministic: whether unspecified results are made the same everywhere.
        donate_input: whether the first input's buffer is given to the result.
        output_desc: the TensorDesc of the result.
        output_descs: the TensorDescs of the results, one per output tensor.
        operator: the :class:`~dmljax.Operator` of the desc.
        jitted: the jitted program an eager call runs (see :meth:`lower`).

    >>> import jax, jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.Slice1OperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(4,)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(4,)),
    ...     input_window_offsets=(0,), input_window_sizes=(4,), input_window_strides=(-1,))
    >>> op = dml.compile_operator(desc, feature_level=dml.FeatureLevel.FL_3_0)
    >>> op.feature_level, op.output_desc.sizes
    (<FeatureLevel.FL_3_0: 12288>, (4,))
    >>> op(jnp.arange(4.0))
    Array([3., 2., 1., 0.], dtype=float32)
    >>> jax.vmap(op)(jnp.ones((2, 4))).shape
    (2, 4)
    """

    def __init__(
        self,
        desc: Any,
        operator: Operator[Any],
        options: LoweringOptions,
        *,
        donate_input: bool,
    ) -> None:
        self.desc = desc
        self.operator = operator
        self.feature_level = options.feature_level
        self.deterministic = options.deterministic
        self.allow_half_precision = options.allow_half_precision
        self.donate_input = donate_input
        self._op = type(desc).__name__
        self._inputs = bound_tensors(desc, Role.INPUT)
        outputs = bound_tensors(desc, Role.OUTPUT)
        self.output_descs = tuple(tensor for _, tensor in outputs)
        lowering = through_buffers(
            operator.lower(desc, options),
            tuple(tensor for _, tensor in self._inputs),
            self.output_descs,
        )

        def checked(*arrays: Any, out_buffer: Any = None) -> Any:
            # Run while jit traces: a second call with the same shapes checks nothing.
            return lowering(*self._check_arguments(arrays, out_buffer))

        self._dispatch = dispatch = Dispatch(
            checked,
            name=operator.name.removeprefix("DML_OPERATOR_").lower(),
            static_count=0,
            donate_argnums=(0,) if donate_input else (),
            prepare_eagerly=self._prepared,
        )
        self.jitted = dispatch.jitted

    @property
    def output_desc(self) -> TensorDesc:
        """The TensorDesc of the result (of the only output tensor)."""
        if len(self.output_descs) != 1:
            raise AttributeError(
                f"{self._op} has {len(self.output_descs)} outputs: see output_descs"
            )
        return self.output_descs[0]

    def _prepared(
        self, *arrays: Any, out_buffer: Any = None
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        arrays = tuple(native_byte_order(x) for x in arrays)
        named = {} if out_buffer is None else {"out_buffer": native_byte_order(out_buffer)}
        self._check_arguments(arrays, named.get("out_buffer"))
        return arrays, named

    def _check_arguments(self, arrays: tuple[Any, ...], out_buffer: Any) -> tuple[Any, ...]:
        if len(arrays) != len(self._inputs):
            names = ", ".join(field for field, _ in self._inputs)
            raise ArgumentTypeError(
                self._op, "arguments", f"{len(self._inputs)} arrays ({names})", len(arrays)
            )
        for (field, tensor), x in zip(self._inputs, arrays, strict=True):
            if tensor.strides is None:
                check_bound_array(x, tensor, op=self._op, field=field)
            else:
                check_buffer_array(x, tensor, op=self._op, field=f"the {field} argument")
        if out_buffer is None:
            return arrays
        if len(self.output_descs) != 1:
            raise InvalidArgumentError(
                self._op,
                "out_buffer",
                "None: only an operator with one output writes into a given buffer",
                f"an array for {len(self.output_descs)} output tensors",
            )
        output = self.output_descs[0]
        if output.strides is None:
            raise InvalidArgumentError(
                self._op,
                "out_buffer",
                "None: only an output_tensor with strides is written into a buffer",
                f"an array for output_tensor {output.sizes} without strides",
            )
        check_buffer_array(out_buffer, output, op=self._op, field="out_buffer")
        return (*arrays, out_buffer)

    def _refuse_keywords(self, named: dict[str, Any]) -> None:
        name = next(iter(named))
        order = ", ".join(field for field, _ in self._inputs)
        raise ArgumentTypeError(
            self._op,
            name,
            f"passed positionally, in DirectML's binding order ({order})",
            "a keyword argument",
        )

    def _check_donation(self, arrays: tuple[Any, ...], out_buffer: Any) -> None:
        """The donated first input is a live array passed once (JAX's own errors for
        these name neither the operator nor the argument)."""
        donated = arrays[0]
        if not isinstance(donated, jax.Array) or isinstance(donated, Tracer):
            return
        field = self._inputs[0][0]
        if donated.is_deleted():
            raise InvalidArgumentError(
                self._op,
                field,
                "an array whose buffer is still live",
                "an array an earlier call with donate_input=True consumed",
                hint="Pass a fresh array, or the earlier call's result.",
            )
        others = [name for (name, _), a in zip(self._inputs[1:], arrays[1:], strict=False)
                  if a is donated]  # fmt: skip
        if out_buffer is donated:
            others.append("out_buffer")
        if others:
            raise InvalidArgumentError(
                self._op,
                field,
                f"an array not also passed as {', '.join(others)}: with donate_input=True its "
                "buffer becomes the result",
                "the same array twice",
                hint="Pass a copy (jnp.array(x, copy=True)) as the other argument.",
            )

    if typing.TYPE_CHECKING:
        # What type checkers see: the desc's declared arrays and result. At run time
        # keywords are taken too, to refuse them with a dmljax error.
        def __call__(self, *arrays: *Inputs, out_buffer: ArrayLike | None = None) -> Result: ...

    else:

        def __call__(self, *arrays: Any, out_buffer: Any = None, **named: Any) -> Any:
            return self._call(arrays, out_buffer, named)

    def _call(self, arrays: tuple[Any, ...], out_buffer: Any, named: dict[str, Any]) -> Any:
        if named:
            self._refuse_keywords(named)
        if self.donate_input and arrays:
            self._check_donation(arrays, out_buffer)
        if out_buffer is None:
            return self._dispatch(*arrays)
        return self._dispatch(*arrays, out_buffer=out_buffer)

    def lower(self, *arrays: Any, out_buffer: Any = None, **named: Any) -> Any:
        """``jax.jit(...).lower`` of the operator for these arrays (to inspect its HLO).

        >>> import jax.numpy as jnp, dmljax as dml
        >>> f32 = dml.DataType.FLOAT32
        >>> op = dml.compile_operator(dml.Slice1OperatorDesc(
        ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(4,)),
        ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(4,)),
        ...     input_window_offsets=(0,), input_window_sizes=(4,), input_window_strides=(-1,)))
        >>> "reverse" in op.lower(jnp.arange(4.0)).as_text()
        True
        """
        if named:
            self._refuse_keywords(named)
        arrays, named = self._prepared(*arrays, out_buffer=out_buffer)
        return self.jitted.lower(*arrays, **named)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its desc and options, compiled again where it is loaded (a jitted
        program belongs to one process): for ``multiprocessing`` and caches on disk."""
        return _unpickled_operator, (
            self.desc,
            self.feature_level,
            self.deterministic,
            self.donate_input,
            self.allow_half_precision,
        )

    def __repr__(self) -> str:
        options = f"feature_level={self.feature_level}"
        if self.deterministic:
            options += ", deterministic=True"
        if self.donate_input:
            options += ", donate_input=True"
        if self.allow_half_precision:
            options += ", allow_half_precision=True"
        return f"CompiledOperator({self.desc!r}, {options})"


def through_buffers(
    lowering: Lowering, inputs: tuple[TensorDesc, ...], outputs: tuple[TensorDesc, ...]
) -> Lowering:
    """``lowering`` with strided inputs read from, and strided outputs written to, buffers."""
    if all(tensor.strides is None for tensor in (*inputs, *outputs)):
        return lowering

    def run(*arrays: jax.Array) -> Any:
        logical = [
            x if tensor.strides is None else read_strided(x, tensor)
            for tensor, x in zip(inputs, arrays, strict=False)
        ]
        result = lowering(*logical)
        out_buffer = arrays[len(inputs)] if len(arrays) > len(inputs) else None
        if len(outputs) == 1:
            return _written(result, outputs[0], out_buffer)
        return tuple(_written(y, tensor, None) for y, tensor in zip(result, outputs, strict=True))

    return run


def _written(result: jax.Array, output: TensorDesc, out_buffer: jax.Array | None) -> jax.Array:
    return result if output.strides is None else write_strided(result, output, out_buffer)


@typing.overload
def compile_operator(
    desc: OperatorDesc[Result, *Inputs],
    *,
    feature_level: FeatureLevel | int = ...,
    deterministic: bool = ...,
    donate_input: bool = ...,
    allow_half_precision: bool = ...,
) -> CompiledOperator[Result, *Inputs]: ...


# For a desc whose type is a union: type checkers try an overloaded function on each member.
@typing.overload
def compile_operator(
    desc: OperatorDesc[Any, *tuple[Any, ...]],
    *,
    feature_level: FeatureLevel | int = ...,
    deterministic: bool = ...,
    donate_input: bool = ...,
    allow_half_precision: bool = ...,
) -> CompiledOperator[Any, *tuple[Any, ...]]: ...


def compile_operator(
    desc: Any,
    *,
    feature_level: FeatureLevel | int = FeatureLevel.LATEST,
    deterministic: bool = False,
    donate_input: bool = False,
    allow_half_precision: bool = False,
) -> CompiledOperator[Any, *tuple[Any, ...]]:
    """Validates an operator desc, like DirectML's ``CompileOperator``, and lowers it.

    Checks the desc against the operator's support table at ``feature_level``
    and every rule on its DirectML page, including the output desc, then
    returns a jitted callable. Results are cached per desc and options.

    Args:
        desc: an operator desc, e.g. :class:`dmljax.TileOperatorDesc`.
        feature_level: the DirectML feature level to validate against.
        deterministic: make results DirectML leaves unspecified the same on
            every backend: for SCATTER with duplicate indices, the last update
            in row-major order wins; float sums and products of the dmljax
            reductions have the same bits on every run (docs/performance.md,
            "Deterministic reductions"). Other operators are deterministic anyway.
        donate_input: give the first input's buffer to the result, so that XLA
            can write the output in place (SCATTER without the operand copy).
            The caller must not use that array afterwards. Needs an output of
            the input's sizes and data type.
        allow_half_precision: DirectML's
            ``DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION``: GEMM's product may
            take the backend's faster precision (``jax.lax.Precision.DEFAULT``: TF32 on
            a recent NVIDIA GPU). By default float32 computes in float32 everywhere.

    Returns:
        A :class:`CompiledOperator`; call it with the input arrays. Its type says
        which arrays and what result, per desc type (``TileOperatorDesc`` gives a
        ``CompiledOperator[jax.Array, ArrayLike]``: one array in, one out).

    Raises:
        InvalidArgumentError: the desc breaks a rule at this feature level.

    >>> import jax.numpy as jnp, dmljax as dml
    >>> f32 = dml.DataType.FLOAT32
    >>> desc = dml.TileOperatorDesc(
    ...     input_tensor=dml.TensorDesc(data_type=f32, sizes=(1, 2)),
    ...     output_tensor=dml.TensorDesc(data_type=f32, sizes=(2, 6)),
    ...     repeats=(2, 3))
    >>> op = dml.compile_operator(desc, feature_level=dml.FeatureLevel.FL_3_1)
    >>> op(jnp.array([[1.0, 2.0]]))
    Array([[1., 2., 1., 2., 1., 2.],
           [1., 2., 1., 2., 1., 2.]], dtype=float32)
    """
    operator_for(desc)  # an unknown desc type fails before anything else is looked at
    op = type(desc).__name__
    level = FeatureLevel.coerce(feature_level, op=op)
    flags = (
        ("deterministic", deterministic),
        ("donate_input", donate_input),
        ("allow_half_precision", allow_half_precision),
    )
    for name, flag in flags:
        if not isinstance(flag, bool):
            raise ArgumentTypeError(op, name, "a bool", repr(flag))
    options = LoweringOptions(level, deterministic, allow_half_precision)
    return compile_checked(desc, options, donate_input, x64_enabled())


def _layout(tensor: TensorDesc) -> str:
    strides = "" if tensor.strides is None else f", strides {tensor.strides}"
    return f"{tensor.data_type} {tensor.sizes}{strides}"


@functools.lru_cache(maxsize=1024)
def compile_checked(
    desc: Any, options: LoweringOptions, donate_input: bool, x64: bool
) -> CompiledOperator:
    """:func:`compile_operator` once its arguments are checked (graphs compile nodes so),
    cached per desc, options and x64 setting."""
    # `x64` is part of the key: the jitted lowering and the dtype checks depend on it.
    del x64
    operator = operator_for(desc)
    op = type(desc).__name__
    operator.validate(desc, options.feature_level)
    for field, tensor in bound_tensors(desc):
        require_x64(tensor.data_type, op=op, field=f"{field}.data_type")
    outputs = bound_tensors(desc, Role.OUTPUT)
    for field, tensor in outputs:
        require_non_overlapping(tensor, op=op, field=field)
        # A desc's buffers are at most 2**32 - 1 elements, yet that is 32 GiB of UINT64:
        # refused here rather than by XLA's allocator at the first call.
        require_fits_memory(
            tensor.total_tensor_size_in_bytes,
            op=op,
            field=f"{field}.sizes",
            given=f"an output buffer of {_layout(tensor)}",
        )
    if donate_input:
        donated_field, donated = bound_tensors(desc, Role.INPUT)[0]
        if len(outputs) != 1 or donated != outputs[0][1]:
            raise InvalidArgumentError(
                op,
                "donate_input",
                f"False: the output ({_layouts(outputs)}) cannot reuse the buffer of "
                f"{donated_field} ({_layout(donated)})",
                True,
                hint="Donation needs the two tensor descs to be equal.",
            )
    return CompiledOperator(desc, operator, options, donate_input=donate_input)


def _layouts(tensors: tuple[tuple[str, TensorDesc], ...]) -> str:
    return "; ".join(_layout(tensor) for _, tensor in tensors)


def _unpickled_operator(
    desc: Any,
    feature_level: FeatureLevel,
    deterministic: bool,
    donate_input: bool,
    allow_half_precision: bool = False,
) -> CompiledOperator[Any, *tuple[Any, ...]]:
    """A pickled :class:`CompiledOperator`, compiled again (and checked again)."""
    return compile_operator(
        desc, feature_level=feature_level, deterministic=deterministic,
        donate_input=donate_input, allow_half_precision=allow_half_precision,
    )  # fmt: skip
