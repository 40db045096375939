import dmljax as dml


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
