"""docs/scripted-model.md stays true: every marked script is read by the real loader as its marker says, the
worked example plays what the prose says it plays, and the tables name exactly the keys the loader takes.

Markers are HTML comments right before a ``yaml`` fence:

* ``<!-- script: ok -->``: the loader reads it;
* ``<!-- script: worked -->``: the worked example: read, then played by the scripted provider;
* ``<!-- script: error TEXT -->``: the loader refuses it, its message holding TEXT.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from ljtui.core.providers.base import (
    ChatRequest, Message, ProviderError, StreamEnd, TextBlock, TextDelta, ToolCall, ToolResultBlock, ToolSpec,
    ToolUseBlock,
)
from ljtui.core.providers.scripted import ScriptedClient, ScriptError, load_script
from ljtui.core.providers.scripted_cases import WHEN_KEYS

DOC = Path(__file__).resolve().parents[2] / "docs" / "scripted-model.md"
_MARKER = re.compile(r"<!--\s*script:\s*(.*?)\s*-->", re.S)
READ_FILE = ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}})


def marked() -> list[tuple[str, str]]:
    """``(marker, script)`` for every marked fence, in the order of the doc."""
    tokens = MarkdownIt("commonmark").parse(DOC.read_text(encoding="utf-8"))
    found: list[tuple[str, str]] = []
    for before, token in zip(tokens, tokens[1:]):
        match = _MARKER.fullmatch(before.content.strip()) if before.type == "html_block" else None
        if match is not None:
            assert token.type == "fence" and token.info == "yaml", f"{match.group(0)} is not before a yaml fence"
            found.append((match.group(1), token.content))
    return found


def written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "script.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def table_keys(heading: str) -> set[str]:
    """The keys in the first column of the body of the table under ``heading`` (``key`` or ``key: value``)."""
    section = DOC.read_text(encoding="utf-8").split(heading, 1)[1].split("\n#", 1)[0]
    lines = section.splitlines()
    body = [line for line, after in zip(lines, lines[1:] + [""]) if line.startswith("| `")
            and not after.startswith("| ---")]
    return {re.match(r"\| `([a-z_]+)", line).group(1) for line in body}  # type: ignore[union-attr]


def test_the_doc_has_its_examples() -> None:
    kinds = [marker.split()[0] for marker, _ in marked()]
    assert kinds.count("worked") == 1 and kinds.count("ok") >= 2 and kinds.count("error") >= 4


@pytest.mark.parametrize("marker, script", marked(), ids=lambda value: value.split("\n")[0][:40])
def test_every_marked_script_is_read_as_its_marker_says(marker: str, script: str, tmp_path: Path) -> None:
    kind, _, expected = marker.partition(" ")
    path = written(tmp_path, script)
    if kind == "error":
        with pytest.raises(ScriptError) as refused:
            load_script(path)
        assert expected in str(refused.value) and str(path) in str(refused.value)
    else:
        assert kind in ("ok", "worked")
        load_script(path)


async def played(client: ScriptedClient, messages: tuple[Message, ...]) -> tuple[str, list[ToolCall], str]:
    text, calls, stop = "", [], ""
    async for delta in client.stream(ChatRequest("You help.", messages, (READ_FILE,), 1024)):
        if isinstance(delta, TextDelta):
            text += delta.text
        elif isinstance(delta, ToolCall):
            calls.append(delta)
        elif isinstance(delta, StreamEnd):
            stop = delta.stop_reason
    return text, calls, stop


@pytest.mark.parametrize("failed", [True, False], ids=["the read failed", "the read worked"])
async def test_the_worked_example_plays_what_the_doc_says(failed: bool, tmp_path: Path) -> None:
    [script] = [s for marker, s in marked() if marker == "worked"]
    loaded = load_script(written(tmp_path, script))
    assert loaded.chunk_delay == 0.02
    client = ScriptedClient(loaded)
    asked = (Message.user("what does greet.py do?"),)
    text, [call], stop = await played(client, asked)
    assert (text, call.name, call.input, stop) == ("Let me read greet.py.", "read_file", {"path": "greet.py"},
                                                   "tool_use")
    result = "error: 'greet.py' does not exist" if failed else "def greet(): return 'hi'"
    answered = (*asked, Message("assistant", (TextBlock(text), ToolUseBlock(call.id, call.name, call.input))),
                Message("user", (ToolResultBlock(call.id, result, failed),)))
    answer, calls, stop = await played(client, answered)
    doc = DOC.read_text(encoding="utf-8")
    assert calls == [] and stop == "end_turn" and f"`{answer}`" in doc
    assert answer == ("There is no greet.py here, so I cannot say." if failed else "greet() returns a greeting.")
    with pytest.raises(ProviderError) as ended:
        await played(client, (*answered, Message("assistant", (TextBlock(answer),)), Message.user("more?")))
    assert "has no turn left (2 played)" in str(ended.value) and "has no turn left (2 played)" in doc


def test_the_tables_name_exactly_the_keys_the_loader_takes(tmp_path: Path) -> None:
    assert table_keys("## The file") == {"turns", "agents", "chunk_delay"}
    assert table_keys("### A turn\n") == {"text", "tool_calls"}
    assert table_keys("### A turn of cases") == set(WHEN_KEYS)
    for key in ("turns", "agents", "chunk_delay"):
        extra = {"turns": "", "agents": "agents: {chat: [{text: hi}]}\n", "chunk_delay": "chunk_delay: 0\n"}[key]
        load_script(written(tmp_path, f"{extra}turns:\n  - text: hi\n"))
