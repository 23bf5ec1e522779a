"""``ljtui trust``: let a repository's own files configure endpoints and commands.

Until a repository is trusted, its ``.agent/`` files cannot set provider
URLs or scripts, nor anything that runs a command. ``ljtui trust [DIR]``
shows what trusting would enable and asks; ``--revoke`` forgets a
repository; ``--list`` shows every trusted one.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ljtui.core.edits.paths import find_repo_root
from ljtui.core.trust import TrustStore, trust_would_enable

EXIT_OK = 0
EXIT_DECLINED = 1
EXIT_USAGE = 2
YES_ANSWERS = ("y", "yes")
PROG = "ljtui trust"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``trust`` command."""
    parser = subparsers.add_parser(
        "trust", help="trust a repository's own settings (endpoints, commands), or revoke that",
        description="Show what a repository's .agent/ files would be allowed to set once trusted, and ask. "
                    "Trust is recorded in your config dir by the repository's real path.")
    parser.add_argument("dir", nargs="?", type=Path, default=None, help="the repository (default: current)")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--revoke", action="store_true", help="stop trusting the repository")
    action.add_argument("--list", action="store_true", help="list every trusted repository")
    parser.add_argument("--yes", action="store_true", help="trust without asking (needed without a terminal)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Trust, revoke or list; exit 0 done, 1 declined, 2 usage error."""
    store = TrustStore.for_env()
    if args.list:
        entries = store.entries()
        for line in store.warnings:
            print(f"{PROG}: {line}", file=sys.stderr)
        for entry in entries:
            print(f"{entry.path}  (since {time.strftime('%Y-%m-%d %H:%M', time.localtime(entry.since))})")
        if not entries:
            print("no repository is trusted")
        return EXIT_OK
    start = args.dir or Path.cwd()
    if not start.is_dir():
        print(f"{PROG}: {start}: not a directory", file=sys.stderr)
        return EXIT_USAGE
    root = find_repo_root(start)
    if args.revoke:
        if store.revoke(root):
            print(f"no longer trusted: {root}")
        else:
            print(f"{root} was not trusted")
        return EXIT_OK
    return _trust(store, root, args.yes)


def _trust(store: TrustStore, root: Path, yes: bool) -> int:
    if store.is_trusted(root):
        print(f"already trusted: {root}")
        return EXIT_OK
    enables = trust_would_enable(root)
    print(f"Trusting {root} lets its own files:")
    if enables:
        for line in enables:
            print(f"  - {line}")
    else:
        print("  - (nothing today: its files set nothing that needs trust)")
    if not yes:
        if not sys.stdin.isatty():
            print(f"{PROG}: not a terminal, so nothing was recorded; run `ljtui trust --yes {root}` to trust it",
                  file=sys.stderr)
            return EXIT_USAGE
        sys.stdout.write("Trust this repository? [y/N] ")
        sys.stdout.flush()
        if sys.stdin.readline().strip().lower() not in YES_ANSWERS:
            print("not trusted")
            return EXIT_DECLINED
    store.trust(root, time.time())
    print(f"trusted: {root} (revoke with `ljtui trust --revoke {root}`)")
    return EXIT_OK
