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

APPLY_PATCH = ToolSpec(
    "apply_patch",
    "Edit files with a patch: add, delete, rename and change several files in one call, all or nothing. "
    "`patch` is one envelope:\n\n"
    "    *** Begin Patch\n"
    "    *** Add File: <path>      then the new file's lines, each starting with +\n"
    "    *** Delete File: <path>   nothing follows\n"
    "    *** Update File: <path>   then, optionally, *** Move to: <new path>, then hunks\n"
    "    *** End Patch\n\n"
    "A hunk starts with @@ (optionally followed by a line of the file it comes after, such as a class or "
    "function header); its lines start with ' ' (context), '-' (removed) or '+' (added). Give about 3 lines of "
    "context above and below each change. Context and '-' lines must match the file exactly, byte for byte "
    "(copy them from read_file, with their indentation), and each hunk must apply at exactly one place: when it "
    "would match twice, add context or an @@ line. Paths are relative to the repository root, never absolute. "
    "Asks the user first (they see the diff).",
    {"type": "object", "properties": {
        "patch": {"type": "string",
                  "description": "the whole patch, from '*** Begin Patch' to '*** End Patch'"}},
     "required": ["patch"], "additionalProperties": False},
)
