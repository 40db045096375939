import importlib
import pathlib

import dmljax as dml

PACKAGE = pathlib.Path(dml.__file__).parent


def test_all_names_exist_and_are_sorted():
    assert list(dml.__all__) == sorted(dml.__all__)
    for name in dml.__all__:
        assert getattr(dml, name) is not None


def test_public_classes_and_functions_have_docstrings_with_examples():
    for name in dml.__all__:
        obj = getattr(dml, name)
        assert obj.__doc__, name
        if callable(obj):
            assert ">>>" in obj.__doc__, f"{name} has no example in its docstring"


def test_error_classes_have_docstrings_with_examples():
    for name in dml.errors.__all__:
        doc = getattr(dml.errors, name).__doc__
        assert doc, name
        assert ">>>" in doc, f"dmljax.errors.{name} has no example in its docstring"


def test_every_operator_module_is_in_operators_and_every_operator_is_exported():
    # An Operator declared in an ops module but missing from OPERATORS would be invisible
    # to compile_operator, the docs, the selftest and the conformance suite.
    # Every Operator an ops module holds, however it was made (a family declares its
    # operators through a helper), whatever name it is bound to.
    declared = set()
    for path in sorted((PACKAGE / "_src" / "ops").glob("*.py")):
        if path.stem == "__init__":
            continue
        module = importlib.import_module(f"dmljax._src.ops.{path.stem}")
        declared |= {v.name for v in vars(module).values() if isinstance(v, dml.Operator)}
        declared |= {v.name for v in getattr(module, "FAMILY", ())}  # a table's rows
    assert declared == {operator.name for operator in dml.OPERATORS}
    for operator in dml.OPERATORS:
        assert getattr(dml, operator.desc_type.__name__) is operator.desc_type
        if operator.function is not None:
            assert getattr(dml, operator.function.__name__) is operator.function
