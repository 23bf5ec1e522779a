"""Where a command's paths point, for :mod:`~ljtui.core.agent.danger`.

A :class:`Paths` resolves the paths a command writes from each directory the
command may be in (after ``cd``\\ s that may have failed there can be
several), following symbolic links (``os.path.realpath``: the only disk
access of the danger check), and says when one is outside the repository or
lands in a ``.git`` directory where hooks and configuration live. A path
that only the running shell knows (``$DIR/x``, ``~user/x``) counts as
outside; ``/dev/null``, ``/dev/stdout``, ``/dev/stderr``, ``/dev/stdin``,
``/dev/tty`` and ``/dev/fd/N`` are not files.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

MAX_PLACES = 32
"""Directories a command may be in before the place counts as unknown."""
SAFE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty"})
SAFE_DESCRIPTOR = re.compile(r"^/dev/fd/\d+$")
UNKNOWN_MARKS = ("$", "`", "<(", ">(")
"""Text that only the running shell can turn into a path."""
GIT_DIR = ".git"
GIT_CONFIG_FILES = ("config", "config.worktree")
NESTED_GIT_DIRS = ("modules", "worktrees")

Places = frozenset[str | None]
"""The directories a command may run in (``None``: one that cannot be told)."""


class Paths:
    """Resolves paths for one repository root, remembering what it resolved."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.resolved: dict[tuple[str, str | None], str | None] = {}

    def place(self, path: str, cwd: str | None) -> str | None:
        """Where ``path`` points from ``cwd``, symbolic links resolved; ``None`` when that cannot be told."""
        key = (path, cwd)
        if key not in self.resolved:
            self.resolved[key] = _resolve(path, cwd)
        return self.resolved[key]

    def inside(self, place: str) -> bool:
        return place == self.root or place.startswith(self.root.rstrip(os.sep) + os.sep)

    def write_reason(self, target: str, places: Places) -> str | None:
        """Why writing ``target`` is dangerous (outside the repository, into ``.git``), else ``None``."""
        normal = os.path.normpath(target)
        if normal in SAFE_TARGETS or SAFE_DESCRIPTOR.match(normal):
            return None
        for cwd in ordered(places):
            resolved = self.place(target, cwd)
            if resolved is None:
                return f"writes outside the repository ({target})"
            lexical = os.path.normpath(os.path.join(cwd, os.path.expanduser(target))) if cwd else resolved
            reason = git_internal(lexical, target) or git_internal(resolved, target)
            if reason:
                return reason
            if not self.inside(resolved):
                shown = target if os.path.isabs(target) else f"{target} → {resolved}"
                return f"writes outside the repository ({shown})"
        return None

    def mode_reason(self, tool: str, target: str, recursive: bool, places: Places) -> str | None:
        """Why changing the owner or mode of ``target`` is dangerous, else ``None``."""
        for cwd in ordered(places):
            resolved = self.place(target, cwd)
            reason = git_internal(resolved, target) if resolved is not None else None
            if reason:
                return reason
            if resolved is None or not self.inside(resolved):
                flag = " -R" if recursive else ""
                return f"changes owner or permissions outside the repository ({tool}{flag} {target})"
        return None


def git_internal(path: str, target: str) -> str | None:
    """The reason when ``path`` is inside a ``.git`` directory where hooks or configuration live."""
    if GIT_DIR not in path.lower():
        return None
    parts = [p.lower() for p in Path(path).parts]
    if GIT_DIR not in parts:
        return None
    rest = parts[len(parts) - parts[::-1].index(GIT_DIR):]
    if not rest:
        return f"may plant a git hook or change git config (writes into .git: {target})"
    nested = rest[0] in NESTED_GIT_DIRS
    if rest[0] == "hooks" or (nested and "hooks" in rest):
        return f"plants or changes a git hook ({target})"
    if rest[-1] in GIT_CONFIG_FILES and (len(rest) == 1 or nested):
        return f"changes git config ({target})"
    return None


def ordered(places: Places) -> list[str | None]:
    """The places in a fixed order (unknown last), so the reason named does not vary between runs."""
    return sorted(places, key=lambda p: (p is None, p or ""))


def capped(places: Places) -> Places:
    """``places``, or only "unknown" when there are too many to follow."""
    return places if len(places) <= MAX_PLACES else Places({None})


def _resolve(path: str, cwd: str | None) -> str | None:
    if path == "-" or any(mark in path for mark in UNKNOWN_MARKS):
        return None
    if path.startswith("~"):
        if path != "~" and not path.startswith("~/"):
            return None
        path = os.path.expanduser(path)
    if not os.path.isabs(path):
        if cwd is None:
            return None
        path = os.path.join(cwd, path)
    return os.path.realpath(path)
