"""Sphinx configuration of the dmljax documentation (MyST Markdown, furo).

Build: ``sphinx-build -W --keep-going -b html docs docs/_build/html``. The
feature-level tables and the DirectML doc examples are generated at build
time by ``_ext/dmljax_docs.py`` from the code and the packaged examples.
"""

from __future__ import annotations

import pathlib
import sys

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))

import dmljax  # noqa: E402

project = "dmljax"
author = "the dmljax authors"
copyright = "the dmljax authors"
release = dmljax.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "dmljax_docs",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "conftest.py", "_ext"]

myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True

html_theme = "furo"
html_title = "dmljax"
html_static_path: list[str] = []
pygments_style = "sphinx"
