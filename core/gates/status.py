"""Where a gate run stands (GATE-5…7, GATE-10): each item's status, what blocks delivery, and the view.

Pure: the stored gate, the run's evidence and the hash of the staged
content now. An item's latest evidence decides its status: none →
``pending``; taken on other content → ``stale``; a non-zero exit (or a
command that never finished) → ``failed``; passed by the verifier →
``independent``; else ``passed``. A recorded failure is never reported as
ready.
"""

from __future__ import annotations

from dataclasses import dataclass

from ljtui.core.gates.model import VERIFIER_LEVEL, Evidence, Gate, ItemStatus, gate_risk
from ljtui.core.gates.runs import GateRun
from ljtui.core.gates.view import GateView, ItemView

HISTORY_SHOWN = 10
"""Finished runs a view carries (newest last)."""


@dataclass(frozen=True)
class Blockers:
    """Why ``gate_finish(pass)`` or a delivery is refused now (required items only)."""

    missing: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()
    needs_verifier: bool = False

    def __bool__(self) -> bool:
        return bool(self.missing or self.failed or self.stale or self.needs_verifier)

    def lines(self, gate: Gate) -> tuple[str, ...]:
        """One sentence per blocker, naming the items."""
        described = {item.id: item.description for item in gate.items}

        def named(ids: tuple[str, ...]) -> str:
            return ", ".join(f"{i} ({described.get(i, '?')})" for i in ids)

        out = []
        if self.missing:
            out.append(f"no evidence yet: {named(self.missing)}")
        if self.failed:
            out.append(f"failed: {named(self.failed)}")
        if self.stale:
            out.append(f"stale (the staged files changed after the check): {named(self.stale)}")
        if self.needs_verifier:
            out.append("L3: no required item has passed a check by an independent verifier (gate_verify)")
        return tuple(out)


def latest(evidence: list[Evidence], item: str) -> Evidence | None:
    """The newest evidence for ``item``."""
    return next((e for e in reversed(evidence) if e.item == item), None)


def status_of(found: Evidence | None, content_hash: str) -> ItemStatus:
    """An item's status from its latest evidence and the staged content's hash now."""
    if found is None:
        return "pending"
    if found.content_hash != content_hash:
        return "stale"
    if not found.passed:
        return "failed"
    return "independent" if found.verifier else "passed"


def blockers(gate: Gate, run: GateRun, content_hash: str) -> Blockers:
    """What stands between the run and a pass; optional items never block."""
    missing, failed, stale = [], [], []
    for item in gate.items:
        if not item.required:
            continue
        status = status_of(latest(run.evidence, item.id), content_hash)
        {"pending": missing, "failed": failed, "stale": stale}.get(status, []).append(item.id)
    needs_verifier = run.level >= VERIFIER_LEVEL and not _independently_checked(gate, run, content_hash)
    return Blockers(tuple(missing), tuple(failed), tuple(stale), needs_verifier)


def _independently_checked(gate: Gate, run: GateRun, content_hash: str) -> bool:
    return any(_verified(run, item.id, content_hash) for item in gate.items if item.required)


def gate_view(gate: Gate, *, confirmed: bool, run: GateRun | None, content_hash: str,
              staged_files: tuple[str, ...] = (), breaker_at: int = 0,
              unstarted: list[Evidence] | None = None, ended: GateRun | None = None) -> GateView:
    """The gate as the user sees it, with the active run's evidence when there is one (else the checks run in
    the repository while no run was open, ``unstarted``); ``ended`` is its latest run that is over (delivered or
    discarded), which says how the gate last ended while no run is open."""
    items = []
    evidence = run.evidence if run else (unstarted or [])
    for item in gate.items:
        found = latest(evidence, item.id)
        status = status_of(found, content_hash)
        if status == "passed" and run and _verified(run, item.id, content_hash):
            status = "independent"
        items.append(ItemView(
            item.id, item.description, item.command, item.required, status,
            found.exit_code if found else None, found.duration_ms if found else None,
            found.output if found else "", found.agent if found else "", found.verifier if found else ""))
    blocked: tuple[str, ...] = ()
    if run is not None and run.outcome != "exempt" and not run.delivered:
        blocked = blockers(gate, run, content_hash).lines(gate)
    return GateView(
        gate.id, gate.title, gate_risk(gate).level, gate_risk(gate), gate.factors,
        gate.stats, confirmed, run is not None and not run.delivered, run.run_id if run else "", tuple(items),
        gate.history[-HISTORY_SHOWN:], staged_files, blocked, run.bounces if run else 0,
        bool(run and breaker_at and run.bounces >= breaker_at), run.error if run else "",
        *_ending(gate, run, ended))


def _ending(gate: Gate, run: GateRun | None, ended: GateRun | None) -> tuple[str, bool]:
    """How the latest run ended and whether its change was delivered: the open run's, once it has an outcome,
    else the ended run's as the gate's history last records it (a rework sends it back)."""
    if run is not None:
        return run.outcome, run.delivered
    last = gate.history[-1] if gate.history else None
    if ended is None or last is None or last.run_id != ended.run_id or ended.gate_id != gate.id:
        return "", False
    return last.outcome, ended.delivered and last.outcome != "rework"


def _verified(run: GateRun, item: str, content_hash: str) -> bool:
    return any(e.item == item and e.verifier and e.passed and e.content_hash == content_hash for e in run.evidence)


def prompt_section(view: GateView | None) -> str:
    """The gate status for the system prompt's tail: exactly what is missing, failed or stale."""
    if view is None:
        return ""
    state = gate_state(view)
    lines = [f"## Delivery gate {view.id} (L{view.level}, R {view.risk.r:.2f}): {state}"]
    if view.started and view.level >= 2:
        lines.append("Your writes and commands run in a staging copy of the repository; the user's files "
                     "change only when the gate passes and the staged change is delivered.")
    lines.extend(item_line(item) for item in view.items)
    if view.blocked:
        lines.append("Delivery is blocked: " + "; ".join(view.blocked) + ". Run gate_check on these items.")
    elif view.started:
        lines.append("Every required item has fresh passing evidence: gate_finish(pass) may be called.")
    if view.error:
        lines.append(f"The gate guard failed: {view.error}. Delivery needs the user's explicit confirmation.")
    return "\n".join(lines)


def gate_state(view) -> str:  # type: ignore[no-untyped-def]
    """Where a gate stands: started (with its run), confirmed, or only proposed."""
    if view.started:
        return "started, run " + view.run_id
    return "confirmed, not started" if view.confirmed else "proposed, not confirmed by the user"


def item_line(item) -> str:  # type: ignore[no-untyped-def]
    """One check item as a line: id, whether required, status, exit code, description."""
    need = "required" if item.required else "optional"
    code = f", exit {item.exit_code}" if item.exit_code is not None else ""
    return f"- {item.id} ({need}): {item.status}{code} — {item.description}"
