"""The specs of the tools for the outline, as data: what the model is shown, loaded without the tools' code
(:mod:`ljtui.core.agent.tools.code`, imported on a tool's first call)."""

from __future__ import annotations

from ljtui.core.providers.base import ToolSpec

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
