"""``agent.edit_tools``: which of ``edit_file`` and ``apply_patch`` the agent is offered, and the setting itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.agent.edit_dialect import edit_tool_names, hidden_edit_tools
from ljtui.core.agent.tools import agent_tools
from ljtui.core.config import Config, load_config
from tests.fakes.fixtures import fake_openai  # noqa: F401 - the fixture

EDIT, PATCH = frozenset({"edit_file"}), frozenset({"apply_patch"})

OPENAI_MODELS = ["gpt-4o", "gpt-4.1-mini", "GPT-5", "gpt-5-codex", "o1-preview", "o3", "o3-mini", "o4-mini",
                 "codex-mini-latest", "openai/gpt-oss-20b", "gpt-oss:120b", "my-codex-finetune", "openai/gpt-4.1",
                 " gpt-4o "]
OTHER_MODELS = ["claude-sonnet-4-5", "claude-opus-4-1", "claude-3-5-haiku-latest", "qwen2.5-coder:32b",
                "Qwen/Qwen3-Coder-30B-A3B", "llama3.1:8b", "meta-llama/Llama-3.3-70B", "gemma3:27b", "mistral-large",
                "deepseek-coder-v2", "olmo-2", "", "scripted"]


@pytest.mark.parametrize("model", OPENAI_MODELS)
@pytest.mark.parametrize("provider", ["openai-compatible", "anthropic", "scripted"])
def test_auto_offers_apply_patch_to_openai_models_whoever_serves_them(provider: str, model: str) -> None:
    assert edit_tool_names("auto", provider, model) == PATCH
    assert hidden_edit_tools("auto", provider, model) == EDIT


@pytest.mark.parametrize("model", OTHER_MODELS)
@pytest.mark.parametrize("provider", ["openai-compatible", "anthropic"])
def test_auto_offers_edit_file_to_claude_and_every_other_family(provider: str, model: str) -> None:
    assert edit_tool_names("auto", provider, model) == EDIT
    assert hidden_edit_tools("auto", provider, model) == PATCH


@pytest.mark.parametrize("model", ["gpt-4o", "claude-sonnet-4-5", "qwen2.5-coder"])
def test_replace_and_patch_choose_whatever_the_model(model: str) -> None:
    assert edit_tool_names("replace", "openai-compatible", model) == EDIT
    assert hidden_edit_tools("replace", "openai-compatible", model) == PATCH
    assert edit_tool_names("patch", "anthropic", model) == PATCH
    assert hidden_edit_tools("patch", "anthropic", model) == EDIT


@pytest.mark.parametrize("setting", ["", "Auto", "diff", "both"])
def test_an_unknown_setting_is_refused_naming_the_allowed_ones(setting: str) -> None:
    with pytest.raises(ValueError, match="expected one of: auto, replace, patch"):
        edit_tool_names(setting, "anthropic", "claude-sonnet-4-5")


def test_both_edit_tools_are_registered_tools() -> None:
    names = set(agent_tools().names)
    assert {"edit_file", "apply_patch", "write_file", "create_directory"} <= names


def test_the_setting_defaults_to_auto_and_a_repository_may_set_it(tmp_path: Path) -> None:
    assert Config().agent.edit_tools == "auto"
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "config.yaml").write_text("agent:\n  edit_tools: patch\n", encoding="utf-8")
    loaded = load_config(tmp_path, env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")}, trusted=False)
    assert loaded.config.agent.edit_tools == "patch" and not loaded.warnings


def test_an_invalid_setting_is_a_warning_naming_the_allowed_values_and_the_default_is_kept(tmp_path: Path) -> None:
    user = tmp_path / "user.yaml"
    user.write_text("agent:\n  edit_tools: diff\n", encoding="utf-8")
    loaded = load_config(None, env={"LJTUI_CONFIG": str(user), "XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert loaded.config.agent.edit_tools == "auto"
    assert loaded.warnings == [f"config {user}: 'agent.edit_tools' is 'diff', expected one of: auto, replace, patch; "
                               "default kept"]


@pytest.mark.parametrize("model, setting, offered_tool, hidden_tool", [
    ("gpt-4.1", "auto", "apply_patch", "edit_file"), ("local-test", "auto", "edit_file", "apply_patch"),
    ("local-test", "patch", "apply_patch", "edit_file"),
])
async def test_a_chat_request_offers_the_edit_tool_of_the_models_family_over_the_wire(
    fake_openai, tmp_path: Path, model: str, setting: str, offered_tool: str, hidden_tool: str,
) -> None:
    from ljtui.core.engine import Engine
    from ljtui.core.ports import ListSink
    from tests.fakes import openai_api as api
    from tests.fakes.fixtures import fast_provider

    fake_openai.queue(api.text_reply("ok"))
    config = Config(provider=fast_provider("openai-compatible", fake_openai.url + "/v1", model=model))
    config.agent.edit_tools = setting
    engine = Engine(config, ListSink(), repo_root=tmp_path)

    assert await engine.run_turn("hi") is not None

    sent = [t["function"]["name"] for t in fake_openai.requests[0].json["tools"]]
    assert offered_tool in sent and hidden_tool not in sent
    assert sent == [n for n in agent_tools().names if n != hidden_tool and n in sent], "the order is kept"
    await engine.aclose()
