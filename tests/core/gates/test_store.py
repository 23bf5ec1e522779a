"""The gate store (GATE-1): files under .agent/gates, round trips, ids, outcomes, notes, recomputed levels."""

from __future__ import annotations

import os
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from ljtui.core.gates.model import CheckItem, Factors, Stats, pass_rate, risk
from ljtui.core.gates.records import GateInvalid, GateNotFound
from ljtui.core.gates.store import MAX_HISTORY_RUNS, GateStore
from ljtui.core.ids import is_valid_id
from tests.core.gates.helpers import FACTORS, ITEMS, NOW, evidence, run, write_gate


def test_propose_writes_a_file_that_reads_back_equal(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    gate = store.propose("Change the public API", ITEMS, FACTORS, NOW)
    assert gate.id == "change-the-public-api"
    assert store.path(gate.id).is_file()
    assert GateStore(tmp_path).load(gate.id) == gate
    assert gate.items == ITEMS
    assert gate.confirmed_by_user is False
    assert gate.level == risk(FACTORS, Stats()).level == 3
    assert (gate.created, gate.updated) == (NOW, NOW)


def test_factors_persisted_are_the_ones_given_not_zeros(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    gate = store.propose("Migrate the schema", ITEMS, Factors(0.35, 0.9, 0.15, True, False), NOW)
    text = store.path(gate.id).read_text(encoding="utf-8")
    assert "change_surface: 0.35" in text and "chain_length: 0.9" in text and "cognitive_density: 0.15" in text
    assert "objectively_verifiable: true" in text and "irreversible: false" in text
    loaded = GateStore(tmp_path).load(gate.id)
    assert loaded.factors == Factors(0.35, 0.9, 0.15, True, False)
    assert loaded.level == risk(Factors(0.35, 0.9, 0.15, True, False), Stats()).level


def test_propose_is_always_unconfirmed_and_levels_come_from_the_formula(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    gate = store.propose("x", ITEMS, {"change_surface": 0, "chain_length": 0, "cognitive_density": 0,
                                      "objectively_verifiable": True, "irreversible": False}, NOW)
    assert gate.level == 1 and gate.confirmed_by_user is False
    assert "confirmed_by_user: false" in store.path(gate.id).read_text(encoding="utf-8")


def test_ids_are_unique_and_follow_the_title_rule(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    write_gate(tmp_path, "deploy")
    (tmp_path / ".agent" / "gates" / "deploy-2.md").write_text("not a gate", encoding="utf-8")
    assert store.propose("Deploy", ITEMS, FACTORS, NOW).id == "deploy-3"
    chinese = store.propose("为插件开发", ITEMS, FACTORS, NOW)
    assert chinese.id.startswith("gate-") and is_valid_id(chinese.id)
    assert store.load(chinese.id).title == "为插件开发"


def test_proposed_items_are_checked_like_untrusted_input(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    bad_items = [
        ([{"id": "Tests!", "description": "d", "command": "true"}], "checklist item 1 id"),
        ([{"id": "t", "description": "d", "command": ""}], "checklist.t.command"),
        ([{"id": "t", "description": "d", "command": "a\x00b"}], "checklist.t.command"),
        ([{"id": "t", "description": "d", "command": "true\nrm -rf ~"}], "checklist.t.command"),
        ([{"id": "t", "description": "d", "command": ["pytest", "-q"]}], "checklist.t.command"),
        ([{"id": "t", "description": "d", "command": "x" * 5000}], "checklist.t.command"),
        ([{"id": "t", "description": "d", "command": "true", "required": "yes"}], "checklist.t.required"),
        ([{"id": "t", "description": "d", "command": "true", "shell": "zsh"}], "checklist.t.shell"),
        ([], "checklist"),
        ([{"id": f"t{n}", "description": "d", "command": "true"} for n in range(21)], "checklist"),
    ]
    for items, field in bad_items:
        with pytest.raises(GateInvalid) as caught:
            store.propose("x", items, FACTORS, NOW)
        assert caught.value.field == field, items
    with pytest.raises(GateInvalid) as caught:
        store.propose("x", ITEMS, replace(FACTORS, chain_length=1.2), NOW)
    assert caught.value.field == "factors.chain_length"
    assert not store.folder.exists() or store.ids() == []


def test_hand_written_file_loads_and_notes_are_kept(tmp_path: Path) -> None:
    write_gate(tmp_path, "api")
    store = GateStore(tmp_path)
    gate = store.load("api")
    assert gate.items == ITEMS
    assert gate.notes == "Ask Dana before loosening the contract tests."
    again = store.record_outcome("api", run("r1", "fail", evidence(exit_code=1)), now=NOW + 20)
    assert again.notes == gate.notes
    assert "Ask Dana before loosening the contract tests." in store.path("api").read_text(encoding="utf-8")


def test_free_text_under_other_headings_is_kept(tmp_path: Path) -> None:
    text = write_gate(tmp_path, "api").read_text(encoding="utf-8") + "\n## Why\n\nThe API is public.\n"
    write_gate(tmp_path, "api", text)
    store = GateStore(tmp_path)
    saved = store.save(store.load("api"))
    assert "## Why\n\nThe API is public." in saved.notes
    assert store.load("api") == saved


def test_a_level_that_disagrees_with_the_formula_is_recomputed_and_noted(tmp_path: Path) -> None:
    text = write_gate(tmp_path, "api").read_text(encoding="utf-8")
    write_gate(tmp_path, "api", text.replace("level: 3", "level: 0"))
    read = GateStore(tmp_path).read("api")
    assert read.gate.level == 3
    assert any("level: the file says L0" in w and "L3 is used" in w for w in read.warnings)


def test_save_writes_the_formula_level_whatever_the_gate_says(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    gate = store.propose("api", ITEMS, FACTORS, NOW)
    saved = store.save(replace(gate, level=0))
    assert saved.level == 3 and "level: 3" in store.path(gate.id).read_text(encoding="utf-8")


def test_pass_and_fail_are_counted_exempt_is_not(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    gate_id = store.propose("api", ITEMS, FACTORS, NOW).id
    store.record_outcome(gate_id, run("r1", "pass", evidence()))
    store.record_outcome(gate_id, run("r2", "fail", evidence(exit_code=2)))
    before = store.load(gate_id)
    after = store.record_outcome(gate_id, run("r3", "exempt"))
    assert before.stats == after.stats == Stats(runs=2, passed=1, failed=1, reworks=0)
    assert after.level == before.level
    assert [e.outcome for e in after.history] == ["pass", "fail", "exempt"]
    assert GateStore(tmp_path).load(gate_id) == after


def test_a_rework_sends_back_the_latest_pass_and_counts_twice_against_p(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    gate_id = store.propose("api", ITEMS, Factors(0.5, 0.5, 0.5, False, False), NOW).id
    with pytest.raises(GateInvalid, match="no passed delivery"):
        store.record_outcome(gate_id, run("x", "rework"))
    passed = store.record_outcome(gate_id, run("r1", "pass", evidence()))
    assert pass_rate(passed.stats) == 1.0 and passed.level == 1
    reworked = store.record_outcome(gate_id, run("rework-1", "rework"))
    assert reworked.stats == Stats(runs=1, passed=1, failed=0, reworks=1)
    assert pass_rate(reworked.stats) == pytest.approx(1 / 3)
    assert reworked.level == 2
    assert reworked.history[-1].run_id == "r1"
    with pytest.raises(GateInvalid, match="no passed delivery"):
        store.record_outcome(gate_id, run("rework-2", "rework"))
    assert GateStore(tmp_path).load(gate_id) == reworked


def test_update_definition_keeps_the_record_and_asks_for_confirmation_again(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    gate_id = store.propose("api", ITEMS, FACTORS, NOW).id
    store.save(replace(store.load(gate_id), confirmed_by_user=True))
    store.record_outcome(gate_id, run("r1", "pass", evidence()))
    new_items = (CheckItem("contract", "Contract tests pass", "pytest tests/contract -q"),)
    updated = store.update_definition(gate_id, "API v2", new_items, Factors(0.1, 0.1, 0.1, True, False), NOW + 99)
    assert updated.items == new_items and updated.title == "API v2"
    assert updated.stats == Stats(runs=1, passed=1) and len(updated.history) == 1
    assert updated.confirmed_by_user is False and updated.updated == NOW + 99
    assert updated.level == risk(Factors(0.1, 0.1, 0.1, True, False), updated.stats).level == 0


def test_history_keeps_the_last_runs_and_stats_keep_counting(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    gate_id = store.propose("api", ITEMS, FACTORS, NOW).id
    for number in range(MAX_HISTORY_RUNS + 3):
        gate = store.record_outcome(gate_id, run(f"r{number}", "fail", evidence(exit_code=1)))
    assert len(gate.history) == MAX_HISTORY_RUNS and gate.history[0].run_id == "r3"
    assert gate.stats.runs == MAX_HISTORY_RUNS + 3


def test_evidence_output_is_kept_short_in_the_file(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    gate_id = store.propose("api", ITEMS, FACTORS, NOW).id
    noisy = "line `one`\n" * 500
    gate = store.record_outcome(gate_id, run("r1", "fail", evidence(exit_code=None, output=noisy, verifier="v-1")))
    kept = gate.history[0].evidence[0]
    assert kept.exit_code is None and kept.verifier == "v-1"
    assert kept.output.startswith("line `one` line `one`") and len(kept.output) <= 160
    assert store.path(gate_id).stat().st_size < 4096


def test_remove(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    gate_id = store.propose("api", ITEMS, FACTORS, NOW).id
    assert store.remove(gate_id) is True
    assert store.remove(gate_id) is False
    with pytest.raises(GateNotFound) as caught:
        store.load(gate_id)
    assert ".agent/gates/api.md" in caught.value.message


def test_writes_are_atomic_and_leave_no_temporary_files(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    gate_id = store.propose("api", ITEMS, FACTORS, NOW).id
    inode = store.path(gate_id).stat().st_ino
    store.record_outcome(gate_id, run("r1", "pass", evidence()))
    assert store.path(gate_id).stat().st_ino != inode
    assert os.listdir(store.folder) == ["api.md"]


def test_concurrent_outcomes_are_never_lost(tmp_path: Path) -> None:
    gate_id = GateStore(tmp_path).propose("api", ITEMS, FACTORS, NOW).id
    per_thread = 8

    def record(name: str) -> None:
        store = GateStore(tmp_path)
        for number in range(per_thread):
            store.record_outcome(gate_id, run(f"{name}-{number}", "pass", evidence()))

    threads = [threading.Thread(target=record, args=(f"t{n}",)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert GateStore(tmp_path).load(gate_id).stats.runs == 3 * per_thread


def test_front_matter_keys_of_the_users_own_are_kept(tmp_path: Path) -> None:
    text = write_gate(tmp_path, "api").read_text(encoding="utf-8")
    write_gate(tmp_path, "api", text.replace("title:", "owner: dana\nlabels: [api, public]\ntitle:"))
    store = GateStore(tmp_path)
    gate = store.load("api")
    assert gate.extra == {"owner": "dana", "labels": ["api", "public"]}
    store.record_outcome("api", run("r1", "pass", evidence()))
    assert store.load("api").extra == gate.extra
