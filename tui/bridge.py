"""The one place where engine events become Textual messages, and engine work starts.

:class:`Bridge` is the engine's :class:`~ljtui.core.ports.EventSink` in the
TUI: every event is posted to the app as an :class:`EngineEventPosted`
message (safe from any thread). It starts engine work in workers — model
calls and anything that waits for a human in async workers, disk work in
thread workers — so the event loop never waits on the model, the disk or a
command. It holds no domain state.
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Awaitable, Callable

from ljtui.tui.messages import EngineEventPosted, ReplyText

if TYPE_CHECKING:
    from ljtui.core.events import Event
    from textual.app import App
    from textual.worker import Worker

    from ljtui.core.engine import Engine

TOKEN_DELTA = "TokenDelta"
"""The class of streamed reply text, told by name: the event classes load on first use, not at start-up."""
ENGINE_GROUP = "engine"
DISK_GROUP = "disk"
WATCH_GROUP = "watch"


class Bridge:
    """Events in, work out."""

    def __init__(self, app: App) -> None:
        self.app = app
        self._stop_watch: asyncio.Event | None = None
        self._text: ReplyText | None = None
        """The streamed text posted last, while nothing else was posted after it."""
        self._posting = threading.Lock()

    def emit(self, event: Event) -> None:
        """EventSink: post the event to the app. Streamed text joins the text posted last while the UI has
        not taken it yet (:class:`~ljtui.tui.messages.ReplyText`), so the queue stays short."""
        with self._posting:
            if type(event).__name__ == TOKEN_DELTA:
                turn, text = event.turn, event.text  # type: ignore[attr-defined]
                if self._text is not None and self._text.add(turn, text):
                    return
                self._text = ReplyText(turn, text)
                self.app.post_message(EngineEventPosted(self._text))
                return
            self._text = None
            self.app.post_message(EngineEventPosted(event))

    @property
    def busy(self) -> bool:
        """True while a model call, a write or a question is in progress."""
        return any(w.group in (ENGINE_GROUP, DISK_GROUP) and w.is_running for w in self.app.workers)

    def run(self, work: Awaitable[object], name: str) -> Worker:
        """Run an engine coroutine (a model call, or an operation that asks a human) in a worker."""
        return self.app.run_worker(work, name=name, group=ENGINE_GROUP, exit_on_error=False)

    def cancel(self) -> bool:
        """Cancel the running model work (Escape); True when something was running."""
        running = [w for w in self.app.workers if w.group == ENGINE_GROUP and w.is_running]
        for worker in running:
            worker.cancel()
        return bool(running)

    def thread(self, work: Callable[[], object], name: str) -> Worker:
        """Run an engine call that touches the disk in a thread worker."""
        return self.app.run_worker(work, name=name, group=DISK_GROUP, thread=True, exit_on_error=False)

    def watch(self, engine: Engine) -> Worker:
        """Watch the repository; changed targets of the review turn their blocks stale."""
        self.stop_watching()
        self._stop_watch = stop = asyncio.Event()

        return self.app.run_worker(engine.watch(stop), name="watch", group=WATCH_GROUP, exclusive=True,
                                   exit_on_error=False)

    def stop_watching(self) -> None:
        if self._stop_watch is not None:
            self._stop_watch.set()
            self._stop_watch = None
