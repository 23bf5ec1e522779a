"""Every way a planner run can give up, and what each means for the user (PLN-1).

Callers must treat any abort as failure; the CLI exits 3 and the UI shows
:func:`abort_message`.
"""

from __future__ import annotations

from typing import Literal

AbortReason = Literal["fabrication", "turn-limit", "no-plan", "deadline"]

ABORT_EXPLANATIONS: dict[str, str] = {
    "fabrication": "the model wrote tool results of its own instead of waiting for real ones, three times in a row",
    "turn-limit": "the model used every turn it had without finishing a plan",
    "no-plan": "the model finished without writing any EDIT block",
    "deadline": "the run passed its hard deadline (planner.hard_deadline) and was stopped; nothing was written",
}
"""Each abort reason, explained."""

ABORT_REASONS: tuple[str, ...] = tuple(ABORT_EXPLANATIONS)
"""Every way a run can give up."""


def abort_message(reason: str) -> str:
    """``Planner aborted (fabrication): the model …. No plan was produced.``"""
    return f"Planner aborted ({reason}): {ABORT_EXPLANATIONS.get(reason, reason)}. No plan was produced."
