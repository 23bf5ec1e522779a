"""Resolving plan paths inside the repository root, refusing every escape."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ljtui.core.edits import errors as E

REPO_MARKER = ".git"
FORBIDDEN_PREFIXES = (".git", ".agent/journal")
"""Repo-relative prefixes a plan may never write into."""


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


def resolve_target(root: Path, path: str, block: int | None = None, *,
                   root_resolved: bool = False) -> Target | E.EditError:
    """Resolve ``path`` against ``root`` or return why it is refused.

    Args:
        root: The repository root.
        path: The path as the plan wrote it.
        block: Block number to put on the error.
        root_resolved: ``root`` is already absolute with no symlinks (skips resolving it again).

    Returns:
        A :class:`Target`, or a ``PathEscape`` / ``PathForbidden`` / ``NotAFile`` error.
    """
    if not path or "\x00" in path:
        return E.PathForbidden(block, f"path {path!r} is empty or holds a NUL byte", file=path)
    pure = PurePosixPath(path)
    if pure.is_absolute() or path.startswith("\\") or (len(path) > 1 and path[1] == ":"):
        return E.PathEscape(block, f"{path} is absolute; plan paths are relative to the repo root", file=path)
    if ".." in pure.parts:
        return E.PathEscape(block, f"{path} uses `..`; plan paths stay inside the repo root", file=path)
    root_real = str(root) if root_resolved else os.path.realpath(root)
    real_str = os.path.realpath(os.path.join(root_real, path))
    if real_str == root_real.rstrip(os.sep):
        return E.NotAFile(block, f"{path} names the repo root, not a file", file=path)
    if not real_str.startswith(root_real.rstrip(os.sep) + os.sep):
        return E.PathEscape(block, f"{path} resolves to {real_str}, outside the repo root (through a symlink)",
                            file=path)
    key = PurePosixPath(real_str[len(root_real.rstrip(os.sep)) + 1:]).as_posix()
    real = Path(real_str)
    for prefix in FORBIDDEN_PREFIXES:
        if key == prefix or key.startswith(prefix + "/"):
            return E.PathForbidden(block, f"{path} lies inside {prefix}/, which plans may not write", file=path)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return Target(key, real)
    except NotADirectoryError:
        return E.NotAFile(block, f"{path}: a parent of this path is a file", file=path)
    except OSError as exc:
        return E.NotAFile(block, f"{path}: cannot stat ({exc.strerror})", file=path)
    if not stat.S_ISREG(st.st_mode):
        return E.NotAFile(block, f"{path} exists but is not a regular file", file=path)
    return Target(key, real)


def find_repo_root(start: Path) -> Path:
    """The nearest directory at or above ``start`` holding ``.git``; ``start`` if none."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / REPO_MARKER).exists():
            return candidate
    return start
