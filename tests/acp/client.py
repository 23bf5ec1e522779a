"""The ACP SDK's own client driving ``ljtui acp`` as a subprocess, with a scripted model.

:class:`Editor` plays the editor: it records every ``session/update`` and answers each
``session/request_permission`` with the option of the kind its ``answer`` picks (``id=ID``: that option id,
offered or not; ``None``: the request is cancelled).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestPermissionResponse, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import AllowedOutcome, ClientCapabilities, DeniedOutcome, FileSystemCapabilities

WAIT_SECONDS = 60.0
"""Longest wait for the agent to reach a state (a fresh process on a loaded machine)."""
KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")

Answer = Callable[[Any, list[Any]], str | None]


def allow_once(tool_call: Any, options: list[Any]) -> str | None:
    return "allow_once"


class Editor:
    """An ACP client that records what the agent sends and answers its questions."""

    def __init__(self, answer: Answer = allow_once) -> None:
        self.answer = answer
        self.updates: list[Any] = []
        self.asked: list[tuple[Any, list[Any]]] = []
        self.written: list[Any] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **kwargs: Any) -> RequestPermissionResponse:
        self.asked.append((tool_call, options))
        kind = self.answer(tool_call, options)
        if kind is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        option_id = kind[3:] if kind.startswith("id=") else next(o.option_id for o in options if o.kind == kind)
        return RequestPermissionResponse(outcome=AllowedOutcome(option_id=option_id, outcome="selected"))

    async def write_text_file(self, *args: Any, **kwargs: Any) -> None:  # offered, and never to be used
        self.written.append((args, kwargs))

    async def read_text_file(self, *args: Any, **kwargs: Any) -> None:
        self.written.append((args, kwargs))

    def on_connect(self, conn: Any) -> None:
        pass

    def of(self, kind: str) -> list[Any]:
        """The updates of ``kind`` (``agent_message_chunk``, ``tool_call``, ``plan`` …), in order."""
        return [u for u in self.updates if u.session_update == kind]

    def said(self) -> str:
        return "".join(u.content.text for u in self.of("agent_message_chunk"))

    def call(self, tool_call_id: str) -> list[Any]:
        """Every update of one tool call, its start first."""
        return [u for u in self.updates if getattr(u, "tool_call_id", None) == tool_call_id]

    async def until(self, condition: Callable[[], bool], what: str) -> None:
        deadline = asyncio.get_running_loop().time() + WAIT_SECONDS
        while not condition():
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"timed out waiting for {what}; updates: {self.updates}")
            await asyncio.sleep(0.02)


@asynccontextmanager
async def ljtui_acp(repo: Path, script: Path, editor: Editor,
                    *flags: str) -> AsyncIterator[tuple[ClientSideConnection, Any]]:
    """``ljtui acp`` started in ``repo`` with the scripted model, initialized as an editor offering its files and
    terminals; yields the connection and the initialize response."""
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    async with spawn_agent_process(editor, sys.executable, "-m", "ljtui.cli.main", "acp", "--provider", "scripted",
                                   "--script", str(script), *flags, env=env, cwd=str(repo)) as (conn, _process):
        capabilities = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                                          terminal=True)
        hello = await asyncio.wait_for(conn.initialize(protocol_version=PROTOCOL_VERSION,
                                                       client_capabilities=capabilities), WAIT_SECONDS)
        yield conn, hello
