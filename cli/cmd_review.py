"""``ljtui review CHANGE``: open a change in the Diff pane, block by block, no model needed.

The change is an EDIT plan, a unified diff (``git diff``, ``diff -u``,
``git format-patch``), Aider SEARCH/REPLACE blocks or a Codex patch, read
from a file, from standard input (``git diff | ljtui review -``) or from
git (``--git A..B``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ljtui.cli.change_args import STDIN, add_change_arguments, change_request, terminal_for_keys
from ljtui.cli.main import model_overrides
from ljtui.cli.output import echo

EXIT_USAGE = 2
PROG = "ljtui review"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``review`` command."""
    parser = subparsers.add_parser(
        "review", help="open a change (an EDIT plan, a diff, Aider or Codex edits) in the Diff pane, hunk by hunk",
        description="Open CHANGE in the full-screen app with the Diff pane focused. Keys: j/k move, "
                    "space accepts or rejects, A/R accept or reject all, a applies, u undoes, e exports.",
    )
    add_change_arguments(parser)
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS,
                        help="repository the change applies to (default: cwd)")
    parser.set_defaults(func=run, skip_auto_recover=True)


def run(args: argparse.Namespace) -> int:
    """Check the change can be read, then open the app on it."""
    repo = (getattr(args, "repo", None) or Path.cwd()).resolve()
    if not repo.is_dir():
        echo(f"{PROG}: --repo {repo}: not a directory", sys.stderr)
        return EXIT_USAGE
    from ljtui.cli.main import refused_root
    from ljtui.core.edits.paths import find_repo_root

    start, repo = repo, find_repo_root(repo)
    if refused_root(PROG, repo, start):
        return EXIT_USAGE
    request = change_request(args, PROG, repo)
    if request is None:
        return EXIT_USAGE
    if args.change == STDIN and not terminal_for_keys(PROG):
        return EXIT_USAGE
    from ljtui.tui.app import LjtuiApp

    overrides = model_overrides(args)
    overrides["ui.theme"] = args.theme
    app = LjtuiApp(repo_root=repo, overrides=overrides, review=request, recover=True)
    app.run()
    return app.return_code or 0
