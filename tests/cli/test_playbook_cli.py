"""``ljtui playbook`` headless: JSON lists and rankings, promotion denied without a terminal, warnings on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import yaml

from ljtui.core.gates.confirmations import ConfirmationStore
from ljtui.core.gates.model import CheckItem, Evidence, Factors, HistoryEntry
from ljtui.core.gates.store import GateStore
from tests.core.playbooks.helpers import repo_playbooks, write_fixture_library, write_playbook

TIMEOUT = 60


def ljtui(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", *args, "--repo", str(repo)], capture_output=True,
                          text=True, timeout=TIMEOUT, env=env, stdin=subprocess.DEVNULL)


def test_search_json_ranks_the_fixture_library_as_the_seed_scores_it(git_repo: Path) -> None:
    write_fixture_library(repo_playbooks(git_repo))
    proc = ljtui(git_repo, "playbook", "search", "build", "--json")
    assert proc.returncode == 0, proc.stderr
    hits = json.loads(proc.stdout)
    assert [(h["id"], h["score"]) for h in hits] == [
        ("python-build-cache", 13.375), ("flaky-build-fix", 12.625), ("windows-sandbox-build", 5.125),
        ("release-python-package", 1.0)]
    assert set(hits[0]) >= {"id", "title", "status", "stats", "score"}
    assert hits[0]["stats"] == {"uses": 3, "ok": 3, "fail": 0, "last_used": None, "last_outcome": None}
    cjk = json.loads(ljtui(git_repo, "playbook", "search", "沙箱构建", "--json").stdout)
    assert [(h["id"], h["title"], h["score"]) for h in cjk] == [("windows-sandbox-build", "Windows 沙箱里跑构建",
                                                                 18.125)]
    tagged = json.loads(ljtui(git_repo, "playbook", "search", "", "--tag", "数据库", "--json").stdout)
    assert [(h["id"], h["status"], h["score"]) for h in tagged] == [("pb-1a2b3c4d", "draft", 6.0)]
    words = ljtui(git_repo, "playbook", "search", "沙箱构建")
    assert words.stdout.split() == ["18.12", "active", "windows-sandbox-build", "Windows", "沙箱里跑构建"]


def test_list_json_is_every_playbook_and_a_bad_file_is_a_warning_naming_file_and_field(git_repo: Path) -> None:
    write_fixture_library(repo_playbooks(git_repo))
    (repo_playbooks(git_repo) / "broken.md").write_text('---\nid: "broken"\ntitle: 7\n---\n', encoding="utf-8")
    proc = ljtui(git_repo, "playbook", "list", "--json")
    assert proc.returncode == 0
    listed = json.loads(proc.stdout)
    assert len(listed) == 7 and [p["id"] for p in listed][:2] == ["dsh-host", "flaky-build-fix"]
    assert "ljtui playbook: repository playbook .agent/playbooks/broken.md: title: must be a string, not a number; " \
           "skipped" in proc.stderr
    text = ljtui(git_repo, "playbook", "list").stdout.splitlines()
    assert text[:2] == ["active     dsh-host  1 ok · 2 fail", "           为 DSH 开发并热装本地 Host 插件"]


def test_promotion_is_denied_without_a_terminal_and_done_with_yes(git_repo: Path) -> None:
    write_playbook(repo_playbooks(git_repo), "deploy", "Deploy", status="draft")
    denied = ljtui(git_repo, "playbook", "promote", "deploy")
    assert denied.returncode == 1
    assert "Make playbook deploy active? Not a terminal, so the answer is 'keep it as it is'; pass --yes" \
        in denied.stderr
    assert 'status: "draft"' in (repo_playbooks(git_repo) / "deploy.md").read_text()
    done = ljtui(git_repo, "playbook", "promote", "deploy", "--yes", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["playbook"]["status"] == "active"
    assert ljtui(git_repo, "playbook", "deprecate", "deploy").stdout.startswith(
        "playbook 'deploy' is now deprecated (was active)")
    assert ljtui(git_repo, "playbook", "draft", "deploy").returncode == 0
    missing = ljtui(git_repo, "playbook", "show", "nope")
    assert missing.returncode == 1 and "there is no playbook 'nope'; known: deploy" in missing.stderr


def test_show_and_stats(git_repo: Path) -> None:
    write_fixture_library(repo_playbooks(git_repo))
    shown = json.loads(ljtui(git_repo, "playbook", "show", "dsh-host", "--json").stdout)
    assert shown["sop"] == ["写插件", "npm test", "重启 DSH"] and shown["path"] == ".agent/playbooks/dsh-host.md"
    stats = json.loads(ljtui(git_repo, "playbook", "stats", "--json").stdout)
    assert stats["by_status"] == {"draft": 1, "active": 5, "deprecated": 1} and (stats["ok"], stats["fail"]) == (6, 6)
    assert "most proven: python-build-cache (3 ok · 0 fail)" in ljtui(git_repo, "playbook", "stats").stdout


def test_a_linked_playbook_folder_is_refused_and_reading_goes_on(git_repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    write_playbook(outside, "leak", "Outside", status="draft")
    (git_repo / ".agent").mkdir()
    (git_repo / ".agent" / "playbooks").symlink_to(outside)
    proc = ljtui(git_repo, "playbook", "list", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout) == []
    assert ".agent/playbooks is a symbolic link" in proc.stderr
    saved = ljtui(git_repo, "playbook", "promote", "leak", "--yes")
    assert saved.returncode == 1 and 'status: "draft"' in (outside / "leak.md").read_text()
    assert sorted(p.name for p in outside.iterdir()) == ["leak.md"]


def test_a_demotion_during_a_run_is_a_json_event(git_repo: Path, tmp_path: Path, isolated_env: Path) -> None:
    write_playbook(isolated_env / "ljtui" / "playbooks", "deploy", "Deploy", scope="user", fail=1)
    script = tmp_path / "feedback.yaml"
    script.write_text(yaml.safe_dump({"turns": [
        {"tool_calls": [{"name": "playbook_feedback", "input": {"id": "deploy", "outcome": "fail"}}]},
        {"text": "noted"}]}), encoding="utf-8")
    proc = ljtui(git_repo, "run", "--json", "--provider", "scripted", "--script", str(script), "deploy again")
    assert proc.returncode == 0, proc.stderr
    [demoted] = [e for e in map(json.loads, proc.stdout.splitlines()) if e["kind"] == "playbook_demoted"]
    assert (demoted["id"], demoted["to"], demoted["ok"], demoted["fail"]) == ("deploy", "deprecated", 0, 2)


NOW = 1_800_000_000.0
SMOKE = "python3 -c 'print(1)'"


def gates_with_a_record(repo: Path) -> tuple[str, str]:
    """Two gates written by the real store: one confirmed with a pass, a fail and a rework; one new."""
    store = GateStore(repo)
    factors = Factors(0.6, 0.5, 0.6, False, False)
    kept = store.propose("Greeting works", [CheckItem("smoke", "the greeting prints", SMOKE)], factors, NOW)
    ConfirmationStore.for_env(os.environ).confirm(repo, kept, NOW)
    smoke = Evidence("smoke", SMOKE, 0, 12, "1\n", "", "user", at=NOW + 60)
    store.record_outcome(kept.id, HistoryEntry("20270115-0801-a1b2", "pass", NOW + 60, (smoke,)))
    store.record_outcome(kept.id, HistoryEntry("20270116-0800-c3d4", "fail", NOW + 86_400,
                                               (replace(smoke, exit_code=1),)))
    store.record_outcome(kept.id, HistoryEntry("20270116-0800-c3d4", "rework", NOW + 90_000))
    new = store.propose("Docs build", [CheckItem("docs", "the docs build", "true", required=False)], factors, NOW)
    return kept.id, new.id


def test_playbook_gates_lists_and_shows_the_gates_as_ljtui_gates_does(git_repo: Path) -> None:
    empty = ljtui(git_repo, "playbook", "gates")
    assert empty.returncode == 0 and empty.stdout.startswith("No gates in this repository yet (.agent/gates/)")
    kept, new = gates_with_a_record(git_repo)
    listed = ljtui(git_repo, "playbook", "gates")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        f"{new} · L2 · R 0.53 · not confirmed · P 0.50 (0 run(s)) · Docs build",
        f"{kept} · L2 · R 0.66 · confirmed · P 0.25 (2 run(s): 1 passed, 1 failed, 1 rework(s)) · Greeting works"]
    assert listed.stdout == ljtui(git_repo, "gates", "list").stdout
    rows = json.loads(ljtui(git_repo, "playbook", "gates", "--json").stdout)
    assert rows[1] == {"id": kept, "title": "Greeting works", "level": 2, "suggested": 2, "R": 0.6583, "P": 0.25,
                       "confirmed_by_user": True, "runs": 2, "passed": 1, "failed": 1, "reworks": 1}
    shown = ljtui(git_repo, "playbook", "gates", kept)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[:2] == [f"Delivery gate {kept} (L2, R 0.66): confirmed, not started", "title: Greeting works"]
    assert "- smoke (required): pending — the greeting prints" in lines and f"  smoke: $ {SMOKE}" in lines
    assert lines[-4:] == ["history: 2 run(s), 1 passed, 1 failed, 1 rework(s)",
                          "  20270115-0801-a1b2  pass  2027-01-15T08:01:00.000Z  (smoke 0)",
                          "  20270116-0800-c3d4  fail  2027-01-16T08:00:00.000Z  (smoke 1)",
                          "  20270115-0801-a1b2  rework  2027-01-16T09:00:00.000Z"]
    assert shown.stdout == ljtui(git_repo, "gates", "show", kept).stdout
    as_json = ljtui(git_repo, "playbook", "gates", kept, "--json")
    assert json.loads(as_json.stdout) == json.loads(ljtui(git_repo, "gates", "show", kept, "--json").stdout)


def test_playbook_gates_of_an_unknown_id_names_the_command_that_lists_them(git_repo: Path) -> None:
    kept, new = gates_with_a_record(git_repo)
    for extra in ((), ("--json",)):
        proc = ljtui(git_repo, "playbook", "gates", "nosuch", *extra)
        assert proc.returncode == 1 and proc.stdout == ""
        assert proc.stderr == (f"ljtui playbook gates: there is no gate 'nosuch' (the gates here: {new}, {kept}); "
                               "`ljtui playbook gates` lists them\n")
    hostile = ljtui(git_repo, "playbook", "gates", "../../etc/passwd")
    assert hostile.returncode == 1 and "not a gate id" in hostile.stderr and "internal error" not in hostile.stderr
    assert ljtui(git_repo, "playbook", "gates", kept, "smoke").returncode == 2
