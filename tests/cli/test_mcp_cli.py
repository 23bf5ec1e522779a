"""``ljtui mcp list`` and ``ljtui run`` with MCP servers: a real server from PyPI, one that cannot start, and an
untrusted repository's ``.mcp.json``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

TIMEOUT = 120


def user_env(tmp_path: Path, servers: dict[str, object]) -> dict[str, str]:
    config = tmp_path / "cfg" / "ljtui" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(yaml.safe_dump({"mcp": {"servers": servers}}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "LJTUI_CONFIG")}
    return {**env, "XDG_CONFIG_HOME": str(tmp_path / "cfg")}


def ljtui(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", *args, "--repo", str(repo)], capture_output=True,
                          text=True, timeout=TIMEOUT, env=env)


def time_server() -> dict[str, object]:
    command = shutil.which("mcp-server-time")
    assert command is not None, "mcp-server-time is in the test extras"
    return {"command": command, "args": ["--local-timezone", "UTC"]}


def test_mcp_list_starts_each_server_to_list_its_tools_and_names_the_one_that_failed(git_repo: Path,
                                                                                      tmp_path: Path) -> None:
    env = user_env(tmp_path, {"time": time_server(), "broken": {"command": str(tmp_path / "no-such-server")}})
    done = ljtui(git_repo, env, "mcp", "list")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "broken · stdio · failed · from user config"
    assert lines[1].startswith("  broken could not start")
    assert lines[2:] == ["time · stdio · ready · from user config", "  2 tools: get_current_time, convert_time"]
    listed = json.loads(ljtui(git_repo, env, "mcp", "list", "--json").stdout)
    assert [(r["name"], r["state"], r["tools"]) for r in listed] == [
        ("broken", "failed", []), ("time", "ready", ["get_current_time", "convert_time"])]


def test_the_readmes_example_starts_by_its_bare_command_and_a_failed_server_shows_its_last_stderr_lines(
        git_repo: Path, tmp_path: Path) -> None:
    from tests.core.mcp.test_client import BAD_SERVER

    env = user_env(tmp_path, {"time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]},
                              "broken": {"command": sys.executable, "args": [BAD_SERVER, "crash"]}})
    env["PATH"] = os.pathsep.join([os.path.dirname(str(time_server()["command"])), "/usr/bin", "/bin"])
    done = ljtui(git_repo, env, "mcp", "list")
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [
        "broken · stdio · failed · from user config",
        "  broken could not start: it closed the connection; the last lines of its stderr:",
        "    starting step 3", "    starting step 4", "    starting step 5", "    starting step 6",
        "    cannot start: missing config",
        "time · stdio · ready · from user config", "  2 tools: get_current_time, convert_time"]


def test_mcp_list_with_no_server_says_where_to_name_one(git_repo: Path, tmp_path: Path) -> None:
    done = ljtui(git_repo, user_env(tmp_path, {}), "mcp", "list")
    assert done.returncode == 0
    assert done.stdout.startswith("No MCP servers: name them under mcp.servers in your own config file")


def test_an_untrusted_repositorys_servers_are_listed_as_held_and_never_start(git_repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "started"
    (git_repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"evil": {"command": "touch",
                                                                             "args": [str(marker)]}}}))
    done = ljtui(git_repo, user_env(tmp_path, {}), "mcp", "list")
    assert done.returncode == 0
    assert done.stdout.splitlines() == ["evil · stdio · held · from .mcp.json", "  the repository is not trusted"]
    assert "start only once you trust this repository" in done.stderr
    assert not marker.exists()


def test_ljtui_run_reports_an_mcp_call_like_any_tool_call(git_repo: Path, tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump({"turns": [
        {"text": "Checking.", "tool_calls": [{"name": "mcp__time__get_current_time", "input": {"timezone": "UTC"}}]},
        {"text": "Done."}]}))
    env = user_env(tmp_path, {"time": time_server()})
    done = ljtui(git_repo, env, "run", "--provider", "scripted", "--script", str(script), "--yes", "--json",
                 "what time is it?")
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    finished = [e for e in events if e.get("kind") == "tool_call_finished"]
    assert [(e["name"], e["ok"]) for e in finished] == [("mcp__time__get_current_time", True)], done.stderr


def test_allow_mcp_lets_a_headless_run_call_mcp_tools_without_yes(git_repo: Path, tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump({"turns": [
        {"text": "Checking.", "tool_calls": [{"name": "mcp__time__get_current_time", "input": {"timezone": "UTC"}}]},
        {"text": "Done."}]}))
    env = user_env(tmp_path, {"time": time_server()})
    ran = {}
    for allow in ("", "mcp", "mcp__time__get_current_time"):
        done = ljtui(git_repo, env, "run", "--provider", "scripted", "--script", str(script), "--json",
                     *(["--allow", allow] if allow else []), "what time is it?")
        events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        ran[allow] = [e["ok"] for e in events if e.get("kind") == "tool_call_finished"]
    assert ran == {"": [False], "mcp": [True], "mcp__time__get_current_time": [True]}
