"""A plan under review: per-block accept/reject, staleness, apply and undo.

A :class:`Review` holds the parsed plan, the user's choice for each block
and the hash of every target file as it was when the plan was shown.
Blocks chain: several blocks on one file apply in order, each against the
result of the accepted ones before it. Choices that would break a chain are
widened to the blocks they depend on, and the review says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from ljtui.core.edits import errors as E
from ljtui.core.edits.apply import ApplyReport, apply_plan
from ljtui.core.edits.diffs import unified_diff
from ljtui.core.edits.journal import sha256
from ljtui.core.edits.paths import resolve_target
from ljtui.core.edits.plan_format import DEFAULT_ENTRY_ID, EditBlock, EditPlan, Entry, parse_plan
from ljtui.core.edits.recovery import UndoOutcome, undo_last
from ljtui.core.edits.validate import FileChange, Reader, Validator, read_bytes
from ljtui.core.ports import Clock
from ljtui.core.review.render import render_plan
from ljtui.core.review.views import BlockState, BlockView

REVIEW_ENTRY_ID = DEFAULT_ENTRY_ID
"""Accepted blocks are applied as one all-or-nothing entry."""


@dataclass
class ReviewBlock:
    """One block and what the review knows about it.

    Attributes:
        block: The block as parsed.
        accepted: The user's choice.
        stale: The target changed on disk since the block was shown.
        error: Why the block does not apply to the current files, if it does not.
        diff: Unified diff of this block against the file as the accepted
            blocks before it leave it (empty when it does not apply).
        key: The repo-relative target, or the path as written when refused.
    """

    block: EditBlock
    accepted: bool = True
    stale: bool = False
    error: E.EditError | None = None
    diff: str = ""
    key: str = ""
    real: Path | None = None

    @property
    def number(self) -> int:
        return self.block.number

    @property
    def state(self) -> BlockState:
        """What the Diff pane shows.

        A rejected block stays ``rejected`` even when it would not apply
        (its ``error`` still says why); an accepted one that does not apply
        is ``failed``; a changed target makes it ``stale`` until re-accepted.
        """
        if not self.accepted:
            return "rejected"
        if self.error is not None:
            return "failed"
        return "stale" if self.stale else "accepted"


MAX_CANDIDATES_SHOWN = 4


def _candidate_lines(error: E.EditError | None) -> tuple[str, ...]:
    if error is None:
        return ()
    return tuple(f"{c.file}:{c.line} ({c.score:.2f}) {c.excerpt.strip()}"
                 for c in error.candidates[:MAX_CANDIDATES_SHOWN])


@dataclass
class ApplyRefused:
    """Apply wrote nothing; ``message`` says why."""

    message: str
    blocks: tuple[int, ...] = ()


@dataclass
class Review:
    """A plan under review in the repository at ``root``."""

    plan: EditPlan
    root: Path
    reader: Reader = read_bytes
    blocks: list[ReviewBlock] = field(init=False)
    baseline: dict[str, str | None] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.root = self.root.resolve()
        self.blocks = [ReviewBlock(b) for b in self.plan.blocks]
        self.revalidate()
        self.baseline = self._hashes()

    @classmethod
    def from_text(cls, text: str, root: Path, reader: Reader = read_bytes) -> Review:
        """Parse ``text`` and review it. Raises ``PlanParseError``."""
        return cls(parse_plan(text), root, reader)

    # --- queries -------------------------------------------------------------

    def block(self, number: int) -> ReviewBlock:
        for rb in self.blocks:
            if rb.number == number:
                return rb
        raise KeyError(f"no EDIT {number} in this plan")

    @property
    def accepted(self) -> list[ReviewBlock]:
        """Blocks the user accepted (whatever their state)."""
        return [rb for rb in self.blocks if rb.accepted]

    @property
    def files(self) -> list[str]:
        """Target files of the accepted blocks, in plan order."""
        return list(dict.fromkeys(rb.key for rb in self.accepted))

    def selected_plan(self) -> EditPlan:
        """The accepted blocks as one all-or-nothing plan."""
        blocks = tuple(replace(rb.block, entry=REVIEW_ENTRY_ID) for rb in self.accepted)
        return EditPlan(blocks, self.plan.declarations)

    def exportable(self) -> list[ReviewBlock]:
        """Accepted blocks that apply to the current files (not failed, not stale)."""
        return [rb for rb in self.blocks if rb.state == "accepted"]

    def export_text(self) -> str:
        """The exportable blocks as plan text (numbers kept as written)."""
        return render_plan((rb.block for rb in self.exportable()), self.plan.declarations)

    def snapshot(self) -> tuple[BlockView, ...]:
        """Every block as it should be shown now."""
        return tuple(
            BlockView(rb.number, rb.key, rb.block.where, rb.state, rb.diff,
                      f"{rb.error.kind}: {rb.error.message}" if rb.error is not None else None,
                      _candidate_lines(rb.error))
            for rb in self.blocks
        )

    # --- validation ----------------------------------------------------------

    def revalidate(self) -> None:
        """Recompute every block's error and diff against the files on disk.

        Accepted blocks chain; a rejected block is shown against the state
        the accepted blocks before it leave.
        """
        read = _read_once(self.reader)
        validator = Validator(self.root, reader=read)
        for rb in self.blocks:
            target = resolve_target(self.root, rb.block.file, rb.number)
            refused = isinstance(target, E.EditError)
            rb.key = rb.block.file if refused else target.key
            rb.real = None if refused else target.real
            before = self._current(validator, rb, read)
            if rb.accepted:
                [outcome] = validator.check([Entry(f"edit-{rb.number}", (rb.block,))])
                rb.error = outcome.errors[0] if outcome.errors else None
                after = self._current(validator, rb, read) if rb.error is None else None
            else:
                rb.error, after = self._trial(rb, before, read)
            rb.diff = self._diff(rb, before, after)

    def _current(self, validator: Validator, rb: ReviewBlock, read: Reader) -> bytes | None:
        """The target's bytes as the accepted blocks so far leave them."""
        change = validator.changes().get(rb.key)
        if change is not None:
            return change.after
        if rb.real is None:
            return None
        try:
            return read(rb.real)
        except OSError:
            return None

    def _trial(self, rb: ReviewBlock, before: bytes | None, read: Reader) -> tuple[E.EditError | None, bytes | None]:
        """Validate a rejected block without letting it change the chain."""
        trial = Validator(self.root, reader=lambda p: before if p == rb.real else read(p))
        [outcome] = trial.check([Entry("trial", (rb.block,))])
        if outcome.errors:
            return outcome.errors[0], None
        change = trial.changes().get(rb.key)
        return None, (change.after if change is not None else before)

    def _diff(self, rb: ReviewBlock, before: bytes | None, after: bytes | None) -> str:
        if rb.error is not None or rb.real is None or before == after:
            return ""
        return unified_diff(FileChange(rb.key, rb.real, before, after))

    def _hashes(self) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for rb in self.blocks:
            target = resolve_target(self.root, rb.block.file, rb.number)
            if isinstance(target, E.EditError) or target.key in out:
                continue
            try:
                out[target.key] = sha256(self.reader(target.real))
            except OSError:
                out[target.key] = None
        return out

    # --- choices -------------------------------------------------------------

    def set_accepted(self, number: int, accepted: bool) -> list[str]:
        """Accept or reject one block, widening to the blocks it chains with.

        Returns:
            Sentences saying which other blocks changed with it, and why.
        """
        rb = self.block(number)
        notes: list[str] = []
        if accepted and rb.stale:
            self._mark_reviewed(rb.key)
            notes.append(f"EDIT {number}: {rb.key} changed on disk; its blocks now use the new content")
        rb.accepted = accepted
        self.revalidate()
        if accepted:
            notes += self._pull_in_dependencies(rb)
        else:
            notes += self._drop_dependents(rb)
        return notes

    def toggle(self, number: int) -> list[str]:
        """Flip a block's choice (a stale block is re-accepted)."""
        rb = self.block(number)
        return self.set_accepted(number, True if rb.stale else not rb.accepted)

    def set_all(self, accepted: bool) -> None:
        """Accept or reject every block."""
        if accepted:
            for key in {rb.key for rb in self.blocks if rb.stale}:
                self._mark_reviewed(key)
        for rb in self.blocks:
            rb.accepted = accepted
        self.revalidate()

    def _drop_dependents(self, dropped: ReviewBlock) -> list[str]:
        notes = []
        for rb in self.blocks:
            if rb.accepted and rb.key == dropped.key and rb.number > dropped.number and rb.error is not None:
                rb.accepted = False
                notes.append(f"EDIT {rb.number} rejected too: it changes text that EDIT {dropped.number} writes")
                self.revalidate()
        return notes

    def _pull_in_dependencies(self, wanted: ReviewBlock) -> list[str]:
        if wanted.error is None:
            return []
        earlier = [rb for rb in self.blocks
                   if not rb.accepted and rb.key == wanted.key and rb.number < wanted.number]
        for rb in earlier:
            rb.accepted = True
        self.revalidate()
        if wanted.error is None and earlier:
            needed = ", ".join(str(rb.number) for rb in earlier)
            return [f"EDIT {needed} accepted too: EDIT {wanted.number} changes text they write"]
        for rb in earlier:
            rb.accepted = False
        self.revalidate()
        return []

    # --- staleness -----------------------------------------------------------

    def refresh(self, changed: set[str] | None = None) -> list[int]:
        """Compare target files with their hashes at review time.

        Args:
            changed: repo-relative paths known to have changed (``None``:
                check every target).

        Returns:
            Numbers of blocks that became stale.
        """
        now = self._hashes()
        newly: list[int] = []
        for rb in self.blocks:
            if changed is not None and rb.key not in changed:
                continue
            if now.get(rb.key) != self.baseline.get(rb.key) and not rb.stale:
                rb.stale = True
                newly.append(rb.number)
        if newly:
            self.revalidate()
        return newly

    def _mark_reviewed(self, key: str) -> None:
        self.baseline[key] = self._hashes().get(key)
        for rb in self.blocks:
            if rb.key == key:
                rb.stale = False

    # --- writing -------------------------------------------------------------

    def check_apply(self) -> ApplyRefused | None:
        """Why the accepted blocks cannot be applied now, or ``None``."""
        self.refresh()
        chosen = self.accepted
        if not chosen:
            return ApplyRefused("no block is accepted: press space to accept a block, or A to accept all")
        stale = [rb for rb in chosen if rb.stale]
        if stale:
            files = ", ".join(dict.fromkeys(rb.key for rb in stale))
            numbers = ", ".join(str(rb.number) for rb in stale)
            return ApplyRefused(
                f"stale: {files} changed on disk since review (EDIT {numbers}); nothing was written. "
                "Check the refreshed diff and press space to accept it again.",
                tuple(rb.number for rb in stale),
            )
        failed = [rb for rb in chosen if rb.error is not None]
        if failed:
            reasons = "; ".join(f"EDIT {rb.number}: {rb.error.kind}: {rb.error.message}" for rb in failed)
            return ApplyRefused(f"these blocks do not apply: {reasons}; nothing was written",
                                tuple(rb.number for rb in failed))
        return None

    def apply(self, *, clock: Clock | None = None, say: Callable[[str], None] | None = None) -> ApplyReport | ApplyRefused:
        """Apply the accepted blocks in one transaction, or say why not."""
        refused = self.check_apply()
        if refused is not None:
            return refused
        return apply_plan(self.selected_plan(), self.root, clock=clock, say=say)


def _read_once(reader: Reader) -> Reader:
    """``reader`` remembering each file it read, for one validation pass."""
    seen: dict[Path, bytes | None] = {}

    def read(path: Path) -> bytes | None:
        if path not in seen:
            seen[path] = reader(path)
        return seen[path]

    return read


def undo(root: Path, *, clock: Clock | None = None) -> UndoOutcome:
    """Revert the last applied plan (refused if its files changed since)."""
    return undo_last(root, clock=clock)
