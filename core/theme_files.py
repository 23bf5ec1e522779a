"""Theme documents: the bundled themes, then the user's own YAML files; and the theme last chosen.

Only the reading lives here (the UI turns each mapping into a Textual
theme). A file that cannot be read or parsed is a warning naming it. The
bundled themes are Python data (:mod:`ljtui.themes`), so PyYAML is imported
only when the user has theme files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ljtui.core.userdirs import user_state_dir
from ljtui.core.yaml_text import load_yaml

MAX_THEME_BYTES = 256 * 1024
"""A theme file larger than this is skipped."""


@dataclass
class ThemeFiles:
    """Parsed theme documents in load order (``origin``, data) and what went wrong."""

    documents: list[tuple[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def read_theme_files(user_dir: Path | None) -> ThemeFiles:
    """The bundled themes, then ``user_dir/*.yaml`` (a user theme may replace a bundled one)."""
    from ljtui.themes import BUNDLED

    found = ThemeFiles([(f"ljtui/themes/{name}", {**data, "variables": dict(data["variables"])})
                        for name, data in BUNDLED.items()])
    if user_dir is not None and user_dir.is_dir():
        for path in sorted(user_dir.glob("*.yaml")):
            _read(found, path, str(path))
    return found


def _read(found: ThemeFiles, path: Any, origin: str) -> None:
    try:
        raw = path.read_bytes()
        if len(raw) > MAX_THEME_BYTES:
            found.warnings.append(f"theme file {origin}: larger than {MAX_THEME_BYTES} bytes; skipped")
            return
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        found.warnings.append(f"theme file {origin}: cannot read ({type(exc).__name__}); skipped")
        return
    import yaml

    try:
        found.documents.append((origin, load_yaml(text)))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}:" if mark is not None else ""
        found.warnings.append(f"theme file {origin}:{where} invalid YAML; skipped")
    except RecursionError:
        found.warnings.append(f"theme file {origin}: nested too deeply; skipped")


CHOICE_FILE = "theme.json"
"""The theme last chosen with ``/theme`` or the palette, in the user's state dir: ``{"theme": NAME}``."""
MAX_CHOICE_BYTES = 4096
"""A saved choice larger than this is not read."""
MAX_NAME_CHARS = 200
"""Longest theme name saved or read back."""


def choice_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the chosen theme is saved: the user's state dir."""
    return user_state_dir(env)


@dataclass(frozen=True)
class ThemeChoice:
    """The saved theme's name (``None``: none saved, or unreadable) and, when the file was unusable, why."""

    name: str | None = None
    warning: str | None = None


def read_theme_choice(state_dir: Path) -> ThemeChoice:
    """The theme saved in ``state_dir``; a missing file is no choice, an invalid one a warning."""
    path = state_dir / CHOICE_FILE
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_CHOICE_BYTES + 1)
    except FileNotFoundError:
        return ThemeChoice()
    except OSError as exc:
        return ThemeChoice(warning=f"saved theme {path}: cannot read ({type(exc).__name__}); ignored")
    import json

    try:
        if len(raw) > MAX_CHOICE_BYTES:
            raise ValueError
        data = json.loads(raw.decode("utf-8"))
        name = data["theme"]
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME_CHARS:
            raise ValueError
    except (ValueError, TypeError, KeyError, UnicodeDecodeError, RecursionError):
        return ThemeChoice(warning=f'saved theme {path}: not {{"theme": NAME}}; ignored')
    return ThemeChoice(name)


def save_theme_choice(state_dir: Path, name: str) -> None:
    """Save ``name`` as the chosen theme: written to a temporary file, then renamed over the old one.

    Raises:
        OSError: when the state dir cannot be written.
    """
    import json
    import os
    import tempfile

    state_dir.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=".theme-", suffix=".json", dir=state_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"theme": name[:MAX_NAME_CHARS]}, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, state_dir / CHOICE_FILE)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
