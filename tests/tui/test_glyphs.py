"""One glyph per meaning across the Plan, Gates and Diff panes."""

from __future__ import annotations

from ljtui.tui import glyphs
from ljtui.tui.widgets import block_list, gates_render, plan_render

SAME_MEANING = {"done": "ok", "passed": "ok", "pass": "ok", "accepted": "ok", "fail": "failed",
                "checking": "pending"}
"""Statuses of different panes that mean the same thing (the others are named as their meaning)."""
TABLES = {
    "plan statuses": plan_render.SYMBOLS,
    "gate items": gates_render.GLYPHS,
    "gate outcomes": gates_render.OUTCOME_GLYPHS,
    "blocks": block_list.STATE_MARKS,
}


def test_no_glyph_means_two_things() -> None:
    assert len(set(glyphs.MEANINGS.values())) == len(glyphs.MEANINGS)


def test_every_pane_draws_the_glyph_of_each_meaning() -> None:
    for name, table in TABLES.items():
        for status, glyph in table.items():
            meaning = SAME_MEANING.get(status, status)
            assert glyphs.MEANINGS[meaning] == glyph, f"{name}: {status} is drawn {glyph!r}"
    assert plan_render.SELECTED_MARK == gates_render.SELECTED_MARK == glyphs.SELECTED
    assert plan_render.UNKNOWN_SYMBOL == gates_render.UNKNOWN_GLYPH == glyphs.UNKNOWN


def test_stale_looks_alike_and_replanned_is_the_plan_s_alone() -> None:
    assert gates_render.GLYPHS["stale"] == block_list.STATE_MARKS["stale"] == glyphs.STALE
    assert glyphs.REPLANNED not in {*gates_render.GLYPHS.values(), *block_list.STATE_MARKS.values()}
