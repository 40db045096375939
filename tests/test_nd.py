"""The index-tuple rules GATHER_ND, GATHER_ND1 and SCATTER_ND share (``ops/nd.py``).

DirectML writes them once for the three operators, and so does dmljax
(:func:`dmljax._src.ops.nd.check_desc`): each row here is checked on every
operator that has it. The block a tuple addresses is GATHER_ND's output and
SCATTER_ND's updates; each operator's own rules are in its test file.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmljax as dml
from tests import descs, helpers

T = dml.DataType
FL = dml.FeatureLevel
InvalidArgumentError = dml.errors.InvalidArgumentError
_BUILDERS = {"gather_nd": descs.gather_nd, "gather_nd1": descs.gather_nd1,
             "scatter_nd": descs.scatter_nd}  # fmt: skip
_BLOCK = {"gather_nd": "output", "gather_nd1": "output", "scatter_nd": "updates"}


def nd_desc(op: str, block_sizes: tuple[int, ...] | None = None, **overrides: Any) -> Any:
    """``op``'s desc from :mod:`tests.descs`, ``block_sizes`` setting its block's sizes."""
    if block_sizes is not None:
        overrides[f"{_BLOCK[op]}_sizes"] = block_sizes
    return _BUILDERS[op](**overrides)


# (overrides, field, fragment); "block" stands for the operator's block tensor.
SHARED_RULES: list[tuple[dict[str, Any], str, str]] = [
    ({"input_dimension_count": 0}, "input_dimension_count", r"in \[1, 2\]"),
    ({"input_dimension_count": 3}, "input_dimension_count", r"in \[1, 2\]"),
    ({"indices_dimension_count": 0}, "indices_dimension_count", r"in \[1, 2\]"),
    ({"indices_dimension_count": 3}, "indices_dimension_count", r"in \[1, 2\]"),
    ({"input_dimension_count": 1}, "input_tensor.sizes", "1 in the first 1"),
    ({"indices_dimension_count": 1}, "indices_tensor.sizes", "1 in the first 1"),
    ({"indices_sizes": (4, 3), "block_sizes": (1, 4)}, "indices_tensor.sizes[1]", "at most 2"),
    ({"block_sizes": (4, 3)}, "block.sizes", r"\(4, 2\)"),
    ({"block_sizes": (1, 4, 2)}, "block.sizes", "2 dimensions long"),
    ({"index_type": T.FLOAT32}, "indices_tensor.data_type", "one of INT64, INT32"),
    ({"index_type": T.INT16}, "indices_tensor.data_type", "one of"),
    (
        {"input_sizes": (2, 3, 4), "indices_sizes": (5, 2, 1), "block_sizes": (2, 3, 4),
         "input_dimension_count": 3, "indices_dimension_count": 3},
        "indices_dimension_count",
        "dropping leading 1s only",
    ),
    (
        # The pages' prose takes input[(N - t)..] = {5,6,7}; the worked {1,1,2,6,7} is right.
        {"input_sizes": (3, 4, 5, 6, 7), "indices_sizes": (1, 1, 1, 2, 3),
         "block_sizes": (1, 2, 5, 6, 7), "input_dimension_count": 5,
         "indices_dimension_count": 3},
        "block.sizes",
        r"\(1, 1, 2, 6, 7\)",
    ),
]  # fmt: skip


@pytest.mark.parametrize("op", sorted(_BUILDERS))
@pytest.mark.parametrize(("overrides", "field", "fragment"), SHARED_RULES)
def test_each_shared_rule_names_the_field(op, overrides, field, fragment):
    desc = nd_desc(op, **overrides)
    helpers.refused(
        lambda: dml.compile_operator(desc),
        field=field.replace("block", f"{_BLOCK[op]}_tensor"),
        match=fragment,
        op=type(desc).__name__,
    )


@pytest.mark.parametrize("op", sorted(_BUILDERS))
def test_the_builder_is_valid_as_it_stands(op):
    dml.compile_operator(nd_desc(op))


# (op, FL_3_0's result of the signed tuples, FL_2_1's of the unsigned ones): for a gather,
# the element of x = arange(12).reshape(3, 4) each tuple reads (out-of-range coordinates
# clamp into the data); for a scatter, where the tuples in range write their updates 1..4.
_SIGNED = np.array([[-1, -4], [-4, 3], [7, -1], [1, -5]], np.int32)
_UNSIGNED = np.array([[2**32 - 1, 0], [0, 2**31], [1, 1], [2, 3]], np.uint32)
_OUT_OF_RANGE = [
    # -1 and -4 are the last and the first of their dimensions; -4 (as -1), 7 and -5 are
    # out of range. Unsigned coordinates never wrap: 2**32 - 1 is large, not -1.
    ("gather_nd", [(2, 0), (0, 3), (2, 3), (1, 0)], [(2, 0), (0, 3), (1, 1), (2, 3)]),
    ("scatter_nd", {(2, 0): 1}, {(1, 1): 3, (2, 3): 4}),
]  # fmt: skip


@pytest.mark.parametrize(("op", "signed", "unsigned"), _OUT_OF_RANGE, ids=["gather", "scatter"])
def test_negative_coordinates_wrap_from_fl_3_0_and_unsigned_never_wrap(op, signed, unsigned):
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    updates = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 1, 4)
    sizes: dict[str, Any] = dict(input_sizes=(1, 1, 3, 4), indices_sizes=(1, 1, 4, 2),
                                 block_sizes=(1, 1, 1, 4))  # fmt: skip
    for tuples, level, expected in ((_SIGNED, FL.FL_3_0, signed), (_UNSIGNED, FL.FL_2_1, unsigned)):
        desc = nd_desc(op, **sizes, index_type=dml.DataType.from_dtype(tuples.dtype))
        run = dml.compile_operator(desc, feature_level=level)
        tuples = tuples.reshape(1, 1, 4, 2)
        if op == "gather_nd":  # each tuple's element, in the tuples' order
            np.testing.assert_array_equal(run(x, tuples).ravel(), [x[0, 0][p] for p in expected])
        else:  # zeros, but where a tuple in range wrote its update
            want = np.zeros((3, 4), np.float32)
            for position, value in expected.items():
                want[position] = value
            np.testing.assert_array_equal(run(np.zeros_like(x), tuples, updates)[0, 0], want)
