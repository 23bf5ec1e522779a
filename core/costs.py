"""What the session's model calls, tasks and gate runs used (``/cost``), gathered from the engine's events.

Every model call is reported by a ``UsageRecorded`` event (failed calls the
server counted too), naming the agent that made it (``task N`` for a task of a
task plan). A task's row adds the calls of its agent between its
``TaskStarted`` and ``TaskFinished``; a gate run's row adds every call made
while the run is open (the agent working under the gate, its tasks, the
verifier), and the time its checks took.
A row's cost is shown only when every call in it was priced
(:mod:`ljtui.core.prices`); otherwise it says so, never a partial sum passed
off as the whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from ljtui.core.display import shown_line
from ljtui.core.event_base import Event, Usage

if TYPE_CHECKING:
    from ljtui.core.events import UsageRecorded

MAX_CALLS_SHOWN = 50
"""Newest model calls listed one by one (every call counts in the totals)."""
MAX_ROWS_SHOWN = 50
"""Newest tasks and gate runs listed."""
DESCRIPTION_CHARS = 28
"""Longest task description or agent name shown in a column."""
GATE_KINDS = frozenset({"gate_started", "gate_check_recorded", "gate_finished"})
NO_PRICE = "—"
"""The cost column of a row with a call whose model has no known price."""


def format_tokens(n: int) -> str:
    """``950``, ``12.3k``, ``4.1M``."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


def format_cost(cost: float | None) -> str:
    """``$0.12``, ``$0.004`` (under a cent), ``$0.00``; :data:`NO_PRICE` when unknown."""
    if cost is None:
        return NO_PRICE
    if 0 < cost < 0.01:
        return f"${cost:.3f}"
    return f"${cost:.2f}"


def format_seconds(seconds: float) -> str:
    """``0.4s``, ``12s``, ``3m 05s``."""
    if seconds < 10:
        return f"{seconds:.1f}s"
    whole = int(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m {whole % 60:02d}s"


@dataclass
class Tally:
    """Tokens, cost (``None`` once a call was not priced) and time of some model calls."""

    usage: Usage = field(default_factory=Usage)
    cost: float | None = 0.0
    calls: int = 0
    seconds: float = 0.0

    def add(self, event: UsageRecorded) -> None:
        self.usage = self.usage + event.call
        self.cost = None if self.cost is None or event.cost_usd is None else self.cost + event.cost_usd
        self.calls += 1
        self.seconds += event.seconds


@dataclass
class Row:
    """A task or a gate run: its label, its calls' tally, how it ended (``""`` while it runs)."""

    label: str
    tally: Tally = field(default_factory=Tally)
    started: float = 0.0
    status: str = ""
    seconds: float = 0.0
    """Time of the work itself: a task from start to end, a gate run's checks."""


class CostLedger:
    """Folds engine events into the rows ``/cost`` shows. ``monotonic`` times tasks."""

    def __init__(self, monotonic: Callable[[], float]) -> None:
        self._monotonic = monotonic
        self.total = Tally()
        self.calls: list[UsageRecorded] = []
        self.tasks: dict[tuple[str, int], Row] = {}
        self.gates: dict[tuple[str, str], Row] = {}
        self._task_of_agent: dict[str, tuple[str, int]] = {}
        self._open_gates: list[tuple[str, str]] = []

    def observe(self, event: Event) -> None:
        """Take one engine event into account (events of other kinds are passed over)."""
        kind = event.kind  # by name: the event modules are imported only once events come (start-up time)
        if kind == "usage_recorded":
            self._call(event)  # type: ignore[arg-type]
        elif kind == "task_started":
            key = (event.run_id, event.task_id)  # type: ignore[attr-defined]
            row = self.tasks.setdefault(key, Row(f"{key[1]}. {event.description}"))  # type: ignore[attr-defined]
            row.started, row.status = self._monotonic(), ""
            self._task_of_agent[f"task {key[1]}"] = key
        elif kind == "task_finished":
            row = self.tasks.get((event.run_id, event.task_id))  # type: ignore[attr-defined]
            if row is not None:
                row.seconds += max(0.0, self._monotonic() - row.started)
                status = event.status  # type: ignore[attr-defined]
                row.status = str(getattr(status, "value", status))
        elif kind in GATE_KINDS:
            self._gate(kind, event)

    def _gate(self, kind: str, event: Event) -> None:
        key = (event.gate, event.run_id)  # type: ignore[attr-defined]
        if kind == "gate_started":
            self.gates.setdefault(key, Row(f"{key[0]} L{event.level}"))  # type: ignore[attr-defined]
            self._open_gates.append(key)
            return
        row = self.gates.get(key)
        if row is None:
            return
        if kind == "gate_check_recorded":
            row.seconds += max(0, event.duration_ms) / 1000  # type: ignore[attr-defined]
        else:
            row.status = event.outcome  # type: ignore[attr-defined]
            if key in self._open_gates:
                self._open_gates.remove(key)

    def _call(self, event: UsageRecorded) -> None:
        self.total.add(event)
        self.calls.append(event)
        del self.calls[:-MAX_CALLS_SHOWN]
        task = self._task_of_agent.get(event.agent)
        if task is not None and not self.tasks[task].status:
            self.tasks[task].tally.add(event)
        if self._open_gates:
            self.gates[self._open_gates[-1]].tally.add(event)

    def lines(self) -> list[str]:
        """The ``/cost`` listing: the totals, then a table per model call, per task and per gate run."""
        total = self.total
        lines = [f"{total.calls} model call{'s' if total.calls != 1 else ''}: {_tokens(total.usage)}, "
                 f"cost {_cost(total)}, {format_seconds(total.seconds)} waiting for the model."]
        if not total.calls:
            return lines
        shown = self.calls
        calls = [(_cut(c.agent or "chat"), _cut(c.model), format_tokens(c.call.input_tokens),
                  format_tokens(c.call.output_tokens), format_tokens(c.call.cache_read_tokens), format_cost(c.cost_usd),
                  format_seconds(c.seconds)) for c in shown]
        lines += ["", f"Model calls{_newest(total.calls, len(shown))}:",
                  *_table(("agent", "model", "in", "out", "cached", "cost", "time"), left=2, rows=calls)]
        for title, rows in (("Tasks", self.tasks), ("Gate runs", self.gates)):
            if rows:
                listed = list(rows.values())[-MAX_ROWS_SHOWN:]
                lines += ["", f"{title}{_newest(len(rows), len(listed))}:",
                          *_table(("", "calls", "in", "out", "cost", "time", "status"), left=1,
                                  rows=[_work_row(r) for r in listed])]
        if total.cost is None:
            lines += ["", f"{NO_PRICE}: no known price for the model (set provider.prices to price it)."]
        return lines


def _work_row(row: Row) -> tuple[str, ...]:
    usage = row.tally.usage
    return (_cut(row.label), str(row.tally.calls), format_tokens(usage.input_tokens),
            format_tokens(usage.output_tokens), _cost(row.tally), format_seconds(row.seconds),
            row.status or "running")


def _tokens(usage: Usage) -> str:
    return (f"{format_tokens(usage.input_tokens)} in, {format_tokens(usage.output_tokens)} out, "
            f"{format_tokens(usage.cache_read_tokens)} cached")


def _cost(tally: Tally) -> str:
    return format_cost(tally.cost) if tally.calls else format_cost(0.0)


def _newest(count: int, shown: int) -> str:
    return f" (newest {shown} of {count})" if shown < count else ""


def _cut(text: str) -> str:
    text = shown_line(text)
    return text if len(text) <= DESCRIPTION_CHARS else text[:DESCRIPTION_CHARS - 1] + "…"


def _table(header: tuple[str, ...], *, left: int, rows: list[tuple[str, ...]]) -> list[str]:
    """Columns padded to their widest cell: the first ``left`` left-aligned (names), the rest right-aligned."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows)]

    def line(cells: tuple[str, ...]) -> str:
        shown = [cell.ljust(width) if i < left else cell.rjust(width)
                 for i, (cell, width) in enumerate(zip(cells, widths))]
        return "  ".join(shown).rstrip()

    return [line(cells) for cells in (header, *rows)]
