"""A session log is untrusted input: a repository can commit anything in ``.agent/sessions/``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ljtui.core.agent.session_records import MAX_RECORD_BYTES
from ljtui.core.agent.session_replay import MAX_HEADER_BYTES, Session, SessionUnreadable, read_session
from ljtui.core.agent.sessions import SessionRefused, list_sessions, resume_session
from ljtui.core.providers.base import Message, TextBlock

SESSIONS = Path(".agent/sessions")
HEADER = {"kind": "session", "version": 1, "id": "evil", "started": 1_800_000_000, "repo": "/x", "ljtui": "0.1"}
HELLO = {"kind": "message", "role": "user", "content": [{"type": "text", "text": "hello"}]}
BYE = {"kind": "message", "role": "assistant", "content": [{"type": "text", "text": "bye"}]}


@pytest.fixture(autouse=True)
def state_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("xdg-state")
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / SESSIONS).mkdir(parents=True)
    return repo


def raw(obj: object) -> bytes:
    return json.dumps(obj).encode()


def line(obj: object) -> bytes:
    return raw(obj) + b"\n"


def plant(root: Path, *lines: bytes, session_id: str = "evil") -> Path:
    path = root / SESSIONS / f"{session_id}.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def loaded(root: Path, session_id: str = "evil") -> Session:
    session = read_session(root, session_id)
    assert isinstance(session, Session), session
    return session


def text_message(text: object, role: object = "user") -> dict[str, object]:
    return {"kind": "message", "role": role, "content": [{"type": "text", "text": text}]}


BAD_LINES = {
    "not JSON": b"{nope",
    "not an object": b"[1, 2]",
    "not UTF-8": b'{"kind": "message", "\xff": 1}',
    "unknown kind": raw({"kind": "shell", "command": "rm -rf /"}),
    "unknown key": raw({**HELLO, "extra": 1}),
    "missing key": raw({"kind": "message", "role": "user"}),
    "role": raw(text_message("x", role="system")),
    "role type": raw(text_message("x", role=1)),
    "text type": raw(text_message(42)),
    "content type": raw({"kind": "message", "role": "user", "content": "hello"}),
    "block type": raw({"kind": "message", "role": "user", "content": [{"type": "image", "data": "…"}]}),
    "tool_use from the user": raw({"kind": "message", "role": "user",
                                   "content": [{"type": "tool_use", "id": "a", "name": "b", "input": {}}]}),
    "tool_result from the model": raw({"kind": "message", "role": "assistant", "content": [
        {"type": "tool_result", "tool_use_id": "a", "content": "x", "is_error": False}]}),
    "is_error type": raw({"kind": "message", "role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "a", "content": "x", "is_error": "no"}]}),
    "block extra key": raw({"kind": "message", "role": "user", "content": [{"type": "text", "text": "x", "y": 1}]}),
    "empty tool id": raw({"kind": "message", "role": "assistant", "content": [
        {"type": "tool_use", "id": "", "name": "b", "input": {}}]}),
    "tool input type": raw({"kind": "message", "role": "assistant", "content": [
        {"type": "tool_use", "id": "a", "name": "b", "input": [1]}]}),
    "deep tool input": raw({"kind": "message", "role": "assistant", "content": [
        {"type": "tool_use", "id": "a", "name": "b", "input": {"k": json.loads("[" * 100 + "]" * 100)}}]}),
    "deep JSON": b'{"kind": "message", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "lone surrogate": b'{"kind": "message", "role": "user", "content": [{"type": "text", "text": "\\ud800"}]}',
    "negative tokens": raw({"kind": "usage", "input_tokens": -1, "output_tokens": 0, "cache_read_tokens": 0,
                            "cache_write_tokens": 0, "cost_usd": None}),
    "boolean tokens": raw({"kind": "usage", "input_tokens": True, "output_tokens": 0, "cache_read_tokens": 0,
                           "cache_write_tokens": 0, "cost_usd": None}),
    "NaN cost": b'{"kind": "usage", "input_tokens": 1, "output_tokens": 0, "cache_read_tokens": 0, '
                b'"cache_write_tokens": 0, "cost_usd": NaN}',
    "rewind count": raw({"kind": "rewind", "messages": "all"}),
    "second header": raw(HEADER),
    "cleared with data": raw({"kind": "cleared", "history": []}),
    "too many blocks": raw({"kind": "message", "role": "user",
                            "content": [{"type": "text", "text": "x"}] * 1025}),
}


REASONS = {
    "not JSON": "not JSON",
    "not an object": "not a JSON object",
    "not UTF-8": "not UTF-8",
    "unknown kind": "unknown kind 'shell'",
    "unknown key": "unknown keys 'extra'",
    "missing key": "lacks content",
    "role": "neither user nor assistant",
    "role type": "neither user nor assistant",
    "text type": "text is not a string",
    "content type": "content is not a list",
    "block type": "type 'image'",
    "tool_use from the user": "a user message cannot hold a block of type 'tool_use'",
    "tool_result from the model": "an assistant message cannot hold a block of type 'tool_result'",
    "is_error type": "is_error is not true or false",
    "block extra key": "exactly the keys type, text",
    "empty tool id": "tool_use id is empty",
    "tool input type": "tool input is not an object",
    "deep tool input": "nests deeper than 64",
    "deep JSON": "RecursionError",
    "lone surrogate": "lone surrogate",
    "negative tokens": "input_tokens is not a whole number",
    "boolean tokens": "input_tokens is not a whole number",
    "NaN cost": "not JSON",
    "rewind count": "messages is not a whole number",
    "second header": "a second header",
    "cleared with data": "unknown keys 'history'",
    "too many blocks": "at most 1024 blocks",
}


@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_a_malformed_line_is_skipped_and_counted(root: Path, name: str) -> None:
    plant(root, line(HEADER), line(HELLO), BAD_LINES[name] + b"\n", line(BYE))
    session = loaded(root)
    assert session.history == (Message.user("hello"), Message("assistant", (TextBlock("bye"),)))
    (warning,) = session.warnings
    assert "1 malformed line skipped (line 3: " in warning and REASONS[name] in warning


def test_many_malformed_lines_are_counted_in_one_warning(root: Path) -> None:
    plant(root, line(HEADER), *(BAD_LINES[n] + b"\n" for n in sorted(BAD_LINES)), line(HELLO))
    session = loaded(root)
    assert session.history == (Message.user("hello"),)
    (warning,) = session.warnings
    assert f"{len(BAD_LINES)} malformed lines skipped" in warning and f"and {len(BAD_LINES) - 3} more" in warning


def test_a_huge_line_is_skipped_unread(root: Path) -> None:
    huge = b'{"kind": "message", "role": "user", "content": [{"type": "text", "text": "' + \
        b"x" * MAX_RECORD_BYTES + b'"}]}\n'
    plant(root, line(HEADER), huge, line(HELLO))
    session = loaded(root)
    assert session.history == (Message.user("hello"),)
    assert f"line 2: longer than {MAX_RECORD_BYTES} bytes" in session.warnings[0]


def test_a_line_cut_short_by_a_crash_is_dropped_silently(root: Path) -> None:
    plant(root, line(HEADER), line(HELLO), line(BYE)[:-9])
    session = loaded(root)
    assert session.history == (Message.user("hello"),) and session.warnings == ()


def test_a_log_larger_than_the_bound_is_read_in_part_and_not_resumed(root: Path) -> None:
    plant(root, line(HEADER), *[line(HELLO)] * 50)
    session = read_session(root, "evil", limit=1000)
    assert isinstance(session, Session) and not session.complete and session.size <= 1000
    assert "only the start was read" in session.warnings[0]
    refused = resume_session(root, "evil", trusted=True, limit=1000)
    assert isinstance(refused, SessionRefused) and "larger than 1000 bytes" in refused.message


@pytest.mark.parametrize("content, why", [
    (line(HELLO), "not a header"),
    (line({**HEADER, "id": "other"}), "not a header"),
    (line({**HEADER, "version": 2}), "version 2"),
    (line({**HEADER, "started": float("inf")}).replace(b"Infinity", b"1e400"), "started"),
    (b"\x00" * 100, "not JSON"),
])
def test_a_log_without_a_valid_header_is_unreadable(root: Path, content: bytes, why: str) -> None:
    plant(root, content, line(HELLO))
    outcome = read_session(root, "evil")
    assert isinstance(outcome, SessionUnreadable) and why in outcome.message
    listing = list_sessions(root)
    assert listing.sessions == () and why in listing.warnings[0]


def test_a_first_line_too_long_for_a_header_is_turned_down(root: Path) -> None:
    plant(root, b"x" * (MAX_HEADER_BYTES * 4) + b"\n", line(HELLO))
    outcome = read_session(root, "evil")
    assert isinstance(outcome, SessionUnreadable)
    assert outcome.message.endswith(f"line 1: longer than {MAX_HEADER_BYTES} bytes")


def test_an_empty_log_is_unreadable(root: Path) -> None:
    plant(root)
    outcome = read_session(root, "evil")
    assert isinstance(outcome, SessionUnreadable) and outcome.message.endswith("is empty")


def test_a_symlinked_sessions_folder_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".agent").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    plant_dir = elsewhere / "evil.jsonl"
    plant_dir.write_bytes(line(HEADER) + line(HELLO))
    (root / SESSIONS).symlink_to(elsewhere)
    listing = list_sessions(root)
    assert listing.sessions == () and ".agent/sessions is a symbolic link" in (listing.problem or "")
    outcome = read_session(root, "evil")
    assert isinstance(outcome, SessionUnreadable) and "is a symbolic link" in outcome.message
    assert isinstance(resume_session(root, "evil", trusted=True), SessionRefused)


def test_a_symlinked_log_or_a_fifo_is_refused_without_blocking(root: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.jsonl"
    target.write_bytes(line(HEADER) + line(HELLO))
    (root / SESSIONS / "evil.jsonl").symlink_to(target)
    os.mkfifo(root / SESSIONS / "pipe.jsonl")
    assert "is a symbolic link" in read_session(root, "evil").message  # type: ignore[union-attr]
    assert "not a regular file" in read_session(root, "pipe").message  # type: ignore[union-attr]
    assert len(list_sessions(root).warnings) == 2


def test_odd_names_in_the_folder_are_ignored(root: Path) -> None:
    plant(root, line(HEADER), line(HELLO))
    (root / SESSIONS / "-dash.jsonl").write_bytes(line(HEADER))
    (root / SESSIONS / "notes.txt").write_text("hi")
    (root / SESSIONS / "sub.jsonl").mkdir()
    listing = list_sessions(root)
    assert [i.id for i in listing.sessions] == ["evil"]
    assert any("sub.jsonl" in w for w in listing.warnings)
    assert isinstance(resume_session(root, "../../etc/passwd", trusted=True), SessionRefused)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.binary(max_size=200), st.sampled_from(sorted(BAD_LINES.values())),
                          st.just(line(HELLO)), st.just(line(BYE))), max_size=12))
def test_no_log_content_crashes_the_reader(root: Path, lines: list[bytes]) -> None:
    plant(root, line(HEADER), *(b + b"\n" for b in lines))
    session = read_session(root, "evil")
    assert isinstance(session, Session)
    assert all(m.content for m in session.history)
    list_sessions(root)


def test_a_listing_reads_a_bounded_number_of_logs_and_bytes(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ljtui.core.agent import session_list

    for n in range(4):
        plant(root, line({**HEADER, "id": f"s{n}"}), *[line(HELLO)] * 10, session_id=f"s{n}")
    monkeypatch.setattr(session_list, "MAX_LISTED_SESSIONS", 3)
    listing = list_sessions(root)
    assert [i.id for i in listing.sessions] == ["s3", "s2", "s1"]
    assert listing.warnings == ("1 older sessions are not listed",)
    monkeypatch.setattr(session_list, "MAX_LIST_BYTES", 1500)
    listing = list_sessions(root)
    assert [i.id for i in listing.sessions] == ["s3"]
    assert "session s2 and older ones were not read" in listing.warnings[-1]
