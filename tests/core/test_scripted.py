from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.config import ProviderConfig
from ljtui.core.providers import make_client, provider_problem
from ljtui.core.providers.base import ChatRequest, Message, ProviderError, StreamEnd, TextDelta, ToolCall, UsageDelta
from ljtui.core.providers.scripted import ScriptError, load_script
from tests.fixtures import SCRIPTS


async def collect(client, request=None):
    request = request or ChatRequest("sys", (Message.user("hi"),))
    return [d async for d in client.stream(request)]


async def test_streams_text_word_by_word_then_ends() -> None:
    client = make_client(ProviderConfig(name="scripted", script=str(SCRIPTS / "hello.yaml")))
    deltas = await collect(client)
    texts = [d.text for d in deltas if isinstance(d, TextDelta)]
    assert len(texts) > 5
    assert "".join(texts) == load_script(SCRIPTS / "hello.yaml").turns[0].text
    assert isinstance(deltas[-1], StreamEnd) and deltas[-1].stop_reason == "end_turn"
    assert any(isinstance(d, UsageDelta) and d.usage.output_tokens > 0 for d in deltas)


async def test_tool_calls_then_exhausted_script() -> None:
    client = make_client(ProviderConfig(name="scripted", script=str(SCRIPTS / "tool_then_text.yaml")))
    first = await collect(client)
    [call] = [d for d in first if isinstance(d, ToolCall)]
    assert (call.name, call.input) == ("read_file", {"path": "app.py"})
    assert first[-1] == StreamEnd("tool_use")
    await collect(client)
    with pytest.raises(ProviderError, match="has no turn left \\(2 played\\)"):
        await collect(client)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("turns: [", "invalid YAML"),
        ("just text", "expected a mapping with a 'turns' list"),
        ("turns: []", "'turns' is empty"),
        ("turns: [{text: 3}]", "turn 1: 'text' must be a string"),
        ("turns: [{}]", "turn 1: has neither 'text' nor 'tool_calls'"),
        ("turns: [{txt: hi}]", "turn 1: unknown key(s) txt"),
        ("turns: [{tool_calls: [{input: {}}]}]", "turn 1, tool call 1: expected {name: ..., input: {...}}"),
        ("turns: [{tool_calls: [{name: x, input: 5}]}]", "'input' must be a mapping"),
        ("chunk_delay: -1\nturns: [{text: hi}]", "'chunk_delay' must be a number of seconds >= 0"),
    ],
)
def test_malformed_scripts_name_file_and_problem(tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ScriptError) as info:
        load_script(path)
    assert str(path) in info.value.message and problem in info.value.message


def test_missing_and_unreadable_script(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="file not found"):
        load_script(tmp_path / "nope.yaml")
    with pytest.raises(ScriptError, match="is a directory"):
        load_script(tmp_path)
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ScriptError, match="cannot read"):
        load_script(binary)


def test_provider_problems_are_clear_without_importing_sdks() -> None:
    assert "no model is configured" in provider_problem(ProviderConfig(), env={})
    assert "ANTHROPIC_API_KEY" in provider_problem(ProviderConfig(), env={})
    assert provider_problem(ProviderConfig(), env={"ANTHROPIC_API_KEY": "k"}) is None
    assert "needs a script" in provider_problem(ProviderConfig(name="scripted"), env={})
    assert "file not found" in provider_problem(ProviderConfig(name="scripted", script="/nope.yaml"), env={})
    assert "needs a base URL" in provider_problem(ProviderConfig(name="openai-compatible"), env={})
    assert "unknown provider 'x'" in provider_problem(ProviderConfig(name="x"), env={})
    with pytest.raises(ProviderError, match="unknown provider 'x' \\(expected one of: anthropic"):
        make_client(ProviderConfig(name="x"), env={})
    with pytest.raises(ProviderError, match="no model is configured"):
        make_client(ProviderConfig(), env={})
