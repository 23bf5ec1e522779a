"""Pasting 40 lines into ljtui running in tmux (and, where tmux is missing too, on a bare pseudo-terminal with
the terminal's bracketed-paste bytes), as a user does: the prompt says "[pasted 40 lines]" (the line break
that ends a copied block starts no 41st line), the message goes whole, and the reply is set apart from it by a blank
line as every other message is."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ljtui.tui.widgets.prompt_input import PLACEHOLDER
from tests.cli.terminal import Terminal, scripted_setup
from tests.cli.tmux import Tmux
from tests.fixtures import SCRIPTS


LINES = [f"paste line {n:02d}" for n in range(1, 41)]
REPLY_START = "I read the repository."


def _row_of(rows: list[str], text: str) -> int:
    return next(i for i, row in enumerate(rows) if text in row)


def _conversation(row: str) -> str:
    """What a row shows inside the Conversation pane (the leftmost pane, between its borders)."""
    return row.split("│")[1].strip()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (the pseudo-terminal test below runs anyway)")
def test_40_lines_pasted_in_tmux_show_as_40_and_the_reply_is_set_apart(tmp_path: Path) -> None:
    argv, repo, env = scripted_setup(tmp_path, SCRIPTS / "hello.yaml")
    session = Tmux(argv, repo, env, columns=100, rows=30)
    try:
        session.wait_for(lambda rows: any(PLACEHOLDER in r for r in rows), "input box")
        session.type("/chat ")
        session.paste("\n".join(LINES) + "\n")  # as copied from an editor: the last line ends with a line break
        rows = session.wait_for(lambda rows: any("[pasted" in r for r in rows), "folded paste in the input box")
        assert any("/chat [pasted 40 lines]" in r for r in rows), "\n".join(rows)
        session.press("Enter")
        rows = session.wait_for(lambda rows: any(REPLY_START in r for r in rows), "reply")
        last, reply = _row_of(rows, LINES[-1]), _row_of(rows, REPLY_START)
        assert reply == last + 2 and _conversation(rows[last + 1]) == "", "\n".join(rows)
        session.press("C-q")
        session.wait_for(lambda rows: session.exit_status() is not None, "ljtui to quit")
        assert session.exit_status() == 0
    finally:
        session.close()


def test_40_lines_pasted_on_a_pseudo_terminal_show_as_40(tmp_path: Path) -> None:
    argv, repo, env = scripted_setup(tmp_path, SCRIPTS / "hello.yaml")
    term = Terminal(argv, repo, env)
    try:
        term.wait_for(term.shows(PLACEHOLDER), "input box")
        folded = term.shows("/chat [pasted 40 lines]")
        term.press(b"/chat ")
        term.press(b"\x1b[200~" + ("\n".join(LINES) + "\n").encode() + b"\x1b[201~")  # what a terminal sends
        term.wait_for(folded, "the paste folded as 40 lines")
        replied = term.shows(REPLY_START)
        term.press(b"\r")
        term.wait_for(replied, "reply")
        rows = [row.rstrip() for row in term.screen.display]
        last, reply = _row_of(rows, LINES[-1]), _row_of(rows, REPLY_START)
        assert reply == last + 2 and _conversation(rows[last + 1]) == "", "\n".join(rows)
        term.press(b"\x11")  # Ctrl+Q
        assert term.finish() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
