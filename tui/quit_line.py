"""What ljtui prints when the app has closed: how to go on with the session."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ljtui.core.display import shown_line

if TYPE_CHECKING:
    from ljtui.tui.app import LjtuiApp


def resume_line(app: LjtuiApp) -> str | None:
    """``Resume this session with: ljtui --resume ID`` once the app has closed, when its session holds any
    message and its log was written without a problem; otherwise ``None``."""
    engine = app.engines.made
    if engine is None or not engine.history or engine.session_log.problem is not None:
        return None
    return f"Resume this session with: ljtui --resume {shown_line(engine.session_log.id)}"
