"""Helpers for the agent's tests: a bash tool harness (real permissions, a scripted approver), process checks, waiting."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ljtui.core.agent.permissions import PermissionPolicy, Permissions
from ljtui.core.agent.tools import bash
from ljtui.core.approval import Decision, ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.events import Event, ToolOutput
from ljtui.core.confine.session import CommandSandbox
from ljtui.core.tools import ToolContext, ToolRegistry, ToolResult, ToolServices
from tests.core.confine.helpers import default_sandbox

WAIT_SECONDS = 60.0
"""Longest a test waits for a condition (a loaded CI box is slow, never this slow)."""
POLL_SECONDS = 0.02


@dataclass
class Harness:
    """One session's bash tool, as the engine would wire it."""

    root: Path
    approver: ScriptedApprover
    config: Config
    events: list[Event] = field(default_factory=list)
    hooks: list[Callable[[Event], None]] = field(default_factory=list)
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    registry: ToolRegistry = field(default_factory=lambda: ToolRegistry(list(bash.TOOLS)))
    sandbox_factory: Callable[[Path], CommandSandbox] = field(
        default=lambda root: default_sandbox(root, temp_parent=root.parent))

    def __post_init__(self) -> None:
        agent = self.config.agent
        policy = PermissionPolicy(frozenset(agent.allow_tools), tuple(agent.allow_commands))
        self.permissions = Permissions(self.approver.decide, self.emit, policy)
        self.sandbox = self.sandbox_factory(self.root)

    def emit(self, event: Event) -> None:
        self.events.append(event)
        for hook in self.hooks:
            hook(event)

    def context(self, call_id: str = "call-1") -> ToolContext:
        return ToolContext(self.root, 1, call_id, "chat", self.emit, self.config,
                           ToolServices(permissions=self.permissions, sandbox=self.sandbox), self.cancelled)

    async def call(self, **args: Any) -> ToolResult:
        return await self.registry.call("bash", args, self.context())

    @property
    def outputs(self) -> list[ToolOutput]:
        return [e for e in self.events if isinstance(e, ToolOutput)]


def harness(root: Path, *, answers: list[str | Decision] | None = None, allow_commands: tuple[str, ...] = (),
            bash_timeout: float | None = None, sandbox: Callable[[Path], CommandSandbox] | None = None) -> Harness:
    """A harness whose approver gives ``answers`` to permission requests in turn (then denies); its commands run
    in this machine's default sandbox unless ``sandbox`` makes another."""
    config = Config()
    config.agent.allow_commands = list(allow_commands)
    if bash_timeout is not None:
        config.agent.bash_timeout = bash_timeout
    approver = ScriptedApprover({"permission": list(answers or [])})
    if sandbox is not None:
        return Harness(root, approver, config, sandbox_factory=sandbox)
    return Harness(root, approver, config)


def running(pid: int) -> bool:
    """Whether process ``pid`` still runs.

    A killed process whose parent died first is reparented to pid 1, and some
    container inits never reap: ``os.kill(pid, 0)`` then still finds a zombie,
    which runs nothing and holds no resources but its table entry. That
    zombie is never ours (see :func:`our_zombie`).
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state, _ = _stat(pid)
    return state not in (b"Z", b"X", None)


def our_zombie(pid: int) -> bool:
    """Whether ``pid`` is a zombie this test process failed to reap."""
    state, parent = _stat(pid)
    return state == b"Z" and parent == os.getpid()


def parent_of(pid: int) -> int | None:
    """The parent of process ``pid`` (``None`` once it is gone)."""
    return _stat(pid)[1]


def processes_in(folder: Path) -> list[int]:
    """Running processes whose working folder is ``folder`` (a zombie has none)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.readlink(f"/proc/{name}/cwd") == os.path.realpath(folder):
                found.append(int(name))
        except OSError:
            continue
    return found


def _stat(pid: int) -> tuple[bytes | None, int | None]:
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None, None
    fields = raw[raw.rfind(b")") + 2:].split()
    return fields[0], int(fields[1])


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait until ``condition()`` holds; fail naming ``what`` after :data:`WAIT_SECONDS`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(POLL_SECONDS)


def read_pid(path: Path) -> int:
    return int(path.read_text(encoding="utf-8").strip())


def outer_pid(path: Path) -> int:
    """The pid, as this test sees it, of the running process whose own pid is written in ``path`` and whose working
    folder is ``path``'s: a command in a pid namespace writes the pid it sees there."""
    written = read_pid(path)
    for pid in processes_in(path.parent):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        nspids = next((line.split()[1:] for line in status.splitlines() if line.startswith("NSpid:")), [str(pid)])
        if nspids[-1] == str(written):
            return pid
    raise AssertionError(f"no running process in {path.parent} has pid {written} in its own namespace")


IGNORES_TERM = ("(trap '' TERM; echo $BASHPID > child.pid.tmp; mv child.pid.tmp child.pid; exec sleep 1000) & "
                "until [ -s child.pid ]; do sleep 0.01; done; echo started; wait")
"""A command whose background child ignores SIGTERM and holds the output pipe; it prints ``started`` (and
``child.pid`` exists) only once the child has set its trap, so no SIGTERM can reach it earlier."""
