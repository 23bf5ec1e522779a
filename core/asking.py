"""The one way the session asks a human: through the :class:`~ljtui.core.approval.Approver` port, reported as
``approval_requested`` and ``approval_decided``."""

from __future__ import annotations

from typing import Awaitable, Callable

from ljtui.core.approval import ApprovalRequest, Approver, Decision
from ljtui.core.events import ApprovalDecided, ApprovalRequested
from ljtui.core.ports import EventSink

Ask = Callable[[ApprovalRequest], Awaitable[Decision]]


async def ask_through(approver: Approver, sink: EventSink, request: ApprovalRequest) -> Decision:
    """Ask ``approver``; an answer the request does not offer counts as its safe one."""
    sink.emit(ApprovalRequested(request.kind, request.title, request.subject))
    decision = await approver.decide(request)
    if request.choice(decision.choice) is None:
        decision = Decision(request.safe)
    sink.emit(ApprovalDecided(request.kind, decision.choice, request.subject))
    return decision


def asker(approver: Approver, sink: EventSink) -> Ask:
    """``ask`` for a command that asks ``approver`` and reports on ``sink``."""

    async def ask(request: ApprovalRequest) -> Decision:
        return await ask_through(approver, sink, request)

    return ask
