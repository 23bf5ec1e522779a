"""Pausing the cyclic collector around a parse leaves it as it was."""

from __future__ import annotations

import gc

from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.gc_pause import cyclic_gc_paused

PLAN = "### EDIT 1\n\n- file: `a.py`\n\n```old\nx = 1\n```\n\n```new\nx = 2\n```\n"


def test_the_collector_is_off_inside_and_on_again_after() -> None:
    assert gc.isenabled()
    with cyclic_gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off() -> None:
    gc.disable()
    try:
        with cyclic_gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_error_inside_still_turns_it_back_on() -> None:
    try:
        with cyclic_gc_paused():
            raise ValueError("bad plan")
    except ValueError:
        pass
    assert gc.isenabled()


def test_parsing_a_plan_leaves_the_collector_on() -> None:
    assert parse_plan(PLAN).blocks[0].file == "a.py"
    assert gc.isenabled()
