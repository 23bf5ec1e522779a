"""A plan under review: per-block accept/reject, staleness, apply and undo.

A :class:`Review` holds the parsed plan, the user's choice for each block
and the hash of every target file as it was when the plan was shown.
Blocks chain: several blocks on one file apply in order, each against the
result of the accepted ones before it. Choices that would break a chain are
widened to the blocks they depend on, and the review says why.
"""

from __future__ import annotations

import itertools
from dataclasses import InitVar, dataclass, field, replace
from pathlib import Path
from typing import Iterable

from ljtui.core.edits import errors as E
from ljtui.core.edits.apply import ApplyReport, apply_plan
from ljtui.core.edits.journal import sha256
from ljtui.core.edits.plan import CREATE, DELETE, EDIT, EXECUTABLE, MODE, MOVE, EditBlock
from ljtui.core.edits.plan_format import DEFAULT_ENTRY_ID, EditPlan, parse_plan
from ljtui.core.edits.progress import Say
from ljtui.core.edits.recovery import UndoOutcome, undo_last
from ljtui.core.edits.validate import FileChange, Reader, read_bytes
from ljtui.core.ports import Clock
from ljtui.core.review.checking import (
    ChainValidator, CheckPass, FailureCache, applies_in_chain, replay, resolve_all,
)
from ljtui.core.review.diff_text import diff_lines
from ljtui.core.review.render import edit_form_problem, render_plan
from ljtui.core.review.review_block import ReviewBlock
from ljtui.core.review.views import BlockView, source_names

REVIEW_ENTRY_ID = DEFAULT_ENTRY_ID
"""Accepted blocks are applied as one all-or-nothing entry."""
_VERSIONS = itertools.count(1)


MAX_CANDIDATES_SHOWN = 4
MAX_PLACES_SHOWN = 9
"""Places of an ambiguous block listed: each can be picked with its key, 1–9."""
NO_DIFF_FAILED = "no diff: this block does not apply to the current files"
NO_DIFF_UNCHANGED = "no diff: this block leaves the file as it is"


def _candidate_lines(error: E.EditError | None) -> tuple[str, ...]:
    if error is None:
        return ()
    shown = MAX_PLACES_SHOWN if isinstance(error, E.AnchorAmbiguous) else MAX_CANDIDATES_SHOWN
    return tuple(f"{c.file}:{c.line} ({c.score:.2f}) {c.excerpt.strip()}" for c in error.candidates[:shown])


@dataclass
class ApplyRefused:
    """Apply wrote nothing; ``message`` says why."""

    message: str
    blocks: tuple[int, ...] = ()


@dataclass(frozen=True)
class Refreshed:
    """What a look at the target files found.

    Attributes:
        stale: blocks whose file changed since review.
        restored: stale blocks whose file is back as reviewed.
        changed: target files that changed since the last look.
    """

    stale: tuple[int, ...] = ()
    restored: tuple[int, ...] = ()
    changed: tuple[str, ...] = ()


@dataclass
class Review:
    """A plan under review in the repository at ``root``.

    Built with ``check_now=False`` the blocks start as ``checking``;
    :meth:`check` validates them in steps. ``version`` changes whenever a
    choice or a file could have changed any block's diff; versions are
    unique across reviews, so a diff of another plan is never taken for
    current.
    """

    plan: EditPlan
    root: Path
    reader: Reader = read_bytes
    check_now: InitVar[bool] = True
    blocks: list[ReviewBlock] = field(init=False)
    baseline: dict[str, str | None] = field(init=False, default_factory=dict)
    version: int = field(init=False, default=0)

    def __post_init__(self, check_now: bool) -> None:
        self.root = self.root.resolve()
        self.blocks = [ReviewBlock(b) for b in self.plan.blocks]
        self._index = {rb.number: n for n, rb in enumerate(self.blocks)}
        self._targets = resolve_all(self.root, self.blocks)
        self._chains: dict[str, list[ReviewBlock]] = {}
        for rb in self.blocks:
            self._chains.setdefault(rb.key, []).append(rb)
        self._touching: dict[str, list[ReviewBlock]] = {}
        """The blocks that touch each file (a rename touches two)."""
        for rb in self.blocks:
            for key in rb.keys:
                self._touching.setdefault(key, []).append(rb)
        self.baseline = self._hashes()
        self._seen = dict(self.baseline)
        self._failures = FailureCache()
        self._pass = CheckPass(self.root, self.reader, self.blocks, self._failures)
        self.version = next(_VERSIONS)
        if check_now:
            self.check()

    @classmethod
    def from_text(cls, text: str, root: Path, reader: Reader = read_bytes) -> Review:
        """Parse ``text`` and review it. Raises ``PlanParseError``."""
        return cls(parse_plan(text), root, reader)

    # --- queries -------------------------------------------------------------

    def block(self, number: int) -> ReviewBlock:
        if number not in self._index:
            raise KeyError(f"no EDIT {number} in this plan")
        return self.blocks[self._index[number]]

    @property
    def accepted(self) -> list[ReviewBlock]:
        """Blocks the user accepted (whatever their state)."""
        return [rb for rb in self.blocks if rb.accepted]

    @property
    def files(self) -> list[str]:
        """Target files of the accepted blocks, in plan order."""
        return list(dict.fromkeys(key for rb in self.accepted for key in rb.keys))

    @property
    def targets(self) -> set[str]:
        """Repo-relative files the blocks touch."""
        return {key for rb in self.blocks for key in rb.keys}

    @property
    def checked(self) -> int:
        """How many blocks (from the first) the current pass has validated."""
        return self._pass.done

    def selected_plan(self) -> EditPlan:
        """The accepted blocks as one all-or-nothing plan."""
        blocks = tuple(replace(rb.block, entry=REVIEW_ENTRY_ID) for rb in self.accepted)
        return EditPlan(blocks, self.plan.declarations)

    def exportable(self) -> list[ReviewBlock]:
        """Accepted blocks that apply to the current files (not failed, not stale) and that an EDIT plan can
        carry (it replaces and creates text; it neither deletes, renames nor sets modes)."""
        self.check()
        return [rb for rb in self.blocks if rb.state == "accepted" and not self.unexportable(rb)]

    @staticmethod
    def unexportable(rb: ReviewBlock) -> str | None:
        """Why an EDIT plan cannot carry ``rb`` exactly (``None``: it can)."""
        return edit_form_problem(rb.block)

    def export_text(self) -> str:
        """The exportable blocks as plan text (numbers kept as written)."""
        return render_plan((rb.block for rb in self.exportable()), self.plan.declarations)

    def snapshot(self) -> tuple[BlockView, ...]:
        """Every block as it should be shown now."""
        return tuple(
            BlockView(rb.number, rb.key, rb.block.source.short if rb.block.source else rb.block.where, rb.state,
                      f"{rb.error.kind}: {rb.error.message}" if rb.error is not None else None,
                      _candidate_lines(rb.error), rb.block.source.label if rb.block.source else None,
                      *source_names(rb.block.source))
            for rb in self.blocks
        )

    def diff_lines(self, number: int) -> tuple[list[str], str | None]:
        """Block ``number``'s unified diff against the files now, computed on demand.

        The diff is taken against the file as the accepted blocks before it
        leave it. Raises ``KeyError`` for an unknown block.

        Returns:
            The diff's lines, and a note saying why there are none.
        """
        rb = self.block(number)
        self.check(upto=self._index[number])
        if rb.error is not None or rb.real is None:
            return [], NO_DIFF_FAILED
        if rb.block.action in (MOVE, MODE):
            return file_lines(rb.block), None
        before, after = replay(self.root, self.reader, self._chains[rb.key], rb)
        if after is None and rb.block.action != DELETE:
            return [], NO_DIFF_FAILED
        if before == after:
            return [], NO_DIFF_UNCHANGED
        return diff_lines(FileChange(rb.key, rb.real, before, after)), None

    # --- validation ----------------------------------------------------------

    def check(self, count: int | None = None, *, upto: int | None = None) -> bool:
        """Go on validating: every block (no argument), ``count`` more, or up to index ``upto``.

        Returns:
            True once every block is validated.
        """
        if upto is not None:
            count = max(0, upto + 1 - self._pass.done)
        return self._pass.run(count)

    def revalidate(self) -> None:
        """Recompute every block's error against the files on disk.

        Accepted blocks chain; a rejected block is tried against the state
        the accepted blocks before it leave.
        """
        self._pass = CheckPass(self.root, self.reader, self.blocks, self._failures)
        self.version = next(_VERSIONS)
        self.check()

    def _hashes(self, keys: Iterable[str] | None = None) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for key in self._targets if keys is None else keys:
            target = self._targets.get(key)
            if target is None:
                continue
            try:
                out[key] = sha256(self.reader(target.real))
            except OSError:
                out[key] = None
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
            for key in rb.keys:
                self._mark_reviewed(key)
            notes.append(f"EDIT {number}: {' and '.join(rb.keys)} changed on disk; its blocks now use the new "
                         "content")
        rb.accepted = accepted
        if accepted:
            notes += self._pull_in_dependencies(rb)
        else:
            notes += self._drop_dependents(rb)
        self.revalidate()
        return notes

    def edit(self, number: int, new: str) -> list[str]:
        """Take ``new`` as block ``number``'s replacement text, as the user wrote it, and accept the block; the
        blocks are checked again (the apply writes what the user accepted, or nothing).

        Raises:
            ValueError: the block does not replace text (a deletion, rename or mode change has none to edit).
        """
        rb = self.block(number)
        if rb.block.action not in (EDIT, CREATE):
            raise ValueError(f"EDIT {number} {rb.block.action}s {rb.key}; it has no text to edit")
        rb.block = replace(rb.block, new=new)
        rb.edited = True
        self._failures = FailureCache()  # what failed before was tried with the old text
        return self.set_accepted(number, True)

    def take_block(self, number: int, block: EditBlock) -> list[str]:
        """Take ``block`` as block ``number`` (its text made exact at the place the user picked) and accept it."""
        self.block(number).block = block
        self._failures = FailureCache()  # what failed before was tried with the old text
        return self.set_accepted(number, True)

    def toggle(self, number: int) -> list[str]:
        """Flip a block's choice (a stale block is re-accepted)."""
        rb = self.block(number)
        return self.set_accepted(number, True if rb.stale else not rb.accepted)

    def set_all(self, accepted: bool) -> None:
        """Accept or reject every block."""
        if accepted:
            for key in {key for rb in self.blocks if rb.stale for key in rb.keys}:
                self._mark_reviewed(key)
        for rb in self.blocks:
            rb.accepted = accepted
        self.revalidate()

    def _drop_dependents(self, dropped: ReviewBlock) -> list[str]:
        """Reject the later blocks of ``dropped``'s file that no longer apply without it."""
        notes = []
        chain = ChainValidator(self.root, reader=self.reader, evidence=False)
        for rb in self._chains[dropped.key]:
            if not rb.accepted or chain.first_error(rb.block) is None or rb.number <= dropped.number:
                continue
            rb.accepted = False
            notes.append(f"EDIT {rb.number} rejected too: it changes text that EDIT {dropped.number} writes")
        return notes

    def _pull_in_dependencies(self, wanted: ReviewBlock) -> list[str]:
        """Accept the earlier blocks of ``wanted``'s file when it applies only after them."""
        chain = self._chains[wanted.key]
        if wanted.real is None or applies_in_chain(self.root, self.reader, chain, wanted):
            return []
        earlier = [rb for rb in chain if not rb.accepted and rb.number < wanted.number]
        for rb in earlier:
            rb.accepted = True
        if earlier and applies_in_chain(self.root, self.reader, chain, wanted):
            needed = ", ".join(str(rb.number) for rb in earlier)
            return [f"EDIT {needed} accepted too: EDIT {wanted.number} changes text they write"]
        for rb in earlier:
            rb.accepted = False
        return []

    # --- staleness -----------------------------------------------------------

    def refresh(self, changed: set[str] | None = None) -> Refreshed:
        """Compare target files with their hashes at review time.

        Every change to a target (edited, deleted, created again) re-checks
        the plan; a block goes stale when its file differs from what was
        reviewed, and back when the file is again exactly as reviewed.

        Args:
            changed: repo-relative paths known to have changed (``None``:
                check every target).
        """
        now = self._hashes(None if changed is None else changed & self._targets.keys())
        moved = {key for key, digest in now.items() if digest != self._seen.get(key)}
        self._seen.update(now)
        stale: list[int] = []
        restored: list[int] = []
        for rb in self.blocks:
            if moved.isdisjoint(rb.keys):
                continue
            as_reviewed = all(self._seen.get(key) == self.baseline.get(key) for key in rb.keys)
            if as_reviewed and rb.stale:
                rb.stale = False
                restored.append(rb.number)
            elif not as_reviewed and not rb.stale:
                rb.stale = True
                stale.append(rb.number)
        if moved:
            self.revalidate()
        return Refreshed(tuple(stale), tuple(restored), tuple(sorted(moved)))

    def _mark_reviewed(self, key: str) -> None:
        self.baseline[key] = self._seen[key] = self._hashes([key]).get(key)
        for rb in self._touching.get(key, ()):
            rb.stale = False

    # --- writing -------------------------------------------------------------

    def check_apply(self) -> ApplyRefused | None:
        """Why the accepted blocks cannot be applied now, or ``None``."""
        self.check()
        self.refresh()
        chosen = self.accepted
        if not chosen:
            return ApplyRefused("no block is accepted: press space to accept a block, or A to accept all")
        stale = [rb for rb in chosen if rb.stale]
        if stale:
            files = ", ".join(dict.fromkeys(key for rb in stale for key in rb.keys))
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

    def apply(self, *, clock: Clock | None = None, say: Say | None = None) -> ApplyReport | ApplyRefused:
        """Apply the accepted blocks in one transaction, or say why not."""
        refused = self.check_apply()
        if refused is not None:
            return refused
        return apply_plan(self.selected_plan(), self.root, clock=clock, say=say)


def file_lines(block: EditBlock) -> list[str]:
    """What a rename or a mode change does, as the lines git writes for it."""
    lines = [f"rename from {block.moved_from}", f"rename to {block.file}"] if block.action == MOVE else []
    if block.action == MODE:
        lines.append(f"new mode {'100755' if block.mode == EXECUTABLE else '100644'}")
    return lines


def undo(root: Path, *, clock: Clock | None = None) -> UndoOutcome:
    """Revert the last applied plan (refused if its files changed since)."""
    return undo_last(root, clock=clock)
