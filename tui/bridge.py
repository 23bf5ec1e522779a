"""The one place where engine events become Textual messages.

:class:`Bridge` is the engine's :class:`~ljtui.core.ports.EventSink` in the
TUI, and it starts engine work in Textual workers so the event loop never
waits on the model, the disk or a command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ljtui.core.events import Event
from ljtui.tui.messages import EngineEventPosted

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker

    from ljtui.core.engine import Engine

ENGINE_GROUP = "engine"


class Bridge:
    """Connects an :class:`Engine` to a Textual app."""

    def __init__(self, app: App, engine: Callable[[], Engine]) -> None:
        """
        Args:
            app: the app that receives the messages and runs the workers.
            engine: returns the session's engine (built on first use).
        """
        self.app = app
        self._engine = engine

    def emit(self, event: Event) -> None:
        """EventSink: post the event to the app (safe from any thread)."""
        self.app.post_message(EngineEventPosted(event))

    def send(self, text: str) -> Worker:
        """Run one user message through the engine in a worker."""
        return self.app.run_worker(
            self._engine().run_turn(text),
            name="run_turn",
            group=ENGINE_GROUP,
            exclusive=True,
            exit_on_error=False,
        )

    @property
    def busy(self) -> bool:
        """True while an engine worker is running."""
        return any(w.group == ENGINE_GROUP and w.is_running for w in self.app.workers)
