"""What a front end asks the review to open: a file, a change already read, or a git range (plain values)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ChangeText:
    """A change's text and where it came from, or why it could not be read.

    Attributes:
        text: The change, or ``None`` when it could not be read.
        origin: How the change is named in messages (``git diff HEAD~3..HEAD``, ``standard input``, a path).
        problem: Why there is no text.
    """

    text: str | None
    origin: str
    problem: str | None = None


@dataclass(frozen=True)
class ReviewRequest:
    """What to open for review: a file, a change already read, or git's diff of ``git`` (``fmt``: its format,
    detected when ``None``)."""

    path: Path | None = None
    change: ChangeText | None = None
    git: str | None = None
    fmt: str | None = None
