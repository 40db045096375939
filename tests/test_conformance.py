"""Every operator, from its declaration: one table-driven suite over ``dmljax.OPERATORS``.

Nothing here names an operator. The desc face is checked on every worked example of its
DirectML page (``dml-doc-examples.json``, through the companion's builder); the
functional face on its companion's sweep, random draws checked against the NumPy
reference. :func:`missing_checks` says what an operator lacks, and the completeness test
fails for any operator a cross-cutting check would skip without a reason.

Per-operator test files keep only what is specific to their operator: its semantics,
hypothesis properties against the reference, onnxruntime differentials.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from dmljax._src.checking import doc_examples, selftest
from dmljax._src.checking.operator_checks import OperatorChecks
from dmljax._src.checking.operators import all_checks
from tests import helpers

OPERATORS = {operator.name: operator for operator in dml.OPERATORS}
FACES = [name for name, operator in OPERATORS.items() if operator.face is not None]


def _checked_entries(operator: dml.Operator[Any]) -> list[Any]:
    """The doc examples of ``operator`` that must give their documented output."""
    return [
        e
        for e in doc_examples.entries(doc_examples.name_in_examples(operator))
        if e["status"] in doc_examples.CHECKED_STATUSES
    ]


def missing_checks(
    operator: dml.Operator[Any], checks: OperatorChecks | None, examples: Sequence[Any]
) -> list[str]:
    """What the cross-cutting checks cannot run on ``operator``, for want of a declaration.

    Args:
        operator: the operator.
        checks: its companion's declaration (None: it has no companion).
        examples: its checked doc examples.

    Returns:
        One line per gap; empty when every check below covers the operator.
    """
    if checks is None:
        return ["no companion in dmljax/_src/checking/operators (OperatorChecks)"]
    gaps = []
    if not examples:
        gaps.append("no doc example: the desc face is never run")
    if operator.face is not None and checks.sweep is None:
        gaps.append("a functional face without a sweep (OperatorChecks(sweep=...))")
    if operator.face is None and operator.served_by not in FACES:
        gaps.append(f"no face, and served_by {operator.served_by!r} names no operator with one")
    if not checks.documented_support or checks.support_case is None:
        gaps.append("no restated support table (documented_support= and support_case=)")
    benched = checks if operator.served_by is None else all_checks().get(operator.served_by)
    if benched is None or benched.bench is None:
        gaps.append("no bench case, neither its own nor its server's")
    return gaps


# --- Completeness ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_every_operator_is_covered_by_every_cross_cutting_check(name):
    operator = OPERATORS[name]
    gaps = missing_checks(operator, all_checks().get(name), _checked_entries(operator))
    assert gaps == [], f"{name}: {'; '.join(gaps)}"


def test_an_operator_without_its_declarations_fails_the_completeness_check():
    tile = OPERATORS["DML_OPERATOR_TILE"]
    assert missing_checks(tile, None, []) == [
        "no companion in dmljax/_src/checking/operators (OperatorChecks)"
    ]
    bare = OperatorChecks(tile)
    assert missing_checks(tile, bare, []) == [
        "no doc example: the desc face is never run",
        "a functional face without a sweep (OperatorChecks(sweep=...))",
        "no restated support table (documented_support= and support_case=)",
        "no bench case, neither its own nor its server's",
    ]
    complete = all_checks()["DML_OPERATOR_TILE"]
    assert missing_checks(tile, complete, _checked_entries(tile)) == []


# --- The desc face, on every worked example of the DirectML pages ---------------------------------


BUILT = [e for e in doc_examples.entries() if e["op"] in doc_examples.BUILDERS]
# The example names whose companion also computes them through the functional face.
FACED_EXAMPLES = {
    doc_examples.name_in_examples(checks.operator)
    for checks in all_checks().values()
    if checks.doc_example_face is not None
}


def _first_example(name: str) -> Any:
    entries = _checked_entries(OPERATORS[name])
    with_inputs = [e for e in entries if e["inputs"]]
    return (with_inputs or entries)[0]


# The transformations of the desc face, on one example of each operator: every example
# gives its output above, and the functional face runs each operator's sweep (many more
# shapes and attributes) under the same transformations below.
ONE_EXAMPLE_EACH = [_first_example(name) for name in sorted(OPERATORS)]


@pytest.mark.parametrize("entry", BUILT, ids=lambda e: e["id"])
def test_every_doc_example_gives_its_documented_output_on_both_faces(entry):
    outcome = doc_examples.check(entry)
    assert outcome.passed, outcome.detail
    if entry["status"] == doc_examples.REFUSED_STATUS:
        assert outcome.detail.startswith("refused: ")
    elif entry["status"] in doc_examples.CHECKED_STATUSES and entry["op"] in FACED_EXAMPLES:
        assert "also functional face" in outcome.detail


def _checks_of(name: str) -> OperatorChecks:
    """The companion of the operator named ``name``, as DirectML or its examples name it."""
    for checks in all_checks().values():
        if name in (checks.operator.name, doc_examples.name_in_examples(checks.operator)):
            return checks
    raise KeyError(name)


def _skip_where_not_smooth(name: str) -> None:
    """Skips check_grads for an operator whose companion says finite differences cannot
    check it (OperatorChecks.not_smooth)."""
    checks = _checks_of(name)
    if checks.not_smooth is not None:
        pytest.skip(f"no check_grads: {checks.not_smooth}")


def _compiled(entry: Any) -> tuple[doc_examples.DocExample, Any]:
    example = doc_examples.build(entry)
    return example, dml.compile_operator(example.desc, **example.options)


def _other_values(inputs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """The same inputs with other floating values (indices kept: they must stay valid;
    the largest floats become infinities, which are values too)."""
    with np.errstate(over="ignore"):
        return tuple(
            (2 * x - 1).astype(x.dtype) if np.issubdtype(x.dtype, np.floating) else x
            for x in inputs
        )


def _stacked(*trees: Any) -> Any:
    return jax.tree.map(lambda *leaves: np.stack([np.asarray(leaf) for leaf in leaves]), *trees)


def _assert_same(got: Any, want: Any, ulps: int) -> None:
    """Bit for bit, or for an operator whose float results move with the shape of the
    program (OperatorChecks.ulps), two results each within ``ulps`` of the true one."""
    if not ulps:
        chex.assert_trees_all_equal(got, want)
        return
    chex.assert_trees_all_equal_shapes_and_dtypes(got, want)
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        if jnp.issubdtype(a.dtype, jnp.floating):
            assert selftest.within_ulps(a, np.asarray(b), 2 * ulps).all(), (a, b)
        else:
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("entry", ONE_EXAMPLE_EACH, ids=lambda e: e["id"])
def test_a_compiled_operator_under_vmap_equals_a_loop(entry):
    example, op = _compiled(entry)
    if not example.inputs:
        pytest.skip("an operator of no input (DIAGONAL_MATRIX) has nothing to batch")
    batch = (example.inputs, _other_values(example.inputs))
    loop = _stacked(*(op(*inputs) for inputs in batch))
    columns = tuple(np.stack(column) for column in zip(*batch, strict=True))
    # Only the first input batched, the others shared by every batch member.
    shared = (columns[0], *example.inputs[1:])
    in_axes = (0, *(None for _ in example.inputs[1:]))
    first_only = _stacked(*(op(x, *example.inputs[1:]) for x in columns[0]))
    # vmap of vmap, the batch axis last.
    last = tuple(np.moveaxis(column, 0, -1)[None] for column in columns)
    nested = jax.vmap(jax.vmap(op, in_axes=-1, out_axes=-1))
    got = selftest.in_one_program(
        [(jax.vmap(op), columns), (jax.vmap(op, in_axes=in_axes), shared), (nested, last)]
    )
    want = (loop, first_only, jax.tree.map(lambda x: np.moveaxis(x, 0, -1)[None], loop))
    ulps = _checks_of(entry["op"]).ulps
    for got_one, want_one in zip(got, want, strict=True):
        _assert_same(got_one, want_one, ulps)


@pytest.mark.parametrize("entry", ONE_EXAMPLE_EACH, ids=lambda e: e["id"])
def test_a_compiled_operator_passes_check_grads_to_order_2(entry):
    _skip_where_not_smooth(entry["op"])
    example, op = _compiled(entry)
    floating = [i for i, x in enumerate(example.inputs) if np.issubdtype(x.dtype, np.floating)]
    if not floating:
        pytest.skip("no floating input to differentiate")

    def f(*operands: Any) -> Any:
        arguments = list(example.inputs)
        for i, operand in zip(floating, operands, strict=True):
            arguments[i] = operand
        return selftest.floating_outputs(op(*arguments))

    # Values near 1, not the page's (up to 16s): float32 finite differences of order 2 then
    # stay within the tolerance of a linear map's exact derivative.
    rng = np.random.default_rng(6)
    smooth_on = _checks_of(entry["op"]).smooth_on or (lambda x: x)
    primals = tuple(
        jnp.asarray(
            smooth_on(rng.standard_normal(example.inputs[i].shape)), example.inputs[i].dtype
        )
        for i in floating
    )
    helpers.check_grads_by_primitive(f, primals, atol=1e-2, rtol=1e-2)


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_a_compiled_operator_runs_one_program_per_signature(name):
    example, op = _compiled(_first_example(name))
    eager = op(*example.inputs)
    chex.assert_trees_all_equal(jax.jit(op)(*example.inputs), eager)
    size = helpers.jit_cache_size(op.jitted)
    other = _other_values(example.inputs)
    chex.assert_trees_all_equal(op(*other), jax.jit(op)(*other))
    assert helpers.jit_cache_size(op.jitted) == size


# --- The functional face, on random draws against the NumPy reference -----------------------------


# Every dtype the sweeps draw that the face takes, or the first only where another
# operator's checks cover the shared structure (OperatorChecks.structure_checked_on; its
# family's tests check values).
FACE_DTYPES = [
    (name, dtype)
    for name in FACES
    for dtype in all_checks()[name].drawn(all_checks()[name].sweep_dtypes)
]


@pytest.mark.parametrize(("name", "dtype"), FACE_DTYPES, ids=str)
def test_the_face_matches_the_reference_eagerly_under_jit_vmap_jvp_and_grad(name, dtype):
    case = all_checks()[name].sweep(np.random.default_rng(11), dtype)  # type: ignore[misc]
    assert len(case.batch) >= 2
    if case.linear_argnums:
        assert case.batch[0][case.linear_argnums[0]].dtype == dtype
    else:  # a generator: the dtype is its result's
        assert np.asarray(jax.tree.leaves(case.expected[0])[0]).dtype == dtype
    checked = selftest.check_sweep_case(case)
    assert checked[:3] == ["eager", "jit", "vmap"]
    out = np.asarray(jax.tree.leaves(case.expected[0])[0]).dtype  # a test's is an integer
    floats = jnp.issubdtype(dtype, jnp.floating) and jnp.issubdtype(out, jnp.floating)
    assert ("jvp+grad" in checked) == bool(floats and case.differentiable)


def _first_draw(name: str) -> selftest.SweepCase:
    """A draw of the face's first dtype: float32, or (LOGICAL_AND's) the first it takes."""
    checks = all_checks()[name]
    assert checks.sweep is not None
    return checks.sweep(np.random.default_rng(5), checks.first_dtype)


@pytest.mark.parametrize("name", FACES)
def test_the_face_runs_one_program_per_signature(name):
    case = _first_draw(name)
    program = OPERATORS[name].face.dispatch.jitted  # type: ignore[union-attr]
    case.fn(*case.batch[0])
    size = helpers.jit_cache_size(program)
    got = jax.tree.leaves(case.fn(*case.batch[1]))[0]
    expected = jax.tree.leaves(case.expected[1])[0]
    if case.ulps:
        assert selftest.within_ulps(got, expected, case.ulps).all()
    else:
        np.testing.assert_array_equal(got, expected)
    assert helpers.jit_cache_size(program) == size


def _vmap_variants(case: selftest.SweepCase) -> list[tuple[Any, tuple[Any, ...], Any]]:
    """``vmap`` of ``case.fn`` over each set of its arguments (everything, the data, the
    others; the rest shared as the first batch member has them) along the first and the
    last axis, and a vmap of a vmap: each as (the batched function, its arguments, the
    Python loop's result moved where the batch axis is)."""
    first = case.batch[0]
    count = len(first)
    everything = set(range(count))
    data = set(case.linear_argnums)
    variants = []
    for batched in (everything, data, everything - data):
        if not batched:
            continue

        def member(args: tuple[np.ndarray, ...], batched: set[int] = batched) -> list[Any]:
            return [args[i] if i in batched else first[i] for i in range(count)]

        loop = _stacked(*(case.fn(*member(args)) for args in case.batch))
        for axis in (0, -1):
            columns = tuple(
                np.stack([args[i] for args in case.batch], axis=axis) if i in batched else first[i]
                for i in range(count)
            )
            in_axes = tuple(axis if i in batched else None for i in range(count))
            fn = jax.vmap(case.fn, in_axes=in_axes, out_axes=axis)
            moved = jax.tree.map(lambda x, a=axis: np.moveaxis(x, 0, a), loop)
            variants.append((fn, columns, moved))
    # vmap of vmap: a batch of batches.
    columns = tuple(np.stack(column)[None] for column in zip(*case.batch, strict=True))
    loop = _stacked(*(case.fn(*args) for args in case.batch))
    variants.append((jax.vmap(jax.vmap(case.fn)), columns, jax.tree.map(lambda x: x[None], loop)))
    return variants


@pytest.mark.parametrize("name", FACES)
def test_the_face_under_vmap_equals_a_loop_whatever_is_batched_and_where(name):
    case = _first_draw(name)
    if not case.batch[0]:
        pytest.skip("a generator takes no array: the sweeps vmap it by axis_size")
    variants = _vmap_variants(case)
    # The sweeps check eager vmap against the reference.
    outs = selftest.in_one_program([(fn, columns) for fn, columns, _ in variants])
    for (_, _, loop), got in zip(variants, outs, strict=True):
        _assert_same(got, loop, case.ulps)


@pytest.mark.parametrize("name", FACES)
def test_the_face_passes_check_grads_to_order_2(name):
    # One draw: the sweep's exact jvp and grad checks run every draw of every dtype.
    _skip_where_not_smooth(name)
    case = _first_draw(name)
    if not case.linear_argnums:
        pytest.skip("no check_grads: a generator has no array to differentiate")
    args = case.batch[0]

    def f(*operands: Any) -> Any:
        full = list(args)
        for i, operand in zip(case.linear_argnums, operands, strict=True):
            full[i] = operand
        return selftest.floating_outputs(case.fn(*full))

    with jax.enable_x64(True):
        primals = tuple(jnp.asarray(args[i], jnp.float64) for i in case.linear_argnums)
        helpers.check_grads_by_primitive(f, primals)


# --- Support tables: the page's, restated in the companion, at every feature level -------------

TABLED = sorted(name for name, checks in all_checks().items() if checks.documented_support)


def _band_at(checks: OperatorChecks, level: dml.FeatureLevel) -> Any:
    """The restated row in force at ``level``, or None before the operator's first."""
    rows = [since for since in checks.documented_support if since <= level]
    return checks.documented_support[max(rows)] if rows else None


def _first_level(checks: OperatorChecks, after: dml.FeatureLevel, allows: Any) -> Any:
    """The first restated row above ``after`` that ``allows``, or None."""
    for since in sorted(checks.documented_support):
        if since > after and allows(checks.documented_support[since]):
            return since
    return None


def _levels(checks: OperatorChecks) -> list[dml.FeatureLevel]:
    """Each level where the table changes, the one before the first, and the latest."""
    levels = list(dml.FeatureLevel)
    first = levels.index(min(checks.documented_support))
    return sorted({*checks.documented_support, *levels[max(first - 1, 0) : first], levels[-1]})


@pytest.mark.parametrize(
    ("name", "level"),
    [(name, level) for name in TABLED for level in _levels(all_checks()[name])],
    ids=str,
)
def test_compile_operator_enforces_the_pages_support_table(name, level):
    checks = all_checks()[name]
    case = checks.support_case
    assert case is not None
    band = _band_at(checks, level)
    f32 = helpers.support_data_type(band)  # FLOAT32, where the band has it
    with jax.enable_x64(True):
        for rank in range(1, 9):
            desc, _ = case(rank, f32, helpers.support_index_type(band))
            if band is None:
                with pytest.raises(dml.errors.InvalidArgumentError) as e:
                    dml.compile_operator(desc, feature_level=level)
                assert e.value.field == "feature_level"
                continue
            (low, high), _, _ = band
            if low <= rank <= high:
                dml.compile_operator(desc, feature_level=level)
                continue
            with pytest.raises(dml.errors.InvalidArgumentError) as e:
                dml.compile_operator(desc, feature_level=level)
            assert e.value.field.endswith(".sizes"), e.value
            later = _first_level(checks, level, lambda b, r=rank: b[0][0] <= r <= b[0][1])
            assert e.value.hint == (
                f"{rank} dimensions are supported from {later}." if later else None
            )
        if band is None:
            return
        rank = band[0][0]
        for kind in (1, 2):  # the data tensors' types, then those of the other input
            if band[kind] is None:
                continue
            for data_type in helpers.DATA_TYPES:
                index = helpers.support_index_type(band)
                types = (data_type, index) if kind == 1 else (f32, data_type)
                desc, _ = case(rank, *types)
                if data_type in band[kind]:
                    dml.compile_operator(desc, feature_level=level)
                    continue
                with pytest.raises(dml.errors.InvalidArgumentError) as e:
                    dml.compile_operator(desc, feature_level=level)
                assert e.value.field.endswith(".data_type"), e.value
                assert e.value.given == str(data_type)
                later = _first_level(
                    checks, level, lambda b, k=kind, t=data_type: t in (b[k] or ())
                )
                if later is not None:
                    assert e.value.hint == f"{data_type} is supported from {later}."


@pytest.mark.parametrize("name", TABLED)
def test_every_supported_type_and_rank_computes_what_float32_computes(name):
    # Small integers move exactly in every type: each data type, index type and rank the
    # latest row supports gives the FLOAT32 result (or, where FLOAT32 is not supported,
    # that of helpers.support_data_type) of the same operator on the same values.
    checks = all_checks()[name]
    case = checks.support_case
    assert case is not None
    latest = checks.documented_support[max(checks.documented_support)]
    (low, high), data_types, index_types = latest
    f32, index = helpers.support_data_type(latest), helpers.support_index_type(latest)
    with jax.enable_x64(True):
        runs = [case(rank, f32, index) for rank in checks.drawn(range(high, low, -1))]
        # The type variants last, each against the FLOAT32 run of the lowest rank.
        variants = [(data_type, index) for data_type in sorted(data_types, key=str)]
        variants += [(f32, index_type) for index_type in sorted(index_types or (), key=str)]
        runs += [case(low, f32, index)] + [case(low, *types) for types in variants]
        outs = selftest.in_one_program(
            [(dml.compile_operator(desc, deterministic=True), x) for desc, x in runs]
        )
    results = [[np.asarray(y).astype(np.float64) for y in jax.tree.leaves(o)] for o in outs]
    want = results[-len(variants) - 1]
    for types, got in zip(variants, results[-len(variants) :], strict=True):
        chex.assert_trees_all_equal(got, want, custom_message=str(types))


@pytest.mark.parametrize(
    "checks",
    [c for c in all_checks().values() if c.structure_checked_on is not None],
    ids=lambda c: c.operator.name,
)
def test_a_structure_is_checked_in_full_on_an_operator_of_the_same_desc_shape(checks):
    # The operator named checks its structure itself, and has the same fields: the same
    # face signature and the same lowering around a different formula.
    other = all_checks()[checks.structure_checked_on]
    assert other.structure_checked_on is None
    fields = [f.name for f in dataclasses.fields(checks.operator.desc_type)]
    assert fields == [f.name for f in dataclasses.fields(other.operator.desc_type)]


# --- Typed PRNG keys: a face that moves data moves keys as it moves their words ----------------

KEYED = [name for name in FACES if OPERATORS[name].face.keys]  # type: ignore[union-attr]


def _with_key_data(case: selftest.SweepCase, words: dict[int, np.ndarray], word: int) -> list[Any]:
    args = list(case.batch[0])
    for i, data in words.items():
        args[i] = data[..., word]
    return args


@pytest.mark.parametrize("name", KEYED)
@pytest.mark.parametrize("transform", ["eager", "jit", "vmap"])
def test_typed_key_arrays_move_as_each_word_of_their_data_does(name, transform):
    # A key array is moved as jax.numpy moves it: each 32-bit word of its data is moved
    # alone. Where the statics compute with the data (a reduction, a fill value), the face
    # refuses keys as jax.numpy does; draws go on until one moves them.
    sweep = all_checks()[name].sweep
    assert sweep is not None
    for seed in range(8):
        case = sweep(np.random.default_rng(seed), np.dtype(np.uint32))
        rng = np.random.default_rng(seed)
        words = {
            i: rng.integers(0, 2**32, (*case.batch[0][i].shape, 2), dtype=np.uint64).astype(
                np.uint32
            )
            for i in case.linear_argnums
        }
        keyed = _with_key_data(case, words, 0)
        for i, data in words.items():
            keyed[i] = jax.random.wrap_key_data(jnp.asarray(data))
        fn = {"eager": case.fn, "jit": jax.jit(case.fn), "vmap": jax.vmap(case.fn)}[transform]
        if transform == "vmap":
            keyed = [jax.tree.map(lambda x: jnp.stack([x, x]), a) for a in keyed]
        try:
            got, refusal = fn(*keyed), ""
        except dml.errors.ArgumentTypeError as error:
            got, refusal = None, str(error)
        if refusal:
            assert "key_data" in refusal, refusal
            continue
        each_word = [jax.tree.leaves(case.fn(*_with_key_data(case, words, w))) for w in (0, 1)]
        wants = [np.stack(pair, axis=-1) for pair in zip(*each_word, strict=True)]
        if transform == "vmap":
            wants = [np.stack([want, want]) for want in wants]
        for leaf, want in zip(jax.tree.leaves(got), wants, strict=True):
            np.testing.assert_array_equal(np.asarray(jax.random.key_data(leaf)), want)
        break  # one moving draw is the check; the draws before it were refusals
    else:
        pytest.fail(f"no draw of {name}'s sweep moved key arrays")
