"""What ljtui keeps of a server's answers: plain values read from their wire JSON, the same under every SDK line.

The ``mcp`` SDK's 1.x and 2.x lines model the protocol's objects with
different attribute names (``inputSchema`` / ``input_schema``, ``isError`` /
``is_error`` …), but both dump them to the same wire JSON, which the MCP
specification defines. :mod:`ljtui.core.mcp.sdk` hands that JSON here, and
the rest of ljtui reads only these values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class McpTool:
    """One tool a server lists.

    Attributes:
        name: its name on the server.
        description: what it does, in the server's words.
        title: its display name, if the server gives one.
        input_schema: the JSON schema of its arguments, as the server sent it (checked before use).
        read_only: the server marks it ``readOnlyHint`` (the server's word, not ljtui's).
    """

    name: str
    description: str | None = None
    title: str | None = None
    input_schema: Any = None
    read_only: bool = False

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> McpTool:
        """The tool of a ``tools/list`` entry in its wire form."""
        annotations = data.get("annotations")
        read_only = isinstance(annotations, Mapping) and annotations.get("readOnlyHint") is True
        return cls(str(data.get("name", "")), _text(data.get("description")), _text(data.get("title")),
                   data.get("inputSchema"), read_only)


@dataclass(frozen=True)
class McpResult:
    """What one tool call returned.

    Attributes:
        parts: its content blocks in their wire form (``{"type": "text", "text": …}``, images, resources …).
        is_error: the tool reports a failure (the server itself is fine).
        structured: its ``structuredContent``, if any.
    """

    parts: tuple[Mapping[str, Any], ...] = ()
    is_error: bool = False
    structured: Any = None

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> McpResult:
        """The result of a ``tools/call`` answer in its wire form."""
        content = data.get("content")
        parts = tuple(part for part in content if isinstance(part, Mapping)) if isinstance(content, list) else ()
        return cls(parts, data.get("isError") is True, data.get("structuredContent"))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
