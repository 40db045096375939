"""Exceptions raised by dmljax.

A violated DirectML rule raises :class:`InvalidArgumentError`, the analogue of
DirectML's ``E_INVALIDARG``. It is a :class:`ValueError`, so existing
``except ValueError`` code keeps working. A value of the wrong Python type (a
number where a tuple belongs) raises :class:`ArgumentTypeError`, a
:class:`TypeError`. Both carry the parts of their message as attributes, so
callers need not parse text:

>>> import jax.numpy as jnp
>>> import dmljax as dml
>>> try:
...     dml.tile(jnp.ones(2), repeats=(-1,))
... except dml.errors.InvalidArgumentError as e:
...     print(e)
dmljax.tile: repeats[0] must be a non-negative integer; got -1.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ArgumentError", "ArgumentTypeError", "InvalidArgumentError", "NarrowedIndicesWarning"]


def __dir__() -> list[str]:
    """Only the errors: ``dir(dmljax.errors)`` is what a user may import from it."""
    return sorted(__all__)


class ArgumentError(Exception):
    """Base of the errors dmljax raises for bad descs and arguments.

    Attributes:
        op: the operator or function that refused, e.g. ``"TileOperatorDesc"``
            or ``"dmljax.tile"``.
        field: the field or argument at fault, e.g. ``"repeats[1]"`` or
            ``"output_tensor.sizes"``.
        expected: what the rule requires, as a phrase that follows "must be".
        given: what was given.
        hint: what to do about it, where there is something to say.

    >>> import dmljax as dml
    >>> try:
    ...     dml.TensorDesc(data_type=dml.DataType.FLOAT32, sizes=(2, 0))
    ... except dml.errors.ArgumentError as e:
    ...     print(e.op, e.field, e.given)
    TensorDesc sizes[1] 0
    """

    def __init__(
        self, op: str, field: str, expected: str, given: Any, hint: str | None = None
    ) -> None:
        message = f"{op}: {field} must be {expected}; got {given}."
        super().__init__(f"{message} {hint}" if hint else message)
        self.op = op
        self.field = field
        self.expected = expected
        self.given = given
        self.hint = hint

    def __reduce__(self) -> tuple[Any, ...]:
        # Exceptions pickle through `args`, which holds only the message here.
        return (type(self), (self.op, self.field, self.expected, self.given, self.hint))


class InvalidArgumentError(ArgumentError, ValueError):
    """A desc, an argument or a value breaks a DirectML rule (``E_INVALIDARG``).

    >>> import jax.numpy as jnp, dmljax as dml
    >>> try:
    ...     dml.gather(jnp.ones(3), jnp.array([0.5]), axis=0)
    ... except ValueError as e:  # an InvalidArgumentError is a ValueError
    ...     print(type(e).__name__, e.field)
    InvalidArgumentError indices
    """


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument has the wrong Python type, e.g. an ``int`` where a tuple belongs.

    >>> import dmljax as dml
    >>> try:
    ...     dml.compile_operator("DML_OPERATOR_TILE")
    ... except TypeError as e:  # an ArgumentTypeError is a TypeError
    ...     print(type(e).__name__, e.field)
    ArgumentTypeError desc
    """


class NarrowedIndicesWarning(UserWarning):
    """64-bit NumPy indices whose values a :func:`jax.jit` boundary would wrap to 32 bits.

    dmljax saturates them while ``jax_enable_x64`` is off, which keeps out-of-range
    indices out of range; a ``jax.jit`` around the call converts them first and wraps
    them (``2**32 + 1`` becomes ``1``), which dmljax cannot see.

    >>> import warnings, numpy as np, jax.numpy as jnp, dmljax as dml
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     dml.gather(jnp.arange(3.0), np.array([2**32 + 1]), axis=0)
    Array([2.], dtype=float32)
    >>> caught[0].category.__name__
    'NarrowedIndicesWarning'
    """
