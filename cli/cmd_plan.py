"""``ljtui plan``: run the read-only planner headless and write a checked plan (PLN-12).

Exit status: 0 a plan that passed its check was written; 1 the plan still
fails its check after repairs, or the model failed; 2 a usage or
configuration error; 3 the planner aborted (the reason is named on stderr).
The trace, one line per tool call, goes to stderr as the run goes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from ljtui.cli.main import add_model_flags, model_overrides
from ljtui.core.config import Config, load_config
from ljtui.core.events import Event
from ljtui.core.planner.events import PlannerPlanChecked, PlannerReplyRejected, PlannerToolCalled
from ljtui.core.planner.loop import DEFAULT_MAX_TURNS, PlannerResult, run_planner
from ljtui.core.providers import make_client
from ljtui.core.providers.base import ProviderError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_ABORTED = 3

ABORT_EXPLANATIONS = {
    "fabrication": "the model kept inventing tool results",
    "turn-limit": "the turn budget ran out before any plan",
    "no-plan": "the model finished without a plan",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``plan`` sub-command."""
    parser = subparsers.add_parser(
        "plan", help="write a checked EDIT plan for a request, reading the source only",
        description="Run the read-only planner: it lists, reads and greps the source, then writes an "
                    "EDIT plan that is checked against the files before it is saved.")
    parser.add_argument("--source", type=Path, required=True, help="repository the plan is for")
    parser.add_argument("--handbook", type=Path, help="handbook folder, mounted read-only at __handbook__/")
    parser.add_argument("--request", required=True, help="the change wanted, in plain language")
    parser.add_argument("--out", type=Path, required=True, help="where the plan is written (only on success)")
    parser.add_argument("--max-turns", dest="max_turns", type=int, default=DEFAULT_MAX_TURNS,
                        help=f"model calls allowed (default {DEFAULT_MAX_TURNS})")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object on stdout")
    add_model_flags(parser)
    parser.set_defaults(func=run)


class _StderrTrace:
    """Prints tool calls, rejected replies and plan checks as they happen."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def emit(self, event: Event) -> None:
        line = _event_line(event)
        if line:
            print(line, file=self.stream, flush=True)


def _event_line(event: Event) -> str | None:
    if isinstance(event, PlannerToolCalled):
        return " ".join(filter(None, (f"turn {event.turn}:", event.name, event.args_summary, "->", event.summary)))
    if isinstance(event, PlannerReplyRejected):
        return f"turn {event.turn}: reply rejected ({event.reason})"
    if isinstance(event, PlannerPlanChecked):
        state = "passes" if event.ok else f"fails ({len(event.errors)} problems)"
        fence = ", dangling final fence closed" if event.fence_repaired else ""
        return f"turn {event.turn}: plan check {state}{fence}"
    return None


def _usage_problem(args: argparse.Namespace) -> str | None:
    if not args.source.is_dir():
        return f"--source {args.source} is not a directory"
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
        print(f"ljtui plan: {problem}", file=sys.stderr)
        return EXIT_USAGE
    if args.script and not args.provider:
        args.provider = "scripted"
    loaded = load_config(repo_root=args.source.resolve(), overrides=model_overrides(args))
    for warning in loaded.warnings:
        print(f"ljtui plan: {warning}", file=sys.stderr)
    try:
        client = make_client(loaded.config.provider)
    except ProviderError as exc:
        print(f"ljtui plan: {exc.message}", file=sys.stderr)
        return EXIT_USAGE
    try:
        result = asyncio.run(_plan(client, args, loaded.config))
    except ProviderError as exc:
        print(f"ljtui plan: model error: {exc.message}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # the CLI reports, it never shows a traceback
        print(f"ljtui plan: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    return _report(result, args)


async def _plan(client: Any, args: argparse.Namespace, config: Config) -> PlannerResult:
    try:
        return await run_planner(client, args.source, args.request, handbook_dir=args.handbook,
                                 max_turns=args.max_turns, sink=_StderrTrace(sys.stderr),
                                 max_tokens=config.provider.max_tokens,
                                 allow_secret_files=config.security.allow_secret_files,
                                 prompt_budget_tokens=config.planner.prompt_budget_tokens)
    finally:
        await client.aclose()


def _report(result: PlannerResult, args: argparse.Namespace) -> int:
    written: str | None = None
    status = EXIT_OK
    if result.aborted:
        print(f"ljtui plan: aborted: {result.aborted} ({ABORT_EXPLANATIONS[result.aborted]}, "
              f"after {result.turns} turns); no plan written", file=sys.stderr)
        status = EXIT_ABORTED
    elif not result.ok:
        print(f"ljtui plan: the plan still fails its check after {result.repair_rounds} repair rounds; "
              "no plan written:", file=sys.stderr)
        for error in result.errors:
            print(f"  {error}", file=sys.stderr)
        status = EXIT_FAILED
    else:
        try:
            _write_atomic(args.out, result.plan)
        except OSError as exc:
            print(f"ljtui plan: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_FAILED
        written = str(args.out)
    if args.json:
        print(json.dumps(_as_json(result, written), ensure_ascii=False))
    elif written:
        print(f"plan written to {written} ({result.turns} turns, {result.repair_rounds} repair rounds)")
    return status


def _as_json(result: PlannerResult, written: str | None) -> dict[str, Any]:
    return {
        "ok": result.ok, "aborted": result.aborted, "out": written, "turns": result.turns,
        "repair_rounds": result.repair_rounds, "fence_repaired": result.fence_repaired,
        "trace": list(result.trace), "errors": list(result.errors),
        "declarations": result.declarations.to_dict() if result.declarations else None,
        "plan": result.plan,
    }


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
