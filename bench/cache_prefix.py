"""Prompt-cache prefix stability of a multi-turn, tool-using conversation.

Runs a scripted conversation (each turn: the model reads a file with a tool,
then answers) through the real engine and the real ``anthropic`` SDK against
the loopback fake Messages API, and measures, for each request, the share of
its bytes that is an exact prefix of the next request.

Requests are compared in the order the prompt cache reads them — tools,
then system, then messages — with ``cache_control`` markers removed (they
mark where a cached prefix ends; moving one does not change the prefix).
The raw HTTP bodies are reported too: the SDK writes ``messages`` before
``system`` and ``tools``, so their byte prefix ends with each request's
messages. The reference is the same requests with the tool list reordered on
every call, a typical cache-busting bug, to show what the figure catches.

    python bench/cache_prefix.py [--turns 10]

Prints ``prefix stability: X%`` (target >= 95%).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ljtui.core.config import Config, ProviderConfig  # noqa: E402
from ljtui.core.engine import Engine  # noqa: E402
from ljtui.core.ports import ListSink  # noqa: E402
from ljtui.core.providers.anthropic_wire import strip_cache_control  # noqa: E402
from ljtui.core.providers.base import ToolSpec  # noqa: E402
from ljtui.core.tools import Tool, ToolResult, ToolRegistry  # noqa: E402
from tests.fakes import anthropic_api as api  # noqa: E402
from tests.fakes.server import FakeSSEServer, RecordedRequest, Reply  # noqa: E402

DEFAULT_TURNS = 10
TARGET_PERCENT = 95.0
BENCH_KEY = "sk-bench-local-key"
FILE_LINES = 40
"""Lines in each file the scripted model reads (sizes the tool results)."""

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
TOOL_SPECS = (
    ToolSpec("read_file", "Read a text file of the repository, optionally a line range.", SCHEMA),
    ToolSpec("list_dir", "List the entries of a directory of the repository.", SCHEMA),
    ToolSpec("grep", "Search the repository for a regular expression.",
             {"type": "object", "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}},
              "required": ["pattern"]}),
)


def _tools() -> ToolRegistry:
    async def read(args: dict[str, Any]) -> ToolResult:
        body = "\n".join(f"{n:>4}  line {n} of {args['path']}" for n in range(1, FILE_LINES + 1))
        return ToolResult(True, body, f"read {args['path']}")

    async def other(args: dict[str, Any]) -> ToolResult:
        return ToolResult(True, "(nothing)", "nothing")

    return ToolRegistry([Tool(TOOL_SPECS[0], read), Tool(TOOL_SPECS[1], other), Tool(TOOL_SPECS[2], other)])


def _responder(request: RecordedRequest) -> Reply:
    """Turn start → ask for a file; after the tool result → answer."""
    messages = request.json["messages"]
    turn = sum(1 for m in messages if m["role"] == "user" and m["content"][0]["type"] == "text")
    if messages[-1]["content"][0]["type"] == "tool_result":
        return api.text_reply(f"File {turn} defines {turn * 3} functions; the entry point is main().")
    return api.tool_reply(f"Let me read module{turn}.py.", f"toolu_{turn:03d}", "read_file",
                          {"path": f"src/module{turn}.py"})


def cache_order(body: dict[str, Any], *, reorder_tools: int = 0) -> bytes:
    """The request as the cache reads it: tools, system, messages, without breakpoints."""
    tools = strip_cache_control(body.get("tools", []))
    if reorder_tools and tools:
        shift = reorder_tools % len(tools)
        tools = tools[shift:] + tools[:shift]
    parts = (tools, strip_cache_control(body.get("system", [])), strip_cache_control(body["messages"]))
    return b"".join(json.dumps(p, ensure_ascii=False).encode() for p in parts)


def stability(requests: list[bytes]) -> tuple[float, float]:
    """Byte-weighted share of each request that prefixes the next, and the worst single share."""
    shared = total = 0
    worst = 1.0
    for current, following in zip(requests, requests[1:]):
        n = 0
        limit = min(len(current), len(following))
        while n < limit and current[n] == following[n]:
            n += 1
        shared += n
        total += len(current)
        worst = min(worst, n / len(current))
    return (shared / total if total else 1.0), worst


async def converse(turns: int, repo: Path) -> list[RecordedRequest]:
    """Run ``turns`` user messages through the engine; return the recorded requests."""
    with FakeSSEServer(_responder, require_key=BENCH_KEY) as server:
        cfg = ProviderConfig(name="anthropic", model="claude-bench", base_url=server.url, api_key=BENCH_KEY,
                             max_retries=0, timeout=30)
        sink = ListSink()
        engine = Engine(Config(provider=cfg), sink, repo_root=repo, tools=_tools())
        try:
            for n in range(1, turns + 1):
                if await engine.run_turn(f"Question {n}: what is in module{n}.py?") is None:
                    failed = [e for e in sink.events if e.kind == "turn_failed"]
                    raise SystemExit(f"turn {n} failed: {failed[-1]}")
        finally:
            await engine.aclose()
        return list(server.requests)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=DEFAULT_TURNS)
    args = parser.parse_args()
    requests = asyncio.run(converse(args.turns, Path.cwd()))
    bodies = [r.json for r in requests]
    ours, worst = stability([cache_order(b) for b in bodies])
    raw, _ = stability([r.body for r in requests])
    reference, _ = stability([cache_order(b, reorder_tools=i) for i, b in enumerate(bodies)])
    stable_head = all(b["system"] == bodies[0]["system"] and b["tools"] == bodies[0]["tools"] for b in bodies)
    print(f"requests: {len(requests)} over {args.turns} turns; system and tools byte-identical in all: "
          f"{'yes' if stable_head else 'NO'}")
    print(f"worst single request: {worst:.2%}")
    print(f"raw HTTP bodies (SDK key order, messages first): {raw:.1%}")
    print(f"reference, tool list reordered per request: {reference:.1%}")
    print(f"prefix stability: {ours:.2%}")
    return 0 if ours * 100 >= TARGET_PERCENT else 1


if __name__ == "__main__":
    sys.exit(main())
