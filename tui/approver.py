"""The TUI's side of the Approver port: each question becomes a modal dialog.

Questions arrive from engine work running in workers; they are shown one at
a time (a second question waits until the first is answered), and the
answer goes back to the engine as a :class:`~ljtui.core.approval.Decision`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

    from ljtui.core.approval import ApprovalRequest, Decision


class DialogApprover:
    """Answers the engine's questions with :class:`~ljtui.tui.screens.dialog.ApprovalDialog`."""

    def __init__(self, app: App) -> None:
        self.app = app
        self._one_at_a_time = asyncio.Lock()

    async def decide(self, request: ApprovalRequest) -> Decision:
        """Show the dialog and wait for the answer (call from a worker)."""
        from ljtui.core.approval import Decision
        from ljtui.tui.screens.dialog import ApprovalDialog

        async with self._one_at_a_time:
            decision = await self.app.push_screen_wait(ApprovalDialog(request))
        return decision if isinstance(decision, Decision) else Decision(request.safe)
