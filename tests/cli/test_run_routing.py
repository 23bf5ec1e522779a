"""``ljtui run "request"`` routes like the app: a plain request may become a task plan; ``--chat`` never does.

One test makes the routing call through the real Anthropic SDK against the fake server, to check what
goes over the wire.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ljtui.cli.main import main
from ljtui.core.tasks.route import ROUTER_MAX_TOKENS
from tests.fakes import anthropic_api as api
from tests.fakes.fixtures import FAKE_KEY
from tests.fakes.server import FakeSSEServer
from tests.core.tasks.helpers import said

TIMEOUT = 120
ORIGINAL = "def greet(name):\n    return 'hello ' + name\n"
PLAN_ROUTE = json.dumps({"route": "plan", "skill": None, "reason": "an edit and a check"})
AGENTS: dict[str, list[dict[str, Any]]] = {
    "router": [{"text": PLAN_ROUTE}],
    "decompose": [{"text": json.dumps({"tasks": [
        {"id": 1, "description": "Make greet friendlier", "tool_hint": "edit_file", "depends_on": []},
        {"id": 2, "description": "Run the tests", "tool_hint": "bash", "depends_on": [1]}]})}],
    "task 1": [{"tool_calls": [{"name": "edit_file", "input": {
        "path": "app.py", "old": "'hello ' + name", "new": "'hello, ' + name"}}]}, said("greet has a comma", 1)],
    "task 2": [said("fine", 2)],
    "chat": [{"text": "Answered in chat."}],
}


def ljtui(repo: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "routing.yaml"
    script.write_text(yaml.safe_dump({"agents": AGENTS}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", "run", "--provider", "scripted", "--script",
                           str(script), "--repo", str(repo), *args], capture_output=True, text=True,
                          timeout=TIMEOUT, env=env)


def test_a_request_routed_to_a_plan_without_yes_prints_the_plan_and_stops(git_repo: Path, tmp_path: Path) -> None:
    proc = ljtui(git_repo, tmp_path, "make greet friendlier")
    assert proc.returncode == 1
    assert "[Routed to a task plan: an edit and a check]" in proc.stderr
    assert "  1. Make greet friendlier  (tool: edit_file)" in proc.stdout + proc.stderr
    assert "pass --yes to approve it" in proc.stderr and "the task plan ended rejected" in proc.stderr
    assert (git_repo / "app.py").read_text() == ORIGINAL


def test_a_request_routed_to_a_plan_runs_with_yes_and_reports_the_routing(git_repo: Path, tmp_path: Path) -> None:
    proc = ljtui(git_repo, tmp_path, "--yes", "--allow", "write", "--json", "make greet friendlier")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    [routed] = [e for e in events if e["kind"] == "message_routed"]
    assert {k: routed[k] for k in ("route", "skill", "reason")} == {
        "route": "plan", "skill": None, "reason": "an edit and a check"}
    assert events.index(routed) < [e["kind"] for e in events].index("task_plan_proposed")
    [finished] = [e for e in events if e["kind"] == "run_finished"]
    assert finished["status"] == "done"
    assert (git_repo / "app.py").read_text() == "def greet(name):\n    return 'hello, ' + name\n"
    record = json.loads((git_repo / ".agent" / "workspace" / finished["run_id"] / "tasks.json").read_text())
    assert [(t["status"], t["files"]) for t in record["tasks"]] == [("done", ["app.py"]), ("done", [])]


def test_chat_sends_the_request_to_the_agent_without_routing(git_repo: Path, tmp_path: Path) -> None:
    proc = ljtui(git_repo, tmp_path, "--chat", "--json", "make greet friendlier")
    assert proc.returncode == 0, proc.stderr
    kinds = [json.loads(line)["kind"] for line in proc.stdout.splitlines()]
    assert "message_routed" not in kinds and "task_plan_proposed" not in kinds
    assert json.loads(proc.stdout.splitlines()[-1])["text"] == "Answered in chat."


def test_chat_with_plan_is_a_usage_error(git_repo: Path, tmp_path: Path) -> None:
    proc = ljtui(git_repo, tmp_path, "--chat", "--plan", "x")
    assert proc.returncode == 2 and "--chat cannot be combined with --plan or --skill" in proc.stderr


def test_the_routing_call_goes_over_the_wire_with_no_tools_and_a_small_reply(
        fake_anthropic: FakeSSEServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    fake_anthropic.queue(api.text_reply(json.dumps({"route": "chat", "skill": None, "reason": "a question"}),
                                        input_tokens=40, output_tokens=12),
                         api.text_reply("It says hello.", input_tokens=9))
    code = main(["run", "what does greet do?", "--provider", "anthropic", "--model", "claude-test",
                 "--base-url", fake_anthropic.url, "--json", "--repo", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    router, chat = (r.json for r in fake_anthropic.requests)
    assert not router.get("tools") and router["max_tokens"] == ROUTER_MAX_TOKENS
    assert "route" in json.dumps(router["system"]) and router["messages"][-1]["content"][0]["text"] == \
        "what does greet do?"
    assert chat.get("tools") and chat["max_tokens"] > ROUTER_MAX_TOKENS
    events = [json.loads(line) for line in out.splitlines()][1:]  # after sandbox_checked
    assert [e["kind"] for e in events[:3]] == ["model_call_started", "usage_recorded", "message_routed"]
    assert events[0]["model"] == "claude-test", "the routing call announces itself"
    assert events[1]["call"]["input_tokens"] == 40 and events[2]["reason"] == "a question"
    assert not any(e["kind"] == "token_delta" and "route" in e["text"] for e in events), "the router is quiet"
    assert events[-1]["text"] == "It says hello."
