"""The one place where engine events and worker results become messages.

:class:`Bridge` is the engine's :class:`~ljtui.core.ports.EventSink` in the
TUI, and it starts all engine work in Textual workers — model calls in async
workers, disk work (validating, applying, undoing) in thread workers — so
the event loop never waits on the model, the disk or a command. It also
holds the plan under review; a lock keeps workers from changing it at once.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ljtui.core.events import Event
from ljtui.tui.messages import (
    ApplyFinished, ApplyProgressed, EngineEventPosted, PlanExported, ReviewChanged, ReviewFailed, UndoFinished,
    UndoPreviewed,
)

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker

    from ljtui.core.engine import Engine
    from ljtui.core.ports import Clock
    from ljtui.core.review.session import Review

ENGINE_GROUP = "engine"
REVIEW_GROUP = "review"
WATCH_GROUP = "watch"
WATCH_DEBOUNCE_MS = 150
"""How long file changes are gathered before the review re-checks them."""
WATCH_WAKE_MS = 300
"""The watcher thread wakes this often, so cancelling it (on quit) is prompt."""


class Bridge:
    """Connects an :class:`Engine` and the plan under review to a Textual app."""

    def __init__(self, app: App, engine: Callable[[], Engine], root: Path, clock: Clock) -> None:
        """
        Args:
            app: the app that receives the messages and runs the workers.
            engine: returns the session's engine (built on first use).
            root: the repository root.
            clock: time for journals and progress.
        """
        self.app = app
        self.root = root
        self.clock = clock
        self._engine = engine
        self.review: Review | None = None
        self._lock = threading.Lock()
        self._stop_watch: asyncio.Event | None = None

    # --- events ---------------------------------------------------------------

    def emit(self, event: Event) -> None:
        """EventSink: post the event to the app (safe from any thread)."""
        self.app.post_message(EngineEventPosted(event))

    @property
    def busy(self) -> bool:
        """True while a model call or a write is running."""
        return any(w.group in (ENGINE_GROUP, REVIEW_GROUP) and w.is_running for w in self.app.workers)

    # --- model work -------------------------------------------------------------

    def send(self, text: str) -> Worker:
        """Run one chat message through the engine in a worker."""
        return self.app.run_worker(self._engine().run_turn(text), name="run_turn", group=ENGINE_GROUP,
                                   exclusive=True, exit_on_error=False)

    def request_plan(self, request: str) -> Worker:
        """Run the read-only planner; a valid plan opens for review."""
        return self.app.run_worker(self._plan(request), name="plan", group=ENGINE_GROUP,
                                   exclusive=True, exit_on_error=False)

    async def _plan(self, request: str) -> None:
        result = await self._engine().plan(request)
        if result is not None and result.ok:
            await asyncio.to_thread(self._open, result.plan, "planner")

    # --- review -----------------------------------------------------------------

    def open_plan(self, path: Path) -> Worker:
        """Load an EDIT plan file for review."""
        return self._thread(lambda: self._open_file(path), "open_plan")

    def _open_file(self, path: Path) -> None:
        shown = self._display(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            self.app.post_message(ReviewFailed(f"cannot open {shown}: no such file"))
            return
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or "not UTF-8 text"
            self.app.post_message(ReviewFailed(f"cannot open {shown}: {reason}"))
            return
        self._open(text, shown)

    def _display(self, path: Path) -> str:
        """``path`` relative to the repository when it lies inside it."""
        absolute = path.absolute()
        root = self.root.absolute()
        return absolute.relative_to(root).as_posix() if absolute.is_relative_to(root) else str(path)

    def _open(self, text: str, origin: str) -> None:
        from ljtui.core.edits.plan_format import PlanParseError
        from ljtui.core.review.session import Review

        try:
            review = Review.from_text(text, self.root)
        except PlanParseError as exc:
            problems = "; ".join(str(e) for e in exc.errors)
            self.app.post_message(ReviewFailed(f"{origin} is not a valid EDIT plan: {problems}"))
            return
        with self._lock:
            self.review = review
            snapshot = review.snapshot()
        self.app.post_message(ReviewChanged(snapshot, [], origin))

    def _review_work(self, name: str, locked: Callable[[Review], Callable[[], None]]) -> Worker | None:
        """In a thread: run ``locked`` on the review under the lock, then what it returns, unlocked."""
        if self.review is None:
            return None

        def work() -> None:
            with self._lock:
                if self.review is None:
                    return
                after = locked(self.review)
            after()

        return self._thread(work, name)

    def change_review(self, change: Callable[[Review], list[str]]) -> Worker | None:
        """Apply a choice (accept, reject …) to the review, off the event loop."""

        def locked(review: Review) -> Callable[[], None]:
            notes = change(review)
            snapshot = review.snapshot()
            return lambda: self.app.post_message(ReviewChanged(snapshot, notes))

        return self._review_work("change_review", locked)

    def apply(self) -> Worker | None:
        """Apply the accepted blocks; the review closes when they are written."""

        def locked(review: Review) -> Callable[[], None]:
            from ljtui.core.edits.apply import ApplyReport

            outcome = review.apply(clock=self.clock, say=lambda line: self.app.post_message(ApplyProgressed(line)))
            written = isinstance(outcome, ApplyReport) and bool(outcome.result.files)
            snapshot = None if written else review.snapshot()
            if written:
                self.review = None

            def after() -> None:
                self.app.post_message(ApplyFinished(outcome))
                self.app.post_message(ReviewChanged(snapshot, []))

            return after

        return self._review_work("apply", locked)

    def preview_undo(self) -> Worker:
        """Find which files the last apply wrote (what undo would restore)."""
        from ljtui.core.review.session import last_applied_files

        return self._thread(lambda: self.app.post_message(UndoPreviewed(last_applied_files(self.root))),
                            "preview_undo")

    def undo(self) -> Worker:
        """Revert the last apply."""
        from ljtui.core.review.session import undo

        return self._thread(lambda: self.app.post_message(UndoFinished(undo(self.root, clock=self.clock))), "undo")

    def export(self, path: Path) -> Worker | None:
        """Write the accepted blocks as a plan file."""

        def locked(review: Review) -> Callable[[], None]:
            text, count = review.export_text(), len(review.accepted)
            return lambda: self._write_export(path, text, count)

        return self._review_work("export", locked)

    def _write_export(self, path: Path, text: str, count: int) -> None:
        target = path if path.is_absolute() else self.root / path
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            self.app.post_message(PlanExported(str(path), count, exc.strerror or str(exc)))
            return
        self.app.post_message(PlanExported(str(path), count))

    # --- staleness ----------------------------------------------------------------

    def watch(self) -> Worker:
        """Watch the repository; changed targets turn their blocks stale."""
        self.stop_watching()
        self._stop_watch = asyncio.Event()
        return self.app.run_worker(self._watch(self._stop_watch), name="watch", group=WATCH_GROUP,
                                   exclusive=True, exit_on_error=False)

    def stop_watching(self) -> None:
        if self._stop_watch is not None:
            self._stop_watch.set()
            self._stop_watch = None

    async def _watch(self, stop: asyncio.Event) -> None:
        from watchfiles import awatch

        root = self.root.resolve()
        async for changes in awatch(root, stop_event=stop, debounce=WATCH_DEBOUNCE_MS, rust_timeout=WATCH_WAKE_MS):
            keys = set()
            for _, raw in changes:
                path = Path(raw)
                if path.is_relative_to(root):
                    keys.add(path.relative_to(root).as_posix())
            if keys and self.review is not None:
                await asyncio.to_thread(self.refresh_review, keys)

    def refresh_review(self, keys: set[str]) -> None:
        """Re-check the review after ``keys`` (repo-relative paths) changed on disk."""
        with self._lock:
            if self.review is None:
                return
            newly = self.review.refresh(keys)
            if not newly:
                return
            snapshot = self.review.snapshot()
        numbers = ", ".join(str(n) for n in newly)
        files = ", ".join(sorted({b.file for b in snapshot if b.number in newly}))
        self.app.post_message(ReviewChanged(snapshot, [f"{files} changed on disk: EDIT {numbers} now stale"]))

    def _thread(self, work: Callable[[], None], name: str) -> Worker:
        return self.app.run_worker(work, name=name, group=REVIEW_GROUP, thread=True, exit_on_error=False)
