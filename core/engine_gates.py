"""The engine's gate operations: the Gates pane, ``/gates`` and the verifier, each handed to the session's gates.

:class:`GateOperations` is part of :class:`~ljtui.core.engine.Engine`'s one door, kept in a file of its own; it
reads only the session's gates, its sink and the agent kit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ljtui.core.agent.kit import AgentKit
    from ljtui.core.gates.facade import SessionGates
    from ljtui.core.gates.release import Delivery
    from ljtui.core.gates.view import GateView
    from ljtui.core.session_state import SessionSink


class GateOperations:
    """What the front ends ask of the session's gates (see the module's docstring)."""

    session_gates: SessionGates
    sink: SessionSink
    kit: AgentKit

    async def gate_view(self, gate_id: str | None = None) -> GateView | None:
        """The gate ``gate_id`` (default: the one in focus) as the Gates pane shows it."""
        return await self.session_gates.view(gate_id)

    async def deliver_gate(self, gate_id: str | None = None) -> Delivery:
        """Try to deliver the open run's staged change (refused until the gate passes)."""
        return await self.session_gates.deliver_gate(gate_id)

    async def check_gate(self, item: str | None = None, *, failed_only: bool = False) -> None:
        """Run a check from the Gates pane or ``/gates check`` (the user's own, recorded as ``user``)."""
        await self.session_gates.check(item, failed_only=failed_only)

    async def gates_command(self, text: str) -> tuple[str, list[str]] | None:
        """``/gates TEXT``: returns ``(title, lines)`` to show, or ``None`` when the outcome came as events."""
        from ljtui.core.gates.commands import run_gates_command

        return await run_gates_command(self.session_gates, self.sink, text)

    async def gates_shown(self, gate_id: str | None, *, listed_by: str) -> tuple[str, list[str]] | None:
        """The gates listed (``gate_id`` ``None``) or one gate's items, risk and history, as ``(title, lines)``;
        a refusal comes as an error notice instead (``None``), an unknown id's with ``listed_by`` (the words
        naming the command that lists the gates)."""
        from ljtui.core.gates.commands import gates_shown

        return await gates_shown(self.session_gates, self.sink, gate_id, listed_by)

    async def _verify(self, turn: int, gate_id: str) -> tuple[str, str]:
        """Run an independent verifier agent on ``gate_id`` (the gate tools' ``gate_verify``)."""
        from ljtui.core.gates.verifier import run_verifier

        return await run_verifier(self.kit, await self.session_gates.view(), turn, gate_id)
