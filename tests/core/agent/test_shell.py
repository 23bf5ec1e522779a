"""Running one command: real bash, real process groups, real signals."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from ljtui.core.agent.shell import (
    HEAD_CHARS, KILL_GRACE_SECONDS, NOT_STARTED, STREAM_INTERVAL_SECONDS, STREAM_MAX_CHARS, TAIL_CHARS, Batcher,
    HeadTail, ShellLimits, run_command,
)
from ljtui.core.agent.procgroup import group_alive
from tests.core.agent.helpers import (
    IGNORES_TERM, our_zombie, outer_pid, parent_of, processes_in, running, until,
)
from tests.core.confine.helpers import confinement_for


def run(command: str, root: Path, **options: object):  # type: ignore[no-untyped-def]
    """``run_command`` in this machine's default sandbox, with writes allowed in ``root``."""
    return run_command(command, root, confinement=confinement_for(root), **options)  # type: ignore[arg-type]


LONG = 60.0
"""A time limit no command here should reach."""


async def test_output_exit_code_and_working_folder(tmp_path: Path) -> None:
    result = await run("pwd; echo to-stderr >&2; exit 7", tmp_path, timeout=LONG)
    assert result.exit_code == 7
    assert result.output == f"{os.path.realpath(tmp_path)}\nto-stderr\n"
    assert not (result.timed_out or result.cancelled or result.cut_chars or result.left_running)
    assert not running(result.pid) and not our_zombie(result.pid)


async def test_bad_utf8_is_replaced_and_stdin_is_empty(tmp_path: Path) -> None:
    result = await run(r"printf 'a\xff\xfeb\n'; cat; echo after-cat", tmp_path, timeout=LONG)
    assert result.exit_code == 0
    assert result.output == "a\ufffd\ufffdb\nafter-cat\n"


async def test_a_missing_folder_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        await run("true", tmp_path / "missing", timeout=LONG)


async def test_huge_output_keeps_head_and_tail_and_streams_few_bounded_batches(tmp_path: Path) -> None:
    batches: list[str] = []
    result = await run("seq 1 1000000", tmp_path, timeout=LONG, on_output=batches.append)
    printed = sum(len(str(n)) + 1 for n in range(1, 1_000_001))
    assert result.exit_code == 0 and result.total_chars == printed
    assert len(result.head) == HEAD_CHARS and len(result.tail) == TAIL_CHARS
    assert result.cut_chars == printed - HEAD_CHARS - TAIL_CHARS
    assert result.output.startswith("1\n2\n3\n") and result.output.endswith("999999\n1000000\n")
    assert f"\n[… {result.cut_chars} characters cut from the middle …]\n" in result.output
    note = len("[… 9999999 characters not shown …]\n")
    assert all(len(b) <= STREAM_MAX_CHARS + note for b in batches)
    assert len(batches) <= result.duration / STREAM_INTERVAL_SECONDS + 2
    assert batches[-1].endswith("1000000\n")


async def test_a_slow_stream_is_batched_not_sent_line_by_line(tmp_path: Path) -> None:
    batches: list[str] = []
    command = "for i in $(seq 1 300); do echo line-$i; sleep 0.002; done"
    result = await run(command, tmp_path, timeout=LONG, on_output=batches.append)
    assert "".join(batches) == result.output == "".join(f"line-{i}\n" for i in range(1, 301))
    assert len(batches) <= result.duration / STREAM_INTERVAL_SECONDS + 2
    assert len(batches) < 300


async def test_background_processes_are_stopped_when_bash_exits(tmp_path: Path) -> None:
    command = "(exec sleep 1000) & echo $! > child.pid; echo left-behind"
    result = await run(command, tmp_path, timeout=LONG)
    assert (tmp_path / "child.pid").exists()
    assert result.exit_code == 0 and result.output == "left-behind\n"
    assert not result.timed_out and result.duration < LONG
    assert processes_in(tmp_path) == [] and not group_alive(result.pid)


async def test_timeout_kills_a_child_that_ignores_sigterm(tmp_path: Path) -> None:
    result = await run(IGNORES_TERM, tmp_path, timeout=1)
    assert result.timed_out and not result.cancelled
    assert result.output == "started\n"
    assert result.duration >= 1 + KILL_GRACE_SECONDS * 0.9
    assert result.left_running == 0 and not result.pipe_held
    assert processes_in(tmp_path) == []
    assert not running(result.pid) and not our_zombie(result.pid)


async def test_cancelling_the_awaiting_task_kills_the_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    task = asyncio.create_task(run(IGNORES_TERM, tmp_path, timeout=LONG))
    await until(lambda: pid_file.exists() and pid_file.read_text().strip() != "", "the child to start")
    child = outer_pid(pid_file)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not running(child) and not our_zombie(child)


async def test_nothing_runs_when_the_cancel_flag_is_already_set(tmp_path: Path) -> None:
    flag = asyncio.Event()
    flag.set()
    result = await run("touch ran.txt", tmp_path, timeout=LONG, cancelled=flag)
    assert result.cancelled and result.pid == NOT_STARTED and result.exit_code is None
    assert not (tmp_path / "ran.txt").exists()


@pytest.mark.parametrize("steps", range(12))
async def test_a_cancel_while_bash_starts_leaves_nothing_running(tmp_path: Path, steps: int) -> None:
    task = asyncio.create_task(run(IGNORES_TERM, tmp_path, timeout=LONG))
    for _ in range(steps):
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert processes_in(tmp_path) == []


async def test_a_second_cancel_during_the_grace_period_still_kills_the_group(tmp_path: Path) -> None:
    command = "echo $$ > bash.pid; " + IGNORES_TERM
    pid_file = tmp_path / "child.pid"
    batches: list[str] = []
    patient = ShellLimits(kill_grace=LONG)
    task = asyncio.create_task(run(command, tmp_path, timeout=LONG, on_output=batches.append, limits=patient))
    await until(lambda: "started" in "".join(batches), "the command to run and print")
    child, shell = outer_pid(pid_file), outer_pid(tmp_path / "bash.pid")
    task.cancel()
    await until(lambda: not running(shell), "bash to die of SIGTERM (the child ignores it for the long grace)")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until(lambda: not running(child), "the child to die of SIGKILL")


async def test_the_group_leader_outlives_its_group_while_it_is_stopped(tmp_path: Path) -> None:
    """The leader (the launcher) keeps the group id taken until the group is gone, so no signal can reach a process
    given the recycled id; it then reports bash's death by SIGTERM as its own."""
    flag = asyncio.Event()
    batches: list[str] = []
    task = asyncio.create_task(run("echo $$ > bash.pid; " + IGNORES_TERM, tmp_path, timeout=LONG,
                                           cancelled=flag, on_output=batches.append,
                                           limits=ShellLimits(kill_grace=LONG)))
    await until(lambda: "started" in "".join(batches), "the command to run and print")
    shell, child = outer_pid(tmp_path / "bash.pid"), outer_pid(tmp_path / "child.pid")
    leader = os.getpgid(child)
    assert os.getpgid(shell) == leader and parent_of(leader) == os.getpid()
    flag.set()
    await until(lambda: not running(shell), "bash to die of SIGTERM")
    assert running(child) and os.getpgid(child) == leader and running(leader)
    os.kill(child, signal.SIGKILL)
    result = await task
    assert result.cancelled and result.exit_code == -signal.SIGTERM and result.pid == leader
    assert not running(leader) and not our_zombie(leader)


async def test_the_cancel_flag_ends_the_command(tmp_path: Path) -> None:
    flag = asyncio.Event()
    pid_file = tmp_path / "child.pid"
    seen: list[str] = []
    task = asyncio.create_task(run(IGNORES_TERM, tmp_path, timeout=LONG, cancelled=flag,
                                           on_output=seen.append))
    await until(lambda: "".join(seen) == "started\n", "the command to say it started (its child set its trap)")
    child = outer_pid(pid_file)
    flag.set()
    result = await task
    assert result.cancelled and not result.timed_out and result.output == "started\n"
    assert not running(child)


async def test_a_stopped_process_is_killed_too(tmp_path: Path) -> None:
    result = await run("sleep 1000 & echo $! > child.pid; kill -STOP $!; wait", tmp_path, timeout=1)
    assert result.timed_out and (tmp_path / "child.pid").exists() and processes_in(tmp_path) == []
    assert result.duration < 1 + KILL_GRACE_SECONDS, "SIGCONT lets a stopped process see SIGTERM"


def test_head_tail_keeps_both_ends_of_a_text_in_pieces() -> None:
    kept = HeadTail(head=5, tail=4)
    for piece in ["ab", "cdefg", "hij", "klmnopqrs", "tu"]:
        kept.add(piece)
    assert kept.parts() == ("abcde", "rstu", 12)
    short = HeadTail(head=5, tail=4)
    short.add("abcdefg")
    assert short.parts() == ("abcde", "fg", 0)


async def test_batcher_sends_at_once_then_at_most_once_per_interval() -> None:
    sent: list[str] = []
    loop = asyncio.get_running_loop()
    batcher = Batcher(loop, sent.append, interval=3600, max_chars=10)
    batcher.add("first\n")
    for n in range(100):
        batcher.add(f"{n}\n")
    assert sent == ["first\n"]
    batcher.flush()
    assert len(sent) == 2 and sent[1].endswith("98\n99\n") and sent[1].startswith("[… ")
    assert len(sent[1].split("\n", 1)[1]) == 10
