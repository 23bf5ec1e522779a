"""``ljtui layer diff | apply | drop``: the repository's copy-on-write layer, headless (SPEC LAYER-4).

What the agent's commands and file tools changed waits in the layer until
the user takes it. These commands act on it from a shell, also after a
crash or a headless run that did not apply:

* ``diff`` prints the net change as a git diff, and one line for each
  thing the diff cannot carry (binary files, links, ignored paths, stale
  entries);
* ``apply`` writes the net change into the tree through the same
  journaled, atomic, undoable apply as ``ljtui apply`` (asks first; ``--yes``
  without a terminal), then lets go of what it wrote;
* ``drop`` throws the layer away (asks first).

Exit status: 0 done (or nothing to do), 1 partial, 2 refused, declined or error.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from ljtui.cli.approver import CliApprover
from ljtui.cli.output import echo, visible
from ljtui.core.approval import YES, confirm
from ljtui.core.events import Event, Notice

PROG = "ljtui layer"
EXIT_OK, EXIT_PARTIAL, EXIT_REFUSED = 0, 1, 2


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``layer`` command."""
    parser = subparsers.add_parser(
        "layer", help="the copy-on-write layer: diff, apply or drop what the agent changed",
        description="What the agent's commands and writes changed waits in a copy-on-write layer over the "
                    "repository until you take it. diff: print it; apply: write it into your files (atomic, "
                    "undoable with `ljtui undo`); drop: throw it away. Exit 0: done; 1: partial; 2: refused.")
    parser.add_argument("action", choices=("diff", "apply", "drop"))
    parser.add_argument("--yes", action="store_true", help="apply or drop without asking (needed without a terminal)")
    parser.add_argument("--commit", metavar="MESSAGE",
                        help="apply: then commit exactly the files written, with MESSAGE (nothing else you staged)")
    parser.add_argument("--repo", type=Path, default=argparse.SUPPRESS, help="repository root (default: from cwd)")
    parser.set_defaults(func=run)


class _Say:
    def emit(self, event: Event) -> None:
        if isinstance(event, Notice):
            echo(f"{PROG}: {event.message}", sys.stderr)


def run(args: argparse.Namespace) -> int:
    """Print, apply or drop the layer of the repository."""
    from ljtui.cli.main import repo_root_arg

    root = repo_root_arg(args, PROG)
    if root is None:
        return EXIT_REFUSED
    from ljtui.core.config import load_config
    from ljtui.core.layer.review import summarize
    from ljtui.core.layer.service import Layer

    config = load_config(repo_root=root).config
    # agent.layer: off keeps new sessions out of a layer; what an earlier one left is still the user's to see,
    # take or drop.
    layer = Layer(root, "auto" if config.agent.layer == "off" else config.agent.layer)
    if not layer.place.exists():
        echo("The layer holds no change." if layer.status.layered else f"No layer here: {layer.status.why}.")
        return EXIT_OK
    with layer.holding():
        found = summarize(layer.change())
    if args.action == "diff":
        for line in found.lines():
            echo(line, sys.stderr)
        if found.text:
            sys.stdout.write(visible(found.text))
        elif found.empty:
            echo("The layer holds no change.")
        return EXIT_OK
    approver = CliApprover(PROG, yes=args.yes)
    if args.action == "drop":
        lines = [f"{len(found.reviewed) + len(found.whole) + len(found.ignored) + len(found.stale)} change(s) "
                 "are thrown away; your files stay as they are."]
        decision = asyncio.run(approver.decide(confirm("layer_drop", "Drop the layer?", lines, "drop",
                                                       "keep the layer")))
        if decision.choice != YES:
            echo(f"{PROG}: the layer is kept", sys.stderr)
            return EXIT_REFUSED
        with layer.holding():
            layer.drop()
        echo("dropped the layer")
        return EXIT_OK
    if args.commit is not None and not args.commit.strip():
        echo(f"{PROG}: --commit needs a message", sys.stderr)
        return EXIT_REFUSED
    from ljtui.core.gates.layer_run import blocker_at

    held_back = blocker_at(root, layer)
    if held_back:
        echo(f"{PROG}: nothing was applied: {held_back}", sys.stderr)
        return EXIT_REFUSED
    status, written = _apply(root, layer, found, approver)
    if found.whole and status == EXIT_OK:
        status, binary = _apply_binary(root, layer, found, approver)
        written += binary
    if args.commit is not None and status == EXIT_OK and written:
        return _commit(root, written, args.commit)
    return status


def _commit(root: Path, paths: list[str], message: str) -> int:
    """Commit exactly ``paths`` with ``message`` (:func:`~ljtui.core.layer.commit.commit_files`: no hook, filter or
    signing program of the repository's runs); what else is staged stays staged."""
    from ljtui.core.layer.commit import commit_files

    head, why = commit_files(root, paths, message)
    if not head:
        echo(f"{PROG}: the change is applied, but git could not commit it: {why}", sys.stderr)
        return EXIT_PARTIAL
    echo(f"committed {len(paths)} file(s) as {head} (without the repository's hooks)")
    return EXIT_OK


def _apply(root: Path, layer: object, found: object, approver: CliApprover) -> tuple[int, list[str]]:
    """Apply the layer's text change; the exit status and the files written."""
    from ljtui.cli.session import headless_edits
    from ljtui.core.edits.service import ApplyOptions
    from ljtui.core.layer.review import ORIGIN, LayerSummary
    from ljtui.core.layer.service import Layer
    from ljtui.core.review.requests import ChangeText

    assert isinstance(layer, Layer) and isinstance(found, LayerSummary)
    for line in found.lines():
        echo(line, sys.stderr)
    if not found.text:
        if not found.whole:
            echo("nothing to apply as text")
        return EXIT_OK, []
    edits = headless_edits(PROG, root, _Say(), approver)
    outcome = asyncio.run(edits.apply_change(ChangeText(found.text, ORIGIN), ApplyOptions(), "diff"))
    result = outcome.result
    for path in result.files:
        echo(f"wrote {path}")
    for failed in result.failed:
        echo(f"failed entry {failed.entry_id}: {failed.reason}", sys.stderr)
    echo(f"{result.status}" + (f": {result.message}" if result.message else ""), sys.stderr)
    if result.files:
        written = set(result.files)
        decided = {p for e in found.reviewed for p in e.paths if set(e.paths) <= written}
        left = _settle(layer, decided)
        if left is not None and left.entries:
            echo(f"the layer still holds {len(left.entries)} change(s): `ljtui layer diff` shows them", sys.stderr)
    return result.exit_code, sorted(result.files)


def _apply_binary(root: Path, layer: object, found: object, approver: CliApprover) -> tuple[int, list[str]]:
    """Write the layer's binary files whole, after asking (their sizes and hashes listed); the exit status and the
    files written."""
    from ljtui.core.layer import whole
    from ljtui.core.layer.review import LayerSummary
    from ljtui.core.layer.service import Layer

    assert isinstance(layer, Layer) and isinstance(found, LayerSummary)
    taken = whole.whole_files(root, found.whole)
    for line, why in taken.refused:
        echo(f"{PROG}: left in the layer: {line}: {why}", sys.stderr)
    if not taken.entries:
        return (EXIT_PARTIAL if taken.refused else EXIT_OK), []
    if asyncio.run(approver.decide(whole.request(taken))).choice != YES:
        echo(f"{PROG}: the binary files stay in the layer", sys.stderr)
        return EXIT_REFUSED, []
    outcome = whole.write(root, taken)
    if outcome.error is not None:
        echo(f"{PROG}: no binary file was written: {outcome.error.message}", sys.stderr)
        return EXIT_REFUSED, []
    _settle(layer, taken.paths)
    for path in outcome.files:
        echo(f"wrote {path}")
    return (EXIT_PARTIAL if taken.refused else EXIT_OK), sorted(outcome.files)


def _settle(layer: object, decided: set[str]) -> object | None:
    """Let go of what the tree now has; say so when the layer cannot be rebuilt (the apply stands)."""
    from ljtui.core.layer.service import Layer, LayerUnavailable

    assert isinstance(layer, Layer)
    try:
        with layer.holding():
            return layer.settle(decided)
    except (LayerUnavailable, OSError) as exc:
        echo(f"{PROG}: the change is in your files, but the layer could not let go of it ({exc}); "
             "`ljtui layer drop` throws the layer away", sys.stderr)
        return None
