"""``agent.router_model``: empty by default, read from a config file like any agent key."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.config import load_config


def test_router_model_defaults_to_empty_meaning_the_session_model(tmp_path: Path) -> None:
    loaded = load_config(tmp_path, env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert loaded.config.agent.router_model == ""


def test_router_model_is_read_from_the_repository_config(tmp_path: Path) -> None:
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "config.yaml").write_text("agent:\n  router_model: claude-haiku-4-5\n", encoding="utf-8")
    loaded = load_config(tmp_path, env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")}, trusted=False)
    assert loaded.config.agent.router_model == "claude-haiku-4-5"
    assert not loaded.warnings


def test_a_router_model_that_is_not_text_is_a_warning_and_the_default_is_kept(tmp_path: Path) -> None:
    user = tmp_path / "user.yaml"
    user.write_text("agent:\n  router_model: [1, 2]\n", encoding="utf-8")
    loaded = load_config(None, env={"LJTUI_CONFIG": str(user), "XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert loaded.config.agent.router_model == ""
    assert any("router_model" in w for w in loaded.warnings)
