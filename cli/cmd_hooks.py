"""``ljtui hooks list``: the hooks a session here would know, and how each last ran.

The user's hooks (``hooks`` in their config) and the repository's
(``.agent/hooks.json``, ``.claude/settings.json``) are listed with where
each comes from, its timeout and its last result as the sessions kept it;
notes follow: a repository whose hooks do not run because it is not
trusted, entries left out and why. Nothing runs. ``--json`` prints one
object: ``{"hooks": [{event, matcher, source, command, timeout, network,
last}], "notes": [...]}``, ``last`` being ``null`` (not run yet) or
``{outcome, exit_code, reason, duration}``. Warnings of the config go to
stderr.

Exit status: 0 listed (perhaps nothing); 2 a usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ljtui.cli.main import refused_root
from ljtui.cli.output import Collect, echo, json_text, silence_stdout, visible
from ljtui.core.display import shown_line
from ljtui.core.edits.paths import find_repo_root

if TYPE_CHECKING:
    from ljtui.core.hooks.service import HookRow

EXIT_OK = 0
EXIT_USAGE = 2
PROG = "ljtui hooks"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``hooks`` command."""
    parser = subparsers.add_parser(
        "hooks", help="list the hooks: yours and a trusted repository's, and how each last ran",
        description="List the hooks of your config and of the repository's .agent/hooks.json and "
                    ".claude/settings.json (those run only once the repository is trusted), each with its last "
                    "result. Nothing runs.")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    listing = commands.add_parser("list", help="each hook, where it comes from and how it last ran")
    listing.add_argument("dir", nargs="?", type=Path, default=None, help="the repository (default: current)")
    listing.add_argument("--json", action="store_true",
                         help="print a JSON object {hooks: [{event, matcher, source, command, timeout, network, "
                              "last}], notes}")
    listing.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List the hooks; see the module docstring for the exit status."""
    from ljtui.core.config import load_config
    from ljtui.core.events import Notice
    from ljtui.core.hooks.service import SessionHooks, row_lines
    from ljtui.core.session_state import SessionSettings

    start = args.dir or Path.cwd()
    if not start.is_dir():
        echo(f"{PROG}: {visible(str(start), exact=True)}: not a directory", sys.stderr)
        return EXIT_USAGE
    root = find_repo_root(start)
    if refused_root(PROG, root, start):
        return EXIT_USAGE
    loaded = load_config(root)
    for warning in loaded.warnings:
        echo(f"{PROG}: {warning}", sys.stderr)
    said = Collect(Notice)
    rows, notes = SessionHooks(SessionSettings(loaded.config), root, None, emit=said.emit).rows()
    notes += [event.message for event in said.events if isinstance(event, Notice)]
    try:
        if args.json:
            print(json_text({"hooks": [_as_json(row) for row in rows], "notes": notes}, indent=1))
        else:
            for line in row_lines(rows, notes):
                echo(shown_line(line))  # commands and reasons are a file's or a program's words
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
    return EXIT_OK


def _as_json(row: HookRow) -> dict[str, Any]:
    hook, last = row.hook, row.last
    return {"event": hook.event, "matcher": hook.matcher, "source": hook.source, "command": hook.command,
            "timeout": hook.timeout, "network": hook.network,
            "last": None if last is None else {"outcome": last.outcome, "exit_code": last.exit_code,
                                               "reason": last.reason, "duration": last.duration}}
