"""How each engine event shows on the main screen."""

from __future__ import annotations

from typing import Any

from ljtui.core.events import (
    ConfigChanged, ConversationCleared, Event, ModelCallRetried, ModelCallStarted, Notice, TokenDelta, ToolCallFinished,
    ToolCallStarted, TurnFailed, TurnFinished, TurnStarted, UsageRecorded,
)
from ljtui.core.events import AGENT_PLANNER
from ljtui.core.planner.events import PlannerFinished, PlannerPlanChecked, PlannerReplyRejected, PlannerTurnStarted
from ljtui.core.review import events as R
from ljtui.tui.result_view import apply_lines, undo_lines
from ljtui.tui.screens.main import MainScreen

ARG_PREVIEW_CHARS = 60
"""Longest argument text shown on a folded tool-call line."""
MAX_ERRORS_SHOWN = 5
FABRICATION_SHOWN = ("the model wrote a '## Tool result' of its own, so the file contents in it were invented; "
                     "the whole reply was discarded and the model told why.")


def describe_call(name: str, arguments: dict[str, Any]) -> str:
    """``read_file src/app.py 10–20``: the tool and its main arguments."""
    parts = [name]
    for value in arguments.values():
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            text = str(value).replace("\n", " ")
            if len(text) > ARG_PREVIEW_CHARS:
                text = text[: ARG_PREVIEW_CHARS - 1] + "…"
            parts.append(text)
    return " ".join(parts)


def describe_planner_call(name: str, arguments: dict[str, Any]) -> str:
    """``read_file src/upload.py 80–120``, ``grep 'def send' src``, ``list_dir .``."""
    start, end = arguments.get("start_line"), arguments.get("end_line")
    rest = {k: v for k, v in arguments.items() if k not in ("start_line", "end_line")}
    if name == "grep" and isinstance(rest.get("pattern"), str):
        rest["pattern"] = f"'{rest['pattern']}'"
    line = describe_call(name, rest)
    if start is not None or end is not None:
        line += f" {start if start is not None else 1}–{end if end is not None else 'end'}"
    return line


async def show_event(screen: MainScreen, event: Event, calls: dict[str, str]) -> None:
    """Render one engine event on ``screen``.

    Args:
        calls: the described line of each running tool call, by call id.
    """
    conv = screen.conversation
    match event:
        case TurnStarted():
            screen.status.busy = True
        case ModelCallStarted():
            conv.show_thinking()
        case ModelCallRetried(attempt=retry, max_retries=most, message=message, delay=delay):
            await conv.discard_reply()
            conv.add_notice(f"{message} — retrying ({retry}/{most}) in {delay:.1f}s", "warning")
        case TokenDelta(text=text):
            await conv.append_reply(text)
        case ToolCallStarted(call_id=cid, name=name, input=args, agent=agent):
            calls[cid] = describe_planner_call(name, args) if agent == AGENT_PLANNER else describe_call(name, args)
            if agent == AGENT_PLANNER:
                conv.hide_thinking()
            await conv.tool_started(cid, calls[cid])
        case ToolCallFinished(call_id=cid, name=name, ok=ok, summary=summary):
            line = calls.pop(cid, name)
            conv.tool_finished(cid, line if ok else f"{line} — {summary}", ok)
        case UsageRecorded(session=usage, session_cost_usd=cost):
            screen.status.usage = usage
            screen.status.cost = cost
        case TurnFinished():
            await conv.end_reply()
            screen.status.busy = False
        case TurnFailed(message=message):
            await conv.end_reply()
            conv.add_notice(message, "error")
            screen.status.busy = False
        case Notice(message=message, level=level):
            conv.add_notice(message, level)
        case ConfigChanged(provider=provider):
            screen.status.provider = provider
        case ConversationCleared():
            await conv.clear()
        case _:
            if not _show_review_event(screen, event):
                await _show_planner_event(screen, event)


REVIEW_KEYS = "In the Diff pane (F4): space accepts/rejects, a applies, e exports."


def _show_review_event(screen: MainScreen, event: Event) -> bool:
    """Render a review event; False when ``event`` is not one."""
    conv = screen.conversation
    match event:
        case R.PlanOpened(origin=origin, blocks=blocks, seq=seq, version=version):
            screen.diff_pane.show(blocks, seq, version)
            screen.set_class(True, "-reviewing")
            what = f"{len(blocks)} block(s) in {event.files} file(s)"
            if origin == "planner":
                conv.add_notice(f"The plan has {what}. {REVIEW_KEYS}")
            else:
                conv.add_notice(f"Opened {origin}: {what}. {REVIEW_KEYS}")
            if screen.focus_diff_when_opened:
                screen.focus_diff_when_opened = False
                screen.action_focus_pane("diff")
        case R.ReviewChanged(blocks=blocks, seq=seq, notes=notes, version=version):
            if screen.diff_pane.show(blocks, seq, version):
                screen.set_class(bool(blocks), "-reviewing")
            for note in notes:
                conv.add_notice(note, "warning")
        case R.PlanOpenFailed(message=message):
            conv.add_notice(message, "error")
        case R.ApplyRefused(message=message):
            conv.hide_thinking()
            conv.add_notice(f"Apply refused — {message}", "error")
        case R.ApplyProgressed(line=line):
            conv.show_thinking(f"applying: {line}")
        case R.ApplyFinished(result=result, blocks=blocks):
            conv.hide_thinking()
            for message, level in apply_lines(result, blocks):
                conv.add_notice(message, level)
        case R.UndoFinished(files=files, error=error):
            for message, level in undo_lines(files, error):
                conv.add_notice(message, level)
        case R.ExportWritten(path=path, count=count):
            conv.add_notice(f"Exported {count} accepted block(s) to {path}.")
        case R.ExportFailed(path=path, message=message):
            conv.add_notice(f"Export to {path} failed: {message}" if path else f"Export failed: {message}", "error")
        case _:
            return False
    return True


async def _show_planner_event(screen: MainScreen, event: Event) -> None:
    conv = screen.conversation
    match event:
        case PlannerTurnStarted(turn=turn, max_turns=most):
            conv.show_thinking(f"planning (turn {turn}/{most})…")
        case PlannerReplyRejected(reason=reason, message=message):
            conv.hide_thinking()
            shown = FABRICATION_SHOWN if reason == "fabrication" else message
            conv.add_notice(f"Reply rejected ({reason}): {shown}", "warning")
        case PlannerPlanChecked(ok=False, errors=errors, repair_round=n):
            conv.hide_thinking()
            shown = "; ".join(errors[:MAX_ERRORS_SHOWN])
            conv.add_notice(f"The plan does not apply to the current files ({shown}); "
                            f"asking the model to repair it (round {n + 1}).", "warning")
        case PlannerFinished(ok=ok, message=message):
            conv.hide_thinking()
            screen.status.busy = False
            conv.add_notice(message, "info" if ok else "error")
