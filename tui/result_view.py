"""Words for the Conversation pane about applies, undos and plans."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ljtui.core.edits.apply import ApplyReport
    from ljtui.core.edits.recovery import UndoOutcome
    from ljtui.core.review.session import ApplyRefused

Line = tuple[str, str]
"""A message and its level (info, warning, error)."""

MAX_CANDIDATES_SHOWN = 3
ABORT_REASONS = {
    "fabrication": "the model wrote tool results of its own instead of waiting for real ones, three times in a row",
    "turn-limit": "the model used every turn it had without finishing a plan",
    "no-plan": "the model finished without writing any EDIT block",
}


def apply_lines(outcome: ApplyReport | ApplyRefused) -> list[Line]:
    """What an apply did, following the result contract."""
    from ljtui.core.review.session import ApplyRefused

    if isinstance(outcome, ApplyRefused):
        return [(f"Apply refused — {outcome.message}", "error")]
    result = outcome.result
    lines: list[Line] = []
    if result.status == "done":
        files = ", ".join(result.files)
        lines.append((f"Applied {len(outcome.preview.plan.blocks)} block(s); wrote {files}. "
                      "Press u in the Diff pane (or /undo) to revert.", "info"))
    else:
        lines.append((f"Apply {result.status}: {result.message or 'some entries failed'}", "error"))
    for failed in result.failed:
        text = f"  {failed.entry_id}: {failed.reason}"
        for c in failed.candidates[:MAX_CANDIDATES_SHOWN]:
            text += f"\n    nearest: {c.get('file')}:{c.get('line')} ({c.get('score', 0):.2f}) {c.get('excerpt', '')}"
        lines.append((text, "error"))
    for check in outcome.checks:
        mark = "✓" if check.ok else "✗"
        detail = "" if check.ok else f": {check.message}"
        lines.append((f"  syntax {mark} {check.file} ({check.checker}){detail}", "info" if check.ok else "error"))
    lines += [(f"  note: {note}", "warning") for note in result.notes]
    return lines


def undo_lines(outcome: UndoOutcome) -> list[Line]:
    """What an undo did."""
    if outcome.error is not None:
        return [(f"Undo refused — {outcome.error.message}", "error")]
    return [(f"Undone: restored {', '.join(outcome.files)}.", "info")]


def abort_line(aborted: str) -> str:
    """Why the planner stopped, in a sentence."""
    return f"Planner aborted ({aborted}): {ABORT_REASONS.get(aborted, aborted)}. No plan was produced."
