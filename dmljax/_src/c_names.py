"""DirectML's C names and dmljax's: a C struct's field (``ToNodeIndex``) is a desc's
field (``to_node_index``). DxDispatch's JSON models and serialized graphs both name
fields the C way.

>>> snake_case("ATensor"), pascal_case("to_node_index")
('a_tensor', 'ToNodeIndex')
"""

from __future__ import annotations

import re

__all__ = ["pascal_case", "snake_case"]


def snake_case(name: str) -> str:
    """A C field name as the desc's: ``ToNodeIndex`` is ``to_node_index``, ``ATensor``
    ``a_tensor`` (a one-letter word before a capitalised one)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def pascal_case(name: str) -> str:
    """A desc's field name as C's: ``to_node_index`` is ``ToNodeIndex``."""
    return "".join(part.title() for part in name.split("_"))
