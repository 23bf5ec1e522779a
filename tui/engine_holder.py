"""The session's engine, built in a thread after the first frame so that keys typed meanwhile are handled.

Building an engine is mostly importing its modules (0.3–0.6 s). Whoever
needs the engine before the thread is done waits for that thread rather
than building a second engine; when the thread could not build it, it is
built where it is asked for, so the error surfaces there.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from ljtui.core.engine import Engine

TUI_RECOVERY_FILES = 5
"""Files named in the start-up recovery notice (the rest are counted)."""
BUILD_WAIT_SECONDS = 60.0
"""Longest wait for the thread building the engine when the engine is needed before it is done."""


class EngineHolder:
    """Holds the engine once built; :meth:`build` makes it in the calling (worker) thread."""

    def __init__(self, make: Callable[[], Engine]) -> None:
        self._make = make
        self._engine: Engine | None = None
        self._built: Engine | None = None
        self.building: threading.Event | None = None
        """Set once the thread building the engine is done (``None`` before it starts)."""

    def get(self) -> Engine:
        """The engine: the thread's, waited for while it builds, else built here."""
        if self._engine is None:
            if self.building is not None:
                self.building.wait(BUILD_WAIT_SECONDS)
            self._engine = self._built or self._make()
        return self._engine

    @property
    def made(self) -> Engine | None:
        """The engine if one was built (by the thread or where it was asked for), without building one."""
        return self._engine or self._built

    def started(self) -> None:
        """A thread is about to :meth:`build` (call on the event loop, before starting it)."""
        self.building = threading.Event()

    def build(self, prepare: Callable[[Engine], object] | None = None) -> None:
        """Build the engine (in a worker thread), then ``prepare`` it before anyone is given it (the start-up
        recovery: a message sent meanwhile waits for it rather than running beside it). A failure to build is
        left for :meth:`get` to raise again; a failure to prepare is raised here, once the engine is given."""
        try:
            self._built = self._make()
        except Exception:  # built again where it is asked for, and reported there
            pass
        else:
            if prepare is not None:
                prepare(self._built)
        finally:
            if self.building is not None:
                self.building.set()


def recover_journal(engine: Engine) -> None:
    """In the thread building the engine: roll back what a crash left in the journal, before the engine takes a
    message (so the first one is never refused as "still working"). Recovery reports its own outcome; a fault in
    it is reported too, and the session starts."""
    from ljtui.core.events import Notice

    try:
        engine.edits.recover(max_files=TUI_RECOVERY_FILES)
    except Exception as exc:
        engine.sink.emit(Notice(f"Recovering the journal failed: {type(exc).__name__}: {exc}", "error"))
