"""The journaled transaction: atomic writes, rollback, staleness, locking, recovery."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits.apply import commit_plan, preview_plan
from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.edits.recovery import recover_journal, undo_last
from ljtui.core.edits.transaction import apply_changes
from ljtui.core.edits.validate import FileChange
from ljtui.core.ports import FixedClock
from tests.core.edits.lock_holder import held_by_another_process
from tests.core.edits.helpers import apply_text, block, id_factory, interrupted_transaction, plan_text

FIXED_START = 1_800_000_000.0


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def three_files(root: Path) -> dict[str, bytes]:
    files = {"a.py": b"a = 1\n", "b.py": b"b = 1\n", "c.py": b"c = 1\n"}
    for name, data in files.items():
        (root / name).write_bytes(data)
    return files


def three_blocks() -> str:
    return plan_text(*(block(n, f"{x}.py", f"{x} = 1\n", f"{x} = 2\n") for n, x in enumerate("abc", start=1)))


def test_apply_writes_keeps_mode_and_keeps_a_snapshot(tmp_path):
    three_files(tmp_path)
    os.chmod(tmp_path / "b.py", 0o751)
    report = apply_text(three_blocks() + "", tmp_path)
    assert report.result.status == "done" and report.result.files == ["a.py", "b.py", "c.py"]
    assert (tmp_path / "b.py").read_bytes() == b"b = 2\n" and mode_of(tmp_path / "b.py") == 0o751
    journal = J.journal_dir(tmp_path)
    assert sorted(p.name for p in journal.iterdir()) == [".lock", "last-tx0001"]
    manifest = json.loads((journal / "last-tx0001" / J.MANIFEST).read_text())
    assert (manifest["id"], manifest["created"], manifest["kind"]) == ("tx0001", FIXED_START, "apply")
    assert [f["path"] for f in manifest["files"]] == ["a.py", "b.py", "c.py"]
    assert not list(tmp_path.glob(J.TEMP_GLOB))


def test_new_file_gets_umask_mode_and_parent_dirs(tmp_path):
    old_umask = os.umask(0o027)
    try:
        report = apply_text(plan_text(block(1, "pkg/sub/n.py", "", "x = 1\n")), tmp_path)
    finally:
        os.umask(old_umask)
    assert report.result.status == "done"
    assert mode_of(tmp_path / "pkg/sub/n.py") == 0o640


def test_agent_gitignore_is_written_and_completed(tmp_path):
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / ".gitignore").write_text("custom/\nsessions/")
    apply_text(plan_text(block(1, "n.py", "", "x\n")), tmp_path)
    assert (tmp_path / ".agent" / ".gitignore").read_text() == ("custom/\nsessions/\n.gitignore\njournal/\nworkspace/\n"
                                                                "plans/\ncache/\nevents.jsonl\n.*.tmp\n")
    J.ensure_agent_gitignore(tmp_path)
    assert (tmp_path / ".agent" / ".gitignore").read_text().count("journal/") == 1


def test_third_file_failing_leaves_first_two_untouched(tmp_path):
    files = three_files(tmp_path)
    inodes = {name: os.stat(tmp_path / name).st_ino for name in files}
    # A directory squatting on the third file's temp name makes its write fail for real.
    (tmp_path / J.temp_name("c.py", "tx0001", 2)).mkdir()
    report = apply_text(three_blocks(), tmp_path)
    assert report.result.status == "error"
    (err,) = report.errors
    assert isinstance(err, E.WriteFailed) and err.message.endswith("; every file was rolled back")
    assert report.result.failed[0].reason.startswith("WriteFailed: ")
    for name, data in files.items():
        assert (tmp_path / name).read_bytes() == data
        assert os.stat(tmp_path / name).st_ino == inodes[name]
    assert [p.name for p in J.journal_dir(tmp_path).iterdir()] == [".lock"]
    assert report.result.files == []


def test_created_files_and_dirs_are_removed_on_rollback(tmp_path):
    (tmp_path / "b.py").write_bytes(b"b = 1\n")
    (tmp_path / J.temp_name("b.py", "tx0001", 1)).mkdir()
    report = apply_text(plan_text(block(1, "new/dir/n.py", "", "n\n"), block(2, "b.py", "b = 1\n", "b = 2\n")), tmp_path)
    assert report.result.status == "error"
    assert not (tmp_path / "new").exists()


def test_stale_target_is_refused_and_nothing_written(tmp_path):
    three_files(tmp_path)
    preview = preview_plan(parse_plan(three_blocks()), tmp_path)
    (tmp_path / "b.py").write_bytes(b"b = 1  # edited meanwhile\n")
    report = commit_plan(preview, tmp_path, clock=FixedClock(), new_id=id_factory())
    (err,) = report.errors
    assert isinstance(err, E.StalePlan)
    assert err.message == "b.py changed on disk since the plan was validated; re-validate before applying"
    assert (tmp_path / "a.py").read_bytes() == b"a = 1\n"
    assert report.result.status == "error"


def test_an_apply_while_another_process_holds_the_lock_is_refused_naming_it(tmp_path):
    three_files(tmp_path)
    with held_by_another_process(tmp_path) as pid:
        report = apply_text(three_blocks(), tmp_path)
    (err,) = report.errors
    assert isinstance(err, E.ApplyInProgress)
    assert err.message == (f"another ljtui process (pid {pid}) is applying in this repository; "
                           "try again when it finishes")
    assert (tmp_path / "a.py").read_bytes() == b"a = 1\n"


class NeverReadsBack(bytes):
    """Bytes the transaction writes but never finds equal when it verifies them."""

    def __ne__(self, other: object) -> bool:
        return True


def test_verify_failure_rolls_back(tmp_path):
    real = tmp_path / "a.py"
    real.write_bytes(b"a\n")
    changes = [FileChange("a.py", real, b"a\n", NeverReadsBack(b"first\n"))]
    outcome = apply_changes(tmp_path, changes, clock=FixedClock(), new_id=id_factory())
    assert isinstance(outcome.error, E.VerifyFailed)
    assert outcome.error.message == "a.py did not read back as written; every file was rolled back"
    assert real.read_bytes() == b"a\n"


def test_recovery_restores_every_file_after_a_crash_after_writes(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a\n")
    os.chmod(tmp_path / "a.py", 0o700)
    changes = [FileChange("a.py", tmp_path / "a.py", b"a\n", b"A\n"),
               FileChange("d/n.py", tmp_path / "d" / "n.py", None, b"n\n")]
    interrupted_transaction(tmp_path, changes)
    assert (tmp_path / "a.py").read_bytes() == b"A\n"
    report = recover_journal(tmp_path)
    assert report.transactions == [("tx0001", [("d/n.py", "removed"), ("a.py", "restored")])]
    assert report.summary() == ["ljtui: recovered unfinished apply tx0001: every file is back to its pre-apply bytes",
                                "  removed: d/n.py", "  restored: a.py"]
    assert (tmp_path / "a.py").read_bytes() == b"a\n" and mode_of(tmp_path / "a.py") == 0o700
    assert not (tmp_path / "d").exists()
    assert J.pending(tmp_path) == []
    assert recover_journal(tmp_path).summary() == []


def test_recovery_discards_a_journal_without_manifest(tmp_path):
    (J.journal_dir(tmp_path) / "tx-half" / J.BLOBS).mkdir(parents=True)
    report = recover_journal(tmp_path)
    assert report.transactions == [] and J.pending(tmp_path) == []


def test_recovery_quarantines_a_damaged_snapshot_and_writes_nothing(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a\n")
    tx = interrupted_transaction(tmp_path, [FileChange("a.py", tmp_path / "a.py", b"a\n", b"A\n")])
    (tx.dir / J.BLOBS / "0").write_bytes(b"garbage\n")
    report = recover_journal(tmp_path)
    assert report.errors == [
        "journal tx-tx0001 is refused: cannot restore a.py: blobs/0 (the snapshot of a.py) does not hold the bytes "
        "its before_sha256 names (missing or damaged); moved to .agent/journal/quarantine-tx-tx0001, "
        "nothing was written"]
    assert report.summary() == [f"ljtui: recovery failed: {report.errors[0]}"]
    assert (tmp_path / "a.py").read_bytes() == b"A\n"
    assert J.pending(tmp_path) == []
    moved = J.journal_dir(tmp_path) / "quarantine-tx-tx0001"
    assert (moved / J.BLOBS / "0").read_bytes() == b"garbage\n" and (moved / J.MANIFEST).is_file()
    assert recover_journal(tmp_path).summary() == []


def test_recovery_skips_while_another_process_applies(tmp_path):
    (J.journal_dir(tmp_path) / "tx-busy").mkdir(parents=True)
    with held_by_another_process(tmp_path) as pid:
        report = recover_journal(tmp_path)
    assert report.skipped == f"another ljtui process (pid {pid}) is applying; recovery skipped"
    assert report.summary() == [f"ljtui: another ljtui process (pid {pid}) is applying; recovery skipped"]


def test_recovery_without_journal_is_a_no_op(tmp_path):
    report = recover_journal(tmp_path)
    assert report.summary() == [] and not (tmp_path / ".agent").exists()


def test_recovery_reports_an_unusable_journal(tmp_path):
    journal = J.journal_dir(tmp_path)
    (journal / "tx-x").mkdir(parents=True)
    (journal / J.LOCK_NAME).mkdir()
    report = recover_journal(tmp_path)
    assert report.errors == [f"cannot open the journal: [Errno 21] Is a directory: '.agent/journal/{J.LOCK_NAME}'"]


def test_half_deleted_finished_journal_is_swept_not_recovered(tmp_path):
    journal = J.journal_dir(tmp_path)
    (journal / "done-tx-old" / J.BLOBS).mkdir(parents=True)
    (journal / "done-tx-old" / J.MANIFEST).write_text("{}")
    (journal / "tx-new").mkdir()
    report = recover_journal(tmp_path)
    assert report.errors == [] and report.transactions == []
    assert sorted(p.name for p in journal.iterdir()) == [J.LOCK_NAME]


def test_agent_that_is_a_file_is_refused_by_name(tmp_path):
    (tmp_path / ".agent").write_text("not a directory")
    (tmp_path / "a.py").write_bytes(b"a\n")
    outcome = apply_changes(tmp_path, [FileChange("a.py", tmp_path / "a.py", b"a\n", b"b\n")])
    assert isinstance(outcome.error, E.StateDirRefused)
    assert outcome.error.message == (
        ".agent is not a folder; ljtui keeps its state only in real folders and files inside the repository and "
        "writes nothing through it: remove or rename .agent, then run ljtui again")
    assert (tmp_path / ".agent").read_text() == "not a directory"
    assert (tmp_path / "a.py").read_bytes() == b"a\n"


class InterruptOnCompare(bytes):
    """Bytes that raise KeyboardInterrupt when the transaction verifies them."""

    def __ne__(self, other: object) -> bool:
        raise KeyboardInterrupt


def test_interrupt_during_verify_rolls_back_then_propagates(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a\n")
    (tmp_path / "b.py").write_bytes(b"b\n")
    changes = [FileChange("a.py", tmp_path / "a.py", b"a\n", b"A\n"),
               FileChange("b.py", tmp_path / "b.py", b"b\n", InterruptOnCompare(b"B\n"))]
    with pytest.raises(KeyboardInterrupt):
        apply_changes(tmp_path, changes, clock=FixedClock(), new_id=id_factory())
    assert (tmp_path / "a.py").read_bytes() == b"a\n" and (tmp_path / "b.py").read_bytes() == b"b\n"
    assert J.pending(tmp_path) == []


def test_unexpected_exception_while_snapshotting_leaves_no_journal(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a\n")
    changes = [FileChange("a.py", tmp_path / "a.py", b"a\n", "not bytes")]  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        apply_changes(tmp_path, changes, clock=FixedClock(), new_id=id_factory())
    assert (tmp_path / "a.py").read_bytes() == b"a\n" and J.pending(tmp_path) == []


def test_unreachable_target_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "file").write_bytes(b"")
    outcome = apply_changes(tmp_path, [FileChange("file/x", tmp_path / "file" / "x", b"a\n", b"b\n")])
    assert isinstance(outcome.error, E.NotAFile)
    assert outcome.error.message == "file/x: a parent of this path is a file"
    assert J.pending(tmp_path) == []


class DamageSnapshotOnVerify(bytes):
    """Bytes whose verification damages the journal's snapshot, then reports a mismatch."""

    blob: Path

    def __ne__(self, other: object) -> bool:
        self.blob.write_bytes(b"damaged\n")
        return True


def test_failed_rollback_keeps_the_journal_for_recover(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a\n")
    after = DamageSnapshotOnVerify(b"A\n")
    after.blob = J.journal_dir(tmp_path) / "tx-tx0001" / J.BLOBS / "0"
    outcome = apply_changes(tmp_path, [FileChange("a.py", tmp_path / "a.py", b"a\n", after)],
                            clock=FixedClock(), new_id=id_factory())
    assert isinstance(outcome.error, E.WriteFailed)
    assert outcome.error.message == (
        "a.py did not read back as written; rollback incomplete (cannot restore a.py: blobs/0 (the snapshot of "
        "a.py) does not hold the bytes its before_sha256 names (missing or damaged)); "
        "the journal is kept: run `ljtui recover`")
    assert [p.name for p in J.pending(tmp_path)] == ["tx-tx0001"]


def test_recovery_keeps_every_kept_chunk_of_the_last_plan(tmp_path):
    """A crash before a new plan commits anything leaves the previous plan's chunks all undoable."""
    for name in ("a.py", "b.py", "c.py", "d.py"):
        (tmp_path / name).write_bytes(b"1\n")
    ids = id_factory()
    chunks = plan_text(*(block(n, f"{x}.py", "1\n", "2\n", entry=x) for n, x in enumerate("abc", start=1)))
    assert len(apply_text(chunks, tmp_path, partial=True, chunk_size=1, new_id=ids).transaction_ids) == 3
    interrupted_transaction(tmp_path, [FileChange("d.py", tmp_path / "d.py", b"1\n", b"2\n")])
    assert recover_journal(tmp_path).transactions == [("tx0001", [("d.py", "restored")])]
    assert len(J.kept(tmp_path)) == 3
    outcome = undo_last(tmp_path, clock=FixedClock(), new_id=ids)
    assert outcome.ok and sorted(outcome.files) == ["a.py", "b.py", "c.py"]
    assert {p.name: p.read_bytes() for p in tmp_path.glob("*.py")} == dict.fromkeys(("a.py", "b.py", "c.py", "d.py"),
                                                                                     b"1\n")
