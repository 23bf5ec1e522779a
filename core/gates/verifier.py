"""The independent verifier of an L3 gate (GATE-6).

A separate agent the session starts: its own history, read-only tools plus
``gate_check`` and ``gate_status``, and an id the engine makes
(``verifier-<hex>``). Its checks are recorded with ``verifier: <id>``; it
cannot write, and it cannot finish the gate.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from ljtui.core.agent.kit import AgentKit
from ljtui.core.agent.model_calls import TurnTally
from ljtui.core.gates.status import prompt_section
from ljtui.core.providers.base import ChatRequest, Message, TextBlock, ToolUseBlock
from ljtui.core.secrets import redact_message
from ljtui.core.tools import ToolRegistry

if TYPE_CHECKING:
    from ljtui.core.gates.view import GateView

VERIFIER_SCRIPT_AGENT = "verifier"
"""The agent name a scripted provider replays for every verifier."""
READ_ONLY_TOOLS = ("read_file", "list_files", "grep_files", "get_outline", "find_symbol")
VERIFIER_TOOLS = ("gate_status", "gate_check")
ID_HEX = 8
VERIFIER_SYSTEM = """You are an independent verifier for a delivery gate. Another agent did the work; you did not.
Do not trust its claims. Read what you need, then run gate_check on the gate's required items so the engine
records objective evidence. You cannot write files or finish the gate. End with a short verdict: which items
passed, which failed, and anything that looked wrong."""


def verifier_id() -> str:
    """A fresh verifier agent id."""
    return f"verifier-{secrets.token_hex(ID_HEX // 2)}"


async def run_verifier(kit: AgentKit, view: GateView | None, turn: int, gate_id: str) -> tuple[str, str]:
    """Run a verifier on ``gate_id`` (the gate in focus reads ``view``) to its end; returns its id and its last
    words."""
    agent = verifier_id()
    own = kit.tools.tools
    tools = ToolRegistry([t for t in (own.get(n) for n in (*READ_ONLY_TOOLS, *VERIFIER_TOOLS)) if t])
    history: list[Message] = [Message.user(f"Verify gate {gate_id}.\n\n{prompt_section(view)}")]
    said = ""
    config = kit.settings.config
    for _ in range(config.agent.max_iterations):
        request = ChatRequest(kit.context.system + "\n\n" + VERIFIER_SYSTEM, tuple(history), tools.specs,
                              config.provider.max_tokens, agent=VERIFIER_SCRIPT_AGENT)
        text, calls, _ = await kit.model.call(turn, request, TurnTally(), quiet=True)
        said = text.strip() or said
        blocks: list[Any] = [TextBlock(text)] if text else []
        blocks += [ToolUseBlock(c.id, c.name, c.input) for c in calls]
        history.append(redact_message(Message("assistant", tuple(blocks)), kit.settings.secrets))
        if not calls:
            break
        results = [await kit.tools.run(turn, call, tools, agent) for call in calls]
        history.append(Message("user", tuple(results)))
    return agent, said
