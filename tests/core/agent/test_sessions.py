"""The session log: writing, reading back, resuming and listing, on real files."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest

from ljtui.core.agent.session_owners import SessionOwners
from ljtui.core.agent.session_replay import Session, read_session, well_formed
from ljtui.core.agent.sessions import (
    Resumed, SessionLog, SessionRefused, list_sessions, new_session_id, resume_session,
)
from ljtui.core.clock import FixedClock
from ljtui.core.events import Usage
from ljtui.core.providers.base import Message, TextBlock, ToolResultBlock, ToolUseBlock
from ljtui.core.trust import TrustStore

START = 1_800_000_000.0


@pytest.fixture(autouse=True)
def state_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's state dir, private to each test."""
    home = tmp_path_factory.mktemp("xdg-state")
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo


def make_log(root: Path, session_id: str = "s-1", *, start: float = START, **options: object) -> SessionLog:
    names = iter([session_id, *(f"{session_id}-{n}" for n in range(1, 10))])
    return SessionLog(root, clock=FixedClock(start), new_id=lambda _now: next(names), version="9.9", **options)


def call(call_id: str, name: str = "read_file", **args: object) -> ToolUseBlock:
    return ToolUseBlock(call_id, name, dict(args))


def result(call_id: str, content: str = "ok", is_error: bool = False) -> ToolResultBlock:
    return ToolResultBlock(call_id, content, is_error)


CONVERSATION = [
    Message.user("fix the upload retry"),
    Message("assistant", (TextBlock("Reading it."), call("c1", path="src/upload.py"),
                          call("c2", "grep_files", pattern="retry", glob=["*.py"], deep={"a": [1, 2.5, None, True]}))),
    Message("user", (result("c1", "def upload(): ...\n"), result("c2", "no match: ünïcødé ✓", is_error=True))),
    Message("assistant", (TextBlock("Done."),)),
]


def write(log: SessionLog, messages: list[Message]) -> None:
    for message in messages:
        log.message(message)


def loaded(root: Path, session_id: str) -> Session:
    session = read_session(root, session_id)
    assert isinstance(session, Session), session
    return session


def test_a_session_round_trips_every_block_type_and_record(root: Path) -> None:
    log = make_log(root)
    write(log, CONVERSATION)
    log.usage(Usage(100, 20, 5, 1), 0.25)
    log.usage(Usage(50, 10), None)
    log.plan("# EDIT plan\n…", "planner")
    assert log.close()
    session = loaded(root, "s-1")
    assert session.history == tuple(CONVERSATION)
    assert session.usage == Usage(150, 30, 5, 1) and session.cost_usd == 0.25
    assert session.plan is not None and (session.plan.text, session.plan.origin) == ("# EDIT plan\n…", "planner")
    assert session.summary is None and session.warnings == () and session.complete
    header = session.header
    assert (header.id, header.started, header.repo, header.ljtui) == ("s-1", START, os.path.realpath(root), "9.9")
    assert session.first_message == "fix the upload retry"


def test_compression_rewind_and_clear_are_replayed(root: Path) -> None:
    log = make_log(root)
    write(log, CONVERSATION)
    log.compressed("The user wants the retry fixed.", 1)
    log.message(Message.user("and add a test"))
    log.message(Message("assistant", (TextBlock("partial"),)))
    log.rewound(2)
    log.close()
    session = loaded(root, "s-1")
    assert session.summary == "The user wants the retry fixed."
    assert session.history == (CONVERSATION[-1], Message.user("and add a test"))
    log = SessionLog.continuing(root, session, owners=SessionOwners.for_env(), version="9.9")
    log.cleared()
    log.message(Message.user("start over"))
    log.close()
    again = loaded(root, "s-1")
    assert again.summary is None and again.history == (Message.user("start over"),)
    assert session.first_message == "fix the upload retry"  # in the summary: a resume brings it back
    assert again.first_message == "start over"  # the clear forgot the rest: a resume starts here


def test_nothing_is_written_until_something_happens_then_git_ignores_it(root: Path) -> None:
    log = SessionLog(root, clock=FixedClock(START))
    assert log.close()
    assert not (root / ".agent").exists()
    log = make_log(root)
    log.message(Message.user("hi"))
    log.close()
    assert "sessions/" in (root / ".agent" / ".gitignore").read_text().splitlines()
    assert re.fullmatch(r"20270115-080000-[0-9a-f]{4}", new_session_id(START))
    assert new_session_id(START) < new_session_id(START + 1) < new_session_id(START + 86_400)


def test_a_taken_id_is_never_overwritten(root: Path) -> None:
    first = make_log(root)
    first.message(Message.user("one"))
    first.close()
    before = first.path.read_bytes()
    second = make_log(root)
    second.message(Message.user("two"))
    second.close()
    assert second.id == "s-1-1" and first.path.read_bytes() == before
    assert SessionOwners.for_env().owned(root) == {"s-1", "s-1-1"}


def test_created_sessions_are_recorded_privately_by_the_repository_real_path(root: Path, tmp_path: Path,
                                                                              state_home: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(root)
    log = make_log(link)
    log.message(Message.user("hi"))
    log.close()
    store = state_home / "ljtui" / "sessions.json"
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert json.loads(store.read_text()) == {"version": 1, "repositories": {os.path.realpath(root): ["s-1"]}}
    assert list_sessions(root).sessions[0].resumable


def test_resuming_your_own_session_goes_on_in_the_same_log(root: Path) -> None:
    log = make_log(root)
    write(log, CONVERSATION[:2])
    log.close()
    outcome = resume_session(root, "s-1", version="9.9")
    assert isinstance(outcome, Resumed)
    assert outcome.session.history == (CONVERSATION[0], Message("assistant", (TextBlock("Reading it."),)))
    outcome.log.message(Message.user("go on"))
    outcome.log.close()
    assert outcome.log.id == "s-1"
    assert loaded(root, "s-1").history[-1] == Message.user("go on")
    assert [p.name for p in (root / ".agent" / "sessions").iterdir()] == ["s-1.jsonl"]


def test_a_foreign_session_is_listed_marked_and_resumed_only_when_trusted(root: Path, tmp_path: Path) -> None:
    other_state = tmp_path / "someone-else"
    log = make_log(root, "theirs", owners=SessionOwners(other_state / "sessions.json"))
    write(log, CONVERSATION)
    log.plan("plan text", "plans/x.md")
    log.close()
    original = log.path.read_bytes()
    listing = list_sessions(root)
    (info,) = listing.sessions
    assert info.foreign and not info.resumable and "`ljtui trust`" in info.note
    refused = resume_session(root, "theirs")
    assert isinstance(refused, SessionRefused) and "`ljtui trust` allows" in refused.message

    TrustStore.for_env().trust(root, START)
    assert list_sessions(root).sessions[0].resumable
    outcome = resume_session(root, "theirs", new_id=lambda _now: "mine", version="9.9")
    assert isinstance(outcome, Resumed)
    outcome.log.message(Message.user("continue"))
    outcome.log.close()
    assert log.path.read_bytes() == original
    copy = loaded(root, "mine")
    assert copy.header.resumed_from == "theirs"
    assert copy.history == (*CONVERSATION, Message.user("continue"))
    assert copy.plan == outcome.session.plan and copy.usage == outcome.session.usage
    assert SessionOwners.for_env().owned(root) == {"mine"}


def test_listing_is_newest_first_with_the_first_message_shortened(root: Path) -> None:
    for n, (session_id, text) in enumerate([("b", "second " * 30), ("c", "third\x1b[2J\ttabbed"), ("a", "first")]):
        log = make_log(root, session_id, start=START + [10, 20, 0][n])
        log.message(Message("user", (result("x"),)))
        log.message(Message.user(text))
        log.close()
    empty = make_log(root, "d", start=START + 30)
    empty.usage(Usage(1, 1))
    empty.close()
    infos = list_sessions(root).sessions
    assert [i.id for i in infos] == ["d", "c", "b", "a"]
    assert [i.messages for i in infos] == [0, 1, 1, 1]
    assert infos[0].first_message == ""
    assert infos[1].first_message == "third [2J tabbed"
    assert len(infos[2].first_message) == 80 and infos[2].first_message.endswith("…")


def test_a_dangling_tool_call_is_dropped_and_orphan_results_too() -> None:
    ask = Message.user("read it")
    crashed = Message("assistant", (TextBlock("Reading."), call("c9")))
    assert well_formed([ask, crashed]) == [ask, Message("assistant", (TextBlock("Reading."),))]
    assert well_formed([ask, Message("assistant", (call("c9"),))]) == [ask]
    partial = Message("assistant", (call("a"), call("b"), call("a")))
    answer = Message("user", (TextBlock("note"), result("b"), result("zzz"), result("b")))
    assert well_formed([ask, partial, answer]) == [
        ask, Message("assistant", (call("b"),)), Message("user", (result("b"), TextBlock("note")))]
    assert well_formed([Message("user", (result("gone"),)), Message("assistant", (TextBlock(""),))]) == []


def test_a_summary_that_cuts_between_a_call_and_its_result_stays_well_formed(root: Path) -> None:
    log = make_log(root)
    write(log, CONVERSATION)
    log.compressed("summary", 2)
    log.close()
    assert loaded(root, "s-1").history == (CONVERSATION[-1],)


def test_a_write_failure_stops_the_log_and_is_reported_once(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".agent").mkdir()
    (root / ".agent" / "sessions").symlink_to(outside)
    problems: list[str] = []
    log = make_log(root, on_problem=problems.append)
    write(log, CONVERSATION)
    log.close()
    assert len(problems) == 1 and "is a symbolic link" in problems[0] and log.problem == problems[0]
    assert list(outside.iterdir()) == []


def test_an_unserialisable_or_oversized_record_is_skipped_with_a_warning(root: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from ljtui.core.agent import sessions

    log = make_log(root)
    log.message(Message.user("first"))
    log.message(Message("assistant", (call("c1", value=object()),)))
    monkeypatch.setattr(sessions, "MAX_RECORD_BYTES", 200)
    log.message(Message.user("x" * 300))
    log.message(Message.user("last"))
    log.close()
    assert len(log.warnings) == 2 and "TypeError" in log.warnings[0] and "200" in log.warnings[1]
    assert loaded(root, "s-1").history == (Message.user("first"), Message.user("last"))


def test_a_damaged_owner_record_owns_nothing_and_is_replaced(root: Path, state_home: Path) -> None:
    store = state_home / "ljtui" / "sessions.json"
    store.parent.mkdir(parents=True)
    for damaged in ("{not json", '{"version": 1, "repositories": {"relative": ["x"]}}', "[1, 2]"):
        store.write_text(damaged)
        owners = SessionOwners.for_env()
        assert owners.owned(root) == frozenset() and owners.warnings
    log = make_log(root)
    log.message(Message.user("hi"))
    log.close()
    assert SessionOwners.for_env().owned(root) == {"s-1"}
