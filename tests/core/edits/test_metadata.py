"""A rewritten file keeps what its old inode carried, and long names never break the journal.

Runs as root here (owner and group can be set to anything); the
extended-attribute test uses ``tmp_path``, whose filesystem (ext4 here)
supports ``user.*`` attributes.
"""

from __future__ import annotations

import os
import resource
import signal
import stat
from pathlib import Path

from ljtui.core.edits import journal as J
from ljtui.core.edits.apply import commit_plan, preview_plan
from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.edits.recovery import undo_last
from ljtui.core.edits.transaction import apply_changes
from ljtui.core.edits.validate import FileChange
from ljtui.core.ports import FixedClock
from tests.core.edits.helpers import apply_text, block, id_factory, plan_text
from tests.core.edits.journal_helpers import ljtui, manifest, record, write_journal

OWNER, GROUP = 1234, 5678
SET_ID_MODE = 0o6755
XATTR, XATTR_VALUE = "user.ljtui.origin", b"downloaded from the web"
NAME_MAX = 255
LONG_NAME = "n" * (NAME_MAX - len(".py")) + ".py"
SIZE_LIMIT = 64 * 1024
"""RLIMIT_FSIZE of the process that is made to fail: far above the journal's own writes."""
BIG = b"#" * (4 * SIZE_LIMIT) + b"\n"


def test_owner_group_and_set_id_bits_are_kept(tmp_path):
    target = tmp_path / "a.py"
    target.write_bytes(b"a\n")
    os.chown(target, OWNER, GROUP)
    os.chmod(target, SET_ID_MODE)
    assert apply_text(plan_text(block(1, "a.py", "a\n", "b\n")), tmp_path).result.status == "done"
    st = os.stat(target)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (OWNER, GROUP, SET_ID_MODE)
    assert target.read_bytes() == b"b\n"


def test_extended_attributes_are_kept(tmp_path):
    target = tmp_path / "a.py"
    target.write_bytes(b"a\n")
    os.setxattr(target, XATTR, XATTR_VALUE)
    assert apply_text(plan_text(block(1, "a.py", "a\n", "b\n")), tmp_path).result.status == "done"
    assert os.getxattr(target, XATTR) == XATTR_VALUE and target.read_bytes() == b"b\n"


def test_a_hard_linked_file_is_written_atomically_and_reported(tmp_path):
    target, other = tmp_path / "a.py", tmp_path / "b.py"
    target.write_bytes(b"a\n")
    os.link(target, other)
    outcome = apply_changes(tmp_path, [FileChange("a.py", target, b"a\n", b"A\n")], clock=FixedClock(),
                            new_id=id_factory())
    assert outcome.ok and outcome.notes == [
        "a.py had 2 hard links: the other links keep the old content (the new content was written to a new file "
        "in its place)"]
    assert target.read_bytes() == b"A\n" and other.read_bytes() == b"a\n"
    other.write_bytes(b"the other link, edited\n")
    assert undo_last(tmp_path, clock=FixedClock(), new_id=id_factory()).ok
    assert target.read_bytes() == b"a\n"


def test_a_file_with_a_255_byte_name_is_applied_and_undone(tmp_path):
    (tmp_path / LONG_NAME).write_bytes(b"x = 1\n")
    report = apply_text(plan_text(block(1, LONG_NAME, "x = 1\n", "x = 2\n"), block(2, "d/" + LONG_NAME, "", "n\n")),
                        tmp_path)
    assert report.result.status == "done", report.errors
    assert (tmp_path / LONG_NAME).read_bytes() == b"x = 2\n"
    outcome = undo_last(tmp_path, clock=FixedClock(), new_id=id_factory())
    assert outcome.ok, outcome.error
    assert (tmp_path / LONG_NAME).read_bytes() == b"x = 1\n" and not (tmp_path / "d").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".agent", LONG_NAME]


def killed_while_writing(repo: Path, text: str) -> int:
    """Commit ``text`` in a child whose file-size limit kills it inside the write of a big file."""
    preview = preview_plan(parse_plan(text), repo)
    assert preview.ok
    pid = os.fork()
    if pid == 0:
        try:
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
            resource.setrlimit(resource.RLIMIT_FSIZE, (SIZE_LIMIT, SIZE_LIMIT))
            commit_plan(preview, repo, run_checks=False)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0


def test_a_write_failure_mid_apply_leaves_a_journal_that_recover_finishes(tmp_path):
    old = {LONG_NAME: b"x = 1\n", "big.txt": b"small\n"}
    for name, data in old.items():
        (tmp_path / name).write_bytes(data)
    text = plan_text(block(1, LONG_NAME, "x = 1\n", "x = 2\n"), block(2, "new/" + LONG_NAME, "", "n\n"),
                     block(3, "big.txt", "small\n", BIG.decode()))
    assert killed_while_writing(tmp_path, text) == signal.SIGXFSZ
    assert (tmp_path / LONG_NAME).read_bytes() == b"x = 2\n" and len(J.pending(tmp_path)) == 1
    done = ljtui(tmp_path, "recover", "--repo", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[1:] == [f"  removed: new/{LONG_NAME}", f"  restored: {LONG_NAME}"]
    assert {name: (tmp_path / name).read_bytes() for name in old} == old
    assert not (tmp_path / "new").exists() and not list(tmp_path.rglob(J.TEMP_GLOB))
    assert J.pending(tmp_path) == []


def test_a_legacy_journal_whose_temp_name_is_too_long_is_recovered(tmp_path):
    """Journals of earlier versions named temps ``.<name>.<id>.ljtui-tmp``: too long for a 255-byte name."""
    (tmp_path / LONG_NAME).write_bytes(b"half-applied\n")
    rec = record(0, LONG_NAME, before=b"x = 1\n", after=b"half-applied\n", tx_id="0a1b",
                 temp=f".{LONG_NAME}.0a1b.ljtui-tmp")
    write_journal(tmp_path, "tx-0a1b", manifest("0a1b", [rec], version=1), {0: b"x = 1\n"})
    done = ljtui(tmp_path, "recover", "--repo", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == ["ljtui: recovered unfinished apply 0a1b: every file is back to its pre-apply "
                                        "bytes", f"  restored: {LONG_NAME}"]
    assert (tmp_path / LONG_NAME).read_bytes() == b"x = 1\n"
