"""Size guards that hold for the batched result: under jax.vmap a face sees one example,
and a batched result past 2**63 bytes used to abort the interpreter inside XLA.

The hostile calls run in a subprocess, so that a regression fails one test instead of
killing the test run.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from dmljax._src.checking import selftest, sweeps
from dmljax._src.checking.operators import all_checks
from tests import helpers

_SCRIPT = r"""
import jax, jax.numpy as jnp, dmljax as dml
from dmljax._src import rules
rules.device_memory = lambda: None  # the guard of XLA's sizes alone, whatever the host holds
cases = {
    "tile": lambda: jax.vmap(lambda a: dml.tile(a, (2**61 - 1,)))(jnp.ones((2, 1))),
    "tile nested": lambda: jax.vmap(jax.vmap(lambda a: dml.tile(a, (2**59,))))(
        jnp.ones((4, 4, 1))),
    "pad": lambda: jax.vmap(lambda a: dml.pad(a, (0,), (2**61 - 2,)))(jnp.ones((4, 1))),
    # Shapes only (jax.eval_shape): the inputs that would overflow are themselves too big.
    "one_hot": lambda: jax.eval_shape(
        jax.vmap(lambda i: dml.one_hot(i, jnp.array([0.0, 1.0]), depth=2**31 - 1)),
        jax.ShapeDtypeStruct((2**16, 2**16), jnp.int32)),
    "one_hot values batched": lambda: jax.eval_shape(
        jax.vmap(lambda v: dml.one_hot(jnp.zeros((2**16,), jnp.int32), v, depth=2**31 - 1)),
        jax.ShapeDtypeStruct((2**16, 2), jnp.float32)),
    "slice_grad": lambda: jax.vmap(lambda d: dml.slice_grad(
        d, (2**60,), offsets=(0,), sizes=(1,), strides=(1,)))(jnp.ones((8, 1))),
}
"""


def test_batched_results_past_xlas_sizes_are_refused_under_vmap():
    found = helpers.refusals_in_a_subprocess(_SCRIPT, timeout=300)
    fields = {"tile": "repeats", "tile nested": "repeats", "pad": "start_padding, end_padding",
              "one_hot": "depth", "one_hot values batched": "depth",
              "slice_grad": "input_sizes"}  # fmt: skip
    assert {name: (error, field, "batched" in message)
            for name, (error, field, message) in found.items()} == {
        name: ("InvalidArgumentError", field, True) for name, field in fields.items()
    }  # fmt: skip


def test_the_guard_costs_nothing_and_keeps_gradients():
    x = jnp.arange(3.0)
    batched = jax.vmap(lambda a: dml.tile(a, (2,)))(jnp.stack([x, x + 1]))
    np.testing.assert_array_equal(batched, jnp.stack([jnp.tile(x, 2), jnp.tile(x + 1, 2)]))
    nested = jax.vmap(jax.vmap(lambda a: dml.pad(a, (1,), (1,))))(jnp.ones((2, 3, 4)))
    assert nested.shape == (2, 3, 6)
    grad = jax.vmap(jax.grad(lambda a: dml.tile(a, (3,)).sum()))(jnp.ones((2, 3)))
    np.testing.assert_array_equal(grad, jnp.full((2, 3), 3.0))
    np.testing.assert_array_equal(jax.jacfwd(lambda a: dml.tile(a, (2,)))(x),
                                  jax.jacrev(lambda a: dml.tile(a, (2,)))(x))  # fmt: skip
    text = jax.jit(jax.vmap(lambda a: dml.tile(a, (2,)))).lower(jnp.ones((2, 3))).as_text()
    assert "custom" not in text  # the probe is not compiled


def test_the_size_guards_let_symbolic_batches_export():
    (b,) = jax.export.symbolic_shape("b")
    faces = {
        "tile": (lambda x: dml.tile(x, (1, 2)), jax.ShapeDtypeStruct((b, 3), jnp.float32)),
        "pad": (lambda x: dml.pad(x, (1, 0), (1, 0)), jax.ShapeDtypeStruct((b, 3), jnp.float32)),
        "one_hot": (
            lambda i: dml.one_hot(i, jnp.array([0.0, 1.0]), depth=4),
            jax.ShapeDtypeStruct((b,), jnp.int32),
        ),
    }
    for name, (fn, spec) in faces.items():
        exported = jax.export.export(jax.jit(fn))(spec)
        concrete = jnp.zeros((5, *spec.shape[1:]), spec.dtype)
        np.testing.assert_array_equal(exported.call(concrete), fn(concrete), err_msg=name)


_SWEPT = [c for c in all_checks().values() if c.sweep is not None]


@pytest.mark.parametrize("checks", _SWEPT, ids=lambda c: c.operator.name)
def test_every_functional_face_exports_with_a_symbolic_batch(checks):
    # Draws of four kinds of dtype (a float, bfloat16, a narrow and an unsigned integer),
    # vmapped over a batch whose size jax.export leaves symbolic.
    (b,) = jax.export.symbolic_shape("b")
    dtypes = [d for d in sweeps.DATA_DTYPES[::2] if checks.face_takes(d)]
    runs, calls = [], []
    for seed, dtype in enumerate(checks.drawn(dtypes)):
        case = checks.sweep(np.random.default_rng(seed), dtype)
        if not case.batch[0]:
            pytest.skip("a generator takes no array: nothing has a batch to leave symbolic")
        stacked = [np.stack(arrays) for arrays in zip(*case.batch, strict=True)]
        specs = [jax.ShapeDtypeStruct((b, *a.shape[1:]), a.dtype) for a in stacked]
        batched = jax.vmap(case.fn)
        exported = jax.export.export(jax.jit(batched))(*specs)
        runs.append(case.label)
        calls += [(exported.call, stacked), (batched, stacked)]
    # The direct calls' values are the reference's in the sweeps.
    outs = selftest.in_one_program(calls)
    for label, got, want in zip(runs, outs[::2], outs[1::2], strict=True):
        for out, expected in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            np.testing.assert_array_equal(out, expected, err_msg=label)


def test_results_beyond_the_devices_memory_are_refused_before_allocation(monkeypatch):
    from dmljax._src import rules

    monkeypatch.setattr(rules, "device_memory", lambda: 2**20)  # a 1 MiB device
    x = jnp.ones((2, 3))
    with pytest.raises(dml.errors.InvalidArgumentError, match=r"memory of the \w+ devices") as e:
        dml.tile(x, (1, 2**16))
    assert e.value.field == "repeats"
    assert "(1572864 bytes)" in str(e.value)
    assert dml.tile(x, (1, 2**10)).shape == (2, 3 * 2**10)  # 24 KiB
    with pytest.raises(dml.errors.InvalidArgumentError, match="batched 64 times"):
        jax.vmap(lambda a: dml.tile(a, (2**5, 2**5)))(jnp.ones((64, 2, 3)))  # 24 KiB each
    helpers.refused(
        lambda: dml.pad(x, (0, 2**20), (0, 0)), field="start_padding, end_padding", match="memory"
    )
    assert dml.tile(jnp.ones((0, 3)), (2**40, 1)).shape == (0, 3)  # empty: no bytes at all


def test_the_desc_face_refuses_an_output_beyond_the_devices_memory_when_compiled(monkeypatch):
    from dmljax._src import rules

    monkeypatch.setattr(rules, "device_memory", lambda: 2**20)
    u32 = dml.DataType.UINT32
    # DirectML's element limit still allows 2**32 - 1 elements, 16 GiB of UINT32.
    big = dml.TensorDesc(data_type=u32, sizes=(2**16, 2**16 - 1))
    desc = dml.TileOperatorDesc(
        input_tensor=dml.TensorDesc(data_type=u32, sizes=(1, 2**16 - 1)),
        output_tensor=big,
        repeats=(2**16, 1),
    )
    with pytest.raises(dml.errors.InvalidArgumentError, match="memory") as e:
        dml.compile_operator(desc)
    assert e.value.field == "output_tensor.sizes"
    assert f"({big.total_tensor_size_in_bytes} bytes)" in str(e.value)
