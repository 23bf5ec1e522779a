"""Undo of the last applied plan from the snapshots the journal keeps.

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

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits.folders import RepoFolders
from ljtui.core.edits.paths import recheck
from ljtui.core.edits.restore import deepest_first
from ljtui.core.edits.transaction import IdFactory, apply_changes, random_id
from ljtui.core.edits.validate import FileChange
from ljtui.core.edits.write_queue import WriteQueueTimeout
from ljtui.core.ports import Clock
from ljtui.core.statedir import StateDirUnsafe

NOTHING_TO_UNDO = "nothing to undo: no applied plan is kept in .agent/journal"


@dataclass
class UndoOutcome:
    """What undo did: ``files`` restored, or ``error`` and nothing written.

    Attributes:
        files: Repo-relative paths written.
        error: Why nothing was written, or ``None``.
        entries: Entry ids of the reverted plan.
        quarantined: Kept snapshots moved aside because they were malformed.
        notes: Things the user should know about the write (see ``TransactionOutcome.notes``).
    """

    files: list[str] = field(default_factory=list)
    error: E.EditError | None = None
    entries: list[str] = field(default_factory=list)
    quarantined: list[J.Quarantined] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

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
    root = root.resolve()
    try:
        if not J.open_journal(root, create=False).is_dir():
            return UndoOutcome(error=E.UndoRefused(None, NOTHING_TO_UNDO))
        with J.journal_lock(root):
            return _undo_locked(root, clock, new_id)
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
    """

    files: list[str] | None = None
    problem: str | None = None
    damaged: bool = False


def undo_preview(root: Path) -> UndoPreview:
    """What undo would restore, checked without writing or moving anything."""
    root = root.resolve()
    try:
        if not J.open_journal(root, create=False).is_dir():
            return UndoPreview()
        snapshots, refused = J.scan_kept(root)
        if refused:
            entry, reason = refused[0]
            return UndoPreview(problem=f"the kept snapshot {entry.name} is damaged ({reason})", damaged=True)
        if not snapshots:
            return UndoPreview()
        group = [(p, m) for p, m in snapshots if m.group == snapshots[0][1].group]
        with RepoFolders(root) as folders:
            _, state, _ = _reverted_state(root, folders, group)
    except _Refusal as refusal:
        error = refusal.outcome.error
        return UndoPreview(problem=error.message if error is not None else "undo is not possible")
    except StateDirUnsafe as exc:
        return UndoPreview(problem=exc.message)
    except OSError as exc:
        return UndoPreview(problem=f"cannot read the journal: {exc.strerror or exc}")
    return UndoPreview(files=list(state))


def _undo_locked(root: Path, clock: Clock | None, new_id: IdFactory) -> UndoOutcome:
    snapshots, refused = J.scan_kept(root)
    if refused:
        moved = [J.quarantine(entry, reason) for entry, reason in refused]
        again = "; run `ljtui undo` again to revert the last plan whose snapshots are intact" if snapshots else ""
        raise _refused("refusing to undo: " + "; ".join(q.line() for q in moved) + again, quarantined=moved)
    if not snapshots:
        return UndoOutcome(error=E.UndoRefused(None, NOTHING_TO_UNDO))
    group = [(p, m) for p, m in snapshots if m.group == snapshots[0][1].group]
    with RepoFolders(root) as folders:
        current, state, modes = _reverted_state(root, folders, group)
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
    return UndoOutcome(outcome.files, entries=entries, notes=outcome.notes)


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


def _reverted_state(root: Path, folders: RepoFolders, group: list[tuple[Path, J.Manifest]]
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
                current[record.path] = state[record.path] = _read_current(root, folders, record.path)
            if J.sha256(state[record.path]) != record.after_sha256:
                changed.append(record.path)
                continue
            state[record.path] = _snapshot_bytes(snap, record) if record.existed else None
            modes[record.path] = record.mode
    if changed:
        raise _refused("refusing to undo: changed since the apply: "
                       f"{', '.join(dict.fromkeys(changed))}; nothing was written")
    return current, state, modes


def _read_current(root: Path, folders: RepoFolders, path: str) -> bytes | None:
    """The bytes of ``path`` now, read through its folder (``None``: it does not exist)."""
    target = recheck(root, path, for_write=False)
    if isinstance(target, E.EditError):
        raise _refused(f"refusing to undo: {target.message}; nothing was written")
    try:
        return folders.read(path)
    except IsADirectoryError:
        raise _refused(f"refusing to undo: {path} is no longer a regular file; nothing was written") from None
    except OSError as exc:
        raise _refused(f"refusing to undo: cannot read {path} ({exc.strerror}); nothing was written") from exc


def _snapshot_bytes(snap: Path, record: J.FileRecord) -> bytes:
    try:
        return J.read_blob(snap, record).data
    except J.ManifestInvalid as exc:
        moved = J.quarantine(snap, str(exc))
        raise _refused(f"refusing to undo: {moved.line()}", quarantined=[moved]) from exc


def _remove_created_dirs(folders: RepoFolders, records: list[J.FileRecord]) -> None:
    """Remove the now-empty folders the reverted transactions created, each before the folder holding it (so
    one a later write created inside one an earlier write created goes first), never through a symlink."""
    for rel in deepest_first(records):
        try:
            folders.remove(rel)
        except OSError:
            pass
