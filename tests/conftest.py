"""Fixtures shared by every test: isolation from the user's machine, repos."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SECRET_VARS = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL",
    "LJTUI_CONFIG", "LJTUI_PROVIDER", "LJTUI_MODEL", "LJTUI_SCRIPT", "LJTUI_THEME",
)


DIRECT_CONFIG = "agent:\n  layer: off\n"
"""The user config every test starts with: changes go to the files directly, as on a machine without overlays.
Tests of the copy-on-write layer turn it on (``layered`` below, or their own config file)."""


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point config at a temp dir holding :data:`DIRECT_CONFIG` and drop keys from the environment."""
    config_home = tmp_path_factory.mktemp("xdg-config")
    (config_home / "ljtui").mkdir()
    (config_home / "ljtui" / "config.yaml").write_text(DIRECT_CONFIG, encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("xdg-state")))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
    for var in SECRET_VARS:
        monkeypatch.delenv(var, raising=False)
    return config_home


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` and return its stdout."""
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True,
        env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
             "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
             "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo), "PATH": "/usr/bin:/bin:/usr/local/bin"},
    ).stdout


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A real git repository on branch ``main`` with one commit."""
    repo = tmp_path / "sample"
    repo.mkdir()
    (repo / "README.md").write_text("# sample\n", encoding="utf-8")
    (repo / "app.py").write_text("def greet(name):\n    return 'hello ' + name\n", encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "initial")
    return repo


@pytest.fixture
def layered(isolated_env: Path) -> Path:
    """The user config with the copy-on-write layer on (``agent.layer: auto``); returns the config file."""
    path = isolated_env / "ljtui" / "config.yaml"
    path.write_text("agent:\n  layer: auto\n", encoding="utf-8")
    return path
