"""``ljtui acp``: run as an Agent Client Protocol agent on stdin and stdout, for an editor to drive.

An ACP client (Zed, a JetBrains IDE, Neovim's or Emacs' ACP plugins, Toad …) starts this command and speaks
JSON-RPC to it; :mod:`ljtui.acp_agent` says what each method does. The protocol owns the two streams: before
it starts they are moved to descriptors of their own, standard output then goes to standard error and standard
input reads nothing, so no line printed by ljtui or a program it runs can break a message. The model flags
(``--provider``, ``--model``, ``--base-url``, ``--script``) set the model of every session, as in ``ljtui``.

A session's ``cwd`` (``session/new``, ``session/load``) that is ``/``, the home folder or a folder holding ljtui's
own config or state is refused with a JSON-RPC error naming why (:mod:`ljtui.core.session_root`).

Exit status: 0 the client closed the connection; 2 a usage error (``--repo`` naming such a folder too).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import stat
import sys
import threading
from pathlib import Path

from ljtui.cli.main import add_model_flags, model_overrides, refused_root

EXIT_OK = 0
EXIT_USAGE = 2
PROG = "ljtui acp"
LINE_LIMIT = 64 << 20
"""Longest JSON-RPC line read from the client (a prompt embedding large files)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``acp`` command."""
    parser = subparsers.add_parser(
        "acp", help="speak the Agent Client Protocol on stdin/stdout, for an editor to drive",
        description="Run as an ACP agent: an editor starts this command and drives sessions in the repository "
                    "holding each session's directory, with every question asked through the editor.")
    add_model_flags(parser, repo_help="open sessions only in this repository (a session elsewhere is refused); "
                                      "by default each session works in the repository holding its directory")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ljtui.core.edits.paths import find_repo_root
    from ljtui.core.provider_keys import environment

    if args.script and not args.provider:
        args.provider = "scripted"
    env = dict(environment())
    overrides = {k: v for k, v in model_overrides(args).items() if v is not None}
    only = getattr(args, "repo", None)
    if only is not None:
        start, only = only, find_repo_root(only.resolve())
        if refused_root(PROG, only, start):
            return EXIT_USAGE
    reading, writing = _protocol_streams()
    try:
        asyncio.run(_serve(reading, writing, env, overrides, only))
    except KeyboardInterrupt:
        pass
    return EXIT_OK


def _protocol_streams() -> tuple[int, int]:
    """Move standard input and output to descriptors of their own for the protocol; from now on descriptor 1 is
    standard error and descriptor 0 is empty."""
    reading, writing = os.dup(0), os.dup(1)
    os.set_inheritable(reading, False)
    os.set_inheritable(writing, False)
    empty = os.open(os.devnull, os.O_RDONLY)
    os.dup2(empty, 0)
    os.close(empty)
    sys.stdout.flush()
    os.dup2(2, 1)
    return reading, writing


async def _serve(reading: int, writing: int, env: dict[str, str], overrides: dict[str, object],
                 only: Path | None) -> None:
    from acp.agent.connection import AgentSideConnection

    from ljtui.acp_agent.agent import LjtuiAgent

    reader, writer = await _streams(reading, writing)
    agent = LjtuiAgent(env, overrides, only=only)
    conn = AgentSideConnection(agent, writer, reader, listening=False)
    try:
        await conn.listen()
    finally:
        await agent.close()
        await conn.close()


async def _streams(reading: int, writing: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Asyncio streams on the protocol's descriptors: pipes and sockets (as an editor starts an agent) without
    blocking; a regular file (a recorded session replayed, output kept in a file) read in a thread and written
    directly."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    if _is_stream(reading):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(reading, "rb", 0))
    else:
        threading.Thread(target=_feed, args=(loop, reader, reading), daemon=True).start()
    protocol = asyncio.streams.FlowControlMixin()
    transport: asyncio.BaseTransport
    if _is_stream(writing):
        transport, _ = await loop.connect_write_pipe(lambda: protocol, os.fdopen(writing, "wb", 0))
    else:
        transport = _FileTransport(writing)
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)  # type: ignore[arg-type]


def _is_stream(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


def _feed(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader, fd: int) -> None:
    with os.fdopen(fd, "rb") as source:
        for line in source:
            loop.call_soon_threadsafe(reader.feed_data, line)
    loop.call_soon_threadsafe(reader.feed_eof)


class _FileTransport(asyncio.WriteTransport):
    """Writes straight to a descriptor that is a regular file (which never blocks for long)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self._closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        self._closing = True
