"""Rolling a journaled transaction back: every file returns to its pre-apply bytes.

Two phases. :func:`plan_restore` reads and checks everything and writes
nothing: each path is re-resolved (inside the root, not protected, still
naming itself), each file must hold its old or its new bytes (a transaction
only ever leaves one or the other; anything else was changed since and is
never overwritten), and each needed snapshot must hold exactly its
recorded bytes. :meth:`RestorePlan.run` then writes, re-checking every
path at the moment it writes. Restoring is idempotent, so a crash during
recovery is recovered by running it again.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits.durable import fsync_dir, write_durable
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
    real: Path
    action: str
    blob: J.Blob | None = None


@dataclass
class RestorePlan:
    """Checked steps that return every file of a journal to its pre-apply bytes."""

    root: Path
    steps: list[_Step] = field(default_factory=list)

    def run(self) -> list[tuple[str, str]]:
        """Write the steps, newest record first.

        Returns:
            ``(path, action)`` pairs; action is ``restored``, ``removed`` or ``unchanged``.

        Raises:
            RestoreRefused: A path changed between the check and the write (nothing is written through it).
            OSError: A file could not be written (the journal is then kept).
        """
        touched: set[Path] = set()
        actions = []
        for step in self.steps:
            _recheck(self.root, step.record.path, step.real, for_write=step.action == RESTORED)
            _drop_temp(self.root / step.record.temp)
            if step.action != UNCHANGED:
                _write_step(step)
                touched.add(step.real.parent)
            actions.append((step.record.path, step.action))
        touched.update(_remove_created_dirs(self.root, [step.record for step in self.steps]))
        for directory in touched:
            if directory.is_dir():
                fsync_dir(directory)
        return actions


def plan_restore(root: Path, tx_dir: Path, manifest: J.Manifest) -> RestorePlan:
    """Check that ``manifest`` can be rolled back under ``root``; write nothing.

    Raises:
        RestoreRefused: A path is refused now, a file holds neither its old nor
            its new bytes, or a needed snapshot is missing or damaged.
    """
    plan = RestorePlan(root)
    for record in reversed(manifest.files):
        real = _recheck(root, record.path, None, for_write=False)
        for rel in record.created_dirs:
            _recheck_dir(root, rel)
        current = _current_digest(real, record.path)
        if current == record.before_sha256:
            plan.steps.append(_Step(record, real, UNCHANGED))
        elif current != record.after_sha256:
            raise RestoreRefused(f"{record.path} changed since the transaction: it holds neither its old nor its "
                                 "new bytes, and ljtui never overwrites changes it did not make")
        elif not record.existed:
            plan.steps.append(_Step(record, real, REMOVED))
        else:
            _recheck(root, record.path, real, for_write=True)
            try:
                plan.steps.append(_Step(record, real, RESTORED, J.read_blob(tx_dir, record)))
            except J.ManifestInvalid as exc:
                raise RestoreRefused(f"cannot restore {record.path}: {exc}") from exc
    return plan


def restore(root: Path, tx_dir: Path, manifest: J.Manifest) -> list[tuple[str, str]]:
    """Return every file of ``manifest`` to its pre-transaction bytes (check, then write).

    Returns:
        ``(path, action)`` pairs, newest record first.

    Raises:
        RestoreRefused: See :func:`plan_restore` and :meth:`RestorePlan.run`.
        OSError: A file could not be written.
    """
    return plan_restore(root, tx_dir, manifest).run()


def _recheck(root: Path, key: str, expected: Path | None, *, for_write: bool) -> Path:
    target = recheck(root, key, for_write=for_write)
    if isinstance(target, E.EditError):
        raise RestoreRefused(target.message)
    if expected is not None and target.real != expected:
        raise RestoreRefused(f"{key} moved while it was being restored; nothing was written through it")
    return target.real


def _recheck_dir(root: Path, key: str) -> None:
    """A created folder must still be itself (or gone), never a link."""
    real = os.path.realpath(root / key)
    if real != str(root / key):
        raise RestoreRefused(f"{key} now resolves to {real} through a symlink; refusing to touch it")


def _current_digest(real: Path, shown: str) -> str | None:
    try:
        st = os.lstat(real)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise RestoreRefused(f"{shown} cannot be examined ({exc.strerror})") from exc
    if not stat.S_ISREG(st.st_mode):
        raise RestoreRefused(f"{shown} is no longer a regular file")
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise RestoreRefused(f"{shown} cannot be read ({exc.strerror})") from exc
    try:
        data = J.read_fd(fd)
    finally:
        os.close(fd)
    return J.sha256(data)


def _drop_temp(temp: Path) -> None:
    """Remove a leftover temp file; one never created, or that cannot even be examined, is fine."""
    try:
        if stat.S_ISREG(os.lstat(temp).st_mode):
            os.unlink(temp)
    except OSError:
        pass


def _write_step(step: _Step) -> None:
    if step.action == REMOVED:
        os.unlink(step.real)
        return
    assert step.blob is not None and step.record.mode is not None
    if step.blob.nlink == 1 and _move_blob(step.blob.path, step.real, step.record.mode):
        return
    temp = step.real.parent / RESTORE_TEMP
    _drop_temp(temp)
    write_durable(temp, step.blob.data, step.record.mode)
    os.replace(temp, step.real)


def _move_blob(blob: Path, real: Path, mode: int) -> bool:
    """Rename the snapshot (the original inode, with its owner and attributes) back into place."""
    try:
        fd = os.open(blob, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(blob, real)
    except OSError as exc:
        if exc.errno == errno.EXDEV:
            return False
        raise
    return True


def deepest_first(records: list[J.FileRecord]) -> list[str]:
    """The folders ``records`` created, each once, every folder before the folder holding it."""
    folders = {rel for record in records for rel in record.created_dirs}
    return sorted(folders, key=lambda rel: (-rel.count("/"), rel))


def _remove_created_dirs(root: Path, records: list[J.FileRecord]) -> set[Path]:
    """Remove the folders the transaction created that are empty now (a folder holding anything stays)."""
    touched = set()
    for rel in deepest_first(records):
        _recheck_dir(root, rel)
        try:
            os.rmdir(root / rel)
            touched.add((root / rel).parent)
        except OSError:
            pass
    return touched
