"""The code-structure tools: ``get_outline`` and ``find_symbol`` (AGENT-2).

Both read the repository outline (:mod:`ljtui.core.outline`: every
definition with its line and signature, cached in ``.agent/cache/``), so
the model finds code without reading whole files. The session's
:class:`RepoOutline` (the context's ``outline``) also gives the system
prompt its ranked outline; in the layer it is the layer's tool host's
:class:`~ljtui.core.layer.tools.LayerOutline`, which reads the outline of
what commands see.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ljtui.core.layer.tools import LayerOutline
from ljtui.core.outline.repo_outline import RepoOutline
from ljtui.core.secret_files import SecretFiles
from ljtui.core.tools import Tool, ToolContext, ToolResult
from ljtui.core.agent.tools.specs.code import FIND_SYMBOL, GET_OUTLINE


def _service(ctx: ToolContext) -> RepoOutline | LayerOutline:
    """The session's outline (the layer's when it works in one); without one, the repository's, with no secret
    file allowed."""
    service = ctx.services.outline
    return service if isinstance(service, (RepoOutline, LayerOutline)) else RepoOutline(ctx.root, SecretFiles())


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
