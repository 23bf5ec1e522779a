"""A gate's task family follows a playbook: the playbook's ok and fail count in the gate's P (seed 002)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from ljtui.core.approval import ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.gates.model import CheckItem, Factors, PlaybookPrior, Stats, family_stats, gate_risk
from ljtui.core.gates.records import GateFileError
from ljtui.core.gates.store import GateStore
from ljtui.core.playbooks.service import PlaybookService
from ljtui.core.ports import ListSink
from ljtui.core.trust import TrustStore
from tests.core.gates.scripted import L2_FACTORS, TESTS_ITEM
from tests.core.tasks.helpers import said

FACTORS = Factors(0.6, 0.5, 0.6, False, False)
ITEMS = [CheckItem("tests", "the tests pass", "true")]


def test_the_playbooks_record_counts_as_runs_of_the_family() -> None:
    assert family_stats(Stats(2, 1, 1, 1), PlaybookPrior("fix", ok=3, fail=1)) == Stats(6, 4, 2, 1)
    assert family_stats(Stats(2, 1, 1, 0), None) == Stats(2, 1, 1, 0)


def test_a_proven_playbook_lowers_the_level_and_a_failing_one_raises_it(tmp_path: Path) -> None:
    store = GateStore(tmp_path)
    alone = store.propose("Alone", ITEMS, FACTORS, 1.0)
    proven = store.propose("Proven", ITEMS, FACTORS, 1.0, playbook=PlaybookPrior("fix", ok=4, fail=0))
    failing = store.propose("Failing", ITEMS, FACTORS, 1.0, playbook=PlaybookPrior("fix", ok=0, fail=4))
    assert (gate_risk(alone).p, gate_risk(proven).p, gate_risk(failing).p) == (0.5, 1.0, 0.0)
    assert (alone.level, proven.level, failing.level) == (2, 1, 3)
    assert gate_risk(failing).r > gate_risk(alone).r > gate_risk(proven).r
    again = store.load(proven.id)
    assert again.playbook == PlaybookPrior("fix", 4, 0) and again.level == 1 and again.stats == Stats()


@pytest.mark.parametrize("value, field", [
    ({"id": "fix", "ok": -1, "fail": 0}, "playbook.ok"),
    ({"id": "../x", "ok": 1, "fail": 0}, "playbook.id"),
    ({"id": "fix", "ok": 1}, "playbook"),
    ("fix", "playbook"),
])
def test_a_malformed_playbook_record_names_the_field(tmp_path: Path, value: object, field: str) -> None:
    store = GateStore(tmp_path)
    gate = store.propose("Gate", ITEMS, FACTORS, 1.0)
    path = store.path(gate.id)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("---\n", f"---\nplaybook: {json.dumps(value)}\n",
                                 1), encoding="utf-8")
    with pytest.raises(GateFileError) as caught:
        store.load(gate.id)
    assert f": {field}:" in caught.value.message and gate.id in caught.value.message


async def test_a_gate_proposed_in_a_playbooks_run_carries_its_record(git_repo: Path) -> None:
    TrustStore.for_env().trust(git_repo, 0.0)
    playbooks = PlaybookService(git_repo, ListSink().emit, ScriptedApprover({"playbook_promote": ["yes"]}).decide)
    saved = playbooks.save("Greet politely", "greet politely", sections={"SOP": ["Propose the gate"]})
    assert saved.ok and (await playbooks.promote(saved.playbook.id)).ok
    for outcome in ("ok", "ok", "ok"):
        playbooks.feedback(saved.playbook.id, outcome)
    script = git_repo.parent / "script.yaml"
    propose = {"tool_calls": [{"name": "gate_propose", "input": {"title": "Polite greeting", "items": [TESTS_ITEM],
                                                                "factors": L2_FACTORS}}]}
    script.write_text(yaml.safe_dump({"agents": {"task 1": [propose, said("proposed", 1)],
                                                 "task 2": [said("checked", 2)]}}), encoding="utf-8")
    config = Config()
    config.provider.name, config.provider.script = "scripted", str(script)
    engine = Engine(config, ListSink(), repo_root=git_repo, approver=ScriptedApprover({"task_plan": ["approve"]}))
    outcome = await engine.run_plan("greet politely", skill=f"playbook-{saved.playbook.id}")
    assert outcome.status == "done", outcome
    gate = engine.gates.gate("polite-greeting")
    assert gate.playbook == PlaybookPrior(saved.playbook.id, ok=3, fail=0)
    assert (gate_risk(gate).p, gate.level) == (1.0, 1)
    assert engine.playbooks.following is None
