"""The glyphs the panes draw, one per meaning: a glyph never means two things.

The Plan, Gates and Diff panes build their status symbols from these, so a
stale check and a stale block look alike and a replanned task looks like
neither.
"""

from __future__ import annotations

PENDING = "○"
"""Not run or not checked yet (a pending task or check, a block being validated)."""
RUNNING = "●"
OK = "✓"
"""Done, passed or accepted."""
FAILED = "✗"
REJECTED = "⊘"
"""Left out by the reviewer (a rejected block)."""
SKIPPED = "↷"
REPLANNED = "↻"
"""A task the replanner replaced (the Plan pane only)."""
STALE = "⟳"
"""Out of date: what it rests on changed since (a check's content, a block's file)."""
INDEPENDENT = "◆"
EXEMPT = "–"
REWORK = "↺"
UNKNOWN = "?"
SELECTED = "▸"
"""Before the selected row of a list (a task, a check, a block)."""
CUT = "…"
"""Text goes on past this edge (a cut line, a cut cell)."""
CONTINUED = "↪"
"""A wrapped line goes on here (the gutter of its continuation rows)."""

MEANINGS = {
    "pending": PENDING,
    "running": RUNNING,
    "ok": OK,
    "failed": FAILED,
    "rejected": REJECTED,
    "skipped": SKIPPED,
    "replanned": REPLANNED,
    "stale": STALE,
    "independent": INDEPENDENT,
    "exempt": EXEMPT,
    "rework": REWORK,
    "unknown": UNKNOWN,
    "selected": SELECTED,
    "cut": CUT,
    "continued": CONTINUED,
}
"""Every glyph by its meaning (the values are unique)."""
