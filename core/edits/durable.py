"""Durable file writes: exclusive create, fsync, and the metadata a rewrite keeps.

A rewrite replaces a file by renaming a new one over it, so everything the
old inode carried must be copied to the new one first: mode, owner and
group (when the process may set them) and extended attributes (ACLs,
labels, user attributes). What cannot be kept is reported, never dropped
silently. A file is created by name inside a folder descriptor when one is
given (:mod:`.folders`), and the metadata to keep is read from the
descriptor of the file replaced, so neither follows a link.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

PRIVATE_MODE = 0o600
DEFAULT_UMASK = 0o022
NEW_FILE_BASE_MODE = 0o666
XATTR_UNSUPPORTED = frozenset({errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS})
"""Errors meaning the filesystem has no extended attributes at all."""


@dataclass(frozen=True)
class Keep:
    """Metadata a rewritten file takes over from the file it replaces.

    Attributes:
        mode: Permission bits (``0..0o7777``).
        uid: Owner to keep, or ``None`` to leave the creator's.
        gid: Group to keep, or ``None``.
        xattrs: Extended attributes ``name -> value``.
    """

    mode: int
    uid: int | None = None
    gid: int | None = None
    xattrs: dict[str, bytes] = field(default_factory=dict)


def read_xattrs(path: Path | int) -> dict[str, bytes]:
    """Every extended attribute of ``path`` (or of the file open as descriptor ``path``); empty where the
    filesystem has none."""
    try:
        names = os.listxattr(path)
    except OSError as exc:
        if exc.errno in XATTR_UNSUPPORTED:
            return {}
        raise
    values = {}
    for name in names:
        try:
            values[name] = os.getxattr(path, name)
        except OSError as exc:
            if exc.errno != errno.ENODATA:
                raise
    return values


def keep_of(path: Path | int, st: os.stat_result) -> Keep:
    """What a rewrite of ``path`` (or of the file open as descriptor ``path``), whose ``stat`` is ``st``, must
    keep."""
    return Keep(stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, read_xattrs(path))


def fsync_dir(path: Path) -> None:
    """Make a directory's entries (creations, renames, removals) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _apply_keep(fd: int, keep: Keep, shown: str) -> list[str]:
    """Set owner, then attributes, then mode (``chown`` clears set-id bits); return what failed."""
    lost = []
    if keep.uid is not None and keep.gid is not None:
        st = os.fstat(fd)
        if (st.st_uid, st.st_gid) != (keep.uid, keep.gid):
            try:
                os.fchown(fd, keep.uid, keep.gid)
            except PermissionError:
                lost.append(f"{shown}: could not keep its owner {keep.uid}:{keep.gid}; it now belongs to "
                            f"{st.st_uid}:{st.st_gid}")
    for name, value in keep.xattrs.items():
        try:
            os.setxattr(fd, name, value)
        except OSError as exc:
            lost.append(f"{shown}: could not keep its extended attribute {name} ({exc.strerror})")
    return lost


def write_durable(path: Path | str, data: bytes, mode: int = PRIVATE_MODE, *, keep: Keep | None = None,
                  shown: str = "", dir_fd: int | None = None) -> list[str]:
    """Create ``path`` exclusively with ``data``, fsync it, and give it ``mode`` or ``keep``.

    Args:
        path: The new file (must not exist; a symlink there is not followed); a name in the folder open as
            ``dir_fd`` when that is given.
        data: Its bytes.
        mode: Its mode when ``keep`` is not given.
        keep: Metadata taken over from a file this one replaces.
        shown: The name used in notes about metadata that could not be kept.
        dir_fd: The folder ``path`` is created in (see :mod:`.folders`).

    Returns:
        One note per piece of metadata that could not be kept (empty when all was).
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, PRIVATE_MODE,
                 dir_fd=dir_fd)
    try:
        _write_all(fd, data)
        lost = _apply_keep(fd, keep, shown or Path(path).name) if keep is not None else []
        os.fchmod(fd, keep.mode if keep is not None else mode)
        os.fsync(fd)
    finally:
        os.close(fd)
    return lost


def new_file_mode() -> int:
    """Mode of a newly created file under the process umask."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return NEW_FILE_BASE_MODE & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return NEW_FILE_BASE_MODE & ~DEFAULT_UMASK
