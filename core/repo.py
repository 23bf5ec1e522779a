"""Facts about the repository that the status bar and prompts show."""

from __future__ import annotations

from pathlib import Path

HEAD_REF_PREFIX = "ref: refs/heads/"
SHORT_SHA = 7
SKIP_DIRS: tuple[str, ...] = (
    ".git", ".hg", ".svn", ".agent", "node_modules", "__pycache__", ".venv", ".mypy_cache",
    ".pytest_cache", ".tox",
)
"""Folders never searched or outlined: version control, ljtui's own state (also in any other case),
dependencies, caches."""
CHARS_PER_TOKEN = 4
"""Characters per token assumed wherever a prompt's size is estimated (typical for English and code)."""


def git_dir(root: Path) -> Path | None:
    """The repository's git directory, following a ``.git`` file (worktrees)."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    if dot_git.is_file():
        try:
            line = dot_git.read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if line.startswith("gitdir:"):
            target = Path(line.removeprefix("gitdir:").strip())
            return target if target.is_absolute() else (root / target).resolve()
    return None


def current_branch(root: Path) -> str | None:
    """The checked-out branch, a short sha when detached, or ``None``.

    Reads ``HEAD`` directly: no subprocess, so it is cheap at start-up.
    """
    gdir = git_dir(root)
    if gdir is None:
        return None
    try:
        head = (gdir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if head.startswith(HEAD_REF_PREFIX):
        return head.removeprefix(HEAD_REF_PREFIX)
    return head[:SHORT_SHA] or None
