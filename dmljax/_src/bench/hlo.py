"""Reading compiled XLA programs: which instructions run as kernels.

The compiled (optimised) HLO of a jitted function has one ENTRY computation
whose instructions, apart from parameters, constants, bitcasts and tuple
plumbing, each launch work: a fusion, a gather, a copy, a sort... Their
number is the "kernel count" the benchmarks and tests compare.
"""

from __future__ import annotations

import collections
import re
from typing import Any

__all__ = ["entry_opcodes", "kernel_count"]

_FREE_OPCODES = frozenset({"parameter", "constant", "bitcast", "tuple", "get-tuple-element"})
_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*(.*)$")


def _opcode(rest: str) -> str:
    # `rest` is "<shape> <opcode>(<operands>)..."; a tuple shape is parenthesised.
    if rest.startswith("("):
        depth = 0
        for i, char in enumerate(rest):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0:
                rest = rest[i + 1 :]
                break
    else:
        rest = rest.split(" ", 1)[1] if " " in rest else ""
    return rest.strip().split("(", 1)[0].strip()


def entry_opcodes(hlo_text: str) -> collections.Counter[str]:
    """Opcodes of the ENTRY computation of an HLO module's text, counted."""
    counts: collections.Counter[str] = collections.Counter()
    inside = False
    for line in hlo_text.splitlines():
        if line.startswith("ENTRY"):
            inside = True
            continue
        if inside:
            if line.startswith("}"):
                break
            match = _INSTRUCTION.match(line)
            if match:
                counts[_opcode(match.group(1))] += 1
    return counts


def kernel_count(compiled: Any) -> int:
    """Instructions of a compiled program's ENTRY that do work (``jax.stages.Compiled``)."""
    opcodes = entry_opcodes(compiled.as_text())
    return sum(n for opcode, n in opcodes.items() if opcode not in _FREE_OPCODES)
