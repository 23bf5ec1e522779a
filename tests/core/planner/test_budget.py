"""Every planner prompt stays under its token budget; older tool results are elided first."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.planner.budget import (
    CHARS_PER_TOKEN, DEFAULT_PROMPT_BUDGET_TOKENS, Entry, estimate_tokens, fit_transcript,
)
from ljtui.core.planner.loop import run_planner
from tests.core.planner.helpers import GOOD_PLAN, RecordingClient, action

TURNS = 30
CHUNK_LINES = 1000
"""Lines each scripted read asks for: about 50,000 characters, close to the read limit."""
BIG_LINES = TURNS * CHUNK_LINES
REQUEST = "double the upload timeout"


def big_file(repo: Path) -> None:
    (repo / "big.py").write_text("".join(f"value_{n} = {n}  # padding padding padding padding\n"
                                         for n in range(BIG_LINES)))


def reads(count: int) -> list[str]:
    return [action("read_file", path="big.py", start_line=1 + CHUNK_LINES * k, end_line=CHUNK_LINES * (k + 1))
            for k in range(count)]


def prompt_tokens(client: RecordingClient, n: int) -> int:
    return estimate_tokens(client.requests[n].system + client.prompt(n))


def test_estimate_is_characters_over_four_rounded_up() -> None:
    assert CHARS_PER_TOKEN == 4
    assert [estimate_tokens("x" * n) for n in (0, 1, 4, 5, 400_000)] == [0, 1, 1, 2, 100_000]


def test_default_budget_is_the_config_default() -> None:
    assert DEFAULT_PROMPT_BUDGET_TOKENS == 100_000


def entry(n: int, rank: int | None, size: int) -> Entry:
    return Entry(f"## e{n}", "x" * size, rank=rank, what=f"entry {n}", how="ask again")


def test_fit_elides_tool_results_oldest_first_and_keeps_the_latest_turn() -> None:
    entries = [entry(0, 1, 100), entry(1, 0, 1000), entry(2, 1, 100), entry(3, 0, 1000), entry(4, 1, 100),
               entry(5, 0, 1000)]
    total = sum(len(e.render()) + 2 for e in entries)
    fitted = fit_transcript(entries, 0, (total - 900) // CHARS_PER_TOKEN)
    assert fitted[1].body == "[elided to stay within the prompt budget: entry 1; ask again]"
    assert [e.body for e in fitted[2:]] == [e.body for e in entries[2:]]
    everything = fit_transcript(entries, 0, 1)
    assert [e.body.startswith("[elided") for e in everything] == [True, True, True, True, False, False]


def test_fit_never_elides_unranked_entries_or_makes_an_entry_longer() -> None:
    entries = [entry(0, None, 5000), entry(1, 0, 3), entry(2, 0, 10), entry(3, 0, 10)]
    fitted = fit_transcript(entries, 0, 1)
    assert fitted == entries


async def test_a_thirty_turn_run_stays_under_the_budget(repo: Path) -> None:
    big_file(repo)
    client = RecordingClient(*reads(TURNS - 1), GOOD_PLAN)
    result = await run_planner(client, repo, REQUEST, max_turns=TURNS)
    assert result.ok and result.turns == TURNS
    assert max(prompt_tokens(client, n) for n in range(TURNS)) <= DEFAULT_PROMPT_BUDGET_TOKENS
    last = client.prompt(TURNS - 1)
    assert last.startswith(f"# Request\n\n{REQUEST}\n\n# Transcript")
    assert last.rstrip().endswith("only the harness reports tool output.")
    assert ("[elided to stay within the prompt budget: read_file big.py lines 1-1000 of 30000; "
            "call it again if you need it]") in last
    newest = f"read_file big.py lines {BIG_LINES - 2 * CHUNK_LINES + 1}-{BIG_LINES - CHUNK_LINES} of {BIG_LINES}"
    assert newest + "\n```\nvalue_28000 = 28000" in last  # the latest result is whole
    assert last.count("## Your reply (turn") == TURNS - 1  # replies stay; they are short


async def test_a_small_configured_budget_elides_more(repo: Path) -> None:
    big_file(repo)
    budget = 30_000
    client = RecordingClient(*reads(5), GOOD_PLAN)
    result = await run_planner(client, repo, REQUEST, prompt_budget_tokens=budget)
    assert result.ok
    assert all(prompt_tokens(client, n) <= budget for n in range(6))
    assert client.prompt(5).count("[elided to stay within the prompt budget: read_file") == 3  # 2 of 50k chars fit


@pytest.mark.parametrize("budget", [1, 1000])
async def test_a_budget_too_small_for_anything_keeps_the_request_and_the_latest_result(
        repo: Path, budget: int) -> None:
    big_file(repo)
    client = RecordingClient(*reads(3), GOOD_PLAN)
    result = await run_planner(client, repo, REQUEST, prompt_budget_tokens=budget)
    assert result.ok
    last = client.prompt(3)
    assert REQUEST in last and "# Instructions (repeated)" in last
    assert "value_2000 = 2000" in last and "value_0 = 0" not in last
