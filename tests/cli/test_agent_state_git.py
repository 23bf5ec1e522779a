"""ljtui's state in ``.agent/`` and a real ``git status``: its runtime state (sessions, undo journals, staging
workspaces, caches, the run log, a write a crash cut short) never shows, while what is meant to be committed —
gates and playbooks — does, and ``git add .agent`` takes exactly that."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.core.gates.model import CheckItem, Factors
from ljtui.core.gates.records import GateFileError
from ljtui.core.gates.store import GateStore
from ljtui.core.playbooks.model import Playbook, PlaybookStats
from ljtui.core.playbooks.store import REPOSITORY, PlaybookStore
from ljtui.core.statedir import RUNTIME_STATE
from tests.conftest import git
from tests.fixtures import SCRIPTS

NOW = 1_800_000_000.0
SUBPROCESS_TIMEOUT = 60


def a_gate(repo: Path) -> str:
    smoke = CheckItem("smoke", "the greeting prints", "python3 app.py")
    return GateStore(repo).propose("Greeting works", [smoke], Factors(0.6, 0.5, 0.6, False, False), NOW).id


def a_playbook(repo: Path) -> None:
    store = PlaybookStore(repo, os.environ)
    playbook = Playbook("friendly-greet", "Make greet friendlier", "draft", "project", ("greet",), "a greeting",
                        "2027-01-15T08:00:00Z", "2027-01-15T08:00:00Z", None, PlaybookStats(0, 0, 0), "")
    with store.locked(REPOSITORY):  # the library's lock file, as every update takes it
        store.write(REPOSITORY, playbook)


def status(repo: Path) -> list[str]:
    return sorted(git(repo, "status", "--porcelain", "--untracked-files=all").splitlines())


def test_a_session_an_apply_a_gate_and_a_playbook_leave_only_the_gate_and_the_playbook_in_git_status(
        git_repo: Path) -> None:
    gate_id = a_gate(git_repo)  # the gate makes .agent: its .gitignore comes with it
    assert (git_repo / ".agent" / ".gitignore").read_text(encoding="utf-8").splitlines() == list(RUNTIME_STATE)
    run = subprocess.run([sys.executable, "-m", "ljtui.cli.main", "run", "make greet friendlier", "--repo",
                          str(git_repo), "--script", str(SCRIPTS / "agent_edit.yaml"), "--allow", "write"],
                         capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT)
    assert run.returncode == 0, run.stderr
    a_playbook(git_repo)
    (git_repo / ".agent" / "gates" / f".{gate_id}.md.4242.0a0b0c0d.tmp").write_text("cut short")  # a crash's
    agent = {p.relative_to(git_repo / ".agent").parts[0] for p in (git_repo / ".agent").rglob("*")}
    assert {"sessions", "journal", "cache", "gates", "playbooks"} <= agent, "the runtime state is there"
    shared = [f"?? .agent/gates/{gate_id}.md", "?? .agent/playbooks/friendly-greet.md"]
    assert status(git_repo) == sorted([" M app.py", *shared])
    git(git_repo, "add", ".agent")
    assert git(git_repo, "diff", "--cached", "--name-only").splitlines() == [
        f".agent/gates/{gate_id}.md", ".agent/playbooks/friendly-greet.md"]


def test_a_gitignore_the_repository_keeps_in_agent_is_never_replaced(git_repo: Path) -> None:
    ours = "# the team's own\n*.local.md\n"
    (git_repo / ".agent").mkdir()
    (git_repo / ".agent" / ".gitignore").write_text(ours, encoding="utf-8")
    git(git_repo, "add", "-f", ".agent/.gitignore")
    git(git_repo, "commit", "-q", "-m", "agent ignores")
    gate_id = a_gate(git_repo)
    a_playbook(git_repo)
    assert (git_repo / ".agent" / ".gitignore").read_text(encoding="utf-8") == ours
    assert status(git_repo) == [f"?? .agent/gates/{gate_id}.md", "?? .agent/playbooks/friendly-greet.md"]


def test_a_linked_agent_folder_gets_no_gitignore_and_nothing_is_written_through_it(git_repo: Path,
                                                                                 tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (git_repo / ".agent").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(GateFileError, match="symbolic link"):
        a_gate(git_repo)
    assert list(elsewhere.iterdir()) == []
