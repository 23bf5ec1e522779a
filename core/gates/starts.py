"""How a gate is confirmed by the user and a run of it begins (GATE-3, GATE-4): functions of the gate service's
state (:class:`StartHost`), which :class:`~ljtui.core.gates.service.GateService` delegates to.

Both ask the user through the Approver port: the confirmation shows every
command the gate will run and where, and records a yes in the user's own
state (never in the gate's file); a start names where the run's writes go
and what blocks delivery.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ljtui.core.approval import YES
from ljtui.core.gates import events as G
from ljtui.core.gates.endings import GateRefused
from ljtui.core.gates.model import Gate, blocks_delivery
from ljtui.core.gates.requests import confirm_request, start_request
from ljtui.core.gates.runs import GateRun, new_run_id

if TYPE_CHECKING:
    from ljtui.core.asking import Ask
    from ljtui.core.clock import Clock
    from ljtui.core.gates.confirmations import ConfirmationStore
    from ljtui.core.gates.view import GateView
    from ljtui.core.ports import EventSink


class StartHost(Protocol):
    """What a confirmation and a start read and change of the gate service."""

    run: Any
    current: str | None
    root: Path
    sink: EventSink
    clock: Clock
    ask: Ask
    confirmations: ConfirmationStore

    def gate(self, gate_id: str) -> Gate: ...

    def confirmed(self, gate: Gate) -> bool: ...

    def view(self, gate_id: str | None = None, *, with_staged_files: bool = True) -> GateView | None: ...

    def sandbox_line(self) -> str: ...

    def publish(self) -> None: ...

    def _refuse_untrusted(self, gate: Gate) -> None: ...

    def _forget_ending(self, gate_id: str) -> None: ...

    def _open_run(self, run: GateRun) -> None: ...


async def confirm(service: StartHost, gate_id: str) -> bool:
    """Ask the user to confirm the gate's items, commands and the level its risk gives now; record a yes in the
    user's state (that level is then the gate's)."""
    gate = await asyncio.to_thread(service.gate, gate_id)
    service._refuse_untrusted(gate)
    view = await asyncio.to_thread(service.view, gate_id)
    decision = await service.ask(confirm_request(view, service.root, await asyncio.to_thread(service.sandbox_line)))
    if decision.choice != YES:
        return False
    level = view.risk.level
    await asyncio.to_thread(service.confirmations.confirm, service.root, gate, service.clock.now(), level)
    service.current = gate_id
    service._forget_ending(gate_id)
    service.sink.emit(G.GateConfirmed(gate_id, level))
    await asyncio.to_thread(service.publish)
    return True


async def start(service: StartHost, gate_id: str, agent: str) -> GateRun:
    """Ask the user to start a run at the level the user confirmed; at L2 and above its writes are held back: in
    the layer where the session has one, else in a staging tree made for it."""
    gate = await asyncio.to_thread(service.gate, gate_id)
    if service.run is not None and not service.run.delivered:
        raise GateRefused(f"gate {service.run.gate_id} already has a run in progress ({service.run.run_id}); "
                          "finish, deliver or discard it first")
    if not await asyncio.to_thread(service.confirmed, gate):
        raise GateRefused(f"gate {gate_id} is not confirmed by the user as it is now; call gate_confirm first")
    view = await asyncio.to_thread(service.view, gate_id)
    if (await service.ask(start_request(view))).choice != YES:
        raise GateRefused(f"the user did not start gate {gate_id}")
    level = view.level
    run = GateRun(gate_id, new_run_id(), service.clock.now(), agent, level, blocks_delivery(level))
    await asyncio.to_thread(service._open_run, run)
    service.sink.emit(G.GateStarted(gate_id, run.run_id, level, run.staged, run.in_layer))
    await asyncio.to_thread(service.publish)
    return run
