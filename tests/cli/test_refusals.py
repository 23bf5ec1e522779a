"""Refusals of ``ljtui gates`` through the real CLI: a clear message, exit status 1, never "internal error"."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli.test_gates_cli import STAGED, ljtui, run_script
from tests.core.gates.scripted import GATE, call, with_tests

PASSED = [*STAGED, call("gate_check", item="tests"), call("gate_finish", outcome="pass"), {"text": "done"}]


def refused(proc: subprocess.CompletedProcess[str], *said: str) -> None:
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    for words in said:
        assert words in proc.stderr, proc.stderr


def test_a_second_rework_is_refused_as_a_refusal(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    assert run_script(repo, PASSED, "--yes").returncode == 0
    assert ljtui(repo, "gates", "rework", GATE).returncode == 0
    again = ljtui(repo, "gates", "rework", GATE)
    refused(again, f"ljtui gates rework: gate {GATE}: no passed delivery to send back: every passed run was "
                   "already reworked")
    assert "GateInvalid" not in again.stderr
    data = json.loads(ljtui(repo, "gates", "show", GATE, "--json").stdout)
    assert data["stats"]["reworks"] == 1, "the refused rework counted nothing"


def test_rework_without_a_passed_run_and_checks_of_unknown_things_are_refusals(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    assert run_script(repo, [*STAGED, {"text": "later"}], "--yes").returncode == 1  # a run left open, unchecked
    refused(ljtui(repo, "gates", "rework", GATE), f"gate {GATE} has no passed run to send back")
    refused(ljtui(repo, "gates", "check", GATE, "nope"), "has no item 'nope'")
    refused(ljtui(repo, "gates", "show", "nope"), "there is no gate 'nope'")
    refused(ljtui(repo, "gates", "rework", "nope"), "there is no gate 'nope'")
    assert ljtui(repo, "gates", "discard", GATE).returncode == 0
    refused(ljtui(repo, "gates", "discard", GATE), f"there is no open run of gate {GATE} to discard")
    refused(ljtui(repo, "gates", "deliver", GATE), "no open gate run")


async def test_a_second_slash_gates_rework_in_the_session_is_a_refusal_notice(git_repo: Path) -> None:
    from ljtui.core.config import Config
    from ljtui.core.engine import Engine
    from ljtui.core.events import Notice
    from ljtui.core.ports import ListSink

    repo = with_tests(git_repo)
    assert run_script(repo, PASSED, "--yes").returncode == 0
    sink = ListSink()
    engine = Engine(Config(), sink, repo_root=repo)
    try:
        assert await engine.gates_command(f"rework {GATE}") is None
        assert await engine.gates_command(f"rework {GATE}") is None, "refused, not raised"
    finally:
        await engine.aclose()
    notices = [e for e in sink.events if isinstance(e, Notice)]
    assert notices[-1].level == "error"
    assert notices[-1].message == "no passed delivery to send back: every passed run was already reworked"
