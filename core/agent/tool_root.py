"""Where the tools of a session work now: the repository (through its layer, where there is one), or the staging
tree of an open gated run.

While a gated run is open, :meth:`ToolRoot.current` points a tool call at the
run's staging tree: the reader, the outline and the writer are rebuilt on that
root and ``bash`` gets the tree's git ceiling, so every agent's writes and
commands land in the staging tree; the permissions (asking with questions
that name the staging tree) and the memory stay the session's.

Otherwise, in a session with a layer, the reader, the outline and the write
tools are the layer's (:class:`~ljtui.core.layer.tools.LayerTools`): they read
and write what the commands see, in the layer.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Callable, cast

from ljtui.core.session_state import SessionSettings
from ljtui.core.ports import Clock
from ljtui.core.tools import ToolServices

if TYPE_CHECKING:
    from ljtui.core.agent.permissions import Permissions
    from ljtui.core.layer.service import Layer

STAGED_SERVICES = ("reader", "outline", "writer")
"""The :class:`~ljtui.core.tools.ToolServices` fields rebuilt on the staging tree's root while a gated run is open."""


class ToolRoot:
    """The root and services of the repository at ``root``, or of the tree ``staging`` names (``None``: no run
    is staging)."""

    def __init__(self, root: Path, services: ToolServices, *, settings: SessionSettings, clock: Clock,
                 staging: Callable[[], Path | None], layer: Layer | None = None) -> None:
        self.root = root
        self.services = services
        self._settings = settings
        self._clock = clock
        self._staging = staging
        self._staged: tuple[Path, ToolServices] | None = None
        self._layer = layer
        self._layered: ToolServices | None = None

    async def prepare(self) -> None:
        """Find whether the session works in a layer (a probe of some milliseconds, once, in a thread)."""
        layer = self._layer
        if layer is not None and layer.known_status is None:
            await asyncio.to_thread(lambda: layer.status)

    def current(self) -> tuple[Path, ToolServices]:
        """Where tool calls work now, and the services they reach there."""
        tree = self._staging()
        if tree is None:
            self._staged = None
            return self.root, self._in_layer() or self.services
        if self._staged is None or self._staged[0] != tree:
            self._staged = (tree, self._on(tree))
        return self._staged

    def _in_layer(self) -> ToolServices | None:
        """The session's services with the layer's file tools, when the session works in a layer."""
        layer = self._layer
        status = layer.known_status if layer is not None else None
        if layer is None or status is None or not status.layered:
            return None
        if self._layered is None:
            from ljtui.core.layer.place import layer_key
            from ljtui.core.outline import DEFAULT_BUDGET_TOKENS
            from ljtui.core.layer.tools import LayerTools
            from ljtui.core.planner.grep import GREP_TIMEOUT_S
            from ljtui.core.secret_files import SecretFiles
            from ljtui.core.userdirs import user_cache_dir

            outline_budget = getattr(self.services.outline, "budget_tokens", None)
            tools = LayerTools(layer, secrets=SecretFiles.allowing(self._settings.config.security.allow_secret_files),
                               grep_engine="auto", grep_timeout=GREP_TIMEOUT_S, handbook_dir=None,
                               outline_budget=outline_budget or DEFAULT_BUDGET_TOKENS,
                               cache_dir=user_cache_dir() / "layer" / layer_key(layer.repo))
            self._layered = dataclasses.replace(self.services, reader=tools.reader, outline=tools.outline,
                                                layer_tools=tools)
        return self._layered

    def close(self) -> None:
        """Stop the layer's tool host, if one runs (it records what it wrote first)."""
        if self._layered is not None and self._layered.layer_tools is not None:
            self._layered.layer_tools.close()

    def _on(self, tree: Path) -> ToolServices:
        from ljtui.core.agent.writer import AgentWriter
        from ljtui.core.gates.workspace import command_env
        from ljtui.core.outline.repo_outline import RepoOutline
        from ljtui.core.planner.tools import ReadOnlyTools
        from ljtui.core.secret_files import SecretFiles

        secrets = SecretFiles.allowing(self._settings.config.security.allow_secret_files)
        session = self.services.permissions
        # a proxy: every attribute is the session's permissions', only the question is retitled
        permissions = cast("Permissions", StagedPermissions(session)) if session is not None else None
        return dataclasses.replace(
            self.services, reader=ReadOnlyTools(tree, secrets=secrets), outline=RepoOutline(tree, secrets),
            writer=AgentWriter(tree, self._clock, secrets), permissions=permissions,
            command_env={k: v for k, v in command_env(tree).items() if k.startswith("GIT_")})


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
