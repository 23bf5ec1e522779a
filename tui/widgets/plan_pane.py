"""The Plan pane: the approved task list, statuses and replan counter."""

from __future__ import annotations

from ljtui.tui.widgets.empty_pane import SidePane


class PlanPane(SidePane):
    BORDER_TITLE = "Plan"
    EMPTY_TEXT = "No task plan yet. Multi-step requests show their tasks here for approval before anything runs."
