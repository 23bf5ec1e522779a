"""Outside a git checkout a gate file is the user's own only when ljtui wrote it for them.

A folder unpacked from an archive has no ``.git``: git cannot say whether a
gate file came with it, so a gate file dropped there needs trust before its
commands run, even once confirmed. A gate proposed through this user's
session is recorded in their state dir and runs after confirmation; a
changed command no longer counts as what ljtui wrote.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ljtui.core.gates.authors import AUTHORS_FILE, GateAuthors, checks_hash, untracked, users_own
from ljtui.core.gates.confirmations import ConfirmationStore
from ljtui.core.gates.model import CheckItem, Factors
from ljtui.core.gates.service import USER, GateRefused
from ljtui.core.gates.store import GateStore
from ljtui.core.trust import TrustStore
from ljtui.core.userdirs import user_state_dir
from tests.conftest import git
from tests.core.gates.scripted import make_engine

FACTORS = Factors(0.6, 0.5, 0.6, False, False)
SMOKE = CheckItem("smoke", "it runs", "touch ran.txt")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A plain folder, no git anywhere above it in the test's tree."""
    root = tmp_path / "unpacked"
    root.mkdir()
    (root / "app.py").write_text("def greet():\n    return 'hi'\n", encoding="utf-8")
    return root


def dropped_gate(root: Path) -> str:
    """A gate file that came with the folder (written without the gate service), confirmed by the user."""
    gate = GateStore(root).propose("Smoke", [SMOKE], FACTORS, 1.0)
    ConfirmationStore.for_env().confirm(root, gate, 2.0)
    return gate.id


async def test_a_gate_dropped_in_a_plain_folder_needs_trust(folder: Path) -> None:
    gate_id = dropped_gate(folder)
    assert not untracked(folder, gate_id)
    engine, _, approver = make_engine(folder, [])
    engine.gates.current = gate_id
    with pytest.raises(GateRefused, match="not written by ljtui for you"):
        await engine.gates.check("smoke", USER)
    with pytest.raises(GateRefused, match="not written by ljtui for you"):
        await engine.gates.confirm(gate_id)
    assert approver.asked == [] and not (folder / "ran.txt").exists()


async def test_once_the_folder_is_trusted_the_dropped_gate_runs(folder: Path) -> None:
    gate_id = dropped_gate(folder)
    TrustStore.for_env().trust(folder, 3.0)
    engine, _, _ = make_engine(folder, [])
    engine.gates.current = gate_id
    [evidence] = await engine.gates.check("smoke", USER)
    assert evidence.exit_code == 0 and (folder / "ran.txt").exists()


async def test_a_gate_ljtui_wrote_for_the_user_runs_without_trust(folder: Path) -> None:
    engine, _, _ = make_engine(folder, [], {"gate_confirm": ["yes"]})
    gate = engine.gates.propose("Smoke", [SMOKE], FACTORS)
    assert GateAuthors.for_env().wrote(folder, gate) and users_own(folder, gate)
    assert await engine.gates.confirm(gate.id)
    [evidence] = await engine.gates.check("smoke", USER)
    assert evidence.exit_code == 0 and (folder / "ran.txt").exists()


async def test_a_command_changed_by_hand_is_no_longer_what_ljtui_wrote(folder: Path) -> None:
    engine, _, _ = make_engine(folder, [])
    gate = engine.gates.propose("Smoke", [SMOKE], FACTORS)
    path = folder / ".agent" / "gates" / f"{gate.id}.md"
    path.write_text(path.read_text(encoding="utf-8").replace("touch ran.txt", "touch other.txt"), encoding="utf-8")
    changed = GateStore(folder).load(gate.id)
    ConfirmationStore.for_env().confirm(folder, changed, 5.0)
    engine.gates.current = gate.id
    with pytest.raises(GateRefused, match="not written by ljtui for you"):
        await engine.gates.check("smoke", USER)
    assert not (folder / "other.txt").exists()


def test_a_forged_or_damaged_record_vouches_for_nothing(folder: Path) -> None:
    gate = GateStore(folder).propose("Smoke", [SMOKE], FACTORS, 1.0)
    record = user_state_dir() / AUTHORS_FILE
    record.parent.mkdir(parents=True, exist_ok=True)
    for forged in ({"version": 1, "repositories": {str(folder): {gate.id: {"checks": "x" * 64, "at": 1}}}},
                   {"version": 1, "repositories": {str(folder): {gate.id: {"checks": checks_hash(gate)}}}},
                   {"version": 2, "repositories": {}}):
        record.write_text(json.dumps(forged), encoding="utf-8")
        assert not users_own(folder, gate)


def test_git_answers_only_when_it_can_tell(git_repo: Path, tmp_path: Path) -> None:
    gate = GateStore(git_repo).propose("Smoke", [SMOKE], FACTORS, 1.0)
    assert untracked(git_repo, gate.id)
    git(git_repo, "add", "-f", f".agent/gates/{gate.id}.md")
    assert not untracked(git_repo, gate.id)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".git").write_text("gitdir: /nonexistent/elsewhere\n", encoding="utf-8")
    assert not untracked(broken, gate.id)
