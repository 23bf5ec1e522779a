"""The atomic, crash-safe write of a set of file changes.

Every file and folder is reached through folder descriptors
(:class:`~ljtui.core.edits.folders.RepoFolders`): each folder is opened from
the repository root one name at a time without following a link, and each
file is created, read, renamed and removed relative to its folder's
descriptor, so a folder swapped for a symlink can never redirect a byte.

Order of operations, each step durable before the next:

1. lock the journal; re-check every target path (inside the root, not
   protected, not read-only, no symlink on the way); open each target's
   folder (refused when it is a symlink by then) and, through it, snapshot
   every target (:mod:`.snapshot`: hard link of the original inode into
   the journal, else a copy of the file opened) and check it still holds
   the validated bytes (else ``StalePlan``, nothing written);
2. write the manifest (temp + fsync + rename + directory fsync) in the
   journal folder, reached the same way;
3. for each target: check its folder's path still leads to the folder
   opened in step 1 (else refused), create its missing folders inside it,
   write a temp file there (``.ljtui-<id>-<n>.tmp``, short whatever the
   target's name, never through a link) carrying the old file's mode,
   owner, group and extended attributes, fsync, rename it over the target
   within that folder; then fsync every touched folder; a change that sets
   the executable bit (a diff's mode change) gives the temp file that mode
   instead;
4. verify every target reads back as intended through its folder (bytes,
   and the executable bit a change sets), and that each folder's path still
   leads to the folder written in (one moved away meanwhile is refused);
5. commit: rename ``tx-<id>`` to ``last-<id>`` within the journal folder
   (kept for undo) or remove it.

Any error before the commit restores every file from the journal, through
the same folder descriptors, so the bytes go back where they were written.
"""

from __future__ import annotations

import dataclasses
import os
import stat
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits.folders import FOLDER_MODE, FolderRefused, RepoFolders, split
from ljtui.core.edits.journal_kept import prune_kept, pruned_note
from ljtui.core.edits.manifest import ID_PATTERN, MANIFEST_TEMP
from ljtui.core.edits.restore import RestoreRefused, restore
from ljtui.core.edits.snapshot import Prepared, Refused, escape, folder_now, snapshot_target, with_executable
from ljtui.core.edits.validate import FileChange
from ljtui.core.edits.write_queue import WriteQueueTimeout
from ljtui.core.ports import Clock, SystemClock
from ljtui.core.statedir import StateDirUnsafe

IdFactory = Callable[[], str]

ID_LENGTH = 12


def random_id() -> str:
    """A fresh transaction id."""
    return uuid.uuid4().hex[:ID_LENGTH]


@dataclass
class TransactionOutcome:
    """What a transaction did.

    Attributes:
        id: The transaction id.
        files: Repo-relative paths written (empty when nothing was written).
        error: Why it did not commit, or ``None``.
        notes: Things the user should know about a committed write, e.g. a
            file whose other hard links keep the old content.
    """

    id: str
    files: list[str] = field(default_factory=list)
    error: E.EditError | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every change was written and verified."""
        return self.error is None


class Transaction:
    """One journaled write of a set of :class:`FileChange`."""

    def __init__(self, root: Path, changes: Sequence[FileChange], *, clock: Clock | None = None,
                 new_id: IdFactory = random_id, kind: str = "apply", entries: Sequence[str] = (),
                 keep_snapshot: bool = True, group: str | None = None, lock_held: bool = False,
                 turn_held: bool = False) -> None:
        self.root = root.resolve()
        self.changes = list(changes)
        self.clock = clock or SystemClock()
        self.id = new_id()
        self.kind = kind
        self.entries = list(entries)
        self.keep_snapshot = keep_snapshot
        self.group = group or self.id
        self.lock_held = lock_held
        self.turn_held = turn_held
        """The caller already holds this process's write turn of the repository (:mod:`.write_queue`)."""
        for value in (self.id, self.group):
            if not ID_PATTERN.fullmatch(value):
                raise ValueError(f"transaction id {value!r} is not letters, digits, _ and - (at most 64)")
        self.dir = J.journal_dir(self.root) / f"{J.TX_PREFIX}{self.id}"
        self.folders = RepoFolders(self.root)
        """Every folder the transaction reads and writes in, journal included (closed when it ends)."""
        self.notes: list[str] = []
        self.started = 0
        """How many targets the write step has begun on (a rollback restores only those)."""

    def run(self) -> TransactionOutcome:
        """Write every change or none; see the module docstring for the steps."""
        try:
            J.ensure_agent_gitignore(self.root)
            if self.lock_held:
                return self._locked()
            with J.journal_lock(self.root, queued=not self.turn_held):
                return self._locked()
        except J.JournalBusy as busy:
            return TransactionOutcome(self.id, error=E.ApplyInProgress(None, busy.message()))
        except WriteQueueTimeout as slow:
            return TransactionOutcome(self.id, error=E.ApplyInProgress(None, f"{slow}; nothing was written"))
        except StateDirUnsafe as exc:
            return TransactionOutcome(self.id, error=E.StateDirRefused(None, exc.message))
        except OSError as exc:
            return TransactionOutcome(self.id, error=E.WriteFailed(None, f"cannot use the journal: {exc}"))
        finally:
            self.folders.close()

    def _rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def _locked(self) -> TransactionOutcome:
        journal = J.open_journal(self.root, create=True)
        self.dir = journal / f"{J.TX_PREFIX}{self.id}"
        os.mkdir(self.dir.name, dir_fd=self.folders.fd(self._rel(journal)))
        try:
            os.mkdir(J.BLOBS, dir_fd=self.folders.fd(self._rel(self.dir)))
            prepared = self._snapshot()
        except BaseException as exc:
            J.discard(self.dir)
            if isinstance(exc, Refused):
                return TransactionOutcome(self.id, error=exc.error)
            if isinstance(exc, OSError):
                return TransactionOutcome(self.id, error=E.WriteFailed(None, f"cannot snapshot targets: {exc}"))
            raise
        manifest = J.Manifest(self.id, self.clock.now(), self.kind, [p.record for p in prepared], self.entries,
                              self.group, sequence=J.next_sequence(self.root))
        self.folders.fsync(self._rel(self.dir / J.BLOBS))
        self._save(manifest)
        for directory in (journal, journal.parent, self.root):
            self.folders.fsync(self._rel(directory))
        try:
            self._write_all(prepared)
            self._verify(prepared)
        except BaseException as exc:
            return self._roll_back(manifest, exc)
        self._commit()
        return TransactionOutcome(self.id, [p.change.path for p in prepared], notes=self.notes)

    def _save(self, manifest: J.Manifest) -> None:
        """Write the manifest in the journal folder: temp, fsync, rename, folder fsync (as :meth:`Manifest.save`)."""
        folder = self.folders.fd(self._rel(self.dir))
        J.write_durable(MANIFEST_TEMP, manifest.to_json(), dir_fd=folder)
        os.replace(MANIFEST_TEMP, J.MANIFEST, src_dir_fd=folder, dst_dir_fd=folder)
        os.fsync(folder)

    def _roll_back(self, manifest: J.Manifest, exc: BaseException) -> TransactionOutcome:
        """Restore the files whose writing began (the others were never touched), then drop the journal."""
        try:
            restore(self.root, self.dir, dataclasses.replace(manifest, files=manifest.files[:self.started]),
                    self.folders, held=True)
        except (OSError, RestoreRefused) as rollback:
            return TransactionOutcome(self.id, error=E.WriteFailed(
                None, f"{exc}; rollback incomplete ({rollback}); the journal is kept: run `ljtui recover`"))
        J.discard(self.dir)
        if isinstance(exc, Refused):
            return TransactionOutcome(self.id, error=dataclasses.replace(
                exc.error, message=f"{exc.error.message}; every file was rolled back"))
        if not isinstance(exc, (OSError, _VerifyError)):
            raise exc
        error_type = E.VerifyFailed if isinstance(exc, _VerifyError) else E.WriteFailed
        return TransactionOutcome(self.id, error=error_type(
            None, f"{exc}; every file was rolled back", file=getattr(exc, "path", None)))

    def _snapshot(self) -> list[Prepared]:
        prepared = []
        seen: set[str] = set()
        blobs = self._rel(self.dir / J.BLOBS)
        for n, change in enumerate(self.changes):
            if change.path in seen:
                raise ValueError(f"{change.path} appears twice in one transaction")
            seen.add(change.path)
            prepared.append(snapshot_target(self.root, self.folders, blobs, self.id, n, change, self.notes))
        return prepared

    def _write_all(self, prepared: list[Prepared]) -> None:
        touched: set[str] = set()
        checked: set[str] = set()
        new_mode = J.new_file_mode()
        for n, item in enumerate(prepared):
            change, record = item.change, item.record
            self._still_in_place(item, checked)
            self.started = n + 1
            try:
                for rel in record.created_dirs:
                    parent, name = split(rel)
                    try:
                        os.mkdir(name, FOLDER_MODE, dir_fd=self.folders.fd(parent))
                    except FileExistsError:
                        pass
                    touched.add(parent)
                folder = self.folders.fd(item.folder)
            except FolderRefused as exc:
                raise escape(change.path, f": {exc}") from None
            name = split(change.path)[1]
            if change.after is None:
                try:
                    os.unlink(name, dir_fd=folder)
                except FileNotFoundError:
                    pass
            else:
                temp = split(record.temp)[1]
                mode = new_mode if change.mode is None else with_executable(new_mode, change.mode)
                self.notes.extend(J.write_durable(temp, change.after, mode, keep=item.keep, shown=record.path,
                                                  dir_fd=folder))
                os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            touched.add(item.folder)
        for folder_path in touched:
            self.folders.fsync(folder_path)

    def _still_in_place(self, item: Prepared, checked: set[str]) -> None:
        """Right before writing: the target's folder is still the one snapshotted, and the file is no symlink.

        Every path was fully re-checked when the transaction snapshotted it;
        this repeats the part a concurrent change could undo, once per folder
        per pass (the write itself goes through the folder's descriptor, so
        a swap after this check still cannot redirect it).
        """
        if item.anchor not in checked:
            if self.folders.moved(item.anchor):
                raise escape(item.change.path, f": its folder {folder_now(self.root, item.folder)}; refusing to "
                                               "write through it")
            checked.add(item.anchor)
        try:
            st = self.folders.lstat(item.change.path)
        except FolderRefused as exc:
            raise escape(item.change.path, f": {exc}") from None
        if st is not None and stat.S_ISLNK(st.st_mode):
            raise escape(item.change.path, " became a symlink; refusing to write through it")

    def _verify(self, prepared: list[Prepared]) -> None:
        for item in prepared:
            wanted = item.change.mode
            try:
                data = self.folders.read(item.change.path)
                st = self.folders.lstat(item.change.path) if data is not None and wanted is not None else None
            except OSError:
                raise _VerifyError(item.change.path) from None
            if data != item.change.after:
                raise _VerifyError(item.change.path)
            if wanted is not None and st is not None and bool(st.st_mode & 0o111) != bool(wanted & 0o111):
                raise _VerifyError(item.change.path)
        for folder, path in {item.folder: item.change.path for item in prepared}.items():
            if self.folders.moved(folder):
                raise escape(path, f": while it was written, its folder {folder_now(self.root, folder)}; the write "
                                   "is refused")

    def _commit(self) -> None:
        journal = self.folders.fd(self._rel(self.dir.parent))
        if self.keep_snapshot:
            os.replace(self.dir.name, f"{J.LAST_PREFIX}{self.id}", src_dir_fd=journal, dst_dir_fd=journal)
            os.fsync(journal)
            pruned = prune_kept(self.root)
            if pruned:
                self.notes.append(pruned_note(pruned))
        else:
            J.discard(self.dir)


class _VerifyError(Exception):
    def __init__(self, path: str) -> None:
        super().__init__(f"{path} did not read back as written")
        self.path = path


def apply_changes(root: Path, changes: Sequence[FileChange], *, clock: Clock | None = None,
                  new_id: IdFactory = random_id, kind: str = "apply", entries: Sequence[str] = (),
                  keep_snapshot: bool = True, group: str | None = None, lock_held: bool = False,
                  turn_held: bool = False) -> TransactionOutcome:
    """Write ``changes`` atomically under ``root``, all or nothing.

    Args:
        root: Repository root (``.agent/journal`` lives under it).
        changes: Files to write (``after=None`` removes the file); one change per path.
        clock: Time source for the manifest timestamp.
        new_id: Transaction id factory.
        kind: ``apply`` or ``undo``, recorded in the manifest.
        entries: Entry ids this transaction applies, recorded for undo.
        keep_snapshot: Keep the journal as ``last-<id>`` so ``undo`` can revert it.
        group: Id shared by the transactions of one plan (default: this one's id); committing keeps the
            snapshots of the newest ``journal_kept.MAX_KEPT_GROUPS`` groups and drops older ones (said in ``notes``).
        lock_held: The caller already holds the journal lock (undo does).
        turn_held: The caller already holds this process's write turn (the agent's writer does).

    Returns:
        A :class:`TransactionOutcome`; on error no file is changed.
    """
    return Transaction(root, changes, clock=clock, new_id=new_id, kind=kind, entries=entries,
                       keep_snapshot=keep_snapshot, group=group, lock_held=lock_held,
                       turn_held=turn_held).run()
