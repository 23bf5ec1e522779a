"""A unified diff as Rich text: code highlighted for its language, added and
removed lines marked in the theme's diff colours."""

from __future__ import annotations

from typing import Mapping

from rich.style import Style
from rich.syntax import Syntax
from rich.text import Span, Text

DARK_CODE_THEME = "monokai"
LIGHT_CODE_THEME = "friendly"
FALLBACK_COLOURS = {
    "diff-added": "green", "diff-removed": "red",
    "diff-added-background": "default", "diff-removed-background": "default",
}


def _code_lines(diff_lines: list[str]) -> list[str]:
    out = []
    for line in diff_lines:
        if line.startswith(("+++", "---", "@@", "\\")):
            out.append("")
        else:
            out.append(line[1:])
    return out


def _foreground_only(text: Text) -> Text:
    """``text`` with every background removed, so the pane's (or the diff
    line's) background shows through the code colours."""
    spans = []
    for span in text.spans:
        style = Style.parse(span.style) if isinstance(span.style, str) else span.style
        spans.append(Span(span.start, span.end, Style(color=style.color, bold=style.bold, italic=style.italic,
                                                      underline=style.underline)))
    return Text(text.plain, spans=spans, end="")


def render_diff(diff: str, path: str, colours: Mapping[str, str], *, dark: bool = True) -> Text:
    """Highlight ``diff`` (a unified diff of ``path``).

    Args:
        colours: theme variables; ``diff-added``, ``diff-removed`` and their
            ``-background`` variants are used.
        dark: pick a code theme for a dark background.
    """
    c = {**FALLBACK_COLOURS, **{k: v for k, v in colours.items() if k in FALLBACK_COLOURS}}
    lines = diff.splitlines()
    lexer = Syntax.guess_lexer(path)
    syntax = Syntax("", lexer, theme=DARK_CODE_THEME if dark else LIGHT_CODE_THEME)
    code_text = _foreground_only(syntax.highlight("\n".join(_code_lines(lines))))
    highlighted = code_text.split("\n", allow_blank=True)
    added = Style.parse(f"{c['diff-added']} on {c['diff-added-background']}")
    removed = Style.parse(f"{c['diff-removed']} on {c['diff-removed-background']}")
    out = Text(no_wrap=True, overflow="ellipsis")
    for n, line in enumerate(lines):
        code = highlighted[n] if n < len(highlighted) else Text(line[1:])
        code.rstrip()
        if line.startswith(("+++", "---")):
            out.append(line, style="bold")
        elif line.startswith("@@"):
            out.append(line, style="dim")
        elif line.startswith("\\"):
            out.append(line, style="italic dim")
        elif line.startswith("+"):
            out.append("+ ", style=added + Style(bold=True))
            out.append_text(code.copy())
            out.stylize(Style(bgcolor=added.bgcolor), len(out) - len(code) - 2)
        elif line.startswith("-"):
            out.append("- ", style=removed + Style(bold=True))
            out.append_text(code.copy())
            out.stylize(Style(bgcolor=removed.bgcolor), len(out) - len(code) - 2)
        else:
            out.append("  ")
            out.append_text(code.copy())
        out.append("\n")
    out.rstrip()
    return out
