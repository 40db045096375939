"""The operator contract: what every DirectML operator declares, once.

An operator module (``dmljax/_src/ops/<name>.py``) declares:

* its desc, an :class:`OperatorDesc` dataclass whose fields say their role
  (:func:`tensor_field` for input and output tensors, tuples of tensors and
  optional tensors; :func:`attribute` for the rest, with the function that
  coerces it);
* one :class:`Operator`: DirectML's operator name, the desc type, the support
  table (a ``feature_levels.band`` per feature level), the rules beyond the table, the
  output sizes, the lowering and the functional face (:mod:`dmljax._src.face`).

:func:`dmljax.compile_operator` validates a desc against its operator
(:meth:`Operator.validate`) and runs the lowering through the face module's
:class:`~dmljax._src.face.Dispatch`, the one call path of both faces.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar, TypeVarTuple

from dmljax._src.face import FunctionalFace
from dmljax._src.feature_levels import (
    Band,
    ByAttribute,
    FeatureLevel,
    OperatorSupport,
    SupportBand,
    TensorSupport,
    widest,
)
from dmljax._src.rules import (
    require_same_data_type,
    require_same_dimension_count,
    require_sizes,
    require_tensor_desc,
)
from dmljax._src.tensor_desc import TensorDesc
from dmljax.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "Lowering",
    "LoweringOptions",
    "Operator",
    "OperatorDesc",
    "Role",
    "attribute",
    "bound_tensors",
    "support_table",
    "tensor_field",
    "tensor_fields",
]

Lowering = Callable[..., Any]
"""A pure JAX function of an operator's input arrays (its output, or a tuple of outputs)."""

# --- Desc fields and their roles --------------------------------------------------------------


class Role(enum.Enum):
    """What a desc field is to DirectML."""

    INPUT = "input"
    OUTPUT = "output"
    ATTRIBUTE = "attribute"


def tensor_field(
    role: Role | str, *, many: bool = False, default: Any = dataclasses.MISSING
) -> Any:
    """A desc field holding a TensorDesc: an input or an output of the operator.

    ``many=True`` holds a tuple of TensorDescs (JOIN's inputs, SPLIT's outputs),
    each bound to its own array; ``default=None`` makes the tensor optional
    (left None, no array is bound to it).

    >>> class CopyDesc(OperatorDesc):
    ...     input_tensor: TensorDesc = tensor_field("input")
    ...     output_tensor: TensorDesc = tensor_field("output")
    >>> [field.name for field in tensor_fields(CopyDesc, Role.OUTPUT)]
    ['output_tensor']
    """
    if default not in (None, dataclasses.MISSING):
        raise TypeError("a tensor field's default can only be None (an optional tensor)")
    metadata = {"role": Role(role), "many": many, "optional": default is None}
    return dataclasses.field(default=default, metadata=metadata)


def attribute(coerce: Callable[..., Any], *, default: Any = dataclasses.MISSING) -> Any:
    """A desc field that is no tensor: ``coerce(value, op=, field=)`` checks and converts it.

    Pass ``default=...`` for an attribute DirectML lets be left out.
    """
    return dataclasses.field(default=default, metadata={"role": Role.ATTRIBUTE, "coerce": coerce})


def _role(field: dataclasses.Field[Any]) -> Role:
    role = field.metadata.get("role")
    if role is None:
        raise TypeError(f"desc field {field.name!r} declares no role (use tensor_field/attribute)")
    return role


def tensor_fields(desc_type: type, role: Role | None = None) -> tuple[dataclasses.Field[Any], ...]:
    """The tensor fields of a desc type, in declaration order (DirectML's binding order)."""
    return tuple(
        field
        for field in dataclasses.fields(desc_type)
        if _role(field) is not Role.ATTRIBUTE and (role is None or _role(field) is role)
    )


def bound_tensors(
    desc: Any, role: Role | None = None, *, fields: Sequence[str] | None = None
) -> tuple[tuple[str, TensorDesc], ...]:
    """The tensors of ``desc`` in one role (all if None), or of the named ``fields``, each
    labelled as errors name it, in the desc's order.

    A tuple field gives one entry per element (``input_tensors[1]``); an
    optional field left None gives none.
    """
    return tuple(
        (label, tensor)
        for field, label, tensor in _labelled(desc, role)
        if fields is None or field in fields
    )


def _labelled(desc: Any, role: Role | None = None) -> Iterator[tuple[str, str, TensorDesc]]:
    """``(field, label, tensor)`` for each tensor of ``desc`` in ``role`` (all roles if None)."""
    for field in tensor_fields(type(desc), role):
        name = field.name
        value = getattr(desc, name)
        if field.metadata["many"]:
            for i, tensor in enumerate(value):
                yield name, f"{name}[{i}]", tensor
        elif value is not None:
            yield name, name, value


Result = TypeVar("Result")
"""What a compiled operator returns: an array, or a tuple of them (SPLIT)."""
Inputs = TypeVarTuple("Inputs")
"""The arrays a compiled operator takes, in DirectML's binding order."""


@typing.dataclass_transform(
    kw_only_default=True, frozen_default=True, field_specifiers=(tensor_field, attribute)
)
class OperatorDesc(Generic[Result, *Inputs]):
    """Base of every operator desc: a frozen, keyword-only dataclass that checks and
    coerces each field by its declared role.

    A subclass is made a dataclass by inheriting (no decorator). Tensor fields
    must hold TensorDescs (a tuple of them for ``many``, None allowed for an
    optional one); attributes go through their ``coerce``. A desc holds no
    arrays: it is hashable and can be a static argument.

    The type parameters declare what the compiled operator returns and the
    arrays it is called with, in DirectML's binding order, so that type checkers
    know each :func:`dmljax.compile_operator` result:
    ``class TileOperatorDesc(OperatorDesc[jax.Array, ArrayLike])``.
    """

    if typing.TYPE_CHECKING:  # a dataclass once subclassed
        __dataclass_fields__: typing.ClassVar[dict[str, dataclasses.Field[Any]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(frozen=True, kw_only=True)(cls)

    def __post_init__(self) -> None:
        op = type(self).__name__
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            role = _role(field)
            if role is Role.ATTRIBUTE:
                value = field.metadata["coerce"](value, op=op, field=field.name)
            elif field.metadata["many"]:
                value = _tensor_tuple(value, op=op, field=field.name)
            elif not (field.metadata["optional"] and value is None):
                require_tensor_desc(value, op=op, field=field.name)
            object.__setattr__(self, field.name, value)


def _tensor_tuple(value: Any, *, op: str, field: str) -> tuple[TensorDesc, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise ArgumentTypeError(op, field, "a tuple of dmljax.TensorDesc", type(value).__name__)
    return tuple(
        require_tensor_desc(tensor, op=op, field=f"{field}[{i}]") for i, tensor in enumerate(value)
    )


# --- Support tables -----------------------------------------------------------------------------


def support_table(name: str, desc_type: type, bands: Sequence[Band]) -> OperatorSupport:
    """``bands`` matched to ``desc_type``'s tensor fields: the table
    :meth:`Operator.validate` checks (and, for an operator with a table per attribute
    value, each of those its rules check)."""
    fields = [field.name for field in tensor_fields(desc_type)]
    for row in bands:
        unknown = set(row.fields) - set(fields)
        if unknown:
            raise TypeError(f"{name}: the support table names fields {unknown} the desc lacks")
    return OperatorSupport(
        name,
        tuple(
            SupportBand(
                row.since,
                {f: TensorSupport(row.ranks, row.fields.get(f, row.data)) for f in fields},
            )
            for row in bands
        ),
    )


# --- The operator -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class LoweringOptions:
    """What a lowering may depend on besides the desc.

    Attributes:
        feature_level: the level the desc was validated at (index rules depend on it).
        deterministic: whether a result DirectML leaves unspecified (the winner
            among duplicate scatter indices) must be the same on every backend.
        allow_half_precision: DirectML's
            ``DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION``: a product may
            take the backend's faster precision (TF32 on a GPU), not float32's.
    """

    feature_level: FeatureLevel
    deterministic: bool = False
    allow_half_precision: bool = False


D = TypeVar("D", bound=OperatorDesc)


class Operator(Generic[D]):
    """Everything dmljax knows about one DirectML operator, declared once in its module.

    Every argument up to ``face`` is required, so that each declaration answers every
    question in the same order (None where an operator has no such part); an operator
    without a face names the one that serves it (``served_by``). What checks and
    measures the operator (its doc examples, selftest sweep and bench cases) is
    declared in its companion, :mod:`dmljax._src.checking.operators`, off the
    runtime's import path.

    Attributes:
        name: DirectML's name, e.g. ``"DML_OPERATOR_GATHER"``.
        desc_type: the desc dataclass, e.g. :class:`dmljax.GatherOperatorDesc`.
        support: the support table per feature level (ranks and data types of
            each tensor field), from the operator's DirectML page; where the page
            gives one table per value of an attribute (REDUCE's Function), the
            widest of them (:func:`~dmljax._src.feature_levels.widest`), and
            ``support_by`` holds them.
        support_by: ``(field, {values: table})`` where an attribute picks the table
            (declared as a :class:`~dmljax._src.feature_levels.ByAttribute`), or None.
        same_dimension_count: whether every tensor must have the same
            DimensionCount (checked before ``rules``).
        same_data_type: the tensor fields that must have the data type of the
            first of them, in the desc's order (checked after ``rules``).
        rules: checks every rule beyond the table; raises InvalidArgumentError.
        output_sizes: the output's sizes for a desc and why, when the desc
            fixes them (None where ``rules`` checks a range of sizes).
        lower: the pure JAX function of the input arrays for a valid desc.
        face: the :class:`FunctionalFace` (its public function, dispatch and
            jitted program), or None for an operator with no functional face.
        served_by: for an operator without a face of its own, DirectML's name of
            the operator whose functional face runs this one's lowering (SLICE is
            :func:`dmljax.slice1`'s): that face's sweep and bench cover it.
        aliases: DirectML's other names for the operator (SCATTER is also
            ``DML_OPERATOR_SCATTER_ELEMENTS``); its pages and models may use them.
        input_fields, output_fields: the desc's tensor fields by role.

    >>> import dmljax as dml
    >>> gather = next(op for op in dml.OPERATORS if op.name == "DML_OPERATOR_GATHER")
    >>> gather.input_fields, gather.function
    (('input_tensor', 'indices_tensor'), <function gather at ...>)
    """

    def __init__(
        self,
        name: str,
        desc_type: type[D],
        *,
        support: Sequence[Band] | ByAttribute,
        same_dimension_count: bool,
        same_data_type: tuple[str, ...],
        rules: Callable[[D, FeatureLevel], None],
        output_sizes: Callable[[D], tuple[tuple[int, ...], str]] | None,
        lower: Callable[[D, LoweringOptions], Lowering],
        face: FunctionalFace | None,
        served_by: str | None = None,
        aliases: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.desc_type = desc_type
        self.support_by: tuple[str, dict[tuple[Any, ...], OperatorSupport]] | None = None
        if isinstance(support, ByAttribute):
            self.support_by = (
                support.field,
                {
                    values: support_table(name, desc_type, bands)
                    for values, bands in support.tables.items()
                },
            )
            support = widest(*support.tables.values())
        self.support = support_table(name, desc_type, support)
        self.same_dimension_count = same_dimension_count
        self.same_data_type = same_data_type
        self.rules = rules
        self.lower = lower
        self.output_sizes = output_sizes
        self.face = face
        self.served_by = served_by
        self.aliases = aliases
        if (face is None) == (served_by is None):
            raise TypeError(f"{name}: declare a face, or the operator whose face serves it")
        self.input_fields = tuple(f.name for f in tensor_fields(desc_type, Role.INPUT))
        self.output_fields = tuple(f.name for f in tensor_fields(desc_type, Role.OUTPUT))
        unknown = set(same_data_type) - {*self.input_fields, *self.output_fields}
        if unknown:
            raise TypeError(f"{name}: same_data_type names fields {unknown} the desc lacks")

    @property
    def function(self) -> Callable[..., Any] | None:
        """The functional face's public function (e.g. :func:`dmljax.gather`), or None."""
        return None if self.face is None else self.face.function

    def validate(self, desc: D, level: FeatureLevel) -> None:
        """Every rule of the operator's page at ``level``: the table, the rules, the sizes."""
        op = type(desc).__name__
        table, under = self.support_for(desc)
        table.check(level, list(_labelled(desc)), op=op, under=under)
        for field, tensor in bound_tensors(desc, Role.OUTPUT):
            if tensor.flags:
                raise InvalidArgumentError(
                    op, f"{field}.flags", "TensorFlags.NONE (OWNED_BY_DML is for inputs only)",
                    repr(tensor.flags),
                )  # fmt: skip
        if self.same_dimension_count:
            require_same_dimension_count(op, bound_tensors(desc))
        self.rules(desc, level)
        if self.same_data_type:
            require_same_data_type(op, bound_tensors(desc, fields=self.same_data_type))
        if self.output_sizes is not None:
            expected, why = self.output_sizes(desc)
            (field,) = self.output_fields
            require_sizes(op, field, getattr(desc, field), expected, why)

    def support_for(self, desc: D) -> tuple[OperatorSupport, str]:
        """The table ``desc`` is checked against, and what picked it (``" with function
        SUM"``, or ``""`` where the operator has one table)."""
        if self.support_by is None:
            return self.support, ""
        field, tables = self.support_by
        value = getattr(desc, field)
        table = next(table for values, table in tables.items() if value in values)
        return table, f" with {field} {value}"

    def __repr__(self) -> str:
        return f"Operator({self.name}, {self.desc_type.__name__})"
