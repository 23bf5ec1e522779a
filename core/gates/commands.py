"""``/gates`` in the TUI: list, show, check, deliver, discard, rework (GATE-10…12).

:func:`run_gates_command` parses the text after ``/gates`` and carries it
out through the session's gates; it returns what to show as a titled list of lines
(or ``None`` when the outcome arrives as events and notices).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ljtui.core.events import Notice
from ljtui.core.ports import EventSink

if TYPE_CHECKING:
    from ljtui.core.gates.facade import SessionGates
    from ljtui.core.gates.service import GateService

USAGE = ("/gates — list the gates · /gates ID — show one · /gates check [ITEM] · /gates deliver [ID] · "
         "/gates discard [ID] · /gates rework ID")
VERBS = ("check", "deliver", "discard", "rework")
LISTED_BY = "/gates lists them"
"""What an unknown gate id's refusal adds in the app: the command that lists the gates."""


def list_lines(service: GateService) -> list[str]:
    """One line per gate, the malformed ones with their error (disk work)."""
    rows, problems = service.listing()
    lines = [f"{r['id']} · L{r['level']} · R {r['R']:.2f} · "
             f"{'confirmed' if r['confirmed_by_user'] else 'not confirmed'} · {r['runs']} run(s) · {r['title']}"
             for r in rows]
    lines += [f"! {problem}" for problem in problems]
    return lines or ["No gates in this repository yet (.agent/gates/): the agent proposes one for risky work."]


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
