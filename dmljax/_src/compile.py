"""``compile_operator``: DirectML's ``CompileOperator`` for JAX, and the op registry.

Each operator module registers one :class:`OperatorDefinition` that says which
desc fields are tensors, where its support table is, how to check its own
rules and how to lower it. ``compile_operator`` runs every check once per
(desc, feature level) and caches the jitted result, so a second call with an
equal desc costs nothing and an eager call of the result is one dispatch.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import jax
from jax.core import Tracer

from dmljax._src.dispatch import is_concrete_array
from dmljax._src.dtypes import require_x64, x64_enabled
from dmljax._src.feature_levels import FeatureLevel, OperatorSupport
from dmljax._src.rules import check_bound_array
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
    "LoweringOptions",
    "OperatorDefinition",
    "compile_operator",
    "register",
]

Lowering = Callable[..., jax.Array]


@dataclasses.dataclass(frozen=True)
class LoweringOptions:
    """What a lowering may depend on besides the desc.

    Attributes:
        feature_level: the level the desc was validated at (index rules depend on it).
        deterministic: whether a result DirectML leaves unspecified (the winner
            among duplicate scatter indices) must be the same on every backend.
    """

    feature_level: FeatureLevel
    deterministic: bool = False


@dataclasses.dataclass(frozen=True)
class OperatorDefinition:
    """What compile_operator needs to know about one DirectML operator.

    Attributes:
        desc_type: the desc dataclass, e.g. ``TileOperatorDesc``.
        support: the operator's feature-level support table.
        input_fields: the desc fields of the input tensors, in DirectML's binding order.
        output_field: the desc field of the output tensor.
        validate: checks the operator's own rules (sizes, attributes) and raises
            InvalidArgumentError; the support table is checked before it runs.
        lower: returns the pure JAX function of the input arrays for a valid desc.
    """

    desc_type: type
    support: OperatorSupport
    input_fields: tuple[str, ...]
    output_field: str
    validate: Callable[[Any, FeatureLevel], None]
    lower: Callable[[Any, LoweringOptions], Lowering]


_REGISTRY: dict[type, OperatorDefinition] = {}


def register(definition: OperatorDefinition) -> None:
    """Registers an operator; each desc type once."""
    if definition.desc_type in _REGISTRY:
        raise ValueError(f"{definition.desc_type.__name__} is registered twice.")
    _REGISTRY[definition.desc_type] = definition


def _lookup(desc: Any) -> OperatorDefinition:
    definition = _REGISTRY.get(type(desc))
    if definition is None:
        known = ", ".join(sorted(t.__name__ for t in _REGISTRY))
        raise ArgumentTypeError(
            "compile_operator", "desc", f"an operator desc ({known})", type(desc).__name__
        )
    return definition


class CompiledOperator:
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
        definition: OperatorDefinition,
        options: LoweringOptions,
        *,
        donate_input: bool,
    ) -> None:
        self.desc = desc
        self.feature_level = options.feature_level
        self.deterministic = options.deterministic
        self.donate_input = donate_input
        self._op = type(desc).__name__
        self._inputs: tuple[tuple[str, TensorDesc], ...] = tuple(
            (field, getattr(desc, field)) for field in definition.input_fields
        )
        self.output_desc: TensorDesc = getattr(desc, definition.output_field)
        lowering = _through_buffers(
            definition.lower(desc, options),
            tuple(tensor for _, tensor in self._inputs),
            self.output_desc,
        )

        def checked(*arrays: Any, out_buffer: Any = None) -> jax.Array:
            # Run while jit traces: a second call with the same shapes checks nothing.
            return lowering(*self._check_arguments(arrays, out_buffer))

        self._checked = checked
        self._jitted = jax.jit(checked, donate_argnums=(0,) if donate_input else ())

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
        if self.output_desc.strides is None:
            raise InvalidArgumentError(
                self._op,
                "out_buffer",
                "None: only an output_tensor with strides is written into a buffer",
                f"an array for output_tensor {self.output_desc.sizes} without strides",
            )
        check_buffer_array(out_buffer, self.output_desc, op=self._op, field="out_buffer")
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

    def __call__(self, *arrays: Any, out_buffer: Any = None, **named: Any) -> jax.Array:
        if named:
            self._refuse_keywords(named)
        if all(is_concrete_array(x) for x in arrays):
            if out_buffer is None:
                return self._jitted(*arrays)
            return self._jitted(*arrays, out_buffer=out_buffer)
        if any(isinstance(x, Tracer) for x in (*arrays, out_buffer)):
            return self._checked(*arrays, out_buffer=out_buffer)  # inline in the caller's trace
        # NumPy arrays are checked as given: jit would first narrow 64-bit ones.
        self._check_arguments(arrays, out_buffer)
        return self._jitted(*arrays, out_buffer=out_buffer)

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
        self._check_arguments(arrays, out_buffer)
        return self._jitted.lower(*arrays, out_buffer=out_buffer)

    def __repr__(self) -> str:
        options = f"feature_level={self.feature_level}"
        if self.deterministic:
            options += ", deterministic=True"
        if self.donate_input:
            options += ", donate_input=True"
        return f"CompiledOperator({self.desc!r}, {options})"


def _through_buffers(
    lowering: Lowering, inputs: tuple[TensorDesc, ...], output: TensorDesc
) -> Lowering:
    """``lowering`` with strided inputs read from, and a strided output written to, buffers."""
    if output.strides is None and all(tensor.strides is None for tensor in inputs):
        return lowering

    def run(*arrays: jax.Array) -> jax.Array:
        logical = [
            x if tensor.strides is None else read_strided(x, tensor)
            for tensor, x in zip(inputs, arrays, strict=False)
        ]
        result = lowering(*logical)
        if output.strides is None:
            return result
        out_buffer = arrays[len(inputs)] if len(arrays) > len(inputs) else None
        return write_strided(result, output, out_buffer)

    return run


def compile_operator(
    desc: Any,
    *,
    feature_level: Any = FeatureLevel.LATEST,
    deterministic: bool = False,
    donate_input: bool = False,
) -> CompiledOperator:
    """Validates an operator desc, like DirectML's ``CompileOperator``, and lowers it.

    Checks the desc against the operator's support table at ``feature_level``
    and every rule on its DirectML page, including the output desc, then
    returns a jitted callable. Results are cached per desc and options.

    Args:
        desc: an operator desc, e.g. :class:`dmljax.TileOperatorDesc`.
        feature_level: the DirectML feature level to validate against.
        deterministic: make results DirectML leaves unspecified the same on
            every backend: for SCATTER with duplicate indices, the last update
            in row-major order wins. Other operators are deterministic anyway.
        donate_input: give the first input's buffer to the result, so that XLA
            can write the output in place (SCATTER without the operand copy).
            The caller must not use that array afterwards. Needs an output of
            the input's sizes and data type.

    Returns:
        A :class:`CompiledOperator`; call it with the input arrays.

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
    _lookup(desc)  # an unknown desc type fails before anything else is looked at
    op = type(desc).__name__
    level = FeatureLevel.coerce(feature_level, op=op)
    for name, flag in (("deterministic", deterministic), ("donate_input", donate_input)):
        if not isinstance(flag, bool):
            raise ArgumentTypeError(op, name, "a bool", repr(flag))
    options = LoweringOptions(feature_level=level, deterministic=deterministic)
    return _compile(desc, options, donate_input, x64_enabled())


def _layout(tensor: TensorDesc) -> str:
    strides = "" if tensor.strides is None else f", strides {tensor.strides}"
    return f"{tensor.data_type} {tensor.sizes}{strides}"


@functools.lru_cache(maxsize=1024)
def _compile(
    desc: Any, options: LoweringOptions, donate_input: bool, x64: bool
) -> CompiledOperator:
    # `x64` is part of the key: the jitted lowering and the dtype checks depend on it.
    del x64
    level = options.feature_level
    definition = _lookup(desc)
    op = type(desc).__name__
    tensors: dict[str, TensorDesc] = {
        field: getattr(desc, field) for field in (*definition.input_fields, definition.output_field)
    }
    definition.support.check(level, tensors, op=op)
    definition.validate(desc, level)
    for field, tensor in tensors.items():
        require_x64(tensor.data_type, op=op, field=f"{field}.data_type")
    output = tensors[definition.output_field]
    require_non_overlapping(output, op=op, field=definition.output_field)
    if donate_input:
        donated = tensors[definition.input_fields[0]]
        if donated != output:
            raise InvalidArgumentError(
                op,
                "donate_input",
                f"False: the output ({_layout(output)}) cannot reuse the buffer of "
                f"{definition.input_fields[0]} ({_layout(donated)})",
                True,
                hint="Donation needs the two tensor descs to be equal.",
            )
    return CompiledOperator(desc, definition, options, donate_input=donate_input)
