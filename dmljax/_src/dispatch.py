"""Calling a lowering: jitted when eager, inline when traced.

An eager call of an operator should cost one jitted call: its checks, which
depend only on shapes, dtypes and static values, run while :func:`jax.jit`
traces it, so a second call with the same signature runs none of them, and
JAX hashes the static values in C++. Inside a user's own ``jit``, ``vmap`` or
``grad`` the operator is traced inline instead, which spares XLA a nested
computation to compile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeGuard

import jax
from jax.core import Tracer

__all__ = ["Dispatch", "is_concrete_array", "is_int_tuple"]

_ONLY_INT = frozenset({int})
# Types seen to be concrete JAX arrays: a set lookup is cheaper than isinstance.
_CONCRETE_ARRAY_TYPES: set[type] = set()


def is_concrete_array(x: Any) -> TypeGuard[jax.Array]:
    """Whether ``x`` is a JAX array holding values (not a tracer, not a NumPy array)."""
    kind = type(x)
    if kind in _CONCRETE_ARRAY_TYPES:
        return True
    if isinstance(x, jax.Array) and not isinstance(x, Tracer):
        _CONCRETE_ARRAY_TYPES.add(kind)
        return True
    return False


def is_int_tuple(value: Any) -> bool:
    """Whether ``value`` is a tuple of Python ints (not bools): a static value JAX can hash
    and that needs no conversion."""
    return type(value) is tuple and _ONLY_INT.issuperset(map(type, value))


class Dispatch:
    """``checked(*arrays, *statics)``, jitted unless an array is a tracer, then inline.

    Args:
        checked: checks its arguments (raising dmljax's errors while tracing)
            and lowers the operator; its last ``static_count`` parameters are
            static (hashable Python values).
        static_count: how many trailing arguments are static.
        donate_argnums: arrays whose buffers an eager call donates.

    >>> import jax.numpy as jnp
    >>> double = Dispatch(lambda x, n: x * n, static_count=1)
    >>> double(jnp.arange(3), 2)
    Array([0, 2, 4], dtype=int32)
    """

    def __init__(
        self,
        checked: Callable[..., jax.Array],
        *,
        static_count: int,
        donate_argnums: tuple[int, ...] = (),
    ) -> None:
        self.checked = checked
        self._static_count = static_count
        self.jitted = jax.jit(
            checked,
            static_argnums=tuple(range(-static_count, 0)),
            donate_argnums=donate_argnums,
        )

    def __call__(self, *args: Any) -> jax.Array:
        for x in args[: len(args) - self._static_count]:
            if isinstance(x, Tracer):
                return self.checked(*args)
        return self.jitted(*args)
