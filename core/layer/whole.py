"""The layer's binary files, delivered whole: named by size and hash, asked for once, written in one transaction.

A text diff cannot carry a binary file, so the review leaves it out and
names it (:func:`~ljtui.core.layer.diff.describe_whole`). This module takes
those entries to the user's tree when the user asks for them: each one is
shown with what it does, its size and its hash; a yes writes all of them
through the patcher's journaled transaction (``ljtui undo`` reverts it), and
the layer lets go of them. What cannot go is said, never skipped silently:

* a symbolic link (the transaction writes regular files only: the line
  names the link's target, for the user to make it by hand);
* an entry the user's tree changed under (stale: never overwritten);
* a path the tree may not be written at (``.git``, ``.agent``, outside the
  repository, a read-only file: the same refusals as every apply).

Every function does disk work: call it from a thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ljtui.core.approval import ApprovalRequest, confirm
from ljtui.core.edits import errors as E
from ljtui.core.edits.paths import resolve_target
from ljtui.core.edits.plan import EXECUTABLE, REGULAR
from ljtui.core.edits.transaction import TransactionOutcome, apply_changes
from ljtui.core.edits.validate import FileChange
from ljtui.core.layer.diff import describe_whole
from ljtui.core.layer.scan import LayerEntry, Side
from ljtui.core.ports import Clock

KIND = "layer_binary"
"""The request kind (policies and scripted answers key on it)."""


@dataclass(frozen=True)
class WholeFiles:
    """The binary entries that can be written, as the transaction's changes, and why the others cannot.

    Attributes:
        entries: the entries the changes carry.
        changes: one :class:`FileChange` per path (a move is its removal and its creation).
        refused: ``(entry line, why)`` of each entry left in the layer.
    """

    entries: tuple[LayerEntry, ...]
    changes: tuple[FileChange, ...]
    refused: tuple[tuple[str, str], ...]

    @property
    def paths(self) -> set[str]:
        """Every tree path the changes touch."""
        return {p for e in self.entries for p in e.paths}


def whole_files(root: Path, entries: Iterable[LayerEntry]) -> WholeFiles:
    """What of ``entries`` (binary files and links of the layer) can be written into the tree at ``root`` now."""
    taken: list[LayerEntry] = []
    changes: list[FileChange] = []
    refused: list[tuple[str, str]] = []
    for entry in entries:
        line = describe_whole(entry)
        if entry.link:
            target = (entry.after.data or b"").decode("utf-8", "replace")
            refused.append((line, f"a symbolic link is not written by ljtui; make it yourself: ln -s {target} "
                                  f"{entry.path}" if entry.after.exists else "a symbolic link is not removed by "
                                  "ljtui; remove it yourself"))
            continue
        if entry.stale:
            refused.append((line, entry.stale))
            continue
        found = _changes(root, entry)
        if isinstance(found, str):
            refused.append((line, found))
            continue
        taken.append(entry)
        changes.extend(found)
    return WholeFiles(tuple(taken), tuple(changes), tuple(refused))


def _changes(root: Path, entry: LayerEntry) -> list[FileChange] | str:
    """The transaction's changes of one entry, or why it cannot be written."""
    out = []
    if entry.moved_from:
        gone = _change(root, entry.moved_from, entry.before, Side())
        if isinstance(gone, str):
            return gone
        out.append(gone)
        before = Side()
    else:
        before = entry.before
    made = _change(root, entry.path, before, entry.after)
    if isinstance(made, str):
        return made
    return [*out, made]


def _change(root: Path, path: str, before: Side, after: Side) -> FileChange | str:
    target = resolve_target(root, path, root_resolved=False, for_write=True)
    if isinstance(target, E.EditError):
        return target.message
    now = target.real.read_bytes() if target.real.is_file() else None
    if now != before.data:
        return "the file changed in your tree since the layer took it; it is never overwritten"
    mode = None
    if after.exists and (not before.exists or before.executable != after.executable):
        mode = EXECUTABLE if after.executable else (REGULAR if before.exists else None)
    return FileChange(target.key, target.real, before.data, after.data, mode)


def request(found: WholeFiles) -> ApprovalRequest:
    """The one question before the binary files are written: each file, what happens to it, size and hash."""
    lines = [f"Write {len(found.entries)} binary file(s) from the layer into your files:", ""]
    lines += [f"  {describe_whole(e)}" for e in found.entries]
    if found.refused:
        lines += ["", "Left in the layer:"] + [f"  {line}: {why}" for line, why in found.refused]
    lines += ["", "They are written in one journaled transaction; `ljtui undo` reverts it."]
    return confirm(KIND, f"Write {len(found.entries)} binary file(s)?", lines, "write them",
                   "cancel, they stay in the layer")


def write(root: Path, found: WholeFiles, clock: Clock | None = None) -> TransactionOutcome:
    """Write ``found``'s changes in one transaction (all or nothing; kept for undo)."""
    return apply_changes(root, list(found.changes), clock=clock, kind="apply", entries=["layer-binary"])
