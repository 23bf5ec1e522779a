"""The atomic, crash-safe write of a set of file changes.

Order of operations, each step durable before the next:

1. lock the journal; snapshot every target (hard link of the original inode
   into the journal, else a copy) and check it still holds the validated
   bytes (else ``StalePlan``, nothing written);
2. write the manifest (temp + fsync + rename + directory fsync);
3. for each target: temp file in the same directory, fsync, ``os.replace``;
   then fsync every touched directory;
4. verify every target reads back as intended;
5. commit: rename ``tx-<id>`` to ``last-<id>`` (kept for undo) or remove it.

Any error before the commit restores every file from the journal.
"""

from __future__ import annotations

import os
import shutil
import stat
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits.validate import FileChange
from ljtui.core.ports import Clock, SystemClock

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
    """

    id: str
    files: list[str] = field(default_factory=list)
    error: E.EditError | None = None

    @property
    def ok(self) -> bool:
        """True when every change was written and verified."""
        return self.error is None


@dataclass
class _Prepared:
    change: FileChange
    record: J.FileRecord


def _missing_dirs(root: Path, real: Path) -> list[Path]:
    missing = []
    parent = real.parent
    while parent != root and not parent.exists():
        missing.append(parent)
        parent = parent.parent
    return list(reversed(missing))


class Transaction:
    """One journaled write of a set of :class:`FileChange`."""

    def __init__(self, root: Path, changes: Sequence[FileChange], *, clock: Clock | None = None,
                 new_id: IdFactory = random_id, kind: str = "apply", entries: Sequence[str] = (),
                 keep_snapshot: bool = True, group: str | None = None) -> None:
        self.root = root.resolve()
        self.changes = list(changes)
        self.clock = clock or SystemClock()
        self.id = new_id()
        self.kind = kind
        self.entries = list(entries)
        self.keep_snapshot = keep_snapshot
        self.group = group or self.id
        self.dir = J.journal_dir(self.root) / f"{J.TX_PREFIX}{self.id}"

    def run(self) -> TransactionOutcome:
        """Write every change or none; see the module docstring for the steps."""
        try:
            J.ensure_agent_gitignore(self.root)
            with J.journal_lock(self.root):
                return self._locked()
        except J.JournalBusy:
            return TransactionOutcome(self.id, error=E.ApplyInProgress(
                None, "another ljtui process is applying in this repository; try again when it finishes"))
        except OSError as exc:
            return TransactionOutcome(self.id, error=E.WriteFailed(None, f"cannot use the journal: {exc}"))

    def _locked(self) -> TransactionOutcome:
        (self.dir / J.BLOBS).mkdir(parents=True)
        try:
            prepared = self._snapshot()
        except BaseException as exc:
            J.discard(self.dir)
            if isinstance(exc, _Stale):
                return TransactionOutcome(self.id, error=exc.error)
            if isinstance(exc, OSError):
                return TransactionOutcome(self.id, error=E.WriteFailed(None, f"cannot snapshot targets: {exc}"))
            raise
        manifest = J.Manifest(self.id, self.clock.now(), self.kind, [p.record for p in prepared], self.entries,
                              self.group)
        J.fsync_dir(self.dir / J.BLOBS)
        manifest.save(self.dir)
        for directory in (self.dir.parent, self.dir.parent.parent, self.root):
            J.fsync_dir(directory)
        try:
            self._write_all(prepared)
            self._verify(prepared)
        except BaseException as exc:
            try:
                J.restore(self.root, self.dir, manifest)
            except OSError as rollback:
                return TransactionOutcome(self.id, error=E.WriteFailed(
                    None, f"{exc}; rollback incomplete ({rollback}); the journal is kept: run `ljtui recover`"))
            J.discard(self.dir)
            if not isinstance(exc, (OSError, _VerifyError)):
                raise
            error_type = E.VerifyFailed if isinstance(exc, _VerifyError) else E.WriteFailed
            return TransactionOutcome(self.id, error=error_type(
                None, f"{exc}; every file was rolled back", file=getattr(exc, "path", None)))
        self._commit()
        return TransactionOutcome(self.id, [p.change.path for p in prepared])

    def _snapshot(self) -> list[_Prepared]:
        prepared = []
        for n, change in enumerate(self.changes):
            real = change.real
            temp = real.parent / f".{real.name}.{self.id}{J.TEMP_SUFFIX}"
            blob_rel: str | None = f"{J.BLOBS}/{n}"
            mode: int | None = None
            existed = False
            try:
                st = os.stat(real)
                existed = True
                mode = stat.S_IMODE(st.st_mode)
            except FileNotFoundError:
                pass
            current: bytes | None
            if existed:
                current = self._link_snapshot(real, self.dir / f"{J.BLOBS}/{n}")
            else:
                current, blob_rel = None, None
            if current != change.before:
                raise _Stale(E.StalePlan(None, f"{change.path} changed on disk since the plan was validated; "
                                               "re-validate before applying", file=change.path))
            dirs = [d.relative_to(self.root).as_posix() for d in _missing_dirs(self.root, real)]
            prepared.append(_Prepared(change, J.FileRecord(
                path=change.path, existed=existed, mode=mode, before_sha256=J.sha256(current),
                after_sha256=J.sha256(change.after), blob=blob_rel,
                temp=temp.relative_to(self.root).as_posix(), created_dirs=dirs)))
        return prepared

    @staticmethod
    def _link_snapshot(real: Path, blob: Path) -> bytes:
        try:
            os.link(real, blob)
        except OSError:
            data = real.read_bytes()
            J.write_durable(blob, data)
            return data
        return blob.read_bytes()

    def _write_all(self, prepared: list[_Prepared]) -> None:
        dirs: set[Path] = set()
        new_mode = J.new_file_mode()
        for item in prepared:
            change, record = item.change, item.record
            for rel in record.created_dirs:
                (self.root / rel).mkdir(exist_ok=True)
                dirs.add((self.root / rel).parent)
            if change.after is None:
                change.real.unlink(missing_ok=True)
            else:
                temp = self.root / record.temp
                J.write_durable(temp, change.after, record.mode if record.mode is not None else new_mode)
                os.replace(temp, change.real)
            dirs.add(change.real.parent)
        for directory in dirs:
            J.fsync_dir(directory)

    @staticmethod
    def _verify(prepared: list[_Prepared]) -> None:
        for item in prepared:
            try:
                with open(item.change.real, "rb") as fh:
                    data: bytes | None = fh.read()
            except FileNotFoundError:
                data = None
            if data != item.change.after:
                raise _VerifyError(item.change.path)

    def _commit(self) -> None:
        journal = self.dir.parent
        if self.keep_snapshot:
            previous = [p for p in J.kept(self.root) if J.Manifest.load(p).group != self.group]
            os.replace(self.dir, journal / f"{J.LAST_PREFIX}{self.id}")
            J.fsync_dir(journal)
            for old in previous:
                shutil.rmtree(old, ignore_errors=True)
        else:
            J.discard(self.dir)


class _Stale(Exception):
    def __init__(self, error: E.EditError) -> None:
        super().__init__(error.message)
        self.error = error


class _VerifyError(Exception):
    def __init__(self, path: str) -> None:
        super().__init__(f"{path} did not read back as written")
        self.path = path


def apply_changes(root: Path, changes: Sequence[FileChange], *, clock: Clock | None = None,
                  new_id: IdFactory = random_id, kind: str = "apply", entries: Sequence[str] = (),
                  keep_snapshot: bool = True, group: str | None = None) -> TransactionOutcome:
    """Write ``changes`` atomically under ``root``, all or nothing.

    Args:
        root: Repository root (``.agent/journal`` lives under it).
        changes: Files to write (``after=None`` removes the file).
        clock: Time source for the manifest timestamp.
        new_id: Transaction id factory.
        kind: ``apply`` or ``undo``, recorded in the manifest.
        entries: Entry ids this transaction applies, recorded for undo.
        keep_snapshot: Keep the journal as ``last-<id>`` so ``undo`` can revert it.
        group: Id shared by the transactions of one plan (default: this one's id);
            committing drops kept snapshots of other groups.

    Returns:
        A :class:`TransactionOutcome`; on error no file is changed.
    """
    return Transaction(root, changes, clock=clock, new_id=new_id, kind=kind, entries=entries,
                       keep_snapshot=keep_snapshot, group=group).run()
