"""What ``tests/conftest.py`` changes for speed leaves the programs as they were."""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import pytest
from jax._src.interpreters import mlir

import dmljax as dml
from tests.conftest import SharedIrContexts


def _fresh_contexts() -> Callable[[], Any]:
    """What makes each lowering a new MLIR context, in this JAX."""
    shared = mlir.make_ir_context
    if isinstance(shared, SharedIrContexts):  # JAX 0.10, as the tests set it up
        return shared.make
    return mlir._create_ir_context  # pyright: ignore  # JAX 0.11 shares in make_ir_context


def _lowered_texts() -> list[str]:
    """A few modules as text, lowered anew (JAX caches lowerings, so they are dropped)."""
    jax.clear_caches()
    x = jnp.arange(12.0).reshape(3, 4)
    functions = [
        lambda x: jnp.sin(x) * 2 + 1,
        lambda x: dml.gather(x, jnp.array([[2, 0]]), axis=0),
        lambda x: dml.reduce(x, "sum_square", axes=(1,)),
        lambda x: jax.grad(lambda y: dml.cumsum(y, axis=1).sum())(x),
    ]
    return [jax.jit(f).lower(x).as_text() for f in functions]


def test_the_tests_lowerings_share_mlir_contexts():
    contexts = [mlir.make_ir_context() for _ in range(3)]
    # Three in a row: at most one of them starts a new context.
    assert contexts[0] is contexts[1] or contexts[1] is contexts[2]


def test_a_module_lowered_in_a_shared_context_is_the_one_lowered_in_a_fresh_one(
    monkeypatch: pytest.MonkeyPatch,
):
    fresh = _fresh_contexts()
    monkeypatch.setattr(mlir, "make_ir_context", fresh)
    alone = _lowered_texts()
    shared = SharedIrContexts(fresh, lowerings=3)
    monkeypatch.setattr(mlir, "make_ir_context", shared)
    assert _lowered_texts() == alone
    assert shared.served > 0  # the texts were lowered anew, in the shared contexts


def test_a_shared_context_is_renewed_after_its_lowerings():
    contexts = SharedIrContexts(object, lowerings=2)
    first = contexts()
    assert contexts() is first
    third = contexts()
    assert third is not first
    assert contexts() is third
