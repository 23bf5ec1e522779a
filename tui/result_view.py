"""Words for the Conversation pane about applies, undos and planner aborts."""

from __future__ import annotations

from typing import Any

Line = tuple[str, str]
"""A message and its level (info, warning, error)."""

MAX_CANDIDATES_SHOWN = 3


def apply_lines(result: dict[str, Any], blocks: int) -> list[Line]:
    """What an apply did, from its result contract."""
    lines: list[Line] = []
    if result.get("status") == "done":
        files = ", ".join(result.get("files", []))
        lines.append((f"Applied {blocks} block(s); wrote {files}. Press u in the Diff pane (or /undo) to revert.",
                      "info"))
    else:
        lines.append((f"Apply {result.get('status')}: {result.get('message') or 'some entries failed'}", "error"))
    for failed in result.get("failed", []):
        text = f"  {failed.get('entry_id')}: {failed.get('reason')}"
        for c in failed.get("candidates", [])[:MAX_CANDIDATES_SHOWN]:
            text += f"\n    nearest: {c.get('file')}:{c.get('line')} ({c.get('score', 0):.2f}) {c.get('excerpt', '')}"
        lines.append((text, "error"))
    for check in result.get("checks", []):
        ok = check.get("ok")
        detail = "" if ok else f": {check.get('message')}"
        lines.append((f"  syntax {'✓' if ok else '✗'} {check.get('file')} ({check.get('checker')}){detail}",
                      "info" if ok else "error"))
    lines += [(f"  note: {note}", "warning") for note in result.get("notes", [])]
    return lines


def undo_lines(files: tuple[str, ...], error: str | None) -> list[Line]:
    """What an undo did."""
    if error is not None:
        return [(f"Undo refused — {error}", "error")]
    return [(f"Undone: restored {', '.join(files)}.", "info")]

