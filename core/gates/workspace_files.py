"""The files of a working tree, and copying them one by one without following a link.

Shared by :mod:`ljtui.core.gates.workspace`: which paths make up a tree
(git's list of tracked and not-ignored untracked files, or a walk that
skips what the outline skips), how one entry is copied (a regular file
with its bytes, mode and times through ``copy_file_range``, which the
kernel turns into a reflink where the file system can; a symbolic link
only when it stays inside the tree), and how a tree is hashed.

Paths are repository-relative, ``/``-separated ``str`` (undecodable bytes
kept as surrogates). Nothing here ever writes outside the destination.
"""

from __future__ import annotations

import errno
import hashlib
import os
import posixpath
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from ljtui.core.edits.paths import protected_reason
from ljtui.core.git import run_git
from ljtui.core.outline.files import GIT_LIST
from ljtui.core.repo import SKIP_DIRS

GIT_TIMEOUT_SECONDS = 60.0
"""Bound on one ``git`` call that lists or prepares a tree."""
COPY_CHUNK_BYTES = 8 * 1024 * 1024
"""Bytes asked of one ``copy_file_range`` / read call."""
HASH_CHUNK_BYTES = 1024 * 1024
"""Bytes read at a time while hashing or comparing."""
EXEC_BITS = stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH
NO_RANGE_COPY = frozenset({errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EPERM, errno.EBADF})
"""``copy_file_range`` errors after which a plain read/write copy is used."""


class WorkspaceError(Exception):
    """A staging tree could not be made, opened or read; ``str(exc)`` says why in one sentence."""


@dataclass(frozen=True)
class Entry:
    """One path of a tree as found on disk (``lstat``, never following a link).

    Attributes:
        path: repository-relative path.
        kind: ``file``, ``link`` or ``other``.
        size: bytes of a file (0 otherwise).
        executable: a file with an executable bit.
        target: a link's text.
    """

    path: str
    kind: str
    size: int = 0
    executable: bool = False
    target: str = ""


def git(args: Iterable[str], cwd: Path, env: Mapping[str, str] | None = None,
        options: Iterable[str] = ()) -> subprocess.CompletedProcess[bytes]:
    """Run ``git OPTIONS ARGS`` in ``cwd`` through :func:`~ljtui.core.git.run_git` (no program from the
    repository's settings, no API keys, no terminal); raises ``OSError`` / ``SubprocessError``."""
    return run_git(list(args), cwd, options=("--literal-pathspecs", *options), env=env, timeout=GIT_TIMEOUT_SECONDS)


def split_z(output: bytes) -> list[str]:
    """NUL-separated git output as paths."""
    return [name for name in output.decode("utf-8", "surrogateescape").split("\0") if name]


def git_paths(root: Path) -> list[str] | None:
    """Tracked and not-ignored untracked paths of the work tree at ``root``; ``None`` when it is not one."""
    try:
        done = git(GIT_LIST, root)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return [p for p in split_z(done.stdout) if not p.startswith("../")]


def walk_paths(root: Path) -> list[str]:
    """Every non-folder below ``root``, without following links or entering the outline's skipped folders."""
    found: list[str] = []
    stack = [""]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(os.path.join(root, folder) if folder else root) as entries:
                for entry in entries:
                    rel = f"{folder}/{entry.name}" if folder else entry.name
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in SKIP_DIRS:
                            stack.append(rel)
                    else:
                        found.append(rel)
        except OSError:
            continue
    return found


def safe_relative(path: object) -> bool:
    """Whether ``path`` is a plain relative path below a root: no ``..``, ``.`` or empty part, not absolute."""
    if not isinstance(path, str) or not path or "\0" in path or path.startswith("/"):
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


def kept(paths: Iterable[str]) -> list[str]:
    """``paths`` that are safe and relative and not ``.git`` / ``.agent`` ones, sorted, each once."""
    return sorted({p for p in paths if safe_relative(p) and protected_reason(p) is None})


def scan(root: Path, path: str) -> Entry | None:
    """What ``root/path`` is, without following a link; ``None`` when it does not exist."""
    try:
        st = os.lstat(os.path.join(root, path))
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISREG(st.st_mode):
        return Entry(path, "file", st.st_size, bool(st.st_mode & EXEC_BITS))
    if stat.S_ISLNK(st.st_mode):
        return Entry(path, "link", target=os.readlink(os.path.join(root, path)))
    return Entry(path, "other")


def through_link(root_real: str, path: str, cache: dict[str, bool]) -> bool:
    """Whether a folder on ``path`` (below ``root_real``) is a symbolic link."""
    parent = posixpath.dirname(path)
    if not parent:
        return False
    if parent not in cache:
        cache[parent] = os.path.realpath(os.path.join(root_real, parent)) != os.path.join(root_real, parent)
    return cache[parent]


def link_refusal(root_real: str, entry: Entry) -> str | None:
    """Why the link ``entry`` is not copied, or ``None`` when it stays inside the tree."""
    target = entry.target
    if os.path.isabs(target):
        return f"its symbolic link points to the absolute path {target}; only links inside the tree are staged"
    lexical = posixpath.normpath(posixpath.join(posixpath.dirname(entry.path), target))
    if lexical == ".." or lexical.startswith("../"):
        return f"its symbolic link points outside the tree ({target}); only links inside the tree are staged"
    real = os.path.realpath(os.path.join(root_real, entry.path))
    if real != root_real and not real.startswith(root_real + os.sep):
        return f"its symbolic link leads outside the tree ({real}); only links inside the tree are staged"
    inside = os.path.relpath(real, root_real).replace(os.sep, "/")
    if protected_reason(lexical) is not None or (real != root_real and protected_reason(inside) is not None):
        return "its symbolic link points into .git or .agent, which are never staged"
    return None


def copy_entry(source_root: str, dest_root: str, entry: Entry, made: set[str] | None = None) -> None:
    """Copy one file (bytes, mode, times) or link from ``source_root`` to ``dest_root``; never a hard link.

    Args:
        made: folders of ``dest_root`` known to exist (updated), to skip asking the file system again.

    Raises:
        OSError: it could not be read or written (the destination is left absent or partial).
    """
    dest = os.path.join(dest_root, entry.path)
    parent = os.path.dirname(dest)
    if made is None or parent not in made:
        os.makedirs(parent, exist_ok=True)
        if made is not None:
            made.add(parent)
    if entry.kind == "link":
        os.symlink(entry.target, dest)
        return
    src_fd = os.open(os.path.join(source_root, entry.path), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        st = os.fstat(src_fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", entry.path)
        dst_fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            _copy_bytes(src_fd, dst_fd, st.st_size)
            os.fchmod(dst_fd, stat.S_IMODE(st.st_mode))
        finally:
            os.close(dst_fd)
        os.utime(dest, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)
    finally:
        os.close(src_fd)


def _copy_bytes(src_fd: int, dst_fd: int, size: int) -> None:
    """All of ``src_fd`` into ``dst_fd``: ``copy_file_range`` (reflink where possible), else read/write."""
    copied = 0
    try:
        while True:
            step = os.copy_file_range(src_fd, dst_fd, max(COPY_CHUNK_BYTES, size - copied))
            if step == 0:
                return
            copied += step
    except OSError as exc:
        if exc.errno not in NO_RANGE_COPY or copied:
            raise
    except AttributeError:
        pass
    while chunk := os.read(src_fd, COPY_CHUNK_BYTES):
        view = memoryview(chunk)
        while view:
            view = view[os.write(dst_fd, view):]


def read_entry(root: Path, entry: Entry) -> bytes:
    """A file's bytes, read without following a final link."""
    fd = os.open(os.path.join(root, entry.path), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, HASH_CHUNK_BYTES):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def same_bytes(a_root: Path, b_root: Path, path: str) -> bool:
    """Whether the files ``path`` under both roots hold the same bytes (read in chunks, stopping early)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    a = os.open(os.path.join(a_root, path), flags)
    try:
        b = os.open(os.path.join(b_root, path), flags)
        try:
            while True:
                left, right = os.read(a, HASH_CHUNK_BYTES), os.read(b, HASH_CHUNK_BYTES)
                if left != right:
                    return False
                if not left:
                    return True
        finally:
            os.close(b)
    finally:
        os.close(a)


def tree_hash(root: Path, entries: Iterable[Entry]) -> str:
    """sha256 over the sorted ``(path, kind, executable bit, bytes or link text)`` of ``entries``."""
    digest = hashlib.sha256()
    for entry in sorted(entries, key=lambda e: e.path.encode("utf-8", "surrogateescape")):
        name = entry.path.encode("utf-8", "surrogateescape")
        if entry.kind == "link":
            target = entry.target.encode("utf-8", "surrogateescape")
            digest.update(b"L%d:%s%d:%s" % (len(name), name, len(target), target))
            continue
        if entry.kind != "file":
            continue
        content = hashlib.sha256()
        fd = os.open(os.path.join(root, entry.path), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            while chunk := os.read(fd, HASH_CHUNK_BYTES):
                content.update(chunk)
        finally:
            os.close(fd)
        digest.update(b"F%d:%s%d:%s" % (len(name), name, int(entry.executable), content.digest()))
    return digest.hexdigest()


def private_git(root: Path, git_dir: Path) -> None:
    """A bare repository beside the tree that knows the user's ``info/exclude``, for ignore rules only."""
    done = git(["init", "-q", "--bare", str(git_dir)], git_dir.parent)
    if done.returncode != 0:
        raise WorkspaceError(f"git init failed for the staging workspace: {done.stderr.decode(errors='replace')}")
    found = git(["rev-parse", "--git-path", "info/exclude"], root)
    if found.returncode != 0:
        return
    source = root / found.stdout.decode("utf-8", "surrogateescape").strip()
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return
    with os.fdopen(fd, "rb") as fh:
        rules = fh.read()
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info" / "exclude").write_bytes(rules)


def remove_tree(folder: Path) -> None:
    """``rmtree`` that also removes what sits in read-only folders; never follows a link."""
    def writable_then_retry(func, path, _info):  # type: ignore[no-untyped-def]
        parent = os.path.dirname(path)
        try:
            if not os.path.islink(parent):
                os.chmod(parent, stat.S_IRWXU)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, stat.S_IRWXU)
            func(path)
        except FileNotFoundError:
            pass

    if os.path.lexists(folder):
        shutil.rmtree(folder, onerror=writable_then_retry)
