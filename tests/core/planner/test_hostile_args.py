"""Nothing a model writes into an action crashes a run: every problem is a tool error it sees (PLN-10)."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import pytest

from ljtui.core.events import ToolCallFinished, event_to_dict
from ljtui.core.planner.loop import run_planner
from ljtui.core.planner.protocol import classify_reply, run_action
from ljtui.core.planner.tools import ARG_MAX_CHARS, ReadOnlyTools
from ljtui.core.tool_result import ToolResult
from ljtui.core.ports import ListSink
from tests.core.planner.helpers import GOOD_PLAN, RecordingClient, action

ENGINES = ["re2", "rg"]
NUL = "\0"
SURROGATE = "\ud800"
NAME_MAX = 255
"""Longest file name Linux file systems take; a longer one makes the OS refuse the path."""

BAD_TEXT_ACTIONS = [
    {"action": "list_dir", "path": f"src{NUL}"},
    {"action": "list_dir", "path": f"src/{SURROGATE}"},
    {"action": "read_file", "path": f"README.md{NUL}.py"},
    {"action": "read_file", "path": f"{SURROGATE}.md"},
    {"action": "grep", "pattern": f"def{NUL}", "path": "."},
    {"action": "grep", "pattern": f"def{SURROGATE}", "path": "."},
    {"action": "grep", "pattern": "def", "path": f"src{SURROGATE}"},
    {"action": "grep", "pattern": "def", "path": f"src{NUL}"},
]

ODD_ACTIONS: list[dict[str, Any]] = [
    {"action": "read_file", "path": "README.md", "start_line": 10 ** 400},
    {"action": "read_file", "path": "README.md", "start_line": 1, "end_line": 10 ** 30},
    {"action": "read_file", "path": "README.md", "start_line": 1e308},
    {"action": "read_file", "path": "README.md", "start_line": float("nan")},
    {"action": "read_file", "path": "README.md", "end_line": -(10 ** 30)},
    {"action": "read_file", "path": {"nested": {"deeper": [1, [2, [3]]]}}},
    {"action": "grep", "pattern": ["def"], "path": "."},
    {"action": "grep", "pattern": "x" * (ARG_MAX_CHARS + 1), "path": "."},
    {"action": {"name": "read_file"}, "path": "README.md"},
    {"action": ["list_dir"], "path": "."},
    {"action": "list_dir", "path": "a" * (NAME_MAX + 1)},
    {"action": "read_file", "path": "src/" + "b" * (NAME_MAX + 1) + ".py"},
    {"action": "grep", "pattern": "def", "path": "c" * (NAME_MAX + 1)},
    {"action": "list_dir", "path": "." + "/x" * 2000},
    {"action": "list_dir", "path": "src", "extra": {"k": [None, True, 1.5]}},
]


def deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.fixture(params=ENGINES)
def tools(request: pytest.FixtureRequest, repo: Path) -> ReadOnlyTools:
    return ReadOnlyTools(repo, grep_engine=request.param)


@pytest.mark.parametrize("act", BAD_TEXT_ACTIONS, ids=lambda a: f"{a['action']}-{ascii(a)[:40]}")
def test_nul_or_unpaired_surrogate_is_a_tool_error(tools: ReadOnlyTools, act: dict[str, Any]) -> None:
    result = run_action(tools, act)
    assert not result.ok and result.content.startswith("error: ")
    assert "NUL character" in result.content or "unpaired surrogate" in result.content
    result.content.encode("utf-8")  # the model can be sent this text
    result.summary.encode("utf-8")


@pytest.mark.parametrize("act", ODD_ACTIONS + [{"action": "read_file", "path": deep(500)}],
                         ids=lambda a: ascii(a)[:50])
def test_odd_values_never_raise(tools: ReadOnlyTools, act: dict[str, Any]) -> None:
    result = run_action(tools, act)
    assert result.content.startswith("error: ") or result.ok
    assert len(result.content) < 2 * ARG_MAX_CHARS
    result.content.encode("utf-8")


def test_an_unexpected_failure_is_a_tool_error_naming_its_type(tools: ReadOnlyTools, repo: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(path: Any) -> ToolResult:
        raise OSError(errno.EIO, "Input/output error", str(repo / path))

    monkeypatch.setattr(tools, "list_dir", fails)
    result = run_action(tools, {"action": "list_dir", "path": "a"})
    assert not result.ok and "list_dir failed: OSError: Input/output error" in result.content
    assert str(repo) not in result.content  # the real location of the sandbox stays hidden


def test_a_name_too_long_for_any_filesystem_is_refused_by_name(tools: ReadOnlyTools, repo: Path) -> None:
    for action in ("list_dir", "read_file"):
        result = run_action(tools, {"action": action, "path": "a" * (NAME_MAX + 1)})
        assert not result.ok and f"is {NAME_MAX + 1} bytes long" in result.content, result.content
        assert str(repo) not in result.content


@pytest.mark.parametrize(("text", "error"), [
    ('```json\n{"action": "read_file", "path": "a", "start_line": ' + "9" * 5000 + "}\n```", "cannot be read"),
    ('{"action": "list_dir", "path": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
])
def test_unreadable_action_json_is_malformed_not_a_crash(text: str, error: str) -> None:
    reply = classify_reply(text)
    assert reply.kind == "malformed" and error in reply.error


async def test_a_run_survives_every_hostile_action(repo: Path) -> None:
    hostile = BAD_TEXT_ACTIONS + ODD_ACTIONS + [{"action": "read_file", "path": deep(500)}]
    replies = [f"```json\n{json.dumps(a)}\n```" for a in hostile]
    replies += ['{"action": "list_dir", "path": ' + "[" * 100_000 + "]" * 100_000 + "}",
                '```json\n{"action": "grep", "pattern": "x", "path": ' + "1" * 5000 + "}\n```",
                action("read_file", path="README.md"), GOOD_PLAN]
    sink = ListSink()
    client = RecordingClient(*replies)
    result = await run_planner(client, repo, "double the upload timeout", max_turns=len(replies), sink=sink)
    assert result.ok and result.turns == len(replies)
    calls = [e for e in sink.events if isinstance(e, ToolCallFinished)]
    assert len(calls) == len(hostile) + 1 and calls[-1].ok
    assert not any(c.ok for c in calls[:len(BAD_TEXT_ACTIONS)])
    json.dumps([event_to_dict(e) for e in sink.events])  # every event serialises for the headless stream
    for n in range(len(replies)):
        client.prompt(n).encode("utf-8")
    assert "contains a NUL character" in client.prompt(len(replies) - 1)


async def test_a_reply_with_unpaired_surrogates_is_still_sent_on(repo: Path) -> None:
    client = RecordingClient(f"Thinking {SURROGATE} about it.", GOOD_PLAN)
    result = await run_planner(client, repo, "double the upload timeout")
    assert result.ok
    client.prompt(1).encode("utf-8")
