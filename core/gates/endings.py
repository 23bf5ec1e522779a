"""How a gate run ends (GATE-7, GATE-8, GATE-9, GATE-12): functions of the service's run state (:class:`RunHost`).

``finish`` is the starter's word, checked against the evidence; ``exempt``
asks the user; ``rework`` sends a delivered pass back; ``discard`` throws
the staged work away; a failure of the guard itself is recorded and warned
about, never taken for a pass. A run that staged nothing (below L2) has
nothing to deliver or discard: it is over, and recorded so, once it ends.
A record that moves the level the risk formula gives leaves the level the
user confirmed in force, and says so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ljtui.core.approval import YES
from ljtui.core.events import Notice
from ljtui.core.gates import events as G
from ljtui.core.gates.model import Gate, HistoryEntry, Level, gate_risk
from ljtui.core.gates.runs import GateRun, RunFileError, list_runs, save_run

if TYPE_CHECKING:
    from ljtui.core.agent.permissions import Ask
    from ljtui.core.clock import Clock
    from ljtui.core.gates.status import Blockers
    from ljtui.core.gates.store import GateStore
    from ljtui.core.ports import EventSink


class GateRefused(Exception):
    """An operation the gate's state does not allow; ``str(exc)`` says why and what to do."""


class RunHost(Protocol):
    """The run state the endings act on: the gate service's."""

    run: Any
    current: str | None

    @property
    def root(self) -> Path: ...

    @property
    def env(self) -> Mapping[str, str] | None: ...

    @property
    def store(self) -> GateStore: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def sink(self) -> EventSink: ...

    @property
    def ask(self) -> Ask: ...

    @property
    def lock(self) -> AbstractContextManager[Any]: ...

    def gate(self, gate_id: str) -> Gate: ...

    def confirmed_level(self, gate: Gate) -> Level | None: ...

    def blockers_now(self) -> Blockers: ...

    def publish(self) -> None: ...

    def forget(self, run: GateRun) -> None: ...


async def finish(service: RunHost, outcome: str, agent: str) -> str:
    """End the run: ``pass`` (refused while required evidence is missing, failed or stale), ``fail``, or
    ``exempt`` (the user's decision, asked). Returns what the model is told."""
    run = service.run
    if run is None or run.delivered or run.outcome:
        raise GateRefused("no gate run is open (gate_start begins one)")
    if agent != run.starter:
        raise GateRefused(f"only the agent that started gate {run.gate_id} ({run.starter}) may finish it; "
                          "use gate_check to add evidence")
    if outcome not in ("pass", "fail", "exempt"):
        raise GateRefused("outcome must be pass, fail or exempt")
    gate = await asyncio.to_thread(service.gate, run.gate_id)
    if outcome == "pass":
        found = await asyncio.to_thread(service.blockers_now)
        if found:
            raise GateRefused(f"gate {gate.id} cannot pass: " + "; ".join(found.lines(gate)))
    if outcome == "exempt":
        from ljtui.core.approval import confirm

        asked = confirm("gate_exempt", f"Exempt gate {gate.id} this time?",
                        [f"The agent asks to deliver without gate {gate.id}'s evidence.",
                         "An exempt run is not counted in the gate's statistics."],
                        "exempt it this time", "keep the gate", subject=gate.id)
        if (await service.ask(asked)).choice != YES:
            raise GateRefused(f"the user kept gate {gate.id}: it is not exempt")
    await asyncio.to_thread(record, service, gate, run, outcome)
    if over_once_ended(run):
        return f"gate {gate.id} finished: {outcome}; the L{run.level} run staged nothing, so it is over"
    return f"gate {gate.id} finished: {outcome}"


def over_once_ended(run: GateRun) -> bool:
    """Whether ``run`` is over as soon as it has an outcome: it staged nothing, so nothing waits to be delivered or
    discarded (its writes reached the user's files as they were made)."""
    return not run.staged


def record(service: RunHost, gate: Gate, run: GateRun, outcome: str) -> None:
    """Record how ``run`` ended in the run and the gate's history; a run :func:`over_once_ended` is closed."""
    evidence = tuple(e for e in run.evidence)
    with service.lock:
        run.outcome = outcome
        save_run(service.root, run)
    after = service.store.record_outcome(gate.id, HistoryEntry(run.run_id, outcome, service.clock.now(), evidence))
    if over_once_ended(run):
        close(service, run)
    service.sink.emit(G.GateFinished(gate.id, run.run_id, outcome))
    _tell_level_change(service, gate, after, f"run {run.run_id} {ENDED_WORDS.get(outcome, outcome)}")
    service.publish()


def close(service: RunHost, run: GateRun) -> None:
    """``run`` is over: recorded so in its file (``delivered``: nothing of it is left to deliver), and no longer
    the run in progress."""
    with service.lock:
        run.delivered = True
        save_run(service.root, run)
        if service.run is run or (service.run is not None and service.run.run_id == run.run_id):
            service.forget(run)


ENDED_WORDS = {"pass": "passed", "fail": "failed", "exempt": "was exempted", "rework": "was sent back for rework"}
"""How a run's outcome reads in a sentence."""


def level_change_text(before: Gate, after: Gate, why: str, confirmed: Level | None = None) -> str | None:
    """The sentence that explains a level the gate's record moved (``None`` when the level stayed): old and new
    level, why, how P and R moved, and what it changes: nothing for a gate the user ``confirmed`` (at that level)
    until they confirm it again; for an unconfirmed gate, the level a confirmation proposes."""
    old, new = gate_risk(before), gate_risk(after)
    if old.level == new.level:
        return None
    direction = "rose" if new.p > old.p else "fell"
    moved = (f"{why}, so its pass rate P {direction} from {old.p:.2f} to {new.p:.2f} and R went from {old.r:.2f} "
             f"to {new.r:.2f}")
    if confirmed is None:
        return f"Gate {after.id} is now L{new.level} (was L{old.level}): {moved}. Confirming it proposes L{new.level}."
    if confirmed == new.level:
        return (f"Gate {after.id}'s record gives L{new.level} again (was L{old.level}): {moved}. It is L{confirmed}, "
                "the level you confirmed.")
    return (f"Gate {after.id}'s record now suggests L{new.level} (was L{old.level}): {moved}. It stays "
            f"L{confirmed}, the level you confirmed, until you confirm it again (at L{new.level}).")


def _tell_level_change(service: RunHost, before: Gate, after: Gate, why: str) -> None:
    text = level_change_text(before, after, why, service.confirmed_level(after))
    if text is not None:
        service.sink.emit(Notice(text))


async def rework(service: RunHost, gate_id: str) -> None:
    """Send the latest passed delivery of ``gate_id`` back (counts twice against P, GATE-12)."""
    gate = await asyncio.to_thread(service.gate, gate_id)
    passed = next((h for h in reversed(gate.history) if h.outcome == "pass"), None)
    if passed is None:
        raise GateRefused(f"gate {gate_id} has no passed run to send back")
    after = await asyncio.to_thread(service.store.record_outcome, gate_id,
                                    HistoryEntry(passed.run_id, "rework", service.clock.now()))
    service.sink.emit(G.GateFinished(gate_id, passed.run_id, "rework"))
    service.sink.emit(Notice(f"Gate {gate_id}: run {passed.run_id} sent back for rework; it counts twice "
                          "against the gate's pass rate."))
    _tell_level_change(service, gate, after, f"run {passed.run_id} {ENDED_WORDS['rework']}")
    service.current = gate_id
    await asyncio.to_thread(service.publish)


def discard(service: RunHost, gate_id: str | None = None, *, delivered: bool = False) -> str:
    """Throw away the staged work of the run of ``gate_id`` (default: the run in progress); ``delivered``:
    it is in the user's tree now, so only the staging tree goes."""
    from ljtui.core.gates.workspace import Workspace

    with service.lock:
        run = service.run
        if run is None or (gate_id and run.gate_id != gate_id):
            runs, _ = list_runs(service.root, service.env)
            run = next((r for r in runs if not r.delivered and (not gate_id or r.gate_id == gate_id)), None)
        if run is None:
            raise GateRefused(f"there is no open run{f' of gate {gate_id}' if gate_id else ''} to discard")
        if run.staged and not run.in_layer:  # a run held in the layer leaves the layer's change to the user's review
            try:
                Workspace.open(service.root, run.run_id).discard()
            except Exception as exc:
                service.sink.emit(Notice(f"The staging tree of run {run.run_id} could not be removed: {exc}",
                                      "warning"))
        run.delivered = True
        try:
            save_run(service.root, run)
        except (OSError, RunFileError):
            pass
        if service.run is run or (service.run and service.run.run_id == run.run_id):
            service.forget(run)
    if not delivered and run.in_layer:
        service.sink.emit(Notice(f"Ended gate {run.gate_id}'s run {run.run_id} without delivery. Its change stays in "
                                 "the layer for your review (/diff): reject it there, or drop the layer "
                                 "(`ljtui layer drop`)."))
    elif not delivered:
        service.sink.emit(Notice(f"Discarded the staged work of gate {run.gate_id} (run {run.run_id})."))
    service.publish()
    return run.run_id


def guard_failed(service: RunHost, error: str) -> None:
    """GATE-9: record the guard's own failure in the run and warn the user; it never counts as a pass."""
    run = service.run
    if run is not None:
        run.error = error
        try:
            save_run(service.root, run)
        except Exception:  # the warning below still reaches the user
            pass
    service.sink.emit(Notice(f"The delivery gate's guard failed: {error}. Delivery is not treated as passed; "
                          "it goes ahead only if you confirm it.", "warning"))
