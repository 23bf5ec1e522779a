"""Undo step by step: every apply is kept (the newest ``MAX_KEPT_GROUPS``), each undo says how many remain, the
question names what happens to each file, and the safety of undo holds at every step."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.edits import journal as J
from ljtui.core.edits import journal_kept as K
from ljtui.core.edits.transaction import apply_changes
from ljtui.core.edits.undo import undo_last, undo_preview
from ljtui.core.review.events import remaining_line
from ljtui.core.edits.validate import FileChange


def write(root: Path, path: str, after: bytes | None, group: str | None = None):
    """One apply of ``path`` through the transaction (``after=None`` deletes it)."""
    target = root / path
    before = target.read_bytes() if target.exists() else None
    return apply_changes(root, [FileChange(path, target, before, after)], group=group)


def test_three_applies_are_undone_one_at_a_time_saying_how_many_remain(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"0\n")
    for n in (1, 2, 3):
        assert write(tmp_path, "a.py", f"{n}\n".encode()).ok
    seen = []
    for _ in range(3):
        outcome = undo_last(tmp_path)
        assert outcome.ok
        seen.append(((tmp_path / "a.py").read_bytes(), outcome.remaining, remaining_line(outcome.remaining)))
    assert seen == [(b"2\n", 2, "2 more steps can be undone"), (b"1\n", 1, "1 more step can be undone"),
                    (b"0\n", 0, "no earlier apply is kept to undo")]
    assert undo_last(tmp_path).error.message == "nothing to undo: no applied plan is kept in .agent/journal"


def test_an_earlier_step_is_refused_when_its_file_changed_since_and_nothing_is_written(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"0\n")
    write(tmp_path, "a.py", b"1\n")
    write(tmp_path, "b.py", b"b\n")
    assert undo_last(tmp_path).ok and not (tmp_path / "b.py").exists()
    (tmp_path / "a.py").write_bytes(b"by hand\n")
    refused = undo_last(tmp_path)
    assert refused.error.message == "refusing to undo: changed since the apply: a.py; nothing was written"
    assert (tmp_path / "a.py").read_bytes() == b"by hand\n" and len(J.kept(tmp_path)) == 1


def test_a_malformed_earlier_snapshot_is_quarantined_and_the_newer_steps_still_undo(tmp_path: Path) -> None:
    write(tmp_path, "a.py", b"1\n")
    older = J.kept(tmp_path)[0]
    write(tmp_path, "b.py", b"2\n")
    (older / J.MANIFEST).write_text("{ not json")
    refused = undo_last(tmp_path)
    assert refused.error is not None and "is refused" in refused.error.message and refused.quarantined
    assert (tmp_path / "b.py").exists() and (tmp_path / "a.py").exists()
    again = undo_last(tmp_path)
    assert again.ok and again.remaining == 0 and not (tmp_path / "b.py").exists()


def test_only_the_newest_groups_are_kept_and_the_pruning_is_said(tmp_path: Path) -> None:
    for n in range(K.MAX_KEPT_GROUPS):
        assert not write(tmp_path, "a.py", f"{n}\n".encode()).notes
    outcome = write(tmp_path, "a.py", b"last\n")
    assert outcome.notes == ["the oldest undo step was dropped: at most 50 applies are kept for undo and rewind"]
    assert len(K.kept_groups(J.scan_kept(tmp_path)[0])) == K.MAX_KEPT_GROUPS
    assert undo_last(tmp_path).remaining == K.MAX_KEPT_GROUPS - 1


def test_the_question_says_delete_for_a_created_file_and_restore_for_the_others(tmp_path: Path) -> None:
    (tmp_path / "b.py").write_bytes(b"b\n")
    (tmp_path / "c.py").write_bytes(b"c\n")
    root = tmp_path.resolve()
    changes = [FileChange("a.py", root / "a.py", None, b"new\n"), FileChange("b.py", root / "b.py", b"b\n", b"B\n"),
               FileChange("c.py", root / "c.py", b"c\n", None)]
    assert apply_changes(tmp_path, changes).ok
    assert undo_preview(tmp_path).file_lines() == [
        "  delete a.py (created by the apply)", "  restore b.py", "  recreate c.py (deleted by the apply)"]
    outcome = undo_last(tmp_path)
    assert outcome.ok and outcome.removed == ["a.py"]
    assert not (tmp_path / "a.py").exists() and (tmp_path / "c.py").read_bytes() == b"c\n"
