"""The help screen: every key and slash command, generated from the action
registry so it can never drift from what the keys do."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ljtui.core.display import shown_line
from ljtui.tui.screens.dialog import Dialog

if TYPE_CHECKING:
    from ljtui.tui.actions import Registry

KEY_WORDS = {"question_mark": "?", "space": "Space", "down": "↓", "up": "↑", "pagedown": "PageDown",
             "pageup": "PageUp", "escape": "Escape", "enter": "Enter", "tab": "Tab"}
"""How a key is written where its name alone would read wrong ("Pagedown")."""


def key_label(keys: str) -> str:
    """``F1``, ``J, ↓``, ``Ctrl+L``: keys as a user reads them."""
    shown = []
    for key in (k.strip() for k in keys.split(",")):
        if key in KEY_WORDS:
            shown.append(KEY_WORDS[key])
        elif len(key) > 1:
            shown.append("+".join(part.capitalize() if len(part) > 2 else part.upper() for part in key.split("+")))
        else:
            shown.append(key)
    return ", ".join(shown)


def _cell(text: str) -> Text:
    """A table cell as plain text: a Rich table would read a string as markup (keys come from the user's keymap)."""
    return Text(shown_line(text))


def _table(first: str, second: str) -> Table:
    table = Table(box=None, show_header=True, header_style="bold", expand=True, padding=(0, 2, 0, 0))
    table.add_column(first, no_wrap=True)
    table.add_column(second)
    return table


SCOPE_WORDS = {"app": "anywhere", "main": "main screen", "diff": "Diff pane", "plan": "Plan pane",
               "gates": "Gates pane"}


def bindings_table(registry: Registry, keymap: dict[str, str]) -> Table:
    """Every action with a key: the keys in use (after the user's keymap), where, and what it does."""
    table = _table("Key", "Where")
    table.add_column("Action")
    for action in registry.actions:
        keys = keymap.get(action.id, action.keys)
        if keys:
            what = action.title.removeprefix(f"{SCOPE_WORDS.get(action.scope, '')}: ")
            table.add_row(_cell(key_label(keys)), _cell(SCOPE_WORDS.get(action.scope, action.scope)),
                          _cell(what[:1].upper() + what[1:]))
    return table


def slash_table(registry: Registry) -> Table:
    """Every slash command with its usage."""
    table = _table("Command", "What it does")
    for action in registry.slash_commands():
        table.add_row(_cell(action.usage), _cell(action.title))
    return table


class HelpScreen(Dialog[None]):
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

    def __init__(self, registry: Registry, keymap: dict[str, str]) -> None:
        super().__init__()
        self._registry = registry
        self._keymap = keymap

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = Content("ljtui help")
            scroll.border_subtitle = Content("Esc to close")
            yield Static(Text("Keys"), classes="section")
            yield Static(bindings_table(self._registry, self._keymap))
            yield Static(Text("Slash commands (type in the input box)"), classes="section")
            yield Static(slash_table(self._registry))
            yield Static(Text("The command palette (Ctrl+P) lists every action too."), classes="section")

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
