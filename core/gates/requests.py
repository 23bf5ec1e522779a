"""The questions the gate service asks the user, and the delivery-refused notice (GATE-3, GATE-8, GATE-9).

Pure builders of :class:`~ljtui.core.approval.ApprovalRequest` values from a
:class:`~ljtui.core.gates.view.GateView`: the dialog shows exactly the lines
written here, from the same view the service acts on. Every request's safe
answer (Escape, no terminal, a denying policy) leaves delivery blocked.
"""

from __future__ import annotations

from pathlib import Path

from ljtui.core.agent.danger import danger_of
from ljtui.core.approval import NO, YES, ApprovalRequest, Choice, confirm
from ljtui.core.display import shown
from ljtui.core.gates.model import VERIFIER_LEVEL, Factors, blocks_delivery, delivery_rule
from ljtui.core.gates.view import GateView, ItemView

CONFIRM = "gate_confirm"
START = "gate_start"
BREAKER = "gate_breaker"
FAILSAFE = "gate_failsafe"
"""Request kinds (policies and scripted answers key on them)."""

DELIVER_KEY = "d"
"""The key that delivers despite a refusal: never Enter, so a reflex cannot deliver."""
RUN_PLACEHOLDER = "<run>"
"""Where the run id goes in a staging path before the run has one."""
WORKSPACE = ".agent/workspace"
"""The staging trees' parent, relative to the repository."""

LEVEL_MEANINGS = {
    0: "L0: no gate is needed at this risk",
    1: "L1: a self-check list, a soft reminder",
    2: "L2: objective evidence before delivery",
    3: "L3: L2 and an independent verifier must check at least one required item",
}
"""What each level asks for; :func:`level_meaning` adds what it does with writes and delivery."""


def level_meaning(level: int) -> str:
    """``L1: a self-check list, a soft reminder; nothing is staged and delivery is not blocked.``"""
    return f"{LEVEL_MEANINGS[level]}; {delivery_rule(level)}."


def staging_tree(view: GateView) -> str:
    """``.agent/workspace/<run>/tree``, with the run's id when it has one."""
    return f"{WORKSPACE}/{view.run_id or RUN_PLACEHOLDER}/tree"


LAYER_HOLDS = "the layer over your repository (/diff shows it)"
"""Where a run held in the layer keeps its change."""


def where_held(view: GateView) -> str:
    """Where the run's change waits: the layer, or its staging tree."""
    return LAYER_HOLDS if view.in_layer else f"the staging tree {staging_tree(view)}"


def risk_line(view: GateView) -> str:
    """``R 0.56 = 0.5·D 0.62 + 0.5·(1 − P 0.50)``."""
    risk = view.risk
    return f"R {risk.r:.2f} = 0.5·D {risk.d:.2f} + 0.5·(1 − P {risk.p:.2f})"


def factor_lines(factors: Factors) -> list[str]:
    """Each factor on its own line, as the model estimated it."""
    return [
        f"  change surface     {factors.change_surface:.2f}",
        f"  chain length       {factors.chain_length:.2f}",
        f"  cognitive density  {factors.cognitive_density:.2f}",
        f"  objectively verifiable: {'yes' if factors.objectively_verifiable else 'no'}",
        f"  irreversible:           {'yes' if factors.irreversible else 'no'}",
    ]


def _required(item: ItemView) -> str:
    return "required" if item.required else "optional"


def _item_lines(item: ItemView, root: Path) -> list[str]:
    """An item, its full command, and a warning when the command looks dangerous."""
    lines = [f"• {item.id} ({_required(item)}): {shown(item.description)}", f"    $ {shown(item.command, exact=True)}"]
    danger = danger_of(item.command, root)
    if danger:
        lines.append(f"    ⚠ dangerous command: {danger}")
    return lines


def _where_commands_run(view: GateView, level: int) -> str:
    if blocks_delivery(level) and view.in_layer:
        return ("Once the gate is started these commands run in the layer, at your repository's own path, against "
                "the agent's change; they never change your files.")
    if blocks_delivery(level):
        return (f"Once the gate is started these commands run in the staging tree {staging_tree(view)}, "
                "a copy of your working tree; they never run in your tree itself.")
    return "At this level nothing is staged: these commands run in the repository itself."


def confirm_request(view: GateView, root: Path | None = None, sandbox: str = "") -> ApprovalRequest:
    """Ask the user to confirm a proposed gate: its risk, its factors, every command it will run, and the level
    the risk formula gives it now (``view.risk.level``), which a yes makes the gate's level.

    Args:
        view: the gate as proposed.
        root: the repository root, to judge which commands are dangerous (``None``: the current directory).
        sandbox: what the sandbox lets the checks do (``sandbox landlock · writes: …``), or the unsandboxed warning.
    """
    where = root if root is not None else Path.cwd()
    level = view.risk.level
    lines = [view.title, "", risk_line(view), *factor_lines(view.factors), level_meaning(level)]
    if view.confirmed and level != view.level:
        lines.append(f"You confirmed it at L{view.level}; a yes makes it L{level}, as its record now gives.")
    lines += ["", f"Checks ({len(view.items)}):"]
    for item in view.items:
        lines += _item_lines(item, where)
    if not view.items:
        lines.append("  (none: the gate can only pass as exempt)")
    lines += ["", _where_commands_run(view, level)]
    if sandbox:
        lines.append(f"Checks run {sandbox}" if sandbox.startswith("in the ") else sandbox)
    return confirm(CONFIRM, f"Confirm gate {view.id} (L{level})?", lines, "confirm the gate",
                   "cancel, the gate stays unconfirmed", subject=view.id)


def start_request(view: GateView) -> ApprovalRequest:
    """Ask the user to start a confirmed gate: where writes go and what blocks delivery."""
    lines = [view.title, "", risk_line(view)]
    if view.blocks_delivery:
        if view.in_layer:
            lines.append("Every write and command of every agent stays in the layer over your repository; your "
                         "working tree is not touched until the gate passes and you apply the change.")
        else:
            lines.append(f"Every write of every agent will be staged in {staging_tree(view)}; your working tree "
                         "is not touched.")
    lines.append(level_meaning(view.level))
    if view.level >= VERIFIER_LEVEL:
        lines.append("At L3 an independent verifier must check at least one required item.")
    lines += ["", f"Checks ({len(view.items)}):"]
    lines += [f"• {item.id} ({_required(item)}): {item.description}" for item in view.items]
    return confirm(START, f"Start gate {view.id} (L{view.level})?", lines, "start the gate",
                   "cancel, nothing is staged", subject=view.id)


def _deliver_or_keep(kind: str, title: str, lines: list[str], subject: str) -> ApprovalRequest:
    """``d`` delivers with a warning; Escape keeps delivery blocked (the safe answer)."""
    return ApprovalRequest(kind, title, tuple(lines),
                           (Choice(YES, "deliver anyway, with a warning", DELIVER_KEY),
                            Choice(NO, "keep delivery blocked", "escape")),
                           NO, subject)


def breaker_request(view: GateView) -> ApprovalRequest:
    """The breaker opened (GATE-8): delivery was refused too often; the user decides."""
    lines = [f"Delivery was refused {view.bounces} time(s) for gate {view.id} (L{view.level}): {view.title}.",
             "The circuit breaker is open: the decision is yours.", ""]
    lines += _blocking_lines(view)
    if view.in_layer:
        lines += ["", "Deliver anyway: the layer's change opens in the Diff pane for you to apply, and the run is "
                  "recorded with a warning.", "Keep blocked: the change stays in the layer until the checks pass."]
    else:
        lines += ["", "Deliver anyway: the staged change goes to your working tree and the run is recorded "
                  "with a warning.", "Keep blocked: the change stays staged until the checks pass."]
    return _deliver_or_keep(BREAKER, f"Gate {view.id} keeps refusing delivery", lines, view.id)


def failsafe_request(view: GateView | None, error: str, gate_id: str = "") -> ApprovalRequest:
    """The guard itself failed (GATE-9): not passed, delivered only on the user's explicit word.

    ``view`` is ``None`` when the gate itself cannot be read (then ``gate_id`` names it).
    """
    gate_id = view.id if view is not None else gate_id
    level = f" (L{view.level})" if view is not None else ""
    lines = [f"The guard of gate {gate_id}{level} failed with: {error}",
             "The gate has NOT passed: nothing could be checked.",
             "Deliver only with your explicit confirmation; the run is recorded with a warning."]
    blocking = _blocking_lines(view) if view is not None else []
    if blocking:
        lines += ["", *blocking]
    return _deliver_or_keep(FAILSAFE, f"The guard of gate {gate_id} failed", lines, gate_id)


BLOCKING = {"pending": "missing", "failed": "failed", "stale": "stale"}
"""Statuses of a required item that block delivery, and the word a refusal uses for each."""
REASONS = {"missing": "no evidence yet", "failed": "its check failed", "stale": "the content changed after its check"}


def blocking_items(view: GateView) -> dict[str, list[ItemView]]:
    """The required items that block delivery, by reason: ``missing``, ``failed``, ``stale``."""
    found: dict[str, list[ItemView]] = {reason: [] for reason in BLOCKING.values()}
    for item in view.items:
        if item.required and item.status in BLOCKING:
            found[BLOCKING[item.status]].append(item)
    return found


def _needs_verifier(view: GateView) -> bool:
    return view.level >= VERIFIER_LEVEL and not any(i.status == "independent" for i in view.items if i.required)


def _exit(item: ItemView) -> str:
    return f", exit {item.exit_code}" if item.status == "failed" and item.exit_code is not None else ""


def _blocking_lines(view: GateView) -> list[str]:
    """One line per item that blocks delivery (missing, failed, stale), and the missing verifier at L3."""
    lines = [f"  {reason:<8} {item.id} — {item.description} ({REASONS[reason]}{_exit(item)})"
             for reason, items in blocking_items(view).items() for item in items]
    if _needs_verifier(view):
        lines.append("  verifier no required item was checked by an independent verifier (L3)")
    return lines


def refusal_text(view: GateView) -> str:
    """The delivery-refused notice: the gate, then each missing, failed and stale item."""
    head = f"Delivery refused: gate {view.id} (L{view.level}) has not passed — {view.title}."
    lines = [head, *(_blocking_lines(view) or [f"  {line}" for line in view.blocked])]
    if view.error:
        lines.append(f"The guard failed: {view.error}")
    if view.started:
        lines.append(f"The change stays in {where_held(view)}.")
    return "\n".join(lines)
