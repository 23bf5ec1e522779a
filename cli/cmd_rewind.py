"""``ljtui rewind``: list a saved session's messages, or go back to before one of them (the files, the conversation
or both; asks first)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from ljtui.cli.approver import CliApprover
from ljtui.cli.cmd_undo import EXIT_OK, EXIT_REFUSED, Report
from ljtui.cli.output import echo, visible

PROG = "ljtui rewind"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``rewind`` command."""
    parser = subparsers.add_parser(
        "rewind", help="go back to before an earlier message: the files, the conversation or both",
        description="List the user messages of a saved session (--list), or rewind to before message N: the files "
                    "every apply and agent write since it wrote go back as they were (refused, with nothing "
                    "written, if any changed since), and the conversation forgets the message and what followed "
                    "(a resume never brings them back). Exit 0: done (or listed); 2: refused, declined or "
                    "nothing to rewind.")
    parser.add_argument("number", nargs="?", type=int, help="the message to go back to before (see --list)")
    parser.add_argument("--list", action="store_true", help="list the session's messages with their numbers")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--code", dest="mode", action="store_const", const="code", help="restore the files only")
    what.add_argument("--conversation", dest="mode", action="store_const", const="conversation",
                      help="cut the conversation only")
    what.add_argument("--both", dest="mode", action="store_const", const="both",
                      help="restore the files and cut the conversation (the default)")
    parser.add_argument("--session", metavar="ID", help="the session (default: the newest one that may be resumed)")
    parser.add_argument("--yes", action="store_true", help="rewind without asking (needed without a terminal)")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS, help="repository root (default: from cwd)")
    parser.set_defaults(func=run, mode="both")


def run(args: argparse.Namespace) -> int:
    """List, or rewind; refuse (exit 2, nothing changed) when a file changed since, or when declined."""
    from ljtui.cli.main import repo_root_arg
    from ljtui.core.rewind_saved import LogUnreadable, newest_session, saved_session

    root = repo_root_arg(args, PROG)
    if root is None:
        return EXIT_REFUSED
    if not args.list and args.number is None:
        echo(f"{PROG}: say which message (ljtui rewind --list shows them), or --list", sys.stderr)
        return EXIT_REFUSED
    session_id = args.session or newest_session(root)
    if session_id is None:
        echo(f"{PROG}: no saved session in this repository", sys.stderr)
        return EXIT_REFUSED
    try:
        saved = saved_session(root, session_id)
    except LogUnreadable as exc:
        echo(f"{PROG}: {exc}", sys.stderr)
        return EXIT_REFUSED
    if args.list:
        return _list(saved)
    return _rewind(root, saved, args)


def _list(saved) -> int:  # type: ignore[no-untyped-def]
    from ljtui.core.agent.session_replay import shorten

    echo(f"session {saved.id}: {len(saved.points)} message(s)")
    for point in saved.points:
        files = "files not recorded" if point.files is None else f"{len(point.files)} file(s) to restore"
        echo(f"{point.number:>4}  {visible(shorten(point.text, 70))}  ({files})")
    return EXIT_OK


def _rewind(root: Path, saved, args: argparse.Namespace) -> int:  # type: ignore[no-untyped-def]
    from ljtui.cli.session import headless_asker
    from ljtui.core.rewind_events import RewindFinished
    from ljtui.core.rewind_saved import rewind_saved

    report = Report(PROG, RewindFinished)
    sink, ask = headless_asker(PROG, root, report, CliApprover(PROG, yes=args.yes))
    asyncio.run(rewind_saved(root, saved, args.number, args.mode, ask=ask, sink=sink))
    finished = report.ended()
    if finished is None:
        return EXIT_REFUSED
    for path in finished.files:
        echo(f"deleted {path} (created since)" if path in finished.removed else f"restored {path}")
    if finished.conversation:
        echo(f"the conversation of session {saved.id} is back to before message {finished.number}")
    return EXIT_OK
