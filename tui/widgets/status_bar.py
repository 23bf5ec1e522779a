"""The status bar: provider/model, tokens, cost, the active gate's level, git branch, a task plan's progress,
and "unsandboxed" when no sandbox confines commands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from ljtui.core.display import shown_line

if TYPE_CHECKING:
    from ljtui.core.events import Usage


def format_count(n: int) -> str:
    """``950``, ``12.3k``, ``4.1M``."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


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

    def render(self) -> Content:
        """The bar as plain text: the provider label comes from config (a repository's too) and the branch
        name from the repository, so both are shown with their controls visible."""
        u = self.usage
        tokens = (u.input_tokens, u.output_tokens, u.cache_read_tokens) if u is not None else (0, 0, 0)
        parts = [
            shown_line(self.provider) or "no model",
            f"tokens in {format_count(tokens[0])} out {format_count(tokens[1])} cached {format_count(tokens[2])}",
        ]
        if self.cost is not None:
            parts.append(f"${self.cost:.4f}")
        if self.unsandboxed:
            parts.append("unsandboxed")
        if self.gate:
            parts.append(shown_line(self.gate))
        parts.append(f"branch {shown_line(self.branch)}" if self.branch else "no git")
        if self.tasks is not None:
            parts.append(f"tasks {self.tasks[0]}/{self.tasks[1]}")
        if self.busy:
            parts.append("working")
        return Content("  │  ".join(parts))
