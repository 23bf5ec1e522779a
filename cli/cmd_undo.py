"""``ljtui undo``: revert the last applied plan from its kept snapshot."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ljtui.cli.main import repo_root_arg
from ljtui.core.edits.recovery import undo_last

EXIT_OK = 0
EXIT_REFUSED = 2


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``undo`` command."""
    parser = subparsers.add_parser("undo", help="revert the last applied plan")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS, help="repository root (default: from cwd)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Undo; refuse (exit 2, nothing written) when the files changed since."""
    root = repo_root_arg(args, "ljtui undo")
    if root is None:
        return EXIT_REFUSED
    outcome = undo_last(root)
    if outcome.error is not None:
        print(f"ljtui undo: {outcome.error.message}", file=sys.stderr)
        return EXIT_REFUSED
    for path in outcome.files:
        print(f"reverted {path}")
    return EXIT_OK
