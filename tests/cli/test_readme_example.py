"""The README's agent example, run exactly as written: the installed ``ljtui``, from the checkout, in bash."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
MARKER = "<!-- agent-example -->"
TIMEOUT_SECONDS = 120


def readme_block(marker: str) -> str:
    """The fenced bash block right after ``marker`` in README.md."""
    text = (CHECKOUT / "README.md").read_text(encoding="utf-8")
    found = re.search(re.escape(marker) + r"\n```bash\n(.*?)\n```", text, re.S)
    assert found is not None, f"README.md has no bash block after {marker}"
    return found.group(1)


def run_block(block: str, tmp_path: Path, user_config: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``block`` in bash with a home of its own (``user_config``: its ljtui config file's text)."""
    home, temp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    temp.mkdir()
    if user_config:
        (home / ".config" / "ljtui").mkdir(parents=True)
        (home / ".config" / "ljtui" / "config.yaml").write_text(user_config, encoding="utf-8")
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "HOME": str(home),
           "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".state"),
           "TMPDIR": str(temp), "LANG": "C.UTF-8"}
    return subprocess.run(["bash", "-e", "-c", block], cwd=CHECKOUT, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT_SECONDS)


def test_the_agent_example_reads_edits_runs_and_is_undone(tmp_path: Path) -> None:
    proc = run_block(readme_block(MARKER), tmp_path)
    assert proc.returncode == 0, proc.stderr
    edited, _, undone = proc.stdout.partition("reverted greet.py\n")
    assert 'def greet():\n    return "hello"\n' in edited
    assert undone == 'def greet():\n    return "hi"\n'
    if "[tool edit_file: ok: wrote greet.py in the layer]" in proc.stderr:  # where an overlay can be mounted
        expected: tuple[str, ...] = ("[tool edit_file: ok: wrote greet.py in the layer]", "[bash: allow (layer)]",
                                     "ljtui run: applied the layer's change to your files")
    else:
        expected = ("[edit_file: allow (policy)]", "[tool edit_file: ok: wrote greet.py]", "[bash: allow (policy)]")
    for line in ("[tool read_file: ok: greet.py lines 1-2 of 2]", "hello\n[tool bash: ok: exit 0", *expected):
        assert line in proc.stderr, proc.stderr
    [scratch] = (tmp_path / "tmp").iterdir()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=scratch, capture_output=True, text=True).stdout
    assert "?? greet.py\n" in status and ".agent" not in status  # ljtui's own files are not the user's changes


def test_the_reply_and_the_tool_calls_are_on_lines_of_their_own(tmp_path: Path) -> None:
    proc = run_block(readme_block(MARKER), tmp_path)
    reply = proc.stdout.split("def greet")[0]
    assert reply.splitlines() == ["First, the file as it is now.", "Now the change itself.",
                                  "And a check that it works.",
                                  'Done: greet() returns "hello", and calling it prints hello.']
