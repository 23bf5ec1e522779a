"""Theme files: YAML in ``themes/`` (bundled) and the user's config dir.

Textual has no theme-file loader, so each file is read as YAML and turned
into a :class:`textual.theme.Theme`. ljtui's own colour variables
(``$diff-added``, ``$gate-fail`` …) are filled in from the bundled dark or
light theme when a user theme leaves them out, so every stylesheet rule
resolves whatever theme is active. A bad file is a warning, never a crash.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml
from textual.theme import Theme

DEFAULT_THEME = "dark"
THEME_FIELDS = frozenset(f.name for f in dataclasses.fields(Theme))


@dataclass
class ThemeSet:
    """Every theme that loaded, in order, plus what went wrong."""

    themes: dict[str, Theme] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


class ThemeFileError(ValueError):
    """A theme file that cannot become a theme."""


def parse_theme(data: Any, origin: str) -> Theme:
    """Build a Theme from a parsed YAML document.

    Raises:
        ThemeFileError: naming ``origin`` and what was expected.
    """
    if not isinstance(data, dict):
        raise ThemeFileError(f"theme file {origin}: expected a mapping with 'name' and 'primary'")
    unknown = sorted(set(map(str, data)) - THEME_FIELDS)
    if unknown:
        raise ThemeFileError(f"theme file {origin}: unknown key(s) {', '.join(unknown)}")
    for key in ("name", "primary"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ThemeFileError(f"theme file {origin}: '{key}' must be a non-empty string")
    variables = data.get("variables", {}) or {}
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ThemeFileError(f"theme file {origin}: 'variables' must map names to colour strings")
    try:
        theme = Theme(**{**data, "variables": {str(k): v for k, v in variables.items()}})
        theme.to_color_system()
    except Exception as exc:  # Textual raises several types for bad colours
        raise ThemeFileError(f"theme file {origin}: {exc}") from None
    return theme


def _read(path: Any, origin: str) -> Theme:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ThemeFileError(f"theme file {origin}: cannot read ({type(exc).__name__})") from None
    try:
        return parse_theme(yaml.safe_load(text), origin)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}:" if mark is not None else ""
        raise ThemeFileError(f"theme file {origin}:{where} invalid YAML") from None


def load_themes(user_dir: Path | None) -> ThemeSet:
    """Load bundled themes, then ``user_dir/*.yaml`` (a user theme may
    replace a bundled one of the same name)."""
    result = ThemeSet()
    bundled = sorted(
        (p for p in files("ljtui.themes").iterdir() if p.name.endswith(".yaml")), key=lambda p: p.name
    )
    for path in bundled:
        _add(result, path, f"ljtui/themes/{path.name}")
    if user_dir is not None and user_dir.is_dir():
        for path in sorted(user_dir.glob("*.yaml")):
            _add(result, path, str(path))
    _fill_domain_variables(result)
    return result


def _add(result: ThemeSet, path: Any, origin: str) -> None:
    try:
        theme = _read(path, origin)
    except ThemeFileError as exc:
        result.warnings.append(f"{exc}; skipped")
        return
    result.themes[theme.name] = theme


def _fill_domain_variables(result: ThemeSet) -> None:
    dark = result.themes.get(DEFAULT_THEME)
    light = result.themes.get("light")
    for name, theme in list(result.themes.items()):
        base = dark if theme.dark else (light or dark)
        if base is None or base is theme:
            continue
        merged = {**base.variables, **theme.variables}
        result.themes[name] = dataclasses.replace(theme, variables=merged)


def domain_variable_defaults(themes: ThemeSet) -> dict[str, str]:
    """The default theme's variables, for themes that do not define them."""
    default = themes.themes.get(DEFAULT_THEME)
    return dict(default.variables) if default else {}
