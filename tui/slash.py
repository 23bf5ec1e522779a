"""Parsing slash commands typed in the input (pure: no Textual).

The commands themselves are actions in the registry (:mod:`ljtui.tui.commands`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


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
    name, _, args = stripped[1:].partition(" ")
    name = name.lower()
    if name not in known:
        raise UnknownSlashCommand(name, known)
    return SlashCommand(name, args.strip())


def unescape_message(text: str) -> str:
    """Turn a leading ``//`` back into ``/`` for a message sent as text."""
    stripped = text.strip()
    return stripped[1:] if stripped.startswith("//") else stripped
