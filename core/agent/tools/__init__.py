"""The agent's tools (AGENT-2), one module per family; :func:`agent_tools` builds the registry.

Each family's specs are data in :mod:`ljtui.core.agent.tools.specs`; the registry holds them and imports a
family's code on the first call of one of its tools. A new tool is one module (or a function in a family's),
its spec, and one line in :data:`TOOLS`. The order is fixed: the tool list is part of the cached prompt prefix.
"""

from __future__ import annotations

from ljtui.core.agent.tools.specs import bash as bash_specs
from ljtui.core.agent.tools.specs import code as code_specs
from ljtui.core.agent.tools.specs import edits as edit_specs
from ljtui.core.agent.tools.specs import files as file_specs
from ljtui.core.agent.tools.specs import gates as gate_specs
from ljtui.core.agent.tools.specs import layer as layer_specs
from ljtui.core.agent.tools.specs import memory as memory_specs
from ljtui.core.agent.tools.specs import playbooks as playbook_specs
from ljtui.core.agent.tools.specs import web as web_specs
from ljtui.core.providers.base import ToolSpec
from ljtui.core.tools import Tool, ToolRegistry, imported

FAMILY = "ljtui.core.agent.tools."

TOOLS: tuple[tuple[ToolSpec, str], ...] = (
    (file_specs.READ_FILE, "files:read_file"),
    (file_specs.LIST_FILES, "files:list_files"),
    (file_specs.GREP_FILES, "files:grep_files"),
    (code_specs.GET_OUTLINE, "code:get_outline"),
    (code_specs.FIND_SYMBOL, "code:find"),
    (edit_specs.WRITE_FILE, "edits:write_file"),
    (edit_specs.EDIT_FILE, "edits:edit_file"),
    (edit_specs.APPLY_PATCH, "edits:apply_patch"),
    (edit_specs.CREATE_DIRECTORY, "edits:create_directory"),
    (bash_specs.BASH, "bash:bash"),
    (layer_specs.PROPOSE_COMMIT, "layer:propose_commit"),
    (web_specs.WEB_SEARCH, "web:web_search"),
    (web_specs.WEB_FETCH, "web:web_fetch"),
    (memory_specs.SAVE_MEMORY, "memory:save_memory"),
    (playbook_specs.PLAYBOOK_SAVE, "playbooks:playbook_save"),
    (playbook_specs.PLAYBOOK_SEARCH, "playbooks:playbook_search"),
    (playbook_specs.PLAYBOOK_GET, "playbooks:playbook_get"),
    (playbook_specs.PLAYBOOK_PROMOTE, "playbooks:playbook_promote"),
    (playbook_specs.PLAYBOOK_FEEDBACK, "playbooks:playbook_feedback"),
    (gate_specs.STATUS, "gates:gate_status"),
    (gate_specs.PROPOSE, "gates:gate_propose"),
    (gate_specs.CONFIRM, "gates:gate_confirm"),
    (gate_specs.START, "gates:gate_start"),
    (gate_specs.CHECK, "gates:gate_check"),
    (gate_specs.VERIFY, "gates:gate_verify"),
    (gate_specs.FINISH, "gates:gate_finish"),
    (gate_specs.DELIVER, "gates:gate_deliver"),
)
"""Every tool of the conversation agent: its spec and where its code is (``module:function`` in a family)."""


def agent_tools() -> ToolRegistry:
    """Every tool of the conversation agent, in a stable order, none of their code loaded yet."""
    return ToolRegistry([Tool(spec, imported(FAMILY + target)) for spec, target in TOOLS])
