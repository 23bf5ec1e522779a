"""ljtui's own git calls run no program a repository's settings name (fsmonitor, filters, hooks).

The repository is real and its ``.git/config`` is hostile: ``core.fsmonitor``
is a script, ``filter.evil`` (named in ``.gitattributes``) has a clean,
smudge and process program and is required, a filter defined through an
``include.path`` and one whose name holds a dot, and ``core.hooksPath``
points at a folder of hooks. Every program only appends a line to a marker
file in the test's own temporary folder. A plain ``git status`` in that
repository writes the marker, so the test shows something; ljtui's project
context, outline listing, outline cache and staging tree do not.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from ljtui.core.agent.project import gather, git_summary
from ljtui.core.outline.repo_outline import RepoOutline
from ljtui.core.gates.authors import untracked
from ljtui.core.gates.workspace import Workspace
from ljtui.core.git import GitRefused, filter_overrides, repository_filters, run_git
from ljtui.core.outline.files import list_sources
from ljtui.core.secret_files import SecretFiles
from tests.conftest import git

HOOKS = ("post-index-change", "reference-transaction", "pre-commit", "post-commit", "post-checkout", "pre-auto-gc")
SOURCES = {"app.py": "def greet(name):\n    return 'hello ' + name\n", "lib/util.py": "def helper():\n    pass\n"}


def script(path: Path, marker: Path, label: str, *, passthrough: bool = False) -> Path:
    """An executable that appends ``label`` to ``marker`` (and copies stdin to stdout for a filter)."""
    body = f"#!/bin/sh\necho '{label}' >> '{marker}'\n" + ("cat\n" if passthrough else "")
    path.write_text(body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A committed repository whose config runs marker scripts, with its files changed since (same sizes)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-home"))
    marker = tmp_path / "marker"
    tools = tmp_path / "tools"
    hooks = tmp_path / "hooks"
    tools.mkdir()
    hooks.mkdir()
    repo = tmp_path / "repo"
    (repo / "lib").mkdir(parents=True)
    for rel, text in SOURCES.items():
        (repo / rel).write_text(text, encoding="utf-8")
    (repo / "notes.txt").write_text("plain\n", encoding="utf-8")
    (repo / ".gitattributes").write_text("*.py filter=evil\n*.txt filter=inc\n*.md filter=we.ird\n",
                                         encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "initial")
    (tmp_path / "included.gitconfig").write_text(
        f"[filter \"inc\"]\n\tclean = {script(tools / 'inc.sh', marker, 'include filter', passthrough=True)}\n"
        "\trequired = true\n", encoding="utf-8")
    for name in HOOKS:
        script(hooks / name, marker, f"hook {name}")
    settings = {
        "core.fsmonitor": str(script(tools / "fsmonitor.sh", marker, "fsmonitor")),
        "core.hooksPath": str(hooks),
        "filter.evil.clean": str(script(tools / "clean.sh", marker, "clean filter", passthrough=True)),
        "filter.evil.smudge": str(script(tools / "smudge.sh", marker, "smudge filter", passthrough=True)),
        "filter.evil.process": str(script(tools / "process.sh", marker, "process filter")),
        "filter.evil.required": "true",
        "filter.we.ird.clean": str(script(tools / "weird.sh", marker, "dotted filter", passthrough=True)),
        "include.path": str(tmp_path / "included.gitconfig"),
    }
    for key, value in settings.items():
        git(repo, "config", key, value)
    (repo / "app.py").write_text(SOURCES["app.py"].replace("hello", "howdy"), encoding="utf-8")
    (repo / "notes.txt").write_text("PLAIN\n", encoding="utf-8")
    (repo / "README.md").write_text("# new\n", encoding="utf-8")
    return repo, marker


def plain_git_status(repo: Path) -> None:
    """``git status`` as a user would run it (it fails once the required process filter does not answer)."""
    subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, check=False,
                   env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo)})


def test_ljtui_runs_no_program_the_repository_names_and_plain_git_does(hostile: tuple[Path, Path]) -> None:
    repo, marker = hostile
    policy = SecretFiles()
    facts = gather(repo, policy, outline=RepoOutline(repo, policy).prompt_text)
    assert "## main" in facts.git and " M app.py" in facts.git
    assert "greet" in facts.outline
    listing = list_sources(repo, policy)
    assert listing.from_git and [p for p, _ in listing.files] == ["app.py", "lib/util.py"]
    space = Workspace.create(repo, "run-1")
    (space.tree / "lib" / "util.py").write_text("def helper():\n    return 1\n", encoding="utf-8")
    (space.tree / "added.py").write_text("X = 1\n", encoding="utf-8")
    assert {c.path for c in space.changes()} == {"lib/util.py", "added.py"}
    space.discard()
    assert untracked(repo, "no-such-gate")
    assert not marker.exists(), marker.read_text(encoding="utf-8")
    plain_git_status(repo)
    ran = marker.read_text(encoding="utf-8")
    assert "fsmonitor" in ran and "filter" in ran


def test_the_repositorys_filters_are_named_and_switched_off(hostile: tuple[Path, Path]) -> None:
    repo, marker = hostile
    assert repository_filters(repo) == ["evil", "inc", "we.ird"]
    overrides = dict(filter_overrides(repo))
    assert overrides["filter.evil.clean"] == overrides["filter.evil.process"] == overrides["filter.inc.clean"] == ""
    assert overrides["filter.we.ird.smudge"] == "" and overrides["filter.evil.required"] == "false"
    done = run_git(["diff"], repo)
    assert done.returncode == 0 and b"howdy" in done.stdout
    assert not marker.exists()


def test_a_users_own_filter_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[filter \"mine\"]\n\tclean = cat\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    assert repository_filters(repo) == []


def test_a_filter_name_git_c_cannot_carry_fails_closed(git_repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    git(git_repo, "config", "filter.a=b.clean", str(script(tmp_path / "clean.sh", marker, "clean", passthrough=True)))
    (git_repo / ".gitattributes").write_text("*.py filter=a=b\n", encoding="utf-8")
    with pytest.raises(GitRefused, match="cannot switch off"):
        run_git(["status"], git_repo)
    assert git_summary(git_repo) == "(git status is not available)"
    assert not list_sources(git_repo, SecretFiles()).from_git
    assert not untracked(git_repo, "gate")
    assert not marker.exists()
