"""A repository holding a hostile nested repository, for tests that ljtui's git calls run nothing of it.

The nested repository ``sub`` is committed as a gitlink (with a ``.gitmodules``
entry that asks git to look inside it, ``ignore = none``, the strongest
setting a repository can make). Its own ``.git/config`` names a clean,
smudge and process filter for every file, a ``core.fsmonitor`` program and a
``core.hooksPath``, and its ``.git/hooks`` and that hooks folder hold every
hook git runs on its own. Each program only appends a line to a marker file
in the test's own temporary folder. Its file is changed since its commit (same size, another mtime), so
a git that asks whether ``sub`` changed starts a second git inside it, which runs the clean filter.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from tests.conftest import git

HOOKS = ("post-index-change", "reference-transaction", "pre-commit", "post-commit", "post-checkout",
         "pre-auto-gc", "fsmonitor-watchman")
"""Hooks planted in the nested repository (each appends its name to the marker)."""

STALE_TIME = 1_000_000_000
"""The changed file's mtime: unlike its index entry's, with the size unchanged, so git must compare the content
through the clean filter to tell whether it changed (a changed size would answer without the filter)."""


def marker_script(path: Path, marker: Path, label: str, *, passthrough: bool = False) -> Path:
    """An executable that appends ``label`` to ``marker`` (and copies stdin to stdout for a filter)."""
    body = f"#!/bin/sh\necho '{label}' >> '{marker}'\n" + ("cat\n" if passthrough else "")
    path.write_text(body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def plant_nested(repo: Path, tools: Path) -> Path:
    """Add the hostile nested repository ``sub`` to ``repo`` (a committed repository); returns the marker file.

    ``tools`` is a folder outside ``repo`` for the marker scripts.
    """
    tools.mkdir(parents=True, exist_ok=True)
    marker = tools / "ran.log"
    sub = repo / "sub"
    sub.mkdir()
    (sub / "data.txt").write_text("nested\n", encoding="utf-8")
    (sub / ".gitattributes").write_text("* filter=evil\n", encoding="utf-8")
    git(sub, "init", "-q", "-b", "main")
    git(sub, "add", ".")
    git(sub, "commit", "-q", "-m", "nested")
    hooks = tools / "hooks"
    hooks.mkdir()
    for name in HOOKS:
        marker_script(sub / ".git" / "hooks" / name, marker, f"nested hook {name}")
        marker_script(hooks / name, marker, f"nested hooksPath {name}")
    settings = {
        "filter.evil.clean": marker_script(tools / "clean.sh", marker, "nested clean filter", passthrough=True),
        "filter.evil.smudge": marker_script(tools / "smudge.sh", marker, "nested smudge filter", passthrough=True),
        "filter.evil.process": marker_script(tools / "process.sh", marker, "nested process filter"),
        "filter.evil.required": "true",
        "core.fsmonitor": marker_script(tools / "fsmonitor.sh", marker, "nested fsmonitor"),
        "core.hooksPath": hooks,
    }
    for key, value in settings.items():
        git(sub, "config", key, str(value))
    (repo / ".gitmodules").write_text('[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n\tignore = none\n',
                                      encoding="utf-8")
    git(repo, "config", "submodule.sub.ignore", "none")
    git(repo, "add", ".gitmodules", "sub")
    git(repo, "commit", "-q", "-m", "nested repository")
    changed = sub / "data.txt"
    changed.write_text("NESTED\n", encoding="utf-8")
    os.utime(changed, (STALE_TIME, STALE_TIME))
    return marker


def ran(marker: Path) -> str:
    """What the planted programs wrote (empty when none ran)."""
    return marker.read_text(encoding="utf-8") if marker.exists() else ""


def plain_git_status_runs_them(repo: Path, marker: Path) -> str:
    """Run ``git status`` as a user would, and return what the planted programs wrote: the control showing the
    plant is live (call it after the assertions that nothing ran)."""
    subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, check=False,
                   env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo)})
    return ran(marker)
