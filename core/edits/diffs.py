"""Unified diffs of planned file changes, plain or coloured for a terminal."""

from __future__ import annotations

import difflib
from typing import Iterable

from ljtui.core.edits.validate import FileChange

DIFF_CONTEXT_LINES = 3
NO_NEWLINE = "\\ No newline at end of file"
ANSI = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m", "header": "\x1b[1m"}
ANSI_RESET = "\x1b[0m"


def _lines(data: bytes | None) -> list[str] | None:
    if data is None:
        return []
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def unified_diff(change: FileChange) -> str:
    """One file's change as a unified diff (``/dev/null`` for created or removed files)."""
    before, after = _lines(change.before), _lines(change.after)
    old_name = f"a/{change.path}" if change.before is not None else "/dev/null"
    new_name = f"b/{change.path}" if change.after is not None else "/dev/null"
    if before is None or after is None:
        return f"--- {old_name}\n+++ {new_name}\nBinary file {change.path} differs\n"
    out = []
    for line in difflib.unified_diff(before, after, old_name, new_name, n=DIFF_CONTEXT_LINES):
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
