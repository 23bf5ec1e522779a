"""One block of a plan under review and what the review knows about it (its choice, staleness, error)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ljtui.core.edits import errors as E
from ljtui.core.edits.plan_format import EditBlock
from ljtui.core.review.views import BlockState

DIFF_SOURCES = frozenset({"git", "unified", "mbox"})
"""Formats made by diffing files (a hunk that no longer matches is stale, not wrong)."""


@dataclass
class ReviewBlock:
    """One block and what the review knows about it.

    Attributes:
        block: The block as parsed.
        accepted: The user's choice.
        stale: The target changed on disk since the block was shown.
        error: Why the block does not apply to the current files, if it does not.
        key: The repo-relative target, or the path as written when refused.
        real: The target's absolute path (``None`` when refused).
        checked: Validated in the current pass (a big plan is checked in steps).
    """

    block: EditBlock
    accepted: bool = True
    stale: bool = False
    error: E.EditError | None = None
    key: str = ""
    real: Path | None = None
    checked: bool = False
    moved_key: str | None = None
    """The repo-relative file a rename moves to ``key`` (``None``: not a rename, or its source is refused)."""
    edited: bool = False
    """The user rewrote the block's new text before accepting it (:meth:`~ljtui.core.review.session.Review.edit`)."""

    @property
    def number(self) -> int:
        return self.block.number

    @property
    def keys(self) -> tuple[str, ...]:
        """Every file the block touches: ``key``, and the file a rename moves."""
        return (self.key,) if self.moved_key is None else (self.key, self.moved_key)

    @property
    def state(self) -> BlockState:
        """What the Diff pane shows.

        A block not validated yet is ``checking``. A rejected block stays
        ``rejected`` even when it would not apply (its ``error`` still says
        why). An accepted block whose target changed since review is
        ``stale`` until re-accepted (or until the file is back as reviewed),
        whether or not it still applies: the one word the notices use too.
        So is a hunk of a diff whose text the file no longer holds (it moved
        on since the diff was made; another tool's text that does not match
        may never have matched, and is ``failed``). Any other accepted block that does not
        apply is ``failed``.
        """
        if not self.checked:
            return "checking"
        if not self.accepted:
            return "rejected"
        if self.stale or (self.block.source is not None and self.block.source.format in DIFF_SOURCES
                          and isinstance(self.error, E.AnchorNotFound)):
            return "stale"
        return "failed" if self.error is not None else "accepted"
