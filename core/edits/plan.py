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
    """

    number: int
    file: str
    where: str | None
    entry: str
    old: str
    new: str
    prose: str = ""
    line: int = 0

    @property
    def creates(self) -> bool:
        """True when the block creates a new file (empty ``old``)."""
        return self.old == ""

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
