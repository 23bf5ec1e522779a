"""Which tools a model call offers (MODEL-3): those the agent can use now, so a small context holds the prompt.

Every tool schema is part of every request's prefix. The gate tools past
``gate_status`` and ``gate_propose`` do nothing until a gate is in focus
(proposing one puts it there, so they appear on the next call); the
playbook tools past ``playbook_save`` do nothing while no playbook exists
for the model; and of the two tools that edit part of a file, the model's
family gets the one it was trained on (:mod:`ljtui.core.agent.edit_dialect`).
The order never changes, so the prefix stays byte-stable for prompt caching
until one of these facts changes. A call of a tool not offered still runs:
the offer is about the prompt's size, not about permission.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ljtui.core.agent.edit_dialect import AUTO, hidden_edit_tools
from ljtui.core.config import EDIT_TOOLS_CHOICES

if TYPE_CHECKING:
    from ljtui.core.agent.kit import AgentKit
    from ljtui.core.config import Config
    from ljtui.core.providers.base import ToolSpec

GATE_IN_FOCUS = frozenset({"gate_confirm", "gate_start", "gate_check", "gate_verify", "gate_finish", "gate_deliver"})
"""Gate tools offered once a gate is in focus."""
PLAYBOOKS_EXIST = frozenset({"playbook_search", "playbook_get", "playbook_promote", "playbook_feedback"})
"""Playbook tools offered once the model can read a playbook."""


@dataclass(frozen=True)
class Offer:
    """What decides the tools of one model call."""

    gate: bool = True
    """A gate is in focus."""
    playbooks: bool = True
    """A playbook exists that the model may read."""

    def specs(self, specs: tuple[ToolSpec, ...], config: Config) -> tuple[ToolSpec, ...]:
        """``specs`` without the tools this call cannot use, in their order."""
        provider = config.provider
        setting = config.agent.edit_tools if config.agent.edit_tools in EDIT_TOOLS_CHOICES else AUTO
        hidden = set(hidden_edit_tools(setting, provider.name, provider.model))
        if not self.gate:
            hidden |= GATE_IN_FOCUS
        if not self.playbooks:
            hidden |= PLAYBOOKS_EXIST
        return tuple(spec for spec in specs if spec.name not in hidden)


async def offer_now(kit: AgentKit) -> Offer:
    """The offer for the next model call of an agent of ``kit``'s session."""
    gate = bool(await kit.gate_tail())
    services = kit.tools.root.current()[1]
    library = services.playbooks
    if library is None:
        return Offer(gate, False)
    loaded = await asyncio.to_thread(library.load, for_model=True)
    return Offer(gate, bool(loaded.playbooks))
