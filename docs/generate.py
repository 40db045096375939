"""Writes the docs' generated parts (support tables, DirectML doc examples, the operator
list, the API entries) into the Markdown pages, between their ``<!-- dml:... -->``
markers, and the element-wise family's names module: ``python docs/generate.py``; with
``--check``, only says which pages are stale.

See :mod:`dmljax._src.checking.doc_pages` and :mod:`dmljax._src.checking.family_names`.
"""

from __future__ import annotations

import pathlib
import sys

from dmljax._src.checking import family_names
from dmljax._src.checking.doc_pages import render_page

DOCS = pathlib.Path(__file__).parent
ROOT = DOCS.parent


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for page in sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts):
        text = page.read_text()
        written = render_page(text)
        if written != text:
            stale.append(page.relative_to(DOCS))
            if not check:
                page.write_text(written)
    names = ROOT / family_names.MODULE
    if not names.exists() or names.read_text() != family_names.render():
        stale.append(pathlib.Path("..", family_names.MODULE))
        if not check:
            names.write_text(family_names.render())
    verb = "stale" if check else "written"
    print("\n".join(f"{verb}: {page}" for page in stale) or "every page is current")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
