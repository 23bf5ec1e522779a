"""A skill added by hand while the app runs is offered at once: the watcher's ``SkillsChanged`` refreshes what
``/NAME`` parses against, and a broken skill file is a notice naming it (UI-7)."""

from __future__ import annotations

import time
from pathlib import Path

from ljtui.core.userdirs import user_config_dir
from ljtui.tui.widgets.plan_pane import PlanPane
from tests.tui.conftest import AppFactory, notices, settle, until

SIZE = (120, 40)
REWRITE_SECONDS = 0.3
SKILL = "name: {name}\ndescription: greets politely\nsteps:\n  - Read app.py\n  - Make the greeting polite\n"


async def test_a_skill_added_while_the_app_runs_starts_with_its_name(git_repo: Path, make_app: AppFactory) -> None:
    folder = user_config_dir() / "skills"
    folder.mkdir(parents=True)
    app = make_app("plan_run.yaml", watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "fix-with-test" in app.skill_names, "the skills to be read")
        assert "polite-greeting" not in app.skill_names
        skill = folder / "polite-greeting.yaml"
        last = [0.0]

        def written() -> bool:  # written again until the watcher, maybe still setting up, reports it
            if time.monotonic() - last[0] > REWRITE_SECONDS:
                last[0] = time.monotonic()
                skill.write_text(SKILL.format(name="polite-greeting") + f"# {last[0]}\n", encoding="utf-8")
            return "polite-greeting" in app.skill_names

        await until(pilot, written, "the new skill to be offered")
        (folder / "broken.yaml").write_text("name: broken\nsteps: [\n", encoding="utf-8")
        await until(pilot, lambda: any("broken.yaml" in n for n in notices(app)), "the broken file to be named")
        assert "polite-greeting" in app.skill_names and "fix-with-test" in app.skill_names
        await pilot.press(*"/polite-greeting be nice", "enter")
        pane = app.main_screen.query_one(PlanPane)
        await until(pilot, lambda: pane.approving, "the skill's plan in the Plan pane")
        assert any(n.startswith("Task plan from the skill 'polite-greeting' (user)") for n in notices(app))
        await pilot.press("escape")
        await settle(pilot)
