"""The operator families, one module each, and :data:`OPERATORS`, found from them.

A module here declares its operators as module-level :class:`Operator` values
named as DirectML names them without ``DML_OPERATOR_`` (``TILE``, ``GATHER_ND1``),
or, for a family declared as a table of rows, as its ``FAMILY`` tuple.
:data:`OPERATORS` collects them: adding an operator's module adds it, and no list
is kept by hand (see the docs page "Adding an operator").

>>> from dmljax._src.ops import OPERATORS
>>> "DML_OPERATOR_TILE" in [op.name for op in OPERATORS]
True
"""

import importlib
import pkgutil

from dmljax._src.contract import Operator

__all__ = ["OPERATORS"]


def _declared_operators() -> tuple[Operator, ...]:
    # Every module is imported while dmljax is imported: the operators are the runtime,
    # and compile_operator, graphs and DxDispatch look them up by name.
    found: dict[str, Operator] = {}
    for module_info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for attribute, value in vars(module).items():
            # An operator is declared where its attribute is its own name; a module that
            # imports another's operator (GATHER_ND1 reads GATHER_ND) holds the same object.
            if isinstance(value, Operator) and value.name == f"DML_OPERATOR_{attribute}":
                found[value.name] = value
        # A family declared as a table of rows (element_wise.py) lists its operators in FAMILY.
        for value in getattr(module, "FAMILY", ()):
            found[value.name] = value
    return tuple(found[name] for name in sorted(found))


OPERATORS: tuple[Operator, ...] = _declared_operators()
"""Every operator dmljax implements, sorted by DirectML's name."""
