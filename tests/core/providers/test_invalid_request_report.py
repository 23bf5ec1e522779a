"""A request the API refuses as invalid is a failed turn that does not offer sending it again."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.providers.scripted import Script, ScriptedClient, ScriptedTurn


async def test_a_refused_request_is_reported_without_the_retry_hint(tmp_path: Path) -> None:
    from ljtui.core.agent.model_calls import RETRY_HINT
    from ljtui.core.config import Config
    from ljtui.core.engine import Engine
    from ljtui.core.events import TurnFailed
    from ljtui.core.ports import ListSink
    from ljtui.core.tools import Tool, ToolRegistry, ToolResult
    from ljtui.core.providers.base import ToolSpec

    async def run(args: dict, ctx: object) -> ToolResult:
        return ToolResult(True, "ok", "ok")

    client = ScriptedClient(Script(Path("test.yaml"), [ScriptedTurn("hello")]))
    sink = ListSink()
    broken = ToolRegistry([Tool(ToolSpec("read file", "a name the API refuses", {"type": "object"}), run)])
    engine = Engine(Config(), sink, repo_root=tmp_path, tools=broken, client_factory=lambda cfg: client)
    assert await engine.run_turn("hi") is None
    [failed] = [e for e in sink.events if isinstance(e, TurnFailed)]
    assert failed.error == "invalid_request" and "tools.0.name" in failed.message
    assert RETRY_HINT not in failed.message, "sending it again cannot help"
