"""The user's editor on a passage: what it saved, or why not, and the text untouched when it fails."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.external_editor import edit_text, editor_command


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "ed.sh"
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def test_visual_beats_editor_and_its_words_are_split() -> None:
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "vi"}) == ["code", "--wait"]
    assert editor_command({"EDITOR": "vi"}) == ["vi"]
    assert editor_command({}) is None and editor_command({"EDITOR": "  "}) is None
    assert editor_command({"EDITOR": "vi 'unclosed"}) is None


def test_the_saved_text_comes_back_in_a_file_named_like_the_block(tmp_path: Path) -> None:
    seen = tmp_path / "seen"
    editor = script(tmp_path, f"basename \"$1\" > {seen}; printf 'new text\\n' > \"$1\"")
    text, problem = edit_text("old text\n", "src/app.py", {"EDITOR": editor})
    assert (text, problem) == ("new text\n", "")
    assert seen.read_text(encoding="utf-8") == "block.py\n"


def test_every_failure_says_why_and_returns_no_text(tmp_path: Path) -> None:
    assert edit_text("x", "a.py", {})[0] is None
    assert "could not start" in edit_text("x", "a.py", {"EDITOR": str(tmp_path / "missing")})[1]
    assert "exited with status 3" in edit_text("x", "a.py", {"EDITOR": script(tmp_path, "exit 3")})[1]
    latin = script(tmp_path, "printf '\\377\\376' > \"$1\"")
    assert edit_text("x", "a.py", {"EDITOR": latin}) == (None, "the edited text is not UTF-8; the text is as it was")
    gone = script(tmp_path, "rm \"$1\"")
    assert "could not be read back" in edit_text("x", "a.py", {"EDITOR": gone})[1]
