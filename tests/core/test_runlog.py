"""The run log ``.agent/events.jsonl``: appending, refusing links, bounds, and reading untrusted lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ljtui.core.clock import FixedClock
from ljtui.core.events import Event, TurnStarted
from ljtui.core.runlog import (
    DROPPED_KIND, EVENTS_FILE, MAX_FIELD_CHARS, MAX_LINE_BYTES, RunLog, read_run_log,
)
from tests.conftest import git

SUBPROCESS_TIMEOUT = 120
START = 1_800_000_000.0
APPENDS_PER_PROCESS = 200
PAYLOAD_CHARS = 30_000
"""Big enough that unlocked, unbuffered writers would split lines."""


def approved(run_id: str = "r1") -> dict[str, object]:
    return {"kind": "task_plan_approved", "run_id": run_id}


def finished(task_id: int = 1, status: str = "done") -> dict[str, object]:
    return {"kind": "task_finished", "run_id": "r1", "task_id": task_id, "description": "d", "status": status}


def log_path(root: Path) -> Path:
    return root / ".agent" / EVENTS_FILE


def test_append_then_read_round_trips_with_a_utc_time(tmp_path: Path) -> None:
    log = RunLog(tmp_path, clock=FixedClock(START))
    assert log.append(approved()) is None
    assert log.append(finished(status="failed")) is None
    read = read_run_log(tmp_path)
    assert read.problem is None and read.ignored == 0
    assert read.events == (
        {"kind": "task_plan_approved", "time": "2027-01-15T08:00:00.000Z", "run_id": "r1"},
        {"kind": "task_finished", "time": "2027-01-15T08:00:00.000Z", "run_id": "r1", "task_id": 1,
         "description": "d", "status": "failed"},
    )
    assert log.warning is None
    assert len(log_path(tmp_path).read_bytes().splitlines()) == 2


def test_text_that_is_not_utf8_is_written_as_its_json_escape(tmp_path: Path) -> None:
    assert RunLog(tmp_path).append(approved("run-\udcff")) is None
    assert b'"run-\\udcff"' in log_path(tmp_path).read_bytes()
    assert [e["run_id"] for e in read_run_log(tmp_path).events] == ["run-\udcff"]


def test_the_log_stays_out_of_git_status(git_repo: Path) -> None:
    (git_repo / ".agent").mkdir()
    (git_repo / ".agent" / ".gitignore").write_text("mine/", encoding="utf-8")
    assert RunLog(git_repo).append(approved()) is None
    assert git(git_repo, "status", "--porcelain", "--untracked-files=all") == ""
    listed = (git_repo / ".agent" / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert listed[0] == "mine/" and listed.count(EVENTS_FILE) == 1
    RunLog(git_repo).append(approved("r2"))
    assert (git_repo / ".agent" / ".gitignore").read_text(encoding="utf-8").splitlines().count(EVENTS_FILE) == 1


def test_an_event_object_of_a_logged_kind_is_appended_and_others_are_not(tmp_path: Path) -> None:
    @dataclass(frozen=True)
    class TaskPlanApproved(Event):
        run_id: str

    log = RunLog(tmp_path, clock=FixedClock(START))
    log.emit(TurnStarted(1, "hello"))
    log.emit(TaskPlanApproved("r9"))
    assert [e["run_id"] for e in read_run_log(tmp_path).events] == ["r9"]
    assert len(log_path(tmp_path).read_bytes().splitlines()) == 1


APPENDER = """
import sys
from pathlib import Path
from ljtui.core.runlog import RunLog
log = RunLog(Path(sys.argv[1]))
for i in range(int(sys.argv[2])):
    problem = log.append({"kind": "task_finished", "run_id": sys.argv[3], "task_id": i,
                          "description": sys.argv[3] * int(sys.argv[4]), "status": "done"})
    assert problem is None, problem
"""


def test_two_processes_appending_at_once_write_only_whole_lines(tmp_path: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", APPENDER, str(tmp_path), str(APPENDS_PER_PROCESS), name,
                               str(PAYLOAD_CHARS)], stderr=subprocess.PIPE, text=True) for name in ("a", "b")]
    for proc in procs:
        _, err = proc.communicate(timeout=SUBPROCESS_TIMEOUT)
        assert proc.returncode == 0, err
    lines = log_path(tmp_path).read_bytes().split(b"\n")
    assert lines.pop() == b""
    parsed = [json.loads(line) for line in lines]
    for name in ("a", "b"):
        mine = [e for e in parsed if e["run_id"] == name]
        assert [e["task_id"] for e in mine] == list(range(APPENDS_PER_PROCESS))
        assert all(e["description"] == name * PAYLOAD_CHARS for e in mine)


def test_a_symlinked_state_folder_is_refused_and_nothing_is_written_through_it(tmp_path: Path) -> None:
    root, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    (root / ".agent").symlink_to(elsewhere)
    log = RunLog(root)
    warning = log.append(approved())
    assert warning is not None and ".agent is a symbolic link" in warning
    assert log.warning == warning
    assert log.append(approved()) is None, "a failure is reported once"
    assert list(elsewhere.iterdir()) == []
    assert read_run_log(root).problem is not None


def test_a_symlinked_log_file_is_refused_and_its_target_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_text("precious\n", encoding="utf-8")
    (tmp_path / ".agent").mkdir()
    log_path(tmp_path).symlink_to(target)
    warning = RunLog(tmp_path).append(approved())
    assert warning is not None and f".agent/{EVENTS_FILE} is a symbolic link" in warning
    assert target.read_text(encoding="utf-8") == "precious\n"
    read = read_run_log(tmp_path)
    assert read.events == () and read.problem is not None and "symbolic link" in read.problem


def test_an_event_with_long_strings_is_trimmed_and_marked(tmp_path: Path) -> None:
    event = {**finished(), "description": "x" * (MAX_LINE_BYTES * 2)}
    assert RunLog(tmp_path).append(event) is None
    (logged,) = read_run_log(tmp_path).events
    assert logged["trimmed"] is True and logged["status"] == "done"
    assert len(logged["description"]) < MAX_FIELD_CHARS * 2


def test_an_absurd_event_is_replaced_by_a_marker_and_reported_once(tmp_path: Path) -> None:
    event = {**finished(), "changed": ["y" * MAX_FIELD_CHARS] * (MAX_LINE_BYTES // MAX_FIELD_CHARS + 1)}
    log = RunLog(tmp_path)
    warning = log.append(event)
    assert warning is not None and "was not logged in full" in warning and DROPPED_KIND in warning
    assert log.append(event) is None
    lines = [json.loads(line) for line in log_path(tmp_path).read_bytes().splitlines()]
    assert [(e["kind"], e["dropped_kind"], e["run_id"]) for e in lines] == [(DROPPED_KIND, "task_finished", "r1")] * 2
    assert all(len(line) <= MAX_LINE_BYTES for line in log_path(tmp_path).read_bytes().splitlines())


def test_an_event_that_cannot_be_encoded_is_a_warning_not_an_exception(tmp_path: Path) -> None:
    circular: dict[str, object] = {"kind": "task_plan_approved", "run_id": "r1"}
    circular["self"] = circular
    log = RunLog(tmp_path)
    assert log.append(circular) is not None
    assert RunLog(tmp_path).append({"run_id": "no kind"}) is not None  # type: ignore[arg-type]
    assert RunLog(tmp_path).append("not a dict") is not None  # type: ignore[arg-type]
    assert not log_path(tmp_path).exists() or log_path(tmp_path).read_bytes() == b""


def write_log(root: Path, data: bytes) -> None:
    (root / ".agent").mkdir(exist_ok=True)
    log_path(root).write_bytes(data)


def line(obj: object) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def test_malformed_huge_and_wrong_typed_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    write_log(tmp_path, b"".join([
        line(approved()),
        b"{not json\n",
        b"\xff\xfe\n",
        line([1, 2]),
        line({"kind": "run_finished", "run_id": "r1", "status": "done", "replans": "0", "failed": 0}),
        line({"kind": "run_finished", "run_id": "r1", "status": "done", "replans": True, "failed": 0}),
        line({"kind": "run_finished", "run_id": "r1", "status": "done", "replans": -1, "failed": 0}),
        line({"kind": "task_plan_proposed", "run_id": "r1", "tasks": [{"id": 1, "tool_hint": 7}]}),
        line({"kind": "task_finished", "run_id": 5, "task_id": 1, "status": "done"}),
        line({"kind": "task_finished", "run_id": "r1", "description": "x" * MAX_LINE_BYTES, "task_id": 1,
              "status": "done"}),
        b"[" * 100_000 + b"\n",
        b"\n",
        line({"kind": "review_exported", "run_id": "r1"}),
        line(finished()),
    ]))
    read = read_run_log(tmp_path)
    assert [e["kind"] for e in read.events] == ["task_plan_approved", "task_finished"]
    assert read.ignored == 10 and read.other == 1
    assert read.reasons == ("line 2: not JSON", "line 3: not UTF-8", "line 4: not a JSON object but list")


def test_an_unfinished_last_line_is_counted_and_the_next_append_starts_a_new_line(tmp_path: Path) -> None:
    write_log(tmp_path, line(approved()) + b'{"kind": "task_fin')
    read = read_run_log(tmp_path)
    assert len(read.events) == 1 and read.ignored == 1
    assert read.reasons == ("line 2: unfinished last line",)
    assert RunLog(tmp_path).append(finished()) is None
    read = read_run_log(tmp_path)
    assert [e["kind"] for e in read.events] == ["task_plan_approved", "task_finished"] and read.ignored == 1


def test_only_the_last_part_of_a_long_log_is_read(tmp_path: Path) -> None:
    lines = [line(approved(f"run-{i:04d}")) for i in range(100)]
    write_log(tmp_path, b"".join(lines))
    tail = sum(len(x) for x in lines[-10:]) + len(lines[0]) // 2
    read = read_run_log(tmp_path, max_bytes=tail)
    assert [e["run_id"] for e in read.events] == [f"run-{i:04d}" for i in range(90, 100)]
    assert read.ignored == 0 and read.unread_bytes == sum(len(x) for x in lines) - tail


def test_a_missing_log_reads_as_empty(tmp_path: Path) -> None:
    assert read_run_log(tmp_path) == read_run_log(tmp_path / "nowhere")
    assert read_run_log(tmp_path).events == () and read_run_log(tmp_path).problem is None


def test_a_log_that_is_a_folder_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    log_path(tmp_path).mkdir(parents=True)
    assert read_run_log(tmp_path).problem is not None
    assert RunLog(tmp_path).append(approved()) is not None
    os.rmdir(log_path(tmp_path))
