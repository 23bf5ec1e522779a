"""The change ``ljtui review`` and ``ljtui apply`` work on: a file, standard input (``-``) or ``--git A..B``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ljtui.cli.output import echo

STDIN = "-"
FORMAT_NAMES = ("edit", "diff", "aider", "codex")
"""As :data:`ljtui.core.edits.read_change.FORMATS` (kept here so ``--help`` loads no reader)."""


def add_change_arguments(parser: argparse.ArgumentParser) -> None:
    """The change argument, ``--git`` and ``--format``."""
    parser.add_argument("change", nargs="?", metavar="CHANGE",
                        help="the change: an EDIT plan, a unified diff (git diff, diff -u, git format-patch), "
                             "Aider SEARCH/REPLACE blocks or a Codex patch; - reads it from standard input")
    parser.add_argument("--git", metavar="A..B",
                        help="take the change from git: A..B is the change from A to B (review it in a working "
                             "tree at A; A...B: what B changed since it left A); one branch or commit X is what "
                             "would make the working tree match X")
    parser.add_argument("--format", choices=FORMAT_NAMES, default=None,
                        help="the change's format (default: told by its text)")


def change_request(args: argparse.Namespace, prog: str, root: Path, *, read_file: bool = False):
    """What to open or apply, as a :class:`~ljtui.core.edits.change_source.ReviewRequest`; ``None`` (the reason on
    stderr) when the arguments name no change, or the change cannot be read.

    A file goes through the one reader of changes (:mod:`~ljtui.core.edits.change_source`): with ``read_file`` it is
    read now and the request carries its text, or why it could not be read (the apply reports that as its result);
    otherwise it is only checked the way that reader checks it (nothing but a regular file within bounds) and the
    request names it."""
    from ljtui.core.edits.change_source import check_change_file, git_change, read_change_file, read_stream
    from ljtui.core.review.requests import ReviewRequest

    if (args.change is None) == (args.git is None):
        echo(f"{prog}: name one change: a file, - for standard input, or --git A..B", sys.stderr)
        return None
    if args.git is not None:
        change = git_change(root, args.git)
    elif args.change == STDIN:
        change = read_stream(sys.stdin.buffer)
    else:
        path = Path(args.change)
        if read_file:
            return ReviewRequest(change=read_change_file(path, args.change, args.format), fmt=args.format)
        problem = check_change_file(path, args.change)
        if problem is not None:
            echo(f"{prog}: {problem}", sys.stderr)
            return None
        return ReviewRequest(path=path.resolve(), fmt=args.format)
    if change.text is None:
        echo(f"{prog}: {change.problem or change.origin}", sys.stderr)
        return None
    return ReviewRequest(change=change, fmt=args.format)


def terminal_for_keys(prog: str) -> bool:
    """Give the app the terminal's keys after standard input carried the change (``git diff | ljtui review -``).

    Returns:
        False (the reason on stderr) when there is no terminal to read keys from.
    """
    if os.isatty(0):
        return True
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        echo(f"{prog}: standard input carried the change and there is no terminal to read keys from "
             f"(/dev/tty: {exc.strerror}); run it in a terminal, or apply headless with `ljtui apply -`",
             sys.stderr)
        return False
    os.dup2(fd, 0)
    os.close(fd)
    return True


def terminal_input():
    """The terminal, opened for reading answers, when standard input carried the change (``None``: there is none)."""
    try:
        return open("/dev/tty", encoding="utf-8", errors="replace")
    except OSError:
        return None
