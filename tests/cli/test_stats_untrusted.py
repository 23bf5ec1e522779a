"""``ljtui stats`` through the real CLI on logs it did not expect: gate events (no run id), and junk lines."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_gates_cli import STAGED, ljtui, run_script
from tests.core.gates.scripted import propose, with_tests


def test_stats_after_a_gate_was_proposed_reports_instead_of_crashing(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    proposed = run_script(repo, [propose(), {"text": "proposed a gate"}])
    assert proposed.returncode == 0, proposed.stderr
    log = (repo / ".agent" / "events.jsonl").read_text(encoding="utf-8")
    assert '"kind":"gate_proposed"' in log.replace(" ", "") and '"run_id"' not in log.split("gate_proposed")[1][:200]

    text = ljtui(repo, "stats")
    assert text.returncode == 0, text.stderr
    assert "KeyError" not in text.stderr and "Traceback" not in text.stderr
    assert text.stdout.splitlines()[0] == "runs                    0 approved (0 finished, 0 unfinished)"
    report = json.loads(ljtui(repo, "stats", "--json").stdout)
    assert (report["runs"], report["ignored_lines"]) == (0, 0)


def test_stats_after_a_gated_run_counts_only_task_plan_runs(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    assert run_script(repo, [*STAGED, {"text": "later"}], "--yes").returncode == 1  # gate started, run left open
    proc = ljtui(repo, "stats", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["runs"] == 0


def test_junk_lines_are_skipped_and_counted_once(git_repo: Path) -> None:
    folder = git_repo / ".agent"
    folder.mkdir()
    lines = [
        b'{"kind": "gate_proposed", "gate": "g", "level": 2}',
        b'{"kind": "task_plan_approved", "run_id": "a"}',
        b'{"kind": "run_finished", "run_id": "a", "status": "done", "replans": 0, "failed": 0}',
        b'{"kind": "task_plan_approved", "run_id": "b"}',
        b'{"kind": "run_finished", "run_id": "b", "status": "done", "replans": ' + b"9" * 400 + b', "failed": 0}',
        b'{"kind": "run_finished", "run_id": "c", "status": "done", "replans": NaN, "failed": 0}',
        b"\xff\xfe not utf-8",
        b'{"kind": "task_plan_approved", "run_id": ["nested", {"junk": 1}]}',
        b"x" * (10 * 1024 * 1024),
        b'{"kind": "task_fini',
    ]
    (folder / "events.jsonl").write_bytes(b"\n".join(lines))
    proc = ljtui(git_repo, "stats", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert (report["runs"], report["finished_runs"], report["unfinished_runs"]) == (2, 1, 1)
    assert report["first_try_success_rate"] == 1.0 and report["ignored_lines"] == 6
    assert "ljtui stats: 6 lines of events.jsonl were unreadable and skipped" in proc.stderr.splitlines()
    assert "Traceback" not in proc.stderr
