"""Keeping the conversation under a token budget (AGENT-6).

Before every model call the prompt is estimated; above
``agent.compress_at_tokens`` the older messages are summarised by one model
call (no tools) and only the last few are kept verbatim. The instructions
and the project context are in the system prompt and are never summarised;
the summary itself goes after the cached prefix (``system_tail``). The cut
never separates a tool call from its result.

A single request that loops through many tool calls is cut inside itself
(:func:`cut_inside`): the request stays first, verbatim, then the last
exchanges, ending with the pending tool result; what lies between is
summarised. Each message the summariser reads is cut to
:data:`SUMMARY_BLOCK_CHARS`, so its own request stays bounded too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

from ljtui.core.providers.base import Message, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock
from ljtui.core.repo import CHARS_PER_TOKEN

KEEP_LAST = 4
"""Messages kept verbatim after a compression."""
SUMMARY_MAX_TOKENS = 2_000
"""Tokens the summarising call may write."""
SUMMARY_BLOCK_CHARS = 3_000
"""Characters of one text, tool call or tool result the summariser reads; the middle of a longer one is left out."""
SUMMARY_TRANSCRIPT_CHARS = 120_000
"""Characters of transcript one summarising call reads; the middle of a longer one is left out."""

SUMMARY_SYSTEM = """\
You write the running summary of a coding session between a user and an agent, so the agent can continue
without the older messages. Keep what matters to continue: the user's goals and constraints, decisions made,
files read or changed (paths), commands run and their outcome, errors met, and what is left to do. Be factual
and concise; do not invent anything. Write plain text, no preamble."""

SUMMARY_REQUEST = """\
{previous}Summarise these older messages of the session (they will be removed; the last {keep} messages stay):

{transcript}"""


def estimate_tokens(system: str, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> int:
    """Estimated prompt tokens: characters / 4 of the system text, the messages and the tool schemas."""
    chars = len(system) + sum(len(_message_text(m)) for m in messages)
    chars += sum(len(t.name) + len(t.description) + len(json.dumps(t.input_schema)) for t in tools)
    return -(-chars // CHARS_PER_TOKEN)


def _message_text(message: Message, limit: int | None = None) -> str:
    parts = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append(_shortened(block.text, limit))
        elif isinstance(block, ToolUseBlock):
            parts.append(_shortened(f"[tool call {block.name} {json.dumps(block.input, ensure_ascii=False)}]", limit))
        elif isinstance(block, ToolResultBlock):
            parts.append(_shortened(f"[tool result{' (error)' if block.is_error else ''}] {block.content}", limit))
    return f"{message.role}: " + "\n".join(parts)


def _shortened(text: str, limit: int | None) -> str:
    """``text``, or its beginning and end around a count of what was left out."""
    if limit is None or len(text) <= limit:
        return text
    head, tail = limit * 2 // 3, limit // 3
    return f"{text[:head]}\n[… {len(text) - head - tail} characters left out …]\n{text[len(text) - tail:]}"


def _is_tool_results(message: Message) -> bool:
    return message.role == "user" and any(isinstance(b, ToolResultBlock) for b in message.content)


def _opens(message: Message) -> bool:
    """A message the user typed (a conversation, and a request, starts with one)."""
    return message.role == "user" and not _is_tool_results(message)


@dataclass(frozen=True)
class Cut:
    """Where the history is cut: the older messages to summarise, and those kept verbatim.

    ``inside``: the cut falls inside the current request, whose opening message is kept first.
    """

    older: tuple[Message, ...]
    kept: tuple[Message, ...]
    inside: bool = False


def cut(history: Sequence[Message], keep: int = KEEP_LAST) -> Cut:
    """Keep at most the last ``keep`` messages, starting with a user message that is not a tool result
    (a conversation opens with the user, and a result must follow its call). When no such message lies
    in the last ``keep``, the cut moves back to the user message that began the current exchange."""
    if len(history) <= keep:
        return Cut((), tuple(history))

    def opens(index: int) -> bool:
        return _opens(history[index])

    start = len(history) - keep
    forward = next((i for i in range(start, len(history)) if opens(i)), None)
    if forward is None:
        forward = next((i for i in range(start - 1, -1, -1) if opens(i)), 0)
    return Cut(tuple(history[:forward]), tuple(history[forward:]))


def cut_inside(history: Sequence[Message], keep: int = KEEP_LAST, start: int | None = None) -> Cut:
    """Cut inside the current request: keep its opening message, then the last exchanges (at most ``keep``
    messages, at least the last call and its result), each starting with the model's call so every result
    still follows its call; summarise the rest, the messages before the request included.

    ``start``: the index of the request's opening message (default: the last message the user typed).
    No cut (nothing older) when the request has fewer than two exchanges, or has no opening message.
    """
    if start is None:
        start = next((i for i in range(len(history) - 1, -1, -1) if _opens(history[i])), None)
    if start is None:
        return Cut((), tuple(history))
    calls = [i for i in range(start + 3, len(history)) if history[i].role == "assistant"]
    if not calls:
        return Cut((), tuple(history))
    shortest = len(history) - keep
    tail = next((i for i in calls if i >= shortest), calls[-1])
    return Cut((*history[:start], *history[start + 1:tail]), (history[start], *history[tail:]), inside=True)


def summary_request(older: Sequence[Message], previous: str, keep: int = KEEP_LAST) -> str:
    """The one user message that asks for the summary (each message of it and the whole bounded)."""
    prior = f"The summary so far:\n{_shortened(previous, SUMMARY_BLOCK_CHARS * 4)}\n\n" if previous else ""
    transcript = "\n\n".join(_message_text(m, SUMMARY_BLOCK_CHARS) for m in older)
    return SUMMARY_REQUEST.format(previous=prior, keep=keep,
                                  transcript=_shortened(transcript, SUMMARY_TRANSCRIPT_CHARS))


def summary_section(summary: str) -> str:
    """How the summary appears after the cached system prompt."""
    return f"# Summary of the earlier conversation\n\n{summary}" if summary else ""
