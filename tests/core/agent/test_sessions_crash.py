"""Crash safety: a real process writing a session is killed with SIGKILL, and what is on disk is loaded.

The child logs a conversation as the engine would (a user message, a tool
call, its large result, usage, a reply) and reports on stdout each user
message once it is synced. The parent kills it at a random moment after
some reports, then reads the log: every reported message must be there, the
history must be well-formed, and a line cut short must vanish silently.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ljtui.core.agent.session_replay import Session, read_session
from ljtui.core.agent.sessions import Resumed, resume_session
from ljtui.core.providers.base import Message, TextBlock, ToolResultBlock, ToolUseBlock

TRIALS = 6
MAX_TRIALS = 40
"""Trials go on past ``TRIALS`` until one kill has cut a line short; those later kills are aimed (see
:func:`kill_mid_line`), since on a loaded machine a kill at a random moment seldom lands in a write."""
SEED = 7
PAYLOAD_BYTES = 2 * 1024 * 1024
"""Each tool result: large, so a kill often lands in the middle of writing one."""
ACKS_BEFORE_KILL = (2, 6)
KILL_DELAY = (0.0, 0.02)
"""Seconds between the chosen report and the kill."""
CHILD_ROUNDS = 10_000
"""The child stops by itself after this many rounds (only if the parent never kills it)."""
WAIT_TIMEOUT = 60

CHILD = """
import sys
from pathlib import Path
from ljtui.core.agent.sessions import SessionLog
from ljtui.core.events import Usage
from ljtui.core.providers.base import Message, TextBlock, ToolResultBlock, ToolUseBlock

root, mode, size, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
log = SessionLog(root, new_id=lambda _now: "crash", version="test")
if mode == "mid-tool":
    log.message(Message.user("run the tests"))
    log.message(Message("assistant", (TextBlock("Running them."),
                                      ToolUseBlock("t1", "run_command", {"command": "pytest"}))))
    log.flush()
    print("in tool", flush=True)
    sys.stdin.read()
else:
    payload = "x" * size
    for i in range(rounds):
        log.message(Message.user(f"message {i}"))
        log.flush()
        print(i, flush=True)
        log.message(Message("assistant", (ToolUseBlock(f"c{i}", "read_file", {"path": "big.txt"}),)))
        log.message(Message("user", (ToolResultBlock(f"c{i}", payload),)))
        log.usage(Usage(10, 1))
        log.message(Message("assistant", (TextBlock(f"reply {i}"),)))
"""


@pytest.fixture(autouse=True)
def state_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("xdg-state")
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


def start_child(root: Path, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(root), mode, str(PAYLOAD_BYTES), str(CHILD_ROUNDS)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(WAIT_TIMEOUT) == -signal.SIGKILL
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.stdout is not None
    proc.stdout.close()


def kill_mid_line(proc: subprocess.Popen[str], log: Path) -> None:
    """Kill the child as soon as the log ends in the middle of a line (a large write in progress)."""
    deadline = time.monotonic() + WAIT_TIMEOUT
    while time.monotonic() < deadline:
        with log.open("rb") as file:
            size = file.seek(0, 2)
            if size and file.seek(size - 1) >= 0 and file.read(1) != b"\n":
                break
    kill(proc)


def assert_well_formed(history: tuple[Message, ...]) -> None:
    for index, message in enumerate(history):
        calls = {b.id for b in message.content if isinstance(b, ToolUseBlock)}
        if calls:
            following = history[index + 1]
            assert following.role == "user"
            assert {b.tool_use_id for b in following.content if isinstance(b, ToolResultBlock)} == calls


def test_a_killed_session_loses_at_most_the_message_in_flight(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    cut_short = 0
    for trial in range(MAX_TRIALS):
        if trial >= TRIALS and cut_short:
            break
        root = tmp_path / f"repo{trial}"
        (root / ".git").mkdir(parents=True)
        proc = start_child(root, "loop")
        assert proc.stdout is not None
        wanted = rng.randint(*ACKS_BEFORE_KILL)
        for expected in range(wanted + 1):
            assert proc.stdout.readline().strip() == str(expected), f"trial {trial}: the child stopped early"
        log = root / ".agent" / "sessions" / "crash.jsonl"
        if trial < TRIALS:
            time.sleep(rng.uniform(*KILL_DELAY))  # the moment of the kill is the experiment
            kill(proc)
        else:
            kill_mid_line(proc, log)
        cut_short += not log.read_bytes().endswith(b"\n")
        session = read_session(root, "crash")
        assert isinstance(session, Session), session
        assert session.warnings == (), f"trial {trial}: {session.warnings}"
        typed = [m.text for m in session.history if m.role == "user" and m.text]
        assert typed == [f"message {i}" for i in range(len(typed))]
        assert len(typed) >= wanted + 1, f"trial {trial}: a synced message was lost"
        assert_well_formed(session.history)
        assert session.usage.input_tokens >= 10 * (len(typed) - 1)
    assert cut_short, f"no kill in {MAX_TRIALS} trials landed in the middle of a line"


def test_a_crash_while_a_tool_runs_drops_the_dangling_call(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    proc = start_child(root, "mid-tool")
    assert proc.stdout is not None and proc.stdout.readline().strip() == "in tool"
    kill(proc)
    outcome = resume_session(root, "crash")
    assert isinstance(outcome, Resumed), outcome
    assert outcome.session.history == (Message.user("run the tests"),
                                       Message("assistant", (TextBlock("Running them."),)))


def test_resuming_after_a_crash_removes_the_line_cut_short(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    proc = start_child(root, "mid-tool")
    assert proc.stdout is not None and proc.stdout.readline().strip() == "in tool"
    kill(proc)
    log_path = root / ".agent" / "sessions" / "crash.jsonl"
    with log_path.open("ab") as fh:
        fh.write(b'{"kind":"message","role":"user","content":[{"type":"te')
    outcome = resume_session(root, "crash")
    assert isinstance(outcome, Resumed), outcome
    outcome.log.message(Message.user("after the crash"))
    assert outcome.log.close()
    again = read_session(root, "crash")
    assert isinstance(again, Session) and again.warnings == ()
    assert again.history[-1] == Message.user("after the crash")
    assert log_path.read_bytes().endswith(b'"after the crash"}]}\n')

