"""The help screen: every key binding and slash command, generated from the
bindings themselves so it can never drift from what the keys do."""

from __future__ import annotations

from typing import Iterable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ljtui.tui.slash import SLASH_COMMANDS


def _key_label(binding: Binding) -> str:
    return ", ".join(k.strip().replace("question_mark", "?").upper() if len(k.strip()) > 1 else k.strip()
                     for k in binding.key.split(","))


def bindings_table(bindings: Iterable[Binding]) -> Table:
    table = Table(box=None, show_header=True, header_style="bold", expand=True, padding=(0, 2, 0, 0))
    table.add_column("Key", no_wrap=True)
    table.add_column("Action")
    seen: set[str] = set()
    for b in bindings:
        if not b.description or b.key in seen:
            continue
        seen.add(b.key)
        table.add_row(_key_label(b), b.tooltip or b.description)
    return table


def slash_table() -> Table:
    table = Table(box=None, show_header=True, header_style="bold", expand=True, padding=(0, 2, 0, 0))
    table.add_column("Command", no_wrap=True)
    table.add_column("What it does")
    for spec in SLASH_COMMANDS:
        table.add_row(spec.usage, spec.description)
    return table


class HelpScreen(ModalScreen[None]):
    """Keys and commands; Escape, Q or F1 closes it."""

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
    }
    HelpScreen > VerticalScroll {
        width: 90%;
        max-width: 100;
        height: 90%;
        border: round $primary;
        background: $surface;
        padding: 0 1;
    }
    HelpScreen .section {
        margin-top: 1;
        text-style: bold;
        color: $primary;
    }
    """

    BINDINGS = [
        Binding("escape,q,f1", "dismiss_help", "Close help", id="help.close", tooltip="Close this screen"),
    ]

    def __init__(self, bindings: list[Binding]) -> None:
        super().__init__()
        self._listed = bindings

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "ljtui help"
            scroll.border_subtitle = "Esc to close"
            yield Static(Text("Keys"), classes="section")
            yield Static(bindings_table(self._listed))
            yield Static(Text("Slash commands (type in the input box)"), classes="section")
            yield Static(slash_table())
            yield Static(Text("The command palette (Ctrl+P) lists every action too."), classes="section")

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
