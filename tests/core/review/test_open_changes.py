"""Opening any tool's change for review: what ``/open`` accepts, and each way it refuses, as events."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.approval import ScriptedApprover
from ljtui.core.ports import FixedClock, ListSink
from ljtui.core.review import events as R
from ljtui.core.review.requests import ChangeText, ReviewRequest
from ljtui.core.review.service import ReviewService

DIFF = ("--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def greet(name):\n-    return 'hello ' + name\n"
        "+    return 'hi ' + name\n")


@pytest.fixture
def svc(git_repo: Path) -> tuple[ReviewService, ListSink]:
    sink = ListSink()
    return ReviewService(git_repo, sink, ScriptedApprover().decide, FixedClock()), sink


def failures(sink: ListSink) -> list[str]:
    return [e.message for e in sink.events if isinstance(e, R.PlanOpenFailed)]


def test_a_diff_file_and_a_change_already_read_open_with_their_source(svc, git_repo: Path) -> None:
    service, sink = svc
    (git_repo / "change.diff").write_text(DIFF, encoding="utf-8")
    assert service.open_typed("change.diff")
    [opened] = [e for e in sink.events if isinstance(e, R.PlanOpened)]
    [view] = opened.blocks
    assert (view.file, view.state, view.source) == ("app.py", "accepted", "hunk 1/1 of app.py (unified)")
    assert service.open_request(ReviewRequest(change=ChangeText(DIFF, "standard input")))
    assert failures(sink) == []


@pytest.mark.parametrize(("args", "message"), [
    ("", "name one change to open; usage: /open FILE | /open --git A..B | /open --format diff|aider|codex|edit FILE"),
    ("a.diff b.diff", "'b.diff': open one change at a time"),
    ("--format", "--format needs a value"),
    ("--format yaml a.diff", "unknown format 'yaml': use one of edit, diff, aider, codex"),
    ("'unclosed", "cannot read the arguments (No closing quotation)"),
    ("--git HEAD a.diff", "'a.diff': open one change at a time"),
    ("--git -x", "--git '-x': give a commit range (A..B) or one commit, not an option or an empty name"),
    ("--git nosuch..HEAD", "git diff nosuch..HEAD failed: fatal: bad revision 'nosuch..HEAD'"),
    ("--git HEAD", "git diff -R HEAD is empty: the working tree already matches it"),
    ("--format codex change.diff", "change.diff is not a valid Codex patch: MalformedPatch"),
])
def test_what_open_refuses_is_said_by_name(svc, git_repo: Path, args: str, message: str) -> None:
    service, sink = svc
    (git_repo / "change.diff").write_text(DIFF, encoding="utf-8")
    assert not service.open_typed(args)
    [failure] = failures(sink)
    assert failure.startswith(message) or message in failure, failure
    assert not service.active


def test_a_fifo_is_refused_without_waiting_for_a_writer(svc, git_repo: Path) -> None:
    service, sink = svc
    os.mkfifo(git_repo / "pipe.diff")
    assert not service.open_file("pipe.diff")
    assert failures(sink) == ["cannot open pipe.diff: it is a FIFO (named pipe), not a regular file"]
