"""What the UI is shown of a plan under review: immutable, JSON-ready pictures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ljtui.core.edits.plan import BlockSource

BlockState = Literal["accepted", "rejected", "stale", "failed", "checking"]
"""``checking``: the block is not validated yet (a big plan is validated in steps)."""

NO_REVIEW = "No plan is under review: type a request, or open a plan with /open PLAN.md."
"""Said when an operation needs a plan under review and there is none."""


@dataclass(frozen=True)
class BlockView:
    """An immutable picture of one block, for display (its diff is asked for separately)."""

    number: int
    file: str
    where: str | None
    state: BlockState
    reason: str | None
    candidates: tuple[str, ...] = ()
    """Nearest matches of a failed anchor: ``file:line (score) excerpt``."""
    source: str | None = None
    """Which hunk of which file of which format the block was read from (``None``: an EDIT plan's block)."""
    hunk: str = ""
    """``hunk 2/5`` for a block read from a hunk of a diff or another tool's blocks (``""``: an EDIT plan's block,
    or a whole-file change)."""
    origin: str = ""
    """The format the block was read in, and its commit's subject in a patch series: ``git · [PATCH 1/2] Fix``."""


@dataclass(frozen=True)
class DiffPage:
    """One page of one block's unified diff.

    A diff longer than a page comes in pages: ``lines`` are the diff's lines
    ``start`` to ``start + len(lines)`` of ``total``. A line longer than core's
    limit ends with a note saying how many characters were cut.

    Attributes:
        number: The block.
        version: The review's version the diff was computed at (newer wins).
        start: Index of the first line of this page in the whole diff.
        lines: The page's lines, without line breaks.
        total: How many lines the whole diff has.
        note: Why there is no diff (the block does not apply, or changes nothing).
        size: The most lines a page holds.
    """

    number: int
    version: int
    start: int
    lines: tuple[str, ...]
    total: int
    note: str | None = None
    size: int = 0

    @property
    def end(self) -> int:
        """Index after the page's last line."""
        return self.start + len(self.lines)

    @property
    def above(self) -> int:
        """Lines of the diff before this page."""
        return self.start

    @property
    def below(self) -> int:
        """Lines of the diff after this page."""
        return self.total - self.end

    @property
    def previous(self) -> int:
        """Where the page before this one starts."""
        return max(0, self.start - self.size)


def source_names(source: BlockSource | None) -> tuple[str, str]:
    """The hunk (``hunk 2/5``) and the origin (``git · [PATCH 1/2] Fix``) the Diff pane names a block by."""
    if source is None:
        return "", ""
    return (f"hunk {source.hunk}/{source.hunks}" if source.hunk else "",
            " · ".join(p for p in (source.format, source.commit) if p))
