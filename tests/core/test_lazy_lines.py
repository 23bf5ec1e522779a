"""A question's lines written only when read: ``ljtui apply --yes`` never draws the diff it is not shown."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ljtui.core.approval import AllowAll, LazyLines, ScriptedApprover, confirm
from ljtui.core.clock import SystemClock
from ljtui.core.edits.service import EditService
from ljtui.core.ports import ListSink
from tests.core.edits.helpers import block, plan_text


def test_lines_are_written_once_on_first_read_and_compare_as_a_tuple() -> None:
    writes: list[int] = []

    def write() -> list[str]:
        writes.append(1)
        return ["--- a/x", "+++ b/x"]

    lines = LazyLines(write)
    request = confirm("apply", "Apply?", lines, "apply")
    assert writes == [] and repr(lines) == "LazyLines(unread)"
    assert list(request.lines) == ["--- a/x", "+++ b/x"] and len(request.lines) == 2 and request.lines[0] == "--- a/x"
    assert request.lines == ("--- a/x", "+++ b/x") and hash(lines) == hash(("--- a/x", "+++ b/x"))
    assert writes == [1], "written once"
    assert lines != "--- a/x+++ b/x"


def _apply(git_repo: Path, approver) -> list[str]:
    seen: list[str] = []

    async def ask(request):
        seen.append(repr(request.lines))
        return await approver.decide(request)

    plan = git_repo.parent / "plan.md"
    plan.write_text(plan_text(block(1, "app.py", "    return 'hello ' + name\n", "    return 'hi ' + name\n")))
    outcome = asyncio.run(EditService(git_repo, ListSink(), ask, SystemClock()).apply_file(plan))
    assert outcome.result.status == "done"
    return seen


def test_a_policy_that_answers_unread_never_draws_the_diff(git_repo: Path) -> None:
    assert _apply(git_repo, AllowAll()) == ["LazyLines(unread)"]


def test_a_human_reading_the_question_sees_the_whole_diff(git_repo: Path) -> None:
    class Reader(ScriptedApprover):
        async def decide(self, request):
            self.read = list(request.lines)
            return await super().decide(request)

    reader = Reader({"apply": ["yes"]})
    _apply(git_repo, reader)
    assert reader.read[:2] == ["--- a/app.py", "+++ b/app.py"]
    assert "-    return 'hello ' + name" in reader.read and "+    return 'hi ' + name" in reader.read
