"""A scripted turn of ``cases`` plays the reply that fits the tool results the engine really returned."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.providers.base import (
    ChatRequest, Message, ProviderError, TextBlock, TextDelta, ToolResultBlock, ToolUseBlock,
)
from ljtui.core.providers.scripted import ScriptedClient, ScriptError, load_script

SCRIPT = """\
turns:
  - text: "Writing it."
    tool_calls: [{name: write_file, input: {path: a.txt, content: x}}]
  - cases:
      - when: {result: "not applied"}
        text: "Opened but not applied."
      - when: {failed: true}
        text: "You denied the write: nothing changed."
      - text: "Written."
"""


def after(result: str, *, error: bool) -> ChatRequest:
    """A request whose last message carries one tool result."""
    return ChatRequest("sys", (
        Message.user("write a"),
        Message("assistant", (TextBlock("Writing it."), ToolUseBlock("call_1_1", "write_file", {"path": "a.txt"}))),
        Message("user", (ToolResultBlock("call_1_1", result, is_error=error),)),
    ))


async def reply(client: ScriptedClient, request: ChatRequest) -> str:
    return "".join([d.text async for d in client.stream(request) if isinstance(d, TextDelta)])


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


@pytest.mark.parametrize(("result", "error", "said"), [
    ("wrote a.txt", False, "Written."),
    ("error: the user denied this write_file call", True, "You denied the write: nothing changed."),
    ("the delivery was opened in the Diff pane but not applied", False, "Opened but not applied."),
])
async def test_the_case_follows_the_tool_result(script: Path, result: str, error: bool, said: str) -> None:
    client = ScriptedClient(load_script(script))
    await reply(client, ChatRequest("sys", (Message.user("write a"),)))
    assert await reply(client, after(result, error=error)) == said


async def test_a_result_no_case_matches_is_refused_naming_the_turn(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("turns:\n  - cases:\n      - when: {failed: true}\n        text: denied\n", encoding="utf-8")
    client = ScriptedClient(load_script(path))
    with pytest.raises(ProviderError, match="turn 1: no case matches the last tool results \\(ok\\)"):
        await reply(client, after("ok", error=False))


async def test_an_agents_own_turns_may_have_cases(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("agents:\n  task 1:\n    - cases:\n        - when: {failed: false}\n          text: fine\n"
                    "        - text: broken\n", encoding="utf-8")
    client = ScriptedClient(load_script(path))
    request = after("boom", error=True)
    assert await reply(client, ChatRequest(request.system, request.messages, agent="task 1")) == "broken"


@pytest.mark.parametrize(("content", "problem"), [
    ("turns: [{cases: []}]", "turn 1: 'cases' must be a non-empty list of turns"),
    ("turns: [{cases: [{text: a}], text: b}]", "turn 1: a turn with 'cases' has no other key"),
    ("turns: [{cases: [{text: a}, {text: b}]}]", "turn 1, case 1: only the last case may have no 'when'"),
    ("turns: [{cases: [{when: {ok: true}, text: a}]}]", "turn 1, case 1: 'when' has unknown key(s) ok"),
    ("turns: [{cases: [{when: {failed: 1}, text: a}]}]", "turn 1, case 1: 'when: failed' must be true or false"),
    ("turns: [{cases: [{when: {result: ''}, text: a}]}]", "'when: result' must be a non-empty string"),
    ("turns: [{cases: [{when: {failed: true}}]}]", "turn 1, case 1: has neither 'text' nor 'tool_calls'"),
])
def test_malformed_cases_name_the_turn_and_the_problem(tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ScriptError) as info:
        load_script(path)
    assert problem in info.value.message
