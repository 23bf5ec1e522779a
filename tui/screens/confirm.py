"""Modal dialogs that confirm a write (apply, undo) or ask for a file name.

Keyboard only: Enter confirms, Escape backs out with nothing done.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

DIALOG_CSS = """
{name} {{
    align: center middle;
}}
{name} > Vertical {{
    width: 80%;
    max-width: 90;
    height: auto;
    max-height: 80%;
    border: round $primary;
    background: $surface;
    padding: 0 1;
}}
{name} .dialog-body {{ height: auto; max-height: 20; }}
{name} .dialog-keys {{ color: $text-muted; margin-top: 1; }}
"""


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question about a write, with what it will touch."""

    DEFAULT_CSS = DIALOG_CSS.format(name="ConfirmScreen")

    BINDINGS = [
        Binding("enter", "answer(True)", "Confirm", id="confirm.yes", tooltip="Confirm"),
        Binding("escape", "answer(False)", "Cancel", id="confirm.no", tooltip="Cancel: nothing is written"),
    ]

    def __init__(self, title: str, lines: list[str], confirm: str) -> None:
        super().__init__()
        self._title = title
        self._lines = lines
        self._confirm = confirm

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self._title
            with VerticalScroll(classes="dialog-body"):
                yield Static(Text("\n".join(self._lines)))
            yield Static(Text(f"Enter: {self._confirm}    Esc: cancel, nothing is written"), classes="dialog-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class ExportScreen(ModalScreen["str | None"]):
    """Asks where to write the accepted blocks."""

    DEFAULT_CSS = DIALOG_CSS.format(name="ExportScreen")

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel", tooltip="Cancel the export")]

    def __init__(self, default_path: str) -> None:
        super().__init__()
        self._default = default_path

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Export the accepted blocks"
            yield Static("Plan file (relative to the repository root):")
            yield Input(self._default, id="export-path")
            yield Static("Enter: write the file    Esc: cancel", classes="dialog-keys")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path = event.value.strip()
        self.dismiss(path or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
