"""Reading and checking configuration values: YAML files, types, ranges.

Everything here turns bad input into a problem sentence instead of raising,
so :mod:`ljtui.core.config` can report it with the file and key and keep the
default.
"""

from __future__ import annotations

import dataclasses
import math
import os
import types
from pathlib import Path
from typing import Any, Union, get_args, get_origin

from ljtui.core.yaml_text import load_yaml

MAX_CONFIG_BYTES = 1024 * 1024
"""A config file larger than this is not read (it is reported and ignored)."""

PRICE_KEYS: tuple[str, ...] = ("input", "output", "cache_read", "cache_write")
"""The rates a ``provider.prices`` entry may set (USD per million tokens)."""


def read_yaml(path: Path, warnings: list[str], *, inside: Path | None = None) -> dict[str, Any] | None:
    """The mapping in the YAML file at ``path``, or ``None`` (a warning says why when it exists).

    Args:
        path: the file.
        warnings: receives one line per problem.
        inside: when given, the file must resolve inside this directory (a
            repository's config reached through a symlink to elsewhere is ignored).
    """
    if inside is not None and os.path.lexists(path):
        real, root = os.path.realpath(path), os.path.realpath(inside)
        if not real.startswith(root.rstrip(os.sep) + os.sep):
            warnings.append(f"config {path}: resolves to {real}, outside the repository; ignored")
            return None
    try:
        size = os.stat(path).st_size
        if size > MAX_CONFIG_BYTES:
            warnings.append(f"config {path}: {size} bytes, over the {MAX_CONFIG_BYTES} byte limit; ignored")
            return None
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        warnings.append(f"config {path}: cannot read ({reason(exc)}); ignored")
        return None
    import yaml

    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        warnings.append(f"config {path}: {yaml_problem(exc, text)}; file ignored")
        return None
    except RecursionError:
        warnings.append(f"config {path}: nested too deeply; file ignored")
        return None
    if data is None:
        return None
    if not isinstance(data, dict):
        warnings.append(f"config {path}: expected a mapping of sections, got {type(data).__name__}; file ignored")
        return None
    return data


def coerce(value: Any, hint: Any) -> Any:
    """Check (and for strings from the environment, convert) one value.

    Raises:
        ValueError: with a sentence saying what was expected.
    """
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if value is None:
            return None
        return coerce(value, args[0])
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"must be a list, got {type(value).__name__}")
        (item_hint,) = get_args(hint)
        return [coerce(v, item_hint) for v in value]
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"must be a mapping, got {type(value).__name__}")
        key_hint, value_hint = get_args(hint)
        return {coerce(k, key_hint): coerce(v, value_hint) for k, v in value.items()}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _record(value, hint)
    if hint is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            return value.lower() in ("1", "true", "yes", "on")
        raise ValueError(f"must be true or false, got {value!r}")
    if hint in (int, float):
        return _number(value, hint)
    if hint is str:
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
        raise ValueError(f"must be text, got {type(value).__name__}")
    return value


def _record(value: Any, hint: type) -> Any:
    """A dataclass from a mapping of some of its fields (the rest keep their defaults)."""
    from typing import get_type_hints

    if not isinstance(value, dict):
        raise ValueError(f"must be a mapping, got {type(value).__name__}")
    hints = get_type_hints(hint)
    known = [f.name for f in dataclasses.fields(hint)]
    unknown = [k for k in value if k not in known]
    if unknown:
        raise ValueError(f"has unknown key {unknown[0]!r} (known: {', '.join(known)})")
    fields = {}
    for key, item in value.items():
        try:
            fields[key] = coerce(item, hints[key])
        except ValueError as exc:
            raise ValueError(f"key {key!r} {exc}") from None
    return hint(**fields)


def _number(value: Any, hint: type) -> int | float:
    kind = "a whole number" if hint is int else "a number"
    if isinstance(value, bool):
        raise ValueError(f"must be {kind}, got {value!r}")
    if isinstance(value, (int, float)) and (hint is float or isinstance(value, int)):
        number = hint(value)
    elif isinstance(value, str):
        try:
            number = hint(value)
        except ValueError:
            raise ValueError(f"must be {kind}, got {value!r}") from None
    else:
        raise ValueError(f"must be {kind}, got {value!r}")
    if isinstance(number, float) and not math.isfinite(number):
        raise ValueError(f"must be a finite number, got {value!r}")
    return number


def range_problem(value: Any, minimum: float | None, maximum: float | None) -> str | None:
    """Why a number lies outside ``minimum``–``maximum`` (either may be open), or None."""
    if not isinstance(value, (int, float)):
        return None
    if minimum is not None and not value >= minimum:
        return f"is {value!r}, must be at least {minimum:g}"
    if maximum is not None and not value <= maximum:
        return f"is {value!r}, must be at most {maximum:g}"
    return None


def prices_problem(prices: dict[str, dict[str, float]]) -> str | None:
    """Why a ``provider.prices`` table is unusable, or None."""
    for model, rates in prices.items():
        unknown = set(rates) - set(PRICE_KEYS)
        if unknown:
            return f"model '{model}': unknown rate(s) {', '.join(sorted(unknown))} (known: {', '.join(PRICE_KEYS)})"
        if "input" not in rates or "output" not in rates:
            return f"model '{model}': needs both 'input' and 'output' (USD per million tokens)"
        if any(v < 0 for v in rates.values()):
            return f"model '{model}': rates must not be negative"
    return None


def reason(exc: BaseException) -> str:
    """A short cause for an I/O error."""
    return getattr(exc, "strerror", None) or type(exc).__name__


def yaml_problem(exc: Exception, text: str) -> str:
    """What is wrong with YAML ``text``, and where: ``line 3: mapping values are not allowed here``.

    A control character (YAML allows none but tab and line breaks) is named, so a file that hides an
    escape sequence says so instead of only being ignored.
    """
    import yaml

    if isinstance(exc, yaml.reader.ReaderError) and isinstance(exc.character, int):
        line = text.count("\n", 0, exc.position) + 1
        return f"line {line}: character U+{exc.character:04X} is not allowed in YAML"
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 1}: " if mark is not None else ""
    return where + (getattr(exc, "problem", None) or "invalid YAML")
