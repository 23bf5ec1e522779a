"""``ljtui review PLAN.md``: open an EDIT plan in the Diff pane, no model needed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ljtui.cli.main import model_overrides
from ljtui.cli.output import echo

EXIT_USAGE = 2


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``review`` command."""
    parser = subparsers.add_parser(
        "review", help="open an EDIT plan in the Diff pane to accept, reject and apply its blocks",
        description="Open PLAN in the full-screen app with the Diff pane focused. Keys: j/k move, "
                    "space accepts or rejects, A/R accept or reject all, a applies, u undoes, e exports.",
    )
    parser.add_argument("plan", type=Path, help="the EDIT plan file (Markdown)")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS,
                        help="repository the plan applies to (default: cwd)")
    parser.set_defaults(func=run, skip_auto_recover=True)


def run(args: argparse.Namespace) -> int:
    """Check the plan file can be read, then open the app on it."""
    plan: Path = args.plan
    if not plan.is_file():
        reason = "is a directory" if plan.is_dir() else "no such file"
        echo(f"ljtui review: {plan}: {reason}", sys.stderr)
        return EXIT_USAGE
    repo = (getattr(args, "repo", None) or Path.cwd()).resolve()
    if not repo.is_dir():
        echo(f"ljtui review: --repo {repo}: not a directory", sys.stderr)
        return EXIT_USAGE
    from ljtui.core.edits.paths import find_repo_root

    repo = find_repo_root(repo)
    from ljtui.tui.app import LjtuiApp

    overrides = model_overrides(args)
    overrides["ui.theme"] = args.theme
    app = LjtuiApp(repo_root=repo, overrides=overrides, review_path=plan.resolve(), recover=True)
    app.run()
    return app.return_code or 0
