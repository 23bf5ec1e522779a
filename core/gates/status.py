"""Where a gate run stands (GATE-5…7, GATE-10): each item's status, what blocks delivery, and the view.

Pure: the stored gate, the run's evidence and the hash of the staged
content now. An item's latest evidence decides its status: none →
``pending``; taken on other content → ``stale``; a non-zero exit (or a
command that never finished) → ``failed``; passed by the verifier →
``independent``; else ``passed``. A recorded failure is never reported as
ready. What a pass still needs blocks delivery only at a level that blocks
it (:func:`~ljtui.core.gates.model.blocks_delivery`); below it, it is a
reminder. Once a run is over, the view reads its evidence as the run ended
it, until the gate is set up again.
"""

from __future__ import annotations

from dataclasses import dataclass

from ljtui.core.gates.model import (
    VERIFIER_LEVEL, Evidence, Gate, HistoryEntry, ItemStatus, Level, gate_risk,
)
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


def gate_view(gate: Gate, *, confirmed_level: Level | None, run: GateRun | None, content_hash: str,
              staged_files: tuple[str, ...] = (), breaker_at: int = 0,
              unstarted: list[Evidence] | None = None, ended: GateRun | None = None) -> GateView:
    """The gate as the user sees it, with the active run's evidence when there is one; else, while the gate shows
    how its latest run ended (``ended``: its latest run that is over), that run's evidence as it ended; and the
    checks run in the repository while no run was open (``unstarted``) after it. ``confirmed_level`` is the level
    the user confirmed the gate at (``None``: not confirmed as it is now)."""
    the_risk = gate_risk(gate)
    open_run = run if run is not None and not run.delivered else None
    if open_run is not None:
        level: Level = open_run.level  # type: ignore[assignment]  # a run's level is checked to be 0–3
    else:
        level = the_risk.level if confirmed_level is None else confirmed_level
    over = _ended(gate, run, ended)
    items = []
    for item in gate.items:
        found, against = _latest(item.id, run, content_hash, over, unstarted or [])
        status = status_of(found, against)
        if status == "passed" and run and _verified(run, item.id, content_hash):
            status = "independent"
        items.append(ItemView(
            item.id, item.description, item.command, item.required, status,
            found.exit_code if found else None, found.duration_ms if found else None,
            found.output if found else "", found.agent if found else "", found.verifier if found else ""))
    unmet: tuple[str, ...] = ()
    if run is not None and run.outcome != "exempt" and not run.delivered:
        unmet = blockers(gate, run, content_hash).lines(gate)
    blocked = unmet if run is not None and run.staged else ()
    return GateView(
        gate.id, gate.title, level, the_risk, gate.factors,
        gate.stats, confirmed_level is not None, open_run is not None, run.run_id if run else "", tuple(items),
        gate.history[-HISTORY_SHOWN:], staged_files, blocked, run.bounces if run else 0,
        bool(run and breaker_at and run.bounces >= breaker_at), run.error if run else "",
        *_ending(run, over), unmet)


def _ended(gate: Gate, run: GateRun | None, ended: GateRun | None) -> tuple[GateRun, HistoryEntry] | None:
    """The run that is over and its entry in the gate's history, while no run is open and that entry is still the
    gate's latest (a rework of it keeps it; a later run replaces it)."""
    last = gate.history[-1] if gate.history else None
    if run is not None or ended is None or last is None or last.run_id != ended.run_id or ended.gate_id != gate.id:
        return None
    return ended, last


def _latest(item: str, run: GateRun | None, content_hash: str, over: tuple[GateRun, HistoryEntry] | None,
            unstarted: list[Evidence]) -> tuple[Evidence | None, str]:
    """An item's latest evidence and the content hash it is judged against: the open run's against the staged
    content now; a check run in the repository since against the repository (``content_hash`` is then ``""``);
    else the ended run's against the content its last check saw, as the run ended."""
    if run is not None:
        return latest(run.evidence, item), content_hash
    since = [e for e in unstarted if over is None or e.at >= over[1].at]
    found = latest(since, item)
    if found is not None or over is None:
        return found, content_hash
    ended = over[0].evidence
    return latest(ended, item), ended[-1].content_hash if ended else content_hash


def _ending(run: GateRun | None, over: tuple[GateRun, HistoryEntry] | None) -> tuple[str, bool]:
    """How the latest run ended and whether its staged change was delivered: the open run's, once it has an
    outcome, else the ended run's as the gate's history last records it (a rework sends it back; a run that staged
    nothing delivered nothing)."""
    if run is not None:
        return run.outcome, run.delivered
    if over is None:
        return "", False
    ended, last = over
    return last.outcome, ended.delivered and ended.staged and last.outcome != "rework"


def _verified(run: GateRun, item: str, content_hash: str) -> bool:
    return any(e.item == item and e.verifier and e.passed and e.content_hash == content_hash for e in run.evidence)


def prompt_section(view: GateView | None) -> str:
    """The gate status for the system prompt's tail: exactly what is missing, failed or stale."""
    if view is None:
        return ""
    state = gate_state(view)
    lines = [f"## Delivery gate {view.id} (L{view.level}, R {view.risk.r:.2f}): {state}"]
    if suggestion_line(view):
        lines.append(suggestion_line(view))
    if view.started and view.blocks_delivery and view.in_layer:
        lines.append("Your writes and commands stay in the layer, where the gate's checks run; the user's files "
                     "change only when the gate passes and the user applies the change (gate_deliver).")
    elif view.started and view.blocks_delivery:
        lines.append("Your writes and commands run in a staging copy of the repository; the user's files "
                     "change only when the gate passes and the staged change is delivered.")
    lines.extend(item_line(item) for item in view.items)
    if view.blocked:
        lines.append("Delivery is blocked: " + "; ".join(view.blocked) + ". Run gate_check on these items.")
    elif view.started and view.unmet:
        lines.append(f"A pass still needs: {'; '.join(view.unmet)}. Run gate_check on these items (at "
                     f"L{view.level} {view.delivery_rule}: this is a reminder).")
    elif view.started:
        lines.append("Every required item has fresh passing evidence: gate_finish(pass) may be called.")
    if view.error:
        lines.append(f"The gate guard failed: {view.error}. Delivery needs the user's explicit confirmation.")
    return "\n".join(lines)


def suggestion_line(view: GateView) -> str:
    """The level the gate's record suggests when it is not the level in force (``""`` when they agree)."""
    if view.risk.level == view.level:
        return ""
    return (f"Its record suggests L{view.risk.level} (R {view.risk.r:.2f}); it stays L{view.level}, the level the "
            "user confirmed, until the user confirms it again.")


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
