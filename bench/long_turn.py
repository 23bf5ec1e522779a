"""Benchmark: one request that loops through many tool calls, each returning a long result.

The conversation agent runs one message in which a model reads ``--calls``
blobs of ``--chars`` characters, one per reply, then answers (defaults: 40
calls of 50,000 characters, the default ``agent.compress_at_tokens``).
Measured in the same run:

* every request body the Anthropic provider would send (``build_params``),
  the largest in characters and estimated tokens;
* the reference: the body the last request would have been without
  compression (the whole turn, every result verbatim).

    python bench/long_turn.py [--calls 40] [--chars 50000]

Prints the largest request, the uncompressed reference, their ratio and the
largest over the budget. Target: the largest request within the budget plus
one result.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, AsyncIterator

from ljtui.core.agent import compression as C
from ljtui.core.clock import FixedClock
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.ports import ListSink
from ljtui.core.providers.anthropic_wire import build_params
from ljtui.core.providers.base import (
    ChatRequest, Delta, Message, StreamEnd, TextDelta, ToolCall, ToolResultBlock, ToolSpec, ToolUseBlock,
)
from ljtui.core.tools import Tool, ToolRegistry, ToolResult

MODEL = "claude-test"


class Looping:
    """Reads one blob per reply until ``calls`` were read, then answers; summarises when asked."""

    provider = "scripted"
    model = MODEL

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.made = 0
        self.sizes: list[int] = []
        self.summaries = 0

    async def stream(self, request: ChatRequest) -> AsyncIterator[Delta]:
        self.sizes.append(len(json.dumps(build_params(request, MODEL))))
        if request.system == C.SUMMARY_SYSTEM:
            self.summaries += 1
            yield TextDelta("The blobs read so far were all the same letter.")
        elif self.made < self.calls:
            self.made += 1
            yield ToolCall(f"toolu_{self.made}", "read_blob", {"n": self.made})
            yield StreamEnd("tool_use")
            return
        else:
            yield TextDelta("Read them all.")
        yield StreamEnd("end_turn")

    async def aclose(self) -> None:
        return None


def uncompressed(request: str, calls: int, chars: int, system: str, tools: tuple[ToolSpec, ...],
                 max_tokens: int) -> int:
    """The last request's body had nothing been compressed: the request, then every call and its result."""
    history = [Message.user(request)]
    for n in range(1, calls + 1):
        history.append(Message("assistant", (ToolUseBlock(f"toolu_{n}", "read_blob", {"n": n}),)))
        history.append(Message("user", (ToolResultBlock(f"toolu_{n}", f"blob {n}\n" + "x" * chars),)))
    body = build_params(ChatRequest(system, tuple(history), tools, max_tokens), MODEL)
    return len(json.dumps(body))


async def run(calls: int, chars: int) -> dict[str, Any]:
    async def read_blob(args: dict[str, Any], ctx: object) -> ToolResult:
        return ToolResult(True, f"blob {args['n']}\n" + "x" * chars, f"read blob {args['n']}")

    model = Looping(calls)
    config = Config()
    config.agent.max_iterations = calls + 5
    tools = ToolRegistry([Tool(ToolSpec("read_blob", "Read blob n", {"type": "object", "properties": {
        "n": {"type": "integer"}}}), read_blob)])
    with tempfile.TemporaryDirectory(prefix="ljtui-bench-turn-") as root:
        engine = Engine(config, ListSink(), repo_root=Path(root), clock=FixedClock(),
                        client_factory=lambda cfg: model, tools=tools)
        request = f"Read blobs 1 to {calls} and tell me what they hold."
        done = await engine.run_turn(request)
        reference = uncompressed(request, calls, chars, engine.context.system, tools.specs,
                                 config.provider.max_tokens)
        await engine.aclose()
    return {"finished": done is not None, "requests": len(model.sizes), "summaries": model.summaries,
            "largest": max(model.sizes), "reference": reference, "budget": config.agent.compress_at_tokens}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--chars", type=int, default=50_000)
    args = parser.parse_args()
    got = asyncio.run(run(args.calls, args.chars))
    largest, reference, budget = got["largest"], got["reference"], got["budget"]
    per = C.CHARS_PER_TOKEN
    print(f"{args.calls} calls of {args.chars:,} characters: turn {'finished' if got['finished'] else 'FAILED'}, "
          f"{got['requests']} requests ({got['summaries']} summarising)")
    print(f"largest request:        {largest:>10,} characters (~{largest // per:,} tokens)")
    print(f"uncompressed reference: {reference:>10,} characters (~{reference // per:,} tokens)")
    print(f"largest / reference: {largest / reference:.3f}")
    limit = budget + args.chars // per
    print(f"largest / budget: {largest / per / budget:.2f} (agent.compress_at_tokens {budget:,}; "
          f"target: at most {limit:,} tokens, the budget plus one result)")
    return 0 if got["finished"] and largest // per <= limit else 1


if __name__ == "__main__":
    sys.exit(main())
