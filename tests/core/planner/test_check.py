"""The plan check built on the patcher's parser and validator (EDIT-11)."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.planner.api import parse_declarations
from ljtui.core.planner.check import MISSING_DECLARATIONS, check_plan
from tests.core.planner.helpers import BAD_ANCHOR_PLAN, GOOD_PLAN


def test_good_plan_passes_with_declarations(repo: Path) -> None:
    verdict = check_plan(GOOD_PLAN, repo)
    assert verdict.ok and verdict.blocks == 1 and verdict.errors == ()
    assert verdict.declarations is not None and verdict.declarations.will_modify == ("Uploader.send",)


def test_parse_errors_are_reported_by_name(repo: Path) -> None:
    verdict = check_plan(GOOD_PLAN.replace("### EDIT 1", "### EDIT 2") + "\n### EDIT 1\n", repo)
    assert not verdict.ok
    assert any(e.startswith("NonAscendingNumber") for e in verdict.errors)


def test_anchor_failure_carries_candidates_and_current_source(repo: Path) -> None:
    verdict = check_plan(BAD_ANCHOR_PLAN, repo)
    assert not verdict.ok and verdict.errors[0].startswith("AnchorNotFound: block 1:")
    assert "candidate src/shipper/upload.py:24" in verdict.feedback
    assert "current source of src/shipper/upload.py around line 24" in verdict.feedback


def test_anchor_without_candidates_shows_source_near_the_hint(repo: Path) -> None:
    plan = GOOD_PLAN.replace("        response = self._client.put(url, data, timeout=self._timeout)\n```\n\n```new",
                             "zzzz qqqq\n```\n\n```new")
    verdict = check_plan(plan, repo)
    assert "lines 16-32 (EDIT 1 found no similar text" in verdict.feedback
    assert "24 |         response = self._client.put" in verdict.feedback


def test_missing_declarations_fail_the_check(repo: Path) -> None:
    verdict = check_plan(GOOD_PLAN[: GOOD_PLAN.index("```json")], repo)
    assert not verdict.ok and verdict.errors == (MISSING_DECLARATIONS,)


def test_escaping_path_fails_the_check(repo: Path) -> None:
    verdict = check_plan(GOOD_PLAN.replace("src/shipper/upload.py", "../outside.py"), repo)
    assert not verdict.ok and verdict.errors[0].startswith("PathEscape")


def test_parse_declarations() -> None:
    decl = parse_declarations(GOOD_PLAN)
    assert decl is not None and decl.to_dict()["will_modify"] == ["Uploader.send"]
    assert parse_declarations(GOOD_PLAN[: GOOD_PLAN.index("```json")]) is None
    assert parse_declarations("no plan here") is None
