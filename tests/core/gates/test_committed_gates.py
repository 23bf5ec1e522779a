"""A gate a repository brought (committed) runs its commands only once the user trusts the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.gates.confirmations import ConfirmationStore
from ljtui.core.gates.model import CheckItem, Factors
from ljtui.core.gates.service import USER, GateRefused
from ljtui.core.gates.store import GateStore
from ljtui.core.trust import TrustStore
from tests.conftest import git
from tests.core.gates.scripted import make_engine

FACTORS = Factors(0.6, 0.5, 0.6, False, False)


def committed_gate(repo: Path) -> str:
    gate = GateStore(repo).propose("Smoke", [CheckItem("smoke", "it runs", "touch ran.txt")], FACTORS, 1.0)
    git(repo, "add", "-f", f".agent/gates/{gate.id}.md")
    git(repo, "commit", "-q", "-m", "a gate from upstream")
    ConfirmationStore.for_env().confirm(repo, gate, 2.0)  # even a user who confirmed it
    return gate.id


async def test_a_committed_gate_does_not_run_in_an_untrusted_repository(git_repo: Path) -> None:
    gate_id = committed_gate(git_repo)
    engine, _, _ = make_engine(git_repo, [])
    engine.gates.current = gate_id
    with pytest.raises(GateRefused, match="committed to this repository, which is not trusted"):
        await engine.gates.check("smoke", USER)
    assert not (git_repo / "ran.txt").exists()


async def test_once_trusted_its_confirmed_commands_run(git_repo: Path) -> None:
    gate_id = committed_gate(git_repo)
    TrustStore.for_env().trust(git_repo, 3.0)
    engine, _, _ = make_engine(git_repo, [])
    engine.gates.current = gate_id
    [evidence] = await engine.gates.check("smoke", USER)
    assert evidence.exit_code == 0 and (git_repo / "ran.txt").exists()


async def test_a_committed_confirmed_by_user_true_is_not_believed(git_repo: Path) -> None:
    gate = GateStore(git_repo).propose("Smoke", [CheckItem("smoke", "it runs", "touch ran.txt")], FACTORS, 1.0)
    path = git_repo / ".agent" / "gates" / f"{gate.id}.md"
    text = path.read_text(encoding="utf-8")
    assert "confirmed_by_user: false" in text
    path.write_text(text.replace("confirmed_by_user: false", "confirmed_by_user: true"), encoding="utf-8")
    TrustStore.for_env().trust(git_repo, 3.0)
    engine, _, _ = make_engine(git_repo, [])
    engine.gates.current = gate.id
    with pytest.raises(GateRefused, match="not confirmed by the user"):
        await engine.gates.check("smoke", USER)
    assert not (git_repo / "ran.txt").exists()


def test_a_run_the_repository_brought_is_never_picked_up(git_repo: Path) -> None:
    import json

    from ljtui.core.gates.runs import list_runs

    folder = git_repo / ".agent" / "workspace" / "bbbbbbbbbbbb"
    (folder / "tree").mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({
        "format": "ljtui-gate-run", "version": 1, "gate_id": "evil", "run_id": "bbbbbbbbbbbb", "started_at": 1,
        "starter": "chat", "level": 2, "staged": True, "evidence": [], "bounces": 0, "outcome": "pass",
        "breaker": "", "error": "", "delivered": False, "verifier": ""}), encoding="utf-8")
    runs, problems = list_runs(git_repo)
    assert runs == [] and problems == [".agent/workspace/bbbbbbbbbbbb was not started by you here; it is left alone"]
    engine, sink, _ = make_engine(git_repo, [])
    engine.gates.restore()
    assert engine.gates.run is None and engine.gates.staging_root() is None
    with pytest.raises(GateRefused, match="no open run"):
        engine.gates.discard("evil")
    assert (folder / "run.json").exists()
