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

from dmljax._src.dtypes import require_x64, x64_enabled
from dmljax._src.feature_levels import FeatureLevel, OperatorSupport
from dmljax._src.rules import check_bound_array
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

    The call checks each array's shape and dtype against its TensorDesc (while
    tracing, so also under ``jit`` and ``vmap``) and runs the jitted lowering.

    Attributes:
        desc: the operator desc it was compiled from.
        feature_level: the feature level it was validated at.
        deterministic: whether unspecified results are made the same everywhere.
        donate_input: whether the first input's buffer is given to the result.
        output_desc: the TensorDesc of the result.
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
        self._jitted = jax.jit(
            definition.lower(desc, options), donate_argnums=(0,) if donate_input else ()
        )

    def _check_arguments(self, arrays: tuple[Any, ...]) -> None:
        if len(arrays) != len(self._inputs):
            names = ", ".join(field for field, _ in self._inputs)
            raise ArgumentTypeError(
                self._op, "arguments", f"{len(self._inputs)} arrays ({names})", len(arrays)
            )
        for (field, tensor), x in zip(self._inputs, arrays, strict=True):
            check_bound_array(x, tensor, op=self._op, field=field)

    def __call__(self, *arrays: Any) -> jax.Array:
        self._check_arguments(arrays)
        return self._jitted(*arrays)

    def lower(self, *arrays: Any) -> Any:
        """``jax.jit(...).lower`` of the operator for these arrays (to inspect its HLO)."""
        self._check_arguments(arrays)
        return self._jitted.lower(*arrays)

    def __repr__(self) -> str:
        options = f"feature_level={self.feature_level}"
        if self.deterministic:
            options += ", deterministic=True"
        if self.donate_input:
            options += ", donate_input=True"
        return f"CompiledOperator({self.desc!r}, {options})"


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
    level = FeatureLevel.coerce(feature_level, op="compile_operator")
    for name, flag in (("deterministic", deterministic), ("donate_input", donate_input)):
        if not isinstance(flag, bool):
            raise ArgumentTypeError("compile_operator", name, "a bool", repr(flag))
    options = LoweringOptions(feature_level=level, deterministic=deterministic)
    return _compile(desc, options, donate_input, x64_enabled())


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
        if tensor.strides is not None:
            raise InvalidArgumentError(
                op,
                f"{field}.strides",
                "None: strided buffer tensors are not supported yet",
                tensor.strides,
                hint="Pass packed (row-major) tensors without strides.",
            )
        require_x64(tensor.data_type, op=op, field=f"{field}.data_type")
    if donate_input:
        donated = tensors[definition.input_fields[0]]
        output = tensors[definition.output_field]
        if (donated.sizes, donated.data_type) != (output.sizes, output.data_type):
            raise InvalidArgumentError(
                op,
                "donate_input",
                f"False: the output ({output.sizes}, {output.data_type}) cannot reuse the "
                f"buffer of {definition.input_fields[0]} ({donated.sizes}, {donated.data_type})",
                True,
            )
    return CompiledOperator(desc, definition, options, donate_input=donate_input)
