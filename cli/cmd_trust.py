"""``ljtui trust``: let a repository's own files configure endpoints and commands.

Until a repository is trusted, its ``.agent/`` files cannot set provider
URLs or scripts, nor anything that runs a command. Trust covers the
settings as they were when trusted: once they change, the repository is
asked about again. ``ljtui trust [DIR]`` shows what trusting would enable
(and what changed since it was last trusted) and asks; ``--revoke``
forgets a repository; ``--list`` shows every trusted one and whether its
settings still match. A folder no session works in (``/``, the home folder,
one holding ljtui's own config or state) is never trusted; it may be revoked.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ljtui.cli.main import refused_root
from ljtui.cli.output import echo, visible
from ljtui.core.display import shown_line
from ljtui.core.edits.paths import find_repo_root
from ljtui.core.config import enabled_by_trust
from ljtui.core.mcp.config import trust_lines
from ljtui.core.hooks.spec import trust_lines as hook_lines
from ljtui.core.trust import TrustedRepo, TrustStore, change_lines, unbound_lines

EXIT_OK = 0
EXIT_DECLINED = 1
"""Not trusted: the user said no, or the settings cannot be recorded."""
EXIT_USAGE = 2
YES_ANSWERS = ("y", "yes")
PROG = "ljtui trust"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``trust`` command."""
    parser = subparsers.add_parser(
        "trust", help="trust a repository's own settings (endpoints, commands), or revoke that",
        description="Show what a repository's .agent/ files would be allowed to set once trusted, and ask. "
                    "Trust is recorded in your config dir by the repository's real path, with its settings as "
                    "they are then: once they change, the repository is asked about again.")
    parser.add_argument("dir", nargs="?", type=Path, default=None, help="the repository (default: current)")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--revoke", action="store_true", help="stop trusting the repository")
    action.add_argument("--list", action="store_true",
                        help="list every trusted repository and whether its settings changed since")
    parser.add_argument("--yes", action="store_true", help="trust without asking (needed without a terminal)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Trust, revoke or list; exit 0 done, 1 declined, 2 usage error."""
    store = TrustStore.for_env()
    if args.list:
        entries = store.entries()
        for line in store.warnings:
            echo(f"{PROG}: {line}", file=sys.stderr)
        for entry in entries:
            echo(f"{shown_line(entry.path)}  (since {time.strftime('%Y-%m-%d %H:%M', time.localtime(entry.since))})"
                  f"  {_state(store, entry)}")
        if not entries:
            echo("no repository is trusted")
        return EXIT_OK
    start = args.dir or Path.cwd()
    if not start.is_dir():
        echo(f"{PROG}: {_path(start)}: not a directory", file=sys.stderr)
        return EXIT_USAGE
    root = find_repo_root(start)
    if args.revoke:  # forgetting is always allowed, also for a folder no session may open in
        if store.revoke(root):
            echo(f"no longer trusted: {_path(root)}")
        else:
            echo(f"{_path(root)} was not trusted")
        return EXIT_OK
    if refused_root(PROG, root, start):  # no session works there: its settings would never be read
        return EXIT_USAGE
    return _trust(store, root, args.yes)


def _path(path: Path) -> str:
    """A folder's name as it may be printed: every control and invisible character visible."""
    return visible(str(path), exact=True)


def _state(store: TrustStore, entry: TrustedRepo) -> str:
    """Whether a trusted repository's settings still match what was trusted."""
    if not entry.bound:
        return "changed since trusted (recorded by an older ljtui without its settings)"
    folder = Path(entry.path)
    if not folder.is_dir():
        return "folder not found"
    check = store.check(folder)
    if check.trusted:
        return "settings unchanged"
    problems = check.changes.problems if check.changes is not None else ()
    if problems:
        return f"changed since trusted (cannot be checked: {shown_line(problems[0])})"
    return "changed since trusted"


def _trust(store: TrustStore, root: Path, yes: bool) -> int:
    check = store.check(root)
    if check.trusted:
        echo(f"already trusted: {_path(root)}")
        return EXIT_OK
    if check.changes is not None:
        for line in change_lines(check.changes):
            echo(line)
        echo()
    if check.seen.problems:
        for line in unbound_lines(check.seen.problems):
            echo(line, file=sys.stderr)
        return EXIT_DECLINED
    from ljtui.core.config import load_config

    loaded = load_config(root, trusted=False)
    for warning in loaded.warnings:  # a file that is ignored whether trusted or not
        echo(f"{PROG}: {warning}", sys.stderr)
    enables = enabled_by_trust(loaded.ignored) + trust_lines(root) + hook_lines(root)
    echo(f"Trusting {_path(root)} lets its own files:")
    if enables:
        for line in enables:
            echo(f"  - {line}")
    else:
        echo("  - (nothing today: its files set nothing that needs trust)")
    if not yes:
        if not sys.stdin.isatty():
            echo(f"{PROG}: not a terminal, so nothing was recorded; run `ljtui trust --yes {_path(root)}` to trust it",
                  file=sys.stderr)
            return EXIT_USAGE
        sys.stdout.write("Trust this repository? [y/N] ")
        sys.stdout.flush()
        if sys.stdin.readline().strip().lower() not in YES_ANSWERS:
            echo("not trusted")
            return EXIT_DECLINED
    store.trust(root, time.time(), check.seen)
    echo(f"trusted: {_path(root)} (revoke with `ljtui trust --revoke {_path(root)}`)")
    return EXIT_OK
