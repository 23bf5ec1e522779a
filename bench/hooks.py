"""Benchmark: what hooks cost a tool call, against references measured in the same run.

Two figures, each as a ratio:

* **no hook matches** (the cost every tool call pays once hooks exist): ``SessionHooks.fire`` for an event
  none of the user's hooks takes, in a repository with a hook file it does not trust, against one hop to a
  worker thread (``asyncio.to_thread`` of nothing), the least any lookup off the event loop costs;
* **one hook runs**: a ``PreToolUse`` group of one hook (``exit 0``), in the session's sandbox, its JSON on
  stdin, its output read through the pipes and its answer read, against the same ``exit 0`` run as a ``bash``
  command is (``run_command`` in the same sandbox); and a group of four such hooks side by side against one.

Prints the median of each and the ratios.

Usage: ``python bench/hooks.py [--runs N]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

DEFAULT_RUNS = 60


async def timed(runs: int, work: Callable[[], Awaitable[Any]]) -> float:
    """The median seconds of ``work`` over ``runs`` runs, after one to warm up."""
    await work()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def repository(folder: Path) -> Path:
    repo = folder / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".agent").mkdir()
    hooks = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "exit 0"}]}]}}
    (repo / ".agent" / "hooks.json").write_text(json.dumps(hooks), encoding="utf-8")
    return repo


async def main(runs: int) -> None:
    from ljtui.core.agent.shell import run_command
    from ljtui.core.config import Config
    from ljtui.core.confine.session import CommandSandbox
    from ljtui.core.hooks.service import SessionHooks
    from ljtui.core.layer.service import Layer
    from ljtui.core.session_state import SessionSettings

    with tempfile.TemporaryDirectory() as folder:
        repo = repository(Path(folder))
        state = Path(folder) / "state.json"
        one = [{"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 0"}]}]
        four = [{"matcher": "Edit", "hooks": [{"type": "command", "command": "exit 0"}] * 4}]
        config = Config()
        config.hooks.PreToolUse = one + four
        sandbox = CommandSandbox(repo, layer=Layer(repo, "off"))
        from ljtui.core.hooks.last_runs import LastRuns

        hooks = SessionHooks(SessionSettings(config), repo, sandbox, lambda event: None, trusted=lambda: False,
                             runs=LastRuns(state))
        payload = {"tool_name": "bash", "tool_input": {"command": "ls"}}
        try:
            hop = await timed(runs, lambda: asyncio.to_thread(lambda: None))
            none = await timed(runs, lambda: hooks.fire("PostToolUse", payload, "bash"))
            rules = await asyncio.to_thread(sandbox.rules, repo, layered=True)
            confinement = sandbox.confinement(rules)
            env = sandbox.environment()
            command = await timed(runs, lambda: run_command("exit 0", repo, confinement=confinement, timeout=30,
                                                            env=env))
            single = await timed(runs, lambda: hooks.fire("PreToolUse", payload, "bash"))
            group = await timed(runs, lambda: hooks.fire("PreToolUse", payload, "edit_file"))
        finally:
            sandbox.close()
    print(f"sandbox: {sandbox.status.backend}")
    print(f"no hook matches: {none * 1e3:.2f} ms; a thread hop: {hop * 1e3:.2f} ms; ratio {none / hop:.1f}")
    print(f"one hook: {single * 1e3:.1f} ms; the same command as bash runs it: {command * 1e3:.1f} ms; "
          f"ratio {single / command:.2f}")
    print(f"four hooks side by side: {group * 1e3:.1f} ms; ratio to one hook {group / single:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS)
    asyncio.run(main(parser.parse_args().runs))
