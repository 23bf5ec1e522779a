"""The app on a real pseudo-terminal, with a model whose reply, tool calls and command output carry the hostile
corpus: none of it reaches the terminal as control (no clipboard write, title, hyperlink, erase or 8-bit CSI
from it); every piece is drawn as its visible form, and a command hidden behind an erase is shown whole."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.cli.terminal import scripted_ljtui
from tests.conftest import DIRECT_CONFIG
from tests.fixtures import SCRIPTS
from tests.fixtures.hostile import HOSTILE_ESCAPES, OSC_SEQUENCES

ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\|\x1b\][^\x07]*\x07|\x1b.")
"""What the app itself writes between pieces of text (cursor moves, colours, modes)."""
CTRL_Q = b"\x11"
ENTER = b"\r"
ESCAPE = b"\x1b"
ASKED = "Run this command?"
RAW_FROM_CORPUS = (b"\xe2\x80\xae", b"\xc2\x9b", b"title\x07", b"SGVsbG8=\x07")
"""A bidirectional override, an 8-bit CSI and a BEL ending an OSC: only the corpus has them."""
DRAWN = (b"\\x1b]52;c;SGVsbG8=\\x07", b"\\x1b]0;title\\x07", b"\\x1b[2K\\x1b[1Gfake", b"\\x9b2J",
         b"x\\u202etxt.exe", b"a\\rb", b"[/x]", b"[@click=app.quit]click[/]", b"zero\\u200bwidth",
         b"\\x00\\x07\\x08\\x7f")
"""The corpus as the app draws it."""
HIDDEN = b"echo HIDDEN-RAN > hidden.txt \\x1b[2K\\x1b[1G$ pytest -q"
"""The command that hides behind an erase, as its dialog shows it."""


def test_hostile_text_from_a_model_and_a_command_never_reaches_the_terminal_as_control(tmp_path: Path) -> None:
    term, repo = scripted_ljtui(tmp_path, SCRIPTS / "hostile.yaml", DIRECT_CONFIG)  # every command asks
    try:
        term.wait_for(term.shows("Ask for a change"), "the input box")
        asked = term.shows(ASKED)
        term.press(b"look around\r")
        term.wait_for(asked, "the first command's dialog")
        hidden = term.shows("$ echo HIDDEN-RAN")  # the dialog's line, not the folded call drawn before it
        term.press(ENTER)  # the command that prints controls runs
        term.wait_for(hidden, "the hidden command's dialog")
        done = term.shows("end.")
        term.press(ESCAPE)  # denied: nothing hidden runs
        term.wait_for(done, "the model's last words")
        term.press(CTRL_Q)
        assert term.finish() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    written = term.output
    for sequence in (*OSC_SEQUENCES, *HOSTILE_ESCAPES, *RAW_FROM_CORPUS):
        assert sequence not in written, sequence
    text = ANSI.sub(b"", written)
    for drawn in (*DRAWN, HIDDEN):
        assert drawn in text, drawn
    assert not (repo / "hidden.txt").exists()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout == ""
