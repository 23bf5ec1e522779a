"""Whether a reply holds the model's own answer, or only what its prompt said (TASK-1, TASK-2).

A small model often repeats its prompt instead of answering it; read as an
answer, an echoed example object (or an object the user's message holds)
would pass for a real reply. So a JSON object that the prompt the model was
sent already holds is *quoted*, not an answer: its exact text appears in
the prompt, or its canonical JSON (keys sorted, no insignificant
whitespace) is that of an object found in the prompt. A reply cut off at
its ``max_tokens`` is not read either: whatever it holds was not finished.

Everything here is pure: :class:`Reply` is what a quiet call
(:mod:`ljtui.core.tasks.quiet_call`) brings back, and :func:`find_answer`
is :func:`~ljtui.core.tasks.jsonreply.find_object` passing over quoted objects.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ljtui.core.providers.base import ChatRequest
from ljtui.core.tasks.jsonreply import Found, find_object

CUT = "max_tokens"
"""The stop reason of a reply cut off at its token limit."""
ECHOED = "echoed the prompt"
"""The ``error`` of a search whose every object with the key was quoted from the prompt."""
MAX_PROMPT_CHARS = 200_000
"""Characters of each prompt text searched for objects."""
MAX_PROMPT_OBJECTS = 1_000
"""Most ``{`` positions of the prompt decoded, so any prompt costs bounded time."""

_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Reply:
    """One quiet model reply, with what reading it needs.

    Attributes:
        text: The reply's text, redacted.
        stop: Its stop reason (``end_turn``, ``max_tokens`` …).
        prompt: The texts the model was sent: the system prompt, then each user message.
        max_tokens: The most tokens the reply was allowed.
    """

    text: str
    stop: str = "end_turn"
    prompt: tuple[str, ...] = ()
    max_tokens: int = 0

    @property
    def cut(self) -> bool:
        """True when the reply stopped at its ``max_tokens``."""
        return self.stop == CUT


def prompt_texts(request: ChatRequest) -> tuple[str, ...]:
    """The texts ``request`` sends the model: its system prompt and every user message's text."""
    return (request.system, *(m.text for m in request.messages if m.role == "user"))


def canonical(value: Any) -> str:
    """``value`` as canonical JSON: keys sorted, no insignificant whitespace."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class PromptObjects:
    """The JSON objects a prompt holds, to tell a quoted object from an answer."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.texts = tuple(t for t in texts if t)
        self.canonical: frozenset[str] = frozenset(_objects(self.texts))
        """The canonical JSON of every object (nested ones included) found in the texts."""

    def quotes(self, candidate_text: str) -> bool:
        """True when ``candidate_text``, one JSON object's source text, is in the prompt: verbatim, or as an
        object equal to it once both are canonical (text that is not one JSON object is never quoted)."""
        span = candidate_text.strip()
        try:
            value = json.loads(span)
        except (ValueError, RecursionError):
            return False
        if not isinstance(value, dict):
            return False
        return any(span in text for text in self.texts) or self.holds(value)

    def holds(self, value: dict[str, Any]) -> bool:
        """True when an object equal to ``value`` is in the prompt."""
        try:
            return canonical(value) in self.canonical
        except (TypeError, ValueError, RecursionError):
            return False


def quoted_from_prompt(candidate_text: str, prompt_texts: Iterable[str]) -> bool:
    """True when the JSON object whose source text is ``candidate_text`` is one the prompt already holds.

    Args:
        candidate_text: The exact text of the object as the reply wrote it.
        prompt_texts: What the model was sent (system prompt and user messages).
    """
    return PromptObjects(prompt_texts).quotes(candidate_text)


def find_answer(text: str, key: str, prompt: Iterable[str] | PromptObjects = ()) -> Found:
    """The first JSON object in ``text`` with ``key`` that the prompt (its texts, or the objects found in them)
    does not hold.

    Returns:
        What :func:`~ljtui.core.tasks.jsonreply.find_object` finds, objects quoted from the prompt passed
        over; when every object with the key was quoted, ``error`` is :data:`ECHOED`.
    """
    objects = prompt if isinstance(prompt, PromptObjects) else PromptObjects(prompt)
    if not objects.texts:
        return find_object(text, key)
    found = find_object(text, key, skip=objects.quotes)
    if found.value is None and found.skipped:
        return Found(None, ECHOED, f'every JSON object with a "{key}" key in the reply is one its prompt already '
                                   "holds: the model repeated its prompt instead of answering")
    return found


def _objects(texts: tuple[str, ...]) -> Iterable[str]:
    """The canonical JSON of each object decoded at a ``{`` of ``texts``, and of every object nested in it.

    A decoded object is walked, not decoded again at each of its own ``{``; at most
    :data:`MAX_PROMPT_OBJECTS` decodes are tried in all.
    """
    attempts = 0
    for full in texts:
        text = full[:MAX_PROMPT_CHARS]
        start = text.find("{")
        while start >= 0 and attempts < MAX_PROMPT_OBJECTS:
            attempts += 1
            try:
                value, end = _DECODER.raw_decode(text, start)
            except (ValueError, RecursionError):
                value, end = None, start + 1
            yield from (canonical(v) for v in _dicts(value))
            start = text.find("{", end)


def _dicts(value: Any) -> Iterable[dict[str, Any]]:
    """Every object in ``value``, itself first, walked without recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
