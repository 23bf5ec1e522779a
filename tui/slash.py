"""Slash commands typed in the input: parsing and the command table.

Parsing is pure (no Textual); the app maps each command name to an action.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SlashCommand:
    """A parsed ``/name args`` line."""

    name: str
    args: str


@dataclass(frozen=True)
class SlashSpec:
    """A command the input understands, for help and error messages."""

    name: str
    usage: str
    description: str


SLASH_COMMANDS: tuple[SlashSpec, ...] = (
    SlashSpec("apply", "/apply", "Apply the accepted blocks of the plan under review"),
    SlashSpec("chat", "/chat MESSAGE", "Talk with the model without planning edits"),
    SlashSpec("clear", "/clear", "Forget the conversation and clear the Conversation pane"),
    SlashSpec("help", "/help", "Show keys and commands"),
    SlashSpec("open", "/open PLAN.md", "Open an EDIT plan file for review in the Diff pane"),
    SlashSpec("theme", "/theme [NAME]", "Switch theme, or list the themes"),
    SlashSpec("undo", "/undo", "Undo the last apply"),
)


class UnknownSlashCommand(ValueError):
    """A ``/word`` that is not a command; the message lists the real ones."""

    def __init__(self, name: str) -> None:
        available = ", ".join(f"/{s.name}" for s in SLASH_COMMANDS)
        shown = f"/{name}" if name else "/"
        super().__init__(f"Unknown command {shown}. Available: {available}")
        self.name = name


def parse_slash(text: str) -> SlashCommand | None:
    """Parse ``text`` as a slash command, or ``None`` when it is a message.

    A line starting with ``//`` is a message that starts with ``/``.

    Raises:
        UnknownSlashCommand: when the name is not in :data:`SLASH_COMMANDS`.
    """
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, args = stripped[1:].partition(" ")
    name = name.lower()
    if name not in {s.name for s in SLASH_COMMANDS}:
        raise UnknownSlashCommand(name)
    return SlashCommand(name, args.strip())


def unescape_message(text: str) -> str:
    """Turn a leading ``//`` back into ``/`` for a message sent as text."""
    stripped = text.strip()
    return stripped[1:] if stripped.startswith("//") else stripped
