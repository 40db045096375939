"""Plain-text helpers for the command line, the selftest and the benchmark reports."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable, Sequence
from typing import Any

import jax

__all__ = [
    "WIDTH",
    "TableFormatter",
    "column_widths",
    "describe_device",
    "describe_error",
    "either_filter",
    "elide",
    "format_table",
    "matches_filters",
    "table_formatter",
]


WIDTH = 120
"""The widest line of a command's report: tables and prose fit a 120-column terminal or log."""


def describe_device() -> str:
    """The default device in words, e.g. ``"gpu: NVIDIA H100 80GB HBM3 (1 device)"``."""
    devices = jax.devices()
    count = f"{len(devices)} device{'s' if len(devices) != 1 else ''}"
    return f"{jax.default_backend()}: {devices[0].device_kind} ({count})"


def describe_error(error: BaseException, limit: int = 240) -> str:
    r"""``"TypeName: first line of the message"``, cut to ``limit`` characters.

    >>> describe_error(ValueError("bad sizes\nmore detail"))
    'ValueError: bad sizes'
    """
    lines = str(error).strip().splitlines()
    text = f"{type(error).__name__}: {lines[0] if lines else ''}".strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def matches_filters(name: str, filters: Sequence[str] | None) -> bool:
    """Whether ``name`` contains any of ``filters`` (case-insensitive); True for none.

    The rule of every ``--filter`` option, which may be given more than once.

    >>> matches_filters("scatter axis 1 donated", ["GRAPH", "donated"])
    True
    >>> matches_filters("tile (2,2)", ["graph"]), matches_filters("tile (2,2)", None)
    (False, True)
    """
    if not filters:
        return True
    lowered = name.lower()
    return any(text.lower() in lowered for text in filters)


def either_filter(filters: Sequence[str] | None) -> str:
    """``--filter`` values as a message names them.

    >>> either_filter(["tile", "graph"])
    "'tile' or 'graph'"
    """
    return " or ".join(map(repr, filters or ()))


def column_widths(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[int]:
    """Each column's widest cell, as :func:`format_table` pads it.

    >>> column_widths(["case", "ms"], [["tile", "0.149"]])
    [4, 5]
    """
    return [max(len(row[i]) for row in (headers, *rows)) for i in range(len(headers))]


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """Columns padded to their widest cell; the first ``left`` left-aligned, the others right.

    >>> print(format_table(["case", "ms"], [["tile", "0.149"], ["gather rows", "0.2"]]))
    case            ms
    -----------  -----
    tile         0.149
    gather rows    0.2
    """
    widths = column_widths(headers, rows)

    def line(cells: Sequence[str]) -> str:
        padded = [
            cell.ljust(width) if i < left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(padded).rstrip()

    rules = ["-" * width for width in widths]
    if left >= len(widths):  # a free-text last column: its rule need not span its longest cell
        rules[-1] = "-" * max(len(headers[-1]), 6)
    rule = "  ".join(rules)
    return "\n".join([line(headers), rule, *(line(row) for row in rows)])


def elide(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, its middle replaced by ``...`` where too long.

    >>> elide("float32[3,4] indices int16[3,5] axis 1", 24)
    'float32[3,4] i... axis 1'
    """
    if len(text) <= width:
        return text
    head = (width - 3) * 2 // 3
    return f"{text[:head]}...{text[len(text) - (width - 3 - head) :]}"


TableFormatter = Callable[[Sequence[str], Sequence[Sequence[str]], int], str]
"""``(headers, rows, left) -> text``: :func:`format_table`'s signature."""


def table_formatter(out: Any, *, width: int | None = None) -> TableFormatter:
    """How to draw tables for ``out``: with `rich <https://rich.readthedocs.io>`_ on a
    terminal where it is installed (the ``cli`` extra), else :func:`format_table`, whose
    plain columns suit pipes, files and tests.

    ``width`` caps the line length (the terminal's by default).

    >>> import io
    >>> table_formatter(io.StringIO()) is format_table
    True
    """
    isatty = getattr(out, "isatty", None)
    if isatty is None or not isatty():
        return format_table
    try:
        from rich import box  # pyright: ignore[reportMissingImports]
        from rich.console import Console  # pyright: ignore[reportMissingImports]
        from rich.table import Table  # pyright: ignore[reportMissingImports]
    except ImportError:
        return format_table
    columns = shutil.get_terminal_size().columns
    size = columns if width is None else min(width, columns)

    def rich_table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
        for i, header in enumerate(headers):
            table.add_column(header, justify="left" if i < left else "right")
        for row in rows:
            style = "bold red" if any(cell in ("FAIL", "FAILED", "MISS") for cell in row) else None
            table.add_row(*row, style=style)
        buffer = io.StringIO()
        Console(file=buffer, force_terminal=True, width=size).print(table)
        return buffer.getvalue().rstrip("\n")

    return rich_table
