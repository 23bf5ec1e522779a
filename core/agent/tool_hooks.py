"""The ``PreToolUse`` and ``PostToolUse`` hooks around one tool call.

Before the call, the hooks see ``tool_name`` and ``tool_input`` (ljtui's arguments, plus Claude Code's names
for them: ``file_path`` as an absolute path, ``old_string`` and ``new_string``, so a hook written for Claude
Code reads what it expects). A hook that blocks (exit 2, ``"decision": "block"``, ``"permissionDecision":
"deny"``) or asks to stop keeps the call from running, and the model reads why; ``allow`` skips the
permission dialog only where the user could have allowed the tool for the session; ``ask`` asks the user first,
whatever the tool (allow once or deny), and the tool's own question, if it has one, still follows. Their
``additionalContext`` is added to what the model reads of the call. After the call, the hooks see
``tool_response``; a block there cannot undo the call, so its reason, and any ``additionalContext``, are added
to what the model reads.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ljtui.core.agent.permissions import DENY, HOOK_ALLOW, ONCE
from ljtui.core.approval import ApprovalRequest, Choice
from ljtui.core.display import shown
from ljtui.core.hooks.service import SessionHooks
from ljtui.core.hooks.verdict import ALLOW, ASK, HookOutcome
from ljtui.core.providers.base import ToolCall
from ljtui.core.tool_result import ToolResult
from ljtui.core.tools import ToolContext

MAX_SHOWN_ARGUMENTS = 2_000
"""Characters of a call's arguments the question of a hook's ``ask`` shows."""
FILE_TOOLS = frozenset({"read_file", "write_file", "edit_file", "create_directory", "list_files", "grep_files"})
"""Tools whose ``path`` argument is also given as Claude Code's ``file_path``."""


def tool_input(call: ToolCall, ctx: ToolContext) -> dict[str, Any]:
    """The call's arguments as hooks read them (ljtui's, and Claude Code's names beside them)."""
    args: dict[str, Any] = dict(call.input)
    path = args.get("path")
    if call.name in FILE_TOOLS and isinstance(path, str) and not os.path.isabs(path):
        full = os.path.normpath(os.path.join(ctx.root, path))
        if full == str(ctx.root) or full.startswith(str(ctx.root) + os.sep):  # never a path the tool would refuse
            args.setdefault("file_path", full)
    if call.name == "edit_file":
        args.setdefault("old_string", args.get("old"))
        args.setdefault("new_string", args.get("new"))
    if call.name == "apply_patch" and isinstance(args.get("patch"), str):
        from ljtui.core.edits.read_codex import patch_paths

        inside = [full for full in (_inside(ctx.root, p) for p in patch_paths(args["patch"])) if full]
        args.setdefault("file_paths", inside)
        if len(inside) == 1:
            args.setdefault("file_path", inside[0])
    return args


def _inside(root: Any, path: str) -> str | None:
    """``path``, relative to ``root``, as an absolute path inside it (None for one a tool would refuse)."""
    if os.path.isabs(path):
        return None
    full = os.path.normpath(os.path.join(root, path))
    return full if full.startswith(str(root) + os.sep) else None


async def before_call(hooks: SessionHooks, call: ToolCall, ctx: ToolContext) -> tuple[ToolResult | None, str]:
    """Run the ``PreToolUse`` hooks: the refused call's result (``None`` when it may go on, with an ``allow`` noted
    for the permission check), and the context they add for the model."""
    outcome = await hooks.fire("PreToolUse", {"tool_name": call.name, "tool_input": tool_input(call, ctx),
                                              "tool_use_id": call.id}, call.name, ctx.cancelled)
    if outcome.blocked:
        names = ", ".join(v.hook.name for v in outcome.blocked)
        return ToolResult(False, f"A PreToolUse hook blocked this call; it did not run. The hook said:\n"
                                 f"{outcome.reason()}", f"blocked by hook {names}"), ""
    stop = outcome.stop
    if stop is not None:
        return ToolResult(False, f"A PreToolUse hook stopped this call; it did not run: {stop.stop or 'no reason'}",
                          f"stopped by hook {stop.hook.name}"), ""
    said = outcome.permission
    permissions = ctx.services.permissions
    answer = None
    if said == ASK and permissions is not None:
        answer = await permissions.ask(ask_request(call, outcome, ctx.agent))
    if said == ASK and (answer is None or answer.choice != ONCE):
        return ToolResult(False, f"the user denied this {call.name} call when a PreToolUse hook asked them first. "
                                 "Do not retry it unchanged; explain what you wanted to do, or find another way.",
                          "denied"), ""
    if said == ALLOW and permissions is not None:
        permissions.hook_says[call.id] = HOOK_ALLOW
    return None, outcome.context()


def ask_request(call: ToolCall, outcome: HookOutcome, agent: str) -> ApprovalRequest:
    """The question a hook's ``ask`` puts to the user before the call, showing the call: allow once, or deny."""
    asking = ", ".join(v.hook.name for v in outcome.verdicts if v.permission == ASK)
    arguments = json.dumps(dict(call.input), ensure_ascii=False, default=repr)
    if len(arguments) > MAX_SHOWN_ARGUMENTS:
        arguments = f"{arguments[:MAX_SHOWN_ARGUMENTS]}… ({len(arguments) - MAX_SHOWN_ARGUMENTS:,} more characters)"
    lines = [f"The PreToolUse hook {asking} asks you to confirm this call.",
             *(f"{v.hook.name}: {v.reason}" for v in outcome.verdicts if v.permission == ASK and v.reason),
             "", f"{call.name} {shown(arguments, exact=True)}"]
    title = f"A hook asks you first: run {call.name}?"
    if agent.startswith("task "):  # tasks run side by side: the question says which one asks
        title = f"{agent.capitalize()}: {title}"
    return ApprovalRequest("permission", title, tuple(lines),
                           (Choice(ONCE, "allow once", "enter"), Choice(DENY, "deny (the model is told)", "escape")),
                           DENY, call.name)


def forget_call(ctx: ToolContext) -> None:
    """Drop what the hooks said of the call's permission once it ran."""
    if ctx.services.permissions is not None:
        ctx.services.permissions.hook_says.pop(ctx.call_id, None)


async def after_call(hooks: SessionHooks, call: ToolCall, ctx: ToolContext, result: ToolResult,
                     context: str = "") -> ToolResult:
    """Run the ``PostToolUse`` hooks; what they said for the model is added to ``result`` (after ``context``, what
    the ``PreToolUse`` hooks added)."""
    outcome = await hooks.fire("PostToolUse", {"tool_name": call.name, "tool_input": tool_input(call, ctx),
                                               "tool_response": {"ok": result.ok, "content": result.content},
                                               "tool_use_id": call.id}, call.name, ctx.cancelled)
    notes = [context] if context else []
    if outcome.blocked:
        notes.append(f"A PostToolUse hook objected to this call (it already ran):\n{outcome.reason()}")
    if outcome.context():
        notes.append(outcome.context())
    if not notes:
        return result
    summary = f"{result.summary} · hook objected" if outcome.blocked else result.summary
    return ToolResult(result.ok, "\n\n".join([result.content, *notes]), summary)

