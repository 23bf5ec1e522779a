"""What a tool call returns, and how a tool refuses its input: shared by every tool, the planner's too."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ToolResult:
    """What any tool call returns, for every agent (planner, chat, tasks).

    Attributes:
        ok: False for a refused or failed call.
        content: the text the model reads.
        summary: one line for the trace and the UI's folded tool line.
    """

    ok: bool
    content: str
    summary: str


class ToolError(Exception):
    """A tool refused its input; the message goes back to the model."""
