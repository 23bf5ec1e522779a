"""Python's cyclic garbage collector around the TUI's start-up.

Until the first frame, start-up builds a few hundred thousand objects (the
stylesheet, widgets, themes) and almost no garbage; the collections that
allocation triggers took about a tenth of the time to the first frame, one
of them a full pass. The collector is paused while the app starts and
turned back on once the first frame is drawn.

Everything alive at that point lives as long as the app: in a real terminal
it is then frozen (:func:`gc.freeze`), so that later full passes, which
otherwise walk all of it, stay short and do not stall the event loop while
a reply streams.
"""

from __future__ import annotations

import gc


class StartupCollector:
    """Pauses the collector for a start-up and resumes it once, restoring what it found."""

    def __init__(self) -> None:
        self._paused = False
        self._was_enabled = True

    @property
    def paused(self) -> bool:
        """True between :meth:`pause` and :meth:`resume`."""
        return self._paused

    def pause(self) -> None:
        """Stop automatic collections (no-op when already paused)."""
        if self._paused:
            return
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._paused = True

    def resume(self, *, freeze: bool = False) -> None:
        """Turn the collector back on if it was on before :meth:`pause`.

        Args:
            freeze: first move every object alive now out of the collector's passes.
        """
        if freeze:
            gc.freeze()
        if not self._paused:
            return
        self._paused = False
        if self._was_enabled:
            gc.enable()
