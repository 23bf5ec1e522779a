"""Gate views as the gate service would build them, for the Gates pane, the dialogs and the notices.

The risk always comes from :func:`ljtui.core.gates.model.risk`, as the service computes it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ljtui.core.events import GateChanged
from ljtui.core.gates.model import Evidence, Factors, HistoryEntry, Stats, risk
from ljtui.core.gates.view import GateView, ItemView
from ljtui.tui.messages import EngineEventPosted

NOW = 1_800_000_000.0
"""The tests' fixed clock (``FixedClock``'s start)."""
RUN = "20270115-0800-a1b2"

FACTORS = Factors(change_surface=0.6, chain_length=0.4, cognitive_density=0.7, objectively_verifiable=True,
                  irreversible=True)
"""D = 0.5667·0.7 + 0.3 ≈ 0.70; with P 0.5, R ≈ 0.60: L2."""
L3_FACTORS = Factors(change_surface=0.9, chain_length=0.8, cognitive_density=0.9, objectively_verifiable=False,
                     irreversible=True)
"""D = 1.0 (clamped); with P 0.5, R = 0.75: L3."""

PYTEST_FAILURE = """\
============================= test session starts ==============================
collected 14 items

tests/test_counting.py ....F.........                                    [100%]

=================================== FAILURES ===================================
_______________________________ test_top_n_ties ________________________________

    def test_top_n_ties():
>       assert top(["b", "a", "b", "a"], 1) == [("a", 2)]
E       AssertionError: assert [('b', 2)] == [('a', 2)]

tests/test_counting.py:41: AssertionError
=========================== short test summary info ============================
FAILED tests/test_counting.py::test_top_n_ties - AssertionError
========================= 1 failed, 13 passed in 0.41s =========================
"""

ITEMS = (
    ItemView("tests", "The test suite passes", "python -m pytest -q tests", True, "failed", exit_code=1,
             duration_ms=1840, output=PYTEST_FAILURE, agent="chat"),
    ItemView("lint", "No lint errors", "ruff check wordstats tests", True, "stale", exit_code=0,
             duration_ms=312, output="All checks passed!\n", agent="chat"),
    ItemView("cli", "The CLI prints the top 3 words", "python -m wordstats --top 3 README.md", True, "independent",
             exit_code=0, duration_ms=655, output="the 41\nwords 17\ncount 9\n", agent="verifier-7c1e",
             verifier="verifier-7c1e"),
    ItemView("types", "Type check the package", "mypy wordstats", False, "passed", exit_code=0, duration_ms=4210,
             output="Success: no issues found in 4 source files\n", agent="chat"),
    ItemView("docs", "README documents --top", "grep -q -- '--top' README.md", True, "pending"),
)

HISTORY = (
    HistoryEntry("20270112-0931-77c0", "pass", NOW - 3 * 86_400,
                 (Evidence("tests", "python -m pytest -q tests", 0, 1700, "14 passed", "h1", "chat", "", 0.0),)),
    HistoryEntry("20270113-1402-0d3f", "fail", NOW - 2 * 86_400 + 300),
    HistoryEntry("20270114-1710-5e2a", "rework", NOW - 5 * 3600),
)

STATS = Stats(runs=2, passed=1, failed=1, reworks=1)
"""P = 1 / (2 + 2) = 0.25."""


def blocked_lines(items: tuple[ItemView, ...]) -> tuple[str, ...]:
    """The service's reasons for refusing delivery: one per missing, failed or stale required item."""
    words = {"pending": "no evidence yet", "failed": "failed", "stale": "stale"}
    return tuple(f"{i.id}: {words[i.status]}" for i in items if i.required and i.status in words)


def gate_view(**changes: Any) -> GateView:
    """A started L2 gate with failed, passed, independent, stale and pending items and a history."""
    factors = changes.pop("factors", FACTORS)
    stats = changes.pop("stats", Stats())
    items = changes.pop("items", ITEMS)
    the_risk = risk(factors, stats)
    base = GateView(
        id="add-top-option", title="Add a --top option to wordstats", level=the_risk.level, risk=the_risk,
        factors=factors, stats=stats, confirmed=True, started=True, run_id=RUN, items=items, history=HISTORY,
        staged_files=("wordstats/cli.py", "wordstats/counting.py", "tests/test_counting.py"),
        blocked=blocked_lines(items), bounces=1,
    )
    return dataclasses.replace(base, **changes)


def proposed_view(**changes: Any) -> GateView:
    """The same gate just proposed: nothing confirmed, started or checked yet."""
    items = tuple(dataclasses.replace(i, status="pending", exit_code=None, duration_ms=None, output="", agent="",
                                      verifier="") for i in changes.pop("items", ITEMS))
    fields: dict[str, Any] = {"confirmed": False, "started": False, "run_id": "", "staged_files": (),
                              "blocked": (), "bounces": 0, "history": ()}
    return gate_view(items=items, **{**fields, **changes})


def many_items(count: int, *, command_chars: int = 0, output_chars: int = 0) -> tuple[ItemView, ...]:
    """``count`` items cycling through every status, with optionally huge commands and outputs."""
    statuses = ("passed", "failed", "stale", "independent", "pending")
    items = []
    for n in range(count):
        status = statuses[n % len(statuses)]
        command = f"python -m pytest -q tests/test_part_{n}.py" + (" -k " + "x" * command_chars if command_chars
                                                                   else "")
        checked = status != "pending"
        output = ("line of output\n" * (output_chars // 15 + 1))[:output_chars] if output_chars else "ok\n"
        items.append(ItemView(f"part-{n}", f"Part {n} of the suite passes", command, n % 3 != 2, status,
                              exit_code=(1 if status == "failed" else 0) if checked else None,
                              duration_ms=100 + n if checked else None, output=output if checked else "",
                              verifier="verifier-9" if status == "independent" else ""))
    return tuple(items)


def post_gate(app, view: GateView | None) -> None:
    """Deliver a ``GateChanged`` through the app's event path, as the bridge does."""
    app.post_message(EngineEventPosted(GateChanged(view)))
