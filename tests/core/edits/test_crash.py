"""Crash safety: a process applying a large plan is SIGKILLed at random moments.

The plan is validated once; each trial forks a real process that signals on
a pipe and commits it; the parent kills it with SIGKILL after a random delay within
the measured commit time, runs recovery, and checks that every file is
entirely old or entirely new, never mixed or truncated, and that the set of
files is consistent (all old or all new). One more trial drives the real
``ljtui apply`` and ``ljtui recover`` commands.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from ljtui.core.edits import journal as J
from ljtui.core.edits.apply import Preview, commit_plan, preview_plan
from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.edits.recovery import recover_journal
from ljtui.core.edits.validate import validate_plan
from tests.core.edits.helpers import block, plan_text

FILE_COUNT = 60
LINES_PER_FILE = 300
CREATED_FILES = 5
TRIALS = 24
SEED = 4
KILL_WINDOW_FACTOR = 1.5
"""Kill delays are drawn from [0, factor × measured commit time]."""
CALIBRATION_RUNS = 3
"""Uninterrupted commits timed first; the fastest sets the kill window."""
CLI_KILL_DELAY = (0.0, 0.05)
LJTUI = str(Path(sys.executable).with_name("ljtui"))


def source(i: int) -> bytes:
    body = "".join(f"    value_{i}_{n} = compute({n}, 'payload {n}')  \n" for n in range(LINES_PER_FILE))
    return f"def module_{i}():\n{body}    return None\n".encode()


def build(repo: Path) -> tuple[str, dict[str, bytes | None], dict[str, bytes | None]]:
    old: dict[str, bytes | None] = {}
    blocks = []
    number = 0
    for i in range(FILE_COUNT):
        name = f"pkg{i % 7}/mod_{i}.py"
        old[name] = source(i)
        for n in (3, LINES_PER_FILE - 3):
            number += 1
            line = f"    value_{i}_{n} = compute({n}, 'payload {n}')  \n"
            blocks.append(block(number, name, line, line.replace("compute", "compute_fast"), entry=f"e{i}"))
    for k in range(CREATED_FILES):
        number += 1
        old[f"new/created_{k}.py"] = None
        blocks.append(block(number, f"new/created_{k}.py", "", f"CREATED = {k}\n", entry="created"))
    text = plan_text(*blocks)
    reset(repo, old)
    report = validate_plan(parse_plan(text), repo)
    assert report.ok
    new = dict(old)
    new.update({key: change.after for key, change in report.changes.items()})
    return text, old, new


def reset(repo: Path, old: dict[str, bytes | None]) -> None:
    shutil.rmtree(repo / ".agent", ignore_errors=True)
    shutil.rmtree(repo / "new", ignore_errors=True)
    for name, data in old.items():
        if data is not None:
            path = repo / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def state(repo: Path, names) -> dict[str, bytes | None]:
    return {n: (repo / n).read_bytes() if (repo / n).exists() else None for n in names}


def assert_consistent(repo: Path, old, new) -> str:
    now = state(repo, old)
    for name in old:
        assert now[name] in (old[name], new[name]), f"{name} is neither old nor new"
    assert now == old or now == new, "some files are old and others new"
    assert not list(repo.rglob(J.TEMP_GLOB)), "temp files left behind"
    assert J.pending(repo) == []
    return "old" if now == old else "new"


def fork_apply(repo: Path, preview: Preview) -> tuple[int, int]:
    """Fork a process that signals on the pipe, commits ``preview`` and exits."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            os.write(write_end, b"r")
            commit_plan(preview, repo, run_checks=False)
        finally:
            os._exit(0)
    os.close(write_end)
    return pid, read_end


def run_trial(repo: Path, preview: Preview, delay: float | None) -> float:
    pid, ready = fork_apply(repo, preview)
    assert os.read(ready, 1) == b"r"
    os.close(ready)
    started = time.perf_counter()
    if delay is not None:
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return time.perf_counter() - started


def test_sigkill_at_random_moments_never_leaves_mixed_files(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    text, old, new = build(repo)
    preview = preview_plan(parse_plan(text), repo)
    timings = []
    for _ in range(CALIBRATION_RUNS):
        reset(repo, old)
        timings.append(run_trial(repo, preview, None))
        assert assert_consistent(repo, old, new) == "new"
    commit_time = min(timings)
    rng = random.Random(SEED)
    outcomes = {"old": 0, "new": 0}
    restored = 0
    for _ in range(TRIALS):
        reset(repo, old)
        run_trial(repo, preview, rng.uniform(0, commit_time * KILL_WINDOW_FACTOR))
        report = recover_journal(repo)
        assert not report.errors and report.skipped is None
        restored += bool(report.changed)
        outcomes[assert_consistent(repo, old, new)] += 1
    assert sum(outcomes.values()) == TRIALS
    assert restored >= 1, outcomes


def test_sigkilled_cli_apply_then_ljtui_recover(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    text, old, new = build(repo)
    plan = tmp_path / "plan.md"
    plan.write_text(text, encoding="utf-8")
    proc = subprocess.Popen([LJTUI, "apply", str(plan), "--yes", "--no-checks"], cwd=repo,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    line = b"start"
    while line and not line.startswith(b"writing"):
        line = proc.stderr.readline()
    assert line.startswith(b"writing"), "the apply ended before writing"
    time.sleep(random.Random(SEED).uniform(*CLI_KILL_DELAY))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stderr.close()
    done = subprocess.run([LJTUI, "recover", "--repo", str(repo)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert assert_consistent(repo, old, new) in ("old", "new")
