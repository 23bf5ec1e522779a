"""The help screen: every key and slash command, generated from the action
registry so it can never drift from what the keys do."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ljtui.core.display import shown_line
from ljtui.tui.screens.dialog import Dialog
from ljtui.tui.widgets.prompt_input import NEWLINE_KEYS

if TYPE_CHECKING:
    from ljtui.tui.actions import Registry

KEY_WORDS = {"question_mark": "?", "space": "Space", "down": "↓", "up": "↑", "pagedown": "PageDown",
             "pageup": "PageUp", "escape": "Escape", "enter": "Enter", "tab": "Tab", "backspace": "Backspace"}
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


SCOPE_WORDS = {"app": "anywhere", "main": "main screen", "diff": "Diff pane", "plan": "Plan pane",
               "gates": "Gates pane"}
"""Where an action's keys work, as the help names the scope."""
SCOPE_HEADINGS = {"app": "Anywhere", "main": "On the main screen", "prompt": "In the input box",
                  "conversation": "In the Conversation pane",
                  "diff": "In the Diff pane", "plan": "In the Plan pane", "gates": "In the Gates pane",
                  "help": "In this help"}
"""The heading of each scope's keys, in the order the help lists them."""
KEY_CELLS = 28
"""Widest the key column grows (to its longest keys, a user's keymap's too); longer keys wrap within it."""
BUILT_IN_KEYS = (
    ("app", "ctrl+p", "Open the command palette: the actions by name, with their keys and commands"),
    ("prompt", "enter", "Send the message"),
    ("prompt", "ctrl+j", "Break the line (so do "
     + " and ".join(key_label(k) for k in sorted(NEWLINE_KEYS - {"ctrl+j"}, reverse=True))
     + ", in terminals that tell them from Enter)"),
    ("prompt", "up,down", "On the first (last) line: the messages sent this session, newest first"),
    ("prompt", "tab", "After / and the start of a name: complete the command's or skill's name"),
    ("prompt", "backspace", "Just after a [pasted N lines] label: drop that paste"),
    ("conversation", "up,down", "Scroll the conversation a line"),
    ("conversation", "pageup,pagedown", "Scroll the conversation a page"),
    ("conversation", "home", "Jump to the start of the conversation"),
    ("conversation", "end", "Jump to the end (where new output arrives)"),
    ("help", "up,down", "Scroll this help a line"),
    ("help", "pageup,pagedown", "Scroll this help a page"),
    ("help", "escape,q,f1", "Close this help"),
)
"""Keys that are Textual's own, not actions of the registry: ``(scope, keys, what they do)``."""


def _what(title: str, scope: str) -> str:
    """An action's title without the ``Diff pane:`` (or ``Diff pane,``) its heading already says, capitalised."""
    where = SCOPE_WORDS.get(scope, "")
    what = title.removeprefix(f"{where}: ").removeprefix(f"{where}, ")
    return what[:1].upper() + what[1:]


def _keys_table(rows: list[tuple[str, str]], key_cells: int) -> Table:
    table = Table(box=None, show_header=False, expand=True, padding=(0, 2, 0, 2))
    table.add_column("Key", width=key_cells, overflow="fold")
    table.add_column("Action", ratio=1)
    for keys, what in rows:
        table.add_row(_cell(key_label(keys)), _cell(what))
    return table


def key_groups(registry: Registry, keymap: dict[str, str]) -> list[tuple[str, Table]]:
    """Every key, by where it works: the registry's actions (after the user's ``keymap``) and Textual's own keys.

    Returns:
        ``(heading, table)`` for each scope that has keys, the table's rows being the keys and what they do.
    """
    rows: dict[str, list[tuple[str, str]]] = {}
    for action in registry.actions:
        keys = keymap.get(action.id, action.keys)
        if keys:
            rows.setdefault(action.scope, []).append((keys, _what(action.title, action.scope)))
    for scope, keys, what in BUILT_IN_KEYS:
        rows.setdefault(scope, []).append((keys, what))
    order = [*SCOPE_HEADINGS, *sorted(rows.keys() - SCOPE_HEADINGS.keys())]
    key_cells = min(KEY_CELLS, max(cell_len(key_label(keys)) for scope_rows in rows.values() for keys, _ in scope_rows))
    return [(_heading(registry, keymap, scope), _keys_table(rows[scope], key_cells)) for scope in order if scope in rows]


def _heading(registry: Registry, keymap: dict[str, str], scope: str) -> str:
    """A scope's heading, with the key that moves to its pane: ``In the Diff pane (F4)``."""
    heading = SCOPE_HEADINGS.get(scope, scope)
    focus = registry.get(f"focus.{scope}")
    keys = keymap.get(focus.id, focus.keys) if focus is not None else ""
    return f"{heading} ({key_label(keys)})" if keys else heading


def slash_lines(registry: Registry) -> list[tuple[str, str]]:
    """Every slash command: how it is typed, and what it does."""
    return [(action.usage, action.title) for action in registry.slash_commands()]


YOUR_COMMANDS = ("Markdown files NAME.md in the commands folder of your config dir, and in .agent/commands and "
                 ".claude/commands of a trusted repository (frontend/component.md is /frontend:component). "
                 "/NAME ARGS sends the file's text to the model as your message: $ARGUMENTS is ARGS, $1, $2… its "
                 "words. A built-in command keeps its name. A file runs nothing: its !`command` text is sent as text.")
"""What the help says about the user's own slash commands."""


def user_command_lines(app: object) -> list[tuple[str, str]]:
    """Each of the user's own commands: how it is typed, and what it does and where it is from."""
    from ljtui.tui.user_commands import NONE_YET, help_rows, shown

    rows = help_rows(shown(app).listed())  # type: ignore[arg-type]
    return rows or [("", NONE_YET)]


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
    HelpScreen .scope { margin-top: 1; text-style: bold; }
    HelpScreen .usage { margin-top: 1; padding-left: 2; text-style: bold; }
    HelpScreen .what { padding-left: 6; }
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
            for heading, table in key_groups(self._registry, self._keymap):
                yield Static(Content(heading), classes="scope")
                yield Static(table)
            yield Static(Text("Slash commands (type in the input box)"), classes="section")
            for usage, what in slash_lines(self._registry):
                yield Static(Content(shown_line(usage)), classes="usage")
                yield Static(Content(shown_line(what)), classes="what")
            yield Static(Text("Your commands (/commands lists them and reads the files again)"), classes="section")
            yield Static(Content(YOUR_COMMANDS), classes="what")
            for usage, what in user_command_lines(self.app):
                if usage:
                    yield Static(Content(shown_line(usage)), classes="usage")
                yield Static(Content(shown_line(what)), classes="what")
            yield Static(Text("The command palette (Ctrl+P) lists the actions by name, with their keys or "
                              "commands."), classes="section")

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
