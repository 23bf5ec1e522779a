"""The Gates pane's text: the gate's risk and state, its check items with their evidence, and its history.

Pure functions of a gate view (``ljtui.core.gates.view.GateView``, read by
field only), the width, the theme's styles, the selection and the clock. Long
commands and outputs are cut before they are laid out, so a huge output costs
no more than the lines shown. A gate's words (its title, items, commands) are
a repository's or a model's, and a check's output a command's: each is drawn
with its controls visible (:func:`~ljtui.core.display.shown`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Collection, Iterable

from rich.style import Style
from rich.text import Text

from ljtui.core.display import shown, shown_line
from ljtui.tui import glyphs

GLYPHS = {"pending": glyphs.PENDING, "passed": glyphs.OK, "failed": glyphs.FAILED, "stale": glyphs.STALE,
          "independent": glyphs.INDEPENDENT}
"""The symbol before each check item, by status."""
UNKNOWN_GLYPH = glyphs.UNKNOWN
STATUS_CELLS = len("independent")
"""The status word's column width."""
OUTCOME_GLYPHS = {"pass": glyphs.OK, "fail": glyphs.FAILED, "exempt": glyphs.EXEMPT, "rework": glyphs.REWORK}
SELECTED_MARK = glyphs.SELECTED
INDENT = "    "
"""Where an item's details (second line, command, output) start."""
SEPARATOR = " · "
WIDE_CELLS = 64
"""From this width on an item's evidence shares its row; narrower, it gets a second line."""
OUTPUT_LINES_SHOWN = 60
"""Lines of an expanded item's output drawn; the rest is counted."""
COMMAND_LINES_SHOWN = 40
"""Lines an expanded command may wrap onto; longer commands are cut and their length given."""
HISTORY_SHOWN = 5
"""Most recent runs listed under History."""
MS_PER_SECOND = 1000
SECONDS_PER_MINUTE = 60
SECONDS_PER_HOUR = 3600
SECONDS_PER_DAY = 86_400

STYLE_NAMES = ("pending", "passed", "failed", "stale", "independent", "selected", "muted", "heading", "warning",
               "error", "level")


@dataclass
class GateStyles:
    """Rich styles by name (item statuses, ``selected``, ``muted``, ``heading``, ``warning``, ``error``)."""

    by_name: dict[str, Style] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Style:
        return self.by_name.get(name, Style())


@dataclass
class GateText:
    """The pane's lines and, for each item, the index of its row among them."""

    lines: list[Text]
    item_rows: list[int]


def format_duration(ms: int | None) -> str:
    """``312ms``, ``1.8s``, ``2m05s`` (empty when unknown)."""
    if ms is None:
        return ""
    if ms < MS_PER_SECOND:
        return f"{ms}ms"
    seconds = ms / MS_PER_SECOND
    if seconds < SECONDS_PER_MINUTE:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), SECONDS_PER_MINUTE)
    return f"{minutes}m{rest:02}s"


def format_age(seconds: float) -> str:
    """``just now``, ``5 min ago``, ``3 h ago``, ``2 d ago``."""
    if seconds < SECONDS_PER_MINUTE:
        return "just now"
    if seconds < SECONDS_PER_HOUR:
        return f"{int(seconds // SECONDS_PER_MINUTE)} min ago"
    if seconds < SECONDS_PER_DAY:
        return f"{int(seconds // SECONDS_PER_HOUR)} h ago"
    return f"{int(seconds // SECONDS_PER_DAY)} d ago"


ENDED_WORDS = {"pass": "passed", "fail": "failed", "exempt": "exempt", "rework": "sent back"}
"""How the gate's latest run ended, as the status bar and the pane say it."""


def ending(view: Any) -> str | None:
    """``passed · delivered``, ``passed · not delivered``, ``failed`` …: how the latest run ended (``None``
    while it is open or none ended)."""
    words = ENDED_WORDS.get(str(getattr(view, "outcome", "")))
    if words is None:
        return None
    if view.delivered:
        return f"{words} · delivered"
    if view.started and view.staged_files and view.outcome in ("pass", "exempt"):
        return f"{words} · not delivered"
    return words


def status_segment(view: Any) -> str | None:
    """The status bar's gate segment: ``gate L2``, ``gate L3 · blocked``, ``gate L1 · self-check due`` (a level
    that does not block delivery), ``gate passed · delivered`` …; ``None`` without a gate. Once a run ended, how
    it ended is the gate's state (a level its record moved is told by a notice where it happens)."""
    if view is None:
        return None
    segment = f"gate L{view.level}"
    if view.error:
        return f"{segment} · guard error"
    if view.breaker_open:
        return f"{segment} · breaker open"
    if view.started and view.blocked:
        return f"{segment} · blocked"
    if view.started and getattr(view, "unmet", ()):
        return f"{segment} · self-check due"
    ended = ending(view)
    if ended is not None:
        return f"gate {ended}"
    if not view.confirmed:
        return f"{segment} · unconfirmed"
    return segment


def passed_count(view: Any) -> tuple[int, int]:
    """``(passed, total)`` items (an independent check counts as passed)."""
    return sum(i.status in ("passed", "independent") for i in view.items), len(view.items)


def _fit(line: Text, width: int) -> Text:
    line.truncate(max(1, width), overflow="ellipsis")
    return line


def _pack(parts: Iterable[str], width: int, style: Style, indent: str = "") -> list[Text]:
    """``parts`` joined by `` · ``, wrapped between parts so each line (after ``indent``) fits ``width``."""
    room = width - len(indent)
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + len(SEPARATOR) + len(part) <= room:
            lines[-1] += SEPARATOR + part
        else:
            lines.append(part)
    return [_fit(Text(indent + line, style=style), width) for line in lines]


def _score(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value not in (0, 1) else f"{value:.0f}"


def head_lines(view: Any, width: int, styles: GateStyles) -> list[Text]:
    """The gate's id, level and R; its title; D, P and the factors; whether it is confirmed and started."""
    head = Text(shown_line(str(view.id)), style=styles["heading"])
    head.append(SEPARATOR).append(f"L{view.level}", style=styles["level"])
    head.append(f"{SEPARATOR}R {view.risk.r:.2f}", style=styles["heading"])
    if view.risk.level != view.level:
        head.append(f"{SEPARATOR}suggests L{view.risk.level}", style=styles["muted"])
    lines = [_fit(head, width), _fit(Text(shown(str(view.title), one_line=True)), width)]
    f = view.factors
    factors = [f"D {view.risk.d:.2f}", f"P {view.risk.p:.2f}", f"surface {_score(f.change_surface)}",
               f"chain {_score(f.chain_length)}", f"density {_score(f.cognitive_density)}",
               "verifiable" if f.objectively_verifiable else "not verifiable",
               "irreversible" if f.irreversible else "reversible"]
    lines += _pack(factors, width, styles["muted"])
    state = ["confirmed ✓" if view.confirmed else "not confirmed"]
    ended = ending(view)
    if view.started:
        staged = len(view.staged_files)
        state += ["started", f"run {shown_line(str(view.run_id))}"]
        if view.blocks_delivery:
            state.append(f"{staged} file{'s' if staged != 1 else ''} staged")
    elif ended is None:
        state.append("not started")
    if ended is not None:
        state.append(f"{'run' if view.started else 'last run'} {ended}")
    lines += _pack(state, width, Style())
    return lines


def alert_lines(view: Any, width: int, styles: GateStyles) -> list[Text]:
    """The guard's error, the open breaker and why delivery is refused, in the warning and error colours; at a
    level that does not block delivery, what a pass still needs, as a reminder."""
    lines: list[Text] = []
    if view.error:
        lines += _wrap(f"✗ guard error: {shown(str(view.error))} — delivery only with your confirmation", width,
                       styles["error"])
    if view.breaker_open:
        lines += _wrap(f"⚠ breaker open: delivery refused {view.bounces}× — the decision is yours", width,
                       styles["error"])
    if view.blocked:
        lines.append(_fit(Text("blocked: delivery is refused", style=styles["warning"]), width))
        lines += [_fit(Text(f"  {shown(str(reason), one_line=True)}", style=styles["warning"]), width)
                  for reason in view.blocked]
    elif view.started and getattr(view, "unmet", ()):
        lines += _wrap(f"self-check due: a pass still needs these; {view.delivery_rule}", width,
                       styles["pending"])
        lines += [_fit(Text(f"  {shown(str(reason), one_line=True)}", style=styles["pending"]), width)
                  for reason in view.unmet]
    elif view.started and not view.error:
        lines.append(_fit(Text("delivery allowed", style=styles["passed"]), width))
    return lines


def _wrap(text: str, width: int, style: Style) -> list[Text]:
    """``text`` wrapped on words to ``width`` (an error is never cut)."""
    return list(Text(text, style=style).wrap(_console(), max(1, width)))


@lru_cache(maxsize=1)
def _console() -> Any:
    """A console to wrap text with (wrapping needs one; nothing is printed)."""
    from rich.console import Console

    return Console(width=10_000, color_system=None, legacy_windows=False)


def _evidence(item: Any) -> str:
    """``exit 1 · 1.8s · verifier v-7c1e`` (empty without evidence)."""
    parts = []
    if item.exit_code is not None:
        parts.append(f"exit {item.exit_code}")
    elif item.status != "pending":
        parts.append("no exit code")
    if item.duration_ms is not None:
        parts.append(format_duration(item.duration_ms))
    if item.verifier:
        parts.append(f"verifier {shown_line(str(item.verifier))}")
    return SEPARATOR.join(parts)


def item_lines(item: Any, *, width: int, styles: GateStyles, selected: bool, expanded: bool) -> list[Text]:
    """One row for an item (status, required, id, description, evidence), its details when narrow, and its
    full command and output when expanded."""
    status = str(item.status)
    wide = width >= WIDE_CELLS
    word = f"{status:<{STATUS_CELLS}}" if wide else status
    row = Text(SELECTED_MARK if selected else " ")
    row.append(f"{GLYPHS.get(status, UNKNOWN_GLYPH)} {word}", style=styles[status])
    row.append(" ")
    required = "required" if item.required else "optional"
    evidence = _evidence(item)
    if wide:
        row.append(f"{required:<8} ", style=styles["muted"])
    row.append(f"{shown_line(str(item.id))}: ", style=styles["heading"])
    row.append(shown(str(item.description), one_line=True))
    if wide and evidence:
        row = _fit(row, width - len(evidence) - 1)
        row.append(" " * max(1, width - len(evidence) - row.cell_len) + evidence, style=styles["muted"])
    row = _fit(row, width)
    if selected:
        row.pad_right(width - row.cell_len)
        row.stylize(styles["selected"])
    lines = [row]
    if not wide:
        details = [required, *(evidence.split(SEPARATOR) if evidence else ())]
        lines += _pack(details, width, styles["muted"], INDENT)
    if expanded:
        lines += expanded_lines(item, width, styles)
    return lines


def expanded_lines(item: Any, width: int, styles: GateStyles) -> list[Text]:
    """The item's full command (wrapped, cut only when enormous; every control and invisible character and
    line break visible), who checked it, and its output."""
    room = max(1, width - len(INDENT) - 2)
    command = shown_line(str(item.command))
    kept = command[: room * COMMAND_LINES_SHOWN]
    lines = [Text(f"{INDENT}{'$ ' if at == 0 else '  '}{kept[at:at + room]}", style=styles["heading"])
             for at in range(0, max(1, len(kept)), room)]
    if len(kept) < len(command):
        lines.append(Text(f"{INDENT}  … ({len(command) - len(kept):,} more characters)", style=styles["muted"]))
    if item.status == "pending":
        lines.append(_fit(Text(f"{INDENT}no evidence yet · c runs this check", style=styles["muted"]), width))
        return lines
    if item.agent:
        lines.append(_fit(Text(f"{INDENT}checked by {shown_line(str(item.agent))}", style=styles["muted"]), width))
    return lines + output_lines(str(item.output), width, styles)


def output_lines(output: str, width: int, styles: GateStyles) -> list[Text]:
    """At most :data:`OUTPUT_LINES_SHOWN` lines of ``output``, each cut to the width, the rest counted."""
    if not output:
        return [Text(f"{INDENT}(no output)", style=styles["muted"])]
    room = max(1, width - len(INDENT) - 2)
    parts = output.split("\n", OUTPUT_LINES_SHOWN)
    rest = ""
    if len(parts) > OUTPUT_LINES_SHOWN:
        rest = parts.pop()
    if parts and parts[-1] == "" and not rest:
        parts.pop()
    lines = [_fit(Text(f"{INDENT}│ {_output_line(line, room + 1)}", style=styles["muted"]), width) for line in parts]
    if rest:
        more = rest.count("\n") + (0 if rest.endswith("\n") else 1)
        lines.append(Text(f"{INDENT}… {more:,} more line{'s' if more != 1 else ''}", style=styles["muted"]))
    return lines


def _output_line(line: str, cells: int) -> str:
    """A line of a check's output as drawn: a CRLF line's carriage return dropped, other controls visible."""
    return shown(line[:cells + 1].removesuffix("\r"))[:cells]


def history_lines(history: Any, *, width: int, styles: GateStyles, now: float) -> list[Text]:
    """The last runs, newest first: outcome, age and run id."""
    if not history:
        return []
    recent = list(history)[-HISTORY_SHOWN:]
    lines = [_fit(Text(f"History · {len(history)} run{'s' if len(history) != 1 else ''}", style=styles["heading"]),
                  width)]
    colours = {"pass": "passed", "fail": "failed", "rework": "stale", "exempt": "muted"}
    for entry in reversed(recent):
        outcome = shown_line(str(entry.outcome))
        line = Text(" ")
        line.append(f"{OUTCOME_GLYPHS.get(outcome, UNKNOWN_GLYPH)} {outcome:<6}", style=styles[colours.get(outcome,
                                                                                                          "muted")])
        line.append(" ")
        line.append(format_age(max(0.0, now - entry.at)))
        line.append(f"{SEPARATOR}run {shown_line(str(entry.run_id))}", style=styles["muted"])
        lines.append(_fit(line, width))
    return lines


def gate_text(view: Any, *, width: int, styles: GateStyles, selected: int | None, expanded: Collection[str],
              now: float) -> GateText:
    """Every line of the pane for ``view``, and where each item's row is."""
    lines = head_lines(view, width, styles) + alert_lines(view, width, styles)
    passed, total = passed_count(view)
    lines.append(Text(""))
    lines.append(_fit(Text(f"Checks · {passed}/{total} passed", style=styles["heading"]), width))
    rows: list[int] = []
    for index, item in enumerate(view.items):
        rows.append(len(lines))
        lines += item_lines(item, width=width, styles=styles, selected=index == selected,
                            expanded=item.id in expanded)
    if not view.items:
        lines.append(_fit(Text("No check items: the gate can only pass as exempt.", style=styles["muted"]), width))
    history = history_lines(view.history, width=width, styles=styles, now=now)
    if history:
        lines += [Text(""), *history]
    return GateText(lines, rows)
