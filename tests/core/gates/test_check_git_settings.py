"""A gate check whose command writes a git hook: the hook is put back, the evidence says so, and the user was
shown the diff."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.gates.model import CheckItem, Factors
from ljtui.core.gates.service import USER
from ljtui.core.gitguard.guard import KIND
from tests.core.gates.scripted import make_engine

FACTORS = Factors(0.6, 0.5, 0.6, False, False)
PLANT = CheckItem("plant", "it runs", "printf '#!/bin/sh\\necho planted\\n' > .git/hooks/pre-commit && "
                                        "chmod +x .git/hooks/pre-commit")


async def test_a_check_that_plants_a_hook_has_it_put_back_and_its_evidence_says_so(git_repo: Path) -> None:
    engine, _, approver = make_engine(git_repo, [], {"gate_confirm": ["yes"]})
    try:
        gate = engine.gates.propose("Plant", [PLANT], FACTORS)
        assert await engine.gates.confirm(gate.id)
        [evidence] = await engine.gates.check("plant", USER)
    finally:
        await engine.aclose()
    assert evidence.exit_code == 0
    assert not (git_repo / ".git" / "hooks" / "pre-commit").exists()
    assert "they were reverted" in evidence.output
    [asked] = [r for r in approver.asked if r.kind == KIND]
    assert "They changed while the check 'plant' (`printf" in asked.lines[1]
    assert "+echo planted" in asked.lines
