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
from textual.widgets import Input, Static, TextArea

from ljtui.core.approval import ApprovalRequest, Decision
from ljtui.core.display import shown_line
from ljtui.tui.plain import plain_exact

T = TypeVar("T")

KEY_NAMES = {"enter": "Enter", "escape": "Esc", "ctrl+s": "Ctrl+S", "ctrl+o": "Ctrl+O"}
EDITOR_KEY = "ctrl+o"
"""Opens a passage being edited in ``$VISUAL``/``$EDITOR``."""
TITLE_FRAME_CELLS = 6
"""Cells of a dialog's width its border title cannot use (corners, padding, the spaces around the title)."""
KEY_GAP = "    "
"""Between two keys of a dialog's key line."""


def key_rows(keys: list[str], width: int) -> list[str]:
    """``keys`` (``Enter: apply`` …) on rows of at most ``width`` cells, :data:`KEY_GAP` apart: a row breaks
    between two keys, never inside one; a key wider than a row is cut with "…"."""
    rows: list[str] = []
    for key in keys:
        if cell_len(key) > width:
            key = Content(key).truncate(max(width - 1, 0)).plain.rstrip() + "…"
        joined = f"{rows[-1]}{KEY_GAP}{key}" if rows else key
        if rows and cell_len(joined) <= width:
            rows[-1] = joined
        else:
            rows.append(key)
    return rows


class KeyLine(Static):
    """A dialog's keys (:func:`key_rows`): whole keys on each row, fitted again when the width changes."""

    DEFAULT_CSS = """
    KeyLine { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, keys: list[str], **kwargs: object) -> None:
        super().__init__(Content(KEY_GAP.join(keys)), **kwargs)  # type: ignore[arg-type]
        self._keys = keys
        self._rows: list[str] = []

    def on_resize(self) -> None:
        rows = key_rows(self._keys, self.content_size.width) if self.content_size.width else []
        if rows and rows != self._rows:
            self._rows = rows
            self.update(Content("\n".join(rows)))


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
    Dialog TextArea { height: 16; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.opened_at = _time.get_time()
        """When the dialog opened; keys pressed before it are not for it."""

    def on_mount(self) -> None:
        self.opened_at = _time.get_time()

    def key_line(self) -> str:
        """The keys of the dialog, e.g. ``Enter: apply    Esc: cancel``."""
        return KEY_GAP.join(self.key_list())

    def key_list(self) -> list[str]:
        """The keys of the dialog one by one, e.g. ``Enter: apply``."""
        return []


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
        if request.multiline and request.text is not None:
            self._bindings.bind(EDITOR_KEY, "external_editor", "edit in $EDITOR", show=False)

    def compose(self) -> ComposeResult:
        title = shown_line(self.request.title)  # it may hold a path or a gate's title: never markup, controls visible
        with Vertical(id="dialog-box") as box:
            box.border_title = Content(title)
            with VerticalScroll(classes="dialog-body"):
                yield Static(Content(title), classes="dialog-title")
                yield Static(self._body(), classes="dialog-lines")
            if self.request.text is not None and self.request.multiline:
                yield TextArea(self.request.text, id="dialog-text", soft_wrap=False, show_line_numbers=True,
                               tab_behavior="focus")
            elif self.request.text is not None:
                yield Input(self.request.text, id="dialog-text")
            yield KeyLine(self.key_list(), classes="dialog-keys")

    def on_mount(self) -> None:
        super().on_mount()
        if self.request.text is not None:  # what is typed goes to the text, not to the scrolling body
            self.query_one("#dialog-text").focus()

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

    def key_list(self) -> list[str]:
        keys = [f"{key_name(c.key)}: {c.label}" for c in self.request.choices]
        if self.request.multiline and self.request.text is not None:
            keys.insert(1, f"{key_name(EDITOR_KEY)}: edit in $EDITOR")
        return keys

    def action_external_editor(self) -> None:
        """Edit the text in the user's own editor, the terminal handed over to it (headless: run as it is)."""
        from textual.app import SuspendNotSupported

        area = self.query_one("#dialog-text", TextArea)
        engine = getattr(self.app, "engine", None)
        if engine is None:
            return
        try:
            with self.app.suspend():
                text, problem = engine.edit_externally(area.text, self.request.subject)
        except SuspendNotSupported:  # no terminal to hand over (a test, a web front end): the editor runs as is
            text, problem = engine.edit_externally(area.text, self.request.subject)
        if text is None:
            self.notify(problem, severity="warning", markup=False)
            return
        area.text = text
        area.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        enter = next((c for c in self.request.choices if c.key == "enter"), None)
        if enter is not None:
            self.dismiss(Decision(enter.id, event.value))

    def action_choose(self, choice_id: str) -> None:
        self.dismiss(Decision(choice_id, self._typed()))

    def _typed(self) -> str | None:
        if self.request.text is None:
            return None
        if self.request.multiline:
            return self.query_one("#dialog-text", TextArea).text
        return self.query_one("#dialog-text", Input).value
