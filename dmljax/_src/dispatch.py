"""Eager calls of the functional faces at the cost of one jitted call.

A functional face validates its arguments in Python before it calls the
jitted lowering, which on small arrays costs as much as the call itself. The
validation depends only on the arguments' types, shapes and dtypes and on the
static values (axis, repeats, ...), so its outcome is remembered per such
*signature*: a second call with the same signature goes straight to the
jitted function. Only JAX arrays (and tracers) with plain static values
(ints, strs, bools, tuples of ints) have a signature; anything else (NumPy
arrays, which the faces may convert, lists, NumPy scalars) is validated every
time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import Any

import jax
from jax.core import Tracer

from dmljax._src.dtypes import x64_enabled

__all__ = ["ValidatedCalls", "jitted_with"]

_STATIC_SCALARS = frozenset({int, str, bool, type(None)})
# Types seen to be JAX arrays or tracers: a set lookup is cheaper than isinstance.
_ARRAY_TYPES: set[type] = set()


class ValidatedCalls:
    """The validated calls of one functional face, by argument signature.

    Args:
        validate: checks the arguments ``(arrays, statics)`` and returns the
            callable to run and the arrays to pass it (possibly converted).
        maxsize: signatures kept; the cache is emptied when it fills up.
    """

    def __init__(
        self,
        validate: Callable[..., tuple[Callable[..., jax.Array], tuple[Any, ...]]],
        maxsize: int = 4096,
    ) -> None:
        self._validate = validate
        self._maxsize = maxsize
        self._calls: dict[Hashable, Callable[..., jax.Array]] = {}

    def _signature(self, arrays: tuple[Any, ...], statics: tuple[Any, ...]) -> Hashable | None:
        # Flat, to be cheap to build and hash. Scalars are tagged with their type, which
        # keeps True apart from 1 (equal and equally hashed, but not equally valid);
        # a type never occurs inside a tuple of ints, so no two signatures collide.
        key: list[Hashable] = [x64_enabled()]
        for x in arrays:
            kind = type(x)
            if kind not in _ARRAY_TYPES:
                if not isinstance(x, jax.Array | Tracer):
                    return None
                _ARRAY_TYPES.add(kind)
            key += (kind, x.shape, x.dtype)
        for value in statics:
            kind = type(value)
            if kind in _STATIC_SCALARS:
                key += (kind, value)
            elif kind is tuple and all(type(v) is int for v in value):
                key.append(value)
            else:
                return None
        return tuple(key)

    def __call__(self, arrays: tuple[Any, ...], statics: tuple[Any, ...]) -> jax.Array:
        signature = self._signature(arrays, statics)
        call = self._calls.get(signature) if signature is not None else None
        if call is not None:
            return call(*arrays)
        call, checked = self._validate(arrays, statics)
        unchanged = all(a is b for a, b in zip(arrays, checked, strict=True))
        if signature is not None and unchanged:
            if len(self._calls) >= self._maxsize:
                self._calls.clear()
            self._calls[signature] = call
        return call(*checked)


@functools.lru_cache(maxsize=4096)
def jitted_with(lowering: Callable[..., jax.Array], **statics: Any) -> Callable[..., jax.Array]:
    """``jax.jit`` of ``lowering`` with its static keyword arguments bound.

    One jitted function per static configuration, called with the arrays
    alone: JAX's fastest dispatch path, with no static arguments to hash.
    """
    return jax.jit(functools.partial(lowering, **statics))
