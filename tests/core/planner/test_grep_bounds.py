"""Grep stays bounded in time and memory whatever the pattern and the files (PLN-4, PLN-5)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ljtui.core.planner import grep as G
from ljtui.core.planner.grep import GREP_MAX_FILE_BYTES, GREP_MAX_HITS, GREP_MAX_LINE_CHARS, search
from ljtui.core.planner.tools import ReadOnlyTools
from ljtui.core.regex_guard import RE2_MAX_PROGRAM_SIZE

ENGINES = ["re2", "rg"]
SHORT_TIMEOUT_S = 0.5
"""The time bound the tests set; the searches they stop would take far longer."""
BOUND_SLACK_S = 6.0
"""What a bounded call may take beyond its time bound on a loaded machine (process start-up, kill).
Unbounded, the hostile search below takes 12-14 s on either engine."""
SLOW_PATTERN = "[ab]*a[ab]{600}c"
"""On one long line of random a/b: no literal to skip ahead with, and a DFA too big for either
engine's cache, so both fall back to their slow engines (about 12 s for 5 MB)."""
RSS_LIMIT_MB = 150
"""Peak memory of a process that ran one grep; before the fixes a million matches took 430 MB
and one long line with five million matches 2.7 GB."""
PROBE_TIMEOUT_S = 120.0
"""The memory probes measure memory, not time: their bound is wide enough for a loaded machine."""
RSS_PROBE = f"""
import sys
from pathlib import Path
from ljtui.core.planner.tools import ReadOnlyTools
tools = ReadOnlyTools(Path(sys.argv[1]), grep_engine=sys.argv[2], grep_timeout={PROBE_TIMEOUT_S})
out = tools.grep(sys.argv[3], ".")
peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(int(peak.split()[1]) // 1024)
print(out.content)
"""
"""Peak RSS from VmHWM, which a new program starts afresh (``ru_maxrss`` survives ``execve``,
so it would report the test runner's own size)."""


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def ab_line(path: Path, size: int = GREP_MAX_FILE_BYTES - 1) -> None:
    """One line of ``size`` random a/b characters."""
    to_ab = bytes(ord("a") + (i & 1) for i in range(256))
    path.write_bytes(random.Random(7).randbytes(size).translate(to_ab) + b"\n")


def peak_rss_mb_and_output(root: Path, engine: str, pattern: str) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, "-c", RSS_PROBE, str(root), engine, pattern],
                          capture_output=True, text=True, check=True, timeout=2 * PROBE_TIMEOUT_S)
    first, _, rest = proc.stdout.partition("\n")
    return int(first), rest


def test_one_huge_line_is_stopped_by_the_time_bound(tmp_path: Path, engine: str) -> None:
    ab_line(tmp_path / "one-line.txt")
    (tmp_path / "small.txt").write_text("aaac\n")
    tools = ReadOnlyTools(tmp_path, grep_engine=engine, grep_timeout=SHORT_TIMEOUT_S)
    started = time.monotonic()
    out = tools.grep(SLOW_PATTERN, ".")
    elapsed = time.monotonic() - started
    assert elapsed < SHORT_TIMEOUT_S + BOUND_SLACK_S
    assert out.ok and f"[stopped after {SHORT_TIMEOUT_S:g} s; results are partial" in out.content


def test_the_bound_holds_for_a_single_file_too(tmp_path: Path) -> None:
    ab_line(tmp_path / "one-line.txt")
    started = time.monotonic()
    found = search(SLOW_PATTERN, tmp_path / "one-line.txt", engine="auto", timeout=SHORT_TIMEOUT_S)
    assert time.monotonic() - started < SHORT_TIMEOUT_S + BOUND_SLACK_S
    assert found.timed_out and found.hits == []


def test_groups_do_not_slow_a_long_line_down(tmp_path: Path, engine: str) -> None:
    (tmp_path / "min.js").write_bytes(b"a" * (GREP_MAX_FILE_BYTES - 1) + b"\n")
    out = ReadOnlyTools(tmp_path, grep_engine=engine).grep("(a|b)(.*){1,100}$", ".")
    assert out.ok and "stopped after" not in out.content
    assert out.content.splitlines()[1] == "min.js:1: " + "a" * GREP_MAX_LINE_CHARS + " …"


def test_absurd_program_sizes_are_refused_up_front(tmp_path: Path, engine: str) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    started = time.monotonic()
    out = ReadOnlyTools(tmp_path, grep_engine=engine).grep("(.*){1,1000}", ".")
    assert time.monotonic() - started < BOUND_SLACK_S
    assert not out.ok and f"over the limit of {RE2_MAX_PROGRAM_SIZE}" in out.content
    assert "smaller repeat counts" in out.content


def test_ripgrep_killed_mid_line_returns_the_hits_so_far(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    done = [{"type": "begin", "data": {"path": {"text": "./a.py"}}},
            {"type": "match", "data": {"path": {"text": "./a.py"}, "lines": {"text": "def f():\n"},
                                       "line_number": 3, "absolute_offset": 0, "submatches": []}},
            {"type": "end", "data": {"path": {"text": "./a.py"}, "binary_offset": None}}]
    cut = '{"type":"match","data":{"path":{"text":"./b.py"},"lines":{"text":"def g'
    fake = tmp_path / "fake-rg"
    script = "".join(json.dumps(m) + "\n" for m in done) + cut
    listing = "[ \"$1\" = --files ] && { printf './a.py\\0./b.py\\0'; exit 0; }\n"
    fake.write_text(f"#!/bin/sh\n{listing}printf '%s' '{script}'\nexec sleep 30\n")
    fake.chmod(0o755)
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.setattr(G, "find_rg", lambda: str(fake))
    started = time.monotonic()
    out = ReadOnlyTools(repo, grep_engine="rg", grep_timeout=SHORT_TIMEOUT_S).grep("def", ".")
    assert time.monotonic() - started < SHORT_TIMEOUT_S + BOUND_SLACK_S
    assert out.ok and out.content.splitlines()[:2] == ["grep `def` in .: 1 matching lines", "a.py:3: def f():"]
    assert "results are partial" in out.content


def test_a_million_matches_in_one_file_stay_cheap(tmp_path: Path, engine: str) -> None:
    (tmp_path / "many.txt").write_bytes(b"hit\n" * 1_000_000)
    rss, output = peak_rss_mb_and_output(tmp_path, engine, "hit")
    assert rss < RSS_LIMIT_MB
    assert f"{GREP_MAX_HITS}+ matching lines" in output and f"many.txt:{GREP_MAX_HITS}: hit" in output


def test_one_long_line_with_millions_of_matches_stays_cheap(tmp_path: Path, engine: str) -> None:
    (tmp_path / "a.txt").write_bytes(b"short\n" * 3 + b"a" * (GREP_MAX_FILE_BYTES - 100) + b"\nlast a\n")
    rss, output = peak_rss_mb_and_output(tmp_path, engine, "a")
    assert rss < RSS_LIMIT_MB
    assert output.splitlines()[1:3] == ["a.txt:4: " + "a" * GREP_MAX_LINE_CHARS + " …", "a.txt:5: last a"]


def test_ripgrep_runs_without_provider_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = tmp_path / "env.txt"
    fake = tmp_path / "fake-rg"
    fake.write_text(f"#!/bin/sh\nenv >> '{seen}'\n")
    fake.chmod(0o755)
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-must-not-leak")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-must-not-leak")
    monkeypatch.setattr(G, "find_rg", lambda: str(fake))
    out = ReadOnlyTools(repo, grep_engine="rg").grep("def", ".")
    assert out.ok and "(no matches)" in out.content
    env = seen.read_text()
    assert "PATH=" in env and "must-not-leak" not in env
