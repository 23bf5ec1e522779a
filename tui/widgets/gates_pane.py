"""The Gates pane: the active delivery gate's checklist and evidence."""

from __future__ import annotations

from ljtui.tui.widgets.empty_pane import SidePane


class GatesPane(SidePane):
    BORDER_TITLE = "Gates"
    EMPTY_TEXT = "No delivery gate is active."
