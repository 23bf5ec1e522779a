"""The event classes load on first use: importing ``ljtui.core.events`` for ``Usage`` defines none of them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ljtui.core import event_types, events


def test_importing_the_events_module_leaves_the_event_classes_unloaded() -> None:
    code = ("import sys, ljtui.core.events as e; from ljtui.core.events import Usage; "
            "print('ljtui.core.event_types' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_every_event_class_is_reachable_from_the_events_module() -> None:
    for name in event_types.__all__:
        assert getattr(events, name) is getattr(event_types, name)
        assert name in dir(events)
    from ljtui.core.events import Notice, TokenDelta  # the usual way keeps working

    assert TokenDelta(1, "x").kind == "token_delta"
    assert events.event_to_dict(Notice("hi")) == {"kind": "notice", "message": "hi", "level": "info"}
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        events.Nope  # noqa: B018
