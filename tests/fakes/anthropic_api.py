"""Replies in the Anthropic Messages API wire format (SSE), for the fake server."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.server import KEEPALIVE, SSE, Reply

FAST_RETRY_AFTER = "0.01"
"""``retry-after`` seconds the fault replies send, so SDK retries are quick."""


def _ev(kind: str, **data: Any) -> SSE:
    return SSE({"type": kind, **data}, event=kind)


def message_events(
    text: str = "",
    *,
    tool_uses: tuple[tuple[str, str, dict[str, Any]], ...] = (),
    input_tokens: int = 10,
    output_tokens: int = 5,
    cache_read: int = 0,
    cache_write: int = 0,
    chunk: int = 4,
    model: str = "claude-test",
) -> list[SSE]:
    """The full event sequence of one assistant message.

    Args:
        text: streamed in pieces of ``chunk`` characters.
        tool_uses: ``(id, name, input)`` of each tool_use block after the text.
    """
    usage = {
        "input_tokens": input_tokens, "output_tokens": 1,
        "cache_read_input_tokens": cache_read, "cache_creation_input_tokens": cache_write,
    }
    events = [_ev("message_start", message={
        "id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": usage,
    })]
    index = 0
    if text:
        events.append(_ev("content_block_start", index=0, content_block={"type": "text", "text": ""}))
        events.append(SSE({"type": "ping"}, event="ping"))
        for i in range(0, len(text), chunk):
            events.append(_ev("content_block_delta", index=0,
                              delta={"type": "text_delta", "text": text[i:i + chunk]}))
        events.append(_ev("content_block_stop", index=0))
        index = 1
    for tool_id, name, inp in tool_uses:
        events.append(_ev("content_block_start", index=index,
                          content_block={"type": "tool_use", "id": tool_id, "name": name, "input": {}}))
        raw = json.dumps(inp)
        half = len(raw) // 2
        for piece in (raw[:half], raw[half:]):
            events.append(_ev("content_block_delta", index=index,
                              delta={"type": "input_json_delta", "partial_json": piece}))
        events.append(_ev("content_block_stop", index=index))
        index += 1
    stop = "tool_use" if tool_uses else "end_turn"
    events.append(_ev("message_delta", delta={"stop_reason": stop, "stop_sequence": None},
                      usage={"output_tokens": output_tokens}))
    events.append(_ev("message_stop"))
    return events


def text_reply(text: str, **kw: Any) -> Reply:
    """A streamed text answer."""
    return Reply(events=tuple(message_events(text, **kw)))


def tool_reply(text: str, tool_id: str, name: str, inp: dict[str, Any], **kw: Any) -> Reply:
    """A streamed answer that ends in one tool_use block."""
    return Reply(events=tuple(message_events(text, tool_uses=((tool_id, name, inp),), **kw)))


def error_body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def status_reply(status: int, kind: str, message: str, retry_after: str | None = FAST_RETRY_AFTER) -> Reply:
    """An HTTP error before any streaming (429, 529, 500, 401 …)."""
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return Reply(status=status, body=error_body(kind, message), headers=headers)


def invalid_request(message: str) -> Reply:
    """The 400 the API answers a request that breaks its rules with (never retried)."""
    return Reply(status=400, body=error_body("invalid_request_error", message))


def rate_limited(retry_after: str | None = FAST_RETRY_AFTER) -> Reply:
    return status_reply(429, "rate_limit_error", "Number of requests has exceeded your rate limit", retry_after)


def overloaded(retry_after: str | None = FAST_RETRY_AFTER) -> Reply:
    return status_reply(529, "overloaded_error", "Overloaded", retry_after)


def overloaded_midstream(text_before: str = "Partial ") -> Reply:
    """A 200 stream that starts answering, then reports ``overloaded_error``."""
    events = message_events(text_before)[:4]
    events.append(SSE(error_body("overloaded_error", "Overloaded"), event="error"))
    return Reply(events=tuple(events))


def cut_off(text: str = "This reply is cut off somewhere in the middle") -> Reply:
    """A stream whose connection drops before the message ends."""
    events = message_events(text)
    return Reply(events=tuple(events), cut_after=len(events) - 4)


def truncated(text: str = "This reply just stops") -> Reply:
    """A stream that ends cleanly at the HTTP level but without ``message_stop``."""
    events = message_events(text)
    return Reply(events=tuple(events[:-3]))


def stalled(text: str = "Starts then goes quiet", *, after: int = 4) -> Reply:
    """A stream that sends ``after`` events and then nothing, keeping the connection open.

    The first three events (message start, block start, ping) carry no text;
    the fourth is the first piece of it.
    """
    return Reply(events=tuple(message_events(text)), stall_after=after)


def never_answers() -> Reply:
    """A server that accepts the request and never responds."""
    return Reply(hang=True)


def headers_then_silence() -> Reply:
    """A server that sends the response headers of a stream, then nothing, keeping the connection."""
    return Reply(events=tuple(message_events("never sent")), stall_after=0)


def trickle_forever(every: float, *, text_before: str = "Thinking", ping: bool = True) -> Reply:
    """A stream that starts a reply, then sends a ping event (or, with ``ping=False``,
    one blank byte) every ``every`` seconds and never finishes."""
    events = message_events(text_before)[:4]
    keepalive = SSE({"type": "ping"}, event="ping").encode() if ping else KEEPALIVE
    return Reply(events=tuple(events), trickle_every=every, trickle=keepalive)
