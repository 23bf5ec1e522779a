"""Where the outline cache lives: ``.agent/cache/`` when git keeps it out of sight, else the user's cache dir.

ljtui's own state must never change what the user's ``git status`` says.
In a git work tree the cache files go to ``.agent/cache/`` only when git
ignores them there: no file below ``.agent/cache/`` is tracked (a
repository that committed its cache would see ljtui rewrite tracked files
in place) and ``git check-ignore`` says both cache files are ignored. ljtui
completes ``.agent/.gitignore`` first when that file is its own (not
tracked). Otherwise the cache lives in the user's cache dir
(``$XDG_CACHE_HOME/ljtui/outline/<key>/``, platformdirs' user cache dir
without it), keyed by the root's real path, device and inode. Outside a
git work tree it stays in ``.agent/cache/``; when git cannot tell (it does
not run, or fails in a folder holding ``.git``) there is no cache: the
outline is built from the files.

The answer is remembered per root while the files it depends on (the git
index, the ignore files, the git config, the root itself) keep their stat
signature, so a warm outline costs no git call.

A process may pin its caches to one folder (:func:`pin_folder`): the
layer's tool host does, since ``.agent`` is read-only in the layer, and
the repository it sees is a new mount (a new device number) each time the
host starts, which would make every cache keyed by it a stranger.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ljtui.core.git import run_git
from ljtui.core.repo import git_dir
from ljtui.core.userdirs import user_cache_dir

AGENT_GITIGNORE = ".agent/.gitignore"
CACHE_PATH = ".agent/cache"
"""The in-repository cache folder, as git names it."""
USER_CACHE_FOLDER = "outline"
"""The folder below the user's cache dir that holds one folder per repository."""
GIT_TIMEOUT_S = 10.0
"""Bound on each git question."""
KEY_CHARS = 32
"""Hex characters of a repository's folder name in the user's cache dir."""

GIT, NO_WORK_TREE, PREDICTED, UNKNOWN = "git", "no work tree", "predicted", "unknown"
"""What a place was decided from: git's answers, git finding no work tree (both remembered); ljtui's own
``.agent/.gitignore`` not complete yet (a read before the first write), or git failing (both asked again)."""


@dataclass(frozen=True)
class CachePlace:
    """Where one repository's outline cache is read and written.

    Attributes:
        folder: the folder in the user's cache dir, or ``None`` for ``.agent/cache/``.
        usable: ``False`` when there is no safe place: the cache is then neither read nor written.
        source: what it was decided from (:data:`GIT`, :data:`NO_WORK_TREE`, :data:`PREDICTED`,
            :data:`UNKNOWN`).
    """

    folder: Path | None = None
    source: str = GIT
    usable: bool = True

    @property
    def in_repository(self) -> bool:
        """Whether the cache lives in ``.agent/cache/``."""
        return self.usable and self.folder is None


NOWHERE = CachePlace(source=UNKNOWN, usable=False)
"""git cannot tell whether the cache would show in the user's status: no cache is read or written."""


_PINNED: list[Path] = []
"""The folder this process keeps every outline cache in, when :func:`pin_folder` set one."""
_MEMO: dict[str, tuple[tuple[object, ...], CachePlace]] = {}
"""Answers by root (and cache dir and names), with the stat signature they rest on."""
_MEMO_LOCK = threading.Lock()


def cache_place(root: Path, names: tuple[str, ...], *, writing: bool,
                env: Mapping[str, str] | None = None) -> CachePlace:
    """Where the cache files ``names`` of ``root`` go.

    Args:
        root: the repository root.
        names: the cache file names (``outline.json`` …), all checked.
        writing: about to write: ljtui's own ``.agent/.gitignore`` is completed first.
        env: the environment that names the user's cache dir (default: the process's).

    Raises:
        StateDirUnsafe: ``.agent`` or its ``.gitignore`` is a symlink (only when ``writing``).
        OSError: ``.agent/.gitignore`` could not be written (only when ``writing``).
    """
    if _PINNED:
        return CachePlace(pinned_cache_folder(root), GIT)
    memo_key = f"{root}\0{user_cache_dir(env)}\0{' '.join(names)}"
    with _MEMO_LOCK:
        known = _MEMO.get(memo_key)
    if known is not None and known[0] == _signature(root, known[1]):
        return known[1]
    answer = _decide(root, names, writing, env)
    if answer.source in (GIT, NO_WORK_TREE):
        signature = _signature(root, answer)
        if signature is not None:
            with _MEMO_LOCK:
                _MEMO[memo_key] = (signature, answer)
    return answer


def pin_folder(folder: Path) -> None:
    """Keep every outline cache of this process below ``folder`` (made when missing), whatever git says, keyed by
    the root's path alone (for a process that sees its repository through a mount of its own: the layer's tool
    host).

    Raises:
        OSError: the folder cannot be made.
    """
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    _PINNED[:] = [folder]


def pinned_folder() -> Path | None:
    """The folder :func:`pin_folder` set, if any."""
    return _PINNED[0] if _PINNED else None


def pinned_cache_folder(root: Path) -> Path:
    """The folder of ``root``'s cache below the pinned folder."""
    key = hashlib.sha256(os.fsencode(os.path.realpath(root))).hexdigest()
    return _PINNED[0] / key[:KEY_CHARS]


def user_cache_folder(root: Path, env: Mapping[str, str] | None = None) -> Path:
    """The folder of ``root``'s cache in the user's cache dir (keyed by real path, device and inode).

    Raises:
        OSError: the root cannot be examined.
    """
    real = os.path.realpath(root)
    st = os.stat(real)
    key = hashlib.sha256(f"{real}\0{st.st_dev}:{st.st_ino}".encode("utf-8", "surrogateescape")).hexdigest()
    return user_cache_dir(env) / USER_CACHE_FOLDER / key[:KEY_CHARS]


def _decide(root: Path, names: tuple[str, ...], writing: bool, env: Mapping[str, str] | None) -> CachePlace:
    tracked = _git_paths(root, ["ls-files", "-z", "--", AGENT_GITIGNORE, CACHE_PATH])
    if tracked is None:
        return NOWHERE if os.path.lexists(root / ".git") else CachePlace(source=NO_WORK_TREE)
    if any(path.startswith(CACHE_PATH + "/") for path in tracked):
        return _user_place(root, env, GIT)
    if writing and AGENT_GITIGNORE not in tracked:
        from ljtui.core.edits.journal import ensure_agent_gitignore  # only when writing: keeps warm starts light

        ensure_agent_gitignore(root)
    wanted = [f"{CACHE_PATH}/{name}" for name in names]
    ignored = _git_paths(root, ["check-ignore", "--", *wanted], separator="\n", literal=False)
    if ignored is None:
        return NOWHERE
    if set(ignored) >= set(wanted):
        return CachePlace(source=GIT)
    if not writing and AGENT_GITIGNORE not in tracked:  # completed before the first write: then git is asked again
        return CachePlace(source=PREDICTED)
    return _user_place(root, env, GIT)


def _user_place(root: Path, env: Mapping[str, str] | None, source: str) -> CachePlace:
    return CachePlace(user_cache_folder(root, env), source)


def _git_paths(root: Path, args: list[str], separator: str = "\0", literal: bool = True) -> list[str] | None:
    """The paths git prints (exit 1 means none), or ``None`` when git fails or finds no work tree.

    ``literal``: paths are literal pathspecs (``check-ignore`` does not take the option; its paths here hold
    no wildcard).
    """
    try:
        done = run_git(args, root, options=("--literal-pathspecs",) if literal else (), timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode not in (0, 1):
        return None
    return [p for p in done.stdout.decode("utf-8", "surrogateescape").split(separator) if p]


def _signature(root: Path, answer: CachePlace) -> tuple[object, ...] | None:
    """The stat signature of what ``answer`` rests on; ``None`` when it cannot be told (do not remember it)."""
    if answer.source == NO_WORK_TREE:
        return (_stat(root), _stat(root / ".git"))
    found = git_dir(root)
    if found is None:
        return None
    paths = (root, root / ".git", found / "index", found / "config", found / "info" / "exclude",
             root / ".gitignore", root / AGENT_GITIGNORE, root / ".agent")
    return tuple(_stat(path) for path in paths)


def _stat(path: Path) -> tuple[int, int, int, int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
