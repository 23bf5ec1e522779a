"""Finding one JSON object in a model's reply, which may wrap it in a fence or prose."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from typing import Any, Callable

MAX_REPLY_CHARS = 100_000
"""A longer reply is not searched: no valid plan or decision is anywhere near this size."""
MAX_DECODE_ATTEMPTS = 200
"""Most candidates (fenced blocks, then ``{`` positions) tried, so any reply costs bounded time."""

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Found:
    """The outcome of a search.

    Attributes:
        value: The first object with the key, or ``None``.
        error: Why there is none: ``too long``, ``unparsable JSON`` (no object
            decoded) or ``wrong shape`` (objects decoded, none with the key).
        detail: A sentence saying more.
        skipped: Objects with the key that the caller's ``skip`` passed over.
    """

    value: dict[str, Any] | None
    error: str = ""
    detail: str = ""
    skipped: int = 0


def find_object(text: str, key: str, *, skip: Callable[[str], bool] | None = None) -> Found:
    """The first JSON object in ``text`` that has ``key``, nested ones included.

    The whole text is tried first, then each fenced block, then every ``{``
    in order. ``skip`` is given the source text of each object with the key;
    an object it returns True for is passed over (and counted). Never raises.
    """
    if len(text) > MAX_REPLY_CHARS:
        return Found(None, "too long", f"the reply has {len(text):,} characters, more than {MAX_REPLY_CHARS:,}")
    decoded_any = False
    skipped = 0
    for candidate, start in _candidates(text):
        value, end = _decode(candidate, start)
        if value is None:
            continue
        decoded_any = True
        found = _with_key(value, key)
        if found is None:
            continue
        if skip is not None and skip(candidate[start:end]):
            skipped += 1
            continue
        return Found(found, skipped=skipped)
    if decoded_any and f'"{key}"' not in text:
        return Found(None, "wrong shape", f'no JSON object in the reply has a "{key}" key', skipped)
    return Found(None, "unparsable JSON", f'the reply holds no valid JSON object with a "{key}" key', skipped)


def _candidates(text: str) -> list[tuple[str, int]]:
    out = [(text.strip(), 0)]
    fences = (match.group(1).strip() for match in _FENCE.finditer(text))
    out.extend((block, 0) for block in itertools.islice(fences, MAX_DECODE_ATTEMPTS // 2))
    start = text.find("{")
    while start >= 0 and len(out) < MAX_DECODE_ATTEMPTS:
        out.append((text, start))
        start = text.find("{", start + 1)
    return out


def _decode(candidate: str, start: int) -> tuple[Any, int]:
    """The value decoded at ``start`` and where it ends; ``(None, start)`` when none is."""
    try:
        return _DECODER.raw_decode(candidate, start)
    except (ValueError, RecursionError):
        return None, start


def _with_key(value: Any, key: str) -> dict[str, Any] | None:
    if isinstance(value, dict):
        return value if key in value else None
    return None
