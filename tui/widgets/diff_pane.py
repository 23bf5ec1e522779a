"""The Diff pane: pending EDIT blocks for review before anything is written."""

from __future__ import annotations

from ljtui.tui.widgets.empty_pane import SidePane


class DiffPane(SidePane):
    BORDER_TITLE = "Diff"
    EMPTY_TEXT = "No pending edits. Proposed changes appear here as diffs to accept or reject."
