"""The spec of the layer's tool, as data: what the model is shown, loaded without the tool's code
(:mod:`ljtui.core.agent.tools.layer`, imported on its first call)."""

from __future__ import annotations

from ljtui.core.layer.commit import MAX_MESSAGE_CHARS
from ljtui.core.providers.base import ToolSpec

PROPOSE_COMMIT = ToolSpec(
    "propose_commit",
    "Propose the commit message for the change you made in this session's layer (a subject line, a blank line, "
    "then why). When the user applies the change, they are asked whether to commit exactly the files written, "
    f"with your message as text they may edit. At most {MAX_MESSAGE_CHARS:,} characters; a later call replaces "
    "it. Only in a session with a layer: never run git commit yourself.",
    {"type": "object", "properties": {"message": {"type": "string", "description": "the commit message"}},
     "required": ["message"], "additionalProperties": False},
)
