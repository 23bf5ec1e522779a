"""Delivery of a gated run's staged change to the user's tree (GATE-4, GATE-8, GATE-9).

The staged change is what the run changed in its staging tree
(:meth:`~ljtui.core.gates.workspace.Workspace.changes`). It is delivered as
one EDIT plan opened in the Diff pane and written by the normal atomic
apply, which asks the user. Delivery is refused — naming the gate and each
missing, failed or stale item — until the evidence is complete and fresh.
After :data:`~ljtui.core.gates.model.MAX_BOUNCES` refusals the breaker opens
and the user decides; when the guard itself fails, delivery goes ahead only
with the user's explicit confirmation. A file the user changed since the
run started is never overwritten: it is left out, and said so (the
workspace tells which: :data:`~ljtui.core.gates.workspace.USER_CHANGED`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ljtui.core.approval import YES
from ljtui.core.events import Notice
from ljtui.core.gates import events as G
from ljtui.core.gates.model import MAX_BOUNCES
from ljtui.core.gates.runs import GateRun, save_run
from ljtui.core.gates.workspace import WorkspaceError
from ljtui.core.statedir import StateDirUnsafe

if TYPE_CHECKING:
    from ljtui.core.gates.service import GateService
    from ljtui.core.review.service import ReviewService


@dataclass(frozen=True)
class Delivery:
    """How a delivery attempt ended.

    Attributes:
        delivered: the staged change is now in the user's tree.
        message: one paragraph for the model, the CLI and the Conversation.
        files: the files the plan carried.
    """

    delivered: bool
    message: str
    files: tuple[str, ...] = ()


async def deliver(service: GateService, review: ReviewService, gate_id: str | None = None) -> Delivery:
    """Try to deliver the staged change of the open run (of ``gate_id``, when given)."""
    run = service.run
    if run is None or run.delivered or (gate_id and run.gate_id != gate_id):
        return Delivery(False, f"there is no open gate run{f' of {gate_id}' if gate_id else ''} to deliver")
    if not run.staged:
        return Delivery(False, f"gate {run.gate_id} is L{run.level}: its writes were not staged, there is nothing "
                               "to deliver")
    allowed, warning = await _allowed(service, run)
    if not allowed:
        return Delivery(False, warning)
    if run.in_layer:
        return await _hand_over_layer(service, review, run, warning)
    return await _hand_over(service, review, run, warning)


async def _allowed(service: GateService, run: GateRun) -> tuple[bool, str]:
    """Whether the run may be delivered now, and the warning that goes with it."""
    from ljtui.core.gates.requests import breaker_request, failsafe_request, refusal_text

    if run.outcome == "exempt":
        return True, f"gate {run.gate_id} was exempted by the user this time"
    try:
        found = await asyncio.to_thread(service.blockers_now)
    except Exception as exc:  # GATE-9: the guard's own failure is recorded, warned, and never a pass
        error = f"{type(exc).__name__}: {exc}"
        service._guard_failed(error)
        try:
            view = await asyncio.to_thread(service.view)
        except Exception:  # the gate itself may be what broke: ask without its view
            view = None
        if (await service.ask(failsafe_request(view, error, run.gate_id))).choice != YES:
            return False, f"delivery not made: the gate guard failed ({error}) and the user did not confirm"
        return True, f"delivered although the gate guard failed ({error}), on the user's word"
    if not found:
        return True, ""
    gate = await asyncio.to_thread(service.gate, run.gate_id)
    run.bounces += 1
    await asyncio.to_thread(save_run, service.root, run)
    service.sink.emit(G.DeliveryBlocked(gate.id, run.run_id, found.missing, found.failed, found.stale, run.bounces,
                                        "; ".join(found.lines(gate))))
    view = await asyncio.to_thread(service.view)
    service.sink.emit(Notice(refusal_text(view), "warning"))
    await asyncio.to_thread(service.publish)
    if run.bounces < MAX_BOUNCES:
        return False, refusal_text(view)
    request = breaker_request(view)
    run.breaker = "keep" if (await service.ask(request)).choice == request.safe else "deliver"
    await asyncio.to_thread(save_run, service.root, run)
    service.sink.emit(G.GateBreakerOpened(gate.id, run.run_id, run.bounces, run.breaker))
    if run.breaker == "deliver":
        return True, (f"delivered past gate {gate.id} on the user's word after {run.bounces} refusals; "
                      + "; ".join(found.lines(gate)))
    return False, refusal_text(view)


async def _hand_over(service: GateService, review: ReviewService, run: GateRun, warning: str) -> Delivery:
    """Open the staged change as one EDIT plan and apply it through the normal (asking) atomic apply."""
    from ljtui.core.gates.delivery import delivery_plan

    try:
        workspace = await asyncio.to_thread(service.workspace)
        plan = delivery_plan(await asyncio.to_thread(workspace.changes))
    except (WorkspaceError, StateDirUnsafe, OSError) as exc:
        return Delivery(False, f"the staged change of gate {run.gate_id} cannot be read ({exc}); nothing was "
                               "delivered")
    skipped = list(plan.skipped)
    notes = [f"{path}: {why}" for path, why in (*plan.skipped, *plan.notes)]
    if not plan.files:
        return Delivery(False, "nothing to deliver: the staging tree has no change the user's tree can take"
                        + (f" ({'; '.join(notes)})" if notes else ""))
    if warning:
        service.sink.emit(Notice(warning, "warning"))
    opened = await asyncio.to_thread(review.open_text, plan.text, f"gate {run.gate_id}")
    if not opened:
        return Delivery(False, "the staged change could not be opened for review", plan.files)
    await review.apply()
    landed = await asyncio.to_thread(_landed, service, run, plan.files)
    service.sink.emit(G.GateDelivered(run.gate_id, run.run_id, plan.files, landed, warning))
    if notes:
        service.sink.emit(Notice("Not delivered, left in the staging tree: " + "; ".join(notes), "warning"))
    if not landed:
        return Delivery(False, "the delivery was opened in the Diff pane but not applied; the staged work is kept",
                        plan.files)
    if not skipped:
        await asyncio.to_thread(lambda: service.discard(run.gate_id, delivered=True))
    if run.outcome == "pass":
        await _offer_playbook(service, run)
    return Delivery(True, f"delivered {len(plan.files)} file(s) of gate {run.gate_id}"
                    + (f" ({warning})" if warning else ""), plan.files)


async def _hand_over_layer(service: GateService, review: ReviewService, run: GateRun, warning: str) -> Delivery:
    """Open the layer's change in the Diff pane, past the gate, and apply it through the normal (asking) atomic
    apply; the run is delivered once nothing of what it changed waits in the layer (applied, or rejected)."""
    from ljtui.core.gates.layer_run import held_paths

    layer, opener = service.sandbox.layer, service.open_layer
    if layer is None or opener is None:
        return Delivery(False, f"gate {run.gate_id}'s run is held in the layer, which this session cannot open; "
                               "nothing was delivered (`ljtui layer diff` shows the change)")
    files = await asyncio.to_thread(held_paths, layer)
    if not files:
        return Delivery(False, "nothing to deliver: the layer holds no change the review can carry")
    if warning:
        service.sink.emit(Notice(warning, "warning"))
    if not await opener():
        return Delivery(False, "the layer's change could not be opened for review; it stays in the layer", files)
    await review.apply()
    left = set(await asyncio.to_thread(held_paths, layer))
    landed = not left.intersection(files)
    service.sink.emit(G.GateDelivered(run.gate_id, run.run_id, files, landed, warning))
    if not landed:
        return Delivery(False, "the delivery was opened in the Diff pane but not applied; the change stays in the "
                               "layer", files)
    await asyncio.to_thread(lambda: service.discard(run.gate_id, delivered=True))
    if run.outcome == "pass":
        await _offer_playbook(service, run)
    return Delivery(True, f"delivered gate {run.gate_id}: the {len(files)} file(s) of its change you accepted are "
                          "in your files, what you rejected left the layer" + (f" ({warning})" if warning else ""),
                    files)


def _landed(service: GateService, run: GateRun, files: tuple[str, ...]) -> bool:
    """Whether every delivered file now has its staged bytes in the user's tree."""
    workspace = service.workspace()
    if workspace is None:
        return False
    left = {c.path for c in workspace.changes() if c.before != c.after}
    return not left.intersection(files)


async def _offer_playbook(service: GateService, run: GateRun) -> None:
    """A passed, delivered gate run is worth repeating: offer to keep its procedure as a draft playbook."""
    offer = service.offer_playbook
    if offer is None:
        return
    gate = await asyncio.to_thread(service.gate, run.gate_id)
    sop = [f"Make the change: {gate.title}", *(f"Check that {i.description}: `{i.command}`" for i in gate.items)]
    await offer(gate.title, sop, [i.command for i in gate.items])
