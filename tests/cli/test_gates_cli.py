"""``ljtui gates`` and a gated ``ljtui run``, headless, as subprocesses on a real git repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from ljtui.core.gates.confirmations import ConfirmationStore
from ljtui.core.gates.model import CheckItem, Factors
from ljtui.core.gates.store import GateStore
from tests.conftest import git
from tests.core.gates.scripted import FRIENDLY, GATE, ORIGINAL, call, propose, with_tests

TIMEOUT = 60
EDIT = call("edit_file", path="app.py", old="    return 'hello ' + name\n", new="    return f'hello, {name}!'\n")


def ljtui(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", *args, "--repo", str(repo)],
                          capture_output=True, text=True, timeout=TIMEOUT, env=env)


def run_script(repo: Path, turns: list, *flags: str) -> subprocess.CompletedProcess[str]:
    script = repo.parent / "gate.yaml"
    script.write_text(yaml.safe_dump({"turns": turns}), encoding="utf-8")
    return ljtui(repo, "run", "--provider", "scripted", "--script", str(script), "--allow", "write,bash",
                 *flags, "make greet friendlier")


STAGED = [propose(), call("gate_confirm", gate_id=GATE), call("gate_start", gate_id=GATE), EDIT]


def test_headless_a_model_cannot_confirm_its_own_gate(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    proc = run_script(repo, [*STAGED, {"text": "done"}], "--json")
    assert proc.returncode == 0, proc.stderr
    kinds = [json.loads(line)["kind"] for line in proc.stdout.splitlines()]
    assert "gate_proposed" in kinds and "gate_confirmed" not in kinds and "gate_started" not in kinds
    assert (repo / "app.py").read_text() == FRIENDLY  # no gate started: the write went to the user's tree


def test_a_gated_run_without_evidence_ends_with_delivery_blocked_then_deliver_later(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    proc = run_script(repo, [*STAGED, {"text": "stopped before the checks"}], "--yes", "--json")
    assert proc.returncode == 1
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    [blocked] = [e for e in events if e["kind"] == "delivery_blocked"]
    assert (blocked["gate"], blocked["missing"], blocked["failed"], blocked["stale"]) == (GATE, ["tests"], [], [])
    assert f"gate {GATE}" in proc.stderr and (repo / "app.py").read_text() == ORIGINAL
    listed = json.loads(ljtui(repo, "gates", "list", "--json").stdout)
    assert [(g["id"], g["level"], g["confirmed_by_user"]) for g in listed] == [(GATE, 2, True)]
    checked = ljtui(repo, "gates", "check", GATE, "tests")
    assert checked.returncode == 0, checked.stderr
    delivered = ljtui(repo, "gates", "deliver", GATE, "--yes")
    assert delivered.returncode == 0, delivered.stderr
    assert (repo / "app.py").read_text() == FRIENDLY
    shown = json.loads(ljtui(repo, "gates", "show", GATE, "--json").stdout)
    assert set(shown) >= {"id", "title", "level", "R", "factors", "confirmed_by_user", "items", "history"}
    assert shown["factors"]["change_surface"] == 0.6 and shown["items"][0]["command"] == "python3 -m unittest -q"
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "2"  # nothing was committed for the user


def test_gates_show_prints_the_history_and_rework_counts_twice(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    turns = [*STAGED, call("gate_check", item="tests"), call("gate_finish", outcome="pass"), {"text": "done"}]
    proc = run_script(repo, turns, "--yes")
    assert proc.returncode == 0, proc.stderr
    assert (repo / "app.py").read_text() == FRIENDLY
    shown = ljtui(repo, "gates", "show", GATE)
    assert shown.returncode == 0 and "history: 1 run(s), 1 passed" in shown.stdout and " pass " in shown.stdout
    assert ljtui(repo, "gates", "rework", GATE).returncode == 0
    data = json.loads(ljtui(repo, "gates", "show", GATE, "--json").stdout)
    assert data["stats"] == {"runs": 1, "passed": 1, "failed": 0, "reworks": 1}
    assert data["P"] == round(1 / 3, 4) and [h["outcome"] for h in data["history"]] == ["pass", "rework"]


def test_discard_throws_the_staged_work_away(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    assert run_script(repo, [*STAGED, {"text": "later"}], "--yes").returncode == 1
    assert ljtui(repo, "gates", "discard", GATE).returncode == 0
    assert not [p for p in (repo / ".agent" / "workspace").iterdir() if (p / "tree").exists()]
    again = ljtui(repo, "gates", "deliver", GATE)
    assert again.returncode == 1 and "no open gate run" in again.stderr
    assert (repo / "app.py").read_text() == ORIGINAL


def test_bad_input_is_a_clear_error(git_repo: Path) -> None:
    assert ljtui(git_repo, "gates", "show").returncode == 2
    missing = ljtui(git_repo, "gates", "show", "nope")
    assert missing.returncode == 1 and "there is no gate 'nope'" in missing.stderr
    hostile = ljtui(git_repo, "gates", "show", "../../etc/passwd")
    assert hostile.returncode == 1 and "not a gate id" in hostile.stderr
    folder = git_repo / ".agent" / "gates"
    folder.mkdir(parents=True)
    (folder / "bad.md").write_text("---\nid: bad\ntitle: x\nfactors: 7\n---\n", encoding="utf-8")
    listed = ljtui(git_repo, "gates", "list")
    assert listed.returncode == 1 and ".agent/gates/bad.md" in listed.stderr


def test_an_unknown_gate_names_the_gates_there_are_and_ljtui_gates_list(git_repo: Path) -> None:
    none_yet = ljtui(git_repo, "gates", "show", "nosuch")
    assert none_yet.returncode == 1
    assert none_yet.stderr == ("ljtui gates show: there is no gate 'nosuch': this repository has no gates yet "
                               "(.agent/gates/)\n")
    gate = GateStore(git_repo).propose("Greeting works", [CheckItem("smoke", "it prints", "true")],
                                       Factors(0.6, 0.5, 0.6, False, False), 1.0)
    for action in ("show", "rework"):
        proc = ljtui(git_repo, "gates", action, "nosuch")
        assert proc.returncode == 1
        assert proc.stderr == (f"ljtui gates {action}: there is no gate 'nosuch' (the gates here: {gate.id}); "
                               "`ljtui gates list` lists them\n")
    unnamed = ljtui(git_repo, "gates", "show")
    assert unnamed.returncode == 2
    assert unnamed.stderr == "ljtui gates show: name the gate (`ljtui gates list` lists them)\n"


def test_gates_check_checks_the_gate_it_names_and_not_another_ones_open_run(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    other = GateStore(repo).propose("Greeting prints", [CheckItem("smoke", "it prints", "python3 -c 'print(1)'")],
                                    Factors(0.6, 0.5, 0.6, False, False), 1.0)
    ConfirmationStore.for_env(os.environ).confirm(repo, other, 1.0)
    checked = ljtui(repo, "gates", "check", other.id)
    assert checked.returncode == 0, checked.stderr
    assert f"[gate {other.id}: smoke exit 0 after" in checked.stderr
    assert run_script(repo, [*STAGED, {"text": "later"}], "--yes").returncode == 1  # a run of GATE left open
    refused = ljtui(repo, "gates", "check", other.id)
    assert refused.returncode == 1 and "smoke exit" not in refused.stderr
    assert refused.stderr.startswith(f"ljtui gates check: gate {GATE} has the open run (")
    assert refused.stderr.endswith(f"so gate {other.id} is not checked: `ljtui gates check {GATE}` checks that one, "
                                   f"`ljtui gates discard {GATE}` ends it\n")
