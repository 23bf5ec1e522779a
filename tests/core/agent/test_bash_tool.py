"""The bash tool end to end: permission, a real command, streamed events, and what the model reads."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from ljtui.core.agent.shell import STREAM_INTERVAL_SECONDS
from ljtui.core.agent.tools import bash
from ljtui.core.events import Event, PermissionDecided, PermissionRequested, ToolOutput
from tests.core.agent.helpers import IGNORES_TERM, harness, our_zombie, outer_pid, processes_in, running, until



def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


async def test_a_command_runs_in_the_root_after_the_user_allows_it(tmp_path: Path) -> None:
    h = harness(tmp_path, answers=["once"])
    result = await h.call(command="pwd; printf 'hello\\n'")
    assert result.ok, result.content
    assert result.content.startswith("exit code 0 after ")
    assert f"{os.path.realpath(tmp_path)}\nhello\n" in result.content
    assert result.summary.startswith("exit 0 · ")
    [asked] = h.approver.asked
    assert asked.kind == "permission" and asked.subject == "bash: pwd; printf 'hello\\n'"
    assert asked.lines == ("$ pwd; printf 'hello\\n'", "", f"in {tmp_path}", "time limit 120 s (agent.bash_timeout)",
                           f"sandbox {h.sandbox.status.backend} · writes: this repository, a private temp dir; "
                           "network: off · changes are written to your files directly")
    assert [c.id for c in asked.choices] == ["once", "network", "network_session", "session", "unconfined", "deny"]
    assert [c.key for c in asked.choices] == ["enter", "n", "N", "s", "u", "escape"]
    assert kinds(h.events)[:2] == ["permission_requested", "permission_decided"]
    assert "".join(o.text for o in h.outputs) == f"{os.path.realpath(tmp_path)}\nhello\n"
    assert all(o.call_id == "call-1" and o.turn == 1 and o.agent == "chat" for o in h.outputs)


async def test_a_failing_command_reports_its_exit_code_and_error_output(tmp_path: Path) -> None:
    h = harness(tmp_path, answers=["once"])
    result = await h.call(command="echo oops >&2; exit 3")
    assert not result.ok
    assert result.content.startswith("exit code 3 after ") and "\noops\n" in result.content + "\n"
    assert result.summary.startswith("exit 3 · ")


async def test_a_command_without_output_says_so(tmp_path: Path) -> None:
    h = harness(tmp_path, answers=["once"])
    result = await h.call(command="true")
    assert result.ok and result.content.endswith("output (0 characters):\n(no output)")
    assert h.outputs == []


async def test_output_streams_while_the_command_runs(tmp_path: Path) -> None:
    h = harness(tmp_path, answers=["once"])

    def release(event: Event) -> None:
        if isinstance(event, ToolOutput) and "first" in event.text:
            (tmp_path / "go").touch()

    h.hooks.append(release)
    command = "echo first; while [ ! -e go ]; do sleep 0.01; done; echo second"
    result = await h.call(command=command, timeout=60)
    assert result.ok, result.content
    texts = [o.text for o in h.outputs]
    assert texts[0] == "first\n" and "".join(texts) == "first\nsecond\n"


async def test_huge_output_is_bounded_for_the_model_and_the_ui(tmp_path: Path) -> None:
    h = harness(tmp_path, answers=["once"])
    loop = asyncio.get_running_loop()
    started = loop.time()
    result = await h.call(command="seq 1 1000000")
    elapsed = loop.time() - started
    assert result.ok
    assert len(result.content) < 16_000 + 200
    assert "characters cut from the middle" in result.content
    assert "\n1\n2\n3\n" in result.content and result.content.endswith("999999\n1000000\n")
    assert "output (6888896 characters):" in result.content
    assert 1 <= len(h.outputs) <= elapsed / STREAM_INTERVAL_SECONDS + 2
    assert sum(len(o.text) for o in h.outputs) < 6888896


async def test_timeout_kills_a_child_that_ignores_sigterm(tmp_path: Path) -> None:
    h = harness(tmp_path, answers=["once"], bash_timeout=1)
    result = await h.call(command=IGNORES_TERM)
    assert not result.ok
    assert result.content.startswith("killed after 1 s (agent.bash_timeout): it did not finish in time")
    assert "output so far (8 characters):\nstarted\n" in result.content
    assert result.summary == "killed after 1 s"
    assert (tmp_path / "child.pid").exists() and processes_in(tmp_path) == []


async def test_a_timeout_argument_shortens_the_limit_but_cannot_pass_it(tmp_path: Path) -> None:
    h = harness(tmp_path, answers=["once"], bash_timeout=30)
    result = await h.call(command="sleep 1000", timeout=1)
    assert result.content.startswith("killed after 1 s (the timeout you asked for; agent.bash_timeout is")
    too_long = await h.call(command="true", timeout=31)
    assert not too_long.ok and "'timeout' must be between 1 and 30" in too_long.content
    assert len(h.approver.asked) == 1


async def test_cancelling_the_call_kills_the_whole_group(tmp_path: Path) -> None:
    h = harness(tmp_path, answers=["once"])
    pid_file = tmp_path / "child.pid"
    task = asyncio.create_task(h.call(command=IGNORES_TERM))
    await until(lambda: pid_file.exists() and pid_file.read_text().strip() != "", "the child to start")
    child = outer_pid(pid_file)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not running(child) and not our_zombie(child)


async def test_the_turn_cancel_flag_stops_the_command_and_tells_the_model(tmp_path: Path) -> None:
    h = harness(tmp_path, answers=["once"])
    pid_file = tmp_path / "child.pid"
    task = asyncio.create_task(h.call(command=IGNORES_TERM))
    await until(lambda: pid_file.exists() and pid_file.read_text().strip() != "", "the child to start")
    child = outer_pid(pid_file)
    h.cancelled.set()
    result = await task
    assert not result.ok and result.summary == "cancelled"
    assert result.content.startswith("cancelled by the user after ")
    assert not running(child)


async def test_nothing_runs_when_the_turn_was_cancelled_while_asking(tmp_path: Path) -> None:
    h = harness(tmp_path, answers=["once"])
    h.cancelled.set()
    result = await h.call(command="touch ran.txt")
    assert not result.ok and result.content.startswith("cancelled by the user before it started; nothing ran")
    assert not (tmp_path / "ran.txt").exists()


async def test_the_command_sees_no_api_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env-1234")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-from-env-5678")
    monkeypatch.setenv("COPIED_TOKEN", "sk-from-config-9012")
    monkeypatch.setenv("HARMLESS_SETTING", "kept")
    h = harness(tmp_path, answers=["once"])
    h.config.provider.api_key = "sk-from-config-9012"
    result = await h.call(command="env")
    assert result.ok
    for leaked in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "sk-ant-from-env", "sk-openai-from-env", "sk-from-config"):
        assert leaked not in result.content
        assert all(leaked not in o.text for o in h.outputs)
    assert "HARMLESS_SETTING=kept" in result.content


async def test_a_denied_command_does_not_run_and_the_model_is_told_why(tmp_path: Path) -> None:
    h = harness(tmp_path)
    result = await h.call(command="touch created.txt")
    assert not result.ok
    assert result.content.startswith("error: the user denied this bash call")
    assert not (tmp_path / "created.txt").exists()
    assert h.outputs == []
    decided = [e for e in h.events if isinstance(e, PermissionDecided)]
    assert [(d.decision, d.scope) for d in decided] == [("deny", "once")]


async def test_a_dangerous_command_is_asked_every_time_without_a_session_choice(tmp_path: Path) -> None:
    (tmp_path / "build" / "deep").mkdir(parents=True)
    h = harness(tmp_path, answers=["session", "once"], allow_commands=("rm *",))
    first = await h.call(command="rm -rf build")
    assert first.ok and not (tmp_path / "build").exists()
    (tmp_path / "build").mkdir()
    second = await h.call(command="rm -rf build")
    assert second.ok and not (tmp_path / "build").exists()
    assert len(h.approver.asked) == 2
    for asked in h.approver.asked:
        assert [c.id for c in asked.choices] == ["once", "network", "network_session", "deny"]
        assert asked.lines[0] == "Dangerous: recursive delete (rm -r). It can only be allowed once."
        assert "$ rm -rf build" in asked.lines
    decided = [(e.decision, e.scope) for e in h.events if isinstance(e, PermissionDecided)]
    assert decided == [("allow", "once"), ("allow", "once")]


async def test_a_dangerous_command_denied_is_explained_to_the_model(tmp_path: Path) -> None:
    h = harness(tmp_path)
    result = await h.call(command="echo x > /etc/ljtui-test")
    assert not result.ok
    assert "denied this bash call (writes outside the repository (/etc/ljtui-test))" in result.content


async def test_an_allow_listed_command_runs_without_asking_and_is_still_reported(tmp_path: Path) -> None:
    h = harness(tmp_path, allow_commands=("echo *",))
    result = await h.call(command="echo hi")
    assert result.ok and "\nhi\n" in result.content + "\n"
    assert h.approver.asked == []
    requested = [e for e in h.events if isinstance(e, PermissionRequested)]
    decided = [e for e in h.events if isinstance(e, PermissionDecided)]
    assert [(r.tool, r.subject) for r in requested] == [("bash", "echo hi")]
    assert [(d.decision, d.scope) for d in decided] == [("allow", "policy")]
    assert kinds(h.events) == ["permission_requested", "permission_decided", "tool_output"]


async def test_a_session_grant_lets_later_safe_commands_through(tmp_path: Path) -> None:
    h = harness(tmp_path, answers=["session"])
    assert (await h.call(command="echo one")).ok
    assert (await h.call(command="echo two")).ok
    assert len(h.approver.asked) == 1


@pytest.mark.parametrize(("args", "message"), [
    ({}, "missing argument 'command'"),
    ({"command": "  \n"}, "argument 'command' is blank"),
    ({"command": 5}, "argument 'command' must be a string"),
    ({"command": "x" * (bash.MAX_COMMAND_CHARS + 1)}, "characters; the limit is"),
    ({"command": "true", "timeout": 0}, "'timeout' must be between 1 and 120"),
    ({"command": "true", "timeout": "10"}, "'timeout' must be a whole number"),
])
async def test_bad_arguments_are_tool_errors_and_ask_nothing(tmp_path: Path, args: dict[str, object],
                                                              message: str) -> None:
    h = harness(tmp_path, answers=["once"])
    result = await h.registry.call("bash", args, h.context())
    assert not result.ok and message in result.content
    assert h.approver.asked == [] and h.events == []


async def test_a_missing_repository_folder_is_a_clear_error(tmp_path: Path) -> None:
    h = harness(tmp_path / "gone", answers=["once"])
    result = await h.call(command="true")
    assert not result.ok and "cannot start /bin/bash in" in result.content


def test_the_description_says_undo_does_not_cover_bash() -> None:
    description = bash.BASH.description
    assert "NOT undone by /undo" in description and "write_file" in description and "edit_file" in description
    assert bash.BASH.input_schema["required"] == ["command"]
