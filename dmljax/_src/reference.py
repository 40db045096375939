"""A NumPy interpreter of DirectML's operator pseudocode: the test oracle.

Each function is written from the operator's DirectML page, element by element
where the page is, and shares no code with the lowerings it checks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["tile"]


def tile(input: np.ndarray, repeats: Sequence[int]) -> np.ndarray:
    """TILE: ``output[c] = input[c mod input.Sizes]`` for each output coordinate ``c``."""
    output_sizes = tuple(size * repeat for size, repeat in zip(input.shape, repeats, strict=True))
    coordinates = np.indices(output_sizes, sparse=True)
    source = tuple(c % size for c, size in zip(coordinates, input.shape, strict=True))
    return np.asarray(input[source]).reshape(output_sizes)
