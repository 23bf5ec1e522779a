"""``ljtui undo``: revert the last applied plan from its kept snapshot (asks first); says how many steps remain."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

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
        "undo", help="revert the last applied plan (again: the one before)",
        description="Restore every file the last apply wrote to its bytes before the apply (created files are "
                    "removed). Refused, with nothing written, if any of them changed since. Run it again to go "
                    "back one more apply (the newest 50 are kept); it says how many remain. Exit 0: undone; "
                    "2: refused, declined or nothing to undo.")
    parser.add_argument("--yes", action="store_true", help="undo without asking (needed without a terminal)")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS, help="repository root (default: from cwd)")
    parser.set_defaults(func=run)


class Report:
    """The sink of a command that waits for one ending event (``kind``): it keeps the last one and says every notice
    on stderr, after the command's name."""

    def __init__(self, prog: str, kind: type[Event]) -> None:
        self.prog = prog
        self.kind = kind
        self.finished: Any = None

    def emit(self, event: Event) -> None:
        if isinstance(event, self.kind):
            self.finished = event
        elif isinstance(event, Notice):
            echo(f"{self.prog}: {event.message}", sys.stderr)

    def ended(self) -> Any:
        """The ending event when it says the work was done; ``None`` (its error said on stderr) otherwise."""
        finished = self.finished
        if finished is not None and finished.error is not None:
            echo(f"{self.prog}: {finished.error}", sys.stderr)
            return None
        return finished


def run(args: argparse.Namespace) -> int:
    """Undo; refuse (exit 2, nothing written) when the files changed since, or when declined."""
    from ljtui.cli.main import repo_root_arg

    root = repo_root_arg(args, PROG)
    if root is None:
        return EXIT_REFUSED
    report = Report(PROG, UndoFinished)
    from ljtui.cli.session import headless_review  # only the review loads, when the command runs

    asyncio.run(headless_review(PROG, root, report, CliApprover(PROG, yes=args.yes)).undo())
    finished = report.ended()
    if finished is None:
        return EXIT_REFUSED
    for path in finished.files:
        echo(f"deleted {path} (created by the apply)" if path in finished.removed else f"reverted {path}")
    if finished.remaining is not None:
        from ljtui.core.review.events import remaining_line

        echo(f"{PROG}: {remaining_line(finished.remaining)}", sys.stderr)  # stdout lists only what was written
    return EXIT_OK
