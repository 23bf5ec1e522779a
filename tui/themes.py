"""Themes: YAML documents (bundled, and the user's config dir) as Textual themes.

Textual has no theme-file loader: core reads each file
(:mod:`ljtui.core.theme_files`) and each document is turned here into a
:class:`textual.theme.Theme`. ljtui's own colour variables
(``$diff-added``, ``$gate-fail`` …) are filled in from the bundled dark or
light theme when a user theme leaves them out, so every stylesheet rule
resolves whatever theme is active. A bad file is a warning, never a crash.
The theme chosen with ``/theme`` or the palette is saved in the user's state
dir and is the next session's theme (:func:`start_theme`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

from textual.theme import Theme

from ljtui.core.theme_files import ThemeFiles, choice_dir, read_theme_choice, save_theme_choice

if TYPE_CHECKING:
    from textual.app import App

DEFAULT_THEME = "dark"
THEME_FIELDS = frozenset(f.name for f in dataclasses.fields(Theme))


@dataclass
class ThemeSet:
    """Every theme that loaded, in order, plus what went wrong."""

    themes: dict[str, Theme] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def resolve(self, name: str) -> str:
        """``name`` when it is one of the themes; otherwise the default theme, and a warning saying so."""
        if name in self.themes:
            return name
        self.warnings.append(f"Unknown theme '{name}' (ui.theme). Available: {', '.join(self.themes)}. "
                             f"Using {DEFAULT_THEME}.")
        return DEFAULT_THEME


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


def themes_from(files: ThemeFiles) -> ThemeSet:
    """Every valid theme of ``files`` (later documents replace earlier ones of the same name)."""
    result = ThemeSet(warnings=list(files.warnings))
    for origin, data in files.documents:
        try:
            theme = parse_theme(data, origin)
        except ThemeFileError as exc:
            result.warnings.append(f"{exc}; skipped")
            continue
        result.themes[theme.name] = theme
    _fill_domain_variables(result)
    return result


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


THEME_KEY = "ui.theme"
THEME_ENV = "LJTUI_THEME"


def start_theme(themes: ThemeSet, configured: str, overrides: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """The theme to start with: ``--theme`` or ``$LJTUI_THEME`` when given, else the theme last chosen with
    ``/theme`` or the palette (read from the user's state dir: call before the app runs), else ``ui.theme``
    of the config files. A saved choice that cannot be read, or names a theme that is gone, is a warning
    in ``themes`` and is passed over."""
    if overrides.get(THEME_KEY) or env.get(THEME_ENV):
        return themes.resolve(configured)
    choice = read_theme_choice(choice_dir(env))
    if choice.warning:
        themes.warnings.append(choice.warning)
    elif choice.name is not None and choice.name not in themes.themes:
        themes.warnings.append(f"Saved theme '{choice.name}' is not installed any more; using {configured}.")
    elif choice.name is not None:
        return choice.name
    return themes.resolve(configured)


def remember_theme(app: App, name: str, env: Mapping[str, str], failed: Callable[[str], None]) -> None:
    """Save ``name`` as the chosen theme in a worker thread; ``failed`` is told why, on the event loop, when
    it could not be saved."""

    def save() -> None:
        try:
            save_theme_choice(choice_dir(env), name)
        except OSError as exc:
            app.call_from_thread(failed, f"The theme could not be saved for next time: {exc.strerror or exc}.")

    app.run_worker(save, name="theme", group="theme", thread=True, exit_on_error=False)
