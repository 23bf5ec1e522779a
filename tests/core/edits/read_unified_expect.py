"""Builders of the blocks the unified-diff reader is expected to produce, for exact comparisons."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.edits.plan import CREATE, DELETE, EDIT, MODE, MOVE, BlockSource, EditBlock, HunkAnchor

PATCHES = Path(__file__).parent / "patches"


def fixture(name: str) -> str:
    """A stored fixture's text, decoded as ljtui decodes a diff (UTF-8, ``surrogateescape``)."""
    return (PATCHES / name).read_bytes().decode("utf-8", "surrogateescape")


def _source(fmt: str, label: str, hunk: int, hunks: int, header: str, line: int, commit: str | None) -> BlockSource:
    return BlockSource(fmt, label, hunk=hunk, hunks=hunks, header=header, commit=commit, line=line)


def edit(number: int, file: str, old: str, new: str, *, header: str, line: int, at: tuple[bool, bool, int],
         hunk: int = 1, hunks: int = 1, where: str | None = None, entry: str | None = None, fmt: str = "git",
         label: str | None = None, commit: str | None = None) -> EditBlock:
    """A hunk: ``at`` is the anchor's ``(at_start, at_end, line)``."""
    return EditBlock(number, file, where, entry or file, old, new, line=line, action=EDIT,
                     anchor=HunkAnchor(at_start=at[0], at_end=at[1], line=at[2]),
                     source=_source(fmt, label or file, hunk, hunks, header, line, commit))


def create(number: int, file: str, new: str, *, header: str, line: int, hunk: int = 1, mode: int | None = None,
           entry: str | None = None, fmt: str = "git", commit: str | None = None) -> EditBlock:
    """A new file (``hunk=0``: made without a hunk)."""
    return EditBlock(number, file, None, entry or file, "", new, line=line, action=CREATE, mode=mode,
                     source=_source(fmt, file, hunk, hunk, header, line, commit))


def delete(number: int, file: str, old: str, *, header: str, line: int, hunks: int = 1, fmt: str = "git",
           entry: str | None = None) -> EditBlock:
    """A deleted file whose whole old content the diff carries."""
    return EditBlock(number, file, None, entry or file, old, "", line=line, action=DELETE,
                     anchor=HunkAnchor(at_start=True, at_end=True),
                     source=_source(fmt, file, 0, hunks, header, line, None))


def move(number: int, old: str, new: str, *, header: str, line: int, hunks: int = 0, fmt: str = "git",
         commit: str | None = None) -> EditBlock:
    """A rename of ``old`` to ``new``."""
    return EditBlock(number, new, None, new, "", "", line=line, action=MOVE, moved_from=old,
                     source=_source(fmt, f"{old} → {new}", 0, hunks, header, line, commit))


def mode(number: int, file: str, value: int, *, header: str, line: int, hunks: int = 0,
         label: str | None = None) -> EditBlock:
    """A mode change."""
    return EditBlock(number, file, None, file, "", "", line=line, action=MODE, mode=value,
                     source=_source("git", label or file, 0, hunks, header, line, None))
