"""Undo of applied plans, newest first, from the snapshots the journal keeps.

The journal keeps the snapshots of the newest applies (``MAX_KEPT_GROUPS``
groups), so undo goes back one apply at a time; :func:`revert_groups`
reverts several at once (a rewind), all or nothing.

The snapshots (``last-*``) live in the untrusted repository. Under the
journal lock, every one is checked; a malformed one is quarantined and the
undo refused with the reason (run it again to revert the plan whose
snapshots are intact). Every path is re-checked before it is read and again
when it is written; a file changed since the apply is never overwritten.
Files are read, and folders removed, through folder descriptors
(:class:`~ljtui.core.edits.folders.RepoFolders`); the write itself is a
transaction (:mod:`.transaction`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits import journal_kept as K
from ljtui.core.edits.folders import RepoFolders
from ljtui.core.edits.paths import recheck
from ljtui.core.edits.restore import deepest_first
from ljtui.core.edits.transaction import IdFactory, apply_changes, random_id
from ljtui.core.edits.validate import FileChange
from ljtui.core.edits.write_queue import WriteQueueTimeout
from ljtui.core.ports import Clock
from ljtui.core.statedir import StateDirUnsafe

NOTHING_TO_UNDO = "nothing to undo: no applied plan is kept in .agent/journal"
Snapshots = list[tuple[Path, J.Manifest]]
Pick = Callable[[Snapshots], Snapshots]
"""Chooses, from the kept snapshots (newest first), those to revert."""


def newest_group(snapshots: Snapshots) -> Snapshots:
    """The snapshots of the newest apply (one plan's chunks, or one message's writes)."""
    return [(p, m) for p, m in snapshots if m.group == snapshots[0][1].group] if snapshots else []


@dataclass
class UndoOutcome:
    """What undo did: ``files`` restored, or ``error`` and nothing written.

    Attributes:
        files: Repo-relative paths written.
        error: Why nothing was written, or ``None``.
        entries: Entry ids of the reverted plan.
        quarantined: Kept snapshots moved aside because they were malformed.
        notes: Things the user should know about the write (see ``TransactionOutcome.notes``).
        removed: The files among ``files`` that were deleted (the reverted applies created them).
        remaining: Applies still kept after this one, that undo can revert next.
    """

    files: list[str] = field(default_factory=list)
    error: E.EditError | None = None
    entries: list[str] = field(default_factory=list)
    quarantined: list[J.Quarantined] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    remaining: int = 0

    @property
    def ok(self) -> bool:
        """True when the last plan was reverted."""
        return self.error is None


class _Refusal(Exception):
    def __init__(self, outcome: UndoOutcome) -> None:
        super().__init__(outcome.error.message if outcome.error else "")
        self.outcome = outcome


def _refused(message: str, quarantined: list[J.Quarantined] | None = None) -> _Refusal:
    return _Refusal(UndoOutcome(error=E.UndoRefused(None, message), quarantined=quarantined or []))


def undo_last(root: Path, *, clock: Clock | None = None, new_id: IdFactory = random_id) -> UndoOutcome:
    """Revert the last applied plan (all its chunks) from its kept snapshots.

    Refuses, writing nothing, when any file it wrote changed since, when a
    path is no longer safe to write, or when a snapshot is malformed.
    """
    return revert_groups(root, newest_group, clock=clock, new_id=new_id)


def revert_groups(root: Path, pick: Pick, *, clock: Clock | None = None, new_id: IdFactory = random_id,
                  nothing: str = NOTHING_TO_UNDO, doing: str = "undo") -> UndoOutcome:
    """Revert the kept applies ``pick`` chooses, newest first, in one transaction: all or nothing.

    Args:
        root: The repository root.
        pick: Chooses the snapshots to revert among those kept (newest first).
        clock, new_id: As for the transaction.
        nothing: The refusal when ``pick`` chooses none.
        doing: The word refusals use (``undo``, ``rewind``).
    """
    root = root.resolve()
    try:
        if not J.open_journal(root, create=False).is_dir():
            return UndoOutcome(error=E.UndoRefused(None, nothing))
        with J.journal_lock(root):
            return _undo_locked(root, clock, new_id, pick, nothing, doing)
    except _Refusal as refusal:
        return refusal.outcome
    except J.JournalBusy as busy:
        return UndoOutcome(error=E.ApplyInProgress(None, busy.message()))
    except WriteQueueTimeout as slow:
        return UndoOutcome(error=E.ApplyInProgress(None, f"{slow}; nothing was written"))
    except StateDirUnsafe as exc:
        return UndoOutcome(error=E.StateDirRefused(None, exc.message))
    except OSError as exc:
        return UndoOutcome(error=E.WriteFailed(None, f"cannot use the journal: {exc}; nothing was written"))


@dataclass(frozen=True)
class UndoPreview:
    """What undo would do, found without writing or moving anything.

    Attributes:
        files: the files undo would restore, when it can.
        problem: why it would refuse (``None`` with no files: nothing was applied).
        damaged: a kept snapshot fails its checks; undo only sets it aside
            (no file of the repository is written), so it needs no confirmation.
        deleted: the files among ``files`` undo deletes (the apply created them).
        recreated: the files among ``files`` undo writes back (the apply deleted them).
    """

    files: list[str] | None = None
    problem: str | None = None
    damaged: bool = False
    deleted: tuple[str, ...] = ()
    recreated: tuple[str, ...] = ()

    def file_lines(self, indent: str = "  ") -> list[str]:
        """One line per file, saying what happens to it: ``delete a.py (created by the apply)``, ``restore b.py``."""
        return [indent + file_word(path, self.deleted, self.recreated) for path in self.files or ()]


def file_word(path: str, deleted: tuple[str, ...] | list[str], recreated: tuple[str, ...] | list[str]) -> str:
    """What undoing does to ``path``, in words."""
    if path in deleted:
        return f"delete {path} (created by the apply)"
    if path in recreated:
        return f"recreate {path} (deleted by the apply)"
    return f"restore {path}"


def undo_preview(root: Path, pick: Pick = newest_group, doing: str = "undo") -> UndoPreview:
    """What undo (or reverting what ``pick`` chooses) would restore, checked without writing or moving anything."""
    root = root.resolve()
    try:
        if not J.open_journal(root, create=False).is_dir():
            return UndoPreview()
        snapshots, refused = J.scan_kept(root)
        if refused:
            entry, reason = refused[0]
            return UndoPreview(problem=f"the kept snapshot {entry.name} is damaged ({reason})", damaged=True)
        group = pick(snapshots)
        if not group:
            return UndoPreview()
        with RepoFolders(root) as folders:
            current, state, _ = _reverted_state(root, folders, group, doing)
    except _Refusal as refusal:
        error = refusal.outcome.error
        return UndoPreview(problem=error.message if error is not None else "undo is not possible")
    except StateDirUnsafe as exc:
        return UndoPreview(problem=exc.message)
    except OSError as exc:
        return UndoPreview(problem=f"cannot read the journal: {exc.strerror or exc}")
    return UndoPreview(files=list(state), deleted=_deleted(current, state), recreated=_deleted(state, current))


def _deleted(current: dict[str, bytes | None], state: dict[str, bytes | None]) -> tuple[str, ...]:
    """The paths that exist in ``current`` and not in ``state``."""
    return tuple(p for p in state if state[p] is None and current.get(p) is not None)


def _undo_locked(root: Path, clock: Clock | None, new_id: IdFactory, pick: Pick, nothing: str,
                 doing: str) -> UndoOutcome:
    snapshots, refused = J.scan_kept(root)
    if refused:
        moved = [J.quarantine(entry, reason) for entry, reason in refused]
        again = f"; run `ljtui {doing}` again to revert the applies whose snapshots are intact" if snapshots else ""
        raise _refused(f"refusing to {doing}: " + "; ".join(q.line() for q in moved) + again, quarantined=moved)
    group = pick(snapshots)
    if not group:
        return UndoOutcome(error=E.UndoRefused(None, nothing))
    with RepoFolders(root) as folders:
        current, state, modes = _reverted_state(root, folders, group, doing)
        changes = []
        for path, after in state.items():
            mode = _mode_back(folders, path, modes.get(path)) if after is not None else None
            if after != current[path] or mode is not None:
                changes.append(FileChange(path, root / path, current[path], after, mode))
    outcome = apply_changes(root, changes, clock=clock, new_id=new_id, kind="undo", keep_snapshot=False,
                            lock_held=True)
    if not outcome.ok:
        return UndoOutcome(error=outcome.error)
    entries: list[str] = []
    with RepoFolders(root) as folders:
        _remove_created_dirs(folders, [record for _, manifest in group for record in manifest.files])
    for snap, manifest in group:
        entries[:0] = manifest.entries
        J.discard(snap)
    reverted = {manifest.group for _, manifest in group}
    remaining = len([g for g in K.kept_groups(snapshots) if g not in reverted])
    return UndoOutcome(outcome.files, entries=entries, notes=outcome.notes, removed=list(_deleted(current, state)),
                       remaining=remaining)


def _mode_back(folders: RepoFolders, path: str, mode: int | None) -> int | None:
    """The executable bit to give back to ``path`` (as its snapshot's ``mode`` has it), when it differs now."""
    if mode is None:
        return None
    try:
        st = folders.lstat(path)
    except OSError:
        return None
    if st is None:
        return None
    return mode if bool(st.st_mode & 0o111) != bool(mode & 0o111) else None


def _reverted_state(root: Path, folders: RepoFolders, group: list[tuple[Path, J.Manifest]], doing: str = "undo"
                    ) -> tuple[dict[str, bytes | None], dict[str, bytes | None], dict[str, int | None]]:
    """Current bytes, bytes after undoing every snapshot of ``group`` (newest first), and the modes the files
    had before the oldest of them."""
    current: dict[str, bytes | None] = {}
    state: dict[str, bytes | None] = {}
    modes: dict[str, int | None] = {}
    changed: list[str] = []
    for snap, manifest in group:
        for record in manifest.files:
            if record.path not in state:
                current[record.path] = state[record.path] = _read_current(root, folders, record.path, doing)
            if J.sha256(state[record.path]) != record.after_sha256:
                changed.append(record.path)
                continue
            state[record.path] = _snapshot_bytes(snap, record, doing) if record.existed else None
            modes[record.path] = record.mode
    if changed:
        raise _refused(f"refusing to {doing}: changed since the apply: "
                       f"{', '.join(dict.fromkeys(changed))}; nothing was written")
    return current, state, modes


def _read_current(root: Path, folders: RepoFolders, path: str, doing: str) -> bytes | None:
    """The bytes of ``path`` now, read through its folder (``None``: it does not exist)."""
    target = recheck(root, path, for_write=False)
    if isinstance(target, E.EditError):
        raise _refused(f"refusing to {doing}: {target.message}; nothing was written")
    try:
        return folders.read(path)
    except IsADirectoryError:
        raise _refused(f"refusing to {doing}: {path} is no longer a regular file; nothing was written") from None
    except OSError as exc:
        raise _refused(f"refusing to {doing}: cannot read {path} ({exc.strerror}); nothing was written") from exc


def _snapshot_bytes(snap: Path, record: J.FileRecord, doing: str) -> bytes:
    try:
        return J.read_blob(snap, record).data
    except J.ManifestInvalid as exc:
        moved = J.quarantine(snap, str(exc))
        raise _refused(f"refusing to {doing}: {moved.line()}", quarantined=[moved]) from exc


def _remove_created_dirs(folders: RepoFolders, records: list[J.FileRecord]) -> None:
    """Remove the now-empty folders the reverted transactions created, each before the folder holding it (so
    one a later write created inside one an earlier write created goes first), never through a symlink."""
    for rel in deepest_first(records):
        try:
            folders.remove(rel)
        except OSError:
            pass
