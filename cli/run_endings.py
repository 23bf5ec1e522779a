"""How a headless run ends: a gated run's staged change delivered, the layer's net change taken or left."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from ljtui.core.engine import Engine
    from ljtui.core.gates.release import Delivery


async def deliver_open_gate(engine: Engine) -> Delivery | None:
    """At the end of a headless run, deliver a gated run's staged change (refused until the gate passes)."""
    from ljtui.core.gates.refusals import refusal_message, refusals
    from ljtui.core.gates.release import Delivery

    gates = engine.session_gates.built
    if gates is None or gates.run is None or gates.run.delivered or not gates.run.staged:
        return None
    try:
        return await engine.deliver_gate()
    except refusals() as exc:
        return Delivery(False, f"the gated run was not delivered: {refusal_message(exc)}")


async def take_layer(engine: Engine, *, take: bool, say: Callable[[str], None]) -> None:
    """At the end of a headless run, apply the layer's net change under review when ``take`` (``--allow write``
    or ``--yes``: the user's answer, given on the command line), else leave it in the layer and say how to take it.
    """
    from ljtui.core.layer.review import ORIGIN

    review = engine.review
    if review.origin != ORIGIN:
        return
    if not take:
        say("the change stays in the layer: `ljtui layer diff` shows it, `ljtui layer apply` takes it")
        return
    await review.apply(asked=False)
    if review.origin == ORIGIN:
        say("the layer's change was not applied (the lines above say why); it stays in the layer: "
            "`ljtui layer diff` shows it")
    else:
        say("applied the layer's change to your files (`ljtui undo` reverts it)")
