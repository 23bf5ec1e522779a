"""The user's own slash commands in the app (:mod:`ljtui.core.user_commands`): read, listed and sent.

The files are read in worker threads: once the session starts, again at
every message sent (a file added meanwhile is known from the next message
on: to Tab, the help, the palette and ``/NAME``; ``/commands`` reads them at
once), and each time a command runs, so what is sent is what its file says
now. ``/NAME ARGS`` naming one is shown in the Conversation as typed,
its expansion folded under it, and the expansion goes to the model as a
chat message: straight to the engine, never back through the prompt, so a
file can never start a ``!`` command or another slash command. Built-in
commands and skills keep their names; a file that would take one is told
about once.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Iterable
from weakref import WeakKeyDictionary

if TYPE_CHECKING:
    from typing import Any

    from ljtui.core.engine import CommandSet

    UserCommand = Any
    """A :class:`ljtui.core.user_commands.UserCommand` (the TUI reaches core through the engine's façade)."""
    from ljtui.tui.actions import Action
    from ljtui.tui.app import LjtuiApp
    from ljtui.tui.widgets.prompt_input import PromptInput

READ_GROUP = "commands"
"""The worker group that reads the command files (not the engine's: it never makes the app busy)."""
COMMANDS_SLASH = "commands"
COMMANDS_TITLE = "List your own slash commands (Markdown prompt files) and read them again"
STILL_WORKING = "Still working on the previous request; wait for it to finish."


class ShownCommands:
    """The commands as last read, and the notices about them already shown (each is shown once)."""

    def __init__(self) -> None:
        self.commands: dict[str, UserCommand] = {}
        self.told: set[str] = set()

    @property
    def names(self) -> tuple[str, ...]:
        """The commands' names, sorted."""
        return tuple(sorted(self.commands))

    def listed(self) -> list[UserCommand]:
        """The commands, by name."""
        return [self.commands[name] for name in self.names]


_SHOWN: WeakKeyDictionary[LjtuiApp, ShownCommands] = WeakKeyDictionary()


def shown(app: LjtuiApp) -> ShownCommands:
    """``app``'s commands as last read (none before the first read)."""
    held = _SHOWN.get(app)
    if held is None:
        held = _SHOWN[app] = ShownCommands()
    return held


def builtin_names() -> frozenset[str]:
    """The built-in slash commands' names."""
    from ljtui.tui.commands import ACTIONS

    return frozenset(action.slash for action in ACTIONS.slash_commands())


def _read(app: LjtuiApp) -> CommandSet:
    """Read every command file (disk work: in a thread)."""
    return app.engine.user_commands(builtin_names())


def _take(app: LjtuiApp, found: CommandSet) -> list[str]:
    """Keep what was read (on the event loop); say each new warning and note once; return them all."""
    if not app.screen_stack:  # the app closed while the files were read
        return []
    skills = set(app.skill_names)
    shown(app).commands = {n: c for n, c in found.commands.items() if n not in skills}
    lines = [(w, "warning") for w in found.warnings] + [(n, "info") for n in found.notes]
    lines += [(f"{c.source} command {c.where} is not used: /{n} is a skill", "info")
              for n, c in found.commands.items() if n in skills]
    for line, level in lines:
        if line not in shown(app).told:
            shown(app).told.add(line)
            app.main_screen.conversation.add_notice(line, level)
    return [line for line, _ in lines]


def refresh(app: LjtuiApp) -> None:
    """Read the command files again in a worker; Tab, the help and the palette then offer what they hold."""

    def read() -> None:
        found = _read(app)
        try:
            app.call_from_thread(_take, app, found)
        except RuntimeError:  # the app closed meanwhile
            pass

    app.run_worker(read, name="commands", group=READ_GROUP, thread=True, exclusive=True, exit_on_error=False)


def sends_user_command(app: LjtuiApp, prompt: PromptInput, text: str) -> bool:
    """Act on ``text`` sent from ``prompt`` if it names one of the user's commands as last read (and no built-in
    command or skill): True then; it is sent from a worker that reads the files first (a file removed meanwhile
    is said to be unknown). Otherwise the files are read again in a worker, for the next message."""
    stripped = text.strip()
    words = stripped[1:].split(maxsplit=1) if stripped.startswith("/") and not stripped.startswith("//") else []
    name = words[0].lower() if words else ""
    if name not in shown(app).commands or name in builtin_names() or name in app.skill_names:
        refresh(app)
        return False
    start(app, prompt, stripped, name, words[1] if len(words) > 1 else "")
    return True


def start(app: LjtuiApp, prompt: PromptInput | None, typed: str, name: str, args: str) -> None:
    """Send command ``name`` (typed as ``typed`` in ``prompt``, None from the palette) unless the app is busy."""
    if app.bridge.busy:
        app.main_screen.conversation.add_notice(STILL_WORKING, "warning")
        return
    if prompt is not None:
        prompt.clear()
    app.bridge.run(_send(app, prompt, typed, name, args), "command")


async def _send(app: LjtuiApp, prompt: PromptInput | None, typed: str, name: str, args: str) -> None:
    """Read the files, then send command ``name``'s expansion to the model, or say it is unknown."""
    from ljtui.tui.slash import UnknownSlashCommand

    _take(app, await asyncio.to_thread(_read, app))
    conv = app.main_screen.conversation
    command = shown(app).commands.get(name)
    if command is None:
        conv.add_notice(str(UnknownSlashCommand(name, app.slash_names())), "error")
        if prompt is not None and not prompt.value.strip():  # kept to fix, unless something was typed meanwhile
            prompt.value = typed
            prompt.select_all()
        return
    message = command.message(args)
    conv.add_user(typed)
    conv.add_details(f"message sent · {command.where}", message.splitlines())
    await app.engine.run_turn(message)


def run_from_palette(app: LjtuiApp, command: UserCommand) -> None:
    """A command chosen in the palette: one that takes text is put in the input box to finish; others run."""
    from ljtui.tui.widgets.prompt_input import PromptInput

    if command.takes_text:
        app.main_screen.action_focus_pane("prompt")
        app.main_screen.query_one(PromptInput).value = f"/{command.name} "
    else:  # what the input box holds stays there
        start(app, None, f"/{command.name}", command.name, "")


def help_rows(commands: Iterable[UserCommand]) -> list[tuple[str, str]]:
    """``(usage, what · where from)`` of each command, for the help."""
    rows = []
    for command in commands:
        note = " (its !`…` text is sent as text, not run)" if command.runs_nothing else ""
        rows.append((command.usage, f"{command.description}{note} — {command.where}"))
    return rows


def _list(app: LjtuiApp, args: str) -> None:
    """``/commands``: read the files again, then list the commands and any file that was skipped."""

    async def listing() -> None:
        told = _take(app, await asyncio.to_thread(_read, app))
        rows = help_rows(shown(app).listed())
        lines = [f"{usage}  {what}" for usage, what in rows] or [NONE_YET]
        lines += [f"not used: {line}" for line in told]
        app.show_lines(f"Your commands ({len(rows)})", lines)

    app.bridge.run(listing(), COMMANDS_SLASH)


NONE_YET = "None yet: put NAME.md in the commands folder of your config dir (e.g. ~/.config/ljtui/commands/)."
"""What the help and ``/commands`` say when there are no commands."""


def commands_action() -> Action:
    """The ``/commands`` action for the registry (:data:`ljtui.tui.commands.ACTIONS`)."""
    from ljtui.tui.actions import Action

    return Action("commands", COMMANDS_TITLE, _list, slash=COMMANDS_SLASH, usage="/commands")
