"""Rewind on a real git repository: the agent writes through the journal over several messages, then the code,
the conversation or both go back to an earlier message; the model hears of it; a resume never brings it back."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.approval import ScriptedApprover
from ljtui.core.clock import FixedClock
from ljtui.core.config import Config
from ljtui.core.agent.session_replay import read_session, transcript
from ljtui.core.engine import Engine
from ljtui.core.ports import ListSink
from ljtui.core.providers.scripted import ScriptedToolCall, ScriptedTurn
from ljtui.core.rewind_events import BOTH, CODE, CONVERSATION, RewindFinished, RewindListed
from ljtui.core.rewind_log import NOTE_PREFIX
from tests.core.agent.test_engine_resume import Recording

ORIGINAL = "def greet(name):\n    return 'hello ' + name\n"


def write(path: str, content: str, said: str) -> list[ScriptedTurn]:
    """One message's turns: the model writes ``path``, then says ``said``."""
    return [ScriptedTurn("Writing.", (ScriptedToolCall("write_file", {"path": path, "content": content}),)),
            ScriptedTurn(said)]


def make_engine(repo: Path, turns: list[ScriptedTurn], answers: list[str] | None = None, layer: str = "off"
                ) -> tuple[Engine, Recording, ListSink, ScriptedApprover]:
    client, sink = Recording(turns), ListSink()
    approver = ScriptedApprover({"permission": ["session"], "rewind": list(answers or []), "apply": ["yes"] * 9})
    config = Config()
    config.agent.layer = layer
    engine = Engine(config, sink, repo_root=repo, clock=FixedClock(1_800_000_000.0),
                    client_factory=lambda cfg: client, approver=approver)
    return engine, client, sink, approver


async def three_messages(repo: Path, answers: list[str] | None = None, extra: list[ScriptedTurn] | None = None):
    """Message 1 writes app.py, 2 creates new.py, 3 rewrites app.py again."""
    turns = [*write("app.py", "one\n", "I set app.py to one."), *write("new.py", "x = 1\n", "I created new.py."),
             *write("app.py", "three\n", "I set app.py to three."), *(extra or [])]
    engine, client, sink, approver = make_engine(repo, turns, answers)
    for text in ("first", "second", "third"):
        assert await engine.run_turn(text) is not None
    return engine, client, sink, approver


def finished(sink: ListSink) -> RewindFinished:
    return [e for e in sink.events if isinstance(e, RewindFinished)][-1]


async def test_the_points_list_every_message_with_the_files_a_rewind_restores(git_repo: Path) -> None:
    engine, _, sink, _ = await three_messages(git_repo)
    await engine.rewinds.show()
    [listed] = [e for e in sink.events if isinstance(e, RewindListed)]
    assert [(p.number, p.text, p.files) for p in listed.points] == [
        (1, "first", ("app.py", "new.py")), (2, "second", ("app.py", "new.py")), (3, "third", ("app.py",))]
    await engine.aclose()


async def test_rewinding_both_restores_the_files_cuts_the_history_and_tells_the_model(git_repo: Path) -> None:
    engine, client, sink, approver = await three_messages(git_repo, ["yes"], [ScriptedTurn("Understood.")])
    assert await engine.rewinds.rewind(2, BOTH) is True
    asked = approver.asked[-1]
    assert asked.kind == "rewind" and asked.title == "Rewind the code and the conversation to message 2?"
    assert "  restore app.py" in asked.lines and "  delete new.py (created by the apply)" in asked.lines
    assert (git_repo / "app.py").read_text() == "one\n" and not (git_repo / "new.py").exists()
    done = finished(sink)
    assert (done.files, done.removed, done.conversation, done.prompt) == (("app.py", "new.py"), ("new.py",), True,
                                                                         "second")
    assert done.remaining == 1  # message 1's write is still kept for /undo
    assert [m.text for m in engine.history if m.role == "user" and m.text][:1] == ["first"]
    assert len(engine.history) == 4  # message 1 with its tool call, result and reply
    assert await engine.run_turn("now something else") is not None
    sent = client.requests[-1].messages[-1].text
    assert sent.startswith(NOTE_PREFIX + "The user rewound the conversation to before their message 2")
    assert "the files app.py, new.py were restored" in sent and sent.endswith("\n\nnow something else")
    await engine.aclose()


async def test_rewinding_the_code_only_keeps_the_conversation(git_repo: Path) -> None:
    engine, client, sink, _ = await three_messages(git_repo, ["yes"], [ScriptedTurn("Noted.")])
    before = list(engine.history)
    assert await engine.rewinds.rewind(3, CODE) is True
    assert (git_repo / "app.py").read_text() == "one\n" and (git_repo / "new.py").read_text() == "x = 1\n"
    assert engine.history == before and finished(sink).prompt == ""
    assert await engine.run_turn("go on") is not None
    sent = client.requests[-1].messages[-1].text
    assert sent.startswith(NOTE_PREFIX + "The user restored the code to before their message 3")
    assert "the conversation is kept" in sent
    await engine.aclose()


async def test_rewinding_the_conversation_only_leaves_the_files(git_repo: Path) -> None:
    engine, _, sink, _ = await three_messages(git_repo, ["yes"])
    assert await engine.rewinds.rewind(1, CONVERSATION) is True
    assert engine.history == [] and (git_repo / "app.py").read_text() == "three\n"
    assert finished(sink).files == () and finished(sink).prompt == "first"
    await engine.aclose()


async def test_a_file_changed_since_refuses_the_whole_rewind_with_the_reason(git_repo: Path) -> None:
    engine, _, sink, approver = await three_messages(git_repo, ["yes"])
    (git_repo / "new.py").write_text("edited by hand\n")
    history = list(engine.history)
    assert await engine.rewinds.rewind(2, BOTH) is False
    assert not [a for a in approver.asked if a.kind == "rewind"]  # refused before asking
    assert finished(sink).error == "refusing to rewind: changed since the apply: new.py; nothing was written"
    assert (git_repo / "app.py").read_text() == "three\n" and engine.history == history
    await engine.aclose()


async def test_declining_changes_nothing(git_repo: Path) -> None:
    engine, _, sink, _ = await three_messages(git_repo, ["no"])
    assert await engine.rewinds.rewind(1, BOTH) is False
    assert (git_repo / "app.py").read_text() == "three\n" and len(engine.history) == 12
    assert not [e for e in sink.events if isinstance(e, RewindFinished)]
    await engine.aclose()


async def test_an_unknown_message_and_a_code_rewind_with_nothing_since_are_refused(git_repo: Path) -> None:
    engine, _, sink, _ = make_engine(git_repo, [ScriptedTurn("Hello.")])
    assert await engine.run_turn("hi") is not None
    assert await engine.rewinds.rewind(4, BOTH) is False
    assert finished(sink).error == "there is no message 4 in the conversation (it has 1)"
    assert await engine.rewinds.rewind(1, CODE) is False
    assert "no apply or agent write since that message" in (finished(sink).error or "")
    await engine.aclose()


async def test_a_resumed_session_has_no_trace_of_the_rewound_messages(git_repo: Path) -> None:
    engine, _, _, _ = await three_messages(git_repo, ["yes"])
    session_id = engine.session_log.id
    assert await engine.rewinds.rewind(2, BOTH) is True
    await engine.aclose()
    session = read_session(git_repo, session_id)
    texts = [m.text for m in session.history]
    assert "I set app.py to one." in texts
    assert not any("new.py" in t or "three" in t or t in ("second", "third") for t in texts)
    shown = [e.text for e in transcript(list(session.history))]
    assert not any("new.py" in t or "three" in t for t in shown)
    again, _, sink, _ = make_engine(git_repo, [])
    assert again.resume(session_id) is True and len(again.history) == 4
    await again.rewinds.show()
    [listed] = [e for e in sink.events if isinstance(e, RewindListed)]
    assert [(p.number, p.text, p.files) for p in listed.points] == [(1, "first", ("app.py",))]
    await again.aclose()


async def test_the_layers_applies_are_rewound_too(git_repo: Path, layered: Path) -> None:
    turns = [*write("app.py", "one\n", "I set app.py to one."), *write("new.py", "x = 1\n", "I created new.py.")]
    engine, _, sink, _ = make_engine(git_repo, turns, ["yes"], layer="auto")
    for text in ("first", "second"):
        assert await engine.run_turn(text) is not None
        if not engine.review.active:
            pytest.skip("no copy-on-write layer on this machine (the direct tests cover the journal)")
        await engine.review.apply()  # the layer's change of the turn, reviewed and applied
    assert (git_repo / "new.py").read_text() == "x = 1\n"
    assert await engine.rewinds.rewind(1, CODE) is True
    assert (git_repo / "app.py").read_text() == ORIGINAL and not (git_repo / "new.py").exists()
    await engine.aclose()


def test_a_mark_record_is_read_strictly() -> None:
    from ljtui.core.agent.session_records import Malformed, Marked, encode_record, parse_record

    good = Marked(("abc-1", "tx_2"))
    assert parse_record(encode_record(good)[:-1]) == good
    for line in (b'{"kind":"mark","groups":["../x"]}', b'{"kind":"mark","groups":"abc"}',
                 b'{"kind":"mark","groups":[],"extra":1}', b'{"kind":"mark"}'):
        assert isinstance(parse_record(line), Malformed)


async def test_a_hostile_log_is_refused_or_its_bad_lines_skipped(git_repo: Path) -> None:
    from ljtui.core.rewind_log import LogUnreadable, logged_messages

    engine, _, _, _ = await three_messages(git_repo)
    session_id, path = engine.session_log.id, engine.session_log.path
    await engine.aclose()
    with path.open("ab") as fh:
        fh.write(b'{"kind":"mark","groups":["../../etc"]}\n' + b"x" * 100 + b"\n")
    assert [m.text for m in logged_messages(git_repo, session_id)] == ["first", "second", "third"]
    for bad in ("../x", "missing-session"):
        try:
            logged_messages(git_repo, bad)
        except LogUnreadable:
            continue
        raise AssertionError(f"{bad} was read")
