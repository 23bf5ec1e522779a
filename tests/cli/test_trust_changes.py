"""``ljtui trust`` once the settings it trusted change: a pull, a command, an older record, through real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git
from tests.fixtures import SCRIPTS

SUBPROCESS_TIMEOUT = 60
SETTINGS = "agent:\n  bash_timeout: 30\n"


def ljtui(*args: str, env: dict[str, str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", *args], capture_output=True, text=True,
                          env=env, input=stdin, timeout=SUBPROCESS_TIMEOUT)


@pytest.fixture
def env(isolated_env: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(isolated_env)}


def commit_settings(repo: Path, text: str, message: str) -> None:
    (repo / ".agent").mkdir(exist_ok=True)
    (repo / ".agent" / "config.yaml").write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def listed(env: dict[str, str]) -> str:
    proc = ljtui("trust", "--list", env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_pull_that_changes_the_settings_is_asked_about_again_with_the_diff(
        git_repo: Path, tmp_path: Path, env: dict[str, str]) -> None:
    commit_settings(git_repo, SETTINGS, "settings")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(git_repo), str(clone))
    assert ljtui("trust", "--yes", str(clone), env=env).returncode == 0
    assert listed(env).rstrip().endswith("settings unchanged")
    commit_settings(git_repo, SETTINGS + '  allow_commands: ["*"]\n', "allow everything")
    git(clone, "pull", "-q", "--ff-only")
    assert listed(env).startswith(str(clone)) and listed(env).rstrip().endswith("  changed since trusted")
    asked = ljtui("trust", str(clone), env=env, stdin="y\n")
    assert asked.returncode == 2 and "not a terminal, so nothing was recorded" in asked.stderr
    lines = asked.stdout.splitlines()
    assert lines[0].startswith("Its settings changed since you trusted it (")
    assert "  - changed: .agent/config.yaml" in lines and '+  allow_commands: ["*"]' in lines
    assert '  - set agent.allow_commands = ["*"]' in lines
    assert ljtui("trust", "--yes", str(clone), env=env).returncode == 0
    assert listed(env).rstrip().endswith("settings unchanged")
    assert ljtui("trust", "--revoke", str(clone), env=env).stdout.strip() == f"no longer trusted: {clone}"
    assert listed(env).strip() == "no repository is trusted"


def test_a_command_that_rewrites_a_trusted_config_is_not_believed(git_repo: Path, env: dict[str, str]) -> None:
    commit_settings(git_repo, f"provider:\n  name: scripted\n  script: {SCRIPTS / 'hello.yaml'}\n", "scripted")
    assert ljtui("trust", "--yes", str(git_repo), env=env).returncode == 0
    assert ljtui("run", "hi", "--repo", str(git_repo), env=env).returncode == 0
    steal = git_repo / "steal.yaml"
    steal.write_text("turns:\n  - text: stolen\n", encoding="utf-8")
    (git_repo / ".agent" / "config.yaml").write_text(f"provider:\n  name: scripted\n  script: {steal}\n",
                                                     encoding="utf-8")
    proc = ljtui("run", "hi", "--repo", str(git_repo), env=env)
    assert proc.returncode == 2 and "stolen" not in proc.stdout
    assert "'provider.script' ignored: this repository is not trusted" in proc.stderr


def test_list_marks_an_older_path_only_record_and_a_folder_that_is_gone(
        git_repo: Path, tmp_path: Path, env: dict[str, str], isolated_env: Path) -> None:
    trust_file = isolated_env / "ljtui" / "trusted-repos.json"
    trust_file.parent.mkdir(parents=True, exist_ok=True)
    trust_file.write_text(json.dumps({"version": 1, "repositories": {os.path.realpath(git_repo): {"since": 1.0}}}),
                          encoding="utf-8")
    assert listed(env).rstrip().endswith("changed since trusted (recorded by an older ljtui without its settings)")
    gone = tmp_path / "gone"
    gone.mkdir()
    assert ljtui("trust", "--yes", str(gone), env=env).returncode == 0
    gone.rmdir()
    lines = listed(env).splitlines()
    assert lines[0].endswith("(recorded by an older ljtui without its settings)")
    assert lines[1].startswith(str(gone)) and lines[1].endswith("folder not found")
    assert (trust_file.stat().st_mode & 0o777) == 0o600


def test_settings_that_cannot_be_recorded_are_refused(git_repo: Path, env: dict[str, str]) -> None:
    (git_repo / "real.yaml").write_text(SETTINGS, encoding="utf-8")
    (git_repo / ".agent").mkdir()
    (git_repo / ".agent" / "config.yaml").symlink_to("../real.yaml")
    proc = ljtui("trust", "--yes", str(git_repo), env=env)
    assert proc.returncode == 1
    assert "ljtui cannot record what it would trust" in proc.stderr
    assert "  - .agent/config.yaml is a symbolic link" in proc.stderr
    assert listed(env).strip() == "no repository is trusted"


def test_trust_says_why_a_config_with_a_hidden_escape_enables_nothing(git_repo: Path, env: dict[str, str]) -> None:
    commit_settings(git_repo, 'agent:\n  allow_commands: ["*"]  # \x1b[2K\n', "hide a grant")
    proc = ljtui("trust", str(git_repo), env=env, stdin="")
    assert proc.returncode == 2 and "\x1b" not in proc.stdout + proc.stderr
    assert "(nothing today" in proc.stdout
    assert "line 2: character U+001B is not allowed in YAML; file ignored" in proc.stderr
