"""A page of a unified diff as Rich text lines: code highlighted for its
language, added and removed lines marked in the theme's diff colours.

Rendering is pure (no widget, no event loop), so the Diff pane runs it in
a worker next to the core call that fetched the page.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from rich.style import Style
from rich.syntax import Syntax
from rich.text import Span, Text

from ljtui.core.display import shown

DARK_CODE_THEME = "monokai"
LIGHT_CODE_THEME = "friendly"
FALLBACK_COLOURS = {
    "diff-added": "green", "diff-removed": "red",
    "diff-added-background": "default", "diff-removed-background": "default",
}
HIGHLIGHT_MAX_CHARS = 100_000
"""A page with more code than this is shown without syntax colours (highlighting would take too long)."""
CODE_PREFIXES = (" ", "+", "-")
"""Diff lines that carry a line of code after their one-character mark."""


def _code_lines(diff_lines: Sequence[str]) -> list[str]:
    return [line[1:] if line.startswith(CODE_PREFIXES) else "" for line in diff_lines]


def _foreground_only(text: Text) -> Text:
    """``text`` with every background removed, so the pane's (or the diff
    line's) background shows through the code colours."""
    spans = []
    for span in text.spans:
        style = Style.parse(span.style) if isinstance(span.style, str) else span.style
        spans.append(Span(span.start, span.end, Style(color=style.color, bold=style.bold, italic=style.italic,
                                                      underline=style.underline)))
    return Text(text.plain, spans=spans, end="")


def _highlighted(code: list[str], path: str, dark: bool) -> list[Text]:
    if sum(len(line) for line in code) > HIGHLIGHT_MAX_CHARS:
        return [Text(line) for line in code]
    syntax = Syntax("", Syntax.guess_lexer(path), theme=DARK_CODE_THEME if dark else LIGHT_CODE_THEME)
    lines = _foreground_only(syntax.highlight("\n".join(code))).split("\n", allow_blank=True)
    return [lines[n] if n < len(lines) else Text(line) for n, line in enumerate(code)]


def split_header(lines: Sequence[str]) -> tuple[str | None, Sequence[str]]:
    """Take the ``---``/``+++`` file lines off the start of a diff.

    Returns:
        ``"new file"`` or ``"removed"`` when one side is ``/dev/null``
        (else ``None``), and the remaining lines.
    """
    if len(lines) >= 2 and lines[0].startswith("--- ") and lines[1].startswith("+++ "):
        label = "new file" if lines[0] == "--- /dev/null" else "removed" if lines[1] == "+++ /dev/null" else None
        return label, lines[2:]
    return None, lines


def render_lines(diff_lines: Sequence[str], path: str, colours: Mapping[str, str], *,
                 dark: bool = True) -> list[Text]:
    """Highlight ``diff_lines`` (lines of a unified diff of ``path``, without its
    ``---``/``+++`` lines: see :func:`split_header`), one Text per line.

    The lines are a file's or a model's text: their control characters (an
    escape sequence that would erase the line, say) are shown, not obeyed.

    Args:
        colours: theme variables; ``diff-added``, ``diff-removed`` and their
            ``-background`` variants are used.
        dark: pick a code theme for a dark background.
    """
    c = {**FALLBACK_COLOURS, **{k: v for k, v in colours.items() if k in FALLBACK_COLOURS}}
    diff_lines = [shown(line) for line in diff_lines]
    highlighted = _highlighted(_code_lines(diff_lines), path, dark)
    added = Style.parse(f"{c['diff-added']} on {c['diff-added-background']}")
    removed = Style.parse(f"{c['diff-removed']} on {c['diff-removed-background']}")
    out = []
    for line, code in zip(diff_lines, highlighted):
        code.rstrip()
        if line.startswith("@@"):
            out.append(Text(line, style="dim"))
        elif line.startswith("+"):
            out.append(_marked("+ ", code, added))
        elif line.startswith("-"):
            out.append(_marked("- ", code, removed))
        elif line.startswith(" "):
            out.append(Text("  ") + code)
        else:  # "\ No newline at end of file", "Binary file … differs": shown as written
            out.append(Text(line, style="italic dim"))
    return out


def _marked(mark: str, code: Text, style: Style) -> Text:
    line = Text(mark, style=style + Style(bold=True))
    line.append_text(code)
    line.stylize(Style(bgcolor=style.bgcolor), len(mark))
    return line

