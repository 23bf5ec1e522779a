"""MCP servers started for real: a server from PyPI that ljtui did not write, and one that fails on purpose."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from ljtui.core.childenv import child_env
from ljtui.core.mcp.client import FAILED, READY, McpServer, McpUnavailable, ServerEnvironment
from ljtui.core.mcp.config import McpServerConfig
from ljtui.core.mcp.stdio import STDERR_DRAIN_SECONDS
from ljtui.core.mcp.values import McpResult

BAD_SERVER = str(Path(__file__).with_name("bad_server.py"))
WRITER_SERVER = str(Path(__file__).with_name("writer_server.py"))


def server(root: Path, command: str, *args: str, start_timeout: float = 20, call_timeout: float = 20,
           name: str = "s") -> McpServer:
    where = ServerEnvironment(root, None, child_env())
    return McpServer(name, McpServerConfig(command=command, args=list(args)), where, start_timeout=start_timeout,
                     call_timeout=call_timeout)


def bad(root: Path, mode: str, *extra: str, **kwargs: float) -> McpServer:
    return server(root, sys.executable, BAD_SERVER, mode, *extra, **kwargs)


def text_of(result: McpResult) -> str:
    return "".join(str(part.get("text", "")) for part in result.parts)


async def test_mcp_server_time_from_pypi_lists_its_tools_and_answers_a_call(tmp_path: Path) -> None:
    command = shutil.which("mcp-server-time")
    assert command is not None, "mcp-server-time is in the test extras"
    time_server = server(tmp_path, command, "--local-timezone", "UTC", name="time")
    try:
        tools = await time_server.ensure_started()
        assert {t.name for t in tools} >= {"get_current_time", "convert_time"}
        result = await time_server.call("get_current_time", {"timezone": "UTC"})
        assert not result.is_error and '"timezone": "UTC"' in text_of(result)
        assert time_server.state == READY
    finally:
        await time_server.stop()


async def test_a_server_that_writes_to_stderr_and_exits_at_once_is_unavailable_with_its_last_stderr_lines(
        tmp_path: Path) -> None:
    crashing = bad(tmp_path, "crash")
    with pytest.raises(McpUnavailable) as caught:
        await crashing.ensure_started()
    assert str(caught.value) == ("s could not start: it closed the connection; the last lines of its stderr:\n"
                                 "  starting step 3\n  starting step 4\n  starting step 5\n  starting step 6\n"
                                 "  cannot start: missing config")
    assert crashing.state == FAILED and crashing.problem == str(caught.value)


async def test_a_server_whose_child_holds_its_pipes_open_fails_at_the_start_timeout_with_its_last_lines(
        tmp_path: Path) -> None:
    crashing = bad(tmp_path, "crash_leaving_child", str(tmp_path), start_timeout=1.0)
    started = time.monotonic()
    try:
        with pytest.raises(McpUnavailable) as caught:
            await crashing.ensure_started()
    finally:
        os.kill(int((tmp_path / "child").read_text()), signal.SIGKILL)
    assert str(caught.value) == ("s did not start within 1 s; the last lines of its stderr:\n"
                                 "  cannot start: the child keeps this stderr open")
    assert time.monotonic() - started < 1 + STDERR_DRAIN_SECONDS + 2, "the end of its stderr is waited for, bounded"


async def test_an_mcp_sdk_of_a_line_ljtui_does_not_speak_is_named(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    from ljtui.core.mcp import sdk

    installed = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "3.0.0" if name == "mcp" else installed(name))
    sdk.sdk.cache_clear()
    try:
        with pytest.raises(McpUnavailable) as caught:
            await bad(tmp_path, "ok").ensure_started()
    finally:
        sdk.sdk.cache_clear()
    assert str(caught.value) == ("s could not start: ljtui speaks the mcp SDK's 1.x and 2.x lines, and mcp 3.0.0 is "
                                 "installed")


async def test_a_server_that_never_answers_is_given_up_on_after_the_start_timeout(tmp_path: Path) -> None:
    hanging = bad(tmp_path, "hang", start_timeout=1.0)
    started = time.monotonic()
    with pytest.raises(McpUnavailable, match="s did not start within 1 s"):
        await hanging.ensure_started()
    assert time.monotonic() - started < 10


async def test_a_server_that_speaks_garbage_is_given_up_on_naming_the_line(tmp_path: Path) -> None:
    broken = bad(tmp_path, "garbage", start_timeout=1.0)
    with pytest.raises(McpUnavailable) as caught:
        await broken.ensure_started()
    assert str(caught.value) == ("s did not start within 1 s; the server sent a line that is not JSON-RPC: "
                                 "'this is not json-rpc'")


async def test_a_server_that_sends_an_endless_line_is_refused_at_the_bound(tmp_path: Path) -> None:
    broken = bad(tmp_path, "huge", start_timeout=10.0)
    with pytest.raises(McpUnavailable) as caught:
        await broken.ensure_started()
    assert str(caught.value) == "s could not start: the server sent a message over 8,388,608 bytes"


async def test_a_failed_server_is_started_again_once_then_stays_down(tmp_path: Path) -> None:
    crashing = bad(tmp_path, "crash")
    for _ in range(2):
        with pytest.raises(McpUnavailable, match="could not start"):
            await crashing.ensure_started()
    with pytest.raises(McpUnavailable) as caught:
        await crashing.ensure_started()
    assert str(caught.value).endswith("  cannot start: missing config\nnot started again this session")


async def test_a_call_that_never_returns_ends_at_the_call_timeout_and_the_server_restarts_on_the_next(
        tmp_path: Path) -> None:
    slow = bad(tmp_path, "ok", call_timeout=1.0)
    try:
        await slow.ensure_started()
        with pytest.raises(McpUnavailable, match="slow did not answer within 1 s"):
            await slow.call("slow", {})
        assert slow.state == FAILED
        result = await slow.call("echo", {"text": "again"})
        assert text_of(result) == "again" and slow.state == READY
    finally:
        await slow.stop()


async def test_a_server_that_dies_during_a_call_is_a_clear_error(tmp_path: Path) -> None:
    dying = bad(tmp_path, "ok", call_timeout=10.0)
    try:
        await dying.ensure_started()
        with pytest.raises(McpUnavailable) as caught:
            await dying.call("die", {})
        assert dying.state == FAILED and "s:" in str(caught.value)
    finally:
        await dying.stop()


def beats(markers: Path) -> dict[str, str]:
    """The heartbeat files of ``bad_server.py stubborn`` and what each holds now."""
    return {path.name: path.read_text() for path in sorted(markers.glob("beat-*"))}


async def beating(markers: Path) -> list[str]:
    """Which heartbeats still change: each is read, then read again once a beat or more has passed."""
    before = beats(markers)
    await asyncio.sleep(0.3)
    after = beats(markers)
    return [name for name in after if after[name] != before.get(name)]


async def until_beating_stops(markers: Path, *, deadline: float = 10.0) -> list[str]:
    """The heartbeats still changing once they all stopped, or the deadline passed."""
    end = time.monotonic() + deadline
    still = await beating(markers)
    while still and time.monotonic() < end:
        still = await beating(markers)
    return still


async def test_stopping_kills_a_server_that_ignores_sigterm_and_the_child_it_started(tmp_path: Path) -> None:
    stubborn = bad(tmp_path, "stubborn", str(tmp_path))
    await stubborn.ensure_started()
    assert await beating(tmp_path) == ["beat-child", "beat-server"]
    await stubborn.stop()
    assert await until_beating_stops(tmp_path) == [], "no orphan is left"


async def test_a_missing_program_is_unavailable_naming_its_path(tmp_path: Path) -> None:
    missing = server(tmp_path, str(tmp_path / "no-such-server"))
    with pytest.raises(McpUnavailable) as caught:
        await missing.ensure_started()
    assert str(caught.value) == f"s could not start: no program at {tmp_path / 'no-such-server'}"


def time_command_folder() -> str:
    command = shutil.which("mcp-server-time")
    assert command is not None, "mcp-server-time is in the test extras"
    return os.path.dirname(command)


async def test_a_server_named_by_its_bare_command_is_found_on_the_path_it_is_given_and_started_in_the_sandbox(
        tmp_path: Path) -> None:
    from ljtui.core.confine.session import CommandSandbox

    repo, empty = tmp_path / "repo", tmp_path / "empty"
    repo.mkdir()
    empty.mkdir()
    sandbox = CommandSandbox(repo, temp_parent=tmp_path)
    env = {**child_env(), "PATH": os.pathsep.join([str(empty), time_command_folder(), "/usr/bin", "/bin"])}
    time_server = McpServer("time", McpServerConfig(command="mcp-server-time", args=["--local-timezone", "UTC"]),
                            ServerEnvironment(repo, sandbox, env), start_timeout=20, call_timeout=20)
    try:
        result = await time_server.call("get_current_time", {"timezone": "UTC"})
    finally:
        await time_server.stop()
        sandbox.close()
    assert not result.is_error and '"timezone": "UTC"' in text_of(result)


async def test_an_unknown_bare_command_says_it_is_on_no_folder_of_the_path_naming_them(tmp_path: Path) -> None:
    from ljtui.core.confine.session import CommandSandbox

    first, second = tmp_path / "bin", tmp_path / "tools"
    first.mkdir()
    second.mkdir()
    (second / "mcp-server-nowhere").write_text("not executable\n")
    sandbox = CommandSandbox(tmp_path, temp_parent=tmp_path)
    env = {**child_env(), "PATH": os.pathsep.join([str(first), "relative/bin", str(second)])}
    missing = McpServer("m", McpServerConfig(command="mcp-server-nowhere"), ServerEnvironment(tmp_path, sandbox, env),
                        start_timeout=20, call_timeout=20)
    try:
        with pytest.raises(McpUnavailable) as caught:
            await missing.ensure_started()
    finally:
        sandbox.close()
    assert str(caught.value) == (
        f"m could not start: no program named 'mcp-server-nowhere' in PATH ({first}{os.pathsep}{second}); "
        "not searched, as not absolute: relative/bin; install it there, or give its full path as the server's "
        "command")
    assert missing.state == FAILED and "Traceback" not in str(caught.value)


async def test_a_server_starts_through_the_sessions_sandbox_even_when_it_does_not_confine(tmp_path: Path) -> None:
    from ljtui.core.confine.session import CommandSandbox

    sandbox = CommandSandbox(tmp_path, "none", temp_parent=tmp_path)
    assert not sandbox.confined
    writer = McpServer("w", McpServerConfig(command=sys.executable, args=[WRITER_SERVER]),
                       ServerEnvironment(tmp_path, sandbox, child_env()), start_timeout=20, call_timeout=20)
    private = str(sandbox.tmp_dir)
    try:
        given = text_of(await writer.call("getenv", {"name": "TMPDIR"}))
    finally:
        await writer.stop()
        sandbox.close()
    assert given == private, "the sandbox's private temp dir, which only its confinement gives"


async def test_a_server_runs_in_the_sessions_sandbox_and_cannot_write_outside_the_repository(
        tmp_path: Path) -> None:
    from ljtui.core.confine.session import CommandSandbox

    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    outside.mkdir()
    sandbox = CommandSandbox(repo, temp_parent=tmp_path)
    if not sandbox.confined:
        pytest.skip(f"no sandbox on this machine: {sandbox.status.why}")
    writer = McpServer("w", McpServerConfig(command=sys.executable, args=[WRITER_SERVER]),
                       ServerEnvironment(repo, sandbox, child_env()), start_timeout=20, call_timeout=20)
    try:
        await writer.ensure_started()
        inside = await writer.call("write", {"path": str(repo / "in.txt")})
        refused = await writer.call("write", {"path": str(outside / "out.txt")})
    finally:
        await writer.stop()
        sandbox.close()
    assert text_of(inside) == "written" and (repo / "in.txt").read_text() == "marker"
    assert text_of(refused).startswith("refused: PermissionError") and not (outside / "out.txt").exists()


async def test_a_server_reaches_the_network_only_when_the_users_config_gives_it_the_network(tmp_path: Path) -> None:
    import socket

    from ljtui.core.confine.session import CommandSandbox

    sandbox = CommandSandbox(tmp_path, temp_parent=tmp_path)
    if not sandbox.confined or not sandbox.status.network_enforced:
        pytest.skip(f"no sandbox that keeps the network off on this machine: {sandbox.status.why}")
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    answers = {}
    try:
        for network in (False, True):
            server = McpServer("n", McpServerConfig(command=sys.executable, args=[WRITER_SERVER], network=network),
                               ServerEnvironment(tmp_path, sandbox, child_env()), start_timeout=20, call_timeout=20)
            try:
                answers[network] = text_of(await server.call("connect", {"port": port}))
            finally:
                await server.stop()
    finally:
        listener.close()
        sandbox.close()
    assert answers[False].startswith("refused") and answers[True] == "connected", answers


HTTP_SERVER = str(Path(__file__).with_name("http_server.py"))


@pytest.fixture
def http_url(tmp_path: Path):  # type: ignore[no-untyped-def]
    import subprocess

    port_file = tmp_path / "port"
    proc = subprocess.Popen([sys.executable, HTTP_SERVER, str(port_file), "t0k"])
    try:
        deadline = time.monotonic() + 30
        while not port_file.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert port_file.exists(), "the HTTP server started"
        yield f"http://127.0.0.1:{port_file.read_text()}/mcp"
    finally:
        proc.kill()
        proc.wait()


async def test_a_streamable_http_server_is_reached_with_its_headers(tmp_path: Path, http_url: str) -> None:
    where = ServerEnvironment(tmp_path, None, {})
    web = McpServer("web", McpServerConfig(url=http_url, headers={"Authorization": "Bearer t0k"}), where,
                    start_timeout=20, call_timeout=20)
    try:
        assert [t.name for t in await web.ensure_started()] == ["echo"]
        assert text_of(await web.call("echo", {"text": "over http"})) == "over http"
    finally:
        await web.stop()


async def test_a_streamable_http_server_that_refuses_the_token_is_unavailable_naming_why(
        tmp_path: Path, http_url: str) -> None:
    where = ServerEnvironment(tmp_path, None, {})
    web = McpServer("web", McpServerConfig(url=http_url, headers={"Authorization": "Bearer wrong"}), where,
                    start_timeout=10, call_timeout=10)
    with pytest.raises(McpUnavailable) as caught:
        await web.ensure_started()
    assert str(caught.value) == "web could not start: the server answered HTTP 401 Unauthorized"
