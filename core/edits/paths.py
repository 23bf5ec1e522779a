"""Resolving plan paths inside the repository root, refusing every escape.

The same rules apply to every path ljtui writes: paths in plans, and paths
read back from its own journal (which lives in the untrusted repository).
A path is POSIX and relative, has no ``..``, no backslash, no leading ``~``
(never expanded), no name longer than 255 bytes, no ``.git``
component at any depth and does not start with ``.agent`` (both compared
case-insensitively), and resolves inside the root at the moment it is used.
These are the checks and the words a refusal uses; the write itself then
goes through folder descriptors (:mod:`.folders`), so a link swapped in
after a check can never redirect it.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ljtui.core.edits import errors as E
from ljtui.core.statedir import AGENT_DIR

REPO_MARKER = ".git"
GIT_COMPONENT = ".git"
"""No component of a written path may be this (any case): repositories, submodules, gitlinks."""
STATE_COMPONENT = AGENT_DIR
"""The first component no written path may have (any case): ljtui's own state."""
WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
DRIVE_PATH = re.compile(r"[A-Za-z]:[/\\]")
"""``C:/x`` or ``C:\\x``: absolute on Windows, so never a relative plan path."""
NAME_MAX_BYTES = 255
"""Longest file or folder name (in UTF-8 bytes) common filesystems hold; a longer one is refused unwritten."""
BACKSLASH_HINT = "use / between folders (a backslash is not a folder separator here)"
"""Shared wording: plan paths and planner tool paths refuse backslashes the same way."""


@dataclass(frozen=True)
class Target:
    """A plan path resolved inside the repo.

    Attributes:
        key: The resolved repo-relative path (POSIX); two spellings of one
            file share a key.
        real: The absolute path that is written (symlinks inside the repo
            are followed, so the link itself stays).
    """

    key: str
    real: Path


def _parts(path: str) -> list[str]:
    """The components of a POSIX path, without empty and ``.`` ones (as ``PurePosixPath.parts``, faster)."""
    return [p for p in path.split("/") if p and p != "."]


def protected_reason(path: str) -> str | None:
    """Why plans may never write ``path`` (a repo-relative POSIX path), or ``None``."""
    parts = [p.lower() for p in _parts(path)]
    if parts and parts[0] == STATE_COMPONENT:
        return f"{path} is inside {AGENT_DIR}/, ljtui's own state folder, which plans may not create or change"
    if GIT_COMPONENT in parts:
        return f"{path} is inside a {GIT_COMPONENT} folder or file, which plans may not create or change"
    return None


def check_spelling(path: str, block: int | None = None) -> E.EditError | None:
    """The lexical rules of a written path, checked before touching the disk.

    Returns:
        ``None`` when ``path`` is acceptable, else a ``PathForbidden``,
        ``PathEscape`` or ``PathProtected`` error.
    """
    if not path or "\x00" in path:
        return E.PathForbidden(block, f"path {path!r} is empty or holds a NUL byte", file=path)
    if path.startswith("/") or DRIVE_PATH.match(path):
        return E.PathEscape(block, f"{path} is absolute; plan paths are relative to the repo root", file=path)
    if "\\" in path:
        return E.PathForbidden(block, f"{path} contains a backslash: {BACKSLASH_HINT}", file=path)
    parts = _parts(path)
    if ".." in parts:
        return E.PathEscape(block, f"{path} uses `..`; plan paths stay inside the repo root", file=path)
    if parts and parts[0].startswith("~"):
        return E.PathEscape(block, f"{path} starts with `~`: paths are relative to the repo root and `~` is not "
                                   "expanded (to a home folder or anything else); name the file from the repo root",
                            file=path)
    long_name = next((p for p in parts if _name_bytes(p) > NAME_MAX_BYTES), None)
    if long_name is not None:
        size = _name_bytes(long_name)
        return E.PathForbidden(block, f"a name in the path {_shortened(path)} is {size} bytes long; file and folder "
                                      f"names may be at most {NAME_MAX_BYTES} bytes", file=path)
    reason = protected_reason(path)
    if reason is not None:
        return E.PathProtected(block, reason, file=path)
    return None


def _name_bytes(name: str) -> int:
    try:
        return len(name.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        return len(name.encode("utf-8", "surrogatepass"))


def _shortened(path: str, limit: int = 80) -> str:
    return path if len(path) <= limit else f"{path[:limit // 2]}…{path[-limit // 4:]}"


def is_canonical(path: str) -> bool:
    """True when ``path`` is already in the form keys take (no ``.``, ``//`` or trailing ``/``)."""
    return bool(path) and PurePosixPath(path).as_posix() == path and path not in (".", "")


def resolve_target(root: Path, path: str, block: int | None = None, *,
                   root_resolved: bool = False, for_write: bool = True) -> Target | E.EditError:
    """Resolve ``path`` against ``root`` or return why it is refused.

    Args:
        root: The repository root.
        path: The path as the plan wrote it.
        block: Block number to put on the error.
        root_resolved: ``root`` is already absolute with no symlinks (skips resolving it again).
        for_write: Refuse an existing file that may not be written (``ReadOnlyTarget``).

    Returns:
        A :class:`Target`, or a ``PathEscape`` / ``PathForbidden`` /
        ``PathProtected`` / ``NotAFile`` / ``ReadOnlyTarget`` error.
    """
    refused = check_spelling(path, block)
    if refused is not None:
        return refused
    root_real = (str(root) if root_resolved else os.path.realpath(root)).rstrip(os.sep) or os.sep
    try:
        real_str = os.path.realpath(os.path.join(root_real, path))
    except OSError as exc:  # a link on the way was swapped while it was read
        return E.PathEscape(block, f"{path}: a folder on its way changed while it was resolved ({exc.strerror}); "
                                   "refusing to write through it", file=path)
    if real_str == root_real:
        return E.NotAFile(block, f"{path} names the repo root, not a file", file=path)
    prefix = root_real if root_real == os.sep else root_real + os.sep
    if not real_str.startswith(prefix):
        return E.PathEscape(block, f"{path} resolves to {real_str}, outside the repo root (through a symlink)",
                            file=path)
    key = real_str[len(prefix):]
    reason = protected_reason(key)
    if reason is not None:
        return E.PathProtected(block, f"{path} resolves to {key}: {reason}", file=path)
    return _check_file(Target(key, Path(real_str)), path, block, for_write)


def _check_file(target: Target, path: str, block: int | None, for_write: bool) -> Target | E.EditError:
    try:
        st = os.stat(target.real)
    except FileNotFoundError:
        return target
    except NotADirectoryError:
        return E.NotAFile(block, f"{path}: a parent of this path is a file", file=path)
    except OSError as exc:
        return E.NotAFile(block, f"{path}: cannot stat ({exc.strerror})", file=path)
    if not stat.S_ISREG(st.st_mode):
        return E.NotAFile(block, f"{path} exists but is not a regular file", file=path)
    if for_write and is_read_only(target.real, st):
        return E.ReadOnlyTarget(block, f"{path} is read-only (mode {stat.S_IMODE(st.st_mode):o}); ljtui never "
                                       "overwrites a file without write permission: make it writable first",
                                file=path)
    return target


def is_read_only(real: Path, st: os.stat_result) -> bool:
    """True when nobody may write the file, or this process may not.

    Root may write anything, so a file with no write bit at all counts as
    read-only for every user: replacing it by rename would ignore its mode.
    """
    return not st.st_mode & WRITE_BITS or not os.access(real, os.W_OK)


def recheck(root: Path, key: str, *, for_write: bool = True) -> Target | E.EditError:
    """Resolve a key written earlier (a plan key or a journal path) at the moment of writing.

    The key must still name itself: when a folder on the way was replaced by
    a symlink since, the path is refused, even if the link stays inside the
    repository, so nothing is ever written through it.

    Args:
        root: The repository root, resolved.
        key: A canonical repo-relative path (no symlink in it when recorded).
        for_write: Also refuse an existing file that may not be written.

    Returns:
        The :class:`Target`, or why writing ``key`` is refused now.
    """
    target = resolve_target(root, key, root_resolved=True, for_write=for_write)
    if isinstance(target, E.EditError):
        return target
    if target.key != key:
        return E.PathEscape(None, f"{key} now resolves to {target.key} through a symlink; refusing to write "
                                  "through it", file=key)
    return target


def find_repo_root(start: Path) -> Path:
    """The nearest directory at or above ``start`` holding ``.git``; ``start`` if none."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / REPO_MARKER).exists():
            return candidate
    return start
