"""Rolling a journaled transaction back: every file returns to its pre-apply bytes.

Two phases. :func:`plan_restore` reads and checks everything and writes
nothing: each path is re-resolved (inside the root, not protected, still
naming itself), each file must hold its old or its new bytes (a transaction
only ever leaves one or the other; anything else was changed since and is
never overwritten), and each needed snapshot must hold exactly its
recorded bytes. :meth:`RestorePlan.run` then writes, re-checking every
path at the moment it writes. Restoring is idempotent, so a crash during
recovery is recovered by running it again.

Every file is read and written through folder descriptors
(:class:`~ljtui.core.edits.folders.RepoFolders`): a folder that is a symlink
when it is reached is refused, and one swapped afterwards redirects nothing.
A transaction rolling itself back passes the folders it wrote through, so
the old bytes go back into the very folders the new ones went to.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits.durable import write_durable
from ljtui.core.edits.folders import FolderRefused, RepoFolders, split
from ljtui.core.edits.paths import recheck

RESTORED = "restored"
REMOVED = "removed"
UNCHANGED = "unchanged"
RESTORE_TEMP = ".ljtui-restore.tmp"
"""Temp file a snapshot is copied to, next to its target, when it cannot be renamed into place."""


class RestoreRefused(Exception):
    """A file of the journal may not (or may no longer) be restored; the reason is the message."""


@dataclass
class _Step:
    record: J.FileRecord
    action: str
    blob: J.Blob | None = None


@dataclass
class RestorePlan:
    """Checked steps that return every file of a journal to its pre-apply bytes.

    Attributes:
        root: The repository root.
        folders: The folders every file is read and written through.
        blobs: The journal's snapshot folder, repo-relative.
        held: ``folders`` are those the transaction being rolled back wrote through: its paths are not resolved
            again (the bytes go back into the folders they were written in, wherever those are now).
    """

    root: Path
    folders: RepoFolders
    blobs: str
    held: bool = False
    steps: list[_Step] = field(default_factory=list)

    def run(self) -> list[tuple[str, str]]:
        """Write the steps, newest record first.

        Returns:
            ``(path, action)`` pairs; action is ``restored``, ``removed`` or ``unchanged``.

        Raises:
            RestoreRefused: A path changed between the check and the write (nothing is written through it).
            OSError: A file could not be written (the journal is then kept).
        """
        touched: set[str] = set()
        actions = []
        for step in self.steps:
            if not self.held:
                _recheck(self.root, step.record.path, for_write=step.action == RESTORED)
            _drop_temp(self.folders, step.record.temp)
            if step.action != UNCHANGED:
                self._write_step(step)
                touched.add(split(step.record.path)[0])
            actions.append((step.record.path, step.action))
        touched.update(self._remove_created_dirs([step.record for step in self.steps]))
        for folder in touched:
            try:
                self.folders.fsync(folder)
            except (FileNotFoundError, FolderRefused):
                pass  # a folder removed (or swapped) since: nothing of it is made durable
        return actions

    def _write_step(self, step: _Step) -> None:
        if step.action == REMOVED:
            folder, name = self.folders.place(step.record.path)
            os.unlink(name, dir_fd=folder)
            return
        assert step.blob is not None and step.record.mode is not None
        if step.blob.nlink == 1 and self._move_blob(step.record):
            return
        _drop_temp(self.folders, _beside(step.record.path, RESTORE_TEMP))
        folder, name = self.folders.place(step.record.path)
        write_durable(RESTORE_TEMP, step.blob.data, step.record.mode, dir_fd=folder)
        os.replace(RESTORE_TEMP, name, src_dir_fd=folder, dst_dir_fd=folder)

    def _move_blob(self, record: J.FileRecord) -> bool:
        """Rename the snapshot (the original inode, with its owner and attributes) back into place."""
        assert record.blob is not None and record.mode is not None
        blob = split(record.blob)[1]
        try:
            blobs = self.folders.fd(self.blobs)
            fd = os.open(blob, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=blobs)
            try:
                os.fchmod(fd, record.mode)
            finally:
                os.close(fd)
            folder, name = self.folders.place(record.path)
            os.replace(blob, name, src_dir_fd=blobs, dst_dir_fd=folder)
        except OSError as exc:
            if exc.errno == errno.EXDEV:
                return False
            raise
        return True

    def _remove_created_dirs(self, records: list[J.FileRecord]) -> set[str]:
        """Remove the folders the transaction created that are empty now (a folder holding anything stays)."""
        touched = set()
        for rel in deepest_first(records):
            if not self.held:
                _recheck_dir(self.root, rel)
            try:
                self.folders.remove(rel)
                touched.add(split(rel)[0])
            except OSError:
                pass
        return touched


def plan_restore(root: Path, tx_dir: Path, manifest: J.Manifest, folders: RepoFolders, *,
                 held: bool = False) -> RestorePlan:
    """Check that ``manifest`` can be rolled back under ``root``; write nothing.

    Args:
        root: The repository root, resolved.
        tx_dir: The journal folder of the transaction (under ``root``).
        manifest: Its manifest, checked.
        folders: The folders every file is read and written through.
        held: ``folders`` are those the transaction wrote through (its own rollback): paths are not resolved
            again.

    Raises:
        RestoreRefused: A path is refused now, a file holds neither its old nor
            its new bytes, or a needed snapshot is missing or damaged.
    """
    plan = RestorePlan(root, folders, (tx_dir / J.BLOBS).relative_to(root).as_posix(), held)
    for record in reversed(manifest.files):
        if not held:
            _recheck(root, record.path, for_write=False)
            for rel in record.created_dirs:
                _recheck_dir(root, rel)
        current = _current_digest(folders, record.path)
        if current == record.before_sha256:
            plan.steps.append(_Step(record, UNCHANGED))
        elif current != record.after_sha256:
            raise RestoreRefused(f"{record.path} changed since the transaction: it holds neither its old nor its "
                                 "new bytes, and ljtui never overwrites changes it did not make")
        elif not record.existed:
            plan.steps.append(_Step(record, REMOVED))
        else:
            if not held:
                _recheck(root, record.path, for_write=True)
            try:
                plan.steps.append(_Step(record, RESTORED, J.read_blob(tx_dir, record)))
            except J.ManifestInvalid as exc:
                raise RestoreRefused(f"cannot restore {record.path}: {exc}") from exc
    return plan


def restore(root: Path, tx_dir: Path, manifest: J.Manifest, folders: RepoFolders | None = None, *,
            held: bool = False) -> list[tuple[str, str]]:
    """Return every file of ``manifest`` to its pre-transaction bytes (check, then write).

    Args:
        root: The repository root, resolved.
        tx_dir: The journal folder of the transaction.
        manifest: Its manifest.
        folders: The folders to go through (default: the repository's, reached afresh).
        held: See :func:`plan_restore`.

    Returns:
        ``(path, action)`` pairs, newest record first.

    Raises:
        RestoreRefused: See :func:`plan_restore` and :meth:`RestorePlan.run`.
        OSError: A file could not be written.
    """
    if folders is None:
        with RepoFolders(root) as fresh:
            return plan_restore(root, tx_dir, manifest, fresh).run()
    return plan_restore(root, tx_dir, manifest, folders, held=held).run()


def _recheck(root: Path, key: str, *, for_write: bool) -> None:
    target = recheck(root, key, for_write=for_write)
    if isinstance(target, E.EditError):
        raise RestoreRefused(target.message)


def _recheck_dir(root: Path, key: str) -> None:
    """A created folder must still be itself (or gone), never a link."""
    real = os.path.realpath(root / key)
    if real != str(root / key):
        raise RestoreRefused(f"{key} now resolves to {real} through a symlink; refusing to touch it")


def _current_digest(folders: RepoFolders, path: str) -> str | None:
    try:
        st = folders.lstat(path)
    except OSError as exc:
        raise RestoreRefused(f"{path} cannot be examined ({exc.strerror})") from exc
    if st is None:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise RestoreRefused(f"{path} is no longer a regular file")
    try:
        data = folders.read(path)
    except OSError as exc:
        raise RestoreRefused(f"{path} cannot be read ({exc.strerror})") from exc
    return J.sha256(data)


def _drop_temp(folders: RepoFolders, temp: str) -> None:
    """Remove a leftover temp file; one never created, or that cannot even be examined, is fine."""
    try:
        folder, name = folders.place(temp)
        if stat.S_ISREG(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode):
            os.unlink(name, dir_fd=folder)
    except OSError:
        pass


def _beside(path: str, name: str) -> str:
    """The repo-relative path of ``name`` in the folder holding ``path``."""
    folder = split(path)[0]
    return f"{folder}/{name}" if folder else name


def deepest_first(records: list[J.FileRecord]) -> list[str]:
    """The folders ``records`` created, each once, every folder before the folder holding it."""
    folders = {rel for record in records for rel in record.created_dirs}
    return sorted(folders, key=lambda rel: (-rel.count("/"), rel))
