"""Post-apply checks can fail but never crash: depth, memory, time and interpreter crashes are verdicts."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.core.edits.checks import CheckLimits, check_files
from tests.core.edits.helpers import block, plan_text

LJTUI = str(Path(sys.executable).with_name("ljtui"))
CLI_TIMEOUT = 120
DEEP = 100_000
"""Nesting far beyond any parser's recursion limit."""
STACK_BREAKING_DEPTH = 10_000_000
"""Nesting whose C recursion needs more stack than the child's whole address space."""
SLOW_YAML_ITEMS = 1_000_000
"""A YAML list the pure-Python parser needs many seconds for."""
SHORT_TIMEOUT = 2.0
MEMORY_HEADROOM = 64 << 20
"""Address space the child may use beyond what a bare interpreter maps."""
BIG_JSON_FLOATS = 3_000_000
"""Parsed, these need about twice ``MEMORY_HEADROOM``."""

DEPTH_MESSAGE = "not checked: nested too deeply for the {} checker (its recursion limit is 1000)"
PY_MEMORY_MESSAGE = ("not checked: the python checker ran out of memory (limit 1024 MiB), "
                     "or the nesting is too deep for its parser")


def write(root: Path, files: dict[str, bytes]) -> list[str]:
    for name, data in files.items():
        (root / name).write_bytes(data)
    return list(files)


@pytest.mark.parametrize(("name", "data", "message"), [
    ("deep.json", b"[" * DEEP, DEPTH_MESSAGE.format("json")),
    ("deep.yaml", b"[" * DEEP, DEPTH_MESSAGE.format("yaml")),
    ("deep.toml", b"a = " + b"[" * DEEP, DEPTH_MESSAGE.format("toml")),
    ("deep.py", b"-" * DEEP + b"1\n", PY_MEMORY_MESSAGE),
    ("chain.py", b"x = " + b"1+" * DEEP + b"1\n",
     "not checked: nested too deeply for the python checker (its recursion limit is 1000)"),
    ("brackets.py", b"[" * DEEP, "line 1: too many nested parentheses"),
    ("table.toml", b"[" * DEEP, "Invalid initial character for a key part (at line 1, column 3)"),
], ids=lambda value: value if isinstance(value, str) and len(value) < 20 else "")
def test_deeply_nested_files_fail_their_check_with_a_message(tmp_path, name, data, message):
    (result,) = check_files(tmp_path, write(tmp_path, {name: data}))
    assert (result.file, result.ok, result.message) == (name, False, message)


def test_files_after_a_failing_checker_are_still_checked_in_order(tmp_path):
    names = write(tmp_path, {"deep.json": b"[" * DEEP, "ok.py": b"x = 1\n", "deep.yaml": b"[" * DEEP,
                             "bad.py": b"def f(:\n", "c.toml": b"a = 1\n"})
    results = check_files(tmp_path, names)
    assert [(r.file, r.ok) for r in results] == [("deep.json", False), ("ok.py", True), ("deep.yaml", False),
                                                 ("bad.py", False), ("c.toml", True)]
    assert results[3].message == "line 1: invalid syntax"


def test_an_interpreter_crash_is_a_failed_check_and_later_files_are_still_checked(tmp_path):
    names = write(tmp_path, {"ok.json": b"[]", "crash.json": b"[" * STACK_BREAKING_DEPTH, "after.py": b"x = 1\n",
                             "bad.py": b"def f(:\n"})
    results = check_files(tmp_path, names, CheckLimits(recursion_limit=10 * STACK_BREAKING_DEPTH))
    assert [(r.file, r.ok) for r in results] == [("ok.json", True), ("crash.json", False), ("after.py", True),
                                                 ("bad.py", False)]
    assert results[1].message == "not checked: the json checker crashed (SIGSEGV)"


def test_a_check_that_takes_too_long_is_stopped_and_the_next_file_is_checked(tmp_path):
    names = write(tmp_path, {"slow.yaml": b"- 1\n" * SLOW_YAML_ITEMS, "after.py": b"x = 1\n"})
    results = check_files(tmp_path, names, CheckLimits(timeout=SHORT_TIMEOUT))
    assert [(r.file, r.ok, r.message) for r in results] == [
        ("slow.yaml", False, "not checked: the yaml check took longer than 2s"), ("after.py", True, "")]


def baseline_address_space() -> int:
    """Bytes of address space a fresh isolated interpreter maps (locale archives and all)."""
    probe = "print(open('/proc/self/status').read().split('VmSize:')[1].split()[0])"
    done = subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True, text=True, check=True)
    return int(done.stdout) * 1024


def test_a_file_that_needs_more_memory_than_the_limit_fails_its_check(tmp_path):
    floats = b"[" + b",".join([b"1.5"] * BIG_JSON_FLOATS) + b"]"
    names = write(tmp_path, {"big.json": floats, "after.py": b"x = 1\n"})
    limit = baseline_address_space() + MEMORY_HEADROOM
    results = check_files(tmp_path, names, CheckLimits(memory_bytes=limit))
    assert [(r.file, r.ok) for r in results] == [("big.json", False), ("after.py", True)]
    assert results[0].message == f"not checked: the json checker ran out of memory (limit {limit >> 20} MiB)"
    assert [r.ok for r in check_files(tmp_path, names)] == [True, True]


def test_a_checker_that_cannot_start_fails_every_file_with_the_reason(tmp_path):
    names = write(tmp_path, {"a.py": b"x = 1\n", "b.yaml": b"a: 1\n"})
    results = check_files(tmp_path, names, CheckLimits(start_timeout=1e-9))
    assert [r.message for r in results] == ["not checked: the checker did not start within 1e-09s"] * 2


def test_the_checker_never_imports_modules_from_the_repository(tmp_path):
    marker = tmp_path / "imported"
    for module in ("json", "yaml", "tomllib", "resource", "check_worker"):
        (tmp_path / f"{module}.py").write_text(f"open({str(marker)!r}, 'a').write('{module}')\n")
    names = write(tmp_path, {"a.json": b"{}", "b.yaml": b"a: 1\n", "c.toml": b"a = 1\n"})
    results = check_files(tmp_path, names)
    assert [r.ok for r in results] == [True, True, True]
    assert not marker.exists()


def fake_node(bin_dir: Path, record: Path) -> None:
    script = bin_dir / "node"
    script.write_text(f"#!/bin/sh\nenv > {record}\nexit 0\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def test_node_check_runs_without_provider_keys(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "node-env"
    fake_node(bin_dir, record)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    repo = tmp_path / "repo"
    repo.mkdir()
    (result,) = check_files(repo, write(repo, {"a.js": b"let a = 1;\n"}))
    assert result.ok
    env = record.read_text()
    assert "PATH=" in env and "sk-ant-secret" not in env and "sk-openai-secret" not in env


def test_cli_json_result_reports_every_deep_file_as_a_failed_check(git_repo):
    files = {"deep.json": "[" * DEEP, "deep.yaml": "[" * DEEP, "deep.toml": "a = " + "[" * DEEP,
             "deep.py": "-" * DEEP + "1", "fine.py": "x = 1"}
    plan = git_repo.parent / "plan.md"
    blocks = [block(n, name, "", body + "\n") for n, (name, body) in enumerate(files.items(), start=1)]
    plan.write_text(plan_text(*blocks), encoding="utf-8")
    done = subprocess.run([LJTUI, "apply", str(plan), "--json", "--yes", "--repo", str(git_repo)],
                          capture_output=True, text=True, timeout=CLI_TIMEOUT)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["status"], result["files"]) == ("done", list(files))
    assert [(c["file"], c["ok"]) for c in result["checks"]] == [
        ("deep.json", False), ("deep.yaml", False), ("deep.toml", False), ("deep.py", False), ("fine.py", True)]
    assert result["checks"][0]["message"] == DEPTH_MESSAGE.format("json")
    assert result["notes"][0] == (f"syntax check failed: deep.json (json): {DEPTH_MESSAGE.format('json')}; "
                                  "`ljtui undo` reverts the apply")
    assert "Traceback" not in done.stderr
    assert (git_repo / "deep.json").read_text() == "[" * DEEP + "\n"


def test_file_names_that_are_not_utf8_are_checked(tmp_path):
    latin = os.fsdecode(b"caf\xe9.json")
    names = write(tmp_path, {latin: b"{", "ok \u4e16.py": b"x = 1\n"})
    results = check_files(tmp_path, names)
    assert [(r.file, r.ok) for r in results] == [(latin, False), ("ok \u4e16.py", True)]
