"""What each entry point imports, in a fresh interpreter: the TUI up to its first frame and ``ljtui stats``
load none of the agent, the engine, the gates, the playbooks, the task runner or the planner; ``ljtui apply``
and ``ljtui undo`` load only the edits path and the review."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.core.edits.helpers import block, plan_text

TIMEOUT = 60
HEAVY = ("ljtui.core.engine", "ljtui.core.agent", "ljtui.core.gates", "ljtui.core.playbooks", "ljtui.core.tasks",
         "ljtui.core.planner")
"""What the first frame and a light command must not wait for."""

FIRST_FRAME = """
import asyncio, sys
from pathlib import Path
from ljtui.tui.app import LjtuiApp
seen = {}
def record(self):  # where the engine would be built, once the first frame is drawn
    seen["modules"] = sorted(m for m in sys.modules if m.startswith("ljtui."))
LjtuiApp._build_engine = record
async def main():
    app = LjtuiApp(Path(sys.argv[1]), overrides={})
    async with app.run_test() as pilot:
        for _ in range(400):
            if "modules" in seen:
                break
            await pilot.pause(0.05)
asyncio.run(main())
print("\\n".join(seen["modules"]))
"""

STATS = """
import sys
from ljtui.cli.main import main
code = main(["stats", "--repo", sys.argv[1]])
print("\\n".join(sorted(m for m in sys.modules if m.startswith("ljtui."))), file=sys.stderr)
sys.exit(code)
"""


COMMAND = """
import sys
from ljtui.cli.main import main
code = main(sys.argv[2:])
print("\\n".join(sorted(m for m in sys.modules if m.startswith("ljtui."))), file=sys.stderr)
sys.exit(code)
"""
"""Runs ``ljtui ARGS…`` (after the repository argument) and lists the modules it loaded."""

def loaded(script: str, repo: Path, *args: str, code: int = 0) -> list[str]:
    done = subprocess.run([sys.executable, "-c", script, str(repo), *args], capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=repo)
    assert done.returncode == code, done.stderr[-2000:]
    return (done.stdout if script is FIRST_FRAME else done.stderr).split()


def heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if m.startswith(HEAVY)]


def test_the_first_frame_loads_no_engine_agent_gates_or_playbooks(git_repo: Path, isolated_env: Path) -> None:
    modules = loaded(FIRST_FRAME, git_repo)
    assert "ljtui.tui.app" in modules and "ljtui.core.startup" in modules
    assert heavy(modules) == []
    assert "ljtui.core.event_types" not in modules  # the event classes load with the first event


def test_stats_loads_no_engine_agent_gates_or_playbooks(git_repo: Path, isolated_env: Path) -> None:
    modules = loaded(STATS, git_repo)
    assert "ljtui.core.stats" in modules
    assert heavy(modules) == []


def test_apply_loads_the_edits_path_and_no_engine_agent_gates_or_playbooks(git_repo: Path,
                                                                           isolated_env: Path) -> None:
    plan = git_repo.parent / "change.md"
    plan.write_text(plan_text(block(1, "app.py", "    return 'hello ' + name\n", "    return 'hi ' + name\n")))
    modules = loaded(COMMAND, git_repo, "apply", "--yes", "--no-checks", "--repo", str(git_repo), str(plan))
    assert "'hi '" in (git_repo / "app.py").read_text(), "the plan was applied"
    assert "ljtui.core.edits.service" in modules and "ljtui.core.edits.transaction" in modules
    assert heavy(modules) == []


def test_undo_loads_the_review_and_no_engine_agent_gates_or_playbooks(git_repo: Path, isolated_env: Path) -> None:
    modules = loaded(COMMAND, git_repo, "undo", "--yes", "--repo", str(git_repo), code=2)  # nothing to undo yet
    assert "ljtui.core.review.service" in modules
    assert heavy(modules) == []
