"""Named error values of the EDIT format, its validation and its transaction.

Every failure is a value of its own class (``AnchorNotFound``,
``PathEscape`` …) carrying the block number, the file and a message a
human or the planner's repair loop can act on. They are data, not
exceptions: the parser collects them into :class:`PlanParseError`, the
validator into its report, the applier into the result contract.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Candidate:
    """A place in a file that looks like a failed anchor.

    Attributes:
        file: Repo-relative path, POSIX separators.
        line: 1-based line number where the candidate window starts.
        score: Similarity to the anchor, 0.0–1.0.
        excerpt: The first lines of the window, shortened.
        strength: ``"strong"`` or ``"weak"``.
    """

    file: str
    line: int
    score: float
    excerpt: str
    strength: str = "strong"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, as used in the result contract."""
        return {"file": self.file, "line": self.line, "score": round(self.score, 3),
                "excerpt": self.excerpt, "strength": self.strength}


@dataclass(frozen=True)
class EditError:
    """Base of every named error.

    Attributes:
        block: The EDIT block number, or ``None`` when no block is concerned.
        message: One human sentence naming what is wrong and where.
        file: The repo-relative target path, when one is concerned.
        candidates: Nearest matches for a failed anchor (strong first).
    """

    block: int | None
    message: str
    file: str | None = None
    candidates: tuple[Candidate, ...] = field(default=())

    @property
    def kind(self) -> str:
        """The error's name, e.g. ``AnchorNotFound``."""
        return type(self).__name__

    def __str__(self) -> str:
        where = f"block {self.block}: " if self.block is not None else ""
        return f"{self.kind}: {where}{self.message}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        data: dict[str, Any] = {"kind": self.kind, "block": self.block, "message": self.message}
        if self.file is not None:
            data["file"] = self.file
        if self.candidates:
            data["candidates"] = [c.to_dict() for c in self.candidates]
        return data


# --- plan format --------------------------------------------------------------

class NoBlocks(EditError):
    """The text holds no ``### EDIT N`` heading."""


class MalformedHeading(EditError):
    """A heading starts with ``EDIT`` but carries no block number."""


class NonAscendingNumber(EditError):
    """EDIT numbers do not strictly ascend from top to bottom."""


class MissingFile(EditError):
    """A block has no ``- file:`` line (or an empty one)."""


class DuplicateField(EditError):
    """A block gives ``file``, ``where`` or ``entry`` twice."""


class MissingOld(EditError):
    """A block has no ```` ```old ```` fence."""


class MissingNew(EditError):
    """A block has no ```` ```new ```` fence."""


class DuplicateFence(EditError):
    """A block has two ``old`` or two ``new`` fences."""


class FenceOrder(EditError):
    """A block's ``new`` fence comes before its ``old`` fence."""


class UnclosedFence(EditError):
    """A code fence is never closed."""


class IndentedFence(EditError):
    """An ``old``/``new`` fence is indented, so its bytes would be ambiguous."""


class OrphanFence(EditError):
    """An ``old``/``new`` fence stands outside any EDIT block."""


class MalformedDeclaration(EditError):
    """The trailing ```` ```json ```` declaration is not the expected object."""


class DuplicateDeclaration(EditError):
    """More than one declaration block follows the last EDIT block."""


class EntrySplit(EditError):
    """An entry's blocks are not contiguous."""


class MalformedField(EditError):
    """A ``- file:`` or ``- entry:`` value is not exactly one name (empty, several, or spaces unquoted)."""


# --- validation against the repository ---------------------------------------

class PathEscape(EditError):
    """A path is absolute, uses ``..`` or resolves outside the repo root."""


class PathForbidden(EditError):
    """A path is empty or holds a character no plan path may hold (NUL, backslash)."""


class PathProtected(EditError):
    """A path lies in ``.agent/`` or has a ``.git`` component (any depth, any case)."""


class ReadOnlyTarget(EditError):
    """A target file has no write permission; ljtui never overwrites it."""


class NotAFile(EditError):
    """A target exists but is not a regular file."""


class FileExists(EditError):
    """An empty ``old`` asks to create a file that already exists."""


class FileMissing(EditError):
    """A non-empty ``old`` targets a file that does not exist."""


class ReadFailed(EditError):
    """A target could not be read."""


class SecretTarget(EditError):
    """A target the session's secret-file policy calls secret, refused for a model before it is read."""


class AnchorNotFound(EditError):
    """``old`` does not occur in the current file."""


@dataclass(frozen=True)
class AnchorAmbiguous(EditError):
    """``old`` occurs more than once; ``lines`` lists every occurrence."""

    lines: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["lines"] = list(self.lines)
        return data


class EntryNotApplied(EditError):
    """An entry that validated but was dropped because another one failed."""


# --- other tools' formats (diffs, Aider, Codex) -------------------------------

class UnknownFormat(EditError):
    """The text is none of the formats ljtui reads (or not the one named)."""


class MalformedPatch(EditError):
    """A diff, SEARCH/REPLACE block or patch envelope breaks its format's grammar."""


class BinaryPatch(EditError):
    """A diff changes a binary file; ljtui reads text hunks only."""


class UnsupportedPatch(EditError):
    """A diff asks for what ljtui does not write: a symbolic link, a submodule, a copy."""


class UnanchoredHunk(EditError):
    """A hunk has no old lines to place it by (a ``-U0`` insertion): it would apply by line number alone."""


# --- transaction ---------------------------------------------------------------

class StalePlan(EditError):
    """A target changed on disk after the plan was validated."""


class WriteFailed(EditError):
    """Writing a target failed; every file was rolled back."""


class VerifyFailed(EditError):
    """A written target did not read back as expected; rolled back."""


class ApplyInProgress(EditError):
    """Another ljtui process holds the journal lock."""


class UndoRefused(EditError):
    """Undo is impossible or unsafe; nothing was written."""


class StateDirRefused(EditError):
    """``.agent`` (or a folder or file ljtui keeps in it) is a symlink or not what it should be; nothing is written."""
