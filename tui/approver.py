"""The TUI's side of the Approver port: a task plan goes to the Plan pane, every other question to a dialog.

Questions arrive from engine work running in workers; they are shown one at
a time (a second question waits until the first is answered; a second task
plan waits for the first), and the answer goes back to the engine as a
:class:`~ljtui.core.approval.Decision`.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

    from ljtui.core.approval import ApprovalRequest, Decision
    from ljtui.tui.notify import Attention

TASK_PLAN = "task_plan"
"""The request kind approved in the Plan pane rather than a dialog."""


class DialogApprover:
    """Answers the engine's questions with :class:`~ljtui.tui.screens.dialog.ApprovalDialog`, and task
    plans in the :class:`~ljtui.tui.widgets.plan_pane.PlanPane`."""

    def __init__(self, app: App, screen_ready: asyncio.Event, *, attention: Attention | None = None) -> None:
        """
        Args:
            app: the app whose screens ask.
            screen_ready: set once the main screen is composed; a question asked before waits for it.
            attention: shows "waiting for you" and notifies the user while a question waits.
        """
        self.app = app
        self._attention = attention
        self._screen_ready = screen_ready
        self._one_at_a_time = asyncio.Lock()
        self._one_plan = asyncio.Lock()

    async def decide(self, request: ApprovalRequest) -> Decision:
        """Show the question and wait for the answer (call from a worker)."""
        from ljtui.core.approval import Decision
        from ljtui.tui.screens.dialog import ApprovalDialog

        await self._screen_ready.wait()
        if request.kind == TASK_PLAN:
            return await self._decide_plan(request)
        async with self._one_at_a_time:
            with self._waits(request):
                decision = await self.app.push_screen_wait(ApprovalDialog(request))
        return decision if isinstance(decision, Decision) else Decision(request.safe)

    async def _decide_plan(self, request: ApprovalRequest) -> Decision:
        """The Plan pane's answer: approve with the edited list (``None``: unchanged), or the safe choice."""
        from ljtui.core.approval import Decision
        from ljtui.tui.widgets.plan_pane import PlanPane

        async with self._one_plan:
            panes = self.app.screen_stack[0].query(PlanPane) if self.app.screen_stack else ()
            if not panes:
                return Decision(request.safe)  # no screen to ask on (the app is closing): nothing runs
            with self._waits(request):
                choice, tasks = await panes.first().ask(request)
        if choice == request.safe:
            return Decision(choice)
        return Decision(choice, tasks=tuple(tasks) if tasks is not None else None)

    def _waits(self, request: ApprovalRequest) -> AbstractContextManager[None]:
        """While the user is asked ``request``: "waiting for you" shows, and a notification is sent."""
        return self._attention.waits(request.title) if self._attention is not None else nullcontext()
