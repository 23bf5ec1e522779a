"""Narrow, fast post-apply syntax checks of touched files, reported per file."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

NODE_CHECK_TIMEOUT = 10.0
"""Seconds allowed for one ``node --check``."""
MESSAGE_CHARS = 300
JS_SUFFIXES = (".js", ".mjs", ".cjs")


@dataclass(frozen=True)
class CheckResult:
    """One file's check: which checker ran and what it said."""

    file: str
    checker: str
    ok: bool
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"file": self.file, "checker": self.checker, "ok": self.ok, "message": self.message}


def _python(path: Path, data: bytes) -> str | None:
    # Same check as py_compile, without writing a .pyc into the repository.
    try:
        compile(data, str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    except ValueError as exc:
        return str(exc)
    return None


def _json(path: Path, data: bytes) -> str | None:
    try:
        json.loads(data)
    except ValueError as exc:
        return str(exc)
    return None


def _yaml(path: Path, data: bytes) -> str | None:
    import yaml

    try:
        list(yaml.safe_load_all(data))
    except yaml.YAMLError as exc:
        return str(exc).replace("\n", " ")
    return None


def _toml(path: Path, data: bytes) -> str | None:
    try:
        tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return str(exc)
    return None


def _node(path: Path, data: bytes) -> str | None:
    node = shutil.which("node")
    if node is None:
        return None
    try:
        done = subprocess.run([node, "--check", str(path)], capture_output=True, text=True,
                              timeout=NODE_CHECK_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"node --check took longer than {NODE_CHECK_TIMEOUT:g}s"
    return None if done.returncode == 0 else (done.stderr.strip() or f"exit {done.returncode}")


Checker = Callable[[Path, bytes], "str | None"]
CHECKERS: dict[str, tuple[str, Checker]] = {
    ".py": ("python", _python), ".json": ("json", _json), ".yaml": ("yaml", _yaml),
    ".yml": ("yaml", _yaml), ".toml": ("toml", _toml),
    **{suffix: ("node", _node) for suffix in JS_SUFFIXES},
}
"""Checker name and function per file suffix."""


def check_files(root: Path, paths: Iterable[str]) -> list[CheckResult]:
    """Syntax-check each existing file of ``paths`` that has a checker.

    JavaScript is checked only when ``node`` is on ``PATH``.
    """
    results = []
    for rel in paths:
        path = root / rel
        entry = CHECKERS.get(path.suffix.lower())
        if entry is None or not path.is_file():
            continue
        name, checker = entry
        if name == "node" and shutil.which("node") is None:
            continue
        problem = checker(path, path.read_bytes())
        results.append(CheckResult(rel, name, problem is None, (problem or "")[:MESSAGE_CHARS]))
    return results
