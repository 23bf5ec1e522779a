"""Path sandboxes: every path a model names resolves inside one root (PLN-3).

A :class:`Sandbox` turns a relative path from model JSON into a real path
under its root, or refuses it with a :class:`PathRefused` whose message is
fit to send back to the model. Absolute paths, ``..`` components,
backslashes (folders are separated by ``/`` only, the rule the patcher
applies to plan paths too), NUL characters and unpaired surrogates are
refused outright; anything else is resolved through symlinks and must
still land inside the root, so a link pointing out of the tree is refused
too. A :class:`MountTable` joins a source sandbox and an optional second,
read-only one mounted under a prefix (the handbook at ``__handbook__/``).

ljtui's own state folder, ``.agent`` (sessions, memory, caches, gate runs),
is never read by a model's tool: a path with a ``.agent`` component at any
depth (a nested repository keeps its own state there too), compared
ignoring case (a case-insensitive file system opens ``.AGENT`` as
``.agent``), is refused as named and where its links lead.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

HANDBOOK_MOUNT = "__handbook__"
"""Prefix under which the handbook sandbox appears to the planner."""

HANDBOOK_SUBDIR = "references"
"""The handbook's folder inside a skill directory."""

STATE_DIR = ".agent"
"""ljtui's own state folder, never read by a model's tool."""

_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class PathRefused(ValueError):
    """A path outside the sandbox, or malformed; ``str(exc)`` is for the model."""


def handbook_dir_from_skill(skill_dir: str | os.PathLike[str]) -> Path:
    """The handbook folder of a skill: ``skill_dir/references``."""
    return Path(skill_dir) / HANDBOOK_SUBDIR


def is_state_name(name: str) -> bool:
    """Whether a folder or file name is ljtui's state folder (:data:`STATE_DIR`, any case)."""
    return name.casefold() == STATE_DIR


def in_state_dir(parts: tuple[str, ...] | list[str]) -> bool:
    """Whether path components ``parts`` name ljtui's state folder or something in it, at any depth."""
    return any(is_state_name(part) for part in parts)


def state_refusal(path: str) -> str:
    """What the model reads when ``path`` is (or leads into) ljtui's state folder."""
    return (f"path {path!r} is inside {STATE_DIR}/, ljtui's own state folder (sessions, memory, caches): the "
            "model's tools never read it")


def leads_into_state(root: Path, path: str) -> bool:
    """Whether ``path`` (relative to ``root``) names ljtui's state folder, or leads into it through a link."""
    if in_state_dir(PurePosixPath(path).parts):
        return True
    real_root = os.path.realpath(root)
    inside = os.path.relpath(os.path.realpath(os.path.join(real_root, path)), real_root)
    return not inside.startswith(os.pardir) and in_state_dir(PurePosixPath(inside).parts)


def _relative_parts(path: str) -> tuple[str, ...]:
    """The components of a sandbox-relative path, or :class:`PathRefused`."""
    if "\0" in path:
        raise PathRefused(f"path {path!r} contains a NUL character")
    if _SURROGATE.search(path):
        raise PathRefused(f"path {path!r} contains an unpaired surrogate, which is not valid text")
    if path.startswith(("/", "\\", "~")) or _WINDOWS_DRIVE.match(path):
        raise PathRefused(f"path {path!r} is absolute; use a path relative to the repository root")
    if "\\" in path:
        raise PathRefused(f"path {path!r} contains a backslash; use / between folders, as in 'src/app.py'")
    parts = tuple(p for p in PurePosixPath(path).parts if p not in ("", "."))
    if ".." in parts:
        raise PathRefused(f"path {path!r} contains '..'; paths must stay inside the repository")
    return parts


@dataclass(frozen=True)
class Sandbox:
    """One directory tree the planner may read, and nothing outside it.

    Attributes:
        root: the tree's real (symlink-free) absolute path.
        label: how paths under this root are shown, e.g. ``__handbook__``;
            empty for the source tree.
    """

    root: Path
    label: str = ""

    @classmethod
    def at(cls, root: str | os.PathLike[str], label: str = "") -> Sandbox:
        """A sandbox rooted at ``root`` (resolved through symlinks)."""
        return cls(Path(os.path.realpath(root)), label)

    def resolve(self, path: str) -> Path:
        """The real path of ``path`` (relative to the root) inside the sandbox.

        Raises:
            PathRefused: absolute, containing ``..``, leaving the root
                through a symlink, or in ljtui's state folder.
        """
        parts = _relative_parts(path)
        if in_state_dir(parts):
            raise PathRefused(state_refusal(path))
        real = Path(os.path.realpath(self.root.joinpath(*parts)))
        if not self.contains(real):
            raise PathRefused(
                f"path {path!r} leaves the sandbox (through a symlink); only files inside "
                f"{self.label or 'the repository'} can be read"
            )
        if in_state_dir(real.relative_to(self.root).parts):
            raise PathRefused(state_refusal(path))
        return real

    def contains(self, real: Path) -> bool:
        """Whether the resolved path ``real`` is the root or below it."""
        return real == self.root or self.root in real.parents

    def relative(self, real: Path) -> str:
        """``real`` (inside the root) relative to the root, ``/``-separated; ``.`` for the root."""
        return real.relative_to(self.root).as_posix()

    def display(self, real: Path) -> str:
        """How ``real`` (inside the root) is shown to the model."""
        rel = real.relative_to(self.root).as_posix()
        if self.label:
            return self.label if rel == "." else f"{self.label}/{rel}"
        return rel


@dataclass(frozen=True)
class MountTable:
    """The source sandbox plus an optional handbook mounted at a prefix."""

    source: Sandbox
    handbook: Sandbox | None = None

    @classmethod
    def build(
        cls,
        source_root: str | os.PathLike[str],
        handbook_dir: str | os.PathLike[str] | None = None,
    ) -> MountTable:
        """Mount ``source_root`` at the top and ``handbook_dir`` at ``__handbook__/``."""
        handbook = Sandbox.at(handbook_dir, HANDBOOK_MOUNT) if handbook_dir is not None else None
        return cls(Sandbox.at(source_root), handbook)

    def locate(self, path: str) -> tuple[Sandbox, Path]:
        """The sandbox ``path`` belongs to and its real path there.

        Raises:
            PathRefused: as :meth:`Sandbox.resolve`, or the handbook prefix
                used when no handbook is mounted.
        """
        parts = _relative_parts(path)
        if parts and parts[0] == HANDBOOK_MOUNT:
            if self.handbook is None:
                raise PathRefused(f"no handbook is mounted, so {path!r} does not exist")
            return self.handbook, self.handbook.resolve("/".join(parts[1:]))
        return self.source, self.source.resolve("/".join(parts))
