"""``ljtui run``: one request through the engine, no UI.

The reply streams to stdout as it arrives; tool calls, retries, token use
and errors go to stderr. With ``--json`` stdout carries one JSON object per
engine event instead (:func:`~ljtui.core.events.event_to_dict`: the same
events the TUI renders), and stderr only the one-line error, if any.

A plain request is routed like a message typed in the app: one short
model call sends it to the agent or makes it a task plan (then it behaves as
``--plan``: approved by ``--yes``, printed and stopped without it).
``--chat`` sends it to the agent without that call; ``--plan`` and
``--skill`` make it a task plan without it.

``--resume ID`` (or ``--continue``, the newest) sends the request as the
next message of a saved session (``ljtui sessions`` lists them).

When a delivery gate's run is open at the end, its staged change is
delivered if the gate passed; otherwise the delivery is refused
(``delivery_blocked``) and ``ljtui gates deliver ID`` tries again later.

A turn that made tool calls ends with a line (after the token line) that
counts them (:class:`ToolTally`): ``Done: 3 tool calls succeeded``, how many
failed and how (``Done: 1 of 3 tool calls failed (bash: exit 1 · 64 ms)``),
how many the user or the policy denied (``Done: 1 of 2 tool calls denied
(edit_file)``). When every call that was not denied failed, the turn did not
do what it set out to, whatever the model's last words say: the line is
``ljtui run: finished, but all 3 tool calls failed (…)`` and the run exits
with 1. A denial is the user's answer, not the tool failing: it is counted
apart and never makes the exit status 1. With ``--json`` only that failure line is
printed (on stderr); the events carry every call's ``ok``.

Exit status: 0 the model finished its turn; 1 the turn failed (the model
call, after retries, or an internal error), every tool call it made that
was not denied failed, the session could not be resumed, or a gated
delivery was refused; 2 a usage or configuration error, or a folder ljtui does not work in.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from pathlib import Path
from typing import TextIO

from ljtui.cli.approver import CliApprover
from ljtui.cli.run_endings import deliver_open_gate, take_layer
from ljtui.cli.main import add_model_flags, add_resume_flags, model_overrides, refused_root
from ljtui.cli.output import JsonLinesSink, VisibleStream, echo, json_text, silence_stdout
from ljtui.core.config import Config, load_config
from ljtui.core.edits.paths import find_repo_root
from ljtui.core.agent.permissions import DENY, PermissionPolicy
from ljtui.core.engine import Engine
from ljtui.core.events import (
    ContextCompressed, Notice, PermissionDecided, SandboxChecked, SessionResumed, ToolOutput,
    Event, ModelCallRetried, ToolCallFinished, ToolCallStarted, TurnFailed, Usage,
    UsageRecorded,
)
from ljtui.core.providers import provider_problem
from ljtui.core.secrets import known_secrets, redact
from ljtui.core.user_commands import typed_message

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

PROG = "ljtui run"
UNSANDBOXED_HINT = ("pass --allow write to let the agent write; no sandbox confines commands here (`ljtui doctor` says why), so --allow bash does not cover "
                    "them; --yes runs each with your full rights")
"""What a denied question says when commands would run unsandboxed."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``run`` sub-command."""
    parser = subparsers.add_parser(
        "run", help="send one request to the model without the UI",
        description="Send one request through the engine (tools, retries, token accounting) and print "
                    "the reply, or every engine event as JSON lines with --json.")
    parser.add_argument("request", help="what to ask, in plain language")
    parser.add_argument("--json", action="store_true", help="print one JSON event per line on stdout")
    parser.add_argument("--allow", metavar="WHAT", default="",
                        help="let the agent act without asking: write (write_file, edit_file, create_directory), "
                             "bash (in the sandbox, network off), memory (save_memory), mcp (every MCP server's tools; "
                             "mcp__SERVER__TOOL: one), or several (write,bash); "
                             "a dangerous command "
                             "still needs --yes, and without a sandbox (`ljtui doctor`) every command does")
    parser.add_argument("--yes", action="store_true",
                        help="answer every question yes (each dangerous command is allowed once; "
                             "with --plan, the task plan is approved)")
    parser.add_argument("--plan", action="store_true",
                        help="treat the request as a goal: split it into a task plan, ask for approval, "
                             "then run the tasks (without --yes and no terminal, it stops after printing "
                             "the plan)")
    parser.add_argument("--skill", metavar="NAME", default=None,
                        help="with --plan implied: the skill NAME's steps are the task plan (no planning call)")
    parser.add_argument("--chat", action="store_true",
                        help="send the request to the agent as it is (no routing call; never a task plan)")
    add_model_flags(parser)
    add_resume_flags(parser)
    parser.set_defaults(func=run)


class TextSink:
    """Streams the reply to ``out`` and reports the rest on ``err``.

    The reply, a command's output and every note are text from outside (a model, a command, a repository):
    they are written with their controls visible (:mod:`ljtui.cli.output`), so none of it can move the
    cursor, rewrite a line already printed, set the window title or the clipboard.
    """

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = out
        self.err = err
        self.usage = Usage()
        self.cost: float | None = None
        self._open_line = False
        """The reply's last line on ``out`` has no newline yet."""
        self._reply = VisibleStream()
        self._output = VisibleStream()

    def emit(self, event: Event) -> None:
        if event.kind == "token_delta":
            self._write_reply(self._reply.piece(event.text))  # type: ignore[attr-defined]
            return
        if not isinstance(event, UsageRecorded):
            self._write_reply(self._reply.rest())
        if self._open_line and not isinstance(event, UsageRecorded):
            self.out.write("\n")  # the reply's words and what happens next are on lines of their own
            self.out.flush()
            self._open_line = False
        if not isinstance(event, ToolOutput):
            self._write_output(self._output.rest())
        if isinstance(event, ToolCallStarted):
            self._note(f"tool {event.name} {json_text(event.input)}")
        elif isinstance(event, ToolCallFinished):
            self._note(f"tool {event.name}: {'ok' if event.ok else 'failed'}: {event.summary}")
        elif isinstance(event, ToolOutput):
            self._write_output(self._output.piece(event.text))
        elif isinstance(event, PermissionDecided):
            self._note(f"{event.tool}: {event.decision} ({event.scope})")
        elif isinstance(event, SandboxChecked) and not event.confined:
            self._note(f"unsandboxed: {event.why}; every command asks, --allow bash does not cover one")
        elif isinstance(event, ContextCompressed):
            self._note(f"context compressed: {event.tokens_before} -> {event.tokens_after} tokens")
        elif isinstance(event, Notice):
            self._note(event.message)
        elif isinstance(event, SessionResumed):
            self._note(f"resumed session {event.session_id}: {event.messages} messages")
        elif isinstance(event, ModelCallRetried):
            self._note(f"{event.message}; retry {event.attempt}/{event.max_retries} in {event.delay:g}s")
        elif isinstance(event, UsageRecorded):
            self.usage, self.cost = event.session, event.session_cost_usd
        else:
            from ljtui.cli.cmd_gates import gate_event_line

            line = task_event_line(event) or gate_event_line(event)
            if line:
                self._note(line)

    def _write_reply(self, text: str) -> None:
        if text:
            self.out.write(text)
            self.out.flush()
            self._open_line = not text.endswith("\n")

    def _write_output(self, text: str) -> None:
        if text:
            self.err.write(text)
            self.err.flush()

    def _note(self, line: str) -> None:
        echo(f"[{line}]", self.err, flush=True)

    def summary(self) -> str:
        """Token use (and cost when priced) of the run, on one line."""
        u = self.usage
        line = (f"tokens: {u.input_tokens} in, {u.output_tokens} out, "
                f"{u.cache_read_tokens} cache read, {u.cache_write_tokens} cache write")
        return line + (f", cost ${self.cost:.4f}" if self.cost is not None else "")


SHOWN_FAILURES = 5
"""Most failed calls (alike ones counted as one) the final line names; the rest are counted."""
SHOWN_SUMMARY_CHARS = 120
"""Longest a failed call's ``tool: summary`` is on the final line."""


class ToolTally:
    """The tool calls of a run as its final line counts them: how many failed, and how many were denied.

    A call the user or the policy denied is the user's answer, not a failure; every other call that ended in
    an error (the tool failed, or the engine refused the model's arguments) is a failure.
    """

    def __init__(self) -> None:
        self.calls = 0
        self.failed: list[tuple[str, str]] = []
        """``(tool, summary)`` of each call that was not denied and failed, in order."""
        self.denied: list[str] = []
        """The tool of each call the user or the policy denied, in order."""
        self._denied_ids: set[str] = set()

    def emit(self, event: Event) -> None:
        if isinstance(event, PermissionDecided) and event.decision == DENY:
            self._denied_ids.add(event.call_id)
        elif isinstance(event, ToolCallFinished):
            self.calls += 1
            if event.call_id in self._denied_ids:
                self.denied.append(event.name)
            elif not event.ok:
                self.failed.append((event.name, " ".join(event.summary.split())))

    @property
    def all_failed(self) -> bool:
        """Some calls were not denied, and every one of them failed."""
        ran = self.calls - len(self.denied)
        return ran > 0 and len(self.failed) == ran

    def line(self) -> str:
        """The run's final line about its tool calls (empty when it made none); see :attr:`all_failed`."""
        if not self.calls:
            return ""
        tools = ", ".join(dict.fromkeys(self.denied))
        denied = f", {len(self.denied)} denied ({tools})" if self.denied else ""
        if self.all_failed:
            n = len(self.failed)
            what = f"all {n} tool calls" if n > 1 else "the only tool call"
            if self.denied:
                what += " that were not denied" if n > 1 else " that was not denied"
            return f"{PROG}: finished, but {what} failed ({self._failures()}){denied}"
        if self.failed:
            return f"Done: {len(self.failed)} of {self.calls} tool calls failed ({self._failures()}){denied}"
        if self.denied:
            return f"Done: {len(self.denied)} of {_calls(self.calls)} denied ({tools})"
        return f"Done: {_calls(self.calls)} succeeded"

    def _failures(self) -> str:
        """The failed calls, each ``tool: summary`` (``×N`` when N failed alike), the first few of them."""
        alike = Counter(self.failed)
        shown = [_failure(tool, summary) + (f" ×{n}" if n > 1 else "")
                 for (tool, summary), n in list(alike.items())[:SHOWN_FAILURES]]
        more = sum(list(alike.values())[SHOWN_FAILURES:])
        return "; ".join(shown) + (f"; {more} more" if more else "")


def _failure(tool: str, summary: str) -> str:
    """``tool: summary``, cut; a summary that names its tool already is not prefixed again."""
    text = summary if summary.startswith(f"{tool}: ") else f"{tool}: {summary}"
    return text if len(text) <= SHOWN_SUMMARY_CHARS else text[:SHOWN_SUMMARY_CHARS - 1] + "…"


def _calls(n: int) -> str:
    return f"{n} tool call{'s' if n != 1 else ''}"


def task_event_line(event: Event) -> str:
    """One line for a task-plan event (empty for any other event)."""
    from ljtui.core.tasks import events as T

    match event:
        case T.TaskPlanProposed(tasks=tasks):
            return "task plan: " + "; ".join(f"{t.id}. {t.description}" for t in tasks)
        case T.TaskPlanApproved():
            return "task plan approved"
        case T.TaskPlanRejected():
            return "task plan rejected"
        case T.TaskPlanFallback(reason=reason):
            return f"task plan fell back to one task: {reason}"
        case T.TaskStarted(task_id=tid, description=what):
            return f"task {tid} started: {what}"
        case T.TaskFinished(task_id=tid, status=status, summary=summary):
            return f"task {tid} {status.value}" + (f": {summary}" if summary else "")
        case T.TaskPlanUpdated(replan_count=count, reason=reason):
            return f"task plan replanned ({count}): {reason}"
        case T.ToolHintStripped(task_id=tid, hint=hint):
            return f"task {tid}: tool hint {hint!r} names no tool or skill; removed"
        case T.ReplannerDecided(task_id=tid, decision=decision, reason=reason):
            return f"task {tid}: the replanner decided {decision}" + (f" ({reason})" if reason else "")
        case T.RunFinished(status=status, replans=replans, failed=failed):
            return f"run {status}: {replans} replan(s), {failed} failed task(s)"
    return ""


def run(args: argparse.Namespace) -> int:
    """Run one request for the parsed ``args``; return the exit status."""
    if not args.request.strip():
        echo(f"{PROG}: the request is empty", sys.stderr)
        return EXIT_USAGE
    if args.chat and (args.plan or args.skill):
        echo(f"{PROG}: --chat cannot be combined with --plan or --skill", sys.stderr)
        return EXIT_USAGE
    if args.script and not args.provider:
        args.provider = "scripted"
    unknown = [n for n in args.allow.split(",") if n.strip() and not PermissionPolicy.from_names([n])]
    if unknown:
        echo(f"{PROG}: --allow {','.join(unknown)}: expected write, bash, memory, mcp or a tool that asks", sys.stderr)
        return EXIT_USAGE
    repo = (args.repo or Path.cwd()).resolve()
    if not repo.is_dir():
        echo(f"{PROG}: --repo {repo} is not a directory", sys.stderr, exact=True)
        return EXIT_USAGE
    start, repo = repo, find_repo_root(repo)
    if refused_root(PROG, repo, start):
        return EXIT_USAGE
    loaded = load_config(repo_root=repo, overrides=model_overrides(args))
    for warning in loaded.warnings:
        echo(f"{PROG}: {warning}", sys.stderr)
    problem = provider_problem(loaded.config.provider)
    if problem:
        echo(f"{PROG}: {problem}", sys.stderr)
        return EXIT_USAGE
    secrets = known_secrets(loaded.config.provider)
    try:
        return asyncio.run(_run(loaded.config, repo, args))
    except BrokenPipeError:
        silence_stdout()
        return EXIT_FAILED
    except Exception as exc:  # the CLI reports, it never shows a traceback
        echo(f"{PROG}: internal error: {type(exc).__name__}: {redact(str(exc), secrets)}", sys.stderr)
        return EXIT_FAILED


async def _run(config: Config, repo: Path, args: argparse.Namespace) -> int:
    from ljtui.core.tasks.runner import RunOutcome

    text = None if args.json else TextSink(sys.stdout, sys.stderr)
    sink = JsonLinesSink(sys.stdout) if text is None else text
    failures: list[TurnFailed] = []
    errors: list[str] = []
    tally = ToolTally()

    class _Watch:
        def emit(self, event: Event) -> None:
            tally.emit(event)
            if isinstance(event, TurnFailed):
                failures.append(event)
            elif isinstance(event, Notice) and event.level == "error":
                errors.append(event.message)
            sink.emit(event)

    approver = CliApprover(
        PROG, yes=args.yes, hint="pass --allow write,bash to let the agent act; a dangerous command needs --yes",
        hints={"task_plan": "pass --yes to approve it"})
    engine = Engine(config, _Watch(), repo_root=repo, approver=approver)
    engine.allow_headless(PermissionPolicy.from_names(n for n in args.allow.split(",") if n.strip()))
    try:
        if not (await asyncio.to_thread(engine.check_sandbox)).confined:
            approver.hint = UNSANDBOXED_HINT
        await engine.start_mcp()
        resume = getattr(args, "resume", None)
        if resume is not None and not await asyncio.to_thread(engine.resume, resume):
            if text is None:  # the notice is already on stderr otherwise
                echo(f"{PROG}: {errors[-1] if errors else 'the session was not resumed'}", sys.stderr)
            return EXIT_FAILED
        await engine.start_hooks("startup" if resume is None else "resume")
        own = None if args.plan or args.skill else await asyncio.to_thread(
            typed_message, repo, args.request, lambda line: echo(f"{PROG}: {line}", sys.stderr))
        if own is not None:  # one of the user's own slash commands: its text is the message
            done = await engine.run_turn(own)
        elif args.plan or args.skill:
            done = await engine.run_plan(args.request, skill=args.skill)
        elif args.chat:
            done = await engine.run_turn(args.request)
        else:
            done = await engine.handle_message(args.request)
        delivery = await deliver_open_gate(engine)
        await take_layer(engine, take=args.yes or "write" in {n.strip() for n in args.allow.split(",")},
                         say=lambda line: echo(f"{PROG}: {line}", sys.stderr))
    finally:
        await engine.aclose()
    if delivery is not None and not delivery.delivered:
        if text is not None:
            echo(text.summary(), sys.stderr)
        echo(f"{PROG}: {delivery.message}", sys.stderr)
        return EXIT_FAILED
    if isinstance(done, RunOutcome):
        if text is not None:
            echo(text.summary(), sys.stderr)
        if done.status in ("done", "empty"):  # empty: the planner found nothing to do
            return EXIT_OK
        echo(f"{PROG}: the task plan ended {done.status}", sys.stderr)
        return EXIT_FAILED
    if text is not None:
        echo(text.summary(), sys.stderr)
    if done is None:
        message = failures[0].message if failures else "the turn failed"
        echo(f"{PROG}: {message}", sys.stderr)
        return EXIT_FAILED
    if tally.all_failed:
        echo(tally.line(), sys.stderr)
        return EXIT_FAILED
    if text is not None and tally.calls:
        echo(tally.line(), sys.stderr)
    return EXIT_OK
