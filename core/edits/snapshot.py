"""Step 1 of a transaction: each target checked again and its bytes kept in the journal, through its folder.

A target's folder is reached through :class:`~ljtui.core.edits.folders.RepoFolders`
(from the root, one name at a time, never through a link) and the file is
opened through it without following a link. The inode opened is what the
snapshot keeps: hard-linked into the journal's ``blobs/`` folder when no
other name shares it (and its name still holds it), else copied from the
descriptor; its bytes must be the ones the change was validated against.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits.durable import Keep, keep_of
from ljtui.core.edits.folders import FolderRefused, RepoFolders, read_fd, split
from ljtui.core.edits.manifest import blob_name, temp_name
from ljtui.core.edits.paths import recheck
from ljtui.core.edits.validate import FileChange


class Refused(Exception):
    """A named refusal raised inside a transaction; nothing is written, or everything is rolled back."""

    def __init__(self, error: E.EditError) -> None:
        super().__init__(error.message)
        self.error = error


@dataclass
class Prepared:
    """A target snapshotted and recorded, ready to be written.

    Attributes:
        change: The change to write.
        record: Its manifest record.
        folder: The target's folder, repo-relative (``""`` at the root).
        anchor: The deepest of its folders that existed at the snapshot (the folder itself unless the write
            creates it).
        keep: Metadata of the file a rewrite replaces (``None`` for a new or removed file).
    """

    change: FileChange
    record: J.FileRecord
    folder: str
    anchor: str
    keep: Keep | None


def escape(path: str, message: str) -> Refused:
    """The refusal of writing ``path`` because of where it leads now (``message`` follows the path)."""
    return Refused(E.PathEscape(None, f"{path}{message}", file=path))


def folder_now(root: Path, folder: str) -> str:
    """Where the path of ``folder`` leads now, in words (for a refusal)."""
    path = root / folder
    try:
        now = os.path.realpath(path)
    except OSError:  # a link on the way is being swapped as it is read
        return "is being swapped"
    return f"now resolves to {now} through a symlink" if now != str(path) else "was moved or replaced"


def with_executable(mode: int, wanted: int) -> int:
    """``mode`` with its executable bits set where it can be read (``wanted`` executable) or cleared.

    As git checks a file out: an executable file may be run by whoever may read it.
    """
    if wanted & 0o111:
        return mode | ((mode & 0o444) >> 2)
    return mode & ~0o111


def snapshot_target(root: Path, folders: RepoFolders, blobs: str, tx_id: str, n: int, change: FileChange,
                    notes: list[str]) -> Prepared:
    """Check ``change``'s path again, keep the target's bytes as snapshot ``n`` in ``blobs`` (repo-relative), and
    record it; a note about the write (other hard links) is added to ``notes``.

    Raises:
        Refused: The path is refused now, the target is not a regular file, or it no longer holds the bytes the
            change was validated against (``StalePlan``).
        OSError: It could not be read or snapshotted.
    """
    target = recheck(root, change.path)
    if isinstance(target, E.EditError):
        raise Refused(target)
    folder = split(change.path)[0]
    try:
        dirs = folders.missing(folder)
        file_fd = None if dirs else folders.open_file(change.path)
    except FolderRefused as exc:
        raise escape(change.path, f": {exc}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise escape(change.path, " became a symlink; refusing to write through it") from None
        raise
    current: bytes | None = None
    keep = st = None
    if file_fd is not None:
        try:
            st = os.fstat(file_fd)
            if not stat.S_ISREG(st.st_mode):
                raise Refused(E.NotAFile(None, f"{change.path} exists but is not a regular file", file=change.path))
            current = _keep_bytes(folders, blobs, n, change.path, file_fd, st)
            if change.after is not None:
                keep = keep_of(file_fd, st)
        finally:
            os.close(file_fd)
        if keep is not None and change.mode is not None:
            keep = dataclasses.replace(keep, mode=with_executable(keep.mode, change.mode))
        if change.after is not None and st.st_nlink > 1:
            notes.append(f"{change.path} had {st.st_nlink} hard links: the other links keep the old content (the "
                         "new content was written to a new file in its place)")
    if current != change.before:
        raise Refused(E.StalePlan(None, f"{change.path} changed on disk since the plan was validated; "
                                        "re-validate before applying", file=change.path))
    record = J.FileRecord(
        path=change.path, existed=st is not None, mode=stat.S_IMODE(st.st_mode) if st is not None else None,
        before_sha256=J.sha256(current), after_sha256=J.sha256(change.after),
        blob=blob_name(n) if st is not None else None, temp=temp_name(change.path, tx_id, n), created_dirs=dirs)
    return Prepared(change, record, folder, split(dirs[0])[0] if dirs else folder, keep)


def _keep_bytes(folders: RepoFolders, blobs: str, n: int, path: str, file_fd: int, st: os.stat_result) -> bytes:
    """Hard-link the inode open as ``file_fd`` into ``blobs``, or copy it when other names share that inode (or
    its name no longer holds it); return its bytes."""
    blobs_fd = folders.fd(blobs)
    blob = split(blob_name(n))[1]
    if st.st_nlink == 1:
        folder, name = folders.place(path)
        try:
            os.link(name, blob, src_dir_fd=folder, dst_dir_fd=blobs_fd, follow_symlinks=False)
        except OSError:
            pass
        else:
            linked = os.stat(blob, dir_fd=blobs_fd, follow_symlinks=False)
            if (linked.st_dev, linked.st_ino) == (st.st_dev, st.st_ino):
                return read_fd(file_fd)
            os.unlink(blob, dir_fd=blobs_fd)  # the name held another file by then: copy the one checked
    data = read_fd(file_fd)
    J.write_durable(blob, data, dir_fd=blobs_fd)
    return data
