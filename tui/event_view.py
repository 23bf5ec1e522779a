"""How each engine event shows on the main screen."""

from __future__ import annotations

from typing import Any

from ljtui.core.events import (
    ConversationCleared, Event, ModelCallStarted, Notice, TokenDelta, ToolCallFinished,
    ToolCallStarted, TurnFailed, TurnFinished, TurnStarted, UsageRecorded,
)
from ljtui.tui.screens.main import MainScreen

ARG_PREVIEW_CHARS = 60
"""Longest argument text shown on a folded tool-call line."""


def describe_call(name: str, arguments: dict[str, Any]) -> str:
    """``read_file src/app.py 10–20``: the tool and its main arguments."""
    parts = [name]
    for value in arguments.values():
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            text = str(value).replace("\n", " ")
            if len(text) > ARG_PREVIEW_CHARS:
                text = text[: ARG_PREVIEW_CHARS - 1] + "…"
            parts.append(text)
    return " ".join(parts)


async def show_event(screen: MainScreen, event: Event, calls: dict[str, str]) -> None:
    """Render one engine event on ``screen``.

    Args:
        calls: the described line of each running tool call, by call id.
    """
    conv = screen.conversation
    match event:
        case TurnStarted():
            screen.status.busy = True
        case ModelCallStarted():
            conv.show_thinking()
        case TokenDelta(text=text):
            await conv.append_reply(text)
        case ToolCallStarted(call_id=cid, name=name, input=args):
            calls[cid] = describe_call(name, args)
            await conv.tool_started(cid, calls[cid])
        case ToolCallFinished(call_id=cid, name=name, ok=ok, summary=summary):
            line = calls.pop(cid, name)
            conv.tool_finished(cid, line if ok else f"{line} — {summary}", ok)
        case UsageRecorded(session=usage, session_cost_usd=cost):
            screen.status.usage = usage
            screen.status.cost = cost
        case TurnFinished():
            await conv.end_reply()
            screen.status.busy = False
        case TurnFailed(message=message):
            await conv.end_reply()
            conv.add_notice(message, "error")
            screen.status.busy = False
        case Notice(message=message, level=level):
            conv.add_notice(message, level)
        case ConversationCleared():
            await conv.clear()
