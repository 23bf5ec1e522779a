"""The Gates pane's text as pure functions: widths, cuts, durations, ages and the status bar segment."""

from __future__ import annotations

import dataclasses

import pytest

from ljtui.tui.widgets.gates_render import (
    OUTPUT_LINES_SHOWN, GateStyles, format_age, format_duration, gate_text, output_lines, status_segment,
)
from tests.tui.gate_helpers import ITEMS, NOW, gate_view, many_items, proposed_view


def plain(view, width: int, **kwargs) -> list[str]:
    options = {"selected": 0, "expanded": (), "now": NOW, **kwargs}
    return [line.plain for line in gate_text(view, width=width, styles=GateStyles(), **options).lines]


@pytest.mark.parametrize("width", [12, 24, 30, 40, 63, 64, 80, 118])
def test_no_line_is_wider_than_the_pane(width: int) -> None:
    view = gate_view(breaker_open=True, bounces=2, error="the staged tree vanished while checking: " + "x" * 90)
    text = gate_text(view, width=width, styles=GateStyles(), selected=2, expanded={i.id for i in ITEMS}, now=NOW)
    assert all(line.cell_len <= width for line in text.lines)
    assert len(text.item_rows) == len(ITEMS)


def test_a_narrow_pane_puts_the_evidence_on_a_second_line() -> None:
    lines = plain(gate_view(), 40)
    at = lines.index(next(line for line in lines if "cli:" in line))
    assert lines[at + 1:at + 3] == ["    required · exit 0 · 655ms", "    verifier verifier-7c1e"]


def test_a_wide_pane_keeps_each_item_on_one_row_with_its_evidence_at_the_right() -> None:
    lines = plain(gate_view(), 100)
    row = next(line for line in lines if "tests: The" in line)
    assert row.startswith("▸✗ failed      required tests: The test suite passes") and row.endswith("exit 1 · 1.8s")
    assert len(row) == 100


def test_the_guard_error_is_wrapped_never_cut() -> None:
    error = "the staged tree vanished while checking " + " ".join(f"word{n}" for n in range(30))
    joined = " ".join(plain(gate_view(error=error), 30))
    assert all(f"word{n}" in joined for n in range(30))


def test_output_is_cut_to_a_count_of_the_rest() -> None:
    output = "".join(f"line {n}\n" for n in range(500))
    lines = [line.plain for line in output_lines(output, 40, GateStyles())]
    assert len(lines) == OUTPUT_LINES_SHOWN + 1
    assert lines[-1] == f"    … {500 - OUTPUT_LINES_SHOWN} more lines"
    assert [line.plain for line in output_lines("", 40, GateStyles())] == ["    (no output)"]
    assert [line.plain for line in output_lines("ok\n", 40, GateStyles())] == ["    │ ok"]


def test_an_enormous_command_is_cut_and_measured() -> None:
    item = dataclasses.replace(ITEMS[0], command="x" * 1_000_000)
    lines = plain(gate_view(items=(item,)), 50, expanded={"tests"})
    assert any(line.endswith("more characters)") for line in lines)
    assert len(lines) < 200


def test_sixty_items_take_one_row_each_when_wide() -> None:
    text = gate_text(gate_view(items=many_items(60), blocked=()), width=100, styles=GateStyles(), selected=None,
                     expanded=(), now=NOW)
    assert [b - a for a, b in zip(text.item_rows, text.item_rows[1:])] == [1] * 59


def test_a_proposed_gate_is_neither_confirmed_nor_started() -> None:
    lines = plain(proposed_view(), 80)
    assert "not confirmed · not started" in lines
    assert not any("blocked" in line or "delivery allowed" in line for line in lines)


def test_a_passed_gate_says_delivery_is_allowed() -> None:
    items = tuple(dataclasses.replace(i, status="passed") for i in ITEMS)
    assert "delivery allowed" in plain(gate_view(items=items, blocked=()), 80)


@pytest.mark.parametrize(("ms", "shown"), [(None, ""), (0, "0ms"), (312, "312ms"), (1840, "1.8s"),
                                           (125_000, "2m05s")])
def test_durations(ms, shown: str) -> None:
    assert format_duration(ms) == shown


@pytest.mark.parametrize(("seconds", "shown"), [(0, "just now"), (59, "just now"), (300, "5 min ago"),
                                                (5 * 3600, "5 h ago"), (3 * 86_400, "3 d ago")])
def test_ages(seconds: float, shown: str) -> None:
    assert format_age(seconds) == shown


def test_the_status_segment_names_the_level_and_the_worst_state() -> None:
    assert status_segment(None) is None
    assert status_segment(gate_view()) == "gate L2 · blocked"
    assert status_segment(gate_view(blocked=())) == "gate L2"
    assert status_segment(proposed_view()) == "gate L2 · unconfirmed"
    assert status_segment(gate_view(breaker_open=True)) == "gate L2 · breaker open"
    assert status_segment(gate_view(breaker_open=True, error="EIO")) == "gate L2 · guard error"
