"""Replies recorded from real model servers, replayed byte for byte.

``tests/fixtures/real_streams/record.py`` wrote each file: the request sent, the
status, the content type and the body's pieces as they arrived. Replaying a
recording sends the same bytes in the same pieces, so the SDK and ljtui read
exactly what the real server sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakes.server import Reply

STREAMS = Path(__file__).resolve().parent.parent / "fixtures" / "real_streams"


@dataclass(frozen=True)
class Recording:
    """One exchange with a real server."""

    name: str
    server: str
    model: str
    request: Any
    status: int
    content_type: str
    pieces: tuple[bytes, ...]
    times: tuple[float, ...] = ()
    """Seconds from the request to each piece, as recorded."""

    def reply(self, *, chunk_delay: float = 0.0, pace: float | None = None) -> Reply:
        """The recorded answer, to queue on a :class:`~tests.fakes.server.FakeSSEServer`; ``pace``: sent at the
        recorded pace times ``pace`` (0.01: a hundred times faster)."""
        delays: tuple[float, ...] = ()
        if pace is not None:
            delays = tuple((now - before) * pace for before, now in zip((0.0, *self.times), self.times))
        return Reply(status=self.status, raw=self.pieces, content_type=self.content_type, chunk_delay=chunk_delay,
                     raw_delays=delays)

    @property
    def body(self) -> bytes:
        return b"".join(self.pieces)

    def chunks(self) -> list[dict[str, Any]]:
        """The SSE ``data:`` objects of the body, in order (``[DONE]`` left out)."""
        lines = self.body.decode("utf-8").splitlines()
        return [json.loads(line[6:]) for line in lines if line.startswith("data: {")]

    def usage(self) -> dict[str, Any]:
        """The usage the server reported."""
        return next(c["usage"] for c in self.chunks() if c.get("usage"))

    def arguments(self) -> list[str]:
        """Each streamed tool call's argument text, joined, by index."""
        joined: dict[int, str] = {}
        for chunk in self.chunks():
            for choice in chunk.get("choices", []):
                for call in choice.get("delta", {}).get("tool_calls") or []:
                    joined[call["index"]] = joined.get(call["index"], "") + (call["function"].get("arguments") or "")
        return [joined[i] for i in sorted(joined)]

    def finish_reason(self) -> str | None:
        reasons = [c["finish_reason"] for chunk in self.chunks() for c in chunk.get("choices", [])
                   if c.get("finish_reason")]
        return reasons[-1] if reasons else None


def recording(name: str) -> Recording:
    """The recording ``tests/fixtures/real_streams/NAME.json``."""
    raw = json.loads((STREAMS / f"{name}.json").read_text(encoding="utf-8"))
    pieces = tuple(text.encode("utf-8", "surrogateescape") for _, text in raw["pieces"])
    times = tuple(ms / 1000 for ms, _ in raw["pieces"])
    return Recording(name, raw["server"], raw["model"], raw["request"], raw["status"], raw["content_type"], pieces,
                     times)
