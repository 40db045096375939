"""The element-wise family's public names, written as a module for type checkers.

:mod:`dmljax._src.ops.element_wise` makes each row's desc class and functional face at
import time; ``dmljax/_src/ops/element_wise_names.py`` binds each of them to its name,
with its shape's type, so that ``dml.add`` and ``dml.ElementWiseAddOperatorDesc`` are
known to pyright and to readers, and ``dmljax/__init__.py`` exports them all with one
line. ``python docs/generate.py`` writes the module from the rows; a test fails when
it is stale.

>>> "add: Binary = FUNCTIONS[\\"add\\"]" in render()
True
"""

from __future__ import annotations

from dmljax._src.ops.element_wise import ROWS, ElementWise

__all__ = ["MODULE", "render"]

MODULE = "dmljax/_src/ops/element_wise_names.py"
"""Where the module lives, from the repository's root."""


def _face_type(row: ElementWise) -> str:
    """The face's type: by its arrays, and ``Parameterized`` for one with attributes
    (``dml.round(x, rounding_mode)``), CLIP's ``Bounded`` where both bounds are numbers."""
    if row.shape.__name__ in ("ElementWiseClip", "ElementWiseClip1"):
        return "Bounded"
    if row.attributes:
        return "Parameterized"
    return {1: "Unary", 2: "Binary", 3: "Ternary"}[row.arity]


def _binding(desc: str, row: str, shape: str) -> str:
    """``Desc: type[Shape] = DESCS["ROW"]``, split as ruff format splits it past 100."""
    line = f'{desc}: type[{shape}] = DESCS["{row}"]'
    return line if len(line) <= 100 else f'{desc}: type[{shape}] = DESCS[\n    "{row}"\n]'


def render() -> str:
    """The source of the names module for the rows of ``element_wise.ROWS``."""
    descs = sorted((row.desc_name, row.kind, row.shape.__name__) for row in ROWS)
    functions = sorted(
        (row.face, _face_type(row))
        for row in ROWS
        if not row.served_by  # the face is its server's
    )
    shapes = sorted({shape for _, _, shape in descs})
    names = sorted([name for name, _, _ in descs] + [face for face, _ in functions])
    lines = [
        '"""The element-wise family\'s public names: each row\'s desc class and functional face',
        "(:mod:`dmljax._src.ops.element_wise`), bound to its name with its shape's type.",
        "",
        "Written by ``python docs/generate.py`` from the rows (a test fails when it is stale):",
        "edit the rows, not this file.",
        '"""',
        "",
        "from collections.abc import Callable",
        "",
        "import jax",
        "from jax.typing import ArrayLike",
        "",
        "from dmljax._src.ops.element_wise import (",
        "    DESCS,",
        "    FUNCTIONS,",
        *(f"    {shape}," for shape in shapes),
        ")",
        "",
        "__all__ = [",
        *(f'    "{name}",' for name in names),
        "]",
        "",
        "Unary = Callable[[ArrayLike], jax.Array]",
        "Binary = Callable[[ArrayLike, ArrayLike], jax.Array]",
        "Ternary = Callable[[ArrayLike, ArrayLike, ArrayLike], jax.Array]",
        "Bounded = Callable[[ArrayLike, int | float, int | float], jax.Array]",
        "Parameterized = Callable[..., jax.Array]  # an array, then attributes with defaults",
        "",
        *(_binding(desc, row, shape) for desc, row, shape in descs),
        "",
        *(f'{face}: {kind} = FUNCTIONS["{face}"]' for face, kind in functions),
        "",
    ]
    return "\n".join(lines)
