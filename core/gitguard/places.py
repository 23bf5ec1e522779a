"""Where git's executable settings live in a repository: the files and folders the guard watches.

git runs a program named by its settings in these places:

* a git directory's ``config`` and ``config.worktree``, and every file they
  include (``include.path``, ``includeIf.*.path``; all of them, whatever the
  condition): ``core.fsmonitor``, filter drivers, diff and merge drivers,
  ``core.sshCommand``, aliases, ``core.hooksPath`` …;
* its ``info/attributes``, which gives files to a filter or diff driver;
* its ``hooks`` folder, and the folder ``core.hooksPath`` names;
* the same in every nested repository git would enter from the
  repository: each gitlink in the index (a submodule, or any repository
  committed inside), and every git directory below ``.git/modules``.

Only places inside the repository are watched: a sandboxed command may
write nothing else (ljtui's own private temp dir aside), and
:class:`Places` answers in real paths relative to the repository root.
Finding the included files, ``core.hooksPath`` and the gitlinks takes a
``git`` call each (:func:`~ljtui.core.git.run_git`), made again only when
a file it read changed (compared by ``stat``); otherwise a look costs a few
``stat`` calls.
"""

from __future__ import annotations

import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from ljtui.core.git import GitRefused, run_git

GIT_TIMEOUT_S = 10.0
"""Bound on each git call made to find the places."""
GIT_FILES = ("config", "config.worktree", "info/attributes")
"""A git directory's files that name programs, or give files to one."""
HOOKS = "hooks"
MODULES = "modules"
"""Below a git directory: the git directories of its submodules."""
MODULES_SKIP = frozenset({"objects", "refs", "logs", "lfs", "info", HOOKS})
"""Folders of a git directory that hold no nested git directory."""
MAX_MODULE_DEPTH = 8
"""Deepest nesting of ``.git/modules`` searched."""
GITLINK_MODE = "160000"
INCLUDE_KEYS = ("include.path",)
HOOKS_PATH_KEY = "core.hookspath"
FILE_ORIGIN = "file:"

StatKey = tuple[int, int, int, int]


@dataclass(frozen=True)
class Watched:
    """What to compare: single files, and folders compared with everything below them.

    Attributes:
        files: real paths relative to the repository root (POSIX), present or not.
        trees: folders, the same way.
    """

    files: tuple[str, ...]
    trees: tuple[str, ...]


class Places:
    """Finds what :class:`Watched` holds for the repository at ``root``; safe to call from several threads."""

    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))
        self._lock = threading.Lock()
        self._configs: dict[str, tuple[tuple[tuple[str, StatKey | None], ...], list[str], list[str]]] = {}
        self._gitlinks: tuple[StatKey | None, list[str]] = (None, [])

    def find(self) -> Watched:
        """The places to watch now."""
        with self._lock:
            files: list[str] = []
            trees: list[str] = []
            for repo, git_dirs in self._repositories():
                for git_dir in git_dirs:
                    files.extend(f"{git_dir}/{name}" for name in GIT_FILES)
                    trees.append(f"{git_dir}/{HOOKS}")
                more_files, more_trees = self._config_places(repo)
                files.extend(more_files)
                trees.extend(more_trees)
            return Watched(tuple(dict.fromkeys(files)), tuple(dict.fromkeys(trees)))

    def inside(self, path: str | Path) -> str | None:
        """``path`` (absolute, or relative to the root) as a real path relative to the root, or ``None`` when it
        lies outside. Every folder on the way is resolved; the last part is not (it may be a link)."""
        full = self.root / path
        parent = os.path.realpath(full.parent)
        real = os.path.join(parent, full.name) if full.name not in ("", ".", "..") else os.path.realpath(full)
        try:
            rel = os.path.relpath(real, self.root)
        except ValueError:
            return None
        if rel == os.curdir or rel.startswith(os.pardir):
            return None
        return Path(rel).as_posix()

    def _repositories(self) -> list[tuple[str, list[str]]]:
        """``(work tree, git directories)`` of the repository and of each nested one, relative to the root."""
        found: list[tuple[str, list[str]]] = []
        top = self._git_dirs("")
        if top:
            found.append(("", top))
            for git_dir in list(top):
                for module in self._modules(git_dir):
                    found.append((module, [module]))
        for link in self._gitlink_paths():
            nested = self._git_dirs(link)
            if nested:
                found.append((link, nested))
        return found

    def _git_dirs(self, work_tree: str) -> list[str]:
        """The git directory of the work tree at ``work_tree`` (and its common directory), inside the root."""
        dot_git = self.root / work_tree / ".git"
        try:
            if dot_git.is_symlink() or not (dot_git.is_dir() or dot_git.is_file()):
                return []
            if dot_git.is_dir():
                git_dir = self.inside(dot_git)
            else:
                line = dot_git.read_text(encoding="utf-8", errors="replace")[:4096].strip()
                if not line.startswith("gitdir:"):
                    return []
                git_dir = self.inside(dot_git.parent / line.removeprefix("gitdir:").strip())
        except OSError:
            return []
        if git_dir is None:
            return []
        dirs = [git_dir]
        try:
            common = (self.root / git_dir / "commondir").read_text(encoding="utf-8", errors="replace")[:4096]
        except OSError:
            return dirs
        common_dir = self.inside(self.root / git_dir / common.strip())
        return [*dirs, common_dir] if common_dir and common_dir != git_dir else dirs

    def _modules(self, git_dir: str) -> list[str]:
        """Git directories below ``git_dir/modules``, at any depth."""
        found: list[str] = []
        stack = [(f"{git_dir}/{MODULES}", 0)]
        while stack:
            folder, depth = stack.pop()
            try:
                entries = list(os.scandir(self.root / folder))
            except OSError:
                continue
            names = {e.name for e in entries if e.is_file(follow_symlinks=False)}
            if "config" in names and folder != f"{git_dir}/{MODULES}":
                found.append(folder)
            if depth >= MAX_MODULE_DEPTH:
                continue
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and entry.name not in MODULES_SKIP:
                    stack.append((f"{folder}/{entry.name}", depth + 1))
        return sorted(found)

    def _config_places(self, work_tree: str) -> tuple[list[str], list[str]]:
        """The files the config of ``work_tree`` reads (includes too) and its ``core.hooksPath`` folder."""
        known = self._configs.get(work_tree)
        if known is not None and all(_stat(self.root / rel) == key for rel, key in known[0]):
            return known[1], known[2]
        listing = self._git(["config", "--list", "--show-origin", "--show-scope", "--null", "--includes"],
                            self.root / work_tree)
        files, trees = ([], []) if listing is None else self._read_listing(work_tree, listing)
        read = [*files, *(f"{d}/config" for d in self._git_dirs(work_tree)),
                *(f"{d}/config.worktree" for d in self._git_dirs(work_tree))]
        self._configs[work_tree] = (tuple((rel, _stat(self.root / rel)) for rel in dict.fromkeys(read)), files, trees)
        return files, trees

    def _read_listing(self, work_tree: str, listing: bytes) -> tuple[list[str], list[str]]:
        files: list[str] = []
        hooks_path: str | None = None
        fields = listing.decode("utf-8", "surrogateescape").split("\0")
        for index in range(0, len(fields) - 2, 3):
            origin, entry = fields[index + 1], fields[index + 2]
            if not origin.startswith(FILE_ORIGIN):
                continue
            origin_path = Path(self.root / work_tree / origin[len(FILE_ORIGIN):])
            key, _, value = entry.partition("\n")
            rel = self.inside(origin_path)
            if rel is not None:
                files.append(rel)
            if key in INCLUDE_KEYS or (key.startswith("includeif.") and key.endswith(".path")):
                target = Path(os.path.expanduser(value))
                included = self.inside(target if target.is_absolute() else origin_path.parent / target)
                if included is not None:
                    files.append(included)
            elif key == HOOKS_PATH_KEY:
                hooks_path = value
        trees = []
        if hooks_path:
            target = Path(os.path.expanduser(hooks_path))
            folder = self.inside(target if target.is_absolute() else self.root / work_tree / target)
            if folder is not None:
                trees.append(folder)
        return files, trees

    def _gitlink_paths(self) -> list[str]:
        """Paths of the gitlinks in the repository's index (nested repositories git enters)."""
        git_dirs = self._git_dirs("")
        index = self.root / git_dirs[0] / "index" if git_dirs else None
        key = _stat(index) if index is not None else None
        if key is not None and key == self._gitlinks[0]:
            return self._gitlinks[1]
        listing = self._git(["ls-files", "--stage", "-z"], self.root) if key is not None else None
        links: list[str] = []
        for record in (listing or b"").decode("utf-8", "surrogateescape").split("\0"):
            meta, _, path = record.partition("\t")
            if meta.startswith(GITLINK_MODE + " ") and path:
                rel = self.inside(path)
                if rel is not None:
                    links.append(rel)
        self._gitlinks = (key, links)
        return links

    def _git(self, args: list[str], cwd: Path) -> bytes | None:
        try:
            done = run_git(args, cwd, timeout=GIT_TIMEOUT_S)
        except (OSError, subprocess.SubprocessError, GitRefused):
            return None
        return done.stdout if done.returncode == 0 else None


def _stat(path: Path) -> StatKey | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)
