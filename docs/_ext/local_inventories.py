"""Intersphinx inventories of JAX and NumPy, written from the installed packages.

The docs build never downloads anything, so the ``objects.inv`` files that
intersphinx reads are made here: every public function and class of the modules
the pages cite, with the address each project's documentation gives it (JAX's
``_autosummary/<name>.html``, NumPy's ``reference/generated/<name>.html``).
"""

from __future__ import annotations

import inspect
import pathlib
import types
import zlib
from collections.abc import Iterator

import jax
import numpy as np

JAX_DOCS = "https://docs.jax.dev/en/latest/"
NUMPY_DOCS = "https://numpy.org/doc/stable/"

_JAX_MODULES = ("jax", "jax.numpy", "jax.lax", "jax.random", "jax.nn", "jax.export", "jax.tree")


def _public(module: types.ModuleType, prefix: str) -> Iterator[tuple[str, str]]:
    """``(qualified name, "function" or "class")`` of a module's public callables."""
    for name in sorted(dir(module)):
        if name.startswith("_"):
            continue
        value = getattr(module, name, None)
        if inspect.isclass(value):
            yield f"{prefix}.{name}", "class"
        elif callable(value):
            yield f"{prefix}.{name}", "function"


def _jax_entries() -> Iterator[tuple[str, str, str]]:
    import importlib

    for module_name in _JAX_MODULES:
        module = importlib.import_module(module_name)
        for name, kind in _public(module, module_name):
            yield name, kind, f"_autosummary/{name}.html#{name}"
    yield "jax.typing.ArrayLike", "data", "jax.typing.html#jax.typing.ArrayLike"
    yield "jax.typing.ArrayLike", "class", "jax.typing.html#jax.typing.ArrayLike"


def _numpy_entries() -> Iterator[tuple[str, str, str]]:
    for name, kind in _public(np, "numpy"):
        yield name, kind, f"reference/generated/{name}.html#{name}"


def _write(
    path: pathlib.Path, project: str, version: str, entries: Iterator[tuple[str, str, str]]
) -> None:
    lines = [f"{name} py:{kind} 1 {uri} -" for name, kind, uri in entries]
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n"
        f"# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    path.write_bytes(header.encode() + zlib.compress(("\n".join(lines) + "\n").encode()))


def write_inventories(folder: pathlib.Path) -> dict[str, tuple[str, str]]:
    """Writes the inventories into ``folder``; returns Sphinx's ``intersphinx_mapping``."""
    folder.mkdir(parents=True, exist_ok=True)
    jax_path, numpy_path = folder / "jax.inv", folder / "numpy.inv"
    _write(jax_path, "JAX", jax.__version__, _jax_entries())
    _write(numpy_path, "NumPy", np.__version__, _numpy_entries())
    return {"jax": (JAX_DOCS, str(jax_path)), "numpy": (NUMPY_DOCS, str(numpy_path))}
