"""One module per DirectML operator; importing each registers it with compile_operator."""

from dmljax._src.ops import gather as gather, tile as tile
