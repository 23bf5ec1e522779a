"""The layer's tool: ``propose_commit`` keeps the model's commit message for the change it made in the layer.

The message is only kept (:class:`~ljtui.core.layer.commit.ProposedCommit`);
nothing is committed until the user has applied the change and said yes to
the commit, the message in front of them to edit.
"""

from __future__ import annotations

from typing import Any

from ljtui.core.agent.tools.base import failed, text_arg
from ljtui.core.layer.commit import MAX_MESSAGE_CHARS, message_problem
from ljtui.core.agent.tools.specs.layer import PROPOSE_COMMIT
from ljtui.core.tools import Tool, ToolContext, ToolResult


async def propose_commit(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    message = text_arg(args, "message", empty_ok=False, max_chars=MAX_MESSAGE_CHARS) or ""
    proposed = ctx.services.commit
    if proposed is None or ctx.services.layer_tools is None:
        return failed("this session has no layer: your changes are in the user's files already, and the user "
                      "commits them")
    problem = message_problem(message)
    if problem is not None:
        return failed(problem)
    proposed.propose(message.strip() + "\n")
    subject = message.strip().splitlines()[0]
    return ToolResult(True, "Kept. When the user applies the layer's change they are asked whether to commit the "
                            "files written with this message, which they may edit.", f"proposed: {subject[:80]}")


TOOLS = (Tool(PROPOSE_COMMIT, propose_commit),)
