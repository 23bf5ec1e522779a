"""The atomic, crash-safe write of a set of file changes.

Order of operations, each step durable before the next:

1. lock the journal; re-check every target path (inside the root, not
   protected, not read-only, no symlink on the way); snapshot every target
   (hard link of the original inode into the journal, else a copy) and
   check it still holds the validated bytes (else ``StalePlan``, nothing
   written);
2. write the manifest (temp + fsync + rename + directory fsync);
3. for each target: re-check its path, write a temp file in the same
   directory (``.ljtui-<id>-<n>.tmp``, short whatever the target's name)
   carrying the old file's mode, owner, group and extended attributes,
   fsync, ``os.replace``; then fsync every touched directory;
   a change that sets the executable bit (a diff's mode change) gives the
   temp file that mode instead;
4. verify every target reads back as intended (bytes, and the executable
   bit a change sets);
5. commit: rename ``tx-<id>`` to ``last-<id>`` (kept for undo) or remove it.

Any error before the commit restores every file from the journal.
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
from ljtui.core.edits.durable import Keep, keep_of
from ljtui.core.edits.manifest import ID_PATTERN, blob_name, temp_name
from ljtui.core.edits.paths import recheck
from ljtui.core.edits.restore import RestoreRefused, restore
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


@dataclass
class _Prepared:
    change: FileChange
    record: J.FileRecord
    real: Path
    keep: Keep | None
    """Metadata of the file a rewrite replaces (``None`` for a new or removed file)."""


def _missing_dirs(root: Path, real: Path) -> list[Path]:
    missing = []
    parent = real.parent
    while parent != root and not parent.exists():
        missing.append(parent)
        parent = parent.parent
    return list(reversed(missing))


def _checked(root: Path, path: str) -> Path:
    """The absolute path to write for ``path``, re-checked now; raises :class:`_Refused`."""
    target = recheck(root, path)
    if isinstance(target, E.EditError):
        raise _Refused(target)
    return target.real


def _still_in_place(item: _Prepared, checked: set[Path]) -> None:
    """Right before writing: no folder on the way and not the file itself became a symlink.

    Every path was fully re-checked when the transaction snapshotted it; this
    repeats the part a concurrent change could undo, once per folder per pass.
    """
    parent = item.real.parent
    if parent not in checked:
        now = os.path.realpath(parent)
        if now != str(parent):
            raise _Refused(E.PathEscape(None, f"{item.change.path}: its folder now resolves to {now} through a "
                                              "symlink; refusing to write through it", file=item.change.path))
        checked.add(parent)
    try:
        link = stat.S_ISLNK(os.lstat(item.real).st_mode)
    except FileNotFoundError:
        link = False
    if link:
        raise _Refused(E.PathEscape(None, f"{item.change.path} became a symlink; refusing to write through it",
                                    file=item.change.path))


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

    def _locked(self) -> TransactionOutcome:
        self.dir = J.open_journal(self.root, create=True) / f"{J.TX_PREFIX}{self.id}"
        os.mkdir(self.dir)
        try:
            os.mkdir(self.dir / J.BLOBS)
            prepared = self._snapshot()
        except BaseException as exc:
            J.discard(self.dir)
            if isinstance(exc, _Refused):
                return TransactionOutcome(self.id, error=exc.error)
            if isinstance(exc, OSError):
                return TransactionOutcome(self.id, error=E.WriteFailed(None, f"cannot snapshot targets: {exc}"))
            raise
        manifest = J.Manifest(self.id, self.clock.now(), self.kind, [p.record for p in prepared], self.entries,
                              self.group, sequence=J.next_sequence(self.root))
        J.fsync_dir(self.dir / J.BLOBS)
        manifest.save(self.dir)
        for directory in (self.dir.parent, self.dir.parent.parent, self.root):
            J.fsync_dir(directory)
        try:
            self._write_all(prepared)
            self._verify(prepared)
        except BaseException as exc:
            return self._roll_back(manifest, exc)
        self._commit()
        return TransactionOutcome(self.id, [p.change.path for p in prepared], notes=self.notes)

    def _roll_back(self, manifest: J.Manifest, exc: BaseException) -> TransactionOutcome:
        """Restore the files whose writing began (the others were never touched), then drop the journal."""
        try:
            restore(self.root, self.dir, dataclasses.replace(manifest, files=manifest.files[:self.started]))
        except (OSError, RestoreRefused) as rollback:
            return TransactionOutcome(self.id, error=E.WriteFailed(
                None, f"{exc}; rollback incomplete ({rollback}); the journal is kept: run `ljtui recover`"))
        J.discard(self.dir)
        if isinstance(exc, _Refused):
            return TransactionOutcome(self.id, error=dataclasses.replace(
                exc.error, message=f"{exc.error.message}; every file was rolled back"))
        if not isinstance(exc, (OSError, _VerifyError)):
            raise exc
        error_type = E.VerifyFailed if isinstance(exc, _VerifyError) else E.WriteFailed
        return TransactionOutcome(self.id, error=error_type(
            None, f"{exc}; every file was rolled back", file=getattr(exc, "path", None)))

    def _snapshot(self) -> list[_Prepared]:
        prepared = []
        seen: set[str] = set()
        for n, change in enumerate(self.changes):
            if change.path in seen:
                raise ValueError(f"{change.path} appears twice in one transaction")
            seen.add(change.path)
            prepared.append(self._snapshot_one(n, change))
        return prepared

    def _snapshot_one(self, n: int, change: FileChange) -> _Prepared:
        real = _checked(self.root, change.path)
        try:
            st: os.stat_result | None = os.stat(real)
        except FileNotFoundError:
            st = None
        current: bytes | None = None
        keep = None
        if st is not None:
            current = self._link_snapshot(real, self.dir / blob_name(n), st)
            if change.after is not None:
                keep = keep_of(real, st)
                if change.mode is not None:
                    keep = dataclasses.replace(keep, mode=with_executable(keep.mode, change.mode))
                if st.st_nlink > 1:
                    self.notes.append(f"{change.path} had {st.st_nlink} hard links: the other links keep the old "
                                      "content (the new content was written to a new file in its place)")
        if current != change.before:
            raise _Refused(E.StalePlan(None, f"{change.path} changed on disk since the plan was validated; "
                                             "re-validate before applying", file=change.path))
        dirs = [d.relative_to(self.root).as_posix() for d in _missing_dirs(self.root, real)]
        record = J.FileRecord(
            path=change.path, existed=st is not None, mode=stat.S_IMODE(st.st_mode) if st is not None else None,
            before_sha256=J.sha256(current), after_sha256=J.sha256(change.after),
            blob=blob_name(n) if st is not None else None, temp=temp_name(change.path, self.id, n),
            created_dirs=dirs)
        return _Prepared(change, record, real, keep)

    @staticmethod
    def _link_snapshot(real: Path, blob: Path, st: os.stat_result) -> bytes:
        """Hard-link the original inode into the journal; copy it when other names share that inode."""
        if st.st_nlink == 1:
            try:
                os.link(real, blob)
            except OSError:
                pass
            else:
                return blob.read_bytes()
        data = real.read_bytes()
        J.write_durable(blob, data)
        return data

    def _write_all(self, prepared: list[_Prepared]) -> None:
        dirs: set[Path] = set()
        checked: set[Path] = set()
        new_mode = J.new_file_mode()
        for n, item in enumerate(prepared):
            change, record = item.change, item.record
            _still_in_place(item, checked)
            self.started = n + 1
            for rel in record.created_dirs:
                try:
                    os.mkdir(self.root / rel)
                except FileExistsError:
                    pass
                dirs.add((self.root / rel).parent)
            if change.after is None:
                item.real.unlink(missing_ok=True)
            else:
                temp = self.root / record.temp
                mode = new_mode if change.mode is None else with_executable(new_mode, change.mode)
                self.notes.extend(J.write_durable(temp, change.after, mode, keep=item.keep, shown=record.path))
                os.replace(temp, item.real)
            dirs.add(item.real.parent)
        for directory in dirs:
            J.fsync_dir(directory)

    @staticmethod
    def _verify(prepared: list[_Prepared]) -> None:
        for item in prepared:
            try:
                with open(item.real, "rb") as fh:
                    data: bytes | None = fh.read()
            except FileNotFoundError:
                data = None
            if data != item.change.after:
                raise _VerifyError(item.change.path)
            if item.change.mode is not None and data is not None:
                if bool(os.stat(item.real).st_mode & 0o111) != bool(item.change.mode & 0o111):
                    raise _VerifyError(item.change.path)

    def _commit(self) -> None:
        journal = self.dir.parent
        if self.keep_snapshot:
            previous = [p for p, m in J.scan_kept(self.root)[0] if m.group != self.group]
            os.replace(self.dir, journal / f"{J.LAST_PREFIX}{self.id}")
            J.fsync_dir(journal)
            for old in previous:
                J.discard(old)
        else:
            J.discard(self.dir)


def with_executable(mode: int, wanted: int) -> int:
    """``mode`` with its executable bits set where it can be read (``wanted`` executable) or cleared.

    As git checks a file out: an executable file may be run by whoever may read it.
    """
    if wanted & 0o111:
        return mode | ((mode & 0o444) >> 2)
    return mode & ~0o111


class _Refused(Exception):
    """A named refusal raised inside the transaction; nothing is written, or everything is rolled back."""

    def __init__(self, error: E.EditError) -> None:
        super().__init__(error.message)
        self.error = error


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
        group: Id shared by the transactions of one plan (default: this one's id);
            committing drops kept snapshots of other groups.
        lock_held: The caller already holds the journal lock (undo does).
        turn_held: The caller already holds this process's write turn (the agent's writer does).

    Returns:
        A :class:`TransactionOutcome`; on error no file is changed.
    """
    return Transaction(root, changes, clock=clock, new_id=new_id, kind=kind, entries=entries,
                       keep_snapshot=keep_snapshot, group=group, lock_held=lock_held,
                       turn_held=turn_held).run()
