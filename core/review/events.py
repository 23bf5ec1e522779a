"""Events of the plan under review: opened, changed, applied, undone, exported.

Every change to the review is one event carrying a fresh, immutable
picture, numbered by ``seq`` in the order the changes happened, so a UI
that receives two pictures out of order keeps the newer one. Pictures
carry no diffs: a UI asks for the diff of the block it shows
(``ReviewService.diff``). While a big plan is being checked, blocks not
validated yet are ``checking`` and a picture follows every step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ljtui.core.events import Event
from ljtui.core.review.views import BlockView


@dataclass(frozen=True)
class PlanOpened(Event):
    """A plan is now under review; ``origin`` is a file name or ``planner``."""

    origin: str
    seq: int
    blocks: tuple[BlockView, ...]
    version: int = 0
    """The review's version: a diff fetched at this version (``DiffPage.version``) is current."""

    @property
    def files(self) -> int:
        """How many distinct files the blocks touch."""
        return len({b.file for b in self.blocks})

    @property
    def checking(self) -> int:
        """How many blocks are not validated yet."""
        return _checking(self.blocks)


@dataclass(frozen=True)
class PlanOpenFailed(Event):
    """A plan could not be opened (unreadable, not an EDIT plan)."""

    origin: str
    message: str


@dataclass(frozen=True)
class ReviewChanged(Event):
    """The review changed (a choice, a re-check, a file changed on disk, a step of checking a big plan).

    ``blocks`` is ``None`` when no plan is under review any more; ``notes``
    say why other blocks changed with the chosen one, or which became stale.
    """

    seq: int
    blocks: tuple[BlockView, ...] | None
    notes: tuple[str, ...] = ()
    version: int = 0
    """The review's version: a diff fetched at this version (``DiffPage.version``) is current."""

    @property
    def checking(self) -> int:
        """How many blocks are not validated yet."""
        return _checking(self.blocks or ())


def _checking(blocks: tuple[BlockView, ...]) -> int:
    return sum(b.state == "checking" for b in blocks)


@dataclass(frozen=True)
class ApplyRefused(Event):
    """Apply wrote nothing; ``message`` says why and what to do."""

    message: str
    blocks: tuple[int, ...] = ()


@dataclass(frozen=True)
class ApplyProgressed(Event):
    """A step of a running apply (validating, writing, chunk n of m), or a line about it.

    ``done`` of ``total`` steps ran before this one (``total`` is 0 for a
    line that is no step); ``started`` is when the apply began, on the
    engine clock's monotonic seconds. ``ended`` says the apply is over
    (finished, refused, failed or cancelled): its progress is no longer shown.
    """

    line: str
    done: int = 0
    total: int = 0
    started: float = 0.0
    ended: bool = False


@dataclass(frozen=True)
class ApplyFinished(Event):
    """An apply ended; ``result`` is the EDIT-6 result contract."""

    result: dict[str, Any]
    blocks: int = 0
    """How many blocks were applied."""

    @property
    def status(self) -> str:
        return str(self.result.get("status"))


def remaining_line(remaining: int) -> str:
    """How many earlier applies undo can still revert, for the user."""
    if remaining == 0:
        return "no earlier apply is kept to undo"
    return f"{remaining} more step{'s' if remaining != 1 else ''} can be undone"


@dataclass(frozen=True)
class UndoFinished(Event):
    """An undo ended: ``files`` restored, or ``error`` and nothing written."""

    files: tuple[str, ...] = ()
    error: str | None = None
    removed: tuple[str, ...] = field(default=())
    """Files the undone apply had created, now removed."""
    remaining: int | None = None
    """Earlier applies still kept, that undo can revert next (``None``: not known, or the undo failed)."""


@dataclass(frozen=True)
class ExportWritten(Event):
    """The accepted blocks were written as a plan file at ``path`` (repo-relative)."""

    path: str
    count: int


@dataclass(frozen=True)
class ExportFailed(Event):
    """An export wrote nothing; ``message`` says why."""

    path: str
    message: str
