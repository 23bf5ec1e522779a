"""The gate tools (GATE-3): status, propose, confirm, start, check, verify, finish, deliver.

The model proposes a gate and asks for what only the user may decide; the
engine computes R and the level, the user confirms and starts the gate in a
dialog, the engine runs the checks and records the evidence, and delivery
is refused until the gate passes. Nothing the model says counts as evidence.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ljtui.core.agent.tools.base import failed, text_arg
from ljtui.core.gates.model import CheckItem, Factors
from ljtui.core.gates.records import MAX_TITLE_CHARS
from ljtui.core.tools import GateControls, Tool, ToolContext, ToolError, ToolResult, require
from ljtui.core.agent.tools.specs.gates import CHECK, CONFIRM, DELIVER, FINISH, PROPOSE, START, STATUS, VERIFY

if TYPE_CHECKING:
    from ljtui.core.gates.service import GateService



def _controls(ctx: ToolContext) -> GateControls:
    return require(ctx.services.gates, "gates")


def _service(ctx: ToolContext) -> GateService:
    return _controls(ctx).gates


async def _guarded(work) -> ToolResult:
    from ljtui.core.gates.service import GateRefused

    try:
        return await work
    except GateRefused as exc:  # an unknown id's refusal names the gates there are: no tool lists them all
        return failed(str(exc))


def _gate_id(args: dict[str, Any], required: bool = True) -> str | None:
    from ljtui.core.ids import is_valid_id

    value = text_arg(args, "gate_id", required=required, max_chars=MAX_TITLE_CHARS)
    if value is not None and not is_valid_id(value):
        raise ToolError(f"'{value[:60]}' is not a gate id (give the id gate_propose returned)")
    return value


async def gate_status(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    from ljtui.core.gates.status import prompt_section

    gate_id = _gate_id(args, required=False)

    async def work() -> ToolResult:
        view = await asyncio.to_thread(_service(ctx).view, gate_id)
        if view is None:
            return ToolResult(True, "No gate is in focus. gate_propose proposes one.", "no gate")
        return ToolResult(True, prompt_section(view), f"{view.id} L{view.level}")

    return await _guarded(work())


def parse_definition(args: dict[str, Any]) -> tuple[str, tuple[CheckItem, ...], Factors]:
    """The title, items and factors of ``gate_propose``, checked as the gate file will be."""
    from ljtui.core.gates.records import GateInvalid, check_factors, check_items, check_title

    try:
        return check_title(args.get("title")), check_items(args.get("items")), check_factors(args.get("factors"))
    except GateInvalid as exc:
        raise ToolError(f"{exc}; nothing was written") from None


async def gate_propose(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    from ljtui.core.gates.model import gate_risk

    (title, items, factors), gate_id = parse_definition(args), _gate_id(args, False)

    async def work() -> ToolResult:
        gate = await asyncio.to_thread(_service(ctx).propose, title, items, factors, gate_id)
        found = gate_risk(gate)
        return ToolResult(True, f"gate {gate.id} written: L{found.level}, R {found.r:.2f} (D {found.d:.2f}, "
                                f"P {found.p:.2f}); not confirmed: call gate_confirm to ask the user.",
                          f"{gate.id} L{found.level}")

    return await _guarded(work())


async def gate_confirm(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    gate_id = _gate_id(args) or ""

    async def work() -> ToolResult:
        if await _service(ctx).confirm(gate_id):
            return ToolResult(True, f"The user confirmed gate {gate_id}.", "confirmed by the user")
        return failed(f"the user did not confirm gate {gate_id}; it stays unconfirmed and its commands do not run")

    return await _guarded(work())


async def gate_start(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    gate_id = _gate_id(args) or ""

    async def work() -> ToolResult:
        run = await _service(ctx).start(gate_id, ctx.agent)
        if run.in_layer:
            where = ("your writes and commands stay in the layer, at the repository's own path, as before; its checks "
                     "run there, and the user applies the change only once the gate passes (gate_deliver)")
        elif run.staged:
            where = "your writes and commands now happen in the staging tree; delivery waits for the gate"
        else:
            where = "writes are not staged at this level"
        return ToolResult(True, f"Gate {gate_id} started (run {run.run_id}): {where}.", f"run {run.run_id}")

    return await _guarded(work())


async def gate_check(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    item = text_arg(args, "item", required=False, empty_ok=False, max_chars=MAX_TITLE_CHARS)
    verifier = ctx.agent if ctx.agent.startswith("verifier-") else ""

    async def work() -> ToolResult:
        found = await _service(ctx).check(item, ctx.agent, verifier=verifier, cancelled=ctx.cancelled)
        lines = [f"{e.item}: exit {e.exit_code if e.exit_code is not None else 'none (killed or not started)'} "
                 f"after {e.duration_ms} ms\n{e.output}" for e in found]
        ok = all(e.passed for e in found)
        summary = ", ".join(f"{e.item} {'ok' if e.passed else 'failed'}" for e in found)
        return ToolResult(ok, "\n\n".join(lines) or "no item to check", summary or "nothing checked")

    return await _guarded(work())


async def gate_verify(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    controls = _controls(ctx)

    async def work() -> ToolResult:
        run = controls.gates.run
        if run is None or run.delivered:
            return failed("no gate run is open (gate_start begins one)")
        agent, said = await controls.verify_gate(ctx.turn, run.gate_id)
        return ToolResult(True, f"Verifier {agent} finished: {said or '(no words)'}", f"verifier {agent}")

    return await _guarded(work())


async def gate_finish(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    outcome = text_arg(args, "outcome", empty_ok=False, max_chars=10) or ""

    async def work() -> ToolResult:
        service = _service(ctx)
        said = await service.finish(outcome, ctx.agent)
        if service.run is None:  # the run staged nothing: it is over, with nothing to deliver
            return ToolResult(True, said + ".", said)
        if outcome == "fail":
            return ToolResult(True, said + "; the staged work is kept until the user discards it.", said)
        delivery = await _controls(ctx).deliver_gate()
        return ToolResult(True, f"{said}. {delivery.message}", said)

    return await _guarded(work())


async def gate_deliver(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    async def work() -> ToolResult:
        delivery = await _controls(ctx).deliver_gate()
        return ToolResult(delivery.delivered, delivery.message if delivery.delivered
                          else f"error: delivery refused: {delivery.message}",
                          "delivered" if delivery.delivered else "delivery refused")

    return await _guarded(work())


TOOLS = (Tool(STATUS, gate_status), Tool(PROPOSE, gate_propose), Tool(CONFIRM, gate_confirm),
         Tool(START, gate_start), Tool(CHECK, gate_check), Tool(VERIFY, gate_verify), Tool(FINISH, gate_finish),
         Tool(DELIVER, gate_deliver))
