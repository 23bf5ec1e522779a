"""The specs of the tools for writing files, as data: what the model is shown, loaded without the tools' code
(:mod:`ljtui.core.agent.tools.edits`, imported on a tool's first call)."""

from __future__ import annotations

from ljtui.core.providers.base import ToolSpec

WRITE_FILE = ToolSpec(
    "write_file",
    "Create a file, or replace a whole file, with `content`. Asks the user first (they see the diff). "
    "Prefer edit_file to change part of an existing file.",
    {"type": "object", "properties": {
        "path": {"type": "string", "description": "path relative to the repository root"},
        "content": {"type": "string", "description": "the file's complete new content"}},
     "required": ["path", "content"], "additionalProperties": False},
)

EDIT_FILE = ToolSpec(
    "edit_file",
    "Replace `old` with `new` in a file. `old` must occur exactly once, byte for byte (copy it from "
    "read_file, with its indentation); an `old` that ends with a line break or starts with whitespace matches "
    "only at the start of a line. An empty `old` creates the file. Asks the user first (they see the diff).",
    {"type": "object", "properties": {
        "path": {"type": "string"}, "old": {"type": "string"}, "new": {"type": "string"}},
     "required": ["path", "old", "new"], "additionalProperties": False},
)

CREATE_DIRECTORY = ToolSpec(
    "create_directory",
    "Create a folder (and any missing parents) inside the repository. Asks the user first.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"],
     "additionalProperties": False},
)
