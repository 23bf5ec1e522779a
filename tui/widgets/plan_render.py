"""The Plan pane's text: one or two lines per task, and the replan history.

Pure functions of the rows, the styles of the active theme and the time, so
a tick of the clock only repaints (the line count depends on the tasks alone).
A task's words are the model's: they go through :func:`one_line` (controls
visible, on one line) before they are drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from rich.style import Style
from rich.text import Text

from ljtui.core.display import shown
from ljtui.tui import glyphs
from ljtui.tui.widgets.plan_rows import ReplanEntry, Row

SYMBOLS = {
    "pending": glyphs.PENDING,
    "running": glyphs.RUNNING,
    "done": glyphs.OK,
    "failed": glyphs.FAILED,
    "skipped": glyphs.SKIPPED,
    "replanned": glyphs.REPLANNED,
}
"""The symbol before each task, by status."""
UNKNOWN_SYMBOL = glyphs.UNKNOWN
SELECTED_MARK = glyphs.SELECTED
HEAD_CELLS = 3
"""Cells before a task's id: the selection mark, the status symbol and a space."""
INDENT = "    "
"""Where the second line of a task (hint, dependencies, the replanner's decision) starts."""
SECONDS_PER_MINUTE = 60
SECONDS_PER_HOUR = 3600


@dataclass
class PlanStyles:
    """Rich styles by name (statuses, ``selected``, ``muted``, ``added``, ``removed``, ``changed``)."""

    by_name: dict[str, Style] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Style:
        return self.by_name.get(name, Style())


def format_elapsed(seconds: float) -> str:
    """``0:07``, ``12:30``, ``1:02:03``."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, SECONDS_PER_HOUR)
    minutes, secs = divmod(rest, SECONDS_PER_MINUTE)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def one_line(value: object) -> str:
    """A task's field as drawn: its controls visible and its line breaks shown as ``\\n``."""
    return shown(str(value), one_line=True)


def after_text(depends_on: Sequence[int]) -> str:
    """``after 1, 2`` (empty without dependencies)."""
    return f"after {', '.join(str(d) for d in depends_on)}" if depends_on else ""


def detail_text(row: Row) -> str:
    """The second line of a task: its tool hint and dependencies."""
    return " · ".join(p for p in (one_line(row.get("tool_hint") or ""), after_text(row.get("depends_on") or ())) if p)


def _fit(line: Text, width: int) -> Text:
    line.truncate(max(1, width), overflow="ellipsis")
    return line


def task_lines(rows: Sequence[Row], *, width: int, styles: PlanStyles, selected: int | None,
               elapsed: Mapping[int, float], decisions: Mapping[int, str]) -> list[Text]:
    """Every task as one line (symbol, id, description, time) and a dim line of details when it has any.

    Args:
        selected: the index of the highlighted task (approval), or ``None``.
        elapsed: seconds spent by each started task.
        decisions: the replanner's decision line of each failed task.
    """
    lines: list[Text] = []
    for index, row in enumerate(rows):
        status = str(row.get("status", "pending"))
        chosen = index == selected
        mark = SELECTED_MARK if chosen else " "
        head = Text(f"{mark}{SYMBOLS.get(status, UNKNOWN_SYMBOL)} ", style=styles[status])
        head.append(f"{row['id']}. ", style=styles["muted"])
        head.append(one_line(row.get("description") or "…"))
        seconds = elapsed.get(int(row["id"]))
        clock = f" {format_elapsed(seconds)}" if seconds is not None else ""
        head = _fit(head, width - len(clock))
        if clock:
            head.append(" " * max(0, width - len(clock) - head.cell_len) + clock, style=styles[status])
        if chosen:
            head.stylize(styles["selected"])
        lines.append(head)
        for extra, style in ((detail_text(row), "muted"), (one_line(decisions.get(int(row["id"]), "")), "changed")):
            if extra:
                lines.append(_fit(Text(INDENT + extra, style=styles[style]), width))
    return lines


def entry_lines(entry: ReplanEntry, *, width: int, styles: PlanStyles, limit: int) -> list[Text]:
    """A replan: ``Replan 1/3: reason`` then ``+`` added, ``-`` removed, ``~`` changed tasks."""
    lines = [_fit(Text(f"Replan {entry.count}/{limit}: {one_line(entry.reason)}", style=styles["heading"]), width)]
    for row in entry.added:
        lines.append(_fit(Text(f" + {row['id']}. {one_line(row['description'])}", style=styles["added"]), width))
    for row in entry.removed:
        lines.append(_fit(Text(f" - {row['id']}. {one_line(row['description'])}", style=styles["removed"]), width))
    for before, after in entry.changed:
        lines.append(_fit(Text(f" ~ {after['id']}. {_change(before, after)}", style=styles["changed"]), width))
    if len(lines) == 1:
        lines.append(Text(" (no task changed)", style=styles["muted"]))
    return lines


def _change(before: Row, after: Row) -> str:
    """What changed in a task kept by a replan, e.g. ``Write tests → Write unit tests``."""
    parts = []
    if before.get("description") != after.get("description"):
        parts.append(f"{one_line(before.get('description'))} → {one_line(after.get('description'))}")
    else:
        parts.append(one_line(after.get("description")))
    if before.get("tool_hint") != after.get("tool_hint"):
        hints = (one_line(row.get("tool_hint") or "none") for row in (before, after))
        parts.append("hint {} → {}".format(*hints))
    if list(before.get("depends_on") or ()) != list(after.get("depends_on") or ()):
        parts.append(f"{after_text(before.get('depends_on') or ()) or 'no deps'} → "
                     f"{after_text(after.get('depends_on') or ()) or 'no deps'}")
    return "; ".join(parts)
