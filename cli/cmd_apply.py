"""``ljtui apply CHANGE``: apply a change atomically (SPEC EDIT-13).

The change is what ``ljtui review`` reads: an EDIT plan, a unified diff,
Aider SEARCH/REPLACE blocks or a Codex patch, from a file, standard input
(``-``) or ``--git A..B``.

Exit status: 0 done, 1 partial, 2 error (the plan is malformed, does not
apply, was declined, or nothing could be written). With ``--json`` stdout
carries exactly the result contract; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from ljtui.cli.approver import CliApprover
from ljtui.cli.change_args import STDIN, add_change_arguments, change_request, terminal_input
from ljtui.cli.output import echo, json_text, visible
from ljtui.core.edits.apply import DEFAULT_CHUNK_SIZE
from ljtui.core.edits.result import ERROR, ApplyResult, ContractViolation, emit
from ljtui.core.edits.service import ApplyOptions, FileApply
from ljtui.core.events import Event, Notice
from ljtui.core.review.events import ApplyProgressed

PROG = "ljtui apply"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``apply`` command."""
    parser = subparsers.add_parser("apply", help="apply a change (an EDIT plan, a diff, Aider or Codex edits) "
                                                 "atomically",
                                   description="Apply a change: all or nothing, journaled, crash-safe. "
                                               "Exit 0: done; 1: partial; 2: error (nothing written).")
    add_change_arguments(parser)
    parser.add_argument("--dry-run", action="store_true", help="print unified diffs and change nothing")
    parser.add_argument("--json", action="store_true", help="print the result contract as JSON on stdout")
    parser.add_argument("--partial", action="store_true",
                        help="apply each entry (an EDIT plan's - entry: lines; a diff's files) on its own; "
                             "failed entries are skipped")
    parser.add_argument("--yes", action="store_true",
                        help="apply without asking (needed when no terminal can be asked)")
    parser.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_SIZE, metavar="N",
                        help=f"entries per chunk, 1-20 (default {DEFAULT_CHUNK_SIZE})")
    parser.add_argument("--no-checks", dest="checks", action="store_false", help="skip post-apply syntax checks")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS, help="repository root (default: from cwd)")
    parser.set_defaults(func=run)


class _Progress:
    """Progress lines and notices on stderr."""

    def emit(self, event: Event) -> None:
        if isinstance(event, ApplyProgressed) and not event.line:
            return  # a step with nothing to say, or the apply's end
        if isinstance(event, (ApplyProgressed, Notice)):
            echo(event.line if isinstance(event, ApplyProgressed) else event.message, sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """Apply (or preview) the plan; exit 0 done, 1 partial, 2 error."""
    from ljtui.cli.main import repo_root_arg

    root = repo_root_arg(args, PROG)
    if root is None:
        return _finish(FileApply(ApplyResult(
            ERROR, message="the repository cannot be used (the line above says why); nothing was written")), args.json)
    from ljtui.cli.session import headless_edits  # only the edits path loads, when the command runs

    request = change_request(args, PROG, root, read_file=True)
    answers = terminal_input() if args.change == STDIN and not args.yes else None
    edits = headless_edits(PROG, root, _Progress(), CliApprover(PROG, yes=args.yes, inp=answers))
    if request is None:
        return _finish(FileApply(ApplyResult(ERROR, message="no change could be read; nothing was written")),
                       args.json)
    options = ApplyOptions(partial=args.partial, chunk_size=args.chunk_size, dry_run=args.dry_run, checks=args.checks)
    outcome = asyncio.run(edits.apply_change(request.change, options, request.fmt))
    if args.dry_run and outcome.diff:
        colour = sys.stdout.isatty() and not args.json
        diff = visible(outcome.diff)  # the plan's and the files' text: an escape in it is shown, not obeyed
        (sys.stderr if args.json else sys.stdout).write(_coloured(diff) if colour else diff)
    return _finish(outcome, args.json)


def _finish(outcome: FileApply, as_json: bool) -> int:
    result = outcome.result
    try:
        data = emit(result, outcome.entry_ids)
    except ContractViolation as exc:
        result = ApplyResult(ERROR, message=f"internal error: the result broke its contract ({exc})")
        data = result.to_dict()
    if as_json:
        print(json_text(data, indent=2))
        return result.exit_code
    for path in result.files:
        echo(f"wrote {path}")
    for check in result.checks:
        mark = "ok" if check["ok"] else f"FAILED: {check['message']}"
        echo(f"check {check['checker']} {check['file']}: {mark}")
    for failed in result.failed:
        echo(f"failed entry {failed.entry_id}: {failed.reason}", sys.stderr)
    for note in result.notes:
        echo(f"note: {note}", sys.stderr)
    echo(f"{result.status}" + (f": {result.message}" if result.message else ""), sys.stderr)
    return result.exit_code


def _coloured(diff: str) -> str:
    from ljtui.cli.approver import COLOURS, RESET

    out = []
    for line in diff.splitlines(keepends=True):
        start = COLOURS.get(line[:1], "") if not line.startswith(("+++", "---")) else ""
        out.append(f"{start}{line.rstrip(chr(10))}{RESET}\n" if start else line)
    return "".join(out)
