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
from collections.abc import Callable, Iterable, Mapping, Set as AbstractSet
from typing import Any, TypeVar

import numpy as np

from dmljax._src.checking.doc_entries import Entry
from dmljax._src.checking.sweeps import DATA_DTYPES
from dmljax._src.contract import Operator
from dmljax._src.dtypes import DataType
from dmljax._src.feature_levels import FeatureLevel

_D = TypeVar("_D")

__all__ = [
    "FLOATS",
    "INDEX_TYPES",
    "INTS_8_32",
    "INTS_16_32",
    "TYPES_64",
    "DocumentedBand",
    "OperatorChecks",
    "SupportCase",
    "data_of",
]

_T = DataType
# The type sets DirectML's support tables are written in, spelled out here so that a
# restated table does not borrow the declaration's own (dmljax._src.feature_levels).
FLOATS = frozenset({_T.FLOAT32, _T.FLOAT16})
INTS_8_32 = frozenset({_T.INT32, _T.INT16, _T.INT8, _T.UINT32, _T.UINT16, _T.UINT8})
INTS_16_32 = frozenset({_T.INT32, _T.INT16, _T.UINT32, _T.UINT16})
TYPES_64 = frozenset({_T.FLOAT64, _T.INT64, _T.UINT64})
INDEX_TYPES = frozenset({_T.INT64, _T.INT32, _T.UINT64, _T.UINT32})

DocumentedBand = tuple[tuple[int, int], AbstractSet[DataType], AbstractSet[DataType] | None]
"""One row of a page's support table: the DimensionCount range, the data types of the
operator's data tensors (those ``Operator.same_data_type`` ties), and those of its other
input (indices, sequence lengths; None when it has none)."""

SupportCase = Callable[[int, DataType, DataType], tuple[Any, tuple[np.ndarray, ...]]]
"""``(rank, data_type, index_type) -> (desc, inputs)``: a valid desc of ``rank``
dimensions whose data tensors have ``data_type`` and whose other input ``index_type``
(None where the table has no other type), and input arrays for it whose values every type
holds exactly."""


def data_of(sizes: tuple[int, ...], data_type: DataType) -> np.ndarray:
    """Small integers (0 to 6) of ``data_type``: every DataType holds them exactly.

    >>> data_of((2, 3), DataType.UINT8).tolist()
    [[0, 1, 2], [3, 4, 5]]
    """
    return (np.arange(int(np.prod(sizes))) % 7).astype(data_type.dtype).reshape(sizes)


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
        documented_support: the support table of the operator's DirectML page,
            restated as data: a :data:`DocumentedBand` from each feature level
            where it changes. The conformance suite checks ``compile_operator``
            against it at every level, for every DataType and rank.
        support_case: builds the descs and inputs those checks run
            (:data:`SupportCase`); None for an operator whose page has no table
            of its own.
        fixed_size: ``(k, d, arrays, error) -> bool``: whether the face may refuse
            a jax.export symbol at axis ``d`` of its argument ``k`` (of the sweep's
            ``arrays``) with ``error``, because the operator or a static argument
            fixes that size (SLICE_GRAD's window, SPLIT's sizes); None: never.
        not_smooth: why finite differences cannot check the operator's
            derivatives (a cast rounds every value it narrows), or None; then
            ``check_grads`` is skipped with this reason, and the sweep's exact
            ``jvp`` and ``grad`` checks still run.
        computes: why the operator's outputs are not its inputs' elements moved (an
            addition rounds), or None for an operator that moves data; the bit-exactness
            suite, which checks that every special float is moved bit for bit, skips it
            with this reason (the operator's own tests hold its arithmetic exact).
        face_dtypes: the dtypes the functional face takes, where it does not take every
            one the sweeps draw (``exp`` takes floats only); None: all of them.
        structure_checked_on: the operator whose checks of structure run in full for
            this one: a row of a family table shares its face, its lowering and its
            broadcasting with the family's first row of its shape and differs in its
            formula only. The cross-cutting checks that repeat a check over dtypes,
            draws or ranks (every dtype under every transformation, three
            symbolic-shape draws, four symbolic-batch dtypes, every rank) run their
            first only here (:meth:`drawn`): the formula under every transformation,
            once; the family's own tests check its values on every dtype. None: every
            check runs in full here.
        smooth_on: maps the standard normal draws at which ``check_grads`` checks the
            operator into the open set where it is smooth (LOG's positive numbers), or
            None: every draw is in it.
        ulps: how far, in units in the last place, a float result may move when only
            the shape of its program changes (a vmap, a loop of calls): XLA's vectorized
            and scalar code for a transcendental function differ within its bound. 0:
            bit for bit.
        examples: worked examples declared here rather than in
            ``dml-doc-examples.json``, in its form: a page's examples, and for
            a page without any, examples of dmljax's own (status ``"dmljax"``,
            the output worked out by hand from the page's rules). Every reader
            of the doc examples sees them as it sees the file's.

    >>> from dmljax._src.checking.operators import all_checks
    >>> all_checks()["DML_OPERATOR_TILE"].operator
    Operator(DML_OPERATOR_TILE, TileOperatorDesc)
    """

    operator: Operator[Any]
    doc_example: Callable[[Any], Any] | None = None
    doc_example_face: Callable[[Any], Any] | None = None
    doc_example_options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    sweep: Callable[..., Any] | None = None
    bench: Callable[[], list[Any]] | None = None
    documented_support: Mapping[FeatureLevel, DocumentedBand] = dataclasses.field(
        default_factory=dict
    )
    support_case: SupportCase | None = None
    fixed_size: Callable[[int, int, Any, Any], bool] | None = None
    not_smooth: str | None = None
    computes: str | None = None
    face_dtypes: AbstractSet[np.dtype[Any]] | None = None
    structure_checked_on: str | None = None
    smooth_on: Callable[[np.ndarray], np.ndarray] | None = None
    ulps: int = 0
    examples: tuple[Entry, ...] = ()

    def drawn(self, draws: Iterable[_D]) -> list[_D]:
        """The draws (dtypes, seeds, ranks) a repeated check runs for this operator:
        all of them, or the first where the structure is checked on another
        (``structure_checked_on``).

        >>> from dmljax._src.checking.operators import all_checks
        >>> all_checks()["DML_OPERATOR_TILE"].drawn(range(3))
        [0, 1, 2]
        >>> all_checks()["DML_OPERATOR_ELEMENT_WISE_ABS"].drawn(range(3))
        [0]
        """
        draws = list(draws)
        return draws if self.structure_checked_on is None else draws[:1]

    @property
    def sweep_dtypes(self) -> list[np.dtype[Any]]:
        """The sweeps' dtypes the functional face takes, in their order (float32 first)."""
        return [d for d in DATA_DTYPES if self.face_takes(d)]

    @property
    def first_dtype(self) -> np.dtype[Any]:
        """The dtype a check of one draw sweeps: float32, or where the face takes no
        float32 (LOGICAL_AND's) the first of the sweeps' dtypes it takes."""
        return self.sweep_dtypes[0]

    def face_takes(self, dtype: Any) -> bool:
        """Whether the functional face takes arrays of ``dtype`` (see ``face_dtypes``)."""
        return self.face_dtypes is None or np.dtype(dtype) in self.face_dtypes
