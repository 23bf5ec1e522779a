"""How each engine event shows on the main screen."""

from __future__ import annotations

from typing import Any

from ljtui.core.events import (
    ConfigChanged, ContextCompressed, ContextWindowKnown, ConversationCleared, Event, HookFinished, HookStarted,
    ModelCallRetried, ModelCallStarted, Notice, SandboxChecked, SessionResumed, SkillsChanged, TokenDelta,
    ToolCallFinished, ToolCallStarted, ToolOutput, TurnFailed, TurnFinished, TurnStarted, UsageRecorded,
)
from ljtui.core.events import AGENT_PLANNER, GateChanged, TranscriptEntry
from ljtui.core.gates.events import GateChecksProgressed
from ljtui.core.planner.events import (
    PlannerDeadlinePassed, PlannerFinished, PlannerPlanChecked, PlannerReplyRejected, PlannerTurnStarted,
)
from ljtui.core.review import events as R
from ljtui.core.rewind_events import RewindFinished, RewindListed
from ljtui.core.tasks import events as T
from ljtui.tui.result_view import apply_lines, check_details, undo_lines
from ljtui.tui.screens.main import MainScreen
from ljtui.tui.widgets.status_bar import format_count

ARG_PREVIEW_CHARS = 60
"""Longest argument text shown on a folded tool-call line."""
HOOK_REASON_CHARS = 300
"""Most characters of a blocking hook's reason shown in its notice."""
HOOK_BLOCKED = "blocked"
"""The outcome of a hook that blocked (:class:`~ljtui.core.events.HookFinished`)."""
MAX_ERRORS_SHOWN = 5
FABRICATION_SHOWN = ("the model wrote a '## Tool result' of its own, so the file contents in it were invented; "
                     "the whole reply was discarded and the model told why.")


SHOWN_ARGUMENTS = ("path", "pattern", "glob", "command", "url", "query", "symbol", "name", "text")
"""Arguments named on a tool call's line when a call has any of them (file contents and
replacement text are in the unfolded output and the permission dialog, not the line)."""


def _describe_arguments(name: str, arguments: dict[str, Any]) -> str:
    """``edit_file app.py``: the tool and its main arguments (not contents)."""
    parts = [name]
    main = {k: v for k, v in arguments.items() if k in SHOWN_ARGUMENTS}
    for value in (main or arguments).values():
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            text = str(value).replace("\n", " ")
            if len(text) > ARG_PREVIEW_CHARS:
                text = text[: ARG_PREVIEW_CHARS - 1] + "…"
            parts.append(text)
    return " ".join(parts)


def describe_call(name: str, arguments: dict[str, Any]) -> str:
    """A tool call on one line: ``read_file src/upload.py 80–120``, ``grep 'def send' src``, ``list_dir .``."""
    start, end = arguments.get("start_line"), arguments.get("end_line")
    rest = {k: v for k, v in arguments.items() if k not in ("start_line", "end_line")}
    if name in ("grep", "grep_files") and isinstance(rest.get("pattern"), str):
        rest["pattern"] = f"'{rest['pattern']}'"
    line = _describe_arguments(name, rest)
    if start is not None or end is not None:
        line += f" {start if start is not None else 1}–{end if end is not None else 'end'}"
    return line


def reading_label(prompt_tokens: int) -> str:
    """The waiting line of a model call: what it reads first, when its size is known (a local server on a CPU
    spends most of the wait there)."""
    if not prompt_tokens:
        return "thinking…"
    return f"reading the prompt (≈{format_count(prompt_tokens)} tokens) and answering…"


async def show_event(screen: MainScreen, event: Event, calls: dict[str, str]) -> None:
    """Render one engine event on ``screen``.

    Args:
        calls: the described line of each running tool call, by call id.
    """
    conv = screen.conversation
    match event:
        case TurnStarted():
            screen.status.busy = True
        case ModelCallStarted(prompt_tokens=size):
            conv.show_thinking(default=reading_label(size))
        case ModelCallRetried(attempt=retry, max_retries=most, message=message, delay=delay):
            await conv.discard_reply()
            conv.add_notice(f"{message} — retrying ({retry}/{most}) in {delay:.1f}s", "warning")
        case TokenDelta(text=text):
            await conv.append_reply(text)
        case ToolCallStarted(call_id=cid, name=name, input=args, agent=agent):
            calls[cid] = describe_call(name, args)
            if agent == AGENT_PLANNER:
                conv.hide_thinking()
            await conv.tool_started(cid, calls[cid])
        case ToolOutput(call_id=cid, text=text):
            conv.tool_output(cid, text)
        case ToolCallFinished(call_id=cid, name=name, ok=ok, summary=summary, output=output):
            line = calls.pop(cid, name)
            conv.tool_finished(cid, line if ok else f"{line} — {summary}", ok, output)
        case UsageRecorded(call=call, session=usage, session_cost_usd=cost):
            screen.status.usage = usage
            screen.status.cost = cost
            screen.status.context_used = (call.input_tokens + call.cache_read_tokens + call.cache_write_tokens
                                          + call.output_tokens)
        case ContextWindowKnown(tokens=tokens):
            screen.status.window = tokens
        case TurnFinished():
            await conv.end_reply()
            screen.status.busy = False
        case TurnFailed(message=message):
            await conv.end_reply()
            conv.add_notice(message, "error")
            screen.status.busy = False
        case Notice(message=message, level=level):
            conv.add_notice(message, level)
        case HookFinished(event=on, name=name, outcome=outcome, reason=reason):
            if outcome == HOOK_BLOCKED and on != "UserPromptSubmit":  # that one's notice says why the message
                # was kept back; an error or a timeout arrives as a Notice of its own
                conv.add_notice(f"Hook `{name}` blocked {on}: {reason[:HOOK_REASON_CHARS]}", "warning")
        case HookStarted():
            pass
        case ConfigChanged(provider=provider):
            screen.status.provider = provider
        case SandboxChecked(confined=confined, why=why, layer=layer):
            screen.status.unsandboxed = not confined
            screen.status.layer_mode = layer
            if not confined:
                conv.add_notice(f"Unsandboxed: {why}. Every command asks, and no grant or allow-list covers one "
                                "(`ljtui doctor` says more).", "warning")
        case ConversationCleared():
            await conv.clear()
        case ContextCompressed(tokens_before=before, tokens_after=after, kept_messages=kept):
            conv.add_notice(f"Context compressed: about {before:,} → {after:,} tokens. Older messages were "
                            f"summarised; the last {kept} are kept word for word.")
        case SessionResumed():
            await _show_resumed(screen, event)
        case GateChanged(gate=gate):
            _show_gate(screen, gate)
        case GateChecksProgressed(done=done, total=total, started=started, ended=ended):
            _show_progress(screen, CHECKS, done, total, started, ended)
        case SkillsChanged(names=names):
            screen.app.skill_names = names  # type: ignore[attr-defined]  # what `/NAME` parses against
        case RewindListed() | RewindFinished():
            from ljtui.tui.screens.rewind import show_rewind_event

            show_rewind_event(screen, event)
        case _:
            if not _show_review_event(screen, event) and not _show_task_event(screen, event):
                await _show_planner_event(screen, event)


def _show_gate(screen: MainScreen, gate: object) -> None:
    """The active gate (or none) in the Gates pane and the status bar."""
    from ljtui.tui.widgets.gates_pane import GatesPane
    from ljtui.tui.widgets.gates_render import status_segment

    screen.query_one(GatesPane).show(gate)
    screen.status.gate = status_segment(gate)


APPLY, CHECKS = "apply", "checks"
"""The labels of long work's progress bar in the status bar."""


def _show_progress(screen: MainScreen, label: str, done: int, total: int, started: float, ended: bool) -> None:
    """Long work's bar in the status bar while it runs (counted steps only); gone once it ended."""
    from ljtui.tui.widgets.status_bar import Progress

    status = screen.status
    if ended:
        status.end_progress(label)
    elif total > 0:
        status.now = screen.app.clock.monotonic  # type: ignore[attr-defined]  # the clock the engine stamps with
        status.progress = Progress(label, done, total, started)


RESUMED_ENTRIES_SHOWN = 100
"""Newest entries of a resumed conversation drawn in the pane (the model gets all of it)."""


def _resumed_entry(entry: TranscriptEntry) -> tuple[str, str]:
    """A resumed entry as the Conversation draws it: a tool call with ✓ or ✗ when its end is known, a notice by
    its level."""
    from ljtui.tui.widgets.conversation import FAILED_CALL

    if entry.role == "notice":
        return entry.level, entry.text
    if entry.role != "tool":
        return entry.role, entry.text
    line = describe_call(entry.text, entry.arguments)
    if entry.ok is None:
        return "tool", line
    return ("tool", f"{line} ✓") if entry.ok else (FAILED_CALL, f"{line} ✗")


async def _show_resumed(screen: MainScreen, event: SessionResumed) -> None:
    shown = event.transcript[-RESUMED_ENTRIES_SHOWN:]
    entries = [_resumed_entry(e) for e in shown]
    hidden = len(event.transcript) - len(shown)
    notice = f"Resumed session {event.session_id}: {event.messages} messages"
    notice += f" ({hidden} earlier lines not shown)." if hidden else "."
    if event.summary:
        notice += " Older messages were summarised; the summary goes on with it."
    screen.status.usage = event.usage  # before the transcript is drawn: its notice says the session is back
    await screen.conversation.show_transcript(entries, notice)


REVIEW_KEYS = "In the Diff pane (F4): space accepts/rejects, r rejects saying why, E edits a block, a applies."


def _show_review_event(screen: MainScreen, event: Event) -> bool:
    """Render a review event; False when ``event`` is not one."""
    conv = screen.conversation
    if isinstance(event, R.PlanOpened):
        screen.content_changed("diff")
    match event:
        case R.PlanOpened(origin=origin, blocks=blocks, seq=seq, version=version):
            screen.diff_pane.show(blocks, seq, version)
            what = f"{len(blocks)} block(s) in {event.files} file(s)"
            if origin == "planner":
                conv.add_notice(f"The plan has {what}. {REVIEW_KEYS}")
            else:
                conv.add_notice(f"Opened {origin}: {what}. {REVIEW_KEYS}")
            if screen.focus_diff_when_opened:
                screen.focus_diff_when_opened = False
                screen.action_focus_pane("diff")
        case R.ReviewChanged(blocks=blocks, seq=seq, notes=notes, version=version):
            screen.diff_pane.show(blocks, seq, version)
            for note in notes:
                conv.add_notice(note, "warning")
        case R.PlanOpenFailed(message=message):
            conv.add_notice(message, "error")
        case R.ApplyRefused(message=message):
            conv.hide_thinking()
            screen.status.end_progress(APPLY)
            conv.add_notice(f"Apply refused — {message}", "error")
        case R.ApplyProgressed(line=line, done=done, total=total, started=started, ended=ended):
            if line:
                conv.show_thinking(f"applying: {line}")
            _show_progress(screen, APPLY, done, total, started, ended)
        case R.ApplyFinished(result=result, blocks=blocks):
            conv.hide_thinking()
            screen.status.end_progress(APPLY)
            for message, level in apply_lines(result, blocks):
                conv.add_notice(message, level)
            if result.get("checks"):
                conv.add_details("every file checked", check_details(result["checks"]))
        case R.UndoFinished(files=files, error=error, removed=removed, remaining=remaining):
            for message, level in undo_lines(files, error, removed, remaining):
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
        case PlannerDeadlinePassed(message=message):
            conv.add_notice(message, "warning")
        case PlannerFinished(ok=ok, message=message):
            conv.hide_thinking()
            screen.status.busy = False
            conv.add_notice(message, "info" if ok else "error")


TASK_EVENTS = (T.TaskPlanProposed, T.TaskPlanApproved, T.TaskPlanRejected, T.TaskPlanFallback, T.TaskStarted,
               T.TaskFinished, T.TaskPlanUpdated, T.ToolHintStripped, T.ReplannerDecided, T.RunFinished)
RUN_ENDINGS = {
    "done": "every task is done",
    "failed": "it failed",
    "stopped": "it was stopped",
    "cancelled": "it was cancelled",
}
"""How a run's ending reads in its notice, by status."""


def _show_task_event(screen: MainScreen, event: Event) -> bool:
    """Render a task-plan event (Plan pane, status bar, a notice); False when ``event`` is not one."""
    if not isinstance(event, TASK_EVENTS):
        return False
    from ljtui.tui.widgets.plan_pane import PlanPane

    pane = screen.query_one(PlanPane)
    pane.show_event(event)
    conv = screen.conversation
    conv.hide_thinking()  # the decomposition's or the replanner's call has answered
    match event:
        case T.TaskPlanFallback(reason=reason):
            conv.add_notice(f"The request could not be split into tasks ({reason}); the plan is one task: "
                            "the whole request.", "warning")
        case T.ToolHintStripped(task_id=task_id, hint=hint):
            conv.add_notice(f"Task {task_id}: tool hint '{hint}' names no known tool or skill; removed.", "warning")
        case T.ReplannerDecided(task_id=task_id, decision=decision, reason=reason):
            conv.add_notice(f"Task {task_id} failed; the replanner chose {decision}: {reason}", "warning")
        case T.RunFinished(status=status, replans=replans, failed=failed):
            ending = RUN_ENDINGS.get(status, status)
            done, total = pane.model.progress
            conv.add_notice(f"Task plan finished: {ending} ({done}/{total} tasks finished, {failed} failed, "
                            f"{replans} replan(s)).", "info" if status == "done" else "error")
    running = not isinstance(event, (T.RunFinished, T.TaskPlanRejected, T.TaskPlanProposed))
    screen.status.tasks = pane.progress if running else None
    return True
