"""The code-structure tools: ``get_outline`` and ``find_symbol`` (AGENT-2).

Both read the repository outline (:mod:`ljtui.core.outline`: every
definition with its line and signature, cached in ``.agent/cache/``), so
the model finds code without reading whole files. The session's
:class:`RepoOutline` (the context's ``outline``) also gives the system
prompt its ranked outline.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ljtui.core.outline.repo_outline import RepoOutline
from ljtui.core.providers.base import ToolSpec
from ljtui.core.secret_files import SecretFiles
from ljtui.core.tools import Tool, ToolContext, ToolResult


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
    service = ctx.services.outline
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
