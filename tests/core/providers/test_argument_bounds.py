"""Tool-call arguments nested too deeply or too large are refused, never a ``RecursionError``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ljtui.core.events import ToolCallFinished, TurnFinished
from ljtui.core.providers.arguments import (
    MAX_ARGUMENT_CHARS, MAX_ARGUMENT_DEPTH, ArgumentText, RefusedArguments, arguments_problem, parse_arguments,
)
from ljtui.core.providers.openai_wire import ToolCallAssembler
from ljtui.core.providers.scripted import SCRIPT_MAX_DEPTH, ScriptError, load_script
from ljtui.core.secrets import MAX_REDACT_DEPTH, REDACTED, redact_value
from ljtui.core.tools import Tool, ToolRegistry, ToolResult
from tests.core.providers.helpers import READ_SPEC, make_rig
from tests.fakes import openai_api as oapi
from tests.fakes.fixtures import fast_provider
from tests.fakes.server import SSE, FakeSSEServer, Reply

DEEP = 100_000
"""Levels of the hostile arguments: far past Python's recursion limit."""


def nested_text(levels: int, *, close: bool = True) -> str:
    """An object holding lists nested so that the whole is ``levels`` deep."""
    inner = "[" * (levels - 1) + ("]" * (levels - 1) if close else "")
    return '{"path": ' + inner + ("}" if close else "")


def nested_value(levels: int) -> dict:
    value: list = []
    for _ in range(levels - 2):
        value = [value]
    return {"path": value}


def test_the_deepest_allowed_arguments_parse_and_one_more_level_is_refused() -> None:
    assert parse_arguments(nested_text(MAX_ARGUMENT_DEPTH), "t")["path"]
    refused = parse_arguments(nested_text(MAX_ARGUMENT_DEPTH + 1), "t")
    assert isinstance(refused, RefusedArguments) and refused == {}
    assert refused.problem.startswith(f"arguments nested more than {MAX_ARGUMENT_DEPTH} levels")


@pytest.mark.parametrize("close", [True, False])
def test_arguments_a_hundred_thousand_levels_deep_are_refused_without_recursion(close: bool) -> None:
    refused = parse_arguments(nested_text(DEEP, close=close), "t")
    assert isinstance(refused, RefusedArguments) and "nested more than 64 levels" in refused.problem
    assert "nested" in parse_arguments("[" * DEEP, "t").problem  # type: ignore[attr-defined]


def test_brackets_inside_strings_do_not_count_and_escapes_are_read() -> None:
    text = json.dumps({"command": "[" * 500 + '\\"{' * 300, "n": [[1]]})
    assert parse_arguments(text, "t")["n"] == [[1]]


def test_invalid_and_non_object_arguments_still_name_the_tool() -> None:
    with pytest.raises(ValueError, match="tool 'bash' arguments are not valid JSON"):
        parse_arguments('{"command": "ls', "bash")
    with pytest.raises(ValueError, match="tool 'bash' arguments are not a JSON object"):
        parse_arguments("[1]", "bash")
    assert parse_arguments("  ", "bash") == {}


def test_arguments_over_the_size_limit_are_refused_and_not_kept_while_streaming() -> None:
    text = ArgumentText()
    text.add('{"content": "')
    for _ in range(3):
        text.add("x" * MAX_ARGUMENT_CHARS)
    refused = text.parse("write_file")
    assert isinstance(refused, RefusedArguments)
    assert f"arguments are {3 * MAX_ARGUMENT_CHARS + 13:,} characters of JSON" in refused.problem
    assert text._pieces == []


def test_built_values_are_checked_without_recursion() -> None:
    assert arguments_problem({"path": "a", "lines": [1, 2]}) == ""
    assert arguments_problem(nested_value(MAX_ARGUMENT_DEPTH)) == ""
    assert "nested more than 64" in arguments_problem(nested_value(MAX_ARGUMENT_DEPTH + 1))
    assert "nested more than 64" in arguments_problem(nested_value(DEEP))
    assert "or more characters" in arguments_problem({"content": "x" * (MAX_ARGUMENT_CHARS + 1)})


def test_openai_fragments_of_deep_arguments_become_a_refused_call() -> None:
    tools = ToolCallAssembler()
    tools.add(0, "c1", "read_file", None)
    for _ in range(10):
        tools.add(0, None, None, "[" * (DEEP // 10))
    [call] = tools.calls()
    assert (call.id, call.name) == ("c1", "read_file") and isinstance(call.input, RefusedArguments)


def test_redaction_of_a_value_deeper_than_it_walks_hides_the_rest_whole() -> None:
    redacted = redact_value({"ok": "key sk-secret-12345", "deep": nested_value(DEEP)}, ("sk-secret-12345",))
    assert redacted["ok"] == f"key {REDACTED}"
    inner, depth = redacted["deep"]["path"], 2  # the outer dict is at depth 0
    while isinstance(inner, list):
        inner, depth = inner[0], depth + 1
    assert (inner, depth) == (REDACTED, MAX_REDACT_DEPTH)


def test_a_json_script_deeper_than_yaml_reads_is_cut_past_every_bound(tmp_path: Path) -> None:
    script = tmp_path / "deep.json"
    text = json.dumps({"turns": [{"tool_calls": [{"name": "read_file", "input": {"path": "DEEP", "n": "[["}}]}]})
    script.write_text(text.replace('"DEEP"', "[" * DEEP + "]" * DEEP), encoding="utf-8")
    [call] = load_script(script).turns[0].tool_calls
    assert call.input["n"] == "[["
    assert "nested more than 64 levels" in arguments_problem(call.input)
    inner, depth = call.input["path"], 7  # in the document, inside the script, turns, turn, tool_calls, call, input
    while isinstance(inner, list):
        inner, depth = inner[0], depth + 1
    assert (inner, depth) == (None, SCRIPT_MAX_DEPTH + 1)


def test_a_yaml_script_too_deep_to_read_is_a_clear_script_error(tmp_path: Path) -> None:
    script = tmp_path / "deep.yaml"
    script.write_text("turns:\n  - tool_calls: [{name: x, input: {path: " + "[" * 5000 + "]" * 5000 + "}}]\n",
                      encoding="utf-8")
    with pytest.raises(ScriptError, match="nested too deeply for YAML; write a script nested more than 100"):
        load_script(script)


async def test_the_registry_answers_a_refused_call_without_running_the_tool() -> None:
    ran: list[dict] = []

    async def read(args: dict, ctx: object) -> ToolResult:
        ran.append(args)
        return ToolResult(True, "read", "read")

    registry = ToolRegistry([Tool(READ_SPEC, read)])
    result = await registry.call("read_file", RefusedArguments("arguments nested more than 64 levels"), None)  # type: ignore[arg-type]
    assert (result.ok, result.content) == (False, "error: arguments nested more than 64 levels")
    assert result.summary == "read_file: arguments nested more than 64 levels" and ran == []


async def test_an_openai_compatible_server_sending_deep_arguments_gets_a_tool_error(
    fake_openai: FakeSSEServer, tmp_path: Path,
) -> None:
    start = {"index": 0, "id": "c1", "type": "function", "function": {"name": "read_file", "arguments": ""}}
    events = (
        oapi._chunk({"tool_calls": [start]}),
        oapi._chunk({"tool_calls": [{"index": 0, "function": {"arguments": "[" * DEEP}}]}),
        oapi._chunk({}, finish="tool_calls"),
        SSE("[DONE]"),
    )
    fake_openai.queue(Reply(events=events), oapi.text_reply("The arguments were too deep."))
    rig = make_rig(fast_provider("openai-compatible", fake_openai.url + "/v1"), tmp_path,
                   tools=ToolRegistry([Tool(READ_SPEC, _never)]))
    result = await rig.engine.run_turn("hi")
    assert result is not None and result.text == "The arguments were too deep."
    [finished] = rig.of(ToolCallFinished)
    assert not finished.ok and "arguments nested more than 64 levels" in finished.summary
    [turn] = rig.of(TurnFinished)
    assert turn.stop_reason == "end_turn"
    sent = fake_openai.requests[1].json["messages"]
    assert sent[-2]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert sent[-1]["role"] == "tool" and "nested more than 64 levels" in sent[-1]["content"]
    await rig.engine.aclose()


async def _never(args: dict, ctx: object) -> ToolResult:
    raise AssertionError("a refused call must not run")
