"""What an OpenAI chat-completions server accepts: request bodies checked against its rules (pure functions).

The fake servers run these checks on every ``/chat/completions`` request, as
:mod:`ljtui.core.providers.request_rules` does for the Messages API.

OpenAI chat completions (``/chat/completions``):

* ``messages`` is a non-empty list whose roles are ``system``, ``user``,
  ``assistant`` and ``tool``.
* The ``tool_calls`` of an assistant message are each answered by a ``tool``
  message with the matching ``tool_call_id``, right after it and before any
  other message; a ``tool`` message answers such a call.
* An assistant message has content or tool calls.
* Function names match :data:`TOOL_NAME` and are unique; ``parameters`` is a
  schema of type ``object``; call arguments are JSON text.
"""

from __future__ import annotations

from typing import Any

from ljtui.core.providers.request_rules import TOOL_NAME, max_tokens_problems, schema_object, tools_problems

OPENAI_ROLES = ("system", "user", "assistant", "tool")


def openai_problems(body: dict[str, Any]) -> list[str]:
    """What a chat-completions server would refuse in ``body`` (empty when nothing)."""
    if not isinstance(body, dict):
        return ["the request body must be a JSON object"]
    problems: list[str] = []
    if body.get("max_tokens") is not None:
        problems += max_tokens_problems(body["max_tokens"], None)
    problems += tools_problems(body.get("tools"), "tools", _openai_tool)
    problems += _openai_messages(body.get("messages"))
    return problems


def _openai_tool(tool: Any, where: str) -> tuple[Any, list[str]]:
    if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(tool.get("function"), dict):
        return None, [f"{where}: must be {{'type': 'function', 'function': {{...}}}}"]
    function = tool["function"]
    params = function.get("parameters")
    problems = [] if params is None or schema_object(params) else [
        f"{where}.function.parameters: must be a JSON schema of type 'object'"]
    return function.get("name"), problems


def _openai_messages(messages: Any) -> list[str]:
    if not isinstance(messages, list) or not messages:
        return ["messages: at least one message is required"]
    problems: list[str] = []
    pending: dict[str, int] = {}
    """Calls of the latest assistant message not answered yet, with that message's index."""
    in_answers = False
    for i, message in enumerate(messages):
        where = f"messages.{i}"
        role = message.get("role") if isinstance(message, dict) else None
        if role not in OPENAI_ROLES:
            problems.append(f"{where}.role: must be one of {', '.join(OPENAI_ROLES)}, got {role!r}")
            continue
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not in_answers or call_id not in pending:
                problems.append(f"{where}: messages with role 'tool' must be a response to a preceding message "
                                f"with 'tool_calls' (tool_call_id {call_id!r})")
            pending.pop(call_id, None)
            continue
        problems += _unanswered(pending)
        pending, in_answers = {}, False
        if role == "assistant":
            calls = message.get("tool_calls") or []
            problems += _openai_calls(where, calls)
            if not calls and message.get("content") in (None, ""):
                problems.append(f"{where}: an assistant message needs 'content' or 'tool_calls'")
            pending = {c["id"]: i for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str)}
            in_answers = bool(calls)
        elif "content" not in message:
            problems.append(f"{where}.content: required for role {role!r}")
    return problems + _unanswered(pending)


def _unanswered(pending: dict[str, int]) -> list[str]:
    if not pending:
        return []
    where = next(iter(pending.values()))
    return [f"messages.{where}: an assistant message with 'tool_calls' must be followed by tool messages "
            f"responding to each 'tool_call_id'; not answered: {', '.join(pending)}"]


def _openai_calls(where: str, calls: Any) -> list[str]:
    if not isinstance(calls, list):
        return [f"{where}.tool_calls: must be a list"]
    problems = []
    for k, call in enumerate(calls):
        at = f"{where}.tool_calls.{k}"
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(call, dict) or not isinstance(call.get("id"), str) or not call["id"] \
                or not isinstance(function, dict):
            problems.append(f"{at}: must be {{'id': ..., 'type': 'function', 'function': {{...}}}}")
            continue
        name = function.get("name")
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            problems.append(f"{at}.function.name: {name!r} does not match '^[a-zA-Z0-9_-]{{1,64}}$'")
        if not isinstance(function.get("arguments"), str):
            problems.append(f"{at}.function.arguments: must be a string of JSON")
    return problems
