"""``ljtui apply --dry-run`` prints the bytes the apply would write: undecodable bytes, controls, line endings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.core.edits.diff_reader import rebuild
from tests.core.edits.helpers import block, plan_text

LJTUI = str(Path(sys.executable).with_name("ljtui"))
DATA = b"\xff\xfe header\x1b[2K\r\nkeep\n"


def test_dry_run_of_a_file_that_is_not_utf8_prints_its_lines(git_repo: Path) -> None:
    (git_repo / "data.bin").write_bytes(DATA)
    plan = git_repo.parent / "plan.md"
    plan.write_text(plan_text(block(1, "data.bin", "keep\n", "changed\n")), encoding="utf-8")
    done = subprocess.run([LJTUI, "apply", str(plan), "--dry-run"], cwd=git_repo, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "Binary file" not in done.stdout
    assert lines[-3:] == [" \\xff\\xfe header\\x1b[2K␍", "-keep", "+changed"]
    assert rebuild(DATA, lines) == b"\xff\xfe header\x1b[2K\r\nchanged\n"
    assert (git_repo / "data.bin").read_bytes() == DATA
