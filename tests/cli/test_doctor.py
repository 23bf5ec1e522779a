"""``ljtui doctor`` through a real process: which sandbox is active and why, what commands may do, the key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.core.confine import landlock
from ljtui.core.layer.service import Layer
from tests.core.confine.helpers import default_status

SUBPROCESS_TIMEOUT = 60
KEY = "sk-ant-doctor-0123456789"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def doctor(repo: Path, config_home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "XDG_CONFIG_HOME": str(config_home), "ANTHROPIC_API_KEY": KEY, **env}
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", "doctor", "--repo", str(repo), *args],
                          capture_output=True, text=True, env=environment, timeout=SUBPROCESS_TIMEOUT)


def repository_place(repo: Path) -> str:
    """How commands' writes to ``repo`` are named: where overlays work, they land in the layer over it."""
    return "the layer over this repository" if Layer(repo).status.layered else "this repository"


def user_config(config_home: Path, text: str) -> None:
    (config_home / "ljtui").mkdir(parents=True, exist_ok=True)
    (config_home / "ljtui" / "config.yaml").write_text(text, encoding="utf-8")


def test_doctor_reports_the_sandbox_the_kernel_and_how_the_key_is_kept(repo: Path, tmp_path: Path) -> None:
    status = default_status()
    done = doctor(repo, tmp_path / "cfg", "--json", GITHUB_TOKEN="ghp_x", AWS_SESSION_TOKEN="y")
    assert done.returncode == (0 if status.confined else 1), done.stderr
    report = json.loads(done.stdout)
    box = report["sandbox"]
    assert box["backend"] == status.backend and box["confined"] == status.confined and box["why"] == status.why
    if status.backend == "landlock":
        assert box["landlock_abi"] == landlock.abi_version() and "writes" in box["landlock_covers"]
        assert box["allows"] == f"writes: {repository_place(repo)}, a private temp dir; network: off"
    assert report["keys_held"] == ["ANTHROPIC_API_KEY"] and KEY not in done.stdout
    assert {"GITHUB_TOKEN", "AWS_SESSION_TOKEN"} <= set(report["withheld_from_commands"])
    if sys.platform.startswith("linux"):
        assert report["process"]["dumpable"] is False


def test_doctor_in_words_and_with_the_users_sandbox_settings(repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    user_config(tmp_path / "cfg", f"agent:\n  sandbox:\n    network: true\n    write_paths: [{cache}, ~/missing-x, "
                                  f"/no/such/dir]\n  pass_env: [GITHUB_TOKEN]\n")
    done = doctor(repo, tmp_path / "cfg", GITHUB_TOKEN="ghp_x", HOME=str(tmp_path))
    text = done.stdout
    assert text.splitlines()[0] == f"ljtui doctor: {repo}"
    if default_status().confined:
        assert f"commands      writes: {repository_place(repo)}, a private temp dir, {cache}; network: on" in text
        assert "ignored       agent.sandbox.write_paths (not absolute, or missing): ~/missing-x, /no/such/dir" in text
    assert "passed by agent.pass_env: GITHUB_TOKEN" in text
    assert "ANTHROPIC_API_KEY: held by ljtui, not in its environment" in text


def test_doctor_says_unsandboxed_and_why_when_the_user_turned_it_off(repo: Path, tmp_path: Path) -> None:
    user_config(tmp_path / "cfg", "agent:\n  sandbox: {backend: none}\n")
    done = doctor(repo, tmp_path / "cfg")
    assert done.returncode == 1
    assert "sandbox         unsandboxed" in done.stdout
    assert "agent.sandbox.backend is 'none' in your config" in done.stdout
    assert "every command asks; session grants and allow-lists do not cover commands" in done.stdout


def test_a_repository_cannot_turn_the_sandbox_off_or_widen_it(repo: Path, tmp_path: Path) -> None:
    (repo / ".agent").mkdir()
    (repo / ".agent" / "config.yaml").write_text(
        "agent:\n  sandbox: {backend: none, network: true, write_paths: [/]}\n  pass_env: [GITHUB_TOKEN]\n")
    done = doctor(repo, tmp_path / "cfg", "--json")
    report = json.loads(done.stdout)
    assert report["sandbox"]["setting"] == "auto" and report["passed_to_commands"] == []
    warnings = "\n".join(report["warnings"])
    assert "'agent.sandbox' can only be set in your own config file" in warnings
    assert "'agent.pass_env' can only be set in your own config file" in warnings


def test_a_bad_sandbox_setting_is_a_warning_and_the_default_stays(repo: Path, tmp_path: Path) -> None:
    user_config(tmp_path / "cfg", "agent:\n  sandbox: {backend: jail, write_paths: [relative/dir]}\n")
    report = json.loads(doctor(repo, tmp_path / "cfg", "--json").stdout)
    assert report["sandbox"]["setting"] == "auto"
    assert any("'agent.sandbox' backend is 'jail', expected one of: auto, landlock, bubblewrap, none" in w
               for w in report["warnings"])
    user_config(tmp_path / "cfg", "agent:\n  sandbox: {netwrok: true}\n")
    report = json.loads(doctor(repo, tmp_path / "cfg", "--json").stdout)
    assert any("has unknown key 'netwrok' (known: backend, network, write_paths, read_paths)" in w
               for w in report["warnings"])


def test_doctor_in_the_home_folder_says_ljtui_does_not_work_there_and_reports_the_sandbox(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    done = doctor(home, tmp_path / "cfg", HOME=str(home))
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()[:2]
    assert first == f"ljtui doctor: {home}"
    assert second.startswith(f"  {home} is your home folder: ljtui does not work there")
    assert second.endswith("below is what a project folder gets")
    assert "sandbox" in done.stdout and list(home.iterdir()) == []
    report = json.loads(doctor(home, tmp_path / "cfg", "--json", HOME=str(home)).stdout)
    assert report["repository"] == str(home) and "is your home folder" in report["refused"]
    assert report["sandbox"]["confined"]
