"""Every slash command of the app keeps meaning the command: no skill may take its name."""

from __future__ import annotations

from ljtui.core.skills import BUILTIN_NAMES
from ljtui.tui.commands import ACTIONS


def test_every_slash_command_is_a_name_no_skill_may_take() -> None:
    names = {action.slash for action in ACTIONS.slash_commands()}
    assert {"mcp", "diff", "hooks"} <= names
    assert names <= BUILTIN_NAMES, sorted(names - BUILTIN_NAMES)
