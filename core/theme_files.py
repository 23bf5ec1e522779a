"""Theme documents: the bundled themes, then the user's own YAML files.

Only the reading lives here (the UI turns each mapping into a Textual
theme). A file that cannot be read or parsed is a warning naming it. The
bundled themes are Python data (:mod:`ljtui.themes`), so PyYAML is imported
only when the user has theme files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
