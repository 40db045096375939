"""One module per DirectML operator, and :data:`OPERATORS`, the list of them all.

Adding an operator is one module here (see the docs page "Adding an operator")
and one line below.
"""

from dmljax._src.contract import Operator
from dmljax._src.ops.diagonal_matrix import DIAGONAL_MATRIX
from dmljax._src.ops.diagonal_matrix1 import DIAGONAL_MATRIX1
from dmljax._src.ops.gather import GATHER
from dmljax._src.ops.gather_elements import GATHER_ELEMENTS
from dmljax._src.ops.gather_nd import GATHER_ND
from dmljax._src.ops.gather_nd1 import GATHER_ND1
from dmljax._src.ops.join import JOIN
from dmljax._src.ops.one_hot import ONE_HOT
from dmljax._src.ops.padding import PADDING
from dmljax._src.ops.padding1 import PADDING1
from dmljax._src.ops.reverse_subsequences import REVERSE_SUBSEQUENCES
from dmljax._src.ops.scatter import SCATTER
from dmljax._src.ops.scatter_nd import SCATTER_ND
from dmljax._src.ops.slice import SLICE
from dmljax._src.ops.slice1 import SLICE1
from dmljax._src.ops.slice_grad import SLICE_GRAD
from dmljax._src.ops.split import SPLIT
from dmljax._src.ops.tile import TILE

__all__ = ["OPERATORS"]

OPERATORS: tuple[Operator, ...] = (
    TILE,
    GATHER,
    GATHER_ELEMENTS,
    SCATTER,
    SLICE1,
    SLICE,
    SLICE_GRAD,
    GATHER_ND,
    GATHER_ND1,
    SCATTER_ND,
    PADDING,
    PADDING1,
    JOIN,
    SPLIT,
    ONE_HOT,
    REVERSE_SUBSEQUENCES,
    DIAGONAL_MATRIX,
    DIAGONAL_MATRIX1,
)
"""Every operator dmljax implements, in the order the docs list them."""
