"""The headings the planner's harness writes into every prompt.

Only the harness writes these. A model reply that imitates one outside a
code fence is treated as a fabrication
(:mod:`ljtui.core.planner.fabrication`), so they live in one place.
"""

from __future__ import annotations

REQUEST_HEADING = "# Request"
"""Opens the prompt: the user's request."""
TRANSCRIPT_HEADING = "# Transcript"
"""Opens the turns so far."""
TOOL_RESULT_HEADING = "## Tool result"
"""The heading under which the harness, and only the harness, writes tool output."""
REPLY_HEADING = "## Your reply (turn {turn})"
"""Heads one of the model's earlier replies."""
NOTE_HEADING = "## Harness note"
"""Heads the harness's note on a rejected reply."""
CHECK_HEADING = "## Plan check"
"""Heads the check of a plan that does not apply yet."""
INSTRUCTIONS_HEADING = "# Instructions (repeated)"
"""Heads the reminder that closes every prompt."""

HARNESS_HEADINGS: tuple[str, ...] = (
    TOOL_RESULT_HEADING, REPLY_HEADING, NOTE_HEADING, CHECK_HEADING, INSTRUCTIONS_HEADING,
)
"""The sections a reply may not imitate."""
