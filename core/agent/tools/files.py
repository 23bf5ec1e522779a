"""Reading tools: ``read_file``, ``list_files``, ``grep_files``.

One implementation with the read-only planner (:class:`~ljtui.core.planner.tools.ReadOnlyTools`):
the same sandbox, secret-file policy, regex guard, RE2/ripgrep engines and
limits, so the agent and the planner read the repository the same way. In
a layered session the same code runs in the layer's tool host
(:class:`~ljtui.core.layer.tools.LayerReader`), so the tools read what
commands see.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ljtui.core.agent.tools.base import int_arg, text_arg
from ljtui.core.planner.tools import ReadOnlyTools
from ljtui.core.tools import Tool, ToolContext, ToolResult, require
from ljtui.core.agent.tools.specs.files import GREP_FILES, LIST_FILES, READ_FILE

if TYPE_CHECKING:
    from ljtui.core.layer.tools import LayerReader

MAX_LINE = 10_000_000


def _reader(ctx: ToolContext) -> ReadOnlyTools | LayerReader:
    return require(ctx.services.reader, "reader")


async def read_file(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    path = text_arg(args, "path", empty_ok=False)
    start = int_arg(args, "start_line", minimum=1, maximum=MAX_LINE)
    end = int_arg(args, "end_line", minimum=1, maximum=MAX_LINE)
    return await asyncio.to_thread(_reader(ctx).read_file, path, start, end, list_tool="list_files")


async def list_files(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    path = text_arg(args, "path", required=False) or "."
    return await asyncio.to_thread(_reader(ctx).list_dir, path)


async def grep_files(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    pattern = text_arg(args, "pattern", empty_ok=False)
    path = text_arg(args, "path", required=False) or "."
    return await asyncio.to_thread(_reader(ctx).grep, pattern, path)


TOOLS = (Tool(READ_FILE, read_file), Tool(LIST_FILES, list_files), Tool(GREP_FILES, grep_files))
