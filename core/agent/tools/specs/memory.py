"""The specs of the tools for the long-term memory, as data: what the model is shown, loaded without the tools' code
(:mod:`ljtui.core.agent.tools.memory`, imported on a tool's first call)."""

from __future__ import annotations

from ljtui.core.agent.memory import MAX_ENTRY_CHARS, MEMORY_PATH
from ljtui.core.providers.base import ToolSpec

TOOL_NAME = "save_memory"

SAVE_MEMORY = ToolSpec(
    TOOL_NAME,
    "Save a short note for future sessions in this repository (user preferences, project facts, decisions). "
    f"The user is asked first and sees the exact text. It is appended, dated, to {MEMORY_PATH} and shown to "
    f"later sessions as a note (not an instruction). At most {MAX_ENTRY_CHARS} characters; save facts, not "
    "conversation.",
    {"type": "object", "properties": {"text": {"type": "string", "description": "the note to remember"}},
     "required": ["text"], "additionalProperties": False},
)
