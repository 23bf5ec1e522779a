"""The agent's tools (AGENT-2), one module per family; :func:`agent_tools` builds the registry.

The order is fixed: the tool list is part of the cached prompt prefix.
"""

from __future__ import annotations

from ljtui.core.tools import ToolRegistry


def agent_tools() -> ToolRegistry:
    """Every tool of the conversation agent, in a stable order."""
    from ljtui.core.agent.tools import bash, code, edits, files, gates, memory, playbooks, web

    return ToolRegistry([*files.TOOLS, *code.TOOLS, *edits.TOOLS, *bash.TOOLS, *web.TOOLS, *memory.TOOLS,
                         *playbooks.TOOLS, *gates.TOOLS])
