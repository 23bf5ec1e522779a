"""The base of every engine event, token usage and the agents' names: what both the event classes
(:mod:`ljtui.core.event_types`) and the events module (:mod:`ljtui.core.events`) are built on."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Event:
    """Base class of every engine event."""

    @property
    def kind(self) -> str:
        """The event's name in snake case, e.g. ``token_delta``."""
        return _snake(type(self).__name__)


@dataclass(frozen=True)
class Usage:
    """Token counts of one model call (or a sum of several)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )


AGENT_CHAT = "chat"
AGENT_PLANNER = "planner"
"""Names of the agents that call tools (task agents are named ``task <id>``)."""


def _snake(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i:
            out.append("_")
        out.append(ch.lower())
    return "".join(out)
