"""The engine's MCP part: the session's servers started once, their tools in the session's registry.

:meth:`SessionMcp.start` is called by a front end when the session starts
(the app in a worker after its first frame, ``ljtui run`` before its turn):
it reads which servers may start (the user's, a trusted repository's), starts
them side by side, adds their tools to the registry every agent of the
session uses, and reports each problem as a notice. :meth:`SessionMcp.stop`
ends every server with the session. While servers ljtui started run, git's
executable settings are watched (:mod:`ljtui.core.gitguard`): checked once
they have started, after every call and when they stop.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ljtui.core.event_types import Notice

if TYPE_CHECKING:
    from ljtui.core.confine.session import CommandSandbox
    from ljtui.core.events import Event
    from ljtui.core.gitguard.guard import GitSettingsGuard, GuardReport, Watch
    from ljtui.core.mcp.hub import McpHub, ServerRow
    from ljtui.core.session_state import SessionSettings
    from ljtui.core.tools import ToolRegistry


STARTING = "The MCP servers are still starting; ask again."
"""What ``/mcp`` says before the session's servers have started."""


class SessionMcp:
    """The session's MCP servers (see the module's docstring).

    Args:
        settings: the settings in force (``mcp``, the secrets servers never get).
        root: the repository.
        sandbox: what every stdio server starts through, confined or not (``None``: this session has none).
        emit: reports the notices.
        trusted: whether the repository is trusted now (read in a thread, when the servers start).
        git_guard: watches git's executable settings while the servers run.
    """

    def __init__(self, settings: SessionSettings, root: Path, sandbox: CommandSandbox | None,
                 emit: Callable[[Event], None], trusted: Callable[[], bool] | None = None,
                 git_guard: GitSettingsGuard | None = None) -> None:
        self._settings = settings
        self._git_guard = git_guard
        self._watch: Watch | None = None
        self._root = root
        self._sandbox = sandbox
        self._emit = emit
        self._trusted = trusted or (lambda: _trusted(root))
        """Whether the repository is trusted now (its ``.mcp.json`` servers start only then)."""
        self.hub: McpHub | None = None
        """The servers, once :meth:`start` has read them."""

    async def start(self, registry: ToolRegistry) -> None:
        """Start the session's servers and add their tools to ``registry`` (once; later calls do nothing)."""
        if self.hub is not None:
            return
        hub = self.hub = await asyncio.to_thread(self._hub)
        for line in hub.notices:
            self._emit(Notice(line, "warning"))
        if not hub.servers:
            return
        if self._git_guard is not None and hub.local:
            self._watch = await self._git_guard.begin("the MCP servers")
        for line in await hub.start(registry):
            self._emit(Notice(line, "warning"))
        await self._after_call()
        ready = [row for row in hub.rows() if row.tools]
        if ready:
            tools = sum(len(row.tools) for row in ready)
            names = ", ".join(row.name for row in ready)
            self._emit(Notice(f"MCP: {tools} tool{'s' if tools != 1 else ''} from {names} (/mcp lists them)"))

    def rows(self) -> list[ServerRow]:
        """Every server and its state (none before :meth:`start`)."""
        return self.hub.rows() if self.hub is not None else []

    def listing(self) -> list[str]:
        """What ``/mcp`` shows: each server, its state and its tools (or that they are still starting)."""
        from ljtui.core.mcp.hub import row_lines

        return row_lines(self.hub.rows()) if self.hub is not None else [STARTING]

    async def stop(self) -> None:
        """Stop every server the session started."""
        if self.hub is not None:
            await self.hub.stop()
        if self._git_guard is not None and self._watch is not None:
            watch, self._watch = self._watch, None
            await self._git_guard.end(watch, asking=False)  # the session is closing: put back, and say so

    async def _after_call(self) -> GuardReport | None:
        """The guard's check while the servers run (``None``: nothing changed, or nothing is watched)."""
        if self._git_guard is None or self._watch is None:
            return None
        return await self._git_guard.check(self._watch)

    def _hub(self) -> McpHub:
        from ljtui.core.childenv import child_env
        from ljtui.core.mcp.client import ServerEnvironment
        from ljtui.core.mcp.hub import McpHub

        config = self._settings.config
        if self._sandbox is not None:
            _ = self._sandbox.status  # the backend's self-test runs here, in a thread, not when a server starts
        base = child_env(secrets=self._settings.secrets)  # no credential but what a server's own `env` gives
        where = ServerEnvironment(self._root, self._sandbox, base)
        return McpHub(config.mcp, self._root, where, trusted=self._trusted(), after_call=self._after_call)


def _trusted(root: Path) -> bool:
    from ljtui.core.trust import TrustStore

    return TrustStore.for_env().is_trusted(root)
