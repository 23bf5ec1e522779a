"""A spinner with elapsed time, shown while the model is thinking."""

from __future__ import annotations

from typing import Callable

from textual.content import Content
from textual.widgets import Static

from ljtui.core.display import shown_line

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK_SECONDS = 0.1


class Thinking(Static):
    """``⠋ thinking… 3.2s`` — elapsed time from an injected clock."""

    DEFAULT_CSS = """
    Thinking {
        color: $text-muted;
        height: 1;
        margin: 0 1;
    }
    """

    def __init__(self, label: str, monotonic: Callable[[], float], **kwargs: object) -> None:
        super().__init__("", **kwargs)
        self.label = label
        """The label as given."""
        self._label = shown_line(label)
        """What is being waited for (it may name a file: shown as plain text, controls visible)."""
        self._monotonic = monotonic
        self._started = monotonic()
        self._frame = 0

    def on_mount(self) -> None:
        self._render_frame()
        self.set_interval(TICK_SECONDS, self._tick)

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(FRAMES)
        self._render_frame()

    def _render_frame(self) -> None:
        elapsed = self._monotonic() - self._started
        self.update(Content(f"{FRAMES[self._frame]} {self._label} {elapsed:.1f}s"))
