"""Scripted turns that depend on what the engine really did: a turn of ``cases``.

A recorded model must not claim what did not happen. When the results of
the previous turn's tool calls decide what a model would say next (a write
the user denied, a delivery whose dialog was cancelled), the script gives
that turn as ``cases``, and the first case whose ``when`` matches the tool
results of the request's last message is played::

    - cases:
        - when: {result: "not applied"}     # some tool result contains this text
          text: "The delivery was not applied; your files are unchanged."
        - when: {failed: true}              # some tool call failed or was denied
          text: "That did not work: nothing changed."
        - text: "Delivered."                # no 'when': the default

``when`` holds ``failed`` (true: at least one result is an error; false:
none is) and/or ``result`` (text that at least one result contains); both
given, both must hold. A case is an ordinary turn (``text`` and/or
``tool_calls``) besides its ``when``. A request whose results no case
matches is refused with a :class:`~ljtui.core.providers.base.ProviderError`
of kind ``script`` naming the turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ljtui.core.providers.base import ChatRequest, ToolResultBlock

WHEN_KEYS = frozenset({"failed", "result"})
"""The conditions a case's ``when`` may hold."""


@dataclass(frozen=True)
class When:
    """What the previous tool results must be for a case to play.

    Attributes:
        failed: ``True``: some result is an error; ``False``: none is; ``None``: either.
        result: text some result must contain (empty: any).
    """

    failed: bool | None = None
    result: str = ""

    def matches(self, results: tuple[ToolResultBlock, ...]) -> bool:
        """Whether ``results`` (the tool results of the request's last message) meet this condition."""
        if self.failed is not None and any(r.is_error for r in results) != self.failed:
            return False
        return not self.result or any(self.result in r.content for r in results)


def last_results(request: ChatRequest) -> tuple[ToolResultBlock, ...]:
    """The tool results of the request's last message (none when it is not a user message of results)."""
    if not request.messages or request.messages[-1].role != "user":
        return ()
    return tuple(b for b in request.messages[-1].content if isinstance(b, ToolResultBlock))


def parse_when(raw: Any, problem: Callable[[str], Exception]) -> When:
    """Read a case's ``when`` mapping.

    Raises:
        the exception ``problem`` makes from a description of what is wrong.
    """
    if not isinstance(raw, dict) or not raw:
        raise problem("'when' must be a mapping with 'failed' and/or 'result'")
    unknown = set(raw) - WHEN_KEYS
    if unknown:
        raise problem(f"'when' has unknown key(s) {', '.join(sorted(map(str, unknown)))}")
    failed = raw.get("failed")
    if failed is not None and not isinstance(failed, bool):
        raise problem("'when: failed' must be true or false")
    result = raw.get("result", "")
    if not isinstance(result, str) or ("result" in raw and not result):
        raise problem("'when: result' must be a non-empty string")
    return When(failed, result)


def choose(cases: tuple[tuple[When | None, Any], ...], request: ChatRequest, path: Path, where: str) -> Any:
    """The turn of the first case whose condition the request's last tool results meet.

    Raises:
        ProviderError: kind ``script``, when no case matches.
    """
    from ljtui.core.providers.base import ProviderError

    results = last_results(request)
    for when, turn in cases:
        if when is None or when.matches(results):
            return turn
    said = "; ".join(f"{'error: ' if r.is_error else ''}{r.content[:80]}" for r in results) or "no tool results"
    raise ProviderError("script", f"script {path}: {where}: no case matches the last tool results ({said})")
