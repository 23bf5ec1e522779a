"""Keys as the help writes them: as a user reads them on the keyboard."""

from __future__ import annotations

from ljtui.tui.screens.help import key_label


def test_keys_are_written_as_on_the_keyboard() -> None:
    assert key_label("pagedown") == "PageDown" and key_label("pageup") == "PageUp"
    assert key_label("f1,question_mark") == "F1, ?"
    assert key_label("j,down") == "j, ↓"
    assert key_label("ctrl+l") == "Ctrl+L" and key_label("ctrl+c") == "Ctrl+C"
    assert key_label("escape") == "Escape" and key_label("enter") == "Enter"
