"""MCP servers started for real: a server from PyPI that ljtui did not write, and one that fails on purpose."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from ljtui.core.childenv import child_env
from ljtui.core.mcp.client import FAILED, READY, McpServer, McpUnavailable, ServerEnvironment
from ljtui.core.mcp.config import McpServerConfig

BAD_SERVER = str(Path(__file__).with_name("bad_server.py"))
WRITER_SERVER = str(Path(__file__).with_name("writer_server.py"))


def server(root: Path, command: str, *args: str, start_timeout: float = 20, call_timeout: float = 20,
           name: str = "s") -> McpServer:
    where = ServerEnvironment(root, None, child_env())
    return McpServer(name, McpServerConfig(command=command, args=list(args)), where, start_timeout=start_timeout,
                     call_timeout=call_timeout)


def bad(root: Path, mode: str, *extra: str, **kwargs: float) -> McpServer:
    return server(root, sys.executable, BAD_SERVER, mode, *extra, **kwargs)


def text_of(result) -> str:  # type: ignore[no-untyped-def]
    return "".join(getattr(part, "text", "") for part in result.content)


async def test_mcp_server_time_from_pypi_lists_its_tools_and_answers_a_call(tmp_path: Path) -> None:
    command = shutil.which("mcp-server-time")
    assert command is not None, "mcp-server-time is in the test extras"
    time_server = server(tmp_path, command, "--local-timezone", "UTC", name="time")
    try:
        tools = await time_server.ensure_started()
        assert {t.name for t in tools} >= {"get_current_time", "convert_time"}
        result = await time_server.call("get_current_time", {"timezone": "UTC"})
        assert not result.isError and '"timezone": "UTC"' in text_of(result)
        assert time_server.state == READY
    finally:
        await time_server.stop()


async def test_a_server_that_exits_at_start_is_unavailable_with_its_stderr(tmp_path: Path) -> None:
    crashing = bad(tmp_path, "crash")
    with pytest.raises(McpUnavailable) as caught:
        await crashing.ensure_started()
    assert "s could not start" in str(caught.value) and "cannot start: missing config" in str(caught.value)
    assert crashing.state == FAILED


async def test_a_server_that_never_answers_is_given_up_on_after_the_start_timeout(tmp_path: Path) -> None:
    hanging = bad(tmp_path, "hang", start_timeout=1.0)
    started = time.monotonic()
    with pytest.raises(McpUnavailable, match="s did not start within 1 s"):
        await hanging.ensure_started()
    assert time.monotonic() - started < 10


async def test_a_server_that_speaks_garbage_or_an_endless_line_is_refused(tmp_path: Path) -> None:
    for mode in ("garbage", "huge"):
        broken = bad(tmp_path, mode, start_timeout=10.0)
        with pytest.raises(McpUnavailable) as caught:
            await broken.ensure_started()
        assert "could not start" in str(caught.value) or "did not start" in str(caught.value), mode


async def test_a_failed_server_is_started_again_once_then_stays_down(tmp_path: Path) -> None:
    crashing = bad(tmp_path, "crash")
    for _ in range(2):
        with pytest.raises(McpUnavailable, match="could not start"):
            await crashing.ensure_started()
    with pytest.raises(McpUnavailable, match="not started again this session"):
        await crashing.ensure_started()


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


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie is dead, waiting for its parent
        return stat.read().rsplit(")", 1)[1].split()[0] != "Z"


async def test_stopping_kills_a_server_that_ignores_sigterm_and_the_child_it_started(tmp_path: Path) -> None:
    stubborn = bad(tmp_path, "stubborn", str(tmp_path))
    await stubborn.ensure_started()
    pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
    assert all(alive(pid) for pid in pids)
    await stubborn.stop()
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not any(alive(pid) for pid in pids), "no orphan is left"


async def test_a_missing_program_is_unavailable_naming_why(tmp_path: Path) -> None:
    missing = server(tmp_path, str(tmp_path / "no-such-server"))
    with pytest.raises(McpUnavailable, match="s could not start: FileNotFoundError"):
        await missing.ensure_started()


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
    assert "web could not start" in str(caught.value) and "401" in str(caught.value), str(caught.value)
