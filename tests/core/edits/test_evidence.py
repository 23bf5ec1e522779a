"""Evidence for failed anchors and the repair-loop rendering."""

from __future__ import annotations

import time

from ljtui.core.edits import evidence as ev
from ljtui.core.edits.errors import AnchorNotFound
from ljtui.core.edits.evidence import find_candidates
from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.edits.repair import format_failures_for_repair
from ljtui.core.edits.validate import validate_plan
from tests.core.edits.helpers import block, plan_text

LARGE_FILE_BYTES = 10_000_000
LARGE_FILE_SECONDS = 3.0
"""Generous bound: the search must stay interactive on a 10 MB file."""


def numbered_functions(count: int) -> bytes:
    return "".join(f"def handler_{i}(request):\n    return respond(request, code={i})\n\n"
                   for i in range(count)).encode()


def test_reindented_anchor_is_a_strong_candidate():
    data = b"class A:\n    def run(self):\n        return compute(self.x)\n"
    (cand,) = find_candidates(data, "def run(self):\n    return compute(self.x)\n", "a.py")
    assert (cand.file, cand.line, cand.strength) == ("a.py", 2, "strong")
    assert cand.score == 1.0
    assert cand.excerpt == "    def run(self):\n        return compute(self.x)"


def test_at_most_eight_strong_and_four_weak_best_first():
    data = numbered_functions(40)
    cands = find_candidates(data, "def handler_x(request):\n    return respond(request, code=x)\n", "h.py")
    strong = [c for c in cands if c.strength == "strong"]
    weak = [c for c in cands if c.strength == "weak"]
    assert len(strong) == ev.STRONG_LIMIT and len(weak) <= ev.WEAK_LIMIT
    scores = [c.score for c in strong]
    assert scores == sorted(scores, reverse=True)
    assert all(c.score >= ev.STRONG_SCORE for c in strong)
    assert all(ev.WEAK_SCORE <= c.score < ev.STRONG_SCORE for c in weak)


def test_where_hint_breaks_ties():
    data = b"def handler(request):\n    return respond(request, 1)\n\n" * 50
    old = "def handler(request):\n    return respond(request, 2)\n"
    cands = find_candidates(data, old, "h.py", hint_line=3 * 30 + 1)
    assert cands[0].line == 91


def test_nothing_similar_gives_no_candidates():
    assert find_candidates(b"alpha\nbeta\n", "zzzzzz qqqqqq\n", "a") == ()
    assert find_candidates(b"", "x\n", "a") == ()


def test_long_lines_are_cut_in_the_excerpt():
    data = ("x = '" + "y" * 500 + "'\n").encode()
    (cand,) = find_candidates(data, "x = '" + "y" * 499 + "z'\n", "a")
    assert len(cand.excerpt) == ev.EXCERPT_CHARS and cand.excerpt.endswith("\u2026")


def test_ten_megabyte_file_is_searched_quickly():
    data = numbered_functions(200_000)[:LARGE_FILE_BYTES]
    assert len(data) > LARGE_FILE_BYTES * 0.9
    started = time.perf_counter()
    cands = find_candidates(data, "def handler_123456(request):\n    return respond(request, code=123457)\n",
                            "big.py")
    elapsed = time.perf_counter() - started
    assert cands[0].line == 123456 * 3 + 1
    assert elapsed < LARGE_FILE_SECONDS, elapsed


def test_repair_text_shows_candidates_and_current_source(tmp_path):
    (tmp_path / "a.py").write_bytes(b"import os\n\ndef f():\n    return os.getcwd()\n")
    report = validate_plan(parse_plan(plan_text(block(1, "a.py", "def f():\n    return os.getcwdb()\n", "x\n"))),
                           tmp_path)
    (err,) = report.errors
    assert isinstance(err, AnchorNotFound)
    text = format_failures_for_repair(report.errors, tmp_path)
    assert text.splitlines()[0] == "- AnchorNotFound in EDIT 1: `old` does not occur in a.py; nearest: a.py:3 (0.98)"
    assert "  candidate a.py:3 score 0.98 (strong)" in text
    assert "current source of a.py around line 3:" in text
    assert "4 |     return os.getcwd()" in text


def test_repair_text_reads_the_current_source_not_the_stale_evidence(tmp_path):
    (tmp_path / "a.py").write_bytes(b"def f():\n    return 1\n")
    report = validate_plan(parse_plan(plan_text(block(1, "a.py", "def f():\n    return 2\n", "x\n"))), tmp_path)
    (tmp_path / "a.py").write_bytes(b"def f():\n    return 42\n")
    assert "2 |     return 42" in format_failures_for_repair(report.errors, tmp_path)


def test_repair_text_is_empty_without_errors(tmp_path):
    assert format_failures_for_repair([], tmp_path) == ""


def test_anchor_in_another_file_of_the_plan_is_offered(tmp_path):
    (tmp_path / "a.py").write_bytes(b"x = 1\n")
    (tmp_path / "b.py").write_bytes(b"import os\n\ndef helper():\n    return os.sep\n")
    text = plan_text(block(1, "b.py", "import os\n", "import os.path\n"),
                     block(2, "a.py", "def helper():\n    return os.sep\n", "y\n"))
    (err,) = validate_plan(parse_plan(text), tmp_path).errors
    assert err.message == "`old` does not occur in a.py; nearest: b.py:3 (1.00)"
    assert (err.candidates[0].file, err.candidates[0].line, err.candidates[0].strength) == ("b.py", 3, "strong")
