"""Writes the docs' generated parts (support tables, DirectML doc examples, the operator
list, the API entries) into the Markdown pages, between their ``<!-- dml:... -->``
markers: ``python docs/generate.py``; with ``--check``, only says which pages are stale.

See :mod:`dmljax._src.checking.doc_pages`.
"""

from __future__ import annotations

import pathlib
import sys

from dmljax._src.checking.doc_pages import render_page

DOCS = pathlib.Path(__file__).parent


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
    verb = "stale" if check else "written"
    print("\n".join(f"{verb}: {page}" for page in stale) or "every page is current")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
