"""``ljtui review --git X`` and ``ljtui apply --git X`` (``--dry-run`` too) as real processes, in a repository
holding a hostile nested repository: the change opens or applies, and no program of the nested repository
runs. A plain ``git status`` afterwards runs them, showing the plant is live."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.cli.terminal import Terminal
from tests.cli.test_apply_changes import ljtui
from tests.nested_git import plain_git_status_runs_them, plant_nested, ran

LJTUI = str(Path(sys.executable).with_name("ljtui"))
CTRL_Q = b"\x11"
GREETING = "def greet(name):\n    return 'hello ' + name\n"


def changed(repo: Path) -> None:
    """The working tree differs from HEAD in app.py only."""
    (repo / "app.py").write_text(GREETING.replace("'hello '", "'hi '"), encoding="utf-8")


def test_apply_git_with_a_nested_repository_runs_nothing_of_it(git_repo: Path, tmp_path: Path) -> None:
    marker = plant_nested(git_repo, tmp_path / "tools")
    changed(git_repo)
    preview = ljtui(git_repo, "apply", "--git", "HEAD", "--dry-run")
    assert preview.returncode == 0, preview.stderr
    assert "-    return 'hi ' + name" in preview.stdout and "sub" not in preview.stdout.split()
    assert ran(marker) == ""
    done = ljtui(git_repo, "apply", "--git", "HEAD", "--yes")
    assert done.returncode == 0, done.stderr
    assert (git_repo / "app.py").read_text(encoding="utf-8") == GREETING
    assert ran(marker) == ""
    assert "nested" in plain_git_status_runs_them(git_repo, marker)


def test_review_git_with_a_nested_repository_runs_nothing_of_it(git_repo: Path, tmp_path: Path) -> None:
    marker = plant_nested(git_repo, tmp_path / "tools")
    changed(git_repo)
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_STATE_HOME": str(home / ".state"), "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    term = Terminal([LJTUI, "review", "--git", "HEAD"], git_repo, env)
    try:
        term.wait_for(lambda: term.on_screen("app.py") and term.on_screen("hunk 1/1"), "the hunk in the Diff pane")
    finally:
        term.press(CTRL_Q)
        assert term.finish() == 0
    assert ran(marker) == ""
    assert "nested" in plain_git_status_runs_them(git_repo, marker)
