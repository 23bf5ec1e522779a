"""Which files the outline reads: source files in the repository, never secret, ignored or vendored ones.

In a git repository the list comes from ``git ls-files --cached --others
--exclude-standard`` (tracked files and untracked files git does not
ignore); elsewhere, or when git fails, from a walk that does not follow
symlinks. Either way, folders in the planner's
:data:`~ljtui.core.planner.grep.SKIP_DIRS` are left out, secret files
(:class:`~ljtui.core.secret_files.SecretFiles`) are counted and left out
before anything opens them, and only files whose extension names a
language in :data:`LANGUAGES` are kept, at most :data:`MAX_FILES`.
"""

from __future__ import annotations

import os
import posixpath
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ljtui.core.git import run_git
from ljtui.core.repo import SKIP_DIRS
from ljtui.core.sandbox import is_state_name
from ljtui.core.secret_files import SecretFiles

LANGUAGES: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java",
}
"""File extension (lower case) -> the language its definitions are read as."""
MAX_FILES = 20_000
"""Source files outlined in one repository; the rest (last by path) are counted, not read."""
GIT_TIMEOUT_S = 30.0
"""Bound on the ``git ls-files`` call; past it the folder is walked instead."""
GIT_LIST = ("ls-files", "-z", "--cached", "--others", "--exclude-standard")
"""The git command (run in the root) that lists tracked and not-ignored untracked files."""


@dataclass
class Listing:
    """The source files to outline and what was left out.

    Attributes:
        files: ``(path, language)`` pairs, repository-relative, ``/``-separated, sorted by path.
        secret: secret files left out (any extension).
        over_limit: source files past :data:`MAX_FILES`.
        from_git: whether git listed the files (so ignored files are out).
    """

    files: list[tuple[str, str]] = field(default_factory=list)
    secret: int = 0
    over_limit: int = 0
    from_git: bool = False


def language_of(path: str) -> str | None:
    """The language of the file at ``path`` by its extension, or None."""
    return LANGUAGES.get(posixpath.splitext(path)[1].lower())


def list_sources(root: Path, secrets: SecretFiles, under: str = "") -> Listing:
    """The source files of ``root`` (below the repository-relative folder or file ``under``).

    Args:
        root: the repository root.
        secrets: which files are secret.
        under: ``""`` for the whole repository, else a normalised relative path.
    """
    paths = _git_paths(root, under)
    from_git = paths is not None
    if paths is None:
        paths = _walk_paths(root, under)
    listing = Listing(from_git=from_git)
    kept: list[tuple[str, str]] = []
    for path in sorted(set(paths)):
        if in_skipped_folder(path):
            continue
        if secrets.is_secret(path):
            listing.secret += 1
            continue
        language = language_of(path)
        if language is not None:
            kept.append((path, language))
    listing.files = kept[:MAX_FILES]
    listing.over_limit = len(kept) - len(listing.files)
    return listing


def in_skipped_folder(path: str) -> bool:
    """Whether a folder on ``path`` is one the outline never enters (:data:`SKIP_DIRS`, ``.agent`` in any case)."""
    parts = path.split("/")
    return any(part in SKIP_DIRS or is_state_name(part) for part in parts[:-1])


def _git_paths(root: Path, under: str) -> list[str] | None:
    """Paths git lists (tracked and not ignored), or None when ``root`` is not a git work tree."""
    command = [*GIT_LIST, *(("--", under) if under else ())]
    try:
        done = run_git(command, root, options=("--literal-pathspecs",), timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [name for name in names if name and not name.startswith("../")]


def _walk_paths(root: Path, under: str) -> list[str]:
    """Every regular file below ``under``, walked without following symlinks or entering skipped folders."""
    kind = _kind_below(root, under)
    if kind != "folder":
        return [under] if kind == "file" else []
    found: list[str] = []
    stack = [under]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(os.path.join(root, folder) if folder else root) as entries:
                for entry in entries:
                    rel = f"{folder}/{entry.name}" if folder else entry.name
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in SKIP_DIRS and not is_state_name(entry.name):
                            stack.append(rel)
                    elif entry.is_file(follow_symlinks=False):
                        found.append(rel)
        except OSError:
            continue
    return found


def _kind_below(root: Path, under: str) -> str:
    """``folder``, ``file`` or ``""`` (missing, or reached through a symlink) for ``root/under``."""
    current = root
    mode = 0
    for part in under.split("/") if under else []:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except OSError:
            return ""
        if stat.S_ISLNK(mode):
            return ""
    if not under or stat.S_ISDIR(mode):
        return "folder"
    return "file" if stat.S_ISREG(mode) else ""
