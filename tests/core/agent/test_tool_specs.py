"""The registry holds every tool's spec as data; a tool's code is imported on its first call."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ljtui.core.agent.tools import TOOLS, agent_tools

FAMILIES = ("files", "code", "edits", "bash", "web", "memory", "playbooks", "gates")

FRESH = """
import asyncio, sys
from pathlib import Path
from ljtui.core.agent.tools import agent_tools
from ljtui.core.config import Config
from ljtui.core.tools import ToolContext
families = [f"ljtui.core.agent.tools.{f}" for f in sys.argv[2].split(",")]
registry = agent_tools()
print(sorted(f for f in families if f in sys.modules))
ctx = ToolContext(Path(sys.argv[1]), 1, "call-1", "chat", lambda event: None, Config())
result = asyncio.run(registry.call("read_file", {"path": "app.py"}, ctx))
print(sorted(f for f in families if f in sys.modules))
print(result.ok, result.summary)
"""


def test_building_the_registry_loads_no_tool_code_and_a_call_loads_its_family(git_repo: Path) -> None:
    done = subprocess.run([sys.executable, "-c", FRESH, str(git_repo), ",".join(FAMILIES)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    before, after, outcome = done.stdout.splitlines()[:3]
    assert before == "[]"
    assert after == "['ljtui.core.agent.tools.files']"
    assert outcome.startswith("False") and "this session has no reader" in outcome  # its code ran: no services


def test_every_entry_names_a_function_of_its_family_with_the_spec_it_registers() -> None:
    import importlib

    for spec, target in TOOLS:
        module, function = target.split(":")
        family = importlib.import_module(f"ljtui.core.agent.tools.{module}")
        assert callable(getattr(family, function)), target
        assert any(tool.spec is spec and tool.run is getattr(family, function) for tool in family.TOOLS), target
    assert agent_tools().specs == tuple(spec for spec, _ in TOOLS)


async def test_a_tool_whose_code_cannot_be_imported_is_a_failed_call_not_a_crash(tmp_path: Path) -> None:
    from ljtui.core.config import Config
    from ljtui.core.providers.base import ToolSpec
    from ljtui.core.tools import Tool, ToolContext, ToolRegistry, imported

    spec = ToolSpec("ghost", "a tool whose module is missing", {"type": "object", "properties": {}})
    registry = ToolRegistry([Tool(spec, imported("ljtui.core.agent.tools.no_such_family:ghost"))])
    ctx = ToolContext(tmp_path, 1, "call-1", "chat", lambda event: None, Config())
    result = await registry.call("ghost", {}, ctx)
    assert not result.ok and "ModuleNotFoundError" in result.content and "no_such_family" in result.content
