"""How headless commands print engine events: JSON lines, or words on stderr."""

from __future__ import annotations

import json
import os
import sys
from typing import TextIO

from ljtui.core.events import Event, event_to_dict


class JsonLinesSink:
    """Prints each event as one JSON object per line (``--json``)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def emit(self, event: Event) -> None:
        print(json.dumps(event_to_dict(event), ensure_ascii=False, default=str), file=self.out, flush=True)


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
