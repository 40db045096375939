"""jax.export with a symbolic dimension on the axis an operator indexes, not only on a batch.

Each export runs on concrete arrays and must equal the direct call (negative and
out-of-range indices included); a rule that a symbol's constraints do not decide is an
InvalidArgumentError that names the function and says how to bound the symbol.
"""

import jax
import numpy as np
import pytest

import dmljax as dml
from dmljax._src.checking import selftest
from dmljax._src.checking.operators import all_checks

F32, I32 = np.float32, np.int32
X = np.random.default_rng(0).standard_normal((5, 3)).astype(F32)
ROWS = np.array([[4, -1, 9], [4, 2, -6]], I32)  # in range, negative, beyond; a duplicate

ALONG_A_SYMBOLIC_AXIS = {
    "gather": (lambda x, i: dml.gather(x, i, axis=0), np.array([4, -1, 7, -9, 0], I32)),
    "gather uint32": (lambda x, i: dml.gather(x, i, axis=0), np.array([3, 0, 9], np.uint32)),
    "gather_elements": (lambda x, i: dml.gather_elements(x, i, axis=0), ROWS),
    "scatter": (lambda x, i: dml.scatter(x, i, np.ones((2, 3), F32), axis=0), ROWS),
    "scatter add": (
        lambda x, i: dml.scatter(x, i, np.ones((2, 3), F32), axis=0, reduction="add"),
        ROWS,
    ),
    "scatter deterministic": (
        lambda x, i: dml.scatter(x, i, ROWS.astype(F32), axis=0, deterministic=True),
        ROWS,
    ),
    "gather_nd": (lambda x, i: dml.gather_nd(x, i), np.array([[4, 2], [-1, 0], [9, 1]], I32)),
    "scatter_nd": (
        lambda x, i: dml.scatter_nd(x, i, np.ones((3, 3), F32)),
        np.array([[4], [-1], [9]], I32),
    ),
    "reverse_subsequences": (
        lambda x, lengths: dml.reverse_subsequences(x, lengths, axis=0),
        np.array([[5, 2, 0]], I32),
    ),
}


def _export(fn, *specs):
    return jax.export.export(jax.jit(fn))(*specs)


@pytest.mark.parametrize("name", ALONG_A_SYMBOLIC_AXIS)
def test_indexing_along_a_symbolic_axis_exports_and_runs(name):
    fn, indices = ALONG_A_SYMBOLIC_AXIS[name]
    (b,) = jax.export.symbolic_shape("b")
    exported = _export(fn, jax.ShapeDtypeStruct((b, 3), F32),
                       jax.ShapeDtypeStruct(indices.shape, indices.dtype))  # fmt: skip
    for rows in (5, 2):  # one export, two sizes: the indices past 2 drop or clamp there
        np.testing.assert_array_equal(exported.call(X[:rows], indices), fn(X[:rows], indices))


def test_a_constraint_decides_a_window_rule():
    (b,) = jax.export.symbolic_shape("b", constraints=("b >= 2",))

    def window(x):
        return dml.slice1(x, offsets=(0, 0), sizes=(2, 3), strides=(1, 1))

    exported = _export(window, jax.ShapeDtypeStruct((b, 3), F32))
    np.testing.assert_array_equal(exported.call(X), window(X))


UNDECIDED = {
    "slice1": (
        lambda x: dml.slice1(x, offsets=(0, 0), sizes=(2, 3), strides=(1, 1)),
        ("dmljax.slice1", "'b' < '2'", 'constraints=("b >= 2",)'),
    ),
    "slice_grad": (
        lambda x: dml.slice_grad(x, (8, 3), offsets=(0, 0), sizes=(4, 3), strides=(1, 1)),
        ("dmljax.slice_grad", "symbolic dimension", "constraints="),
    ),
    "pad reflection": (  # reflection needs 2 elements: b >= 1 does not say so
        lambda x: dml.pad(x, (1, 0), (1, 0), mode="reflection"),
        ("dmljax.pad", "'b' < '2'", "constraints="),
    ),
}


@pytest.mark.parametrize("name", UNDECIDED)
def test_an_undecided_rule_is_a_clean_error(name):
    fn, fragments = UNDECIDED[name]
    (b,) = jax.export.symbolic_shape("b")
    with pytest.raises(dml.errors.InvalidArgumentError) as caught:
        _export(fn, jax.ShapeDtypeStruct((b, 3), F32))
    for fragment in fragments:
        assert fragment in str(caught.value)


def _symbolic_specs(arrays, k, d, b, linked):
    """Dimension ``d`` of argument ``k`` as ``b``; with it, the dimensions of the same size
    at the same position (``"position"``: indices and updates share a shape) or
    anywhere (``True``)."""
    n = arrays[k].shape[d]

    def symbolic(j, e, size):
        return (j, e) == (k, d) or (
            size == n and (linked is True or (linked == "position" and e == d))
        )

    return [
        jax.ShapeDtypeStruct(
            tuple(b if symbolic(j, e, size) else size for e, size in enumerate(a.shape)), a.dtype
        )
        for j, a in enumerate(arrays)
    ]


def _every_axis_at_once(fn, arrays, want, where) -> bool:
    """One export of ``fn`` with every dimension above 1 symbolic, one symbol per size and
    position from the end (as broadcasting reads them): True where it runs equal to the
    direct call, False where a rule needs a bound or a fixed size that the symbols lack."""
    keys = sorted({(a.ndim - d, n) for a in arrays for d, n in enumerate(a.shape) if n > 1})
    if not keys:
        return False
    names = ", ".join(f"d{i}" for i in range(len(keys)))
    symbols = dict(zip(keys, jax.export.symbolic_shape(names), strict=True))
    specs = [
        jax.ShapeDtypeStruct(
            tuple(symbols.get((a.ndim - d, n), n) for d, n in enumerate(a.shape)), a.dtype
        )
        for a in arrays
    ]
    try:
        exported = _export(fn, *specs)
    except dml.errors.InvalidArgumentError:
        return False
    got = jax.tree.leaves(exported.call(*arrays))
    for out, expected in zip(got, want, strict=True):
        np.testing.assert_array_equal(out, expected, err_msg=f"{where}: every axis symbolic")
    return True


@pytest.mark.parametrize(
    "checks",
    [c for c in all_checks().values() if c.sweep is not None],
    ids=lambda c: c.operator.name,
)
def test_every_axis_of_every_argument_can_be_symbolic(checks):
    # Each dimension of each argument of three selftest draws becomes a jax.export symbol,
    # with no bound, a lower or an upper bound at its size (what an operator's rule may
    # need, as a user would give it); the export must run equal to the direct call.
    # Sizes the operator or a static argument fixes (no symbol can stand there; jax.numpy
    # has the same limits) are declared in the companion, and refused naming the field.
    fixed = checks.fixed_size or (lambda *_: False)
    for seed in checks.drawn(range(3)):  # one draw where checks.structure_checked_on
        case = checks.sweep(np.random.default_rng(seed), checks.first_dtype)
        arrays = case.batch[0]
        want = jax.tree.leaves(case.fn(*arrays))
        # An operator whose face and broadcasting another checks axis by axis
        # (OperatorChecks.structure_checked_on): its formula under symbols, every axis at
        # once; axis by axis only where that export is refused.
        if checks.structure_checked_on is not None and _every_axis_at_once(
            case.fn, arrays, want, case.label
        ):
            continue
        runs = {}  # each axis's export, called in one program below
        for k, a in enumerate(arrays):
            for d, n in enumerate(a.shape):
                if n == 0:
                    continue  # a jax.export symbol is at least 1
                where = f"{case.label}: argument {k}, axis {d}"
                refusal = None
                for linked in (False, "position", True):
                    for constraints in ((), (f"b >= {n}",), (f"b <= {n}",)):
                        (b,) = jax.export.symbolic_shape("b", constraints=constraints)
                        try:
                            exported = _export(case.fn, *_symbolic_specs(arrays, k, d, b, linked))
                        except dml.errors.InvalidArgumentError as error:
                            refusal = error
                            continue
                        runs[where] = exported
                        refusal = None
                        break
                    else:
                        continue
                    break
                if refusal is not None:
                    assert fixed(k, d, arrays, refusal), f"{where}: {refusal}"
        outs = selftest.in_one_program([(exported.call, arrays) for exported in runs.values()])
        for where, out in zip(runs, outs, strict=True):
            for got, expected in zip(jax.tree.leaves(out), want, strict=True):
                np.testing.assert_array_equal(got, expected, err_msg=where)
