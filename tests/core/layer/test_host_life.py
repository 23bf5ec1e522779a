"""The tool host's life: started on the first call, stopped when idle or when the layer is needed, started again
once after it died, killed when it hangs, and never ended by a bad request."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from ljtui.core.layer.host_process import HostFailed
from ljtui.core.layer.service import Layer
from ljtui.core.layer.tools import LayerTools
from tests.core.layer.host_helpers import layer_tools, layered, processes_below, running_tools

WAIT_SECONDS = 10.0


@pytest.fixture
def host(git_repo: Path, tmp_path: Path) -> Iterator[LayerTools]:
    yield from running_tools(git_repo, tmp_path)


def eventually(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def ended(pid: int) -> bool:
    """Whether process ``pid`` is gone (or a zombie nobody reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rfind(")") + 2] in "ZX"


def layer_is_free(layer: Layer) -> bool:
    """Whether the layer can be held within a few seconds (it is not left held by a host)."""
    done = threading.Event()

    def hold() -> None:
        with layer.holding():
            done.set()

    threading.Thread(target=hold, daemon=True).start()
    return done.wait(WAIT_SECONDS)


def ping(tools: LayerTools) -> bool:
    return tools.request("ping", {}) == {"pong": True}


def test_the_host_starts_on_the_first_call_and_stops_when_idle(git_repo: Path, tmp_path: Path) -> None:
    tools = layer_tools(layered(git_repo), tmp_path / "cache", idle_seconds=0.3)
    try:
        assert tools.host_pid is None and tools.starts == 0
        assert tools.reader.read_file("app.py").ok
        pid = tools.host_pid
        assert pid is not None and tools.starts == 1
        eventually(lambda: tools.host_pid is None)
        assert ended(pid) and layer_is_free(tools.layer)
        assert tools.reader.list_dir(".").ok and tools.starts == 2
    finally:
        tools.close()


def test_holding_the_layer_stops_a_running_host_and_the_next_call_starts_another(host: LayerTools) -> None:
    assert ping(host)
    pid = host.host_pid
    assert pid is not None
    with host.layer.holding():
        assert host.host_pid is None and ended(pid)
    assert ping(host) and host.starts == 2 and host.host_pid != pid


def test_the_host_has_no_network_and_no_credentials(git_repo: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-test")
    tools = layer_tools(layered(git_repo), tmp_path / "cache")
    try:
        assert ping(tools) and tools.host_pid is not None
        [python] = [p for p in processes_below(tools.host_pid)
                    if os.path.basename(os.readlink(f"/proc/{p}/exe")).startswith("python")]
        environ = Path(f"/proc/{python}/environ").read_bytes()
        assert b"sk-test" not in environ and b"ghp-test" not in environ
        assert os.readlink(f"/proc/{python}/ns/net") != os.readlink("/proc/self/ns/net")
    finally:
        tools.close()


def test_a_killed_host_is_started_again_once_on_the_next_call(host: LayerTools) -> None:
    assert ping(host)
    pid = host.host_pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    eventually(lambda: ended(pid))
    read = host.reader.read_file("app.py")
    assert read.ok and host.starts == 2 and host.host_pid not in (None, pid)


def test_a_host_that_cannot_start_again_says_so_and_gives_the_layer_back(host: LayerTools,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    assert ping(host)
    pid = host.host_pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    eventually(lambda: ended(pid))
    monkeypatch.setattr("ljtui.core.layer.tools.host_argv",
                        lambda *args: ["/bin/sh", "-c", "echo cannot import ljtui >&2; exit 3"])
    read = host.reader.read_file("app.py")
    assert not read.ok and read.content == ("error: the layer's tool host had ended and could not start again: "
                                            "it ended (cannot import ljtui) before it was ready")
    assert host.host_pid is None and layer_is_free(host.layer)
    monkeypatch.undo()
    assert host.reader.read_file("app.py").ok


def test_a_host_that_does_not_start_says_why(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tools = layer_tools(layered(git_repo), tmp_path / "cache", start_timeout=0.5)
    monkeypatch.setattr("ljtui.core.layer.tools.host_argv", lambda *args: ["/bin/sh", "-c", "sleep 5"])
    try:
        started = time.monotonic()
        found = tools.outline.find("greet")
        assert found.error == "the layer's tool host could not start: it did not say it was ready within 0.5 s"
        assert time.monotonic() - started < 5
        assert layer_is_free(tools.layer)
    finally:
        tools.close()


def test_a_hung_host_is_killed_and_the_next_call_starts_another(host: LayerTools) -> None:
    assert ping(host)
    pid = host.host_pid
    assert pid is not None
    for process in processes_below(pid):
        os.kill(process, signal.SIGSTOP)
    listing = host.answer("list_dir", {"path": "."}, timeout=1.0)
    assert not listing.ok and listing.content == (
        "error: the layer's tool host failed: it did not answer within 1 s; it was stopped, and the next call "
        "starts a new one")
    assert host.host_pid is None and ended(pid) and layer_is_free(host.layer)
    assert host.reader.list_dir(".").ok and host.starts == 2


@pytest.mark.parametrize(("op", "args", "error"), [
    ("nope", {}, "unknown operation 'nope'"),
    ("commit", {"prepared": {"tool": "write_file"}}, "KeyError: 'asked'"),
    ("commit", {"prepared": "forged"}, "TypeError: commit takes the prepared write the host gave"),
    ("write_tool", {"tool": 3}, "TypeError: a tool call names its tool"),
    ("read_file", {"path": b"bytes"}, "its arguments are not JSON"),
    ("commit", {"prepared": {"tool": "write_file", "asked": "a", "path": "a", "after": "%%%", "before_hash": "",
                             "notes": []}}, "Error"),
])
def test_a_bad_request_is_answered_with_an_error_and_the_host_goes_on(host: LayerTools, op: str,
                                                                      args: dict[str, object], error: str) -> None:
    assert ping(host)
    pid = host.host_pid
    with pytest.raises(HostFailed, match="could not serve this call") as refused:
        host.request(op, args)
    assert error in str(refused.value)
    assert ping(host) and host.host_pid == pid and host.starts == 1


def test_bad_tool_arguments_are_the_tool_s_refusals(host: LayerTools) -> None:
    assert not host.reader.read_file(5).ok and not host.reader.grep("(((", ".").ok
    assert not host.reader.list_dir("x" * 100_000).ok and host.outline.outline({"a": [1]}).error
    assert host.write_tool("rm", {}).content == (
        "error: 'rm' is not a write tool (one of: write_file, edit_file, apply_patch, create_directory)")
    assert host.write_tool("edit_file", {"path": "app.py", "old": None, "new": "x"}).summary == (
        "edit_file: missing argument 'old' (a string)")
    assert ping(host) and host.starts == 1


def test_calls_from_many_threads_share_one_host_that_outlives_them(host: LayerTools) -> None:
    results: list[bool] = []

    def work(n: int) -> None:
        for i in range(4):
            results.append(host.write_tool("write_file", {"path": f"t{n}/{i}.txt", "content": f"{n} {i}\n"}).ok)
            results.append(host.reader.read_file(f"t{n}/{i}.txt").content.count(f"{n} {i}") == 1)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [True] * 48
    assert ping(host) and host.starts == 1  # the threads that started it have ended; the host has not


def test_a_closed_host_refuses_every_call(host: LayerTools) -> None:
    assert ping(host)
    host.close()
    assert host.host_pid is None and layer_is_free(host.layer)
    closed = host.reader.read_file("app.py")
    assert not closed.ok and closed.content == "error: the layer's file tools are closed (the session is ending)"
