"""``ljtui gates``: the repository's delivery gates, headless (GATE-1, GATE-10…12).

``list`` the gates; ``show ID`` one gate with its items, risk and history;
``check ID [ITEM]`` runs its checks (where its open run's work is, else in
the repository; refused while another gate's run is open) and records the
evidence; ``deliver ID`` tries again to
deliver an open run's staged change (refused until the gate passes);
``discard ID`` throws the staged work away; ``rework ID`` sends the latest
passed run back. What only the user may decide (delivering past the
breaker, a failed guard) is asked on the terminal, follows ``--yes``, or is
denied.

``show --json`` prints ``{id, title, level, R, factors, confirmed_by_user,
items, history: [{run_id, outcome, at, evidence}]}``; ``list --json`` a
list of ``{id, title, level, suggested, R, P, confirmed_by_user, runs,
passed, failed, reworks}`` (the level the user confirmed, else the
suggested one; the level and R the gate's record gives now, P its pass
rate); the other commands print their events as JSON lines. ``ljtui
playbook gates [ID]`` lists and shows the gates the same way
(:func:`show_gates`).

Exit status: 0 done; 1 refused or failed (a delivery blocked, a failed
check, a malformed gate file, nothing left to rework); 2 a usage error. A
refusal is one line naming what was refused and why; "internal error" is
kept for a fault of ljtui itself.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
from pathlib import Path
from typing import Any

from ljtui.cli.output import echo, json_text
from ljtui.core.gates.refusals import refusal_message, refusals

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
PROG = "ljtui gates"
ACTIONS = ("list", "show", "check", "deliver", "discard", "rework")
LISTED_BY = "`ljtui gates list` lists them"
"""What an unknown gate id's refusal adds: the command that lists the gates."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``gates`` command."""
    parser = subparsers.add_parser(
        "gates", help="delivery gates: list, show, check, deliver, discard, rework",
        description="The repository's delivery gates (.agent/gates/). A gate's commands run only once you have "
                    "confirmed it; a gate committed to an untrusted repository never runs its commands.")
    parser.add_argument("action", choices=ACTIONS)
    parser.add_argument("gate", nargs="?", help="the gate's id (all but list)")
    parser.add_argument("item", nargs="?", help="check: one item's id (default: every item)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--yes", action="store_true",
                        help="answer yes to what would be asked (the breaker, a failed guard, the apply)")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS,
                        help="repository (default: the one holding the current directory)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Carry out ``args.action``; see the module docstring for the exit status."""
    from ljtui.cli.main import repo_root_arg

    root = repo_root_arg(args, PROG)
    if root is None:
        return EXIT_USAGE
    if args.action != "list" and not args.gate:
        echo(f"{PROG} {args.action}: name the gate ({LISTED_BY})", sys.stderr)
        return EXIT_USAGE
    if args.item and args.action != "check":
        echo(f"{PROG} {args.action}: unexpected argument {args.item!r}", sys.stderr)
        return EXIT_USAGE
    return _carry_out(root, args, f"{PROG} {args.action}", LISTED_BY)


def show_gates(root: Path, gate_id: str | None, as_json: bool, *, where: str, listed_by: str) -> int:
    """``list`` the gates (``gate_id`` ``None``) or ``show`` one, as ``ljtui gates`` does, for another command:
    ``where`` starts its error lines, ``listed_by`` is what an unknown id's refusal adds (how to list them)."""
    args = argparse.Namespace(action="show" if gate_id else "list", gate=gate_id, item=None, json=as_json,
                              yes=False)
    return _carry_out(root, args, where, listed_by)


def _carry_out(root: Path, args: argparse.Namespace, where: str, listed_by: str) -> int:
    try:
        return asyncio.run(_run(root, args, where, listed_by))
    except Exception as exc:  # the CLI reports, it never shows a traceback
        echo(f"{where}: internal error: {type(exc).__name__}: {exc}", sys.stderr)
        return EXIT_FAILED


async def _run(root: Path, args: argparse.Namespace, where: str, listed_by: str) -> int:
    from ljtui.cli.approver import CliApprover
    from ljtui.cli.output import JsonLinesSink
    from ljtui.cli.session import headless_engine
    from ljtui.core.gates.service import NoSuchGate

    sink: Any = JsonLinesSink(sys.stdout) if args.json and args.action not in ("list", "show") else _TextSink()
    engine = headless_engine(where, root, sink, CliApprover(where, yes=args.yes))
    gates = engine.gates
    try:
        await asyncio.to_thread(gates.restore)
        if args.action == "list":
            return _list(gates, args.json, where)
        if args.action == "show":
            return _show(gates, args.gate, args.json)
        if args.action == "check":
            found = await _check(gates, args.gate, args.item)
            return EXIT_OK if all(e.passed for e in found) else EXIT_FAILED
        if args.action == "deliver":
            delivery = await engine.deliver_gate(args.gate)
            echo(delivery.message, sys.stderr)
            return EXIT_OK if delivery.delivered else EXIT_FAILED
        if args.action == "discard":
            await asyncio.to_thread(gates.discard, args.gate)
            return EXIT_OK
        await gates.rework(args.gate)
        return EXIT_OK
    except refusals() as exc:
        message = exc.hinted(listed_by) if isinstance(exc, NoSuchGate) else refusal_message(exc)
        if args.gate and args.gate not in message:
            message = f"gate {args.gate}: {message}"
        echo(f"{where}: {message}", sys.stderr)
        return EXIT_FAILED
    finally:
        await engine.aclose()


async def _check(gates: Any, gate_id: str, item: str | None) -> list[Any]:
    """Run the checks of ``gate_id`` (refused while another gate's run is open: its work is what checks see)."""
    from ljtui.core.gates.service import USER, GateRefused

    await asyncio.to_thread(gates.gate, gate_id)
    run = gates.run
    if run is not None and not run.delivered and run.gate_id != gate_id:
        raise GateRefused(f"gate {run.gate_id} has the open run ({run.run_id}), so gate {gate_id} is not checked: "
                          f"`{PROG} check {run.gate_id}` checks that one, `{PROG} discard {run.gate_id}` ends it")
    gates.current = gate_id
    return await gates.check(item, USER)


def _list(gates: Any, as_json: bool, where: str) -> int:
    from ljtui.core.gates.commands import NO_GATES, gate_line

    rows, bad = gates.listing()
    for problem in bad:
        echo(f"{where}: {problem}", sys.stderr)
    if as_json:
        print(json_text(rows))
    elif not rows:
        print(NO_GATES)
    for row in [] if as_json else rows:
        echo(gate_line(row))
    return EXIT_FAILED if bad else EXIT_OK


def show_data(view: Any, gate: Any) -> dict[str, Any]:
    """What ``show --json`` prints for a gate."""
    return {
        "id": view.id, "title": view.title, "level": view.level, "R": round(view.risk.r, 4),
        "D": round(view.risk.d, 4), "P": round(view.risk.p, 4), "factors": dataclasses.asdict(view.factors),
        "confirmed_by_user": view.confirmed, "stats": dataclasses.asdict(view.stats),
        "playbook": dataclasses.asdict(gate.playbook) if gate.playbook else None,
        "items": [dataclasses.asdict(i) for i in view.items], "run_id": view.run_id, "blocked": list(view.blocked),
        "history": [{"run_id": h.run_id, "outcome": h.outcome, "at": h.at,
                     "evidence": [dataclasses.asdict(e) for e in h.evidence]} for h in gate.history],
    }


def _show(gates: Any, gate_id: str, as_json: bool) -> int:
    if as_json:
        print(json_text(show_data(gates.view(gate_id), gates.gate(gate_id))))
        return EXIT_OK
    from ljtui.core.gates.commands import show_lines

    for line in show_lines(gates, gate_id):
        echo(line)
    return EXIT_OK


def gate_event_line(event: Any) -> str:
    """One line for a gate event in ``ljtui run``'s and ``ljtui gates``' text output, ``""`` for others."""
    from ljtui.core.gates import events as G

    match event:
        case G.GateProposed(gate=g, level=level, r=r):
            return f"gate {g} proposed: L{level}, R {r:.2f}"
        case G.GateConfirmed(gate=g):
            return f"gate {g} confirmed by the user"
        case G.GateStarted(gate=g, run_id=run_id, staged=staged, in_layer=in_layer):
            held = ": writes are held in the layer" if in_layer else ": writes are staged" if staged else ""
            return f"gate {g} started (run {run_id}){held}"
        case G.GateCheckRecorded(gate=g, item=item, exit_code=code, duration_ms=ms, verifier=v):
            return f"gate {g}: {item} exit {code} after {ms} ms" + (f" (verifier {v})" if v else "")
        case G.DeliveryBlocked(gate=g, reason=reason, bounces=n):
            return f"gate {g}: delivery blocked ({n}): {reason}"
        case G.GateFinished(gate=g, outcome=outcome):
            return f"gate {g} finished: {outcome}"
        case G.GateBreakerOpened(gate=g, decision=decision):
            return f"gate {g}: breaker opened, the user chose {decision}"
        case G.GateDelivered(gate=g, files=files, applied=applied):
            return f"gate {g}: {len(files)} file(s) {'delivered' if applied else 'not applied'}"
    return ""


class _TextSink:
    """Gate events and notices on stderr."""

    def emit(self, event: Any) -> None:
        from ljtui.core.events import Notice

        line = event.message if isinstance(event, Notice) else gate_event_line(event)
        if line:
            echo(f"[{line}]", sys.stderr, flush=True)
