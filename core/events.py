"""Engine events: everything the engine reports, as frozen dataclasses.

Events flow one way, from the engine to an :class:`~ljtui.core.ports.EventSink`.
The TUI turns them into Textual messages (``tui/bridge.py``); the headless CLI
prints them as JSON lines (:func:`event_to_dict`).
"""

from __future__ import annotations

import dataclasses
import keyword
from typing import TYPE_CHECKING, Any

from ljtui.core.event_base import AGENT_CHAT, AGENT_PLANNER, Event, Usage  # noqa: F401 - re-exported

if TYPE_CHECKING:
    from ljtui.core.event_types import *  # noqa: F403 - the event classes, for type checkers


SHOWN_OUTPUT_CHARS = 16_000
"""Most characters of a tool's result an event carries for display."""


def shown_output(content: str) -> str:
    """``content`` cut for display at :data:`SHOWN_OUTPUT_CHARS`, saying how much was left out."""
    if len(content) <= SHOWN_OUTPUT_CHARS:
        return content
    return content[:SHOWN_OUTPUT_CHARS] + f"\n… {len(content) - SHOWN_OUTPUT_CHARS:,} more characters (the model got them)"


def event_to_dict(event: Event) -> dict[str, Any]:
    """The event as a JSON-ready dict with its ``kind`` first."""
    data: dict[str, Any] = {"kind": event.kind}
    data.update((_field_name(k), v) for k, v in dataclasses.asdict(event).items())
    return data


def _field_name(name: str) -> str:
    """A field named ``from_`` in Python (a keyword) is ``from`` in JSON."""
    return name[:-1] if name.endswith("_") and keyword.iskeyword(name[:-1]) else name


EVENT_TYPES_MODULE = "ljtui.core.event_types"
"""Where the event classes are defined; they load on first use (see :func:`__getattr__`)."""


def __getattr__(name: str) -> Any:
    """The event classes (``TokenDelta``, ``Notice`` …), imported on first use.

    Defining two dozen frozen dataclasses took a few milliseconds of every
    start; the first frame needs none of them (only :class:`Usage`), so they
    live in :mod:`ljtui.core.event_types` and load when first asked for.
    """
    import importlib

    if name.startswith("__"):  # an import machinery probe (``__path__`` …), not an event class
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    types = importlib.import_module(EVENT_TYPES_MODULE)
    if name in types.__all__:
        return getattr(types, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    import importlib

    return sorted({*globals(), *importlib.import_module(EVENT_TYPES_MODULE).__all__})
