"""Plain-text helpers for the command line, the selftest and the benchmark reports."""

from __future__ import annotations

from collections.abc import Sequence

import jax

__all__ = ["describe_device", "describe_error", "elide", "format_table"]


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


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """Columns padded to their widest cell; the first ``left`` left-aligned, the others right.

    >>> print(format_table(["case", "ms"], [["tile", "0.149"], ["gather rows", "0.2"]]))
    case            ms
    -----------  -----
    tile         0.149
    gather rows    0.2
    """
    widths = [max(len(row[i]) for row in (headers, *rows)) for i in range(len(headers))]

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
