"""The specs of the tools for reading files, as data: what the model is shown, loaded without the tools' code
(:mod:`ljtui.core.agent.tools.files`, imported on a tool's first call)."""

from __future__ import annotations

from ljtui.core.providers.base import ToolSpec

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
