"""A gate's checks run where the work is, their evidence recorded (GATE-5, GATE-11): functions of the gate
service's state (:class:`CheckHost`), which :class:`~ljtui.core.gates.service.GateService` delegates to.

A check runs in the sandbox: in the staging tree of a run that has one, else
in the repository — through the session's layer where there is one, so a run
held in the layer is checked against the agent's change at the repository's
own path. Each piece of evidence is bound to the content's hash taken just
before its command ran, and git's executable settings are watched around it.
"""

from __future__ import annotations

import asyncio
import dataclasses
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol

from ljtui.core.gates import events as G
from ljtui.core.gates.endings import GateRefused
from ljtui.core.gates.model import CheckItem, Evidence, Gate
from ljtui.core.gates.runs import save_run

if TYPE_CHECKING:
    from ljtui.core.clock import Clock
    from ljtui.core.confine.session import CommandSandbox
    from ljtui.core.confine.spawn import Confinement
    from ljtui.core.gates.view import GateView
    from ljtui.core.gitguard.guard import GitSettingsGuard
    from ljtui.core.ports import EventSink


class CheckHost(Protocol):
    """What a check reads and records of the gate service."""

    run: Any
    current: str | None
    root: Path
    sandbox: CommandSandbox
    sink: EventSink
    clock: Clock
    git_guard: GitSettingsGuard | None
    lock: AbstractContextManager[Any]
    check_timeout: Callable[[], float]
    _unstarted: dict[str, list[Evidence]]

    def gate(self, gate_id: str) -> Gate: ...

    def confirmed(self, gate: Gate) -> bool: ...

    def _refuse_untrusted(self, gate: Gate) -> None: ...

    def staging_root(self) -> Path | None: ...

    def content_hash(self) -> str: ...

    def view(self, gate_id: str | None = None, *, with_staged_files: bool = True) -> GateView | None: ...

    def publish(self) -> None: ...


async def check(service: CheckHost, item_id: str | None, agent: str, *, verifier: str = "", failed_only: bool = False,
                cancelled: asyncio.Event | None = None) -> list[Evidence]:
    """Run the command of ``item_id`` (all items when ``None``; only failed or stale ones with
    ``failed_only``) where the work is, and record what the engine saw (GATE-5, GATE-11)."""
    from ljtui.core.gates.checks import run_check
    from ljtui.core.gates.workspace import command_env
    from ljtui.core.gitguard.guard import watched
    from ljtui.core.layer.service import held_for

    gate_id = service.run.gate_id if service.run is not None and not service.run.delivered else service.current
    if gate_id is None:
        raise GateRefused("there is no gate to check: no gate is in focus and no run is open")
    gate = await asyncio.to_thread(service.gate, gate_id)
    if not await asyncio.to_thread(service.confirmed, gate):
        raise GateRefused(f"gate {gate_id} is not confirmed by the user; its commands run only once the user "
                          "has seen and confirmed them")
    service._refuse_untrusted(gate)
    items = items_to_check(service, gate, item_id, failed_only)
    open_run = service.run
    run = open_run if open_run is not None and open_run.gate_id == gate_id and not open_run.delivered else None
    cwd = service.staging_root() or service.root
    confinement = await asyncio.to_thread(confinement_at, service, cwd)
    env = command_env(cwd, service.sandbox.environment())
    recorded: list[Evidence] = []
    started = service.clock.monotonic()

    def progressed(now: str = "", ended: bool = False) -> None:
        service.sink.emit(G.GateChecksProgressed(gate_id, len(recorded), len(items), started, now, ended))

    try:
        for item in items:
            progressed(item.id)
            content = await asyncio.to_thread(service.content_hash) if run is not None else ""
            async with watched(service.git_guard, f"the check {item.id!r} (`{item.command}`)") as watch, \
                    held_for(service.sandbox.layer, confinement):
                evidence = await run_check(item, cwd, confinement=confinement, env=env,
                                           timeout=service.check_timeout(), content_hash=content, agent=agent,
                                           verifier=verifier, clock=service.clock, cancelled=cancelled)
            if watch.report is not None:
                evidence = dataclasses.replace(evidence, output=f"{evidence.output}[{watch.report.for_model()}]\n")
            recorded.append(evidence)
            if run is None:
                service._unstarted.setdefault(gate_id, []).append(evidence)
            else:
                with service.lock:
                    run.add(evidence)
                    if verifier:
                        run.verifier = verifier
                    await asyncio.to_thread(save_run, service.root, run)
            service.sink.emit(G.GateCheckRecorded(gate_id, run.run_id if run else "", item.id, evidence.exit_code,
                                               evidence.duration_ms, verifier, agent, item.command,
                                               evidence.content_hash, evidence.output))
            await asyncio.to_thread(service.publish)
    finally:
        progressed(ended=True)
    return recorded


def confinement_at(service: CheckHost, cwd: Path) -> Confinement:
    """Where a check runs: in the staging tree, or, with nothing staged, in the session's layer where there is
    one (it checks what the agent changed there), its secret files hidden. Call from a thread."""
    layered = service.sandbox.layered_at(cwd)
    rules = service.sandbox.rules(cwd, layered=layered)
    hidden = service.sandbox.hidden_secrets() if layered else ()
    return service.sandbox.confinement(rules, layered=layered, hidden=hidden or ())


def items_to_check(service: CheckHost, gate: Gate, item_id: str | None, failed_only: bool) -> list[CheckItem]:
    """The items a check of ``item_id`` runs (all, or the failed, stale and pending ones with ``failed_only``)."""
    if item_id is not None:
        found = next((i for i in gate.items if i.id == item_id), None)
        if found is None:
            raise GateRefused(f"gate {gate.id} has no item {item_id!r} (items: "
                              f"{', '.join(i.id for i in gate.items) or 'none'})")
        return [found]
    if not failed_only:
        return list(gate.items)
    view = service.view(gate.id)
    wanted = {i.id for i in view.items if i.status in ("failed", "stale", "pending")} if view else set()
    return [i for i in gate.items if i.id in wanted]
