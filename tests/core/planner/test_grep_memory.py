"""ripgrep runs within a memory bound; a search it cannot finish within it is done by the RE2 engine, never lost."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.planner.grep import GREP_MAX_FILE_BYTES, search

LINE_BYTES = GREP_MAX_FILE_BYTES - 1024 * 1024
"""Within the size limit (so it is searched), and four million matches: a JSON message of about 220 MB."""


def test_a_line_whose_every_byte_matches_is_found_when_ripgrep_runs_out_of_its_memory(tmp_path: Path) -> None:
    (tmp_path / "one-line.txt").write_bytes(b"a" * LINE_BYTES + b"\n")
    (tmp_path / "plain.txt").write_text("nothing here\n", encoding="utf-8")
    found = search("a", tmp_path, root=tmp_path)
    assert not found.error
    assert [(hit.path.name, hit.line) for hit in found.hits] == [("one-line.txt", 1)]
    assert found.engine == "re2", "ripgrep's JSON message for five million matches is past its bound"
