"""Unified diffs of planned file changes, plain or coloured for a terminal.

Lines common to the start and the end of both versions are cut (keeping
the context lines) before :mod:`difflib` runs, and the hunks are shifted
back, so a small edit in a large file diffs quickly. How each line is drawn
(line endings, undecodable bytes, control characters, binary content) is
:mod:`ljtui.core.edits.diff_drawing`'s job.
"""

from __future__ import annotations

import difflib
from typing import Iterable

from ljtui.core.edits.diff_drawing import NO_NEWLINE, Opcode, draw
from ljtui.core.edits.diff_sides import file_names, file_sides
from ljtui.core.edits.validate import FileChange

__all__ = ["ANSI", "ANSI_RESET", "DIFF_CONTEXT_LINES", "NO_NEWLINE", "colourise", "render_diffs", "unified_diff"]

DIFF_CONTEXT_LINES = 3
ANSI = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m", "header": "\x1b[1m"}
ANSI_RESET = "\x1b[0m"


def _common_run(a: list[str], b: list[str], limit: int, from_end: bool) -> int:
    """Length of the longest common prefix (or suffix) of ``a`` and ``b``, at most ``limit``."""
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        same = a[len(a) - mid:] == b[len(b) - mid:] if from_end else a[:mid] == b[:mid]
        low, high = (mid, high) if same else (low, mid - 1)
    return low


def _trimmed(a: list[str], b: list[str]) -> tuple[int, list[str], list[str]]:
    """``(offset, a', b')``: the differing middle of ``a`` and ``b`` with context lines kept."""
    prefix = _common_run(a, b, min(len(a), len(b)), from_end=False)
    suffix = _common_run(a, b, min(len(a), len(b)) - prefix, from_end=True)
    start = max(0, prefix - DIFF_CONTEXT_LINES)
    cut = max(0, suffix - DIFF_CONTEXT_LINES)
    return start, a[start:len(a) - cut], b[start:len(b) - cut]


def _shifted(group: list[Opcode], offset: int) -> list[Opcode]:
    return [(tag, i1 + offset, i2 + offset, j1 + offset, j2 + offset) for tag, i1, i2, j1, j2 in group]


def unified_diff(change: FileChange) -> str:
    """One file's change as a unified diff (``/dev/null`` for created or removed files), every line drawn
    so that it shows exactly the bytes written (:mod:`ljtui.core.edits.diff_drawing`)."""
    sides = file_sides(change)
    offset, before, after = _trimmed(sides.old, sides.new)
    matcher = difflib.SequenceMatcher(None, before, after)
    groups = [_shifted(group, offset) for group in matcher.get_grouped_opcodes(DIFF_CONTEXT_LINES)]
    return "".join(line + "\n" for line in draw(sides, groups, *file_names(change)))


def colourise(diff: str) -> str:
    """ANSI colours for a unified diff: additions green, removals red, hunks cyan."""
    out = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("---", "+++")):
            colour = ANSI["header"]
        else:
            colour = ANSI.get(line[:1], "")
        out.append(f"{colour}{line.rstrip(chr(10))}{ANSI_RESET}\n" if colour else line)
    return "".join(out)


def render_diffs(changes: Iterable[FileChange], *, colour: bool = False) -> str:
    """Every change's diff, in order; coloured when ``colour``."""
    text = "".join(unified_diff(c) for c in changes)
    return colourise(text) if colour else text
