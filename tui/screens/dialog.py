"""Modal dialogs: one base for every question the engine asks a human.

:class:`Dialog` is keyboard only, draws a key line, and backs out safely on
Escape. It records when it opened so the app can drop keys typed before it
appeared (an Enter meant for the input never confirms a write).
:class:`ApprovalDialog` shows any :class:`~ljtui.core.approval.ApprovalRequest`
— title, the lines core wrote, an optional text field — and dismisses with
the :class:`~ljtui.core.approval.Decision`.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from rich.cells import cell_len
from rich.text import Text
from textual import _time
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ljtui.core.approval import ApprovalRequest, Decision
from ljtui.core.display import shown_line
from ljtui.tui.plain import plain_exact

T = TypeVar("T")

KEY_NAMES = {"enter": "Enter", "escape": "Esc"}
TITLE_FRAME_CELLS = 6
"""Cells of a dialog's width its border title cannot use (corners, padding, the spaces around the title)."""


class Dialog(ModalScreen[T], Generic[T]):
    """A modal with a bordered box, a scrolling body and a key line that never scrolls away."""

    DEFAULT_CSS = """
    Dialog {
        align: center middle;
    }
    Dialog > Vertical {
        width: 90%;
        max-width: 96;
        height: auto;
        max-height: 90%;
        border: round $primary;
        background: $surface;
        padding: 0 1;
    }
    Dialog .dialog-body { height: auto; max-height: 1fr; }
    Dialog .dialog-title { text-style: bold; margin-bottom: 1; display: none; }
    Dialog .dialog-title.-shown { display: block; }
    Dialog .dialog-keys { color: $text-muted; margin-top: 1; height: auto; dock: bottom; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.opened_at = _time.get_time()
        """When the dialog opened; keys pressed before it are not for it."""

    def on_mount(self) -> None:
        self.opened_at = _time.get_time()

    def key_line(self) -> str:
        """The keys of the dialog, e.g. ``Enter: apply    Esc: cancel``."""
        return ""


def key_name(key: str) -> str:
    """``Enter``, ``Esc`` or the key itself."""
    return KEY_NAMES.get(key, key)


class ApprovalDialog(Dialog[Decision]):
    """Asks the question of an :class:`ApprovalRequest` and returns the human's decision."""

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request
        for choice in request.choices:
            self._bindings.bind(choice.key, f"choose('{choice.id}')", choice.label, show=False)

    def compose(self) -> ComposeResult:
        title = shown_line(self.request.title)  # it may hold a path or a gate's title: never markup, controls visible
        with Vertical(id="dialog-box") as box:
            box.border_title = Content(title)
            with VerticalScroll(classes="dialog-body"):
                yield Static(Content(title), classes="dialog-title")
                yield Static(self._body(), classes="dialog-lines")
            if self.request.text is not None:
                yield Input(self.request.text, id="dialog-text")
            yield Static(Content(self.key_line()), classes="dialog-keys")

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_title)

    def _fit_title(self) -> None:
        """A title too long for the border is also shown whole, wrapped, at the top of the body."""
        box = self.query_one("#dialog-box", Vertical)
        title = self.query_one(".dialog-title", Static)
        title.set_class(cell_len(shown_line(self.request.title)) > box.size.width - TITLE_FRAME_CELLS, "-shown")

    def _body(self) -> Content | Text:
        """The request's lines (controls and invisible characters visible); a diff coloured as in the Diff pane."""
        lines = self.request.lines
        if self.request.diff_path is None:
            return plain_exact("\n".join(lines))
        from ljtui.tui.widgets.diff_render import render_lines, split_header

        label, body = split_header(lines)
        rendered = render_lines(body, self.request.diff_path, self.app.theme_variables,
                                dark=self.app.current_theme.dark)
        if label:
            rendered.insert(0, Text(f"({label})", style="dim"))
        return Text("\n").join(rendered)

    def key_line(self) -> str:
        return "    ".join(f"{key_name(c.key)}: {c.label}" for c in self.request.choices)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        enter = next((c for c in self.request.choices if c.key == "enter"), None)
        if enter is not None:
            self.dismiss(Decision(enter.id, event.value))

    def action_choose(self, choice_id: str) -> None:
        text = self.query_one("#dialog-text", Input).value if self.request.text is not None else None
        self.dismiss(Decision(choice_id, text))
