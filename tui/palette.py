"""The command palette's entries: Textual's own, every action of the registry, and each theme.

Each action shows its title, and under it how else it is reached: its keys
(after the user's keymap) and its slash command as typed, e.g.
``e · /export [PATH]``. An action whose slash command needs text (``/open
PLAN.md``) puts the command in the input box for the user to finish, instead
of running it empty.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from textual.app import App, SystemCommand

from ljtui.core.display import shown_line
from ljtui.tui.actions import REQUIRED, Action
from ljtui.tui.commands import ACTIONS
from ljtui.tui.screens.help import key_label

if TYPE_CHECKING:
    from textual.screen import Screen

    from ljtui.tui.app import LjtuiApp

TEXTUAL_REPLACED = ("Theme", "Keys", "Quit")
"""Textual's own entries that ljtui's replace (the themes one by one, the help, Quit with its key)."""


def palette_text(text: str) -> str:
    """``text`` as the palette shows it: controls visible, every ``[`` a bracket, not markup (``[PATH]`` is no
    style; Textual's ``escape`` only escapes tags that start in lower case)."""
    return shown_line(text).replace("[", "\\[")


def help_line(action: Action, keymap: dict[str, str]) -> str:
    """How ``action`` is reached besides the palette: ``F1, ? · /help``, ``Space``, ``/gates [ID | …]``."""
    keys = keymap.get(action.id, action.keys)
    ways = [key_label(keys)] if keys else []
    if action.usage:
        ways.append(action.usage)
    return " · ".join(ways) or action.title


def run_from_palette(app: LjtuiApp, action: Action) -> None:
    """Carry ``action`` out; a slash command that needs text is put in the input box to finish."""
    if action.args == REQUIRED:
        from ljtui.tui.widgets.prompt_input import PromptInput

        app.main_screen.action_focus_pane("prompt")
        app.main_screen.query_one(PromptInput).value = f"/{action.slash} "
        return
    action.run(app, "")


def palette_actions() -> list[Action]:
    """The actions the palette lists (the others say why not: :attr:`~ljtui.tui.actions.Action.palette_reason`)."""
    return [action for action in ACTIONS.actions if action.palette]


def system_commands(app: LjtuiApp, screen: Screen) -> Iterable[SystemCommand]:
    """The palette's entries (for :meth:`textual.app.App.get_system_commands`)."""
    for command in App.get_system_commands(app, screen):
        if command.title not in TEXTUAL_REPLACED:
            yield command
    keymap = app.config.ui.keymap
    for action in palette_actions():  # the palette reads its entries as markup
        yield SystemCommand(palette_text(action.title), palette_text(help_line(action, keymap)),
                            lambda a=action: run_from_palette(app, a))
    yield from user_command_entries(app)
    for name in app.theme_set.themes:  # a theme's name is a file's
        label = palette_text(name)
        yield SystemCommand(f"Theme: {label}", f"Switch to the {label} theme", lambda n=name: app.choose_theme(n))


def user_command_entries(app: LjtuiApp) -> Iterable[SystemCommand]:
    """An entry for each of the user's own commands: ``/review`` with its description and file (read from files:
    plain text, never markup)."""
    from ljtui.tui.user_commands import run_from_palette as run_command, shown

    for command in shown(app).listed():
        yield SystemCommand(palette_text(command.usage), palette_text(f"{command.description} — {command.where}"),
                            lambda c=command: run_command(app, c))
