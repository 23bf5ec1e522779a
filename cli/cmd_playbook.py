"""``ljtui playbook``: read and manage the playbook libraries without the app (PB-7).

::

    ljtui playbook list [--json]
    ljtui playbook show ID [--json]
    ljtui playbook search "TEXT" [--tag TAG …] [--json]
    ljtui playbook promote ID [--yes] [--json]
    ljtui playbook deprecate ID [--json]
    ljtui playbook draft ID [--json]
    ljtui playbook stats [--json]
    ljtui playbook gates [ID] [--json]

Reading works in any repository, trusted or not: it is the user reading
files, not the model being given instructions. Promoting asks on a
terminal; without one the answer is no unless ``--yes``. Warnings about
files that were skipped (with the file and the field) go to stderr.

``gates`` lists the repository's delivery gates (the level you confirmed
them at and the one their record suggests now, R, whether you confirmed
them, their pass rate P and runs) and ``gates ID`` shows one gate's check items, risk and history,
exactly as ``ljtui gates list`` and ``ljtui gates show ID`` do (with the
same ``--json``).

``list --json`` and ``search --json`` print a list of objects with ``id``,
``title``, ``status``, ``stats`` (``uses, ok, fail, last_used,
last_outcome``), ``source``, ``tags`` and ``when_to_use``, and ``score``
for search, best first.

Exit status: 0 done; 1 not found, refused or not written; 2 usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from ljtui.cli.output import echo, json_text, silence_stdout

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
PROG = "ljtui playbook"
JSON_INDENT = 1
GATES_LISTED_BY = "`ljtui playbook gates` lists them"
"""What an unknown gate id's refusal adds: the command that lists the gates."""


class _StderrNotices:
    """The service's events on a terminal: notices on stderr, the rest left to the command's own output."""

    def emit(self, event: Any) -> None:
        from ljtui.core.events import Notice

        if isinstance(event, Notice):
            echo(f"{PROG}: {event.message}", sys.stderr)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``playbook`` command and its actions."""
    parser = subparsers.add_parser(
        "playbook", help="list, show, search, promote, deprecate or draft playbooks; their stats; the gates",
        description="The playbook libraries: this repository's .agent/playbooks/ and your own (in your config "
                    "dir). Reading works in any repository; only a trusted repository's playbooks are offered to "
                    "the model.")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS,
                        help="repository to work in (default: the one holding the current directory)")
    actions = parser.add_subparsers(title="actions", metavar="ACTION", dest="action", required=True)
    for name, help_text in (("list", "every playbook: status, id, record, title"),
                            ("stats", "counts by status, the total record, the most proven and failing")):
        _json_flag(actions.add_parser(name, help=help_text))
    for name, help_text in (("show", "one playbook in full"),
                            ("promote", "make a playbook active (asks; without a terminal needs --yes)"),
                            ("deprecate", "mark a playbook deprecated (no longer recalled)"),
                            ("draft", "send a playbook back to draft (no longer recalled)")):
        action = actions.add_parser(name, help=help_text)
        action.add_argument("id", help="the playbook's id")
        if name == "promote":
            action.add_argument("--yes", action="store_true", help="promote without asking")
        _json_flag(action)
    gates = actions.add_parser("gates", help="the delivery gates: level, confirmed or not, pass rate, runs; "
                                             "with an ID one gate's check items and history (as ljtui gates)")
    gates.add_argument("id", nargs="?", help="the gate's id (`ljtui playbook gates` lists them)")
    _json_flag(gates)
    search = actions.add_parser("search", help="playbooks matching keywords and tags, best first")
    search.add_argument("text", help="keywords (any language)")
    search.add_argument("--tag", action="append", default=[], help="a tag to match (repeatable)")
    _json_flag(search)
    parser.set_defaults(func=run)


def _json_flag(parser: argparse.ArgumentParser) -> None:
    """``--json``, and ``--repo`` again so it works after the action too."""
    parser.add_argument("--json", action="store_true", help="print JSON instead of lines")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS,
                        help="repository to work in (default: the one holding the current directory)")


def run(args: argparse.Namespace) -> int:
    """Carry out the action; see the module docstring for the exit status."""
    from ljtui.cli.main import repo_root_arg

    root = repo_root_arg(args, PROG)
    if root is None:
        return EXIT_USAGE
    if args.action == "gates":
        from ljtui.cli.cmd_gates import show_gates

        return show_gates(root, args.id, args.json, where=f"{PROG} gates", listed_by=GATES_LISTED_BY)
    try:
        return _run(args, root)
    except BrokenPipeError:
        silence_stdout()
        return EXIT_OK


def _run(args: argparse.Namespace, root: Path) -> int:
    from ljtui.cli.approver import CliApprover
    from ljtui.core.playbooks import views
    from ljtui.core.playbooks.service import PlaybookService

    approver = CliApprover(f"{PROG} promote", yes=getattr(args, "yes", False))
    service = PlaybookService(root, _StderrNotices().emit, approver.decide)
    if args.action in ("list", "stats"):
        library = service.load(for_model=False)
        _warn(library.warnings)
        if args.action == "list":
            _print(args, [views.as_json(p) for p in library.playbooks], views.list_lines(library))
        else:
            _print(args, views.stats_json(library), views.stats_lines(library))
        return EXIT_OK
    if args.action == "search":
        hits, library = service.search(args.text, args.tag, for_model=False)
        _warn(library.warnings)
        _print(args, [views.as_json(h.playbook, h.score) for h in hits], views.search_lines(hits))
        return EXIT_OK
    if args.action == "show":
        found = service.find(args.id, for_model=False)
        if found.playbook is None:
            echo(f"{PROG}: {found.message}", sys.stderr)
            return EXIT_FAILED
        path = service.path_of(found.playbook)
        _print(args, views.full_json(found.playbook, path), views.show_lines(found.playbook, path))
        return EXIT_OK
    return _change(args, service)


def _change(args: argparse.Namespace, service: Any) -> int:
    """promote, deprecate or draft: the outcome as a sentence (or JSON), and its exit status."""
    from ljtui.core.playbooks import views
    from ljtui.core.playbooks.model import DEPRECATED, DRAFT

    if args.action == "promote":
        done = asyncio.run(service.promote(args.id))
    else:
        done = service.set_status(args.id, DEPRECATED if args.action == "deprecate" else DRAFT)
    data = {"ok": done.ok, "message": done.message,
            "playbook": views.as_json(done.playbook) if done.playbook else None}
    _print(args, data, [done.message] if done.ok else [], stderr=() if done.ok else (done.message,))
    return EXIT_OK if done.ok else EXIT_FAILED


def _warn(warnings: list[str]) -> None:
    for warning in warnings:
        echo(f"{PROG}: {warning}", sys.stderr)


def _print(args: argparse.Namespace, data: Any, lines: list[str], stderr: tuple[str, ...] = ()) -> None:
    if args.json:
        print(json_text(data, indent=JSON_INDENT))  # a lone surrogate as its escape
    else:
        for line in lines:
            echo(line)
        for line in stderr:
            echo(f"{PROG}: {line}", sys.stderr)
    sys.stdout.flush()
