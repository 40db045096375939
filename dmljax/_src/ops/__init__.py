"""One module per DirectML operator; importing each registers it with compile_operator."""

from dmljax._src.ops import (
    gather as gather,
    gather_elements as gather_elements,
    scatter as scatter,
    slice as slice,
    slice1 as slice1,
    tile as tile,
)
