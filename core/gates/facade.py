"""The engine's gate operations (GATE-3…12), as part of the engine (``self`` is the Engine).

While a gated run is open, :meth:`GateFacade.gated_context` points a tool
call at the run's staging tree: the reader, the outline and the writer are
rebuilt on that root and ``bash`` gets the tree's environment, so every
agent's writes and commands land in the staging tree; the permissions and
the memory stay the session's.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ljtui.core.events import Notice
from ljtui.core.tools import ToolServices

if TYPE_CHECKING:
    from ljtui.core.agent.permissions import Permissions
    from ljtui.core.engine import Engine
    from ljtui.core.gates.model import PlaybookPrior
    from ljtui.core.gates.release import Delivery
    from ljtui.core.gates.service import GateService
    from ljtui.core.gates.view import GateView

STAGED_SERVICES = ("reader", "outline", "writer")
"""The :class:`~ljtui.core.tools.ToolServices` fields rebuilt on the staging tree's root while a gated run is open."""


class GateFacade:
    """Gate operations of the engine."""

    _gates: GateService | None = None
    playbook_in_use: str | None = None
    """The playbook whose SOP the running task plan follows (set by ``run_plan``)."""
    _env = None
    """The environment the user's state dir is found from (``None``: the process's)."""
    _staged: tuple[Path, ToolServices] | None = None

    @property
    def gates(self: Engine) -> GateService:
        """The repository's gates and the run in progress (built on first use)."""
        if self._gates is None:
            from ljtui.core.gates.service import GateService

            self._gates = GateService(self.repo_root, self.sink, self.ask, self.clock, self.sandbox, env=self._env,
                                      check_timeout=lambda: self.config.agent.bash_timeout,
                                      log=self.run_log.emit if self.run_log is not None else None)

            async def offer(title: str, sop: list[str], verification: list[str]) -> object:
                from ljtui.core.playbooks.service import offer_draft

                return await offer_draft(self.playbooks, title, sop, verification)

            self._gates.offer_playbook = offer
            self._gates.family_playbook = self._family_prior
        return self._gates

    def _family_prior(self: Engine) -> PlaybookPrior | None:
        """The record of the playbook whose SOP the running task plan follows (disk work: from a thread)."""
        from ljtui.core.gates.model import PlaybookPrior

        playbook_id = self.playbook_in_use
        record = self.playbooks.record_of(playbook_id) if playbook_id else None
        return PlaybookPrior(playbook_id, record.ok, record.fail) if record is not None and playbook_id else None

    def tool_root(self: Engine) -> tuple[Path, ToolServices]:
        """Where tool calls work now, and the services they reach there."""
        gates = self._gates
        tree = gates.staging_root() if gates is not None and gates.run is not None else None
        if tree is None:
            self._staged = None
            return self.repo_root, self.services
        if self._staged is None or self._staged[0] != tree:
            self._staged = (tree, self._staged_services(tree))
        return self._staged

    def _staged_services(self: Engine, tree: Path) -> ToolServices:
        from ljtui.core.outline.repo_outline import RepoOutline
        from ljtui.core.agent.writer import AgentWriter
        from ljtui.core.gates.workspace import command_env
        from ljtui.core.planner.tools import ReadOnlyTools
        from ljtui.core.secret_files import SecretFiles

        secrets = SecretFiles.allowing(self.config.security.allow_secret_files)
        session = self.services.permissions
        # a proxy: every attribute is the session's permissions', only the question is retitled
        permissions = cast("Permissions", StagedPermissions(session)) if session is not None else None
        return dataclasses.replace(
            self.services, reader=ReadOnlyTools(tree, secrets=secrets), outline=RepoOutline(tree, secrets),
            writer=AgentWriter(tree, self.clock, secrets), permissions=permissions,
            command_env={k: v for k, v in command_env(tree).items() if k.startswith("GIT_")})

    async def gate_tail(self: Engine) -> str:
        """The gate status for the system prompt's tail (after the cached prefix), ``""`` without a gate."""
        gates = self._gates
        if gates is None or gates.current is None:
            return ""
        return await asyncio.to_thread(gates.prompt_section)

    async def gate_view(self: Engine, gate_id: str | None = None) -> GateView | None:
        """The gate ``gate_id`` (default: the one in focus) as the Gates pane shows it."""
        return await asyncio.to_thread(self.gates.view, gate_id)

    async def deliver_gate(self: Engine, gate_id: str | None = None) -> Delivery:
        """Try to deliver the open run's staged change (refused until the gate passes)."""
        from ljtui.core.gates.release import deliver

        return await deliver(self.gates, self.review, gate_id)

    async def verify_gate(self: Engine, turn: int, gate_id: str) -> tuple[str, str]:
        """Run an independent verifier on ``gate_id`` in ``turn`` (``gate_verify``); returns its id and last words."""
        from ljtui.core.gates.verifier import run_verifier

        return await run_verifier(self, turn, gate_id)

    async def check_gate(self: Engine, item: str | None = None, *, failed_only: bool = False) -> None:
        """Run a check from the Gates pane or ``/gates check`` (the user's own, recorded as ``user``)."""
        from ljtui.core.gates.service import USER, GateRefused

        try:
            await self.gates.check(item, USER, failed_only=failed_only)
        except GateRefused as exc:
            self.sink.emit(Notice(str(exc), "error"))

    async def gates_command(self: Engine, text: str) -> tuple[str, list[str]] | None:
        """``/gates TEXT``: returns ``(title, lines)`` to show, or ``None`` when the outcome came as events."""
        from ljtui.core.gates.commands import run_gates_command

        return await run_gates_command(self, text)


class StagedPermissions:
    """The session's permissions, asking with questions that say the action happens in the staging tree."""

    def __init__(self, inner: object) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)

    async def request(self, *, title: str, **asked: object) -> object:
        """Ask as the session does (same grants and allow-lists), the title naming the staging tree."""
        return await self._inner.request(title=f"{title.removesuffix('?')} in the staging tree?",  # type: ignore[attr-defined]
                                         **asked)
