"""``ljtui sessions`` through a real process: the list, its JSON, foreign sessions and refusals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.core.agent.session_owners import SessionOwners
from ljtui.core.agent.sessions import SessionLog
from ljtui.core.clock import FixedClock
from ljtui.core.providers.base import Message, TextBlock

SUBPROCESS_TIMEOUT = 60
START = 1_800_000_000.0
JSON_KEYS = {"id", "started", "first_message", "messages", "resumable"}


@pytest.fixture
def env(isolated_env: Path, tmp_path_factory: pytest.TempPathFactory,
        monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    state = tmp_path_factory.mktemp("xdg-state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return {**os.environ, "XDG_CONFIG_HOME": str(isolated_env), "XDG_STATE_HOME": str(state)}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo


def ljtui(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", *args], capture_output=True, text=True, env=env,
                          timeout=SUBPROCESS_TIMEOUT, stdin=subprocess.DEVNULL)


def session(root: Path, session_id: str, started: float, *texts: str, owners: SessionOwners | None = None) -> Path:
    log = SessionLog(root, clock=FixedClock(started), new_id=lambda _now: session_id, owners=owners, version="t")
    for text in texts:
        log.message(Message.user(text))
        log.message(Message("assistant", (TextBlock(f"re: {text}"),)))
    assert log.close()
    return log.path


@pytest.fixture
def sessions(root: Path, tmp_path: Path, env: dict[str, str]) -> Path:
    session(root, "20270115-080000-aaaa", START, "fix the upload retry", "and add a test")
    session(root, "20270115-080010-bbbb", START + 10, "\x1b]0;pwned\x07rename the module")
    foreign = session(root, "20270101-000000-ffff", START + 5, "from the repository",
                      owners=SessionOwners(tmp_path / "elsewhere" / "sessions.json"))
    with foreign.open("ab") as fh:
        fh.write(b'{"kind": "shell", "command": "id"}\n')
    return root


def test_json_lists_every_session_newest_first(sessions: Path, env: dict[str, str]) -> None:
    proc = ljtui("sessions", "--json", "--repo", str(sessions), env=env)
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert [set(item) for item in listed] == [JSON_KEYS] * 3
    assert [(i["id"], i["messages"], i["resumable"]) for i in listed] == [
        ("20270115-080010-bbbb", 2, True), ("20270101-000000-ffff", 2, False), ("20270115-080000-aaaa", 4, True)]
    assert listed[2]["first_message"] == "fix the upload retry"
    assert listed[0]["first_message"] == "]0;pwned rename the module"
    assert listed[2]["started"] == "2027-01-15T08:00:00Z"
    assert "1 malformed line skipped (line 4: unknown kind 'shell')" in proc.stderr


def test_text_marks_a_foreign_session_until_the_repository_is_trusted(sessions: Path, env: dict[str, str]) -> None:
    proc = ljtui("--repo", str(sessions), "sessions", env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["20270115-080010-bbbb", "20270101-000000-ffff",
                                                   "20270115-080000-aaaa"]
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout
    assert lines[1].endswith("[not created by you on this machine: `ljtui trust` allows resuming it]")
    assert "4 messages  fix the upload retry" in lines[2] and "[" not in lines[2]
    assert ljtui("trust", "--yes", str(sessions), env=env).returncode == 0
    trusted = json.loads(ljtui("sessions", "--json", "--repo", str(sessions), env=env).stdout)
    assert all(item["resumable"] for item in trusted)


def test_an_empty_repository_and_a_missing_one(root: Path, tmp_path: Path, env: dict[str, str]) -> None:
    proc = ljtui("sessions", "--repo", str(root), env=env)
    assert proc.returncode == 0 and proc.stdout.strip() == f"no sessions saved in {root}"
    assert json.loads(ljtui("sessions", "--json", "--repo", str(root), env=env).stdout) == []
    missing = ljtui("sessions", "--repo", str(tmp_path / "typo"), env=env)
    assert missing.returncode == 2 and "not a directory" in missing.stderr


def test_a_symlinked_sessions_folder_is_refused(root: Path, tmp_path: Path, env: dict[str, str]) -> None:
    elsewhere = tmp_path / "elsewhere"
    session(elsewhere, "20270115-080000-aaaa", START, "hi")
    (root / ".agent").mkdir()
    (root / ".agent" / "sessions").symlink_to(elsewhere / ".agent" / "sessions")
    proc = ljtui("sessions", "--json", "--repo", str(root), env=env)
    assert proc.returncode == 1 and proc.stdout == ""
    assert ".agent/sessions is a symbolic link" in proc.stderr


def test_the_count_and_the_first_message_are_what_a_resume_brings_back(root: Path, env: dict[str, str]) -> None:
    held: dict[SessionLog, int] = {}

    def turn(log: SessionLog, text: str, *, fails: bool = False) -> None:
        """One chat turn as the conversation logs it: a failed (or stopped) turn is rewound, forgotten."""
        log.message(Message.user(text))
        if fails:
            log.rewound(held.get(log, 0))
        else:
            log.message(Message("assistant", (TextBlock(f"re: {text}"),)))
            held[log] = held.get(log, 0) + 2

    def new_log(session_id: str, started: float) -> SessionLog:
        return SessionLog(root, clock=FixedClock(started), new_id=lambda _now: session_id, version="t")

    three = new_log("20270115-080000-aaaa", START)
    for text in ("fix the upload retry", "and add a test", "now the docs"):
        turn(three, text)
    turn(three, "one more thing", fails=True)
    failed = new_log("20270115-080010-bbbb", START + 10)
    turn(failed, "the only message, its turn failed", fails=True)
    cleared = new_log("20270115-080020-cccc", START + 20)
    turn(cleared, "before the clear")
    cleared.cleared()
    held[cleared] = 0
    turn(cleared, "after the clear")
    assert all(log.close() for log in (three, failed, cleared))
    listed = json.loads(ljtui("sessions", "--json", "--repo", str(root), env=env).stdout)
    assert [(i["id"], i["messages"], i["first_message"]) for i in listed] == [
        ("20270115-080020-cccc", 2, "after the clear"),
        ("20270115-080010-bbbb", 0, ""),
        ("20270115-080000-aaaa", 6, "fix the upload retry")]
    lines = ljtui("sessions", "--repo", str(root), env=env).stdout.splitlines()
    assert lines[0].endswith("    2 messages  after the clear")
    assert lines[1].endswith("    0 messages  (no message)")
    assert lines[2].endswith("    6 messages  fix the upload retry")
