"""The functional faces validate once per argument signature, and never wrongly skip it."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dmljax as dml
from dmljax._src.dispatch import ValidatedCalls, jitted_with


def _counting(calls: list[tuple]):
    def validate(arrays, statics):
        calls.append(statics)
        (repeats,) = statics
        if type(repeats[0]) is not int:
            raise TypeError("repeats must be ints")
        return jitted_with(lambda x, *, n: x * n, n=repeats[0]), arrays

    return validate


def test_a_second_call_with_the_same_signature_skips_validation():
    calls: list[tuple] = []
    validated = ValidatedCalls(_counting(calls))
    x = jnp.ones(3)
    assert float(validated((x,), ((2,),))[0]) == 2.0
    assert float(validated((x + 1,), ((2,),))[0]) == 4.0
    assert len(calls) == 1
    validated((jnp.ones(4),), ((2,),))  # a new shape is a new signature
    validated((x,), ((3,),))  # and so is a new static value
    assert len(calls) == 3


def test_values_that_compare_equal_but_differ_in_type_are_kept_apart():
    calls: list[tuple] = []
    validated = ValidatedCalls(_counting(calls))
    x = jnp.ones(3)
    validated((x,), ((1,),))
    with pytest.raises(TypeError):
        validated((x,), ((True,),))  # True == 1, but it is validated (and refused) anew


def test_numpy_arrays_lists_and_x64_changes_are_validated_every_time():
    calls: list[tuple] = []
    validated = ValidatedCalls(_counting(calls))
    validated((np.ones(3),), ((2,),))
    validated((np.ones(3),), ((2,),))
    validated((jnp.ones(3),), ([2],))
    validated((jnp.ones(3),), ([2],))
    assert len(calls) == 4
    validated((jnp.ones(3),), ((2,),))
    with jax.enable_x64(True):
        validated((jnp.ones(3),), ((2,),))
    assert len(calls) == 6


def test_the_cache_is_bounded():
    calls: list[tuple] = []
    validated = ValidatedCalls(_counting(calls), maxsize=2)
    for n in range(1, 6):
        validated((jnp.ones(2),), ((n,),))
    assert len(validated._calls) <= 2


def test_an_error_after_a_cached_success_still_names_the_op():
    x = jnp.ones((2, 3))
    dml.tile(x, (2, 1))
    with pytest.raises(dml.errors.InvalidArgumentError, match=r"dmljax\.tile: repeats"):
        dml.tile(x, (2,))
    with pytest.raises(dml.errors.InvalidArgumentError, match=r"repeats\[0\]"):
        dml.tile(x, (-1, 1))
