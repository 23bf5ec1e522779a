"""What each entry point imports, in a fresh interpreter: the TUI up to its first frame and ``ljtui stats``
load none of the agent, the engine, the gates, the playbooks, the task runner or the planner."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


def loaded(script: str, repo: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-c", script, str(repo)], capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-2000:]
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
