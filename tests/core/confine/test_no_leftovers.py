"""No process outlives its owner: a double-forking ``setsid`` daemon that keeps writing a marker file is gone when the
bash command that started it ends, times out or is cancelled, when a gate check ends, when an MCP server is
stopped, and when ``ljtui run`` ends or is killed."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from ljtui.core.agent.shell import ShellLimits, run_command
from ljtui.core.childenv import child_env
from ljtui.core.clock import SystemClock
from ljtui.core.gates.checks import run_check
from ljtui.core.gates.model import CheckItem
from ljtui.core.gates.workspace import command_env
from ljtui.core.mcp.client import McpServer, ServerEnvironment
from ljtui.core.mcp.config import McpServerConfig
from tests.core.confine.helpers import confinement_for, default_sandbox
from tests.core.confine.leftovers import assert_gone, daemon_command, holders, kill_holders, wait_gone

SPAWNER = str(Path(__file__).with_name("spawner_server.py"))
LONG = 60.0
QUICK = ShellLimits(kill_grace=0.5)
"""A short grace, so a daemon that ignores SIGTERM is killed soon."""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    return folder


@pytest.fixture
def marker(repo: Path):  # type: ignore[no-untyped-def]
    """The daemon's marker, in the repository (where commands may write); whatever still holds it is killed when the
    test ends."""
    path = repo / "marker"
    yield path
    kill_holders(path)


@pytest.fixture
def confined(repo: Path):  # type: ignore[no-untyped-def]
    """A session sandbox on this machine's default backend; the test is skipped where there is none."""
    box = default_sandbox(repo, temp_parent=repo.parent)
    if not box.confined:
        pytest.skip(f"no sandbox on this machine: {box.status.why}")
    yield box
    box.close()


async def test_a_daemon_a_bash_command_leaves_ends_with_the_command(repo: Path, marker: Path) -> None:
    result = await run_command(f"{daemon_command(marker)} && echo started", repo,
                               confinement=confinement_for(repo), timeout=LONG)
    assert result.exit_code == 0 and result.output == "started\n" and not result.pipe_held
    assert_gone(marker)


async def test_a_daemon_of_a_command_that_times_out_ends_with_it(repo: Path, marker: Path) -> None:
    command = f"{daemon_command(marker, ignore_term=True)} && echo started; sleep 300"
    result = await run_command(command, repo, confinement=confinement_for(repo), timeout=1.0, limits=QUICK)
    assert result.timed_out and result.output == "started\n" and result.left_running == 0
    assert_gone(marker)


async def test_a_daemon_of_a_cancelled_command_ends_with_it(repo: Path, marker: Path) -> None:
    flag = asyncio.Event()
    command = f"{daemon_command(marker, ignore_term=True)} && echo started; sleep 300"
    task = asyncio.create_task(run_command(command, repo, confinement=confinement_for(repo), timeout=LONG,
                                           cancelled=flag, on_output=lambda _text: flag.set(), limits=QUICK))
    result = await task
    assert result.cancelled and result.output == "started\n"
    assert_gone(marker)


async def test_a_daemon_a_gate_check_leaves_ends_with_the_check(repo: Path, marker: Path) -> None:
    item = CheckItem("tests", "the tests pass", f"{daemon_command(marker)} && echo checked")
    evidence = await run_check(item, repo, confinement=confinement_for(repo), env=command_env(repo), timeout=LONG,
                               content_hash="h", agent="chat", clock=SystemClock())
    assert evidence.exit_code == 0 and evidence.output == "checked\n"
    assert_gone(marker)


async def test_a_daemon_an_mcp_servers_tool_starts_ends_when_the_server_is_stopped(  # type: ignore[no-untyped-def]
        repo: Path, confined, marker: Path) -> None:
    server = McpServer("spawner", McpServerConfig(command=sys.executable, args=[SPAWNER]),
                       ServerEnvironment(repo, confined, child_env()), start_timeout=30, call_timeout=30)
    try:
        result = await server.call("spawn", {"path": str(marker)})
        assert "spawned" in str(result), result
        assert holders(marker), "the daemon runs while its server does"
    finally:
        await server.stop()
    assert_gone(marker)


def ljtui(repo: Path, env: dict[str, str], script: list[dict[str, object]], *flags: str) -> subprocess.Popen[str]:
    """``ljtui run`` with a scripted model, started in the background."""
    path = repo.parent / "script.yaml"
    path.write_text(yaml.safe_dump({"turns": script}), encoding="utf-8")
    return subprocess.Popen([sys.executable, "-m", "ljtui.cli.main", "run", "--provider", "scripted", "--script",
                             str(path), "--repo", str(repo), "--json", *flags, "go"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def user_env(tmp_path: Path, servers: dict[str, object] | None = None) -> dict[str, str]:
    """A user config with MCP ``servers`` and no layer: commands write the marker in the tree, where it is watched."""
    config = tmp_path / "cfg" / "ljtui" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(yaml.safe_dump({"agent": {"layer": "off"}, "mcp": {"servers": servers or {}}}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "LJTUI_CONFIG")}
    return {**env, "XDG_CONFIG_HOME": str(tmp_path / "cfg")}


def test_ljtui_killed_mid_command_takes_the_command_and_its_daemon_with_it(tmp_path: Path, repo: Path,
                                                                          marker: Path) -> None:
    command = f"{daemon_command(marker)} && echo started; sleep 300"
    run = ljtui(repo, user_env(tmp_path), [{"tool_calls": [{"name": "bash", "input": {"command": command}}]},
                                           {"text": "done"}], "--allow", "bash")
    try:
        deadline = time.monotonic() + LONG
        while not (marker.exists() and marker.stat().st_size) and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists() and holders(marker), run.communicate()[1] if run.poll() is not None else "no daemon"
    finally:
        run.kill()
        run.communicate()
    assert run.returncode == -signal.SIGKILL
    wait_gone(marker)


def test_ljtui_run_ending_stops_its_mcp_server_and_what_the_server_started(tmp_path: Path, repo: Path,
                                                                           marker: Path) -> None:
    env = user_env(tmp_path, {"spawner": {"command": sys.executable, "args": [SPAWNER]}})
    script = [{"tool_calls": [{"name": "mcp__spawner__spawn", "input": {"path": str(marker)}}]},
              {"text": "done"}]
    run = ljtui(repo, env, script, "--allow", "mcp")
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    finished = [json.loads(line) for line in out.splitlines() if '"tool_call_finished"' in line]
    assert finished and "spawned" in finished[0]["output"], out
    wait_gone(marker)
