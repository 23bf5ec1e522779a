"""``ljtui --demo`` as a user starts it: the installed command on a pseudo-terminal, from an unrelated
folder, with no key, no configuration and no network; the whole tour by keys, then quit."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

from ljtui.core.trust import TRUST_FILE
from ljtui.demo.repo import SAMPLE_DIR
from ljtui.demo.steps import GATE_MESSAGE, PLAN_GOAL, RECALL_GOAL
from tests.cli.terminal import Terminal

LJTUI = str(Path(sys.executable).with_name("ljtui"))
CTRL_Q = b"\x11"
ESCAPE = b"\x1b"
COUNTING = "wordstats/counting.py"
PLAYBOOK_FILE = ".agent/playbooks/add-longest-word.md"
OFFER = "Keep this procedure as a draft playbook?"
KEPT = re.compile(r"The demo's repository is kept in (\S+) \(look around")


def test_the_installed_demo_runs_from_anywhere_with_no_key_and_keeps_its_repository(tmp_path: Path) -> None:
    elsewhere, home, temp = tmp_path / "elsewhere", tmp_path / "home", tmp_path / "tmp"
    for folder in (elsewhere, home, temp):
        folder.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "TMPDIR": str(temp), "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    assert shutil.which("git", path=env["PATH"])
    original = (SAMPLE_DIR / COUNTING).read_bytes()
    term = Terminal([LJTUI, "--demo"], elsewhere, env)
    try:
        term.wait_for(term.shows("EDIT 2"), "plan in the Diff pane")
        [copy] = temp.glob("ljtui-demo-*/wordstats")
        assert (copy / COUNTING).read_bytes() == original
        dialog = term.shows("Apply the accepted blocks?")
        term.press(b"a")
        term.wait_for(dialog, "apply dialog")
        result = term.shows("Step 3 of 18")
        term.press(b"\r")
        term.wait_for(lambda: (copy / COUNTING).read_bytes() != original, "apply on disk")
        assert b"return len(text.split())\n" in (copy / COUNTING).read_bytes()
        term.wait_for(result, "the apply's result (its journal committed)")
        dialog = term.shows("Undo the last apply?")
        term.press(b"u")  # the focus stays in the Diff pane after the apply
        term.wait_for(dialog, "undo dialog")
        agent_step = term.shows("Step 4 of 18")
        term.press(b"\r")
        term.wait_for(lambda: (copy / COUNTING).read_bytes() == original, "undo on disk")
        term.wait_for(agent_step, "the agent's step of the guide")
        asked = term.shows("Run this command?")  # the dialog itself: the folded tool line comes first
        term.press(b"\x1b[17~do the tests pass?\r")  # F6: the input box (the undo left the focus in the Diff pane)
        term.wait_for(asked, "the permission dialog for the test command")
        ran = term.shows("Step 6 of 18")
        term.press(b"\r")
        term.wait_for(ran, "the agent's turn in the guide")
        proposed = term.shows("Step 7 of 18")
        term.press(f"/plan {PLAN_GOAL}\r".encode())
        term.wait_for(proposed, "the task plan in the Plan pane")
        for asking in ("Task 3: Edit", "Task 4: Edit", "Task 5: Run"):
            question = term.shows(asking)
            term.press(b"\r")  # approves the plan, then answers each question in turn
            term.wait_for(question, f"the question {asking!r}")
        offer = term.shows(OFFER)
        term.press(b"\r")  # the last question; then the playbook offer opens (over step 9's words)
        term.wait_for(offer, "the playbook offer at the run's end")
        assert b"def longest_word(" in (copy / COUNTING).read_bytes()
        saved = term.shows("Step 10 of 18")
        term.press(b"\r")
        term.wait_for(saved, "the saved draft")
        assert 'status: "draft"' in (copy / PLAYBOOK_FILE).read_text(encoding="utf-8")
        promotion = term.shows("Make playbook add-longest-word active?")
        term.press(b"/playbook promote add-longest-word\r")
        term.wait_for(promotion, "the promotion dialog")
        promoted, done = term.shows("Step 11 of 18"), term.shows("is now active")
        term.press(b"\r")
        term.wait_for(promoted, "the promoted playbook")
        term.wait_for(done, "the end of the promotion")  # the guide speaks on the event; the command ends after
        recalled = term.shows("Step 12 of 18")
        term.press(f"/plan {RECALL_GOAL}\r".encode())
        term.wait_for(recalled, "the recalled plan")
        gated = term.shows("Step 13 of 18")
        term.press(ESCAPE)  # rejects the recalled plan: nothing runs
        term.wait_for(gated, "the gate step of the guide")
        assert b"shortest_word" not in (copy / COUNTING).read_bytes()
        before = (copy / COUNTING).read_bytes()
        confirm = term.shows("Confirm gate top-words-ignores-punctuation (L2)?")
        term.press(f"{GATE_MESSAGE}\r".encode())
        term.wait_for(confirm, "the gate's confirm dialog")
        for question in ("Start gate top-words-ignores-punctuation (L2)?", "Edit wordstats/counting.py in the staging tree?",
                         "Edit tests/test_counting.py in the staging tree?", "Apply the accepted blocks?"):
            asked = term.shows(question)
            term.press(b"\r")
            term.wait_for(asked, f"the question {question!r}")
        assert (copy / COUNTING).read_bytes() == before  # refused, then checked: only the staging copy changed
        offer = term.shows(OFFER)
        term.press(b"\r")
        term.wait_for(offer, "the playbook offer after the delivery (over step 17's words)")
        assert b"word.strip(PUNCTUATION)" in (copy / COUNTING).read_bytes()
        end = term.shows("Step 18 of 18")
        term.press(ESCAPE)  # the second playbook offer: nothing kept
        term.wait_for(end, "the last step of the guide")
        term.press(CTRL_Q)
        code = term.finish()
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
            term.proc.wait()
    assert code == 0
    shown = term.output.decode("utf-8", "replace")
    kept = KEPT.search(shown)
    assert kept is not None, shown[-2000:]
    assert Path(kept.group(1)) == copy
    assert f"Remove it with: rm -r {copy.parent}" in shown
    config = home / ".config" / "ljtui"
    assert {p.name for p in config.iterdir() if not p.name.endswith(".lock")} == {TRUST_FILE}  # given, taken back
    assert str(copy) not in (config / TRUST_FILE).read_text(encoding="utf-8")
    assert list(elsewhere.iterdir()) == []
