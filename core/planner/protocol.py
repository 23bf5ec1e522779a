"""Reading the planner model's replies: actions, plans and fabrications (PLN-6…10).

A reply is classified in a fixed order. First, a reply that imitates one of
the harness's own sections (``## Tool result`` and the others in
:data:`HARNESS_TITLES`) outside code fences is a fabrication and nothing in
it is used (:mod:`ljtui.core.planner.fabrication`). Next, a reply holding
EDIT blocks is the plan, even when some fenced JSON in it would parse as an
action. Otherwise the reply should hold one fenced JSON object
``{"action": ..., ...arguments}``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from markdown_it import MarkdownIt

from ljtui.core.planner.fabrication import is_fabricated
from ljtui.core.planner.headings import TOOL_RESULT_HEADING
from ljtui.core.planner.tools import ReadOnlyTools, ToolResult, shown_value

__all__ = [
    "ACTIONS", "ACTION_ARGS", "ARG_SUMMARY_CHARS", "TOOL_RESULT_HEADING", "Reply", "classify_reply",
    "close_dangling_fence", "extract_plan", "has_edit_blocks", "is_fabricated", "run_action",
    "safe_arguments", "shown_name", "summarize_args",
]

ACTIONS: tuple[str, ...] = ("list_dir", "read_file", "grep", "finish")
"""Every action a reply may ask for."""

ACTION_ARGS: dict[str, tuple[str, ...]] = {
    "list_dir": ("path",),
    "read_file": ("path", "start_line", "end_line"),
    "grep": ("pattern", "path"),
    "finish": ("plan",),
}
"""The arguments each action takes."""

ARG_SUMMARY_CHARS = 80
"""Longest argument value shown in a trace line."""
ARG_EVENT_CHARS = 1000
"""Longest argument value passed on in a tool-call event."""

_EDIT_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]*EDIT[ \t]+\d+", re.MULTILINE)
_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_JSON_INFOS = ("", "json", "jsonc", "json5")
"""Fence info words an action may be written under; ``old``/``new`` fences are plan data (EDIT-12)."""
_MD = MarkdownIt("commonmark")

ReplyKind = Literal["fabricated", "plan", "action", "malformed", "none"]


@dataclass(frozen=True)
class Reply:
    """What a reply asks for.

    Attributes:
        kind: ``fabricated``, ``plan``, ``action``, ``malformed`` (an action
            was attempted but is unusable) or ``none``.
        action: the action object, for ``action``.
        error: why a ``malformed`` reply was refused.
        extra_actions: further actions in the same reply, which are ignored.
    """

    kind: ReplyKind
    action: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    extra_actions: int = 0


def has_edit_blocks(text: str) -> bool:
    """Whether ``text`` holds at least one ``### EDIT n`` heading."""
    return _EDIT_HEADING.search(text) is not None


def classify_reply(text: str) -> Reply:
    """Classify one model reply (see the module docstring for the order)."""
    if is_fabricated(text):
        return Reply("fabricated")
    if has_edit_blocks(text):
        return Reply("plan")
    candidates = _json_candidates(text)
    actions: list[dict[str, Any]] = []
    for raw in candidates:
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            return Reply("malformed", error=f"the action JSON does not parse: {exc.msg} "
                                            f"(line {exc.lineno}, column {exc.colno})")
        except ValueError as exc:  # e.g. an integer with thousands of digits
            return Reply("malformed", error=f"the action JSON cannot be read: {exc}")
        except RecursionError:
            return Reply("malformed", error="the action JSON is nested too deeply")
        if isinstance(value, dict) and "action" in value:
            actions.append(value)
    if not actions:
        if candidates:
            return Reply("malformed", error='no fenced JSON object has an "action" key')
        return Reply("none")
    return Reply("action", action=actions[0], extra_actions=len(actions) - 1)


def _json_candidates(text: str) -> list[str]:
    """Fenced blocks that look like JSON objects, or the whole reply if it is one."""
    found = []
    for token in _MD.parse(text):
        if token.type == "fence" and _fence_kind(token.info) in _JSON_INFOS:
            if token.content.lstrip().startswith("{"):
                found.append(token.content)
    stripped = text.strip()
    if not found and stripped.startswith("{") and stripped.endswith("}"):
        found.append(stripped)
    return found


def _fence_kind(info: str) -> str:
    words = info.strip().split(maxsplit=1)
    return words[0].lower() if words else ""


def _printable_text(value: str) -> str:
    """``value`` with control characters and unpaired surrogates written as escapes."""
    escaped = value.encode("utf-8", "backslashreplace").decode("utf-8")
    return "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in escaped)


def _shown_arg(value: Any, limit: int) -> str:
    if isinstance(value, str):
        text = _printable_text(value)
    else:
        try:
            text = json.dumps(value)
        except (ValueError, RecursionError, TypeError):
            text = shown_value(value, limit)
    return text if len(text) <= limit else text[:limit] + "…"


def shown_name(action: dict[str, Any]) -> str:
    """The action's name as printable text for traces and events, whatever the model put there."""
    name = action.get("action")
    return _shown_arg(name, ARG_SUMMARY_CHARS) if isinstance(name, str) else shown_value(name, ARG_SUMMARY_CHARS)


def summarize_args(action: dict[str, Any]) -> str:
    """The action's arguments as ``key=value`` pairs for a trace line, printable whatever they hold."""
    return " ".join(f"{_shown_arg(key, ARG_SUMMARY_CHARS)}={_shown_arg(value, ARG_SUMMARY_CHARS)}"
                    for key, value in action.items() if key != "action")


def safe_arguments(action: dict[str, Any]) -> dict[str, Any]:
    """The action's arguments for an event: scalars kept, text made printable, anything else summarised.

    Events are copied and serialised by every sink, so nothing the model
    wrote (deep nesting, huge strings, invalid text) may reach them as is.
    """
    out: dict[str, Any] = {}
    for key, value in action.items():
        if key == "action":
            continue
        if isinstance(value, (bool, float)) or value is None:
            out[_shown_arg(key, ARG_SUMMARY_CHARS)] = value
        elif isinstance(value, int) and len(str(value)) <= ARG_SUMMARY_CHARS:
            out[_shown_arg(key, ARG_SUMMARY_CHARS)] = value
        else:
            out[_shown_arg(key, ARG_SUMMARY_CHARS)] = _shown_arg(value, ARG_EVENT_CHARS)
    return out


def run_action(tools: ReadOnlyTools, action: dict[str, Any]) -> ToolResult:
    """Run a tool action; bad names, bad arguments and any failure become failed results.

    Nothing a model writes into an action can end the run: an unexpected
    exception is reported to the model as a tool error naming its type.
    """
    name = action.get("action")
    if not isinstance(name, str) or name not in ACTION_ARGS or name == "finish":
        known = ", ".join(ACTIONS)
        message = f"unknown action {shown_value(name)}; the actions are: {known}"
        return ToolResult(False, f"error: {message}", f"error: {message}")
    try:
        return _dispatch(tools, name, action)
    except Exception as exc:  # model input must never crash the run
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        detail = _shown_arg(reason, ARG_SUMMARY_CHARS * 2)
        message = f"{name} failed: {type(exc).__name__}: {detail}"
        return ToolResult(False, f"error: {message}", f"error: {message}")


def _dispatch(tools: ReadOnlyTools, name: str, action: dict[str, Any]) -> ToolResult:
    if name == "list_dir":
        return tools.list_dir(action.get("path"))
    if name == "read_file":
        return tools.read_file(action.get("path"), action.get("start_line"), action.get("end_line"))
    return tools.grep(action.get("pattern"), action.get("path"))


def close_dangling_fence(plan: str) -> tuple[str, bool]:
    """Close one code fence left open at the very end of ``plan`` (PLN-9).

    A fence that is still open when the text ends is closed only when it
    is the last thing in the plan: no line inside it opens another fence
    with an info string and no EDIT heading appears inside it, either of
    which shows a fence was left open earlier. Anything else is returned
    unchanged for the patcher to reject.

    Returns:
        The plan, and whether a closing fence was added.
    """
    open_char, open_len, suspicious = "", 0, False
    for line in plan.splitlines():
        m = _FENCE_OPEN.match(line)
        if not open_char:
            if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
                open_char, open_len, suspicious = m.group(2)[0], len(m.group(2)), False
            continue
        if m and m.group(2)[0] == open_char and len(m.group(2)) >= open_len:
            if not m.group(3).strip():
                open_char = ""
                continue
            suspicious = True
        elif _EDIT_HEADING.match(line):
            suspicious = True
    if not open_char or suspicious:
        return plan, False
    sep = "" if plan.endswith("\n") else "\n"
    return f"{plan}{sep}{open_char * open_len}\n", True


def extract_plan(reply: str) -> tuple[str, bool]:
    """The plan in a reply, and whether a dangling final fence was closed.

    The plan starts at the first EDIT heading; a fence left open at its
    very end is closed (:func:`close_dangling_fence`); fenced action
    objects such as ``{"action": "finish"}`` are dropped from it.
    """
    m = _EDIT_HEADING.search(reply)
    plan, repaired = close_dangling_fence(reply[m.start():] if m else reply)
    return _drop_action_blocks(plan).rstrip("\n") + "\n", repaired


def _drop_action_blocks(plan: str) -> str:
    """The plan without fenced action objects; ``old``/``new`` fences are data and always stay."""
    lines = plan.splitlines(keepends=True)
    drop: set[int] = set()
    for token in _MD.parse(plan):
        if token.type != "fence" or token.map is None or _fence_kind(token.info) not in _JSON_INFOS:
            continue
        try:
            value = json.loads(token.content)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and "action" in value:
            drop.update(range(*token.map))
    return "".join(line for n, line in enumerate(lines) if n not in drop)
