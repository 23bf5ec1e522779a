"""The status bar: provider/model, tokens, the context used of the model's window as a meter, the session's cost,
the active gate's level, git branch, a task plan's progress, long work's progress bar (an apply, a gate's checks),
"unsandboxed" when no sandbox confines commands, and whether ljtui is working or waiting for you.

When the line is wider than the bar, segments go in a fixed order (:data:`DROP_ORDER`): the token counts first,
then the meter's bar (its percentage and what is left stay), the layer mode, the provider, the cost, the gate and
the tasks; the context left, the branch, "unsandboxed", long work and working/waiting always stay."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from ljtui.core.costs import format_cost, format_tokens
from ljtui.core.display import shown_line

if TYPE_CHECKING:
    from textual.timer import Timer

    from ljtui.core.events import Usage


format_count = format_tokens
"""``950``, ``12.3k``, ``4.1M``."""


BAR_CELLS = 10
"""Width of the progress bar, in cells."""
TICK_SECONDS = 1.0
"""How often the elapsed time is redrawn while long work runs."""
METER_CELLS = 8
"""Width of the context meter's bar, in cells."""
WARNING_PERCENT = 70
"""Context used above which the meter shows as a warning."""
ERROR_PERCENT = 90
"""Context used above which the meter shows as an error."""
LEVEL_STYLES = {"ok": "$text-success", "warning": "$text-warning", "error": "bold $text-error"}
"""The meter's style at each level (theme variables)."""
WAITING = "waiting for you"
"""The state while a plan or a dialog waits for the user."""
WORKING = "working"
WIDE, NARROW = "  │  ", " │ "
"""Separators between segments: the wide one when everything fits with it."""
DROP_ORDER = ("tokens", "bar", "layer", "provider", "cost", "gate", "tasks")
"""Segments left out, in this order, while the line is wider than the bar."""


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


def meter_level(percent: int) -> str:
    """``ok``, ``warning`` (over :data:`WARNING_PERCENT`) or ``error`` (over :data:`ERROR_PERCENT`)."""
    return "error" if percent > ERROR_PERCENT else "warning" if percent > WARNING_PERCENT else "ok"


def context_meter(used: int, window: int | None, *, bar: bool = True) -> Content | None:
    """``▰▰▰▱▱▱▱▱ 34% · 5.4k left`` in the style of its level; without a known window only the tokens used
    (``context 4.9k``), and nothing before the first call."""
    if not window:
        return Content(f"context {format_count(used)}") if used else None
    percent = min(100, round(100 * used / window))
    filled = min(METER_CELLS, round(METER_CELLS * used / window))
    text = f"{percent}% · {format_count(max(0, window - used))} left"
    if bar:
        text = f"{'▰' * filled}{'▱' * (METER_CELLS - filled)} {text}"
    return Content.styled(text, LEVEL_STYLES[meter_level(percent)])


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
    waiting: reactive[bool] = reactive(False)
    """A plan or a dialog waits for the user's answer (shown instead of "working")."""
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
        name from the repository, so both are shown with their controls visible. Segments that do not fit
        are left out in :data:`DROP_ORDER`."""
        segments = self._segments()
        width = self.content_size.width
        separator = WIDE
        dropped: list[str] = []
        for name in ("", *DROP_ORDER):
            if name:
                dropped.append(name)
                separator = NARROW
            shown = [content for key, content in segments
                     if key not in dropped and (key != "meter" or "bar" in dropped)]
            if not width or _width(shown, separator) <= width:
                break
        return Content(separator).join(shown)

    def _segments(self) -> list[tuple[str, Content]]:
        """Every segment in its place, named for :data:`DROP_ORDER` (``""``: never left out); the meter with
        its bar (``bar``) and without (``meter``, shown once the bar is left out)."""
        u = self.usage
        tokens = (u.input_tokens, u.output_tokens, u.cache_read_tokens) if u is not None else (0, 0, 0)
        parts: list[tuple[str, Content | str | None]] = [
            ("provider", shown_line(self.provider) or "no model"),
            ("tokens", f"tokens in {format_count(tokens[0])} out {format_count(tokens[1])} "
                       f"cached {format_count(tokens[2])}"),
            ("bar", context_meter(self.context_used, self.window)),
            ("meter", context_meter(self.context_used, self.window, bar=False)),
            ("cost", format_cost(self.cost) if self.cost is not None else None),
            ("", "unsandboxed" if self.unsandboxed else None),
            ("layer", self.layer_mode),  # "direct": changes are written to the files directly (F1 says so)
            ("gate", shown_line(self.gate) if self.gate else None),
            ("", f"branch {shown_line(self.branch)}" if self.branch else "no git"),
            ("tasks", f"tasks {self.tasks[0]}/{self.tasks[1]}" if self.tasks is not None else None),
            ("", progress_text(self.progress, self.now()) if self.progress is not None else None),
            ("", Content.styled(WAITING, "bold $text-warning") if self.waiting else WORKING if self.busy else None),
        ]
        return [(key, Content(part) if isinstance(part, str) else part) for key, part in parts if part]


def _width(shown: list[Content], separator: str) -> int:
    return sum(content.cell_length for content in shown) + len(separator) * max(0, len(shown) - 1)
