"""``ljtui recover``: roll back an apply that a crash left unfinished."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ljtui.cli.output import echo
from ljtui.core.approval import DenyAll
from ljtui.core.events import Event, Notice

EXIT_OK = 0
EXIT_FAILED = 2
PROG = "ljtui recover"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``recover`` command."""
    parser = subparsers.add_parser(
        "recover", help="restore files of an unfinished apply to their pre-apply bytes",
        description="Roll back every apply a crash interrupted (this also runs at the start of every command). "
                    "A journal that fails its checks is set aside as quarantine-*, never acted on. "
                    "Exit 0: nothing left to recover; 2: a journal could not be recovered or was set aside.")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS, help="repository root (default: from cwd)")
    parser.set_defaults(func=run, skip_auto_recover=True)


class _Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def emit(self, event: Event) -> None:
        if isinstance(event, Notice):
            self.lines.extend(event.message.splitlines())


def run(args: argparse.Namespace) -> int:
    """Recover every leftover journal; exit 0 when none is left."""
    from ljtui.cli.main import repo_root_arg

    root = repo_root_arg(args, PROG)
    if root is None:
        return EXIT_FAILED
    lines = _Lines()
    from ljtui.cli.session import headless_edits  # only the edits path loads, when the command runs

    report = headless_edits(PROG, root, lines, DenyAll()).recover()
    echo("\n".join(lines.lines) if lines.lines else "nothing to recover", sys.stdout)
    return EXIT_FAILED if report.errors or report.skipped or report.quarantined else EXIT_OK
