"""The code-structure tools: ``get_outline`` and ``find_symbol`` (AGENT-2).

Both read the repository outline (:mod:`ljtui.core.outline`: every
definition with its line and signature, cached in ``.agent/cache/``), so
the model finds code without reading whole files. The session's
:class:`RepoOutline` (the ``outline`` service) also gives the system
prompt its ranked outline.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ljtui.core.outline import DEFAULT_BUDGET_TOKENS, build_index, find_symbol, outline, render_outline
from ljtui.core.providers.base import ToolSpec
from ljtui.core.secret_files import SecretFiles
from ljtui.core.tools import Tool, ToolContext, ToolResult

OUTLINE = "outline"
"""The service name of the session's :class:`RepoOutline`."""


class RepoOutline:
    """The outline of one repository, as the session's secret-file policy allows it to be read."""

    def __init__(self, root: Path, secrets: SecretFiles, budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> None:
        self.root = root
        self.secrets = secrets
        self.budget_tokens = budget_tokens

    def prompt_text(self) -> str:
        """The ranked outline cut to the token budget, for the system prompt (disk work: call from a thread)."""
        return render_outline(build_index(self.root, secrets=self.secrets), budget_tokens=self.budget_tokens).text

    def outline(self, path: Any) -> Any:
        return outline(self.root, path, secrets=self.secrets)

    def find(self, name: Any) -> Any:
        return find_symbol(self.root, name, secrets=self.secrets)


GET_OUTLINE = ToolSpec(
    "get_outline",
    "The definitions (classes, functions, methods…) of a file or folder, each with its line and signature, "
    "or of the whole repository when `path` is left out. Use it to find your way before reading files; "
    "then read_file with start_line/end_line.",
    {"type": "object",
     "properties": {"path": {"type": "string", "description": "a file or folder relative to the repository root"}},
     "additionalProperties": False},
)

FIND_SYMBOL = ToolSpec(
    "find_symbol",
    "Where a definition is: `send`, `Uploader.send`, a prefix such as `Upl`, or `Uploader.` for its members. "
    "Exact qualified names come first.",
    {"type": "object",
     "properties": {"name": {"type": "string", "description": "a name, qualified name or prefix"}},
     "required": ["name"], "additionalProperties": False},
)


def _service(ctx: ToolContext) -> RepoOutline:
    service = ctx.services.get(OUTLINE)
    return service if isinstance(service, RepoOutline) else RepoOutline(ctx.root, SecretFiles())


def _result(view: Any, what: str) -> ToolResult:
    if view.error:
        return ToolResult(False, f"error: {view.error}", view.error.splitlines()[0][:160])
    return ToolResult(True, view.text, what)


async def get_outline(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    view = await asyncio.to_thread(_service(ctx).outline, args.get("path"))
    return _result(view, f"{len(view.symbols)} definition(s)")


async def find(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    found = await asyncio.to_thread(_service(ctx).find, args.get("name"))
    return _result(found, f"{len(found.matches)} match(es)")


TOOLS = (Tool(GET_OUTLINE, get_outline), Tool(FIND_SYMBOL, find))
