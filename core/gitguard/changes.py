"""What changed between two snapshots, and how it is shown: a unified diff of every file, exact to the byte.

A file's diff is drawn by :func:`~ljtui.core.edits.diffs.unified_diff`, the
same drawing every write dialog uses (controls, invisible characters,
line endings and binary content shown as they are). Links, folders and
modes are said in words.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ljtui.core.display import shown_line
from ljtui.core.edits.diffs import unified_diff
from ljtui.core.edits.validate import FileChange
from ljtui.core.gitguard.snapshot import FILE, FOLDER, LINK, Entry, Snapshot

EXECUTABLE_BITS = 0o111


@dataclass(frozen=True)
class Change:
    """One watched path that is not as it was.

    Attributes:
        path: real path relative to the repository root.
        before: its state before (``None``: it did not exist).
        after: its state now (``None``: it is gone).
    """

    path: str
    before: Entry | None
    after: Entry | None

    @property
    def verb(self) -> str:
        """``added``, ``removed`` or ``changed``."""
        return "added" if self.before is None else "removed" if self.after is None else "changed"


def compare(before: Snapshot, after: Snapshot) -> list[Change]:
    """Every path whose state differs, sorted by path (a folder before what is below it)."""
    changes = []
    for path in sorted(set(before.entries) | set(after.entries)):
        old, new = before.entries.get(path), after.entries.get(path)
        if old != new:
            changes.append(Change(path, old, new))
    return changes


def summary(changes: list[Change]) -> str:
    """``.git/hooks/pre-commit added, .git/config changed`` (at most five named, then a count)."""
    named = [f"{shown_line(c.path)} {c.verb}" for c in changes[:5]]
    more = len(changes) - len(named)
    return ", ".join(named) + (f" and {more} more" if more else "")


def lines(root: Path, changes: list[Change]) -> list[str]:
    """The dialog's body: each change's header and diff."""
    out: list[str] = []
    for change in changes:
        out.extend(_lines(root, change))
        out.append("")
    return out[:-1] if out else out


def _lines(root: Path, change: Change) -> list[str]:
    old, new = change.before, change.after
    name = shown_line(change.path)
    header = f"{change.verb}: {name} ({_what(new or old)})"
    said = [header]
    if old is not None and new is not None and old.kind != new.kind:
        said = [f"changed: {name} was {_what(old)}, is now {_what(new)}"]
    elif old is not None and new is not None and old.mode != new.mode:
        said.append(f"mode {old.mode:o} -> {new.mode:o}" + (" (now executable)" if _runs(new) and not _runs(old)
                                                            else ""))
    if LINK in (_kind(old), _kind(new)):
        said.extend(f"{side} -> {shown_line(entry.target)}" for side, entry in (("was", old), ("now", new))
                    if entry is not None and entry.kind == LINK)
    if FILE in (_kind(old), _kind(new)):
        said.extend(_file_diff(root, change))
    return said


def _file_diff(root: Path, change: Change) -> list[str]:
    old = change.before if change.before is not None and change.before.kind == FILE else None
    new = change.after if change.after is not None and change.after.kind == FILE else None
    for entry in (old, new):
        if entry is not None and entry.data is None:
            return [f"{'before' if entry is old else 'now'}: {entry.size} bytes, sha256 {entry.digest} "
                    "(too large to show)" for entry in (old, new) if entry is not None]
    if old is not None and new is not None and old.data == new.data:
        return []
    diff = unified_diff(FileChange(change.path, root / change.path, old.data if old else None,
                                   new.data if new else None))
    return diff.splitlines()


def _kind(entry: Entry | None) -> str:
    return entry.kind if entry is not None else ""


def _runs(entry: Entry) -> bool:
    return entry.kind == FILE and bool(entry.mode & EXECUTABLE_BITS)


def _what(entry: Entry | None) -> str:
    if entry is None:
        return "nothing"
    if entry.kind == FILE:
        return "an executable file" if _runs(entry) else "a file"
    return {LINK: "a link", FOLDER: "a folder"}.get(entry.kind, "a special file")
