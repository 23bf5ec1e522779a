"""The per-repository state folder ``.agent/``, opened without following symlinks.

The repository is untrusted input: a committed ``.agent`` (or a folder
below it) may be a symlink to anywhere on the machine, or a regular file.
Every feature that keeps state there (journal, sessions, plans, gates,
playbooks, exports) reaches it through :func:`state_dir` and opens its
files with :func:`open_state_file` (or writes them whole with
:func:`replace_state_file`), so ljtui never creates, writes, locks or reads
its own state through a link that leads elsewhere. Those two open every
folder on the way from the repository's root without following a link and
work in the last one's descriptor, so a folder swapped for a link between a
check and a write cannot redirect the write either.

Whatever makes ``.agent`` first also writes ``.agent/.gitignore`` in it,
listing ljtui's runtime state (:data:`RUNTIME_STATE`), so ``git status``
never shows it while what is meant to be shared stays visible. The file
lives in the state folder itself: the user's own ignore files and ``.git``
are never touched, and it ignores itself. A ``.gitignore`` already there
is the repository's and is never replaced (writers of runtime state add
a missing line to it, :func:`~ljtui.core.edits.journal.ensure_agent_gitignore`).
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

AGENT_DIR = ".agent"
"""The state folder at the repository root."""
STATE_DIR_MODE = 0o777
"""Mode asked for new state folders (the process umask applies)."""
STATE_FILE_MODE = 0o600
"""Mode of new state files."""
GITIGNORE = ".gitignore"
RUNTIME_STATE = (".gitignore", "journal/", "sessions/", "workspace/", "plans/", "cache/", "events.jsonl", ".*.tmp")
"""What ljtui keeps under ``.agent`` for itself, listed in ``.agent/.gitignore`` (that file included): undo
journals, sessions, staging workspaces, exported plans, caches, the task-run log, and the temporary files of a
write a crash cut short. What is meant to be committed — ``gates/``, ``playbooks/``, ``skills/``,
``commands/``, ``memory.md``, ``config.yaml``, ``hooks.json`` — is not listed."""
_SAFE_FLAGS = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
"""Added to every open: never follow a final symlink, never block on a FIFO."""


class StateDirUnsafe(Exception):
    """``.agent`` or something below it is a symlink or not what ljtui expects.

    Attributes:
        path: The repo-relative path that was refused, e.g. ``.agent/journal``.
        problem: What is wrong with it, e.g. ``is a symbolic link``.
        message: One sentence a user can act on.
    """

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        self.message = (f"{path} {problem}; ljtui keeps its state only in real folders and files inside the "
                        f"repository and writes nothing through it: remove or rename {path}, then run ljtui again")
        super().__init__(self.message)


def _check_name(name: str) -> None:
    if not name or name in (".", "..") or "/" in name or "\x00" in name:
        raise ValueError(f"not a single path component: {name!r}")


def _lstat_dir(path: Path, shown: str) -> os.stat_result | None:
    """``lstat`` of a state folder, ``None`` when missing; refuses links and non-folders."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise StateDirUnsafe(shown, "is a symbolic link")
    if not stat.S_ISDIR(st.st_mode):
        raise StateDirUnsafe(shown, "is not a folder")
    return st


def state_dir(root: Path, *parts: str, create: bool) -> Path:
    """``<root>/.agent/<parts…>``, each component checked to be a real folder.

    Args:
        root: The repository root (trusted: chosen by the user).
        *parts: Folder names below ``.agent``, one component each.
        create: Create missing folders; otherwise a missing folder ends the
            walk and its path is returned (nothing below it can exist).

    Returns:
        The folder's path; it exists when ``create`` is true.

    Raises:
        StateDirUnsafe: A component is a symbolic link or not a folder.
        OSError: A folder could not be created or examined.
    """
    current = root
    shown: list[str] = []
    for name in (AGENT_DIR, *parts):
        _check_name(name)
        current = current / name
        shown.append(name)
        if _lstat_dir(current, "/".join(shown)) is not None:
            continue
        if not create:
            return root.joinpath(AGENT_DIR, *parts)
        try:
            os.mkdir(current, STATE_DIR_MODE)
            if len(shown) == 1:
                _ignore_runtime_state(root)
        except FileExistsError:
            pass
        _lstat_dir(current, "/".join(shown))
    return current


def _ignore_runtime_state(root: Path) -> None:
    """Write ``.agent/.gitignore`` listing :data:`RUNTIME_STATE` into the ``.agent`` just made; a file there
    already (another process was first) is left as it is. A failure leaves the folder without it: the writer
    that made the folder goes on, and the writers of runtime state complete the file."""
    try:
        fd = open_state_file(root, GITIGNORE, flags=os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode=0o666)
    except (StateDirUnsafe, OSError):
        return
    try:
        data = "".join(f"{entry}\n" for entry in RUNTIME_STATE).encode("utf-8")
        while data:
            data = data[os.write(fd, data):]
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def _state_folder(root: Path, folders: tuple[str, ...] | list[str], *, create: bool) -> Iterator[int]:
    """A descriptor of ``<root>/.agent/<folders…>``, each folder opened from the root without following a link
    (:class:`~ljtui.core.edits.folders.RepoFolders`), so a folder swapped for a link after a check cannot
    redirect what is opened in it; with ``create``, missing folders are made, each inside the one before.

    Raises:
        StateDirUnsafe: A folder on the way is a symbolic link or not a folder.
        FileNotFoundError: A folder is missing (and ``create`` is false).
    """
    from ljtui.core.edits.folders import FolderRefused, RepoFolders  # only once state is written or read

    for name in folders:
        _check_name(name)
    rel = "/".join((AGENT_DIR, *folders))
    with RepoFolders(root) as reached:
        try:
            if create:
                fresh = not os.path.lexists(root / AGENT_DIR)
                reached.make(rel)
                if fresh:
                    _ignore_runtime_state(root)
            yield reached.fd(rel)
        except FolderRefused as exc:
            raise StateDirUnsafe(exc.folder, exc.problem) from None


def open_state_file(root: Path, *parts: str, flags: int, mode: int = STATE_FILE_MODE) -> int:
    """Open ``<root>/.agent/<parts…>`` as a regular file, never through a symlink.

    Every folder on the way is opened from the root without following a link, and the file is opened in the
    last one's descriptor.

    Args:
        root: The repository root.
        *parts: Folders below ``.agent`` then the file name.
        flags: ``os.open`` flags; with ``os.O_CREAT`` missing folders are created.
        mode: Mode of a newly created file.

    Returns:
        An open file descriptor (the caller closes it).

    Raises:
        StateDirUnsafe: A folder or the file is a symbolic link, or the file is not a regular file.
        OSError: The file could not be opened.
    """
    *folders, name = parts
    _check_name(name)
    shown = "/".join((AGENT_DIR, *parts))
    with _state_folder(root, folders, create=bool(flags & os.O_CREAT)) as directory:
        try:
            fd = os.open(name, flags | _SAFE_FLAGS, mode, dir_fd=directory)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise StateDirUnsafe(shown, "is a symbolic link") from exc
            raise type(exc)(exc.errno, exc.strerror, shown) from None  # named from the root, not its folder
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StateDirUnsafe(shown, "is not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


class StateFileTooBig(Exception):
    """A state file is larger than its reader allows (a repository may commit anything)."""


def read_at_most(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes from ``fd`` (fewer at its end); the caller closes it."""
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_regular(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes of the regular file open as ``fd``, which is closed.

    Raises:
        IsADirectoryError: ``fd`` is not a regular file (a folder, a FIFO, a device).
    """
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IsADirectoryError(0, "not a regular file")
        return read_at_most(fd, limit)
    finally:
        os.close(fd)


def read_state_bytes(root: Path, *parts: str, limit: int) -> bytes:
    """The bytes of ``<root>/.agent/<parts…>``, at most ``limit`` of them.

    Raises:
        StateDirUnsafe: a folder or the file is a symbolic link or not what it should be.
        StateFileTooBig: the file has more than ``limit`` bytes (also when it grows while read).
        OSError: it could not be read (``FileNotFoundError`` when missing).
    """
    fd = open_state_file(root, *parts, flags=os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise StateFileTooBig(f"{'/'.join((AGENT_DIR, *parts))} is {size} bytes, over the {limit} byte bound")
        data = read_at_most(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise StateFileTooBig(f"{'/'.join((AGENT_DIR, *parts))} grew over the {limit} byte bound while read")
    return data


def replace_state_file(root: Path, *parts: str, data: bytes, durable: bool = True) -> None:
    """Write ``<root>/.agent/<parts…>`` whole: a private temp file beside it, fsync, rename.

    A reader sees the old bytes or the new ones, never a mix; a crash leaves
    at most a stray ``.tmp`` file. The temp file is made, renamed and (on a
    failure) removed in the descriptor of the file's folder, reached from the
    root without following a link.

    Raises:
        StateDirUnsafe: a folder on the way is a symbolic link or not a folder.
        OSError: it could not be written (the temp file is removed).
    """
    import secrets as random_names

    *folders, name = parts
    _check_name(name)
    temporary = f".{name}.{os.getpid()}.{random_names.token_hex(4)}.tmp"
    with _state_folder(root, folders, create=True) as directory:
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _SAFE_FLAGS, STATE_FILE_MODE,
                         dir_fd=directory)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            try:
                os.unlink(temporary, dir_fd=directory)
            except OSError:
                pass
            raise
