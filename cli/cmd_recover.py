"""``ljtui recover``: roll back an apply that a crash left unfinished."""

from __future__ import annotations

import argparse
from pathlib import Path

from ljtui.cli.main import repo_root_arg
from ljtui.core.edits.recovery import recover_journal

EXIT_OK = 0
EXIT_FAILED = 2


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``recover`` command."""
    parser = subparsers.add_parser("recover", help="restore files of an unfinished apply to their pre-apply bytes")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS, help="repository root (default: from cwd)")
    parser.set_defaults(func=run, skip_auto_recover=True)


def run(args: argparse.Namespace) -> int:
    """Recover every leftover journal; exit 0 when none is left."""
    root = repo_root_arg(args, "ljtui recover")
    if root is None:
        return EXIT_FAILED
    report = recover_journal(root)
    lines = report.summary()
    print("\n".join(lines) if lines else "nothing to recover")
    return EXIT_FAILED if report.errors or report.skipped else EXIT_OK
