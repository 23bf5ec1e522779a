"""Applying whole plans: entries, partial mode, chunking, undo, result building."""

from __future__ import annotations

import os

from ljtui.core.edits import journal as J
from ljtui.core.edits.apply import chunk_entries, clamp_chunk_size, dry_run_result, preview_plan
from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.edits.progress import Step
from ljtui.core.edits.recovery import undo_last
from ljtui.core.edits.result import emit
from ljtui.core.ports import FixedClock
from tests.core.edits.helpers import apply_text, block, id_factory, plan_text

ENTRY_COUNT = 7


def entry_plan(bad: set[int] = frozenset()) -> str:
    blocks = []
    for i in range(ENTRY_COUNT):
        old = "missing\n" if i in bad else f"v{i} = 0\n"
        blocks.append(block(2 * i + 1, f"f{i}.py", old, f"v{i} = 1\n", entry=f"e{i}"))
        blocks.append(block(2 * i + 2, "shared.py", f"s{i} = 0\n", f"s{i} = 1\n", entry=f"e{i}"))
    return plan_text(*blocks)


def entry_repo(root):
    for i in range(ENTRY_COUNT):
        (root / f"f{i}.py").write_bytes(f"v{i} = 0\n".encode())
    (root / "shared.py").write_bytes("".join(f"s{i} = 0\n" for i in range(ENTRY_COUNT)).encode())


def test_chunks_never_split_entries_and_clamp():
    plan = parse_plan(entry_plan())
    chunks = chunk_entries(plan.entries, 3)
    assert [[e.id for e in c] for c in chunks] == [["e0", "e1", "e2"], ["e3", "e4", "e5"], ["e6"]]
    assert all(len(e.blocks) == 2 for c in chunks for e in c)
    assert (clamp_chunk_size(0), clamp_chunk_size(7), clamp_chunk_size(99)) == (1, 7, 20)
    assert len(chunk_entries(plan.entries, 0)) == ENTRY_COUNT


def test_all_or_nothing_plan_with_one_bad_entry_writes_nothing(tmp_path):
    entry_repo(tmp_path)
    report = apply_text(entry_plan(bad={4}), tmp_path)
    result = report.result
    assert result.status == "error" and result.applied_entry_ids == [] and result.files == []
    assert result.message == "7 of 7 entries failed; nothing was written"
    reasons = {f.entry_id: f.reason for f in result.failed}
    assert reasons["e4"].startswith("AnchorNotFound: block 9: `old` does not occur in f4.py")
    assert reasons["e0"] == "EntryNotApplied: the plan is all or nothing and another entry failed"
    assert (tmp_path / "shared.py").read_bytes().startswith(b"s0 = 0\n")
    assert result.exit_code == 2
    emit(result, parse_plan(entry_plan()).entry_ids)


def test_partial_applies_good_entries_only_in_chunks_with_progress(tmp_path):
    entry_repo(tmp_path)
    said: list[Step] = []
    report = apply_text(entry_plan(bad={1, 4}), tmp_path, partial=True, say=said.append)
    result = report.result
    assert result.status == "partial" and result.exit_code == 1
    assert result.applied_entry_ids == ["e0", "e2", "e3", "e5", "e6"]
    assert [f.entry_id for f in result.failed] == ["e1", "e4"]
    assert (tmp_path / "f1.py").read_bytes() == b"v1 = 0\n" and (tmp_path / "f2.py").read_bytes() == b"v2 = 1\n"
    shared = (tmp_path / "shared.py").read_bytes().decode().splitlines()
    assert shared == ["s0 = 1", "s1 = 0", "s2 = 1", "s3 = 1", "s4 = 0", "s5 = 1", "s6 = 1"]
    assert [(s.line, s.done, s.total) for s in said] == [
        ("validating chunk 1/3 (3 entries)", 0, 7), ("validating chunk 2/3 (3 entries)", 1, 7),
        ("validating chunk 3/3 (1 entries)", 2, 7), ("applying chunk 1/3 (2 entries, 3 files)", 3, 7),
        ("applying chunk 2/3 (2 entries, 3 files)", 4, 7), ("applying chunk 3/3 (1 entries, 2 files)", 5, 7),
        ("checking 6 files", 6, 7), ("", 7, 7)]
    assert report.transaction_ids == ["tx0001", "tx0002", "tx0003"]
    emit(result, parse_plan(entry_plan()).entry_ids)


def test_partial_with_every_entry_failing_is_an_error(tmp_path):
    entry_repo(tmp_path)
    result = apply_text(entry_plan(bad=set(range(ENTRY_COUNT))), tmp_path, partial=True).result
    assert result.status == "error" and len(result.failed) == ENTRY_COUNT


def test_failed_entry_carries_candidates(tmp_path):
    (tmp_path / "a.py").write_bytes(b"def f():\n    return 1\n")
    result = apply_text(plan_text(block(1, "a.py", "def f():\n    return 2\n", "x\n")), tmp_path).result
    assert result.failed[0].candidates[0]["line"] == 1
    assert emit(result, ("plan",))["failed"][0]["candidates"][0]["file"] == "a.py"


def test_dry_run_writes_nothing_and_reports_would_be_result(tmp_path):
    entry_repo(tmp_path)
    preview = preview_plan(parse_plan(entry_plan(bad={2})), tmp_path, partial=True)
    result = dry_run_result(preview)
    assert result.status == "partial" and "e2" not in result.applied_entry_ids
    assert result.files == [] and result.notes == ["dry run: nothing was written"]
    assert not (tmp_path / ".agent").exists()
    assert (tmp_path / "f0.py").read_bytes() == b"v0 = 0\n"
    assert [c.path for c in preview.changes] == ["f0.py", "shared.py", "f1.py", "f3.py", "f4.py", "f5.py", "f6.py"]


def test_post_apply_checks_are_reported_per_file(tmp_path):
    (tmp_path / "a.py").write_bytes(b"x = 1\n")
    text = plan_text(block(1, "a.py", "x = 1\n", "x = (\n"), block(2, "c.json", "", '{"a": 1}\n'))
    result = apply_text(text, tmp_path).result
    assert result.status == "done"
    assert result.checks == [
        {"file": "a.py", "checker": "python", "ok": False, "message": "line 1: '(' was never closed"},
        {"file": "c.json", "checker": "json", "ok": True, "message": ""}]
    assert result.notes == ["syntax check failed: a.py (python): line 1: '(' was never closed; "
                            "`ljtui undo` reverts the apply"]
    assert not (tmp_path / "__pycache__").exists()


def test_undo_restores_bytes_modes_and_removes_created_files(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a = 1\r\n")
    os.chmod(tmp_path / "a.py", 0o754)
    apply_text(plan_text(block(1, "a.py", "a = 1\n", "a = 2\n"), block(2, "pkg/n.py", "", "n\n")), tmp_path)
    assert (tmp_path / "a.py").read_bytes() == b"a = 2\r\n"
    outcome = undo_last(tmp_path, clock=FixedClock(), new_id=id_factory())
    assert outcome.ok and sorted(outcome.files) == ["a.py", "pkg/n.py"] and outcome.entries == ["plan"]
    assert (tmp_path / "a.py").read_bytes() == b"a = 1\r\n" and os.stat(tmp_path / "a.py").st_mode & 0o777 == 0o754
    assert not (tmp_path / "pkg").exists()
    assert J.kept(tmp_path) == [] and J.pending(tmp_path) == []
    again = undo_last(tmp_path)
    assert again.error is not None
    assert again.error.message == "nothing to undo: no applied plan is kept in .agent/journal"


def test_undo_refuses_when_a_file_changed_since(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a = 1\n")
    (tmp_path / "b.py").write_bytes(b"b = 1\n")
    apply_text(plan_text(block(1, "a.py", "a = 1\n", "a = 2\n"), block(2, "b.py", "b = 1\n", "b = 2\n")), tmp_path)
    (tmp_path / "b.py").write_bytes(b"b = 3\n")
    outcome = undo_last(tmp_path)
    assert outcome.error is not None and outcome.error.kind == "UndoRefused"
    assert outcome.error.message == "refusing to undo: changed since the apply: b.py; nothing was written"
    assert (tmp_path / "a.py").read_bytes() == b"a = 2\n"
    assert len(J.kept(tmp_path)) == 1


def test_every_apply_is_kept_and_undone_one_at_a_time(tmp_path):
    (tmp_path / "a.py").write_bytes(b"1\n")
    ids = id_factory()
    apply_text(plan_text(block(1, "a.py", "1\n", "2\n")), tmp_path, new_id=ids)
    apply_text(plan_text(block(1, "a.py", "2\n", "3\n")), tmp_path, new_id=ids)
    assert [p.name for p in J.kept(tmp_path)] == ["last-tx0002", "last-tx0001"]
    first = undo_last(tmp_path)
    assert first.ok and first.remaining == 1 and (tmp_path / "a.py").read_bytes() == b"2\n"
    second = undo_last(tmp_path)
    assert second.ok and second.remaining == 0 and (tmp_path / "a.py").read_bytes() == b"1\n"


def test_partial_chunk_that_fails_to_write_fails_only_its_entries(tmp_path):
    entry_repo(tmp_path)
    # The second chunk's transaction (tx0002) cannot create its temp file for f3.py.
    (tmp_path / J.temp_name("f3.py", "tx0002", 1)).mkdir()
    result = apply_text(entry_plan(), tmp_path, partial=True).result
    assert result.status == "partial" and result.applied_entry_ids == ["e0", "e1", "e2"]
    reasons = {f.entry_id: f.reason for f in result.failed}
    assert reasons["e3"].startswith("WriteFailed: ") and reasons["e5"].startswith("WriteFailed: ")
    assert reasons["e6"] == ("StalePlan: shared.py changed on disk since the plan was validated; "
                             "re-validate before applying")
    assert (tmp_path / "f3.py").read_bytes() == b"v3 = 0\n" and (tmp_path / "f6.py").read_bytes() == b"v6 = 0\n"
    assert (tmp_path / "f2.py").read_bytes() == b"v2 = 1\n"


def test_plan_that_changes_no_bytes_is_done_without_a_journal(tmp_path):
    (tmp_path / "a.py").write_bytes(b"same\n")
    result = apply_text(plan_text(block(1, "a.py", "same\n", "same\n")), tmp_path).result
    assert (result.status, result.applied_entry_ids, result.files) == ("done", ["plan"], [])
    assert not (tmp_path / ".agent").exists()


def test_undo_reverts_every_chunk_of_a_partial_plan(tmp_path):
    entry_repo(tmp_path)
    original = {p.name: p.read_bytes() for p in tmp_path.glob("*.py")}
    report = apply_text(entry_plan(bad={1}), tmp_path, partial=True)
    assert len(report.transaction_ids) == 3 and len(J.kept(tmp_path)) == 3
    outcome = undo_last(tmp_path, clock=FixedClock(), new_id=id_factory())
    assert outcome.ok and outcome.entries == ["e0", "e2", "e3", "e4", "e5", "e6"]
    assert {p.name: p.read_bytes() for p in tmp_path.glob("*.py")} == original
    assert J.kept(tmp_path) == []


def test_a_new_plan_keeps_the_chunks_of_the_previous_one_as_an_earlier_step(tmp_path):
    entry_repo(tmp_path)
    ids = id_factory()
    apply_text(entry_plan(), tmp_path, partial=True, new_id=ids)
    (tmp_path / "z.py").write_bytes(b"z\n")
    apply_text(plan_text(block(1, "z.py", "z\n", "Z\n")), tmp_path, new_id=ids)
    assert [p.name for p in J.kept(tmp_path)][0] == "last-tx0004" and len(J.kept(tmp_path)) == 4
    assert undo_last(tmp_path).remaining == 1
