"""ljtui on a real pseudo-terminal: quitting prints how to resume a session that holds messages (and nothing for an
empty one), and a turn that ends while the terminal reports it lost the focus sends the desktop notification."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.cli.terminal import scripted_ljtui
from tests.conftest import DIRECT_CONFIG
from tests.fixtures import SCRIPTS

CTRL_Q = b"\x11"
FOCUS_OUT = b"\x1b[O"
"""What a terminal with focus reporting on sends when its window loses the focus."""
RESUME = re.compile(rb"Resume this session with: ljtui --resume (\S+)\r?\n")
SLOW = DIRECT_CONFIG + "provider:\n  chunk_delay: 0.3\n"
"""The scripted reply streams slowly: the focus report arrives while it runs."""


def _quit(term) -> None:  # type: ignore[no-untyped-def]
    term.press(CTRL_Q)
    assert term.finish() == 0


def test_quitting_prints_how_to_resume_the_session(tmp_path: Path) -> None:
    term, repo = scripted_ljtui(tmp_path, SCRIPTS / "hello.yaml", DIRECT_CONFIG)
    try:
        term.wait_for(term.shows("Ask for a change"), "the input box")
        replied = term.shows("Here is the plan")
        term.press(b"/chat hello\r")
        term.wait_for(replied, "the reply")
        _quit(term)
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    found = RESUME.search(term.output)
    assert found is not None, term.output[-500:]
    listed = subprocess.run([sys.executable, "-m", "ljtui.cli.main", "sessions", "--json"], cwd=repo,
                            env=term_env(tmp_path), capture_output=True, text=True, check=True)
    assert found.group(1).decode() in [s["id"] for s in json.loads(listed.stdout)], "the id of a saved session"


def test_quitting_an_empty_session_prints_no_resume_line(tmp_path: Path) -> None:
    term, _ = scripted_ljtui(tmp_path, SCRIPTS / "hello.yaml", DIRECT_CONFIG)
    try:
        term.wait_for(term.shows("Ask for a change"), "the input box")
        _quit(term)
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert b"Resume this session" not in term.output


def test_a_turn_ending_after_the_terminal_lost_the_focus_rings_the_bell(tmp_path: Path) -> None:
    term, _ = scripted_ljtui(tmp_path, SCRIPTS / "hello.yaml", SLOW)  # no TERM_PROGRAM: ui.notify auto is the bell
    try:
        term.wait_for(term.shows("Ask for a change"), "the input box")
        term.press(b"/chat hello\r")
        term.wait_for(term.shows("I read the repository"), "the reply starting")
        start = len(term.output)
        term.press(FOCUS_OUT)
        term.wait_for(term.shows("def greet"), "the reply's end")
        term.wait_for(lambda: b"\x07" in _outside_osc(term.output[start:]), "the bell")
        _quit(term)
    finally:
        if term.proc.poll() is None:
            term.proc.kill()


def _outside_osc(data: bytes) -> bytes:
    """``data`` without the OSC sequences the app writes (a BEL ends each)."""
    return re.sub(rb"\x1b\][^\x07\x1b]*(\x07|\x1b\\)", b"", data)


def term_env(tmp_path: Path) -> dict[str, str]:
    """The environment :func:`scripted_ljtui` gives ljtui (its home under ``tmp_path``)."""
    import os

    home = tmp_path / "home"
    return {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_STATE_HOME": str(home / ".state"), "LANG": "C.UTF-8"}
