"""``ljtui undo``: revert the last applied plan from its kept snapshot (asks first)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from ljtui.cli.approver import CliApprover
from ljtui.cli.output import echo
from ljtui.core.events import Event, Notice
from ljtui.core.review.events import UndoFinished

EXIT_OK = 0
EXIT_REFUSED = 2
PROG = "ljtui undo"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``undo`` command."""
    parser = subparsers.add_parser(
        "undo", help="revert the last applied plan",
        description="Restore every file the last apply wrote to its bytes before the apply (created files are "
                    "removed). Refused, with nothing written, if any of them changed since. Exit 0: undone; "
                    "2: refused, declined or nothing to undo.")
    parser.add_argument("--yes", action="store_true", help="undo without asking (needed without a terminal)")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS, help="repository root (default: from cwd)")
    parser.set_defaults(func=run)


class _Report:
    def __init__(self) -> None:
        self.finished: UndoFinished | None = None

    def emit(self, event: Event) -> None:
        if isinstance(event, UndoFinished):
            self.finished = event
        elif isinstance(event, Notice):
            echo(f"{PROG}: {event.message}", sys.stderr)


def run(args: argparse.Namespace) -> int:
    """Undo; refuse (exit 2, nothing written) when the files changed since, or when declined."""
    from ljtui.cli.main import repo_root_arg

    root = repo_root_arg(args, PROG)
    if root is None:
        return EXIT_REFUSED
    report = _Report()
    from ljtui.cli.session import headless_review  # only the review loads, when the command runs

    asyncio.run(headless_review(PROG, root, report, CliApprover(PROG, yes=args.yes)).undo())
    finished = report.finished
    if finished is None:
        return EXIT_REFUSED
    if finished.error is not None:
        echo(f"{PROG}: {finished.error}", sys.stderr)
        return EXIT_REFUSED
    for path in finished.files:
        echo(f"reverted {path}")
    return EXIT_OK
