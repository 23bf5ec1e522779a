"""Keeping the conversation under a token budget (AGENT-6).

Before every model call the prompt is estimated; above
``agent.compress_at_tokens`` the older messages are summarised by one model
call (no tools) and only the last few are kept verbatim. The instructions
and the project context are in the system prompt and are never summarised;
the summary itself goes after the cached prefix (``system_tail``). The cut
never separates a tool call from its result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

from ljtui.core.providers.base import Message, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock

KEEP_LAST = 4
"""Messages kept verbatim after a compression."""
CHARS_PER_TOKEN = 4
"""The estimate: characters per token (the same rule as the planner's budget)."""
SUMMARY_MAX_TOKENS = 2_000
"""Tokens the summarising call may write."""

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


def _message_text(message: Message) -> str:
    parts = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ToolUseBlock):
            parts.append(f"[tool call {block.name} {json.dumps(block.input, ensure_ascii=False)}]")
        elif isinstance(block, ToolResultBlock):
            parts.append(f"[tool result{' (error)' if block.is_error else ''}] {block.content}")
    return f"{message.role}: " + "\n".join(parts)


def _is_tool_results(message: Message) -> bool:
    return message.role == "user" and any(isinstance(b, ToolResultBlock) for b in message.content)


@dataclass(frozen=True)
class Cut:
    """Where the history is cut: the older messages to summarise, and those kept verbatim."""

    older: tuple[Message, ...]
    kept: tuple[Message, ...]


def cut(history: Sequence[Message], keep: int = KEEP_LAST) -> Cut:
    """Keep at most the last ``keep`` messages, starting with a user message that is not a tool result
    (a conversation opens with the user, and a result must follow its call). When no such message lies
    in the last ``keep``, the cut moves back to the user message that began the current exchange."""
    if len(history) <= keep:
        return Cut((), tuple(history))

    def opens(index: int) -> bool:
        return history[index].role == "user" and not _is_tool_results(history[index])

    start = len(history) - keep
    forward = next((i for i in range(start, len(history)) if opens(i)), None)
    if forward is None:
        forward = next((i for i in range(start - 1, -1, -1) if opens(i)), 0)
    return Cut(tuple(history[:forward]), tuple(history[forward:]))


def summary_request(older: Sequence[Message], previous: str, keep: int = KEEP_LAST) -> str:
    """The one user message that asks for the summary."""
    prior = f"The summary so far:\n{previous}\n\n" if previous else ""
    transcript = "\n\n".join(_message_text(m) for m in older)
    return SUMMARY_REQUEST.format(previous=prior, keep=keep, transcript=transcript)


def summary_section(summary: str) -> str:
    """How the summary appears after the cached system prompt."""
    return f"# Summary of the earlier conversation\n\n{summary}" if summary else ""
