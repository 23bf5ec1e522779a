"""Words for the Conversation pane: the first notices, applies, undos, planner aborts, saved sessions."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ljtui.tui.widgets.conversation import Conversation

Line = tuple[str, str]
"""A message and its level (info, warning, error)."""

MAX_CANDIDATES_SHOWN = 3
NO_MODEL_WORKS = ("Without a model you can still try everything on a sample project with `ljtui --demo`, review "
                  "and apply a plan file with `ljtui review PLAN.md` or /open PLAN.md here, and undo with /undo.")


def startup_notices(folder: str, warnings: list[str], provider_problem: str | None, reviewing: bool) -> list[Line]:
    """What the Conversation says before the first message: where ljtui is, config warnings, a missing model."""
    notices: list[Line] = [(f"ljtui in {folder}. Type a request and press Enter; /help lists commands, F1 shows keys.",
                            "info")]
    notices += [(w, "warning") for w in warnings]
    if provider_problem and not reviewing:
        notices.append((provider_problem[0].upper() + provider_problem[1:] + ".", "warning"))
        notices.append((NO_MODEL_WORKS, "info"))
    return notices


def show_sessions(conv: Conversation, listing: Any, current: str) -> None:
    """A :class:`~ljtui.core.agent.session_list.SessionListing` in the Conversation (``current``: this session)."""
    for warning in listing.warnings:
        conv.add_notice(warning, "warning")
    title, lines = session_lines(listing, current)
    if lines:
        conv.add_details(title, lines, collapsed=False)
    else:
        conv.add_notice(title, "error" if listing.problem else "info")


def apply_lines(result: dict[str, Any], blocks: int) -> list[Line]:
    """What an apply did, from its result contract."""
    lines: list[Line] = []
    if result.get("status") == "done":
        files = ", ".join(result.get("files", []))
        lines.append((f"Applied {blocks} block(s); wrote {files}. F4 then u (or /undo) reverts it.",
                      "info"))
    else:
        lines.append((f"Apply {result.get('status')}: {result.get('message') or 'some entries failed'}", "error"))
    for failed in result.get("failed", []):
        text = f"  {failed.get('entry_id')}: {failed.get('reason')}"
        for c in failed.get("candidates", [])[:MAX_CANDIDATES_SHOWN]:
            text += f"\n    nearest: {c.get('file')}:{c.get('line')} ({c.get('score', 0):.2f}) {c.get('excerpt', '')}"
        lines.append((text, "error"))
    checks = result.get("checks", [])
    if checks:
        lines.append(checks_summary(checks))
    for check in checks:
        if not check.get("ok"):
            lines.append((f"  syntax ✗ {check.get('file')} ({check.get('checker')}): {check.get('message')}", "error"))
    lines += [(f"  note: {note}", "warning") for note in result.get("notes", []) if not note.startswith("syntax check")]
    return lines


def checks_summary(checks: list[dict[str, Any]]) -> Line:
    """``syntax checks: 11 passed, 1 failed`` — one line however many files were written."""
    failed = sum(1 for c in checks if not c.get("ok"))
    passed = len(checks) - failed
    text = f"  syntax checks: {passed} passed" + (f", {failed} failed" if failed else "")
    return text, "error" if failed else "info"


def check_details(checks: list[dict[str, Any]]) -> list[str]:
    """Every check, one line each, for the expandable list under the summary."""
    return [f"{'✓' if c.get('ok') else '✗'} {c.get('file')} ({c.get('checker')})" for c in checks]


def undo_lines(files: tuple[str, ...], error: str | None, removed: tuple[str, ...] = (),
               remaining: int | None = None) -> list[Line]:
    """What an undo did, and how many steps undo can still go back."""
    if error is not None:
        return [(f"Undo refused — {error}", "error")]
    from ljtui.core.review.events import remaining_line

    restored = [f for f in files if f not in removed]
    said = [f"restored {', '.join(restored)}"] if restored else []
    said += [f"deleted {', '.join(removed)} (created by the apply)"] if removed else []
    after = f" {remaining_line(remaining).capitalize()}." if remaining is not None else ""
    return [(f"Undone: {'; '.join(said) or 'nothing to write'}.{after}", "info")]



SESSIONS_LISTED = 20
"""Newest sessions listed by ``/resume``."""


def session_lines(listing: Any, current: str) -> tuple[str, list[str]]:
    """The title and lines that list saved sessions for ``/resume``; no lines when there are none."""
    if listing.problem:
        return f"Cannot list the sessions: {listing.problem}", []
    others = [s for s in listing.sessions if s.id != current]
    shown = others[:SESSIONS_LISTED]
    if not shown:
        return "There is no earlier session to resume here.", []
    lines = []
    for info in shown:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.started))
        line = f"{info.id}  {when}  {info.messages:>4} msgs  {info.first_message}"
        lines.append(line if info.resumable else f"{line}  ({info.note})")
    more = len(others) - len(shown)
    title = f"{len(shown)} saved session(s), newest first: /resume ID continues one"
    return (title + f" ({more} older not listed)" if more > 0 else title), lines
