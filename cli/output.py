"""How headless commands print: JSON lines, or words; never a terminal control from outside (SAFE-4).

Text a command prints comes from outside ljtui more often than not: a
model's reply, a command's output, a repository's files (plans, gates,
playbooks, sessions, config), a server's answer. Every human line goes
through :func:`echo` (or :class:`VisibleStream` for a stream), which shows
control characters, escape sequences and bidirectional overrides as visible
escapes (:func:`ljtui.core.display.shown`) instead of writing them to the
terminal. JSON output goes through :func:`json_text`, which escapes what
``json.dumps`` leaves raw.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import TYPE_CHECKING, Any, TextIO

from ljtui.core.display import shown

if TYPE_CHECKING:
    from ljtui.core.events import Event

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""Half of a UTF-16 pair (a file name that is not UTF-8): it cannot be encoded, so it is shown as U+FFFD."""
REPLACEMENT = "\ufffd"
JSON_RAW = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""What ``json.dumps(ensure_ascii=False)`` writes as it is: DEL and the C1 controls (``\\x9b`` is a CSI),
the line and paragraph separators, bidirectional controls, lone surrogates."""


def visible(text: str, *, exact: bool = False) -> str:
    """``text`` as it may be printed: controls visible (invisible characters too with ``exact``)."""
    return LONE_SURROGATE.sub(REPLACEMENT, shown(text, exact=exact))


def echo(text: object = "", file: TextIO | None = None, *, exact: bool = False, end: str = "\n",
         flush: bool = False) -> None:
    """Print ``text`` (default on stdout) with its controls visible: :func:`print` for words from outside.

    Args:
        exact: the text is a command or a path: invisible characters are shown too.
    """
    stream = file if file is not None else sys.stdout
    stream.write(visible(str(text), exact=exact) + end)
    if flush:
        stream.flush()


def json_text(data: Any, **options: Any) -> str:
    """``json.dumps(data, ensure_ascii=False, **options)`` with no raw control character in it.

    ``json.dumps`` escapes C0 controls itself; the characters of :data:`JSON_RAW` can only occur inside
    strings, where their ``\\uXXXX`` escape means the same value.
    """
    text = json.dumps(data, ensure_ascii=False, **options)
    return JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class VisibleStream:
    """A stream of pieces (a reply, a command's output) made visible piece by piece.

    A carriage return that ends a piece waits for the next: followed by a line feed it is a line break,
    not a visible ``\\r``.
    """

    def __init__(self) -> None:
        self._held = ""

    def piece(self, text: str) -> str:
        """``text`` as it may be printed now."""
        text = self._held + text
        self._held = ""
        if text.endswith("\r"):
            text, self._held = text[:-1], "\r"
        return visible(text)

    def rest(self) -> str:
        """What a piece held back, as it may be printed (the stream ended)."""
        held, self._held = self._held, ""
        return visible(held)


class JsonLinesSink:
    """Prints each event as one JSON object per line (``--json``)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def emit(self, event: Event) -> None:
        from ljtui.core.events import event_to_dict

        print(json_text(event_to_dict(event), default=str), file=self.out, flush=True)


class Fanout:
    """Passes each event to several sinks, in order."""

    def __init__(self, *sinks: object) -> None:
        self.sinks = sinks

    def emit(self, event: Event) -> None:
        for sink in self.sinks:
            sink.emit(event)  # type: ignore[attr-defined]


class Collect:
    """Keeps the events of some kinds (e.g. failures) for the command's own report."""

    def __init__(self, *kinds: type[Event]) -> None:
        self.kinds = kinds
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        if isinstance(event, self.kinds):
            self.events.append(event)


def silence_stdout() -> None:
    """The reader of stdout went away (``| head``): drop further output quietly."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
