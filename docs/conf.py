"""Sphinx configuration of the dmljax documentation (MyST Markdown, furo).

Build: ``sphinx-build -W --keep-going -b html docs docs/_build/html``. The
feature-level tables, the DirectML doc examples and the operator API entries are
written into the pages by ``python docs/generate.py`` (plain Markdown, which GitHub
shows as Sphinx does); the build renders the pages as they are.
"""

from __future__ import annotations

import pathlib
import sys

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))

from local_inventories import write_inventories  # noqa: E402

import dmljax  # noqa: E402

project = "dmljax"
author = "the dmljax authors"
copyright = "the dmljax authors"
release = dmljax.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.intersphinx",
    "sphinx.ext.napoleon",
    "sphinx_copybutton",
]

# Links to JAX's and NumPy's pages, from inventories written here (the build downloads nothing).
intersphinx_mapping = write_inventories(HERE / "_build" / "inventories")
intersphinx_disabled_reftypes = ["std:doc"]

# The copy button copies the code of a >>> example, not its prompts or its output.
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "conftest.py", "_ext"]

myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
# Aliases kept as written in signatures (dmljax's modules use `from __future__ import
# annotations`), not expanded into their unions.
autodoc_type_aliases = {
    "ArrayLike": "jax.typing.ArrayLike",
    "StaticInts": "Sequence[int]",  # Python ints or a 1-D NumPy array: static values
    "IntOrStaticInts": "int | Sequence[int]",
}
autodoc_default_options = {"members": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True

html_theme = "furo"
html_title = "dmljax"
html_static_path: list[str] = []
pygments_style = "sphinx"
