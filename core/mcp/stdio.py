"""The stdio transport for an MCP server that ljtui starts: in the session's sandbox, bounded, and stopped whole.

The SDK's own ``stdio_client`` starts the program itself, so it cannot pass
the Landlock ruleset's descriptor to the sandbox's launcher, and it reads
a server's lines without a bound. This transport speaks the same wire
format (one JSON-RPC message per line, read and written through
:mod:`ljtui.core.mcp.sdk`, whichever line of the SDK is installed) and:

* resolves the command on the ``PATH`` the server is given
  (:mod:`ljtui.core.mcp.program`), since the sandbox's launcher does not;
* starts the server through :meth:`~ljtui.core.confine.spawn.Confinement.command`,
  so it runs in the same sandbox as ``bash``, in a session of its own;
* refuses a line over :data:`MAX_MESSAGE_BYTES` (a server cannot make ljtui
  hold an unbounded line) and hands a line that is not JSON-RPC to the
  session as an error, as the SDK does;
* keeps the last :data:`STDERR_TAIL_BYTES` of the server's stderr, read to
  its end once the server has exited (for at most
  :data:`STDERR_DRAIN_SECONDS`), to say why it failed;
* on exit closes the server's stdin, waits :data:`CLOSE_GRACE_SECONDS`, then
  sends SIGTERM and at last SIGKILL to its whole process group, so a server
  that ignores SIGTERM, and the children it started, never outlive ljtui.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from ljtui.core.mcp import sdk
from ljtui.core.mcp.program import resolve_program

if TYPE_CHECKING:
    from ljtui.core.confine.spawn import Confinement

SessionMessage = Any
"""One message as the SDK's session holds it (the SDK's own class, of either line: :mod:`ljtui.core.mcp.sdk`)."""

MAX_MESSAGE_BYTES = 8 * 1024 * 1024
"""Longest line (one message) a server may send."""
STDERR_TAIL_BYTES = 4096
"""How much of a server's stderr is kept to explain a failure."""
CLOSE_GRACE_SECONDS = 2.0
"""How long a server has to exit after its stdin closes, and again after SIGTERM, before the next signal."""
SHOWN_LINE_BYTES = 80
"""How much of a line that is not JSON-RPC the error shows."""
STDERR_DRAIN_SECONDS = 1.0
"""How long the end of a stopped server's stderr is waited for (a child it left may hold the pipe open)."""
STDERR_LINES = 5
"""How many of the last lines of a server's stderr a failure shows."""
STDERR_LINE_CHARS = 300
"""A longer line of it is cut."""


class StderrTail:
    """The last bytes a server wrote to stderr."""

    def __init__(self) -> None:
        self._data = bytearray()

    def add(self, chunk: bytes) -> None:
        self._data += chunk
        del self._data[:-STDERR_TAIL_BYTES]

    @property
    def lines(self) -> list[str]:
        """Its last :data:`STDERR_LINES` lines that are not blank, each cut to :data:`STDERR_LINE_CHARS`."""
        lines = [line.rstrip() for line in self._data.decode("utf-8", "replace").splitlines() if line.strip()]
        return [line if len(line) <= STDERR_LINE_CHARS else line[:STDERR_LINE_CHARS - 1] + "…"
                for line in lines[-STDERR_LINES:]]


class MessageTooLong(ValueError):
    """A server sent a line over :data:`MAX_MESSAGE_BYTES`."""


Streams = tuple["MemoryObjectReceiveStream[SessionMessage | Exception]", "MemoryObjectSendStream[SessionMessage]"]
"""What the SDK's session reads from and writes to."""


@asynccontextmanager
async def confined_stdio(argv: list[str], *, cwd: Path, env: Mapping[str, str], confinement: Confinement | None,
                         stderr: StderrTail) -> AsyncIterator[Streams]:
    """Start ``argv`` and yield the SDK's pair of streams to it; stop it, and everything it started, on exit.

    Raises:
        ProgramNotFound: ``argv[0]`` names no program on the ``PATH`` of ``env`` (or at its path).
        OSError: the program could not start.
    """
    program = resolve_program(argv[0], env=env, cwd=cwd)
    process = await _start([program, *argv[1:]], cwd=cwd, env=env, confinement=confinement)
    incoming_writer, incoming = anyio.create_memory_object_stream["SessionMessage | Exception"](0)
    outgoing, outgoing_reader = anyio.create_memory_object_stream["SessionMessage"](0)
    stderr_read = anyio.Event()
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_read_messages, process, incoming_writer)
            tasks.start_soon(_write_messages, process, outgoing_reader)
            tasks.start_soon(_read_stderr, process, stderr, stderr_read)
            try:
                yield incoming, outgoing
            finally:
                await _stop(process, stderr_read)
                tasks.cancel_scope.cancel()
    finally:
        for stream in (incoming, outgoing, incoming_writer, outgoing_reader):
            await stream.aclose()


async def _start(argv: list[str], *, cwd: Path, env: Mapping[str, str],
                 confinement: Confinement | None) -> anyio.abc.Process:
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    if confinement is None:
        return await anyio.open_process(argv, cwd=cwd, env=dict(env), start_new_session=True, **pipes)
    with confinement.command(argv, cwd=cwd, env=env) as (wrapped, environment, fds):
        return await anyio.open_process(wrapped, cwd=cwd, env=environment, pass_fds=fds, start_new_session=True,
                                        **pipes)


async def _read_messages(process: anyio.abc.Process,
                         out: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
    assert process.stdout is not None
    buffer = bytearray()
    try:
        async with out:
            async for chunk in process.stdout:
                buffer += chunk
                while (end := buffer.find(b"\n")) >= 0:
                    line = bytes(buffer[:end])
                    del buffer[:end + 1]
                    if line.strip():
                        await out.send(_message(line))
                if len(buffer) > MAX_MESSAGE_BYTES:
                    await out.send(MessageTooLong(f"the server sent a message over {MAX_MESSAGE_BYTES:,} bytes"))
                    return
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass


def _message(line: bytes) -> SessionMessage | Exception:
    try:
        return sdk.decode(line)
    except Exception:  # the session reports it; the line is garbage, not a fault of ljtui
        start = line[:SHOWN_LINE_BYTES].decode("utf-8", "replace")
        cut = "…" if len(line) > SHOWN_LINE_BYTES else ""
        return ValueError(f"the server sent a line that is not JSON-RPC: {start!r}{cut}")


async def _write_messages(process: anyio.abc.Process, messages: MemoryObjectReceiveStream[SessionMessage]) -> None:
    assert process.stdin is not None
    try:
        async with messages:
            async for message in messages:
                await process.stdin.send(sdk.encode(message) + b"\n")
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass


async def _read_stderr(process: anyio.abc.Process, tail: StderrTail, done: anyio.Event) -> None:
    assert process.stderr is not None
    try:
        async for chunk in process.stderr:
            tail.add(chunk)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    finally:
        done.set()


async def _stop(process: anyio.abc.Process, stderr_read: anyio.Event) -> None:
    """Close stdin, then SIGTERM, then SIGKILL the server's process group, each after a grace period; then read
    its stderr to the end (bounded) and close its pipes."""
    with anyio.CancelScope(shield=True):
        if process.stdin is not None:
            try:
                await process.stdin.aclose()
            except (OSError, anyio.BrokenResourceError):
                pass
        for sent in (None, signal.SIGTERM, signal.SIGKILL):
            if sent is not None:
                _signal_group(process.pid, sent)
            with anyio.move_on_after(CLOSE_GRACE_SECONDS):
                await process.wait()
            if process.returncode is not None:
                break
        _signal_group(process.pid, signal.SIGKILL)  # what it left running in its group
        with anyio.move_on_after(STDERR_DRAIN_SECONDS):
            await stderr_read.wait()
        with anyio.move_on_after(CLOSE_GRACE_SECONDS):
            await process.aclose()  # its pipes, so no transport is left for the collector


def _signal_group(pid: int, sent: signal.Signals) -> None:
    try:
        os.killpg(pid, sent)
    except (ProcessLookupError, PermissionError):
        pass
