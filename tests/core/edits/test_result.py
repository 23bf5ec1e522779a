"""The EDIT-6 result contract and its validation."""

from __future__ import annotations

import pytest

from ljtui.core.edits.result import ApplyResult, ContractViolation, FailedEntry, contract_problems, emit

IDS = ("e1", "e2")


def good(**changes):
    data = {"status": "partial", "applied_entry_ids": ["e1"], "failed": [{"entry_id": "e2", "reason": "r"}],
            "files": ["src/a.py"], "notes": []}
    data.update(changes)
    return data


def test_valid_results_have_no_problems():
    assert contract_problems(good(), IDS) == []
    assert contract_problems(good(status="done", failed=[], applied_entry_ids=["e1", "e2"]), IDS) == []
    assert contract_problems(good(status="error", applied_entry_ids=[], files=[], message="m"), IDS) == []


@pytest.mark.parametrize(("data", "problem"), [
    ([], "result must be a JSON object"),
    ({"status": "done"}, "missing key 'applied_entry_ids'"),
    (good(entries=[]), "unexpected key 'entries'"),
    (good(status="ok"), "status 'ok' is not one of done, partial, error"),
    (good(notes="n"), "'notes' must be a list"),
    (good(failed=[{"reason": "r"}]), "each failed item needs a non-empty 'entry_id'"),
    (good(failed=[{"entry_id": "e2", "reason": ""}]), "failed entry 'e2' needs a non-empty 'reason'"),
    (good(failed=[{"entry_id": "e2", "reason": "r", "candidates": {}}]), "failed entry 'e2': 'candidates' must be a list"),
    (good(applied_entry_ids=["zz"]), "entry id 'zz' does not belong to the plan"),
    (good(applied_entry_ids=["e2"]), "an entry cannot be both applied and failed"),
    (good(applied_entry_ids=["e1", "e1"]), "entry ids must not repeat"),
    (good(status="done"), "'done' must have no failed entries"),
    (good(status="error", message="m"), "'error' must have no applied entries"),
    (good(failed=[]), "'partial' needs applied and failed entries"),
    (good(status="error", applied_entry_ids=[]), "'error' needs a 'message'"),
    (good(files=["../x"]), "file '../x' is not a path inside the repo root"),
    (good(files=["/etc/x"]), "file '/etc/x' is not a path inside the repo root"),
])
def test_each_breach_is_named(data, problem):
    assert problem in contract_problems(data, IDS)


def test_emit_validates_before_returning():
    result = ApplyResult("done", ["e1"], [FailedEntry("e2", "r")], [], [])
    with pytest.raises(ContractViolation, match="'done' must have no failed entries"):
        emit(result, IDS)
    ok = ApplyResult("error", [], [FailedEntry("e1", "r", [{"file": "a", "line": 1}])], [], [], message="m")
    assert emit(ok, IDS)["failed"] == [{"entry_id": "e1", "reason": "r", "candidates": [{"file": "a", "line": 1}]}]
    assert ok.exit_code == 2
