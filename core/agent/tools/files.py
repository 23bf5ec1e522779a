"""Reading tools: ``read_file``, ``list_files``, ``grep_files``.

One implementation with the read-only planner (:class:`~ljtui.core.planner.tools.ReadOnlyTools`):
the same sandbox, secret-file policy, regex guard, RE2/ripgrep engines and
limits, so the agent and the planner read the repository the same way.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ljtui.core.agent.tools.base import int_arg, text_arg
from ljtui.core.planner.tools import ReadOnlyTools
from ljtui.core.providers.base import ToolSpec
from ljtui.core.tools import Tool, ToolContext, ToolResult, require

MAX_LINE = 10_000_000

READ_FILE = ToolSpec(
    "read_file",
    "Read a text file of the repository, or lines start_line..end_line of it (1-based, inclusive). "
    "Long files are cut; the result says how to read on. Secret files (.env, keys, .git/config) and ljtui's own "
    ".agent/ folder are refused.",
    {"type": "object", "properties": {
        "path": {"type": "string", "description": "path relative to the repository root"},
        "start_line": {"type": "integer", "minimum": 1},
        "end_line": {"type": "integer", "minimum": 1}},
     "required": ["path"], "additionalProperties": False},
)
LIST_FILES = ToolSpec(
    "list_files",
    "List a folder of the repository: sub-folders end in '/', files show their size.",
    {"type": "object", "properties": {
        "path": {"type": "string", "description": "folder relative to the repository root; '.' is the root"}},
     "additionalProperties": False},
)
GREP_FILES = ToolSpec(
    "grep_files",
    "Search file contents with an RE2 regular expression (no backreferences or lookaround); returns "
    "matching lines with their line numbers, at most 100. Binary, huge and secret files are skipped.",
    {"type": "object", "properties": {
        "pattern": {"type": "string"},
        "path": {"type": "string", "description": "file or folder to search; default '.'"}},
     "required": ["pattern"], "additionalProperties": False},
)


def _reader(ctx: ToolContext) -> ReadOnlyTools:
    return require(ctx.services.reader, "reader")


async def read_file(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    path = text_arg(args, "path", empty_ok=False)
    start = int_arg(args, "start_line", minimum=1, maximum=MAX_LINE)
    end = int_arg(args, "end_line", minimum=1, maximum=MAX_LINE)
    return await asyncio.to_thread(_reader(ctx).read_file, path, start, end)


async def list_files(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    path = text_arg(args, "path", required=False) or "."
    return await asyncio.to_thread(_reader(ctx).list_dir, path)


async def grep_files(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    pattern = text_arg(args, "pattern", empty_ok=False)
    path = text_arg(args, "path", required=False) or "."
    return await asyncio.to_thread(_reader(ctx).grep, pattern, path)


TOOLS = (Tool(READ_FILE, read_file), Tool(LIST_FILES, list_files), Tool(GREP_FILES, grep_files))
