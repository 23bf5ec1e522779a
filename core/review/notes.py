"""What the review service says in words: file sizes, cut diff lines, stale and restored blocks."""

from __future__ import annotations

from typing import Sequence

from ljtui.core.review.session import Refreshed
from ljtui.core.review.views import BlockView

MAX_DIFF_LINE_CHARS = 2_000
"""A diff line longer than this is cut, with a note saying how much."""

def size_text(count: int) -> str:
    """``652 KB``, ``5.4 MB``."""
    return f"{count / 1024:.0f} KB" if count < 1024 * 1024 else f"{count / 1024 / 1024:.1f} MB"


def cut_line(line: str) -> str:
    """``line``, cut at :data:`MAX_DIFF_LINE_CHARS` with a note saying how much is left out."""
    if len(line) <= MAX_DIFF_LINE_CHARS:
        return line
    return f"{line[:MAX_DIFF_LINE_CHARS]} … ({len(line) - MAX_DIFF_LINE_CHARS:,} more characters)"


def refresh_notes(found: Refreshed, blocks: Sequence[BlockView]) -> tuple[str, ...]:
    """The sentences that say which blocks went stale, or are back as reviewed."""
    def files(numbers: tuple[int, ...]) -> str:
        return ", ".join(sorted({b.file for b in blocks if b.number in numbers}))

    def listed(numbers: tuple[int, ...]) -> str:
        return ", ".join(str(n) for n in numbers)

    accepted = {b.number for b in blocks if b.state != "rejected"}  # a rejected block is shown as rejected
    stale = tuple(n for n in found.stale if n in accepted)
    restored = tuple(n for n in found.restored if n in accepted)
    notes = []
    if stale:
        notes.append(f"{files(stale)} changed on disk: EDIT {listed(stale)} now stale "
                     "(press space to accept the new diff)")
    if restored:
        notes.append(f"{files(restored)} is back as reviewed: EDIT {listed(restored)} no longer stale")
    return tuple(notes)
