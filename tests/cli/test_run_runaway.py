"""``ljtui run`` with an agent that repeats one call: --yes does not let it go on, the run ends saying why."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.cli.test_run_plan import ljtui

READ = {"text": "Again.", "tool_calls": [{"name": "read_file", "input": {"path": "app.py"}}]}


def test_a_looping_agent_is_stopped_before_the_fifth_identical_call_even_with_yes(git_repo: Path,
                                                                                   tmp_path: Path) -> None:
    script = tmp_path / "loop.yaml"
    script.write_text(yaml.safe_dump({"turns": [READ] * 8 + [{"text": "Done."}]}), encoding="utf-8")
    proc = ljtui(git_repo, "run", "--chat", "--yes", "--provider", "scripted", "--script", str(script),
                 "what is in app.py?")
    assert proc.returncode == 1, proc.stderr
    assert ("ljtui run: stopped: the agent called read_file with the same input 4 times in a row and got the "
            "same result each time; the 1 more time its reply asked for it did not run") in proc.stderr
    assert proc.stderr.count("[tool read_file: ok") == 4
    assert "internal error" not in proc.stderr
