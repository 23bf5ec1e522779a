"""Parsing YAML text safely and fast: libyaml's C loader when PyYAML has it.

``yaml`` is imported on first use, so a start-up that reads no YAML does
not pay for it.
"""

from __future__ import annotations

from typing import Any


def load_yaml(text: str | bytes) -> Any:
    """The document in ``text``, with safe types only.

    Raises:
        yaml.YAMLError: the text is not valid YAML.
        RecursionError: the document is nested too deeply.
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
