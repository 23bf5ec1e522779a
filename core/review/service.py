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
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Awaitable, Callable

from ljtui.core.approval import YES, ApprovalRequest, Decision, confirm
from ljtui.core.events import Notice
from ljtui.core.ports import Clock, EventSink
from ljtui.core.review import events as R
from ljtui.core.review.export import EXPORT_DIR, ExportRefused, export_target, write_export
from ljtui.core.edits.undo import undo_preview
from ljtui.core.review.session import ApplyRefused, Review, undo

Ask = Callable[[ApprovalRequest], Awaitable[Decision]]
"""Asks a human (the engine's approval step, which also reports the question as events)."""

NO_REVIEW = "No plan is under review: type a request, or open a plan with /open PLAN.md."
MAX_PLAN_BYTES = 20 * 1024 * 1024
"""A plan file larger than this is not opened."""
APPLY_CANCELLED = "Apply cancelled: nothing was written."
UNDO_CANCELLED = "Undo cancelled: nothing was written."
EXPORT_CANCELLED = "Export cancelled: nothing was written."


class ReviewService:
    """The one plan under review in a session, and every operation on it."""

    def __init__(self, root: Path, sink: EventSink, ask: Ask, clock: Clock) -> None:
        self.root = root
        self._sink = sink
        self._ask = ask
        self._clock = clock
        self._lock = threading.RLock()
        self._review: Review | None = None
        self._seq = 0

    @property
    def active(self) -> bool:
        """True while a plan is under review."""
        return self._review is not None

    def targets(self) -> set[str]:
        """Repo-relative files the plan under review touches (what a watcher should report)."""
        with self._lock:
            return {rb.key for rb in self._review.blocks} if self._review is not None else set()

    # --- opening ---------------------------------------------------------------

    def open_file(self, typed: str | Path) -> bool:
        """Open the EDIT plan at ``typed`` (``~`` expanded; relative paths are taken from the repository root)."""
        path = Path(typed).expanduser()
        path = path if path.is_absolute() else self.root / path
        shown = self._display(path)
        try:
            if path.stat().st_size > MAX_PLAN_BYTES:
                return self._open_failed(shown, f"cannot open {shown}: larger than {MAX_PLAN_BYTES} bytes")
            text = path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            return self._open_failed(shown, f"cannot open {shown}: no such file")
        except IsADirectoryError:
            return self._open_failed(shown, f"cannot open {shown}: it is a directory")
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or "not UTF-8 text"
            return self._open_failed(shown, f"cannot open {shown}: {reason}")
        return self.open_text(text, shown)

    def open_text(self, text: str, origin: str) -> bool:
        """Put the plan ``text`` under review; ``origin`` names where it came from."""
        from ljtui.core.edits.plan_format import PlanParseError

        try:
            review = Review.from_text(text, self.root)
        except PlanParseError as exc:
            problems = "; ".join(str(e) for e in exc.errors)
            return self._open_failed(origin, f"{origin} is not a valid EDIT plan: {problems}")
        with self._lock:
            self._review = review
            self._seq += 1
            self._sink.emit(R.PlanOpened(origin, self._seq, review.snapshot()))
        return True

    def close(self) -> None:
        """Drop the plan under review."""
        with self._lock:
            self._review = None
            self._publish(())

    def _open_failed(self, origin: str, message: str) -> bool:
        self._sink.emit(R.PlanOpenFailed(origin, message))
        return False

    def _display(self, path: Path) -> str:
        absolute, root = path.absolute(), self.root.absolute()
        return absolute.relative_to(root).as_posix() if absolute.is_relative_to(root) else str(path)

    # --- choices ---------------------------------------------------------------

    def toggle(self, number: int | None) -> None:
        """Accept or reject block ``number`` (a stale block is accepted again); ``None``: no block shown."""
        self._change(lambda review: review.toggle(number) if number is not None else [])

    def set_all(self, accepted: bool) -> None:
        """Accept or reject every block."""
        self._change(lambda review: (review.set_all(accepted), [])[1])

    def refresh(self, changed: set[str] | None = None) -> None:
        """Re-check after ``changed`` (repo-relative paths; ``None``: every target) changed on disk."""
        with self._lock:
            review = self._review
            if review is None:
                return
            newly = review.refresh(changed)
            if newly:
                snapshot = review.snapshot()
                numbers = ", ".join(str(n) for n in newly)
                files = ", ".join(sorted({b.file for b in snapshot if b.number in newly}))
                self._publish((f"{files} changed on disk: EDIT {numbers} now stale",))

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
        blocks = self._review.snapshot() if self._review is not None else None
        self._sink.emit(R.ReviewChanged(self._seq, blocks, notes))

    # --- apply -----------------------------------------------------------------

    async def apply(self) -> None:
        """Check, ask, then write the accepted blocks in one transaction."""
        prepared = await asyncio.to_thread(self._prepare_apply)
        if prepared is None:
            return
        request, numbers = prepared
        decision = await self._ask(request)
        if decision.choice != YES:
            self._sink.emit(Notice(APPLY_CANCELLED))
            return
        await asyncio.to_thread(self._apply, numbers)

    def _prepare_apply(self) -> tuple[ApprovalRequest, tuple[int, ...]] | None:
        with self._lock:
            review = self._review
            if review is None:
                self._sink.emit(Notice(NO_REVIEW, "warning"))
                return None
            refused = review.check_apply()
            if refused is not None:
                self._refuse(refused)
                return None
            chosen = review.accepted
            lines = [f"Write {len(review.files)} file(s) with {len(chosen)} block(s):", ""]
            for key in review.files:
                numbers = ", ".join(str(rb.number) for rb in chosen if rb.key == key)
                lines.append(f"  {key}   EDIT {numbers}")
            rejected = [rb.number for rb in review.blocks if not rb.accepted]
            if rejected:
                lines += ["", f"Not written (rejected): EDIT {', '.join(map(str, rejected))}"]
            lines += ["", "The blocks are checked against the files again just before writing."]
            request = confirm("apply", "Apply the accepted blocks?", lines, "apply")
            return request, tuple(rb.number for rb in chosen)

    def _apply(self, numbers: tuple[int, ...]) -> None:
        with self._lock:
            review = self._review
            if review is None or tuple(rb.number for rb in review.accepted) != numbers:
                self._sink.emit(R.ApplyRefused("the accepted blocks changed while the dialog was open; "
                                               "nothing was written"))
                return
            outcome = review.apply(clock=self._clock, say=lambda line: self._sink.emit(R.ApplyProgressed(line)))
            if isinstance(outcome, ApplyRefused):
                self._refuse(outcome)
                return
            self._sink.emit(R.ApplyFinished(outcome.result.to_dict(), len(outcome.preview.plan.blocks)))
            if outcome.result.files:
                self._review = None
            self._publish(())

    def _refuse(self, refused: ApplyRefused) -> None:
        self._publish(())
        self._sink.emit(R.ApplyRefused(refused.message, refused.blocks))

    # --- undo ------------------------------------------------------------------

    async def undo(self) -> None:
        """Show what the last apply wrote, ask, then restore it."""
        preview = await asyncio.to_thread(undo_preview, self.root)
        if preview.damaged:
            await asyncio.to_thread(self._undo)  # sets the damaged snapshot aside and says so; writes no file
            return
        files = preview.files
        if files is None:
            if preview.problem is None:
                self._sink.emit(Notice("Nothing to undo: no applied plan is kept in .agent/journal.", "warning"))
            else:
                self._sink.emit(R.UndoFinished((), preview.problem))
            return
        lines = ["Restore these files to their bytes before the last apply:", "", *(f"  {f}" for f in files), "",
                 "Refused, with nothing written, if any of them changed since."]
        decision = await self._ask(confirm("undo", "Undo the last apply?", lines, "undo"))
        if decision.choice != YES:
            self._sink.emit(Notice(UNDO_CANCELLED))
            return
        await asyncio.to_thread(self._undo)

    def _undo(self) -> None:
        outcome = undo(self.root, clock=self._clock)
        error = outcome.error.message if outcome.error is not None else None
        self._sink.emit(R.UndoFinished(tuple(outcome.files), error))
        self.refresh()

    # --- export ----------------------------------------------------------------

    async def export(self, path: str | None = None) -> None:
        """Ask where, then write the accepted blocks that apply as a plan file (asking before overwriting)."""
        prepared = await asyncio.to_thread(self._export_text)
        if prepared is None:
            return
        text, count = prepared
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self._clock.now()))
        default = path or f"{EXPORT_DIR}/plan-{stamp}.md"
        request = confirm("export", "Export the accepted blocks",
                          [f"{count} accepted block(s) that apply will be written as an EDIT plan.",
                           "Plan file (relative to the repository root):"], "write the file", "cancel", text=default)
        decision = await self._ask(request)
        chosen = (decision.text or "").strip()
        if decision.choice != YES or not chosen:
            self._sink.emit(Notice(EXPORT_CANCELLED))
            return
        try:
            target = export_target(self.root, chosen)
        except ExportRefused as exc:
            self._sink.emit(R.ExportFailed(chosen, str(exc)))
            return
        if await asyncio.to_thread(target.exists):
            shown = target.relative_to(self.root).as_posix()
            again = await self._ask(confirm("overwrite", f"Overwrite {shown}?",
                                            [f"{shown} exists; its content will be replaced."], "overwrite"))
            if again.choice != YES:
                self._sink.emit(Notice(EXPORT_CANCELLED))
                return
        await asyncio.to_thread(self._write_export, target, text, count)

    def _export_text(self) -> tuple[str, int] | None:
        with self._lock:
            review = self._review
            if review is None:
                self._sink.emit(Notice(NO_REVIEW, "warning"))
                return None
            review.refresh()
            exported = review.exportable()
            if not exported:
                self._sink.emit(R.ExportFailed("", "no accepted block applies to the current files: "
                                                   "nothing to export"))
                return None
            return review.export_text(), len(exported)

    def _write_export(self, target: Path, text: str, count: int) -> None:
        shown = target.relative_to(self.root).as_posix()
        try:
            write_export(self.root, target, text)
        except (OSError, ExportRefused) as exc:
            self._sink.emit(R.ExportFailed(shown, getattr(exc, "strerror", None) or str(exc)))
            return
        self._sink.emit(R.ExportWritten(shown, count))
