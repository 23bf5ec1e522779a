"""A tool call in the Conversation, folded to one line; what it returned, unfolded on demand."""

from __future__ import annotations

from textual.widgets import Static

from ljtui.core.display import shown_line
from ljtui.tui.plain import plain
from ljtui.tui.widgets.plain_collapsible import PlainCollapsible

LIVE_OUTPUT_LINES = 10
"""Last lines of a running command's output shown under its call."""
LIVE_OUTPUT_CHARS = 64 * 1024
"""Tail of a running command's output kept for display."""


class ToolCallLine(PlainCollapsible):
    """A tool call folded to one line, ``▸ read_file app.py ✓`` (cut with "…" when wider than the pane);
    Enter or a click unfolds what the tool returned. A running command shows its last lines as they stream."""

    DEFAULT_CSS = """
    ToolCallLine {
        background: transparent;
        border-top: none;
        padding: 0;
        margin: 0 1;
        &:focus-within { background-tint: $foreground 0%; }
        & > CollapsibleTitle {
            color: $tool-call;
            padding: 0;
            max-width: 100%;
            text-wrap: nowrap;
            text-overflow: ellipsis;
        }
        &.-failed > CollapsibleTitle { color: $error; }
        & > Contents { padding: 0 0 0 2; }
        & ToolOutputText { color: $text-muted; }
    }
    """

    def __init__(self, line: str) -> None:
        """
        Args:
            line: the described call (its arguments are the model's: shown as plain text, controls visible).
        """
        self._output = ToolOutputText()
        super().__init__(self._output, title=line, collapsed_symbol="▸", expanded_symbol="▾")
        self._live = ""

    @property
    def text(self) -> str:
        """The line as shown folded, symbol included (its controls visible)."""
        return f"{'▸' if self.collapsed else '▾'} {shown_line(self.title)}"

    def stream(self, fragment: str) -> None:
        """Show the newest lines of a running tool's output."""
        self._live = (self._live + fragment)[-LIVE_OUTPUT_CHARS:]
        self._output.update(plain("\n".join(self._live.splitlines()[-LIVE_OUTPUT_LINES:])))
        self.collapsed = False

    def finish(self, line: str, ok: bool, output: str) -> None:
        """The call ended: fold it to ``line``, keeping ``output`` to unfold."""
        self.title = line
        self._output.update(plain(output or "(no output)"))
        self.set_class(not ok, "-failed")
        self.collapsed = True


class ToolOutputText(Static):
    """What a tool returned, under its call."""
