"""``ljtui --demo``: the first five minutes, offline, on a copy of a bundled sample project.

The copy is made here, before the app starts (the app never touches files
itself), in a new folder under the system's temporary directory, and
trusted for the session (its playbook step needs it). It is kept when the
demo ends, no longer trusted, and its path is printed: the user may want to
look at what the demo did (``git log``, ``git diff``, ``.agent/``). It is a
small folder the system cleans.
"""

from __future__ import annotations

import argparse
import sys

from ljtui.cli.output import echo

DEMO_OWN_FLAGS = {"provider": "--provider", "model": "--model", "base_url": "--base-url", "script": "--script",
                  "repo": "--repo"}
"""Flags the demo cannot take: it brings its own model and repository."""


def run_demo(args: argparse.Namespace, command: str | None = None) -> int:
    """Make the demo's repository, open the app on it, and say where the repository is kept.

    Args:
        args: the parsed top-level flags (``--theme`` is honoured).
        command: the sub-command also named on the command line, if any (refused).

    Returns:
        The exit code: the app's, 1 when the repository could not be made, 2 for flags the demo cannot take.
    """
    refused = conflicts(args, command)
    if refused:
        echo(f"ljtui --demo: {refused}", sys.stderr)
        return 2
    from ljtui.demo.repo import DemoFailure, create_demo_repo, forget_demo_repo

    demo = create_demo_repo()
    if isinstance(demo, DemoFailure):
        echo(f"ljtui --demo: {demo.message}", sys.stderr)
        return 1
    from ljtui.demo.app import DemoApp

    app = DemoApp(demo, overrides={"ui.theme": args.theme})
    try:
        app.run()
    finally:
        forget_demo_repo(demo)
        echo(kept_message(str(demo.root), str(demo.root.parent)))
    return app.return_code or 0


def conflicts(args: argparse.Namespace, command: str | None) -> str | None:
    """Why the command line cannot run the demo, or ``None``."""
    if command is not None:
        return f"the demo runs on its own; run `ljtui {command}` without --demo"
    given = [flag for dest, flag in DEMO_OWN_FLAGS.items() if getattr(args, dest, None) is not None]
    if given:
        return f"the demo brings its own recorded model and sample repository; drop {', '.join(given)}"
    return None


def kept_message(root: str, holder: str) -> str:
    """What the user reads after the demo: where its repository is, and how to remove it."""
    return f"The demo's repository is kept in {root} (look around: git log, git diff). Remove it with: rm -r {holder}"
