"""A real llama.cpp server's reply of 23 identical ``read_file`` calls (recorded): the runaway guard counts each
call before it runs, in the reply's order, and says the true count (MODEL-1, item 5)."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.agent import runaway as R
from ljtui.core.approval import Decision, ScriptedApprover
from ljtui.core.events import ToolCallFinished, TurnFailed
from tests.core.providers.helpers import make_rig, read_tools
from tests.fakes import openai_api as api
from tests.fakes.fixtures import fast_provider
from tests.fakes.recorded import recording
from tests.fakes.server import FakeSSEServer

REPEATS = recording("llamacpp_repeated_calls")


def test_the_recording_is_a_reply_of_22_identical_calls_and_one_cut_off() -> None:
    calls = REPEATS.arguments()
    assert calls[:22] == ['{"path": "main.py"}'] * 22 and calls[22] == '{"'
    assert REPEATS.finish_reason() == "length"


async def test_nobody_to_ask_stops_the_reply_before_its_fifth_identical_call_runs(
    fake_openai: FakeSSEServer, tmp_path: Path,
) -> None:
    fake_openai.queue(REPEATS.reply())
    approver = ScriptedApprover()
    rig = make_rig(fast_provider("openai-compatible", fake_openai.url + "/v1", max_tokens=700), tmp_path,
                   tools=read_tools(), approver=approver)

    assert await rig.engine.run_turn("read main.py twenty times") is None

    assert len(rig.of(ToolCallFinished)) == 4
    [asked] = approver.asked
    assert asked.kind == "runaway" and asked.lines[0] == (
        "It called read_file 4 times in a row with the same input, and got the same result each time; its reply "
        "asks for it 18 more times.")
    [failed] = rig.of(TurnFailed)
    assert failed.error == "runaway" and failed.message.startswith(
        "stopped: the agent called read_file with the same input 4 times in a row and got the same result each "
        "time; the 18 more times its reply asked for it did not run")
    await rig.engine.aclose()


async def test_a_user_who_lets_it_go_on_is_asked_before_every_fifth_and_the_cut_call_is_refused(
    fake_openai: FakeSSEServer, tmp_path: Path,
) -> None:
    fake_openai.queue(REPEATS.reply(), api.text_reply("main.py prints hello."))
    approver = ScriptedApprover({"runaway": [Decision(R.GO_ON)] * 4})
    rig = make_rig(fast_provider("openai-compatible", fake_openai.url + "/v1", max_tokens=700), tmp_path,
                   tools=read_tools(), approver=approver)

    result = await rig.engine.run_turn("read main.py twenty times")

    assert result is not None and result.text == "main.py prints hello."
    assert [a.lines[0].split(";")[0] for a in approver.asked] == [
        f"It called read_file {n} times in a row with the same input, and got the same result each time"
        for n in (4, 9, 14, 19)]
    finished = rig.of(ToolCallFinished)
    assert [f.ok for f in finished] == [True] * 22 + [False]
    assert "max_tokens" in finished[-1].summary
    await rig.engine.aclose()
