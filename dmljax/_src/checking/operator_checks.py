"""What checks and measures one operator, declared in its companion module.

Each module of :mod:`dmljax._src.ops` that declares an :class:`~dmljax.Operator`
has a companion of the same name in :mod:`dmljax._src.checking.operators` that
declares its :class:`OperatorChecks`: how a worked example of its DirectML page
becomes a desc, a second way to compute that example through the functional
face, the selftest's sweep and the bench cases. They stay off the runtime's
import path: ``import dmljax`` loads none of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from dmljax._src.contract import Operator

__all__ = ["OperatorChecks"]


@dataclasses.dataclass(frozen=True)
class OperatorChecks:
    """The checking half of one operator's declaration.

    Attributes:
        operator: the operator, e.g. :data:`dmljax._src.ops.tile.TILE`.
        doc_example: builds the desc a worked example of the DirectML page
            describes (an entry of ``dml-doc-examples.json``), reading sizes,
            data types and attributes only, where the entry names more than the
            desc's fields (SPLIT's ``OutputAxisSizes``); None: the generic builder
            (:func:`dmljax._src.checking.doc_examples.generic_builder`) reads it.
        doc_example_face: computes the same example through the functional
            face (None: the example runs through the desc face only).
        doc_example_options: the ``compile_operator`` options its examples need.
        sweep: ``(rng, dtype) -> SweepCase``, one random draw of the functional
            face checked against :mod:`dmljax._src.checking.reference`.
        bench: ``() -> [Case, ...]``, the operator's ``python -m dmljax bench``
            cases, each against the hand-written ``jax.numpy`` equivalent.

    >>> from dmljax._src.checking.operators import checks_of
    >>> checks_of("DML_OPERATOR_TILE").operator
    Operator(DML_OPERATOR_TILE, TileOperatorDesc)
    """

    operator: Operator[Any]
    doc_example: Callable[[Any], Any] | None = None
    doc_example_face: Callable[[Any], Any] | None = None
    doc_example_options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    sweep: Callable[..., Any] | None = None
    bench: Callable[[], list[Any]] | None = None
