"""The first frame a terminal receives is the whole screen, not the parts that changed since a frame
that was never sent."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.cli.terminal import Terminal

ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\|\x1b\][^\x07]*\x07|\x1b.")
TITLE = b"Conversation \xc2\xb7 F2"
PANE_TEXTS = (b"No task plan yet", b"No pending edits", b"No delivery gate is active")
CTRL_Q = b"\x11"


def test_the_panes_contents_never_reach_the_terminal_before_their_borders(tmp_path: Path) -> None:
    repo, home = tmp_path / "repo", tmp_path / "home"
    repo.mkdir()
    home.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    term = Terminal([sys.executable, "-m", "ljtui.cli.main"], repo, env)
    try:
        term.wait_for(lambda: TITLE in ANSI.sub(b"", term.output), "Conversation pane's title")
        before_title = ANSI.sub(b"", term.output).split(TITLE, 1)[0]
        early = [text.decode() for text in PANE_TEXTS if text in before_title]
        assert not early, f"drawn before the panes' borders: {early}"
        term.press(CTRL_Q)
        assert term.finish() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
