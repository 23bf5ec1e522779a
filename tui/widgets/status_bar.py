"""The status bar: provider/model, tokens, the context used of the model's window, cost, the active gate's level,
git branch, a task plan's progress, long work's progress bar (an apply, a gate's checks) and "unsandboxed" when no
sandbox confines commands."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from ljtui.core.display import shown_line

if TYPE_CHECKING:
    from textual.timer import Timer

    from ljtui.core.events import Usage


def format_count(n: int) -> str:
    """``950``, ``12.3k``, ``4.1M``."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


BAR_CELLS = 10
"""Width of the progress bar, in cells."""
TICK_SECONDS = 1.0
"""How often the elapsed time is redrawn while long work runs."""


@dataclass(frozen=True)
class Progress:
    """Long work the status bar shows as a bar: ``label`` (``apply``, ``checks``), ``done`` of ``total`` steps,
    since ``started`` (monotonic seconds of the clock the bar is given)."""

    label: str
    done: int
    total: int
    started: float


def format_elapsed(seconds: float) -> str:
    """``7s``, ``1m 05s``, ``2h 03m``."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"


def progress_text(progress: Progress, now: float) -> str:
    """``apply ▕████░░░░░░▏ 4/10 · 12s``: a bar of :data:`BAR_CELLS` cells, the counts and the time so far."""
    done = min(max(progress.done, 0), progress.total)
    filled = round(BAR_CELLS * done / progress.total) if progress.total > 0 else 0
    bar = "█" * filled + "░" * (BAR_CELLS - filled)
    return f"{progress.label} ▕{bar}▏ {done}/{progress.total} · {format_elapsed(now - progress.started)}"


class StatusBar(Static):
    """One line at the bottom of the main screen."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        color: $text-muted;
        padding: 0 1;
    }
    """

    provider: reactive[str] = reactive("")
    usage: reactive[Usage | None] = reactive(None)
    cost: reactive[float | None] = reactive(None)
    branch: reactive[str | None] = reactive(None)
    busy: reactive[bool] = reactive(False)
    tasks: reactive[tuple[int, int] | None] = reactive(None)
    """``(finished, total)`` tasks of the task plan running, or ``None``."""
    gate: reactive[str | None] = reactive(None)
    """The active gate's segment (``gate L2``, ``gate L3 · blocked``), or ``None`` without one."""
    unsandboxed: reactive[bool] = reactive(False)
    """No sandbox confines commands on this system: every command runs with the user's full rights."""
    layer_mode: reactive[str | None] = reactive(None)
    """``layered`` (every change waits in the copy-on-write layer), ``direct`` (changes are written to the files
    directly: no layer), or ``None`` before it is known."""
    window: reactive[int | None] = reactive(None)
    """The model's context window in tokens, once known."""
    context_used: reactive[int] = reactive(0)
    """Tokens of the last model call's prompt and reply: what the next prompt starts from."""
    progress: reactive[Progress | None] = reactive(None)
    """Long work running now (its bar and elapsed time are shown, redrawn every second), or ``None``."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.now: Callable[[], float] = time.monotonic
        """The clock ``Progress.started`` is read on (the engine's: set it with the progress)."""
        self._ticker: Timer | None = None

    def watch_progress(self, progress: Progress | None) -> None:
        """A timer redraws the elapsed time while long work runs, and only then."""
        if progress is not None and self._ticker is None:
            self._ticker = self.set_interval(TICK_SECONDS, self.refresh)
        elif progress is None and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    @property
    def ticking(self) -> bool:
        """Whether the elapsed time is being redrawn (long work runs)."""
        return self._ticker is not None

    def end_progress(self, label: str) -> None:
        """Stop showing long work ``label`` (other work's bar stays)."""
        if self.progress is not None and self.progress.label == label:
            self.progress = None

    def render(self) -> Content:
        """The bar as plain text: the provider label comes from config (a repository's too) and the branch
        name from the repository, so both are shown with their controls visible."""
        u = self.usage
        tokens = (u.input_tokens, u.output_tokens, u.cache_read_tokens) if u is not None else (0, 0, 0)
        parts = [
            shown_line(self.provider) or "no model",
            f"tokens in {format_count(tokens[0])} out {format_count(tokens[1])} cached {format_count(tokens[2])}",
        ]
        if self.window:
            left = max(0, self.window - self.context_used)
            parts.append(f"context {format_count(self.context_used)}/{format_count(self.window)} "
                         f"({format_count(left)} left)")
        if self.cost is not None:
            parts.append(f"${self.cost:.4f}")
        if self.unsandboxed:
            parts.append("unsandboxed")
        if self.layer_mode is not None:
            parts.append(self.layer_mode)  # "direct": changes are written to the files directly (F1 says so)
        if self.gate:
            parts.append(shown_line(self.gate))
        parts.append(f"branch {shown_line(self.branch)}" if self.branch else "no git")
        if self.tasks is not None:
            parts.append(f"tasks {self.tasks[0]}/{self.tasks[1]}")
        if self.progress is not None:
            parts.append(progress_text(self.progress, self.now()))
        if self.busy:
            parts.append("working")
        return Content("  │  ".join(parts))
