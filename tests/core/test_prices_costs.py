"""Prices of known models (never a guess for others) and what ``/cost`` lists: each model call, task and gate run."""

from __future__ import annotations

import pytest

from ljtui.core.costs import MAX_CALLS_SHOWN, NO_PRICE, CostLedger, format_cost
from ljtui.core.events import Usage, UsageRecorded
from ljtui.core.gates.events import GateCheckRecorded, GateFinished, GateStarted
from ljtui.core.prices import published_rates, rates_for_model
from ljtui.core.providers.pricing import cost_usd
from ljtui.core.tasks.events import TaskFinished, TaskStarted
from ljtui.core.tasks.plan import TaskStatus


@pytest.mark.parametrize(("provider", "model", "rates"), [
    ("anthropic", "claude-sonnet-4-5", (3, 15)),
    ("anthropic", "claude-sonnet-4-5-20250929", (3, 15)),
    ("anthropic", "claude-3-5-haiku-latest", (0.8, 4)),
    ("openai-compatible", "gpt-4o", (2.5, 10)),
    ("openai-compatible", "gpt-4o-mini", (0.15, 0.6)),
    ("openai-compatible", "gpt-4o-2024-08-06", (2.5, 10)),
])
def test_a_known_model_at_its_provider_has_its_published_price(provider: str, model: str,
                                                               rates: tuple[float, float]) -> None:
    found = published_rates(provider, model)
    assert found is not None and (found["input"], found["output"]) == rates


@pytest.mark.parametrize(("provider", "model", "base_url"), [
    ("anthropic", "claude-sonnet-5-5", None),  # not in the table
    ("anthropic", "claude-sonnet-4-5-preview", None),  # a likeness is not the model
    ("openai-compatible", "gpt-4o-mini-fast", None),
    ("openai-compatible", "gpt-4o", "http://localhost:8080/v1"),  # a local server named like OpenAI's model
    ("openai-compatible", "claude-sonnet-4-5", None),  # another provider's model
    ("anthropic", "claude-sonnet-4-5", "https://proxy.example.com"),
    ("scripted", "claude-sonnet-4-5", None),
])
def test_an_unknown_model_or_endpoint_has_no_price(provider: str, model: str, base_url: str | None) -> None:
    assert published_rates(provider, model, base_url) is None


def test_the_providers_own_endpoint_keeps_the_price() -> None:
    assert published_rates("openai-compatible", "gpt-4.1", "https://api.openai.com/v1") is not None


def test_a_configured_price_wins_and_prices_a_model_the_table_does_not_know() -> None:
    mine = {"input": 1.0, "output": 2.0}
    assert rates_for_model({"claude-sonnet-4-5": mine}, "anthropic", "claude-sonnet-4-5") == mine
    assert rates_for_model({"my-local": mine}, "openai-compatible", "my-local", "http://localhost:1") == mine
    assert rates_for_model({}, "openai-compatible", "my-local", "http://localhost:1") is None


def test_cost_of_a_call_with_cache_reads_at_the_published_rates() -> None:
    rates = published_rates("anthropic", "claude-sonnet-4-5")
    usage = Usage(input_tokens=1_000_000, output_tokens=100_000, cache_read_tokens=1_000_000)
    assert cost_usd(usage, rates) == pytest.approx(3 + 1.5 + 0.3)


def test_costs_are_shown_in_cents_or_under_a_cent() -> None:
    assert [format_cost(c) for c in (0.1234, 0.004, 0.0, None)] == ["$0.12", "$0.004", "$0.00", NO_PRICE]


def _call(agent: str, tokens: int, cost: float | None, seconds: float = 1.5) -> UsageRecorded:
    usage = Usage(input_tokens=tokens, output_tokens=tokens // 10)
    return UsageRecorded(1, usage, usage, cost, None, agent=agent, model="claude-sonnet-4-5", seconds=seconds)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_ledger_lists_each_call_task_and_gate_run() -> None:
    clock = Clock()
    ledger = CostLedger(clock)
    events = [
        _call("router", 500, 0.001),
        GateStarted("greet", "run-9", 2, True),
        TaskStarted("plan-1", 1, "Read app.py"),
        _call("task 1", 2_000, 0.01),
        _call("task 1", 3_000, 0.02),
        GateCheckRecorded("greet", "run-9", "tests", 0, 2_500, "", "chat"),
    ]
    for event in events:
        ledger.observe(event)
    clock.now = 112.0
    for event in (TaskFinished("plan-1", 1, "Read app.py", TaskStatus.DONE), _call("chat", 1_000, 0.005),
                  GateFinished("greet", "run-9", "pass"), _call("chat", 100, 0.001)):
        ledger.observe(event)
    text = "\n".join(ledger.lines())
    assert text.splitlines()[0] == "5 model calls: 6.6k in, 660 out, 0 cached, cost $0.04, 7.5s waiting for the model."
    assert "router  claude-sonnet-4-5   500   50       0  $0.001  1.5s" in text
    assert "1. Read app.py      2  5.0k  500  $0.03   12s    done" in text
    assert "greet L2      3  6.0k  600  $0.03  2.5s    pass" in text, "the calls while the gate run was open"


def test_a_row_with_an_unpriced_call_says_it_has_no_price_rather_than_a_partial_sum() -> None:
    ledger = CostLedger(Clock())
    for event in (TaskStarted("p", 2, "Edit"), _call("task 2", 1_000, 0.01), _call("task 2", 1_000, None)):
        ledger.observe(event)
    lines = ledger.lines()
    assert lines[0].startswith("2 model calls: 2.0k in, 200 out, 0 cached, cost —,")
    [row] = [line for line in lines if line.startswith("2. Edit")]
    assert row.split()[-3:] == [NO_PRICE, "0.0s", "running"]
    assert lines[-1].startswith(f"{NO_PRICE}: no known price")


def test_no_calls_yet_is_one_line() -> None:
    assert CostLedger(Clock()).lines() == ["0 model calls: 0 in, 0 out, 0 cached, cost $0.00, 0.0s waiting for the "
                                           "model."]


def test_only_the_newest_calls_are_listed_but_every_call_counts() -> None:
    ledger = CostLedger(Clock())
    for _ in range(MAX_CALLS_SHOWN + 5):
        ledger.observe(_call("chat", 10, 0.0))
    lines = ledger.lines()
    assert lines[0].startswith(f"{MAX_CALLS_SHOWN + 5} model calls")
    assert f"Model calls (newest {MAX_CALLS_SHOWN} of {MAX_CALLS_SHOWN + 5}):" in lines
    assert sum(line.startswith("chat ") for line in lines) == MAX_CALLS_SHOWN


def test_a_task_description_is_shown_plain_and_cut() -> None:
    ledger = CostLedger(Clock())
    ledger.observe(TaskStarted("p", 1, "\x1b[31mred\x1b[0m " + "x" * 60))
    ledger.observe(_call("task 1", 10, 0.0))
    row = next(line for line in ledger.lines() if line.startswith("1. "))
    assert "\x1b" not in row and "…" in row
