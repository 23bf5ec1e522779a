"""The runaway guard in a chat turn: the third identical call is nudged, the user is asked before the fifth
runs."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.agent import runaway as R
from ljtui.core.approval import Decision, ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import ToolCallFinished, TurnFailed
from ljtui.core.ports import ListSink
from ljtui.core.providers.base import ToolResultBlock
from ljtui.core.providers.scripted import ScriptedToolCall, ScriptedTurn
from tests.core.agent.test_compression import Recording

READ = ScriptedTurn("Let me read it again.", (ScriptedToolCall("read_file", {"path": "notes.txt"}),))


def engine_with(root: Path, turns: list[ScriptedTurn], approver: ScriptedApprover) -> tuple[Engine, Recording,
                                                                                             ListSink]:
    (root / "notes.txt").write_text("the same words\n")
    client, sink = Recording(turns), ListSink()
    config = Config()
    config.agent.max_iterations = 20
    engine = Engine(config, sink, repo_root=root, approver=approver, client_factory=lambda cfg: client)
    return engine, client, sink


def nudged(request) -> bool:
    return any(isinstance(b, ToolResultBlock) and R.nudge("read_file", n) in b.content
               for b in request.messages[-1].content for n in range(3, 20))


async def test_headless_the_fifth_identical_call_ends_the_turn_before_it_runs(tmp_path: Path) -> None:
    approver = ScriptedApprover()
    engine, client, sink = engine_with(tmp_path, [READ] * 8, approver)
    assert await engine.run_turn("what do the notes say?") is None
    assert [nudged(r) for r in client.requests] == [False, False, False, True, True]
    [asked] = approver.asked
    assert asked.kind == "runaway" and asked.safe == R.STOP and asked.title == "The agent repeats itself: let it go on?"
    assert asked.lines[0] == ("It called read_file 4 times in a row with the same input, and got the same result "
                              "each time; its reply asks for it 1 more time.")
    [failed] = [e for e in sink.events if isinstance(e, TurnFailed)]
    assert failed.error == "runaway" and failed.message.startswith(R.stopped(R.Repeating("read_file", 4, 1)))
    assert engine.history == [], "the stopped message is forgotten; the next one starts clean"
    assert len([e for e in sink.events if isinstance(e, ToolCallFinished)]) == 4


async def test_a_user_who_lets_it_go_on_is_asked_again_five_calls_later(tmp_path: Path) -> None:
    approver = ScriptedApprover({"runaway": [Decision(R.GO_ON)]})
    done = ScriptedTurn("The notes say: the same words.")
    engine, client, sink = engine_with(tmp_path, [READ] * 7 + [done], approver)
    result = await engine.run_turn("what do the notes say?")
    assert result is not None and result.text.endswith("the same words.")
    assert [r.kind for r in approver.asked] == ["runaway"]


async def test_a_call_with_a_new_input_or_result_starts_the_count_again(tmp_path: Path) -> None:
    other = ScriptedTurn("And the other.", (ScriptedToolCall("read_file", {"path": "README.md"}),))
    approver = ScriptedApprover()
    turns = [READ, READ, other, READ, READ, ScriptedTurn("Done.")]
    engine, client, _ = engine_with(tmp_path, turns, approver)
    assert await engine.run_turn("read") is not None
    assert not any(nudged(r) for r in client.requests) and approver.asked == []
