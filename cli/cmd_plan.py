"""``ljtui plan``: run the read-only planner headless and write a checked plan (PLN-12).

The run goes through the engine, like every other operation: events are
redacted and token use is recorded. Exit status: 0 a plan that passed its
check was written; 1 the plan still fails its check after repairs, or the
model could not be reached; 2 a usage or configuration error; 3 the planner
aborted (the reason is named). Without ``--json`` the trace, one line per
tool call, goes to stderr as the run goes; with it, stdout carries every
engine event as one JSON object per line (as ``ljtui run --json``), the last
one a ``planner_outcome``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TextIO

from ljtui.cli.main import add_model_flags, model_overrides, refused_root
from ljtui.cli.output import Collect, Fanout, JsonLinesSink, echo
from ljtui.core.config import load_config
from ljtui.core.engine import Engine
from ljtui.core.events import Event, ToolCallFinished, ToolCallStarted, TurnFailed
from ljtui.core.planner.events import PlannerDeadlinePassed, PlannerOutcome, PlannerPlanChecked, PlannerReplyRejected
from ljtui.core.planner.loop import DEFAULT_MAX_TURNS, PlannerResult
from ljtui.core.planner.protocol import summarize_args
from ljtui.core.providers import provider_problem
from ljtui.core.secrets import known_secrets, redact

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_ABORTED = 3
PROG = "ljtui plan"
REPO_HELP = ("not used by plan, which works where --source says; given (here or before `plan`), it must name "
             "the same folder")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``plan`` sub-command."""
    parser = subparsers.add_parser(
        "plan", help="write a checked EDIT plan for a request, reading the source only",
        description="Run the read-only planner: it lists, reads and greps the source, then writes an "
                    "EDIT plan that is checked against the files before it is saved. Exit 0: plan written; "
                    "1: the plan still fails its check, or the model failed; 2: usage error; 3: aborted.")
    parser.add_argument("--source", type=Path, required=True, metavar="DIR",
                        help="the folder the plan is for: the planner lists, reads and greps only this tree and "
                             "edits none of it; its settings (.agent/config.yaml) are the ones used, its "
                             "unfinished apply is rolled back first, and the run is logged in its .agent/")
    parser.add_argument("--handbook", type=Path, help="handbook folder, mounted read-only at __handbook__/")
    parser.add_argument("--request", required=True, help="the change wanted, in plain language")
    parser.add_argument("--out", type=Path, required=True, help="where the plan is written (only on success)")
    parser.add_argument("--max-turns", dest="max_turns", type=int, default=DEFAULT_MAX_TURNS,
                        help=f"model calls allowed (default {DEFAULT_MAX_TURNS})")
    parser.add_argument("--json", action="store_true",
                        help="print every event as one JSON object per line, the last a planner_outcome")
    add_model_flags(parser, repo_help=REPO_HELP)
    parser.set_defaults(func=run)


class TraceSink:
    """Prints tool calls, rejected replies and plan checks on stderr as they happen."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._args: dict[str, str] = {}

    def emit(self, event: Event) -> None:
        line = self._line(event)
        if line:
            echo(line, self.stream, flush=True)

    def _line(self, event: Event) -> str | None:
        if isinstance(event, ToolCallStarted):
            self._args[event.call_id] = summarize_args(event.input)
        elif isinstance(event, ToolCallFinished):
            args = self._args.pop(event.call_id, "")
            return " ".join(filter(None, (f"turn {event.turn}:", event.name, args, "->", event.summary)))
        elif isinstance(event, PlannerReplyRejected):
            return f"turn {event.turn}: reply rejected ({event.reason})"
        elif isinstance(event, PlannerDeadlinePassed):
            return event.message
        elif isinstance(event, PlannerPlanChecked):
            state = "passes" if event.ok else f"fails ({len(event.errors)} problems)"
            fence = ", dangling final fence closed" if event.fence_repaired else ""
            detail = "".join(f"\n  {e}" for e in event.errors)
            return f"turn {event.turn}: plan check {state}{fence}{detail}"
        return None


def _usage_problem(args: argparse.Namespace) -> str | None:
    if not args.source.is_dir():
        return f"--source {args.source} is not a directory"
    repo = getattr(args, "repo", None)
    if repo is not None and repo.resolve() != args.source.resolve():
        return (f"--repo {repo} and --source {args.source} name different folders: the plan is for --source "
                "alone (the tree the planner reads, whose settings are used); leave --repo out")
    if args.handbook is not None and not args.handbook.is_dir():
        return f"--handbook {args.handbook} is not a directory"
    if not args.request.strip():
        return "--request is empty"
    if args.max_turns < 1:
        return f"--max-turns must be at least 1, got {args.max_turns}"
    parent = args.out.parent if str(args.out.parent) else Path(".")
    if not parent.is_dir():
        return f"--out {args.out}: folder {parent} does not exist"
    if args.out.is_dir():
        return f"--out {args.out} is a directory"
    return None


def run(args: argparse.Namespace) -> int:
    """Run the planner for the parsed ``args``; return the exit status."""
    problem = _usage_problem(args)
    if problem:
        echo(f"{PROG}: {problem}", sys.stderr)
        return EXIT_USAGE
    if args.script and not args.provider:
        args.provider = "scripted"
    source = args.source.resolve()
    if refused_root(PROG, source):
        return EXIT_USAGE
    loaded = load_config(repo_root=source, overrides=model_overrides(args))
    for warning in loaded.warnings:
        echo(f"{PROG}: {warning}", sys.stderr)
    problem = provider_problem(loaded.config.provider)
    if problem:
        echo(f"{PROG}: {problem}", sys.stderr)
        return EXIT_USAGE
    secrets = known_secrets(loaded.config.provider)
    out = JsonLinesSink(sys.stdout) if args.json else TraceSink(sys.stderr)
    failures = Collect(TurnFailed)
    engine = Engine(loaded.config, Fanout(out, failures), repo_root=source)
    try:
        result = asyncio.run(_plan(engine, args))
    except Exception as exc:  # the CLI reports, it never shows a traceback
        echo(f"{PROG}: internal error: {type(exc).__name__}: {redact(str(exc), secrets)}", sys.stderr)
        return EXIT_FAILED
    return _report(engine, result, failures.events, args)


async def _plan(engine: Engine, args: argparse.Namespace) -> PlannerResult | None:
    try:
        return await engine.plan(args.request, handbook_dir=args.handbook, max_turns=args.max_turns)
    finally:
        await engine.aclose()


def _report(engine: Engine, result: PlannerResult | None, failures: list[Event], args: argparse.Namespace) -> int:
    written: str | None = None
    if result is None:
        message = failures[0].message if failures else "the model could not be reached"  # type: ignore[attr-defined]
        echo(f"{PROG}: model error: {message}", sys.stderr)
        status, errors = EXIT_FAILED, (message,)
    elif result.aborted:
        echo(f"{PROG}: {result.abort_message} ({result.turns} turns)", sys.stderr)
        status, errors = EXIT_ABORTED, result.errors
    elif not result.ok:
        echo(f"{PROG}: the plan still fails its check after {result.repair_rounds} repair rounds; "
             "no plan written:", sys.stderr)
        for error in result.errors:
            echo(f"  {error}", sys.stderr)
        status, errors = EXIT_FAILED, result.errors
    else:
        status, errors = EXIT_OK, ()
        try:
            _write_atomic(args.out, result.plan)
            written = str(args.out)
        except OSError as exc:
            message = f"cannot write {args.out}: {exc.strerror or exc}"
            echo(f"{PROG}: {message}", sys.stderr)
            status, errors = EXIT_FAILED, (message,)
    if args.json:
        engine.sink.emit(_outcome(result, written, status == EXIT_OK, errors))
    elif written and result is not None:
        echo(f"plan written to {written} ({result.turns} turns, {result.repair_rounds} repair rounds)")
    return status


def _outcome(result: PlannerResult | None, written: str | None, ok: bool, errors: tuple[str, ...]) -> PlannerOutcome:
    if result is None:
        return PlannerOutcome(False, None, None, 0, 0, False, (), errors, None, "")
    declarations = result.declarations.to_dict() if result.declarations else None
    return PlannerOutcome(ok, result.aborted, written, result.turns, result.repair_rounds, result.fence_repaired,
                          result.trace, errors, declarations, result.plan)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
