"""ljtui's own git calls never enter a nested repository and never start a transport a config names.

The repository holds a committed nested repository whose own config runs
marker programs (:mod:`tests.nested_git`); a partial clone names an ``ext::``
transport that would run a marker program to fetch a missing object. Every
core call site of git is exercised; a plain ``git status`` or ``git diff``
then runs the programs, showing the plant is live.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ljtui.core.agent.project import git_summary
from ljtui.core.edits.change_source import git_change
from ljtui.core.gates.authors import untracked
from ljtui.core.gates.workspace import Workspace
from ljtui.core.git import overrides, run_git
from ljtui.core.outline.cache_place import cache_place
from ljtui.core.outline.files import list_sources
from ljtui.core.secret_files import SecretFiles
from ljtui.core.trust_content import settings_of
from tests.conftest import git
from tests.nested_git import marker_script, plain_git_status_runs_them, plant_nested, ran


def test_no_call_site_runs_a_program_of_a_nested_repository(git_repo: Path, tmp_path: Path) -> None:
    marker = plant_nested(git_repo, tmp_path / "tools")
    (git_repo / "app.py").write_text("def greet(name):\n    return 'hi ' + name\n", encoding="utf-8")
    assert " M app.py" in git_summary(git_repo)
    assert [p for p, _ in list_sources(git_repo, SecretFiles()).files] == ["app.py"]
    assert untracked(git_repo, "no-such-gate")
    settings_of(git_repo)
    cache_place(git_repo, ("outline.json",), writing=True)
    change = git_change(git_repo, "HEAD")
    assert change.text is not None and "-    return 'hi ' + name" in change.text
    assert git_change(git_repo, "HEAD~1..HEAD").text is not None
    space = Workspace.create(git_repo, "run-1")
    (space.tree / "app.py").write_text("X = 1\n", encoding="utf-8")
    assert {c.path for c in space.changes()} == {"app.py"}
    space.discard()
    for args in (["status", "--porcelain"], ["diff", "HEAD"], ["diff", "--stat"], ["show", "--stat", "HEAD"],
                 ["log", "-p", "-1"], ["ls-files", "-s"]):
        assert run_git(args, git_repo).returncode == 0, args
    assert ran(marker) == ""
    planted = plain_git_status_runs_them(git_repo, marker)
    assert "nested clean filter" in planted or "nested process filter" in planted


@pytest.mark.parametrize("option", ["--recurse-submodules", "--ignore-submodules=none", "--submodule=diff"])
def test_a_caller_cannot_ask_git_into_nested_repositories(git_repo: Path, option: str) -> None:
    with pytest.raises(ValueError, match="nested repositories"):
        run_git(["diff", option, "HEAD"], git_repo)
    assert run_git(["diff", "HEAD", "--", option], git_repo).returncode == 0  # a path after "--" is a path


def partial_clone(tmp_path: Path, marker: Path) -> Path:
    """A blobless clone whose remote is an ``ext::`` command that would write ``marker`` to fetch a blob."""
    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    git(origin, "config", "uploadpack.allowFilter", "true")
    for text in ("one\n", "two\n"):
        (origin / "f.txt").write_text(text, encoding="utf-8")
        git(origin, "add", "f.txt")
        git(origin, "commit", "-q", "-m", text.strip())
    clone = tmp_path / "clone"
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    subprocess.run(["git", "clone", "-q", "--no-local", "--filter=blob:none", f"file://{origin}", str(clone)],
                   check=True, capture_output=True, env=env)
    fetch = marker_script(tmp_path / "ext.sh", marker, "ext transport")
    git(clone, "config", "remote.origin.url", f"ext::{fetch} %S")
    git(clone, "config", "protocol.ext.allow", "always")
    git(clone, "config", "protocol.allow", "always")
    return clone


def test_a_partial_clone_never_fetches_through_the_transport_its_config_names(tmp_path: Path) -> None:
    marker = tmp_path / "ran.log"
    clone = partial_clone(tmp_path, marker)
    assert ("protocol.ext.allow", "never") in overrides(clone)
    change = git_change(clone, "HEAD~1..HEAD")
    assert change.text is None and change.problem is not None and "failed" in change.problem, change.problem
    assert ran(marker) == ""
    subprocess.run(["git", "diff", "HEAD~1..HEAD"], cwd=clone, capture_output=True, check=False,
                   env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)})
    assert "ext transport" in ran(marker)
