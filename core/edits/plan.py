"""The parsed form of an EDIT plan: blocks, entries and declarations."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ljtui.core.edits import errors as E

DEFAULT_ENTRY_ID = "plan"
"""Entry id of blocks that name no ``- entry:``: the whole plan is one entry."""
DECLARATION_KEYS = ("will_modify", "will_add", "will_remove")
MAX_NUMBER_DIGITS = 9
"""Longest accepted EDIT number (or line hint); longer digit runs are refused."""

_HINT = re.compile(r"~[ \t]*([0-9]{1,%d})" % MAX_NUMBER_DIGITS)

EDIT, CREATE, DELETE, MOVE, MODE = "edit", "create", "delete", "move", "mode"
"""What a block does to its file: replace ``old`` once (an EDIT block with an empty ``old`` creates the file),
create it, delete it, rename ``moved_from`` to it, or set its mode."""
ACTIONS = (EDIT, CREATE, DELETE, MOVE, MODE)
EXECUTABLE, REGULAR = 0o755, 0o644
"""The two file modes a patch can ask for (git's ``100755`` and ``100644``)."""


@dataclass(frozen=True)
class HunkAnchor:
    """Where a diff hunk's ``old`` may match, besides exactly once at the start of a line.

    A hunk is placed by its text alone; these narrow the places it may match,
    never widen them, and its line number is only shown.

    Attributes:
        at_start: ``old`` must begin at the first byte of the file (the hunk starts on line 1).
        at_end: ``old`` must end at the last byte of the file (no context follows the change,
            or its last line has no line break).
        after: A line that must come first: the match is counted only after the first line
            equal to it, leading and trailing whitespace aside (Codex's ``@@ def name``).
        line: The hunk's first line in the file it was made from, for messages.
    """

    at_start: bool = False
    at_end: bool = False
    after: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class BlockSource:
    """Which part of which change a block was read from, so a reviewer sees it as it was written.

    Attributes:
        format: ``edit``, ``git``, ``unified``, ``mbox`` (``git format-patch``), ``aider`` or ``codex``.
        file: The file as the change names it (``old → new`` for a rename).
        hunk: The block's 1-based hunk within that file (``0``: the file itself: create, delete, rename, mode).
        hunks: How many hunks that file has.
        header: The hunk's header as written (``@@ -12,7 +12,8 @@ def main():``) or the file's line.
        commit: The commit's subject line, for a patch series.
        line: The 1-based line of the source text where the hunk starts.
    """

    format: str
    file: str
    hunk: int = 0
    hunks: int = 0
    header: str = ""
    commit: str | None = None
    line: int = 0

    @property
    def label(self) -> str:
        """The Diff pane's title: ``hunk 2/5 of src/app.py (git) in [PATCH 1/2] Fix it``."""
        part = f"hunk {self.hunk}/{self.hunks} of {self.file}" if self.hunk else self.file
        commit = f" in {self.commit}" if self.commit else ""
        return f"{part} ({self.format}){commit}"

    @property
    def short(self) -> str:
        """The block list's note: ``hunk 2/5 @@ -12,7 +12,8 @@ def main():`` or the file's own line."""
        part = f"hunk {self.hunk}/{self.hunks}" if self.hunk else ""
        return " ".join(p for p in (part, self.header) if p)


@dataclass(frozen=True)
class Declarations:
    """The plan's machine-readable declaration of symbols it touches."""

    will_modify: tuple[str, ...] = ()
    will_add: tuple[str, ...] = ()
    will_remove: tuple[str, ...] = ()
    present: bool = False
    """False when the plan carries no declaration block."""

    def to_dict(self) -> dict[str, list[str]]:
        """JSON-ready form with the three keys."""
        return {k: list(getattr(self, k)) for k in DECLARATION_KEYS}


@dataclass(frozen=True)
class EditBlock:
    """One ``### EDIT N`` block.

    Attributes:
        number: The block's number as written.
        file: Target path as written (validated later against the repo).
        where: The free-text location note, or ``None``.
        entry: The entry id this block belongs to.
        old: Exact text to replace; empty means "create this file".
        new: Exact replacement text.
        prose: The block's explanation, paragraphs joined by blank lines.
        line: 1-based line of the heading in the plan text.
        action: What the block does (:data:`ACTIONS`); an EDIT plan's blocks are all ``edit``.
        moved_from: For ``move``: the file renamed to ``file``.
        mode: The mode ``file`` gets (:data:`EXECUTABLE` or :data:`REGULAR`), for ``create`` and ``mode``.
        anchor: Where a diff hunk may match (``None``: the EDIT rules alone).
        source: Where a block read from a diff or another tool's format came from.
    """

    number: int
    file: str
    where: str | None
    entry: str
    old: str
    new: str
    prose: str = ""
    line: int = 0
    action: str = EDIT
    moved_from: str | None = None
    mode: int | None = None
    anchor: HunkAnchor | None = None
    source: BlockSource | None = None

    @property
    def creates(self) -> bool:
        """True when the block creates a new file (``create``, or an EDIT block with an empty ``old``)."""
        return self.action == CREATE or (self.action == EDIT and self.old == "" and self.anchor is None)

    @property
    def paths(self) -> tuple[str, ...]:
        """Every file the block touches, as written: ``file``, and the file a rename moves."""
        return (self.file,) if self.moved_from is None else (self.moved_from, self.file)

    @property
    def hint_line(self) -> int | None:
        """The ``~N`` line hint of ``where``, if any."""
        match = _HINT.search(self.where or "")
        return int(match.group(1)) if match else None


@dataclass(frozen=True)
class Entry:
    """Blocks that apply together or not at all."""

    id: str
    blocks: tuple[EditBlock, ...]


@dataclass(frozen=True)
class EditPlan:
    """A parsed plan: its blocks in order and its declarations."""

    blocks: tuple[EditBlock, ...]
    declarations: Declarations = field(default_factory=Declarations)

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Entries in plan order (their blocks are contiguous by construction)."""
        grouped: dict[str, list[EditBlock]] = {}
        for block in self.blocks:
            grouped.setdefault(block.entry, []).append(block)
        return tuple(Entry(k, tuple(v)) for k, v in grouped.items())

    @property
    def entry_ids(self) -> tuple[str, ...]:
        """Entry ids in plan order."""
        return tuple(e.id for e in self.entries)


class PlanParseError(Exception):
    """The plan text breaks the format; ``errors`` names every problem."""

    def __init__(self, errors: list[E.EditError]) -> None:
        self.errors = errors
        super().__init__("; ".join(str(e) for e in errors))
