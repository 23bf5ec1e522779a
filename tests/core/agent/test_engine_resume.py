"""The engine logs a real session as it runs, and a new engine resumes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.clock import FixedClock
from ljtui.core.config import Config
from ljtui.core.agent.session_replay import transcript
from ljtui.core.engine import Engine
from ljtui.core.events import Notice, SessionResumed, TranscriptEntry
from ljtui.core.ports import ListSink
from ljtui.core.providers.base import ChatRequest, Message, TextBlock, ToolUseBlock
from ljtui.core.providers.scripted import Script, ScriptedClient, ScriptedToolCall, ScriptedTurn


class Recording(ScriptedClient):
    def __init__(self, turns: list[ScriptedTurn]) -> None:
        super().__init__(Script(Path("test.yaml"), turns, 0.0))
        self.requests: list[ChatRequest] = []

    def stream(self, request: ChatRequest):  # type: ignore[override]
        self.requests.append(request)
        return super().stream(request)


def engine(root: Path, turns: list[ScriptedTurn], start: float = 1_800_000_000.0
           ) -> tuple[Engine, Recording, ListSink]:
    client, sink = Recording(turns), ListSink()
    return Engine(Config(), sink, repo_root=root, clock=FixedClock(start),
                  client_factory=lambda cfg: client), client, sink


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    return tmp_path


async def test_a_new_engine_resumes_the_history_usage_and_goes_on_in_the_same_log(root: Path) -> None:
    first, _, _ = engine(root, [
        ScriptedTurn("Let me look.", (ScriptedToolCall("read_file", {"path": "notes.txt"}),)),
        ScriptedTurn("It says 42."),
    ])
    assert await first.run_turn("what do the notes say?") is not None
    session_id, history, usage = first.session_log.id, list(first.history), first.session_usage
    await first.aclose()

    second, client, sink = engine(root, [ScriptedTurn("You asked about the notes.")])
    assert second.resume(session_id) is True
    assert second.history == history and second.session_usage == usage
    [resumed] = [e for e in sink.events if isinstance(e, SessionResumed)]
    assert resumed.session_id == session_id and resumed.messages == len(history) == 4
    assert [(e.role, e.text) for e in resumed.transcript] == [
        ("user", "what do the notes say?"), ("assistant", "Let me look."), ("tool", "read_file"),
        ("assistant", "It says 42."),
    ]
    assert await second.run_turn("what did I ask?") is not None
    sent = client.requests[0].messages
    assert sent[:4] == tuple(history) and sent[4].text == "what did I ask?"
    assert second.session_log.id == session_id  # your own session goes on in its own log
    await second.aclose()

    third, _, _ = engine(root, [])
    assert third.resume(session_id) is True and len(third.history) == 6
    await third.aclose()


async def test_an_empty_id_resumes_the_newest_other_session(root: Path) -> None:
    ids = []
    for n in range(2):
        e, _, _ = engine(root, [ScriptedTurn(f"reply {n}")], start=1_800_000_000.0 + 60 * n)
        assert await e.run_turn(f"question {n}") is not None
        ids.append(e.session_log.id)
        await e.aclose()
    fresh, _, sink = engine(root, [])
    assert fresh.resume("") is True
    [resumed] = [e for e in sink.events if isinstance(e, SessionResumed)]
    assert resumed.session_id == ids[1] != ids[0] and fresh.history[0].text == "question 1"
    await fresh.aclose()


async def test_resume_reports_what_is_wrong_and_changes_nothing(root: Path) -> None:
    e, _, sink = engine(root, [ScriptedTurn("hello")])
    assert e.resume("") is False
    assert e.resume("../../etc/passwd") is False
    assert e.resume("20990101-000000-ffff") is False
    await e.run_turn("hi")
    assert e.resume(e.session_log.id) is False
    notices = [n.message for n in sink.events if isinstance(n, Notice)]
    assert notices[0] == "There is no earlier session to resume here."
    assert "is not a session id" in notices[1]
    assert "20990101-000000-ffff" in notices[2]
    assert notices[3].endswith("is the one running.")
    assert [m.text for m in e.history] == ["hi", "hello"]
    await e.aclose()


def test_the_transcript_keeps_text_and_calls_and_the_newest_entries() -> None:
    history = [Message.user("a"), Message("assistant", (TextBlock(" "), ToolUseBlock("c1", "grep", {"pattern": "x"})))]
    assert transcript(history) == (TranscriptEntry("user", "a"), TranscriptEntry("tool", "grep", {"pattern": "x"}))
    assert transcript([Message.user(str(n)) for n in range(10)], limit=3) == tuple(
        TranscriptEntry("user", str(n)) for n in (7, 8, 9))
