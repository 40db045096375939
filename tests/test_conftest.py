"""What ``tests/conftest.py`` changes for speed leaves the programs as they were."""

import jax
import jax.numpy as jnp
import pytest
from jax._src.interpreters import mlir

import dmljax as dml
from tests.conftest import SharedIrContexts


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


def _fresh():
    """JAX's own ``make_ir_context``, which the shared contexts call."""
    shared = mlir.make_ir_context
    assert isinstance(shared, SharedIrContexts)
    return shared.make


def test_the_tests_share_mlir_contexts():
    assert isinstance(mlir.make_ir_context, SharedIrContexts)


def test_a_module_lowered_in_a_shared_context_is_the_one_lowered_in_a_fresh_one(
    monkeypatch: pytest.MonkeyPatch,
):
    make = _fresh()
    monkeypatch.setattr(mlir, "make_ir_context", make)
    fresh = _lowered_texts()
    contexts = SharedIrContexts(make, lowerings=3)
    monkeypatch.setattr(mlir, "make_ir_context", contexts)
    assert _lowered_texts() == fresh
    assert contexts.served > 0  # the texts were lowered anew, in the shared contexts


def test_a_shared_context_is_renewed_after_its_lowerings():
    contexts = SharedIrContexts(_fresh(), lowerings=2)
    first = contexts()
    assert contexts() is first
    third = contexts()
    assert third is not first
    assert contexts() is third
