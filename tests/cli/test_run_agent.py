"""``ljtui run`` as an agent on a real repository: reads, writes through the transaction, asks by policy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import git
from tests.fixtures import SCRIPTS

SUBPROCESS_TIMEOUT = 60


def run(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", "run", *args, "--repo", str(repo)],
                          capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT, env=env or dict(os.environ))


def events(proc: subprocess.CompletedProcess[str]) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_allow_write_reads_and_edits_through_the_transaction_and_reports_the_permission(git_repo: Path) -> None:
    proc = run(git_repo, "make greet friendlier", "--script", str(SCRIPTS / "agent_edit.yaml"), "--allow", "write",
               "--json")
    assert proc.returncode == 0, proc.stderr
    assert (git_repo / "app.py").read_text() == "def greet(name):\n    return f'hello, {name}!'\n"
    kinds = [e["kind"] for e in events(proc)]
    assert kinds.count("tool_call_finished") == 2 and kinds[-1] == "turn_finished"
    [decided] = [e for e in events(proc) if e["kind"] == "permission_decided"]
    assert (decided["tool"], decided["decision"], decided["scope"]) == ("edit_file", "allow", "policy")
    assert [e for e in events(proc) if e["kind"] == "permission_requested"][0]["subject"] == "app.py"
    undone = subprocess.run([sys.executable, "-m", "ljtui.cli.main", "undo", "--yes", "--repo", str(git_repo)],
                            capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT)
    assert undone.returncode == 0 and "reverted app.py" in undone.stdout
    assert git(git_repo, "status", "--porcelain") == ""


def test_without_allow_a_headless_write_is_denied_and_the_model_is_told(git_repo: Path) -> None:
    proc = run(git_repo, "make greet friendlier", "--script", str(SCRIPTS / "agent_edit.yaml"), "--json")
    assert proc.returncode == 0
    assert (git_repo / "app.py").read_text() == "def greet(name):\n    return 'hello ' + name\n"
    [finished] = [e for e in events(proc) if e["kind"] == "tool_call_finished" and e["name"] == "edit_file"]
    assert not finished["ok"] and "the user denied this edit_file call" in finished["summary"]
    [decided] = [e for e in events(proc) if e["kind"] == "permission_decided"]
    assert decided["decision"] == "deny"
    assert "pass --allow write,bash to let the agent act; a dangerous command needs --yes" in proc.stderr


def test_an_unknown_allow_name_is_a_usage_error(git_repo: Path) -> None:
    proc = run(git_repo, "x", "--script", str(SCRIPTS / "agent_edit.yaml"), "--allow", "everything")
    assert proc.returncode == 2 and "--allow everything" in proc.stderr


def test_continue_sends_the_request_as_the_next_message_of_the_saved_session(git_repo: Path, tmp_path: Path) -> None:
    first = run(git_repo, "make greet friendlier", "--script", str(SCRIPTS / "agent_edit.yaml"), "--allow", "write")
    assert first.returncode == 0, first.stderr
    answer = tmp_path / "answer.yaml"
    answer.write_text("turns:\n  - text: You asked me to make greet friendlier.\n")
    again = run(git_repo, "what did I ask?", "--script", str(answer), "--continue", "--json")
    assert again.returncode == 0, again.stderr
    [resumed] = [e for e in events(again) if e["kind"] == "session_resumed"]
    assert resumed["messages"] == 6 and resumed["transcript"][0] == {
        "role": "user", "text": "make greet friendlier", "arguments": {}, "ok": None, "level": ""}
    assert [(e["text"], e["ok"]) for e in resumed["transcript"] if e["role"] == "tool"] == [
        ("read_file", True), ("edit_file", True)]
    listed = subprocess.run([sys.executable, "-m", "ljtui.cli.main", "sessions", "--json", "--repo", str(git_repo)],
                            capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT)
    [session] = json.loads(listed.stdout)
    assert session["id"] == resumed["session_id"] and session["messages"] == 8


def test_resuming_an_unknown_session_fails_before_the_model_is_called(git_repo: Path) -> None:
    proc = run(git_repo, "hello", "--script", str(SCRIPTS / "agent_edit.yaml"), "--resume", "20990101-000000-ffff")
    assert proc.returncode == 1
    assert "20990101-000000-ffff" in proc.stderr and proc.stdout == ""
    bad = run(git_repo, "hello", "--script", str(SCRIPTS / "agent_edit.yaml"), "--resume", "x", "--continue")
    assert bad.returncode == 2 and "not allowed with argument" in bad.stderr


def test_unsandboxed_allow_bash_covers_no_command_and_says_why(git_repo: Path, tmp_path: Path) -> None:
    config = tmp_path / "config"
    (config / "ljtui").mkdir(parents=True)
    (config / "ljtui" / "config.yaml").write_text("agent:\n  sandbox: {backend: none}\n  layer: off\n",
                                                  encoding="utf-8")
    env = {**os.environ, "XDG_CONFIG_HOME": str(config)}
    denied = run(git_repo, "list the files", "--script", str(SCRIPTS / "bash_quick.yaml"), "--allow", "bash",
                 env=env)
    assert "[unsandboxed: agent.sandbox.backend is 'none' in your config" in denied.stderr
    assert "Run this command unsandboxed? Not a terminal" in denied.stderr
    assert "so --allow bash does not cover them; --yes runs each with your full rights" in denied.stderr
    assert "[bash: deny (once)]" in denied.stderr
    allowed = run(git_repo, "list the files", "--script", str(SCRIPTS / "bash_quick.yaml"), "--yes", env=env)
    assert "[bash: allow (once)]" in allowed.stderr and "[tool bash: ok: exit 0" in allowed.stderr
