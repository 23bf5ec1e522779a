"""Parsing slash commands typed in the input (pure: no Textual), and the ``/playbook`` command.

The commands themselves are actions in the registry (:mod:`ljtui.tui.commands`);
:func:`playbook_action` is the one for ``/playbook``, which only asks the
engine's playbook service and shows its reply.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from ljtui.tui.actions import Action
    from ljtui.tui.app import LjtuiApp


@dataclass(frozen=True)
class SlashCommand:
    """A parsed ``/name args`` line."""

    name: str
    args: str


class UnknownSlashCommand(ValueError):
    """A ``/word`` that is not a command; the message lists the real ones."""

    def __init__(self, name: str, available: Iterable[str]) -> None:
        listed = ", ".join(f"/{n}" for n in sorted(available))
        shown = f"/{name}" if name else "/"
        super().__init__(f"Unknown command {shown}. Available: {listed}")
        self.name = name


def parse_slash(text: str, names: Iterable[str]) -> SlashCommand | None:
    """Parse ``text`` as a slash command, or ``None`` when it is a message.

    A line starting with ``//`` is a message that starts with ``/``.

    Raises:
        UnknownSlashCommand: when the name is not one of ``names``.
    """
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    known = set(names)
    name, args = (stripped[1:].split(maxsplit=1) + ["", ""])[:2]
    name = name.lower()
    if name not in known:
        raise UnknownSlashCommand(name, known)
    return SlashCommand(name, args.strip())


def complete_slash(text: str, names: Iterable[str]) -> tuple[str, list[str]]:
    """Complete the command name ``text`` starts (``/he`` → ``/help ``).

    Returns:
        The completed text (``text`` itself when nothing completes), and every name that matches.
    """
    if not text.startswith("/") or text.startswith("//") or any(c.isspace() for c in text):
        return text, []
    typed = text[1:].lower()
    matches = sorted({n for n in names if n.startswith(typed)})
    if len(matches) == 1:
        return f"/{matches[0]} ", matches
    common = os.path.commonprefix(matches) if matches else typed
    return f"/{common if len(common) > len(typed) else text[1:]}", matches


def unescape_message(text: str) -> str:
    """Turn a leading ``//`` back into ``/`` for a message sent as text."""
    stripped = text.strip()
    return stripped[1:] if stripped.startswith("//") else stripped


PLAYBOOK_SLASH = "playbook"
PLAYBOOK_USAGE = "/playbook list | show ID | promote ID | deprecate ID | draft ID | stats | gates [ID]"
PLAYBOOK_TITLE = "Playbooks: list, show, promote (asks first), deprecate, send back to draft; stats; gates"


def playbook_command(app: LjtuiApp, args: str) -> None:
    """``/playbook ARGS``: the engine's playbook service answers in a worker (a promotion asks in a dialog)."""
    app.bridge.run(_playbook(app, args), PLAYBOOK_SLASH)


PLAYBOOK_GATES_LISTED_BY = "/playbook gates lists them"
"""What an unknown gate id's refusal adds after ``/playbook gates ID``."""


async def _playbook(app: LjtuiApp, args: str) -> None:
    words = args.split()
    if words[:1] == ["gates"]:  # the seed's /playbook gates [ID]: the gates listed, or one gate's items and history
        if len(words) > 2:
            app.main_screen.conversation.add_notice(f"Usage: {PLAYBOOK_USAGE}", "error")
            return
        shown = await app.engine.gates_shown(words[1] if len(words) == 2 else None,
                                             listed_by=PLAYBOOK_GATES_LISTED_BY)
        if shown is not None:
            app.show_lines(*shown)
        return
    reply = await app.engine.playbooks.command(args)
    if reply.skills is not None:
        app.skill_names = reply.skills
    if reply.lines:
        app.show_lines(reply.title, list(reply.lines))
    else:
        app.main_screen.conversation.add_notice(reply.title, reply.level)


def playbook_action() -> Action:
    """The ``/playbook`` action for the registry (:data:`ljtui.tui.commands.ACTIONS`)."""
    from ljtui.tui.actions import OPTIONAL, Action

    return Action("playbook", PLAYBOOK_TITLE, playbook_command, slash=PLAYBOOK_SLASH, usage=PLAYBOOK_USAGE,
                  args=OPTIONAL)
