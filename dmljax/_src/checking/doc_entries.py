"""One worked example of a DirectML page, as ``data/dml-doc-examples.json`` holds it.

The pieces an operator's companion needs to declare how its examples become a
desc (``OperatorChecks(doc_example=...)``), apart from
:mod:`dmljax._src.checking.doc_examples`, which runs them and reads every
companion.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dmljax._src.dtypes import DataType
from dmljax._src.tensor_desc import TensorDesc

__all__ = ["Entry", "tensor_desc_of", "tensor_of"]

Entry = Mapping[str, Any]
"""One entry: ``id``, ``op``, ``attrs``, ``inputs`` and ``expected`` tensors, ``status``."""


def tensor_of(tensor: Entry) -> np.ndarray:
    """A ``{sizes, dtype, data}`` tensor of an entry as a NumPy array of its sizes."""
    dtype = DataType[tensor["dtype"]].dtype
    return np.asarray(tensor["data"], dtype=dtype).reshape(tensor["sizes"])


def tensor_desc_of(tensor: Entry) -> TensorDesc:
    """A ``{sizes, dtype, ...}`` tensor of an entry as a TensorDesc (its data unread)."""
    return TensorDesc(data_type=DataType[tensor["dtype"]], sizes=tuple(tensor["sizes"]))
