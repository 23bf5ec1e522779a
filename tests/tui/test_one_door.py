"""The TUI renders and asks; it decides nothing and touches no files (the one-door rule).

Checked on the source itself: every import of core names a façade module
or an event/approval type, and no call in ``tui/`` opens, reads, writes,
moves or deletes a file.
"""

from __future__ import annotations

import ast
from pathlib import Path

TUI = Path(__file__).resolve().parents[2] / "tui"

CORE_ALLOWED = {
    "ljtui.core.engine",  # the façade: every operation
    "ljtui.core.startup",  # the façade's start-up read (config, branch, themes)
    "ljtui.core.theme_files",  # the documents the startup read hands over
    "ljtui.core.events",
    "ljtui.core.review.events",
    "ljtui.core.review.views",
    "ljtui.core.review.requests",  # what the app asks the review to open at start
    "ljtui.core.planner.events",
    "ljtui.core.approval",
    "ljtui.core.tasks.events",
    "ljtui.core.gates.events",
    "ljtui.core.rewind_events",
    "ljtui.core.ports",
    "ljtui.core.clock",
    "ljtui.core.display",  # untrusted text made safe to show
    "ljtui.core.costs",  # the events' tokens, costs and times folded into /cost's rows (pure: no file, no call)
}
"""The only core modules the TUI may import."""

PATH_CALLS = {"read_text", "write_text", "read_bytes", "write_bytes", "unlink", "rmdir", "mkdir", "touch", "chmod",
              "symlink_to", "iterdir", "glob", "rglob", "exists", "is_file", "is_dir", "open"}
"""Methods (of a path) that touch the file system."""
FILE_MODULES = {"os", "shutil", "tempfile", "io"}
"""Modules whose every call touches the file system or the process."""


def sources() -> list[Path]:
    return sorted(TUI.rglob("*.py"))


def core_imports(tree: ast.AST) -> set[str]:
    """Core modules imported (``from ljtui.core.review import events`` counts as ``ljtui.core.review.events``)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ljtui.core"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in CORE_ALLOWED else node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("ljtui.core"))
    return found


def file_calls(tree: ast.AST) -> list[str]:
    """Calls of the built-in ``open``, of file-system path methods, and of file modules."""
    calls = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            calls.append((node.lineno, "open"))
        elif isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else ""
            if func.attr in PATH_CALLS or owner in FILE_MODULES:
                calls.append((node.lineno, f"{owner + '.' if owner else ''}{func.attr}"))
    return [f"{name} (line {line})" for line, name in sorted(calls)]


def test_the_tui_imports_only_the_core_facade_and_its_types() -> None:
    assert sources()
    for path in sources():
        extra = core_imports(ast.parse(path.read_text(encoding="utf-8"))) - CORE_ALLOWED
        assert not extra, f"{path.relative_to(TUI)} imports {sorted(extra)}"


def test_the_tui_touches_no_files() -> None:
    for path in sources():
        calls = file_calls(ast.parse(path.read_text(encoding="utf-8")))
        assert not calls, f"{path.relative_to(TUI)} touches files: {calls}"


def test_the_checks_would_catch_a_relay_that_reads_a_file() -> None:
    tree = ast.parse("from ljtui.core.review.session import Review\nopen('x').read()\nPath('p').write_text('')\n")
    assert core_imports(tree) - CORE_ALLOWED == {"ljtui.core.review.session"}
    assert file_calls(tree) == ["open (line 2)", "write_text (line 3)"]
    assert file_calls(ast.parse("os.replace('a', 'b')\n'text'.replace('a', 'b')\n")) == ["os.replace (line 1)"]
