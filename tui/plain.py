"""Untrusted text as Textual content: never parsed as markup, never terminal control (SAFE-4).

Every string that comes from outside ljtui — a model, a repository file, a
tool's result, a command's output, a server — reaches a widget through one
of these. :class:`~textual.content.Content` built from a string is plain
text: ``[/x]`` stays ``[/x]`` and ``[@click=…]`` is never an action. The
text first goes through :func:`ljtui.core.display.shown`, so an escape
sequence or a bidirectional override is shown, not obeyed.
"""

from __future__ import annotations

from textual.content import Content

from ljtui.core.display import shown, shown_line


def plain(text: str) -> Content:
    """Prose or output from outside, shown as it is (controls visible)."""
    return Content(shown(text))


def plain_exact(text: str) -> Content:
    """A command or any text a decision rests on: invisible characters are made visible too."""
    return Content(shown(text, exact=True))


def plain_line(text: str) -> Content:
    """A one-line value from outside (a path, a name, a title): exact, its line breaks shown as ``\\n``."""
    return Content(shown_line(text))
