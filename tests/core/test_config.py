from __future__ import annotations

from pathlib import Path

from ljtui.core.config import load_config, user_config_path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_when_nothing_is_configured(tmp_path: Path) -> None:
    loaded = load_config(tmp_path, env={"XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    assert loaded.config.provider.name == "anthropic"
    assert loaded.config.ui.theme == "dark"
    assert loaded.config.agent.max_iterations == 10
    assert loaded.warnings == [] and loaded.sources == []


def test_layers_later_wins(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    write(tmp_path / "cfg" / "ljtui" / "config.yaml", "provider:\n  model: user-model\n  max_tokens: 100\nui:\n  theme: light\n")
    write(tmp_path / "repo" / ".agent" / "config.yaml", "provider:\n  model: repo-model\n")
    env["LJTUI_THEME"] = "high-contrast"
    loaded = load_config(tmp_path / "repo", env=env, overrides={"provider.name": "scripted", "provider.model": None})
    cfg = loaded.config
    assert cfg.provider.model == "repo-model"
    assert cfg.provider.max_tokens == 100
    assert cfg.ui.theme == "high-contrast"
    assert cfg.provider.name == "scripted"
    assert len(loaded.sources) == 2 and loaded.warnings == []


def test_ljtui_config_overrides_user_path(tmp_path: Path) -> None:
    custom = write(tmp_path / "elsewhere.yaml", "ui:\n  theme: light\n")
    env = {"LJTUI_CONFIG": str(custom), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    assert user_config_path(env) == custom
    assert load_config(None, env=env).config.ui.theme == "light"


def test_a_control_character_in_yaml_is_named_with_its_line(tmp_path: Path) -> None:
    write(tmp_path / "repo" / ".agent" / "config.yaml", 'agent:\n  allow_commands: ["*"]\n  # \x1b[2K hidden\n')
    loaded = load_config(tmp_path / "repo", env={"XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    [warning] = loaded.warnings
    assert warning.endswith("config.yaml: line 3: character U+001B is not allowed in YAML; file ignored")
    assert loaded.config.agent.allow_commands == loaded.config.__class__().agent.allow_commands


def test_malformed_yaml_is_a_warning_naming_file_and_line(tmp_path: Path) -> None:
    bad = write(tmp_path / "c.yaml", "provider:\n  model: [unclosed\n")
    loaded = load_config(None, env={"LJTUI_CONFIG": str(bad)})
    assert loaded.config.provider.model == "claude-sonnet-5-5"
    [warning] = loaded.warnings
    assert str(bad) in warning and "line" in warning and "ignored" in warning


def test_wrong_types_and_unknown_keys_are_named(tmp_path: Path) -> None:
    cfg = write(
        tmp_path / "c.yaml",
        "provider:\n  max_tokens: lots\n  colour: red\n  name: gpt-magic\nwidgets: {}\nagent: 3\n",
    )
    loaded = load_config(None, env={"LJTUI_CONFIG": str(cfg)})
    text = "\n".join(loaded.warnings)
    assert "'provider.max_tokens' must be a whole number, got 'lots'" in text
    assert "unknown key 'provider.colour'" in text
    assert "'provider.name' is 'gpt-magic', expected one of: anthropic, openai-compatible, scripted" in text
    assert "unknown section 'widgets'" in text
    assert "section 'agent' must be a mapping" in text
    assert loaded.config.provider.max_tokens == 8192
    assert loaded.config.provider.name == "anthropic"


def test_top_level_not_a_mapping(tmp_path: Path) -> None:
    cfg = write(tmp_path / "c.yaml", "- just\n- a list\n")
    loaded = load_config(None, env={"LJTUI_CONFIG": str(cfg)})
    assert "expected a mapping of sections, got list" in loaded.warnings[0]


def test_unreadable_config_is_a_warning(tmp_path: Path) -> None:
    directory = tmp_path / "dir.yaml"
    directory.mkdir()
    loaded = load_config(None, env={"LJTUI_CONFIG": str(directory)})
    assert "cannot read" in loaded.warnings[0]


def test_env_values_are_coerced_and_checked(tmp_path: Path) -> None:
    loaded = load_config(None, env={"XDG_CONFIG_HOME": str(tmp_path), "LJTUI_PROVIDER": "nope"})
    assert loaded.config.provider.name == "anthropic"
    assert "$LJTUI_PROVIDER" in loaded.warnings[0]
