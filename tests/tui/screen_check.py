"""What a screen draws, segment by segment: its text, and whether any of it is an action, a hyperlink or a
control character (SAFE-4)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ljtui.core.display import shown
from tests.fixtures.hostile import CONTROL

MARKDOWN_LINK_ACTION = "link("
"""The one click action a reply may carry: a Markdown link, which the Conversation only shows."""


@dataclass
class Drawn:
    """A screen as drawn: its lines, the click actions on it, hyperlinks and segments holding a control."""

    lines: list[str]
    actions: set[str] = field(default_factory=set)
    hyperlinks: set[str] = field(default_factory=set)
    controls: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def problems(self) -> list[str]:
        """Everything that must not be on a screen showing text from outside."""
        found = [f"click action {a!r}" for a in sorted(self.actions) if not a.startswith(MARKDOWN_LINK_ACTION)]
        found += [f"hyperlink {link!r}" for link in sorted(self.hyperlinks)]
        found += [f"control character in {text!r}" for text in self.controls]
        return found

    def find(self, needle: str) -> tuple[int, int] | None:
        """Where ``needle`` starts on the screen, as ``(x, y)`` (cells equal characters on these lines)."""
        for y, line in enumerate(self.lines):
            x = line.find(needle)
            if x >= 0:
                return x, y
        return None


def drawn(app, screen=None) -> Drawn:  # type: ignore[no-untyped-def]
    """``screen`` (default: the one on top) as its compositor draws it now."""
    screen = screen or app.screen
    result = Drawn([])
    for strip in screen._compositor.render_strips():
        text = []
        for segment in strip:
            text.append(segment.text)
            style = segment.style
            if style is not None:
                if style.meta and "@click" in style.meta:
                    result.actions.add(str(style.meta["@click"]))
                if style.link:
                    result.hyperlinks.add(style.link)
            if CONTROL.search(segment.text):
                result.controls.append(segment.text)
        result.lines.append("".join(text))
    return result


def assert_safe(app, screen=None) -> Drawn:  # type: ignore[no-untyped-def]
    """The screen holds no action but a reply's links, no hyperlink and no control character."""
    found = drawn(app, screen)
    problems = found.problems()
    assert not problems, shown("\n".join(problems) + "\n" + found.text)  # a failure prints nothing raw either
    return found
