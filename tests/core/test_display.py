"""Untrusted text made safe to show: every control, override and (for exact text) invisible character visible."""

from __future__ import annotations

import pytest

from ljtui.core.display import is_clean, shown, shown_line

ESC = "\x1b"


@pytest.mark.parametrize(("raw", "visible"), [
    ("plain text\nsecond line\tand a tab", "plain text\nsecond line\tand a tab"),
    (f"$ pytest -q{ESC}[2K{ESC}[1Gecho HIDDEN", "$ pytest -q\\x1b[2K\\x1b[1Gecho HIDDEN"),
    (f"{ESC}]52;c;aGVsbG8=\x07", "\\x1b]52;c;aGVsbG8=\\x07"),
    (f"{ESC}]0;title{ESC}\\", "\\x1b]0;title\\x1b\\"),
    (f"{ESC}]8;;https://x{ESC}\\link{ESC}]8;;{ESC}\\", "\\x1b]8;;https://x\\x1b\\link\\x1b]8;;\\x1b\\"),
    ("safe\rrm -rf x", "safe\\rrm -rf x"),
    ("line\r\nnext", "line\nnext"),
    ("\x9b2J", "\\x9b2J"),
    ("del\x7f", "del\\x7f"),
    ("bell\x07 and nul\x00", "bell\\x07 and nul\\x00"),
    ("invoice\u202etxt.exe", "invoice\\u202etxt.exe"),
    ("isolate\u2066x\u2069", "isolate\\u2066x\\u2069"),
    ("zero\u200bwidth", "zero\u200bwidth"),
    ("[/x] [@click=app.quit]markup[/]", "[/x] [@click=app.quit]markup[/]"),
    ("naïve 日本語 émoji 🎉", "naïve 日本語 émoji 🎉"),
])
def test_controls_and_overrides_become_visible(raw: str, visible: str) -> None:
    assert shown(raw) == visible
    assert ESC not in shown(raw) and "\x07" not in shown(raw) and "\u202e" not in shown(raw)


@pytest.mark.parametrize(("raw", "visible"), [
    ("rm\u200b -rf", "rm\\u200b -rf"),
    ("pa\u00adth", "pa\\xadth"),
    ("\ufeffbom", "\\ufeffbom"),
    ("rtl\u200fmark", "rtl\\u200fmark"),
    ("joiner\u2060x", "joiner\\u2060x"),
    ("tag\U000e0041\U000e007fs", "tag\\U000e0041\\U000e007fs"),
    ("selector\U000e0100", "selector\\U000e0100"),
])
def test_exact_text_shows_invisible_characters(raw: str, visible: str) -> None:
    assert shown(raw, exact=True) == visible
    assert not is_clean(raw) and is_clean(shown(raw, exact=True))


def test_a_one_line_value_shows_its_line_breaks() -> None:
    assert shown_line("a.py\nrm -rf /\tx") == "a.py\\nrm -rf /\\tx"
    assert shown_line(f"{ESC}[31mred") == "\\x1b[31mred"


def test_nothing_is_dropped() -> None:
    raw = "".join(chr(c) for c in range(0x00, 0xa0)) + "\u202e\u200b"
    out = shown(raw, exact=True)
    assert is_clean(out) and all(c.isprintable() or c in "\n\t" for c in out)
    assert len(out) > len(raw)
