"""``/gates`` in the TUI: list, show, check, deliver, discard, rework (GATE-10…12).

:func:`run_gates_command` parses the text after ``/gates`` and carries it
out through the session's gates; it returns what to show as a titled list of lines
(or ``None`` when the outcome arrives as events and notices).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ljtui.core.events import Notice
from ljtui.core.ports import EventSink
from ljtui.core.gates.status import gate_state, item_line, suggestion_line

if TYPE_CHECKING:
    from ljtui.core.gates.facade import SessionGates
    from ljtui.core.gates.service import GateService

USAGE = ("/gates — list the gates · /gates ID — show one · /gates check [ITEM] · /gates deliver [ID] · "
         "/gates discard [ID] · /gates rework ID")
VERBS = ("check", "deliver", "discard", "rework")
LISTED_BY = "/gates lists them"
"""What an unknown gate id's refusal adds in the app: the command that lists the gates."""


NO_GATES = "No gates in this repository yet (.agent/gates/): the agent proposes one for risky work."


def gate_line(row: dict[str, Any]) -> str:
    """One gate of :meth:`GateService.listing` on a line: its level (and the one its record suggests, when that
    differs), R now, whether the user confirmed it as it is, its pass rate P and runs, its title (``/gates``,
    ``ljtui gates list`` and both ``playbook gates``)."""
    runs = f"{row['runs']} run(s)"
    if row["runs"] or row["reworks"]:
        runs += f": {row['passed']} passed, {row['failed']} failed, {row['reworks']} rework(s)"
    suggested = row.get("suggested", row["level"])
    shown_level = f"L{row['level']}" + (f" (suggests L{suggested})" if suggested != row["level"] else "")
    return (f"{row['id']} · {shown_level} · R {row['R']:.2f} · "
            f"{'confirmed' if row['confirmed_by_user'] else 'not confirmed'} · P {row['P']:.2f} ({runs}) · "
            f"{row['title']}")


def list_lines(service: GateService) -> list[str]:
    """One line per gate, the malformed ones with their error (disk work)."""
    rows, problems = service.listing()
    lines = [gate_line(r) for r in rows]
    lines += [f"! {problem}" for problem in problems]
    return lines or [NO_GATES]


def show_lines(service: GateService, gate_id: str) -> list[str]:
    """The gate ``gate_id`` for the user: its state and items, R with its factors, each item's command, its
    record and the history of its runs (``ljtui gates show`` and both ``playbook gates ID``; disk work).

    Raises:
        NoSuchGate, GateRefused: there is no such gate, or its file is malformed.
    """
    from ljtui.core.display import shown
    from ljtui.core.runlog import utc_iso

    gate = service.gate(gate_id)
    view = service.view(gate_id)
    assert view is not None
    state = gate_state(view)
    lines = [f"Delivery gate {view.id} (L{view.level}, R {view.risk.r:.2f}): {state}", f"title: {view.title}"]
    if suggestion_line(view):
        lines.append(suggestion_line(view))
    if view.started and view.blocks_delivery:
        lines.append("Its writes go to a staging copy: your files change only once the gate passes and the "
                     "staged change is delivered.")
    lines.extend(item_line(item) for item in view.items)
    if view.blocked:
        lines.append("Delivery is blocked: " + "; ".join(view.blocked) + ".")
    elif view.started and view.unmet:
        lines.append(f"A pass still needs: {'; '.join(view.unmet)} (at L{view.level} {view.delivery_rule}).")
    elif view.started:
        lines.append("Every required item has fresh passing evidence: the run may pass.")
    if view.error:
        lines.append(f"The gate guard failed: {view.error}. Delivery needs your explicit confirmation.")
    f = view.factors
    lines.append(f"R {view.risk.r:.2f} = 0.5·D {view.risk.d:.2f} + 0.5·(1 − P {view.risk.p:.2f}); surface "
                 f"{f.change_surface:g}, chain {f.chain_length:g}, density {f.cognitive_density:g}"
                 f"{', verifiable' if f.objectively_verifiable else ''}{', irreversible' if f.irreversible else ''}")
    lines += [f"  {item.id}: $ {shown(item.command, exact=True)}" for item in view.items]
    lines.append(f"history: {view.stats.runs} run(s), {view.stats.passed} passed, {view.stats.failed} failed, "
                 f"{view.stats.reworks} rework(s)")
    if gate.playbook:
        lines.append(f"P also counts playbook {gate.playbook.id}: {gate.playbook.ok} ok, {gate.playbook.fail} fail")
    for entry in gate.history:
        codes = ", ".join(f"{e.item} {e.exit_code}" for e in entry.evidence)
        lines.append(f"  {entry.run_id}  {entry.outcome}  {utc_iso(entry.at)}{f'  ({codes})' if codes else ''}")
    return lines


async def gates_shown(session: SessionGates, sink: EventSink, gate_id: str | None, listed_by: str
                      ) -> tuple[str, list[str]] | None:
    """The gates listed (``gate_id`` ``None``) or one shown, as ``(title, lines)``; a refusal (an unknown id, a
    malformed file) goes to ``sink`` as an error notice instead, an unknown id's naming ``listed_by``, the
    words of the command that lists the gates (``None`` is returned then)."""
    from ljtui.core.gates.refusals import refusal_message, refusals
    from ljtui.core.gates.service import NoSuchGate

    gates = session.gates
    try:
        if gate_id is None:
            return "Delivery gates", await asyncio.to_thread(list_lines, gates)
        return f"Gate {gate_id}", await asyncio.to_thread(show_lines, gates, gate_id)
    except refusals() as exc:
        sink.emit(Notice(exc.hinted(listed_by) if isinstance(exc, NoSuchGate) else refusal_message(exc), "error"))
    return None


async def run_gates_command(session: SessionGates, sink: EventSink, text: str) -> tuple[str, list[str]] | None:
    """Carry out ``/gates TEXT`` on the ``session``'s gates (refusals go to ``sink``); returns ``(title, lines)``
    to show, or ``None``."""
    from ljtui.core.gates.refusals import refusal_message, refusals
    from ljtui.core.gates.service import USER, NoSuchGate

    words = text.split()
    verb = words[0] if words else ""
    arg = words[1] if len(words) > 1 else None
    gates = session.gates
    try:
        if not words:
            return "Delivery gates", await asyncio.to_thread(list_lines, gates)
        if len(words) > 2 or (verb in VERBS and verb == "rework" and arg is None):
            return "Delivery gates", [USAGE]
        if verb == "check":
            await gates.check(arg, USER)
        elif verb == "deliver":
            delivery = await session.deliver_gate(arg)
            sink.emit(Notice(delivery.message, "info" if delivery.delivered else "warning"))
        elif verb == "discard":
            await asyncio.to_thread(gates.discard, arg)
        elif verb == "rework":
            await gates.rework(arg or "")
        elif len(words) == 1:
            await asyncio.to_thread(gates.gate, verb)
            gates.current = verb
            await asyncio.to_thread(gates.publish)
        else:
            return "Delivery gates", [USAGE]
    except refusals() as exc:
        sink.emit(Notice(exc.hinted(LISTED_BY) if isinstance(exc, NoSuchGate) else refusal_message(exc), "error"))
    return None
