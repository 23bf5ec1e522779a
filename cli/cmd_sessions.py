"""``ljtui sessions``: the conversations saved in a repository, newest first.

Each line shows a session's id, when it started, how many messages a resume
would bring back and the first thing the user said among them (a failed or
stopped turn forgets its messages, so a session whose every turn failed
shows 0 messages and no first message). A session this user did
not create on this machine (one the repository brought) is marked: it can
be resumed only once the repository is trusted. ``--json`` prints a list of
objects with ``id``, ``started`` (UTC, ISO 8601), ``first_message``,
``messages`` and ``resumable``. Warnings (skipped lines, unreadable logs) go
to stderr.

Exit status: 0 listed (perhaps nothing); 1 the sessions folder cannot be
read (e.g. it is a symbolic link); 2 a usage error.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ljtui.cli.output import echo, json_text, silence_stdout

if TYPE_CHECKING:
    from ljtui.core.agent.sessions import SessionInfo

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
PROG = "ljtui sessions"
LOCAL_TIME_FORMAT = "%Y-%m-%d %H:%M"
JSON_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``sessions`` command."""
    parser = subparsers.add_parser(
        "sessions", help="list the conversations saved in this repository",
        description="List the sessions saved in .agent/sessions/, newest first: id, start time, messages and "
                    "the first message. Sessions you did not create on this machine are marked; "
                    "`ljtui trust` allows resuming them.")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list of {id, started, first_message, messages, resumable}")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS,
                        help="repository to list (default: the one holding the current directory)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List the sessions of the repository; see the module docstring for the exit status."""
    from ljtui.cli.main import repo_root_arg
    from ljtui.core.agent.sessions import list_sessions

    root = repo_root_arg(args, PROG)
    if root is None:
        return EXIT_USAGE
    listing = list_sessions(root)
    for warning in listing.warnings:
        echo(f"{PROG}: {warning}", sys.stderr)
    if listing.problem is not None:
        echo(f"{PROG}: {listing.problem}", sys.stderr)
        return EXIT_FAILED
    try:
        if args.json:
            print(json_text([_as_json(info) for info in listing.sessions], indent=1))
        elif not listing.sessions:
            echo(f"no sessions saved in {root}")
        else:
            for info in listing.sessions:
                echo(_as_line(info))  # a session's first message may be a repository's words
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
    return EXIT_OK


def _as_json(info: SessionInfo) -> dict[str, object]:
    return {"id": info.id, "started": time.strftime(JSON_TIME_FORMAT, time.gmtime(info.started)),
            "first_message": info.first_message, "messages": info.messages, "resumable": info.resumable}


def _as_line(info: SessionInfo) -> str:
    when = time.strftime(LOCAL_TIME_FORMAT, time.localtime(info.started))
    count = f"{info.messages} message{'' if info.messages == 1 else 's'}"
    line = f"{info.id}  {when}  {count:>12}  {info.first_message or '(no message)'}"
    return line if info.resumable else f"{line}  [{info.note}]"
