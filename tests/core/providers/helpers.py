"""Helpers of the provider tests: an engine wired to a fake server, and tools."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ljtui.core.config import Config, ProviderConfig
from ljtui.core.engine import Engine
from ljtui.core.events import Event, TokenDelta, event_to_dict
from ljtui.core.ports import Approver, ListSink
from ljtui.core.providers.base import ToolSpec
from ljtui.core.tools import Tool, ToolResult, ToolRegistry

READ_SPEC = ToolSpec(
    "read_file", "Read a file of the repository.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


async def _read_file(args: dict[str, Any], ctx: object) -> ToolResult:
    return ToolResult(True, f"contents of {args['path']}", f"read {args['path']}")


def read_tools() -> ToolRegistry:
    """A registry with one harmless ``read_file`` tool that echoes the path."""
    return ToolRegistry([Tool(READ_SPEC, _read_file)])


@dataclass
class Rig:
    """An engine, the events it emitted, and the sleeps it asked for."""

    engine: Engine
    sink: ListSink
    sleeps: list[float] = field(default_factory=list)

    def of(self, kind: type[Event]) -> list[Any]:
        return [e for e in self.sink.events if isinstance(e, kind)]

    def kinds(self) -> list[str]:
        return [e.kind for e in self.sink.events]

    def streamed_text(self) -> str:
        return "".join(e.text for e in self.of(TokenDelta))

    def json_lines(self) -> str:
        return "\n".join(json.dumps(event_to_dict(e)) for e in self.sink.events)


def make_rig(cfg: ProviderConfig, repo: Path, *, tools: ToolRegistry | None = None,
             approver: Approver | None = None) -> Rig:
    """An engine on ``cfg`` (through the real provider factory) recording its sleeps."""
    sink = ListSink()
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    engine = Engine(Config(provider=cfg), sink, repo_root=repo, tools=tools, sleep=sleep, approver=approver)
    return Rig(engine, sink, sleeps)
