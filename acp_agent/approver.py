"""Every question the engine asks a human, as ACP ``session/request_permission``.

A permission for a tool call refers to that call (the client shows the question on it); any other decision
(a task plan's approval, a gate's confirmation, applying a plan, trusting the repository, a playbook offer) is
shown as a call of its own, kind ``think``, holding the question's lines, and asked on it. Each of the
question's answers is an option: its safe answer is ``reject_once``, an answer for the whole session
``allow_always``, any other ``allow_once``. The client's answer is the user's; a cancelled request, an answer
the question did not offer or a client that cannot be reached is the safe answer.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from acp import RequestPermissionResponse, start_tool_call, text_block, tool_content, update_tool_call
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from ljtui.core.approval import ApprovalRequest, Decision
from ljtui.core.display import shown
from ljtui.core.events import Event, PermissionRequested

from ljtui.acp_agent.updates import UpdateSink

ALWAYS = frozenset({"session", "network_session"})
"""Answers that hold for the rest of the session."""
LINES_CHARS = 20_000
"""The question's lines sent with it, at most (a large plan's diff is in the Diff of its calls)."""

Ask = Callable[[str, ToolCallUpdate, list[PermissionOption]], Any]
"""``request_permission(session_id, tool_call, options)`` of the client connection."""


def options(request: ApprovalRequest) -> list[PermissionOption]:
    """The question's answers as ACP options, in its order."""
    def kind(choice_id: str) -> str:
        if choice_id == request.safe:
            return "reject_once"
        return "allow_always" if choice_id in ALWAYS else "allow_once"

    return [PermissionOption(option_id=c.id, name=shown(c.label, one_line=True),
                             kind=kind(c.id))  # type: ignore[arg-type]
            for c in request.choices]


def lines_text(request: ApprovalRequest) -> str:
    """The question's lines, and the text a yes goes with (an editor cannot edit it: it is shown as it is)."""
    lines = [*request.lines, *(["", "With this text:", request.text] if request.text else [])]
    text = shown("\n".join(lines))
    return text if len(text) <= LINES_CHARS else text[:LINES_CHARS] + "\n… (cut)"


class AcpApprover:
    """The Approver port of one ACP session."""

    def __init__(self, session_id: str, ask: Ask, updates: UpdateSink) -> None:
        self.session_id = session_id
        self._ask = ask
        self._updates = updates
        self._calls: dict[str, str] = {}
        """The tool call each pending permission is for, by the request's subject (``tool: subject``)."""
        self._apply_call: tuple[str, list[Any]] | None = None
        """The call the next apply question belongs to, with the diffs it shows (the layer's net change)."""
        self._numbers = itertools.count(1)

    def note(self, event: Event) -> None:
        """Remember which tool call the next permission for its subject belongs to (the engine reports the
        request just before it asks)."""
        if isinstance(event, PermissionRequested):
            self._calls[f"{event.tool}: {event.subject}"] = event.call_id

    def apply_on(self, call_id: str, diffs: list[Any]) -> None:
        """Ask the next apply question on the call ``call_id``, which shows ``diffs`` (sent already)."""
        self._apply_call = (call_id, diffs)

    async def decide(self, request: ApprovalRequest) -> Decision:
        call_id = self._calls.pop(request.subject, None) if request.kind == "permission" else None
        diffs: list[Any] = []
        if request.kind == "apply" and self._apply_call is not None:
            (call_id, diffs), self._apply_call = self._apply_call, None
        own = call_id is None
        if own:
            call_id = f"ljtui-question-{next(self._numbers)}"
            await self._updates.send_now(start_tool_call(
                call_id, shown(request.title, one_line=True), kind="think", status="pending",
                content=[tool_content(text_block(lines_text(request)))] if request.lines else None))
        else:
            await self._updates.flush()
        call = ToolCallUpdate(tool_call_id=call_id, title=shown(request.title, one_line=True), status="pending")
        if request.lines and request.diff_path is None:  # a write's diff is on its call already
            call.content = [*diffs, tool_content(text_block(lines_text(request)))]
        chosen = await self._answer(call, request)
        if own:
            await self._updates.send_now(update_tool_call(
                call_id, status="failed" if chosen == request.safe else "completed"))
        return Decision(chosen, request.text)

    async def _answer(self, call: ToolCallUpdate, request: ApprovalRequest) -> str:
        try:
            response: RequestPermissionResponse = await self._ask(self.session_id, call, options(request))
        except Exception:  # the client is gone or refused the request: nothing is done
            return request.safe
        outcome = response.outcome
        if isinstance(outcome, AllowedOutcome) and request.choice(outcome.option_id) is not None:
            return outcome.option_id
        return request.safe
