"""Each operator's companion: one module per module of :mod:`dmljax._src.ops`.

A companion declares ``CHECKS``, the :class:`OperatorChecks` of the operator
its namesake declares (a tuple of them where the module declares a family, such
as SPACE_TO_DEPTH and SPACE_TO_DEPTH1). :func:`all_checks` finds them all:
adding an operator's companion lists it, and nothing else does.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

from dmljax._src.checking.operator_checks import OperatorChecks

__all__ = ["all_checks"]


@functools.cache
def all_checks() -> dict[str, OperatorChecks]:
    """Every companion's :class:`OperatorChecks`, by DirectML's operator name.

    >>> "DML_OPERATOR_GATHER" in all_checks()
    True
    """
    found: dict[str, OperatorChecks] = {}
    for module in pkgutil.iter_modules(__path__):
        declared = importlib.import_module(f"{__name__}.{module.name}").CHECKS
        for checks in declared if isinstance(declared, tuple) else (declared,):
            found[checks.operator.name] = checks
    return found
