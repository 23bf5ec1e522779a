"""What a session checks as it starts: whether its commands are confined, and whether to trust the repository.

Front ends call both through :class:`~ljtui.core.engine.Engine` (``check_sandbox`` and ``trust_repository``);
the sandbox check takes the session's collaborators as arguments, the question of trust the engine as a
:class:`TrustHost`, so neither reaches more of the engine than it needs.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Protocol

from ljtui.core.events import Notice

if TYPE_CHECKING:
    from ljtui.core.approval import ApprovalRequest, Decision
    from ljtui.core.config import Config
    from ljtui.core.confine.session import CommandSandbox
    from ljtui.core.confine.status import SandboxStatus
    from ljtui.core.ports import Clock, EventSink
    from ljtui.core.session_state import SessionSettings


class TrustHost(Protocol):
    """What the question of trust reads and calls: the engine's."""

    @property
    def repo_root(self) -> Path: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def sink(self) -> EventSink: ...

    async def ask(self, request: ApprovalRequest) -> Decision: ...

    def reconfigure(self, config: Config) -> None: ...


def check_sandbox(sandbox: CommandSandbox, repo_root: Path, settings: SessionSettings,
                  sink: EventSink) -> SandboxStatus:
    """Find the sandbox (a self-test: call from a thread) and report it as a ``SandboxChecked`` event.

    Args:
        sandbox: The sandbox every command of the session runs in.
        repo_root: The session's repository.
        settings: The settings in force (whether a layer was asked for).
        sink: Where the report goes; a warning follows when a layer was asked for and none is in use.

    Returns:
        The sandbox's status.
    """
    from ljtui.core.events import SandboxChecked

    status = sandbox.status
    allows = (sandbox.rules(repo_root, layered=True).describe() if status.confined or sandbox.layered
              else "everything you may do")
    layer = sandbox.layer.status if sandbox.layer is not None else None
    confined = status.confined or (layer is not None and layer.layered)  # the layer's bubblewrap confines too
    sink.emit(SandboxChecked(status.backend, confined, status.why, allows,
                             layer.mode if layer is not None else "direct",
                             layer.why if layer is not None else "no layer in this session"))
    if layer is not None and not layer.layered and settings.config.agent.layer != "off":
        sink.emit(Notice(f"No layer: changes are written to your files directly ({layer.why}).", "warning"))
    return status


async def trust_repository(host: TrustHost, enables: list[str], env: Mapping[str, str],
                           reload: Callable[[], Config]) -> bool:
    """Ask whether to trust ``host``'s repository, whose own settings would do ``enables`` (and what changed since
    the user last trusted it).

    A yes records the settings as asked about, and the configuration is read again (``reload``) and put in force
    (``host.reconfigure``); settings that cannot be recorded are not asked about (a warning says why).

    Args:
        host: The session asking.
        enables: What the repository's own settings would do, as the question lists it.
        env: The environment, which locates the trust store.
        reload: Reads the configuration again once the repository is trusted.

    Returns:
        Whether the repository is now trusted.
    """
    from ljtui.core.trust import TrustStore, trust_request, unbound_notice

    store = TrustStore.for_env(env)
    check = await asyncio.to_thread(store.check, host.repo_root)
    if check.seen.problems:
        host.sink.emit(Notice(unbound_notice(check.seen.problems), "warning"))
        return False
    decision = await host.ask(trust_request(host.repo_root, enables, check.changes))
    if decision.choice != "yes":
        host.sink.emit(Notice("Not trusted: this repository's own settings stay ignored "
                              "(`ljtui trust` asks again).", "warning"))
        return False
    await asyncio.to_thread(lambda: store.trust(host.repo_root, host.clock.now(), check.seen))
    host.reconfigure(await asyncio.to_thread(reload))
    host.sink.emit(Notice(f"Trusted {host.repo_root.name}: its own settings are in use."))
    return True
