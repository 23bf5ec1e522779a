"""What the model APIs accept: request bodies checked against their documented rules (pure functions).

No test reaches the real APIs, so the fake servers and the scripted provider
run these checks on every request and refuse one with problems, as the real
API answers it with a 400 ``invalid_request_error``.

Anthropic Messages API (``/v1/messages``), as its reference documents it:

* ``messages`` is a non-empty list of ``user`` and ``assistant`` messages,
  the first from the user. Consecutive messages of one role are accepted:
  the API combines them into a single turn, and the rules below that speak
  of "the next message" apply to those combined turns.
* Every ``tool_use`` of an assistant turn is answered by a ``tool_result``
  with its id in the user turn right after it; a ``tool_result`` answers a
  ``tool_use`` of the turn right before it; in a user turn the tool results
  come before any other block. ``tool_use`` ids are unique and match
  :data:`TOOL_USE_ID`.
* Text blocks (in messages and the system prompt) hold non-whitespace text;
  a message's content is never empty, except a final assistant message's;
  an error's ``tool_result`` has content.
* At most :data:`MAX_CACHE_BREAKPOINTS` ``cache_control`` breakpoints in all
  (system, tools and messages).
* Tool names match :data:`TOOL_NAME`, are unique, and each ``input_schema``
  is a JSON schema of type ``object``.
* ``max_tokens`` is a positive integer no larger than the model's output
  limit (:func:`output_limit`).
* A final assistant message (a prefill) does not end with whitespace.

The OpenAI chat-completions rules are :mod:`ljtui.core.providers.openai_rules`.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}\Z")
"""A tool (function) name both APIs accept."""

TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]+\Z")
"""A ``tool_use`` id (and a ``tool_result``'s ``tool_use_id``) the Messages API accepts."""

MAX_CACHE_BREAKPOINTS = 4
"""Most blocks with ``cache_control`` one Anthropic request may carry."""

OUTPUT_LIMITS: tuple[tuple[str, int], ...] = (
    ("claude-3-haiku", 4_096),
    ("claude-3-opus", 4_096),
    ("claude-3-5-haiku", 8_192),
    ("claude-3-5-sonnet", 8_192),
    ("claude-3-7-sonnet", 64_000),
    ("claude-opus-4-0", 32_000),
    ("claude-opus-4-1", 32_000),
    ("claude-opus-4-2", 32_000),
    ("claude-sonnet-4-0", 64_000),
    ("claude-sonnet-4-2", 64_000),
    ("claude-sonnet-4-5", 64_000),
    ("claude-haiku-4-5", 64_000),
    ("claude-opus-4-5", 64_000),
    ("claude-opus-4", 128_000),
    ("claude-sonnet-4", 64_000),
)
"""Most output tokens per model, by model-name prefix; the first prefix that matches wins.

From Anthropic's models overview (``claude-opus-4-2…`` is ``claude-opus-4-20250514``)."""

DEFAULT_OUTPUT_LIMIT = 128_000
"""The output limit of a model not in :data:`OUTPUT_LIMITS`: that of the current models."""

ANTHROPIC_ROLES = ("user", "assistant")


def output_limit(model: str) -> int:
    """Most tokens ``model`` may be asked to write (``max_tokens``)."""
    for prefix, limit in OUTPUT_LIMITS:
        if model.startswith(prefix):
            return limit
    return DEFAULT_OUTPUT_LIMIT


def anthropic_problems(body: dict[str, Any]) -> list[str]:
    """What the Messages API would refuse in ``body``, one sentence a problem (empty when none)."""
    if not isinstance(body, dict):
        return ["the request body must be a JSON object"]
    problems: list[str] = []
    model = body.get("model")
    if not isinstance(model, str) or not model:
        problems.append("model: a model name is required")
    problems += max_tokens_problems(body.get("max_tokens"), model if isinstance(model, str) else "")
    problems += _system(body.get("system"))
    problems += tools_problems(body.get("tools"), "tools", _anthropic_tool)
    problems += _anthropic_messages(body.get("messages"))
    found = _breakpoints(body)
    if found > MAX_CACHE_BREAKPOINTS:
        problems.append(f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
                        f"Found {found}.")
    return problems


def max_tokens_problems(value: Any, model: str | None) -> list[str]:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return [f"max_tokens: must be a positive integer, got {value!r}"]
    if model is not None and value > output_limit(model):
        return [f"max_tokens: {value} > {output_limit(model)}, which is the maximum allowed number of "
                f"output tokens for {model}"]
    return []


def _blank(text: Any) -> bool:
    return not isinstance(text, str) or not text.strip()


def _system(system: Any) -> list[str]:
    if system is None or isinstance(system, str):
        return []
    if not isinstance(system, list):
        return ["system: must be a string or a list of text blocks"]
    problems = []
    for j, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text":
            problems.append(f"system.{j}: must be a text block")
        elif _blank(block.get("text")):
            problems.append(f"system.{j}: text content blocks must contain non-whitespace text")
    return problems


def schema_object(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "object"


def _anthropic_tool(tool: Any, where: str) -> tuple[Any, list[str]]:
    if not isinstance(tool, dict):
        return None, [f"{where}: must be an object"]
    problems = [] if schema_object(tool.get("input_schema")) else [
        f"{where}.input_schema: must be a JSON schema of type 'object'"]
    return tool.get("name"), problems


def tools_problems(tools: Any, where: str, check: Any) -> list[str]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        return [f"{where}: must be a list"]
    problems: list[str] = []
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        name, found = check(tool, f"{where}.{i}")
        problems += found
        if tool is None or not isinstance(tool, dict):
            continue
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            problems.append(f"{where}.{i}.name: {name!r} does not match '^[a-zA-Z0-9_-]{{1,64}}$'")
        elif name in seen:
            problems.append(f"{where}: tool names must be unique ({name!r} appears more than once)")
        else:
            seen.add(name)
    return problems


def _marked(items: Any) -> int:
    """How many of ``items`` (blocks or tools) carry a ``cache_control``, a tool result's own blocks included."""
    if not isinstance(items, list):
        return 0
    count = 0
    for item in items:
        if isinstance(item, dict):
            count += item.get("cache_control") is not None
            if item.get("type") == "tool_result":
                count += _marked(item.get("content"))
    return count


def _breakpoints(body: dict[str, Any]) -> int:
    """The ``cache_control`` breakpoints of a request: on system blocks, tools, message blocks, and the body."""
    messages = body.get("messages")
    in_messages = sum(_marked(m.get("content")) for m in messages if isinstance(m, dict)) \
        if isinstance(messages, list) else 0
    return (body.get("cache_control") is not None) + _marked(body.get("system")) + _marked(body.get("tools")) \
        + in_messages


def _blocks(content: Any) -> list[Any]:
    """A message's content as blocks (a string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def _anthropic_messages(messages: Any) -> list[str]:
    if not isinstance(messages, list) or not messages:
        return ["messages: at least one message is required"]
    problems: list[str] = []
    for i, message in enumerate(messages):
        problems += _anthropic_message(i, message, final=i == len(messages) - 1)
    if problems:
        return problems
    turns = list(_turns(messages))
    if turns[0][0] != "user":
        problems.append("messages.0.role: the first message must use the user role")
    problems += _tool_pairing(turns)
    problems += _prefill(messages[-1], len(messages) - 1)
    return problems


def _anthropic_message(i: int, message: Any, *, final: bool) -> list[str]:
    where = f"messages.{i}"
    if not isinstance(message, dict):
        return [f"{where}: must be an object with 'role' and 'content'"]
    role = message.get("role")
    if role not in ANTHROPIC_ROLES:
        return [f"{where}.role: must be 'user' or 'assistant', got {role!r}"]
    content = message.get("content")
    if not isinstance(content, (str, list)):
        return [f"{where}.content: must be a string or a list of content blocks"]
    if not content and not (final and role == "assistant"):
        return [f"{where}: all messages must have non-empty content except for the optional final "
                "assistant message"]
    if isinstance(content, str):
        if not content.strip() and not (final and role == "assistant"):
            return [f"{where}.content: text content must contain non-whitespace text"]
        return []
    problems = []
    for j, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind is None:
            problems.append(f"{where}.content.{j}: must be a content block with a 'type'")
        elif kind == "text" and _blank(block.get("text")):
            problems.append(f"{where}.content.{j}: text content blocks must contain non-whitespace text")
        elif kind == "tool_use" and role != "assistant":
            problems.append(f"{where}.content.{j}: tool_use blocks are only allowed in assistant messages")
        elif kind == "tool_result" and role != "user":
            problems.append(f"{where}.content.{j}: tool_result blocks are only allowed in user messages")
        elif kind == "tool_use" and (not isinstance(block.get("id"), str) or not TOOL_USE_ID.match(block["id"])):
            problems.append(f"{where}.content.{j}.tool_use.id: {block.get('id')!r} does not match "
                            "'^[a-zA-Z0-9_-]+$'")
        elif kind == "tool_result" and (not isinstance(block.get("tool_use_id"), str)
                                        or not TOOL_USE_ID.match(block["tool_use_id"])):
            problems.append(f"{where}.content.{j}.tool_result.tool_use_id: {block.get('tool_use_id')!r} does not "
                            "match '^[a-zA-Z0-9_-]+$'")
        elif kind == "tool_result" and block.get("is_error") and not block.get("content"):
            problems.append(f"{where}.content.{j}.tool_result: content cannot be empty if `is_error` is true")
        elif kind == "tool_use" and not isinstance(block.get("input"), dict):
            problems.append(f"{where}.content.{j}.input: must be an object")
    return problems


_Turn = tuple[str, list[tuple[int, int, dict[str, Any]]]]
"""A role and its blocks as (message index, block index, block): consecutive messages of a role combined."""


def _turns(messages: list[dict[str, Any]]) -> Iterator[_Turn]:
    role = ""
    blocks: list[tuple[int, int, dict[str, Any]]] = []
    for i, message in enumerate(messages):
        if message["role"] != role and role:
            yield role, blocks
            blocks = []
        role = message["role"]
        blocks.extend((i, j, block) for j, block in enumerate(_blocks(message["content"])))
    yield role, blocks


def _tool_pairing(turns: list[_Turn]) -> list[str]:
    problems: list[str] = []
    seen_ids: set[str] = set()
    for t, (role, blocks) in enumerate(turns):
        if role == "assistant":
            ids = [b["id"] for _, _, b in blocks if b.get("type") == "tool_use"]
            for i, j, b in blocks:
                if b.get("type") != "tool_use":
                    continue
                if b["id"] in seen_ids:
                    problems.append(f"messages.{i}.content.{j}: tool_use ids must be unique ({b['id']!r})")
                seen_ids.add(b["id"])
            following = turns[t + 1][1] if t + 1 < len(turns) else []
            answered = {b.get("tool_use_id") for _, _, b in following if b.get("type") == "tool_result"}
            missing = [x for x in ids if x not in answered]
            if missing:
                where = blocks[0][0]
                problems.append(f"messages.{where}: tool_use ids were found without tool_result blocks "
                                f"immediately after: {', '.join(missing)}. Each tool_use block must have a "
                                "corresponding tool_result block in the next message.")
            continue
        previous = turns[t - 1][1] if t > 0 else []
        offered = {b["id"] for _, _, b in previous if b.get("type") == "tool_use"}
        other_seen = False
        for i, j, b in blocks:
            if b.get("type") != "tool_result":
                other_seen = True
                continue
            if b.get("tool_use_id") not in offered:
                problems.append(f"messages.{i}.content.{j}: unexpected tool_use_id found in tool_result blocks: "
                                f"{b.get('tool_use_id')}. Each tool_result block must have a corresponding "
                                "tool_use block in the previous message.")
            if other_seen:
                problems.append(f"messages.{i}.content.{j}: tool_result blocks must come first in the user "
                                "message, before any other content")
    return problems


def _prefill(last: dict[str, Any], i: int) -> list[str]:
    if last["role"] != "assistant":
        return []
    blocks = _blocks(last["content"])
    text = blocks[-1].get("text") if blocks and blocks[-1].get("type") == "text" else None
    if isinstance(text, str) and text != text.rstrip():
        return [f"messages.{i}: final assistant content cannot end with trailing whitespace"]
    return []
