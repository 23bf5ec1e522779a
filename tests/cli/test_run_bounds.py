"""``ljtui run`` in a real process against hostile replies: arguments nested a hundred thousand levels deep
(scripted, and streamed by a loopback Messages API), and a reply of a thousand commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes import anthropic_api as api
from tests.fakes.fixtures import FAKE_KEY
from tests.fakes.server import SSE, FakeSSEServer, Reply

SUBPROCESS_TIMEOUT = 120
DEEP = 100_000
FAST_CONFIG = ("provider:\n  timeout: 5\n  max_retries: 0\n  retry_delay: 0.01\n  retry_max_delay: 0.01\n"
               "agent:\n  routing: chat\n")


@pytest.fixture
def fast_config(isolated_env: Path) -> Path:
    path = isolated_env / "ljtui" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FAST_CONFIG, encoding="utf-8")
    return path


def run(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", "run", *args, "--json", "--repo", str(repo)],
                          capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT, env=env or dict(os.environ))


def events(proc: subprocess.CompletedProcess[str]) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines()]


def assert_refused_deep_call_then_finished(proc: subprocess.CompletedProcess[str], answer: str) -> None:
    assert proc.returncode == 1, proc.stderr  # the turn finished, but its only call failed
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith(
        "ljtui run: finished, but the only tool call failed (read_file: arguments nested more than 64 levels")
    seen = events(proc)
    [finished] = [e for e in seen if e["kind"] == "tool_call_finished"]
    assert not finished["ok"] and "arguments nested more than 64 levels" in finished["summary"]
    assert seen[-1]["kind"] == "turn_finished" and seen[-1]["text"].endswith(answer)


def test_a_scripted_call_nested_a_hundred_thousand_levels_is_a_tool_error(git_repo: Path, tmp_path: Path) -> None:
    script = tmp_path / "deep.json"
    text = json.dumps({"turns": [{"tool_calls": [{"name": "read_file", "input": {"path": "DEEP"}}]},
                                 {"text": "Those arguments were refused."}]})
    script.write_text(text.replace('"DEEP"', "[" * DEEP + "]" * DEEP), encoding="utf-8")
    proc = run(git_repo, "read it", "--script", str(script))
    assert_refused_deep_call_then_finished(proc, "Those arguments were refused.")


def deep_tool_use() -> Reply:
    """A reply whose one tool_use streams an input of 100,000 ``[`` (never closed)."""
    head = api.message_events("", tool_uses=(("toolu_deep", "read_file", {}),))
    starting = [e for e in head if e.data.get("type") in ("message_start", "content_block_start")]
    ending = [e for e in head if e.data.get("type") in ("content_block_stop", "message_delta", "message_stop")]
    deltas = [SSE({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "input_json_delta", "partial_json": "[" * (DEEP // 10)}},
                  event="content_block_delta") for _ in range(10)]
    return Reply(events=(*starting, *deltas, *ending))


def test_a_streamed_tool_use_a_hundred_thousand_levels_deep_is_a_tool_error(
    fast_config: Path, git_repo: Path,
) -> None:
    with FakeSSEServer(require_key=FAKE_KEY) as server:
        server.queue(deep_tool_use(), api.text_reply("The input was too deep."))
        env = {**os.environ, "ANTHROPIC_API_KEY": FAKE_KEY, "ANTHROPIC_BASE_URL": server.url,
               "LJTUI_MODEL": "claude-test"}
        proc = run(git_repo, "read it", env=env)
        assert_refused_deep_call_then_finished(proc, "The input was too deep.")
        assert len(server.requests) == 2
        assistant, results = server.requests[1].json["messages"][-2:]
        assert assistant["content"][-1]["input"] == {} and assistant["content"][-1]["id"] == "toolu_deep"
        [result] = results["content"]
        assert result["tool_use_id"] == "toolu_deep" and result["is_error"] is True


def test_a_thousand_commands_in_one_reply_ask_once_and_each_gets_a_result(git_repo: Path, tmp_path: Path) -> None:
    calls = [{"name": "bash", "input": {"command": f"echo {n} > out{n}.txt"}} for n in range(1000)]
    script = tmp_path / "many.json"
    script.write_text(json.dumps({"turns": [{"tool_calls": calls}, {"text": "Nothing ran."}]}), encoding="utf-8")
    proc = run(git_repo, "write files", "--script", str(script))
    assert proc.returncode == 1, proc.stderr  # the calls past the bound are the model's failures, the rest denied
    assert proc.stderr.count("Not a terminal") == 1, proc.stderr
    last = proc.stderr.splitlines()[-1]
    assert last.startswith("ljtui run: finished, but all 975 tool calls that were not denied failed (bash: not run: "
                           "this reply made 1000 tool calls") and last.endswith(" ×975), 25 denied (bash)"), last
    seen = events(proc)
    finished = [e for e in seen if e["kind"] == "tool_call_finished"]
    assert len(finished) == 1000 and not any(e["ok"] for e in finished)
    assert "the user denied this bash call" in finished[0]["summary"]
    assert all("denied with the earlier call of this reply" in e["output"] for e in finished[1:25])
    assert all("the last 975 were refused" in e["output"] for e in finished[25:])
    assert seen[-1]["kind"] == "turn_finished" and seen[-1]["text"] == "Nothing ran."
    assert list(git_repo.glob("out*.txt")) == []
