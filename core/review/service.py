"""The plan under review, owned by core: one lock, one event per change.

:class:`ReviewService` is the façade the TUI and the CLI use for a review:
open a plan (a file or the planner's text), accept or reject blocks,
re-check after files change on disk, and — each after asking a human
through the Approver port — apply, undo and export. Every change is an
event (:mod:`ljtui.core.review.events`) emitted while the lock is held, so
events arrive in the order the changes happened and carry a sequence
number.

Methods that touch the disk are synchronous and meant for a worker thread;
``apply``, ``undo`` and ``export`` are coroutines because they wait for a
human, and run their disk work in a thread themselves.

A big plan is shown before it is fully checked: ``open_text`` validates
the first blocks, emits ``PlanOpened`` (the rest are ``checking``), then
goes on in steps, releasing the lock between steps and emitting a picture
after each, so the UI can show "validating N/M" and ask for the first
block's diff. Any change finishes the check first. Diffs are computed on
demand, one block at a time, and handed out in pages (:meth:`diff`).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

from ljtui.core.approval import ApprovalRequest
from ljtui.core.asking import Ask
from ljtui.core.events import Notice
from ljtui.core.ports import Clock, EventSink
from ljtui.core.review import events as R
from ljtui.core.review.notes import cut_line, refresh_notes, size_text
from ljtui.core.review.export import EXPORT_CANCELLED  # noqa: F401
from ljtui.core.review.decisions import Decisions, decisions
from ljtui.core.review.requests import ChangeText, ReviewRequest
from ljtui.core.edits.read_change import EDIT
from ljtui.core.edits.progress import StepEvents
from ljtui.core.review import partial, places, writing
from ljtui.core.review.session import ApplyRefused, Review, undo
from ljtui.core.review.views import NO_REVIEW, DiffPage
from ljtui.core.review.writing import APPLY_CANCELLED, UNDO_CANCELLED  # noqa: F401
from ljtui.core.secret_files import SecretFiles

"""Asks a human (the engine's approval step, which also reports the question as events)."""

BIG_PLAN_BYTES = 256 * 1024
"""A plan file larger than this gets a notice before it is read (parsing it takes a moment)."""
FIRST_CHECK_BLOCKS = 200
"""Blocks validated before a plan is first shown."""
CHECK_STEP_BLOCKS = 500
"""Blocks validated between two pictures while a big plan is checked."""
DIFF_PAGE_LINES = 500
"""Lines of a diff handed out at once."""


class ReviewService:
    """The one plan under review in a session, and every operation on it."""

    def __init__(self, root: Path, sink: EventSink, ask: Ask, clock: Clock,
                 secrets: SecretFiles | None = None,
                 vet: Callable[[dict[str, Any]], Awaitable[str | None]] | None = None) -> None:
        self.root = root
        self._vet = vet
        """Asked once the user said yes, before anything is written: why the apply may not go on (a
        ``BeforeApply`` hook's veto), or ``None``."""
        self._secrets = secrets
        self._sink = sink
        self._ask = ask
        self._clock = clock
        self._lock = threading.RLock()
        self._review: Review | None = None
        self._seq = 0
        self._diff: tuple[int, int, list[str], str | None] | None = None
        """The last diff computed: block number, review version, lines, note."""
        self._shown_checked = 0
        """How many blocks were checked in the last picture emitted."""
        self._origin = ""
        self._decided: Callable[[Decisions], None] | None = None
        """Told, after an apply of the change under review, every path whose blocks were decided (written, or
        rejected): the layer lets go of them."""
        self._guard: Callable[[], str | None] | None = None
        """Asked just before an apply of the change under review: why it may not be applied now (a delivery gate
        that has not passed), or ``None``."""
        self._followup: Callable[[tuple[str, ...]], Awaitable[None]] | None = None
        self._after: tuple[Callable[[tuple[str, ...]], Awaitable[None]], tuple[str, ...]] | None = None
        """The follow-up of the last apply and the files it wrote, awaited once the apply is over."""
        self._reasons: dict[int, str] = {}
        """Why the user rejected blocks of the change under review, by block number."""

    @property
    def active(self) -> bool:
        """True while a plan is under review."""
        return self._review is not None

    @property
    def origin(self) -> str | None:
        """Where the change under review came from (``None``: nothing is under review)."""
        return self._origin if self._review is not None else None

    def targets(self) -> set[str]:
        """Repo-relative files the plan under review touches (what a watcher should report)."""
        with self._lock:
            return self._review.targets if self._review is not None else set()

    # --- opening ---------------------------------------------------------------

    def open_file(self, typed: str | Path, fmt: str | None = None) -> bool:
        """Open the change at ``typed`` (``~`` expanded; relative paths are taken from the repository root): an
        EDIT plan, a diff, Aider blocks or a Codex patch, as ``fmt`` says or as its text shows."""
        return self.open_request(ReviewRequest(path=Path(typed), fmt=fmt))

    def open_typed(self, args: str) -> bool:
        """Open what ``/open ARGS`` names (see :func:`~ljtui.core.edits.change_source.parse_open`)."""
        from ljtui.core.edits.change_source import parse_open

        try:
            request = parse_open(args)
        except ValueError as exc:
            return self._open_failed("/open", str(exc))
        return self.open_request(request)

    def open_request(self, request: ReviewRequest) -> bool:
        """Open what ``request`` names: a file, a change already read, or git's diff."""
        from ljtui.core.edits.change_source import change_for

        change = change_for(self.root, request, big=BIG_PLAN_BYTES, on_big=lambda shown, size: self._sink.emit(
            Notice(f"Reading {shown} ({size_text(size)})…")))
        return self.open_change(change, request.fmt)

    def open_change(self, change: ChangeText, fmt: str | None = None) -> bool:
        """Open a change already read (standard input, git), or say why it could not be read."""
        if change.text is None:
            return self._open_failed(change.origin, change.problem or f"cannot read {change.origin}")
        return self.open_text(change.text, change.origin, fmt)

    def open_text(self, text: str, origin: str, fmt: str | None = None) -> bool:
        """Put the change ``text`` under review (``fmt``: its format, detected when ``None``); ``origin`` names
        where it came from."""
        review = self._parsed(text, origin, fmt)
        if review is None:
            return False
        review.check(FIRST_CHECK_BLOCKS)
        return self._open(review, origin)

    def open_decided(self, text: str, origin: str, decided: Callable[[Decisions], None],
                     guard: Callable[[], str | None] | None = None,
                     followup: Callable[[tuple[str, ...]], Awaitable[None]] | None = None) -> bool:
        """Put the diff ``text`` under review like :meth:`open_text`; after it is applied, ``decided`` is told the
        paths whose blocks were written or rejected, and which, with the user's reasons (the layer's review), then
        ``followup`` is awaited with the files written (the commit question). ``guard`` is asked (in a thread)
        before every apply: a reason it gives refuses the apply, said in a notice, and the change stays under
        review."""
        review = self._parsed(text, origin, "diff")
        if review is None:
            return False
        review.check(FIRST_CHECK_BLOCKS)
        opened = self._open(review, origin)
        self._decided, self._guard, self._followup = decided, guard, followup
        return opened

    def resume_text(self, text: str, origin: str) -> bool:
        """Put a resumed session's plan under review again only while every block still applies; a plan the
        files already hold, or one that no longer applies, is told in a notice and not opened."""
        from ljtui.core.review.standing import standing

        review = self._parsed(text, origin, EDIT)
        if review is None:
            return False
        found = standing(review)
        if found.state != "ready":
            self._sink.emit(Notice(found.message(origin), "info" if found.state == "done" else "warning"))
            return False
        return self._open(review, origin)

    def _parsed(self, text: str, origin: str, fmt: str | None) -> Review | None:
        """``text`` read into a review whose blocks are not checked yet (``None``, reported, when invalid)."""
        from ljtui.core.edits.read_change import read_or_explain

        plan = read_or_explain(text, origin, fmt)
        if isinstance(plan, str):
            self._open_failed(origin, plan)
            return None
        return Review(plan, self.root, check_now=False)

    def _open(self, review: Review, origin: str) -> bool:
        with self._lock:
            self._review = review
            self._origin = origin
            self._decided = self._guard = self._followup = None
            self._reasons = {}
            self._diff = None
            self._seq += 1
            self._shown_checked = review.checked
            self._sink.emit(R.PlanOpened(origin, self._seq, review.snapshot(), review.version))
        self._check_in_steps(review)
        return True

    def _check_in_steps(self, review: Review) -> None:
        """Validate the rest of ``review``, a step at a time, with a picture after each step."""
        while True:
            with self._lock:
                if self._review is not review:
                    return
                if review.checked < len(review.blocks):
                    review.check(CHECK_STEP_BLOCKS)
                elif self._shown_checked == review.checked:
                    return  # the last picture shows every block checked
                self._publish(())
            time.sleep(0)  # let a thread waiting for the lock (the selected block's diff) take it between steps

    def close(self) -> None:
        """Drop the plan under review."""
        with self._lock:
            self._review = None
            self._decided = self._guard = self._followup = None
            self._diff = None
            self._publish(())

    # --- diffs -----------------------------------------------------------------

    def diff(self, number: int, start: int = 0) -> DiffPage | None:
        """A page of block ``number``'s diff, from line ``start`` (``None``: no such block under review).

        The whole diff of the last block asked for is kept, so paging through
        it does not compute it again.
        """
        with self._lock:
            review = self._review
            if review is None:
                return None
            cached = self._diff
            if cached is None or cached[:2] != (number, review.version):
                try:
                    lines, note = review.diff_lines(number)
                except KeyError:
                    return None
                cached = self._diff = (number, review.version, lines, note)
        _, version, lines, note = cached
        start = max(0, min(start, len(lines) - 1))
        page = tuple(cut_line(line) for line in lines[start:start + DIFF_PAGE_LINES])
        return DiffPage(number, version, start, page, len(lines), note, DIFF_PAGE_LINES)

    def _open_failed(self, origin: str, message: str) -> bool:
        self._sink.emit(R.PlanOpenFailed(origin, message))
        return False

    # --- choices ---------------------------------------------------------------

    def toggle(self, number: int | None) -> None:
        """Accept or reject block ``number`` (a stale block is accepted again); ``None``: no block shown."""
        self._change(lambda review: review.toggle(number) if number is not None else [])

    async def reject_with_reason(self, number: int | None) -> None:
        """Ask why block ``number`` is rejected, then reject it with that reason (told to the model after the
        apply); ``None``: no block shown (:mod:`~ljtui.core.review.editing`)."""
        from ljtui.core.review.editing import reject_with_reason

        await reject_with_reason(self, number)

    async def edit_block(self, number: int | None) -> None:
        """Let the user rewrite block ``number``'s new text before accepting it (what the apply then writes, and
        what the model is told it did not write); ``None``: no block shown (:mod:`~ljtui.core.review.editing`)."""
        from ljtui.core.review.editing import edit_block

        await edit_block(self, number)

    def pick_place(self, number: int | None, index: int) -> None:
        """Make block ``number``, whose text occurs at several places, exact at place ``index`` (1-based)."""
        self._change(lambda review: places.pick(review, number, index))

    def set_all(self, accepted: bool) -> None:
        """Accept or reject every block."""
        self._change(lambda review: (review.set_all(accepted), [])[1])

    def refresh(self, changed: set[str] | None = None) -> None:
        """Re-check after ``changed`` (repo-relative paths; ``None``: every target) changed on disk."""
        with self._lock:
            review = self._review
            if review is None:
                return
            found = review.refresh(changed)
            if found.changed:
                self._publish(refresh_notes(found, review.snapshot()))

    def _change(self, change: Callable[[Review], list[str]]) -> None:
        with self._lock:
            if self._review is None:
                self._sink.emit(Notice(NO_REVIEW, "warning"))
                return
            try:
                notes = change(self._review)
            except KeyError as exc:
                self._sink.emit(Notice(str(exc.args[0]), "warning"))
                return
            self._publish(tuple(notes))

    def _publish(self, notes: tuple[str, ...]) -> None:
        """Emit the review as it is now (call with the lock held)."""
        self._seq += 1
        review = self._review
        blocks = review.snapshot() if review is not None else None
        self._shown_checked = review.checked if review is not None else 0
        self._sink.emit(R.ReviewChanged(self._seq, blocks, notes, review.version if review is not None else 0))

    # --- apply (the dialog: :mod:`ljtui.core.review.writing`) ------------------

    async def apply(self, *, asked: bool = True) -> None:
        """Check, ask, then write the accepted blocks in one transaction (``asked=False``: the user already
        answered, e.g. ``ljtui run --allow write``)."""
        await writing.ask_apply(self._sink, self._ask, self._prepare_apply, self._apply, asked=asked,
                                vet=self._vetted if self._vet is not None else None)
        after, self._after = self._after, None
        if after is not None:
            await after[0](after[1])

    async def _vetted(self, numbers: tuple[int, ...]) -> str | None:
        """What the ``BeforeApply`` hooks say of writing blocks ``numbers`` (see :attr:`_vet`)."""
        with self._lock:
            review = self._review
            if review is None or self._vet is None:
                return None
            blocks = [{"number": rb.number, "files": sorted(rb.keys)} for rb in review.blocks if rb.number in numbers]
            change = {"origin": self._origin, "files": sorted(review.files), "blocks": blocks}
        return await self._vet(change)

    def _prepare_apply(self) -> tuple[ApprovalRequest, tuple[int, ...]] | None:
        if writing.held_back(self._guard, self._sink):
            return None
        with self._lock:
            review = self._review
            if review is None:
                self._sink.emit(Notice(NO_REVIEW, "warning"))
                return None
            refused = review.check_apply()
            offered = partial.offer(review) if refused is not None else None  # the blocks that apply, if any
            if refused is not None and offered is None:
                self._refuse(refused)
            return offered if refused is not None else writing.apply_request(review)

    def _apply(self, numbers: tuple[int, ...]) -> None:
        if writing.held_back(self._guard, self._sink):  # asked again: the dialog may have been open a while
            return
        with self._lock:
            review = self._review
            if review is None or (tuple(rb.number for rb in review.accepted) != numbers
                                  and not partial.leave_out(review, numbers)):
                self._sink.emit(R.ApplyRefused("the accepted blocks changed while the dialog was open; "
                                               "nothing was written"))
                return
            with StepEvents(self._sink.emit, self._clock) as steps:
                outcome = review.apply(clock=self._clock, say=steps)
            if isinstance(outcome, ApplyRefused):
                self._refuse(outcome)
                return
            decided, followup = self._decided, self._followup
            if outcome.result.files:
                self._review = None
                self._decided = self._guard = self._followup = None
            self._publish(())  # the closed review first: a view moves on from it before the result shows
            self._sink.emit(R.ApplyFinished(outcome.result.to_dict(), len(outcome.preview.plan.blocks)))
            if decided is not None and outcome.result.files:
                decided(decisions(review.blocks, set(outcome.result.files), self._reasons))
                self._after = (followup, tuple(outcome.result.files)) if followup is not None else None
            if outcome.result.files:
                writing.resync(self.root, outcome.preview.plan.declarations, outcome.result.files, self._secrets,
                               self._sink)

    def _refuse(self, refused: ApplyRefused) -> None:
        self._publish(())
        self._sink.emit(R.ApplyRefused(refused.message, refused.blocks))

    # --- undo and export (:mod:`ljtui.core.review.writing`) -----------------------

    async def undo(self) -> None:
        """Show what the last apply wrote, ask, then restore it."""
        await writing.ask_undo(self.root, self._sink, self._ask, self._undo)

    def _undo(self) -> None:
        outcome = undo(self.root, clock=self._clock)
        error = outcome.error.message if outcome.error is not None else None
        self._sink.emit(R.UndoFinished(tuple(outcome.files), error, tuple(outcome.removed),
                                       outcome.remaining if error is None else None))
        self.refresh()

    async def export(self, path: str | None = None) -> None:
        """Ask where, then write the accepted blocks that apply as a plan file (asking before overwriting)."""
        await writing.ask_export(self.root, self._sink, self._ask, self._clock, self._export_text, path)

    def _export_text(self) -> tuple[str, int] | None:
        with self._lock:
            review = self._review
            if review is None:
                self._sink.emit(Notice(NO_REVIEW, "warning"))
                return None
            return writing.export_text(review, self._sink)
