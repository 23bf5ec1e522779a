"""The notice of a recalled playbook's plan names the new goal and the playbook it came from."""

from __future__ import annotations

from ljtui.core.tasks.facade import GOAL_SHOWN_CHARS, recalled_line


def test_the_new_goal_comes_first_and_the_playbook_with_its_own_goal_after() -> None:
    line = recalled_line("add shortest_word", "add-longest-word", "add longest_word")
    assert line.startswith("Plan for 'add shortest_word', from playbook add-longest-word (add longest_word): ")


def test_a_long_or_hostile_goal_is_cut_and_shown_on_one_line() -> None:
    line = recalled_line("x" * 500 + "\n\x1b[31mred", "p", "t")
    quoted = line.split("'")[1]
    assert len(quoted) == GOAL_SHOWN_CHARS and quoted.endswith("…") and "\n" not in line and "\x1b" not in line
