"""Notices in the session log: written as the session shows them, read back strictly, replayed where they came
in the conversation, and each tool call's end (✓/✗) told by its result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ljtui.core.agent.session_notices import NoticeRecorder
from ljtui.core.agent.session_records import (
    MAX_NOTICE_CHARS, Malformed, NoticeShown, encode_record, notice_record, parse_record,
)
from ljtui.core.agent.session_replay import SavedNotice, read_session, transcript
from ljtui.core.events import Notice, TokenDelta, TranscriptEntry, TurnFailed
from ljtui.core.providers.base import Message, TextBlock
from tests.core.agent.test_sessions import CONVERSATION, loaded, make_log, write


@pytest.fixture(autouse=True)
def private_state(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("xdg-state")))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    return tmp_path / "repo"


class Kept:
    """The front end's sink: every event it was passed."""

    def __init__(self) -> None:
        self.events: list[object] = []

    def emit(self, event: object) -> None:
        self.events.append(event)


def test_a_notice_record_round_trips_and_a_long_or_unknown_one_is_made_fit() -> None:
    for record in (NoticeShown("warning", "the layer is off ✓"), NoticeShown("error", "")):
        assert parse_record(encode_record(record)[:-1]) == record
    assert notice_record("loud", "x") == NoticeShown("info", "x")
    long = notice_record("error", "y" * (MAX_NOTICE_CHARS + 5)).text
    assert len(long) == MAX_NOTICE_CHARS and long.endswith("…")
    assert parse_record(encode_record(NoticeShown("error", long))[:-1]) == NoticeShown("error", long)


@pytest.mark.parametrize("data, why", [
    ({"kind": "notice", "level": "debug", "text": "x"}, "notice level 'debug' is not one of info, warning, error"),
    ({"kind": "notice", "level": ["error"], "text": "x"}, "notice level ['error'] is not one of"),
    ({"kind": "notice", "level": "info"}, "notice record lacks text"),
    ({"kind": "notice", "level": "info", "text": "x", "markup": "[b]"}, "notice record has unknown keys 'markup'"),
    ({"kind": "notice", "level": "info", "text": 3}, "notice is not a string"),
    ({"kind": "notice", "level": "info", "text": "z" * (MAX_NOTICE_CHARS + 1)},
     f"notice is longer than {MAX_NOTICE_CHARS} characters"),
    ({"kind": "notice", "level": "info", "text": "\ud800"}, "notice holds a lone surrogate"),
])
def test_a_notice_record_that_is_not_exactly_one_ljtui_writes_is_malformed(data: dict, why: str) -> None:
    record = parse_record(json.dumps(data).encode())
    assert isinstance(record, Malformed) and record.reason.startswith(why)


def test_notices_alone_leave_no_session_and_once_it_began_they_are_kept_in_order(root: Path) -> None:
    log = make_log(root)
    recorder = NoticeRecorder(Kept(), lambda: log)
    recorder.emit(Notice("the sandbox is off", "warning"))
    log.close()
    assert not (root / ".agent").exists(), "a session of notices alone leaves nothing behind"
    log, front = make_log(root, "s-2"), Kept()
    recorder = NoticeRecorder(front, lambda: log)
    write(log, CONVERSATION[:1])
    recorder.emit(Notice("Compressed.", "info"))
    recorder.emit(TokenDelta(1, "words"))
    write(log, CONVERSATION[1:])
    recorder.emit(TurnFailed(1, "overloaded", "The model is overloaded; the conversation is kept."))
    log.close()
    assert [type(e) for e in front.events] == [Notice, TokenDelta, TurnFailed], "every event is passed on"
    assert loaded(root, "s-2").notices == (
        SavedNotice(1, "info", "Compressed."),
        SavedNotice(4, "error", "The model is overloaded; the conversation is kept."))


def test_a_rewind_a_summary_and_a_clear_take_the_notices_of_what_they_dropped(root: Path) -> None:
    log = make_log(root)
    write(log, CONVERSATION)
    log.notice("warning", "after four")
    log.message(Message.user("and add a test"))
    log.notice("error", "after five")
    log.rewound(4)
    log.notice("info", "rewound")
    log.close()
    assert loaded(root, "s-1").notices == (SavedNotice(4, "warning", "after four"), SavedNotice(4, "info", "rewound"))
    log = make_log(root, "s-2")
    write(log, CONVERSATION[:2])
    log.notice("info", "before the summary")
    write(log, CONVERSATION[2:])
    log.notice("info", "kept")
    log.compressed("summary", 1)
    log.close()
    assert loaded(root, "s-2").notices == (SavedNotice(1, "info", "kept"),)
    log = make_log(root, "s-3")
    write(log, CONVERSATION)
    log.notice("info", "gone")
    log.cleared()
    log.message(Message.user("again"))
    log.close()
    assert loaded(root, "s-3").notices == ()


def test_a_notice_is_placed_among_the_messages_left_after_dropped_ones(root: Path) -> None:
    log = make_log(root)
    write(log, [Message.user("one"), Message("assistant", (TextBlock(""),)), Message.user("two")])
    log.notice("warning", "after the empty reply")
    log.close()
    session = loaded(root, "s-1")
    assert len(session.history) == 2 and session.notices == (SavedNotice(2, "warning", "after the empty reply"),)


def test_the_transcript_marks_each_call_by_its_result_and_shows_notices_where_they_came() -> None:
    notices = (SavedNotice(1, "warning", "slow disk"), SavedNotice(4, "error", "failed"))
    entries = transcript(list(CONVERSATION[:3]), notices)
    assert entries == (
        TranscriptEntry("user", "fix the upload retry"),
        TranscriptEntry("notice", "slow disk", level="warning"),
        TranscriptEntry("assistant", "Reading it."),
        TranscriptEntry("tool", "read_file", {"path": "src/upload.py"}, ok=True),
        TranscriptEntry("tool", "grep_files", dict(CONVERSATION[1].content[2].input), ok=False),
        TranscriptEntry("notice", "failed", level="error"))
    [unanswered] = [e for e in transcript(list(CONVERSATION[:2])) if e.text == "read_file"]
    assert unanswered.ok is None, "a call with no result saved has no mark"


def test_a_notice_line_a_repository_planted_is_read_as_plain_text_and_a_bad_one_skipped(root: Path) -> None:
    log = make_log(root)
    log.message(Message.user("hi"))
    log.close()
    path = root / ".agent" / "sessions" / "s-1.jsonl"
    with path.open("ab") as out:
        out.write(encode_record(NoticeShown("warning", "[b]not markup[/b]")))
        out.write(b'{"kind":"notice","level":"info","text":"x","extra":1}\n')
    session = read_session(root, "s-1")
    assert session.notices == (SavedNotice(1, "warning", "[b]not markup[/b]"),)
    assert session.warnings and "1 malformed line skipped" in session.warnings[0]
