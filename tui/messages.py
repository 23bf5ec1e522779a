"""Textual messages that carry engine events and worker results into the UI.

Only :mod:`ljtui.tui.bridge` creates them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from ljtui.core.events import Event

if TYPE_CHECKING:
    from ljtui.core.edits.apply import ApplyReport
    from ljtui.core.edits.recovery import UndoOutcome
    from ljtui.core.review.session import ApplyRefused, BlockView


class EngineEventPosted(Message):
    """An engine event, delivered on the UI's event loop."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class ReviewChanged(Message):
    """The plan under review changed: opened, re-validated, choices made.

    ``blocks`` is ``None`` when no plan is under review any more.
    """

    def __init__(self, blocks: tuple[BlockView, ...] | None, notes: list[str], origin: str = "") -> None:
        super().__init__()
        self.blocks = blocks
        self.notes = notes
        self.origin = origin


class ReviewFailed(Message):
    """A plan could not be opened (unreadable file, malformed plan)."""

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message


class ApplyProgressed(Message):
    """A progress line from a running apply."""

    def __init__(self, line: str) -> None:
        super().__init__()
        self.line = line


class ApplyFinished(Message):
    """An apply ended: a report of what was written, or why nothing was."""

    def __init__(self, outcome: ApplyReport | ApplyRefused) -> None:
        super().__init__()
        self.outcome = outcome


class UndoPreviewed(Message):
    """What undo would restore: the files of the last apply (``None``: nothing kept)."""

    def __init__(self, files: list[str] | None) -> None:
        super().__init__()
        self.files = files


class UndoFinished(Message):
    """An undo ended: the files reverted, or why nothing was written."""

    def __init__(self, outcome: UndoOutcome) -> None:
        super().__init__()
        self.outcome = outcome


class PlanExported(Message):
    """The accepted blocks were written to ``path`` (or ``error`` says why not)."""

    def __init__(self, path: str, count: int, error: str | None = None) -> None:
        super().__init__()
        self.path = path
        self.count = count
        self.error = error
