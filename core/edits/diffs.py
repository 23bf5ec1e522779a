"""Unified diffs of planned file changes, plain or coloured for a terminal.

Lines common to the start and the end of both versions are cut (keeping
the context lines) before :mod:`difflib` runs, and the hunk headers are
shifted back, so a small edit in a large file diffs quickly.
"""

from __future__ import annotations

import difflib
import re
from typing import Iterable

from ljtui.core.edits.validate import FileChange

DIFF_CONTEXT_LINES = 3
NO_NEWLINE = "\\ No newline at end of file"
ANSI = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m", "header": "\x1b[1m"}
ANSI_RESET = "\x1b[0m"
_LINES = re.compile(r"[^\n]*\n|[^\n]+")
_HUNK = re.compile(r"@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def _lines(data: bytes | None) -> list[str] | None:
    if data is None:
        return []
    try:
        return _LINES.findall(data.decode("utf-8"))
    except UnicodeDecodeError:
        return None


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


def _shift(header: str, offset: int) -> str:
    match = _HUNK.match(header)
    if not match or not offset:
        return header
    old_start, old_len, new_start, new_len = match.groups()
    return (f"@@ -{int(old_start) + offset}{old_len or ''} +{int(new_start) + offset}{new_len or ''} @@"
            + header[match.end():])


def unified_diff(change: FileChange) -> str:
    """One file's change as a unified diff (``/dev/null`` for created or removed files)."""
    before, after = _lines(change.before), _lines(change.after)
    old_name = f"a/{change.path}" if change.before is not None else "/dev/null"
    new_name = f"b/{change.path}" if change.after is not None else "/dev/null"
    if before is None or after is None:
        return f"--- {old_name}\n+++ {new_name}\nBinary file {change.path} differs\n"
    offset, before, after = _trimmed(before, after)
    out = []
    for line in difflib.unified_diff(before, after, old_name, new_name, n=DIFF_CONTEXT_LINES):
        if line.startswith("@@"):
            line = _shift(line, offset)
        if line.endswith("\n"):
            out.append(line.rstrip("\r\n") + "\n")
        else:
            out.append(line.rstrip("\r") + "\n" + NO_NEWLINE + "\n")
    return "".join(out)


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
