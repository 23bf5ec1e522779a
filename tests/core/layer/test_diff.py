"""The layer's change as a git diff: read back by ljtui's own reader and applied, it gives the layer's files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ljtui.core.edits.apply import apply_plan
from ljtui.core.edits.read_change import read_change
from ljtui.core.layer.diff import describe_whole, diff_text, quoted
from ljtui.core.layer.scan import CREATE, DELETE, MODIFY, MOVE
from tests.core.layer.helpers import add_files, change_of, files_of, kinds, layer_of, layer_view, run_ok, tree_of

TREE = {
    "plain.txt": "".join(f"line {n}\n" for n in range(1, 21)),
    "nofinal.txt": "first\nlast",
    "crlf.txt": "one\r\ntwo\r\nthree\r\n",
    "my notes.txt": "spaced\n",
    "café.txt": "accent\n",
    "feeds.txt": "page one\n\fpage two\nsep\u2028arated\nold\rmac\nend\n",
    "old name.txt": "moving along\n",
    "gone.txt": "bye\n",
    "dir/gone too.txt": "bye too\n",
    "run.sh": "echo run\n",
    "tool": "#!/bin/sh\n",
    "empty.txt": "",
    "mover.sh": "echo mover\n",
}

SCRIPT = r"""
set -e
sed -i 's/^line 10$/line ten/' plain.txt
printf 'first\nmiddle\nlast' > nofinal.txt
printf 'one\r\nTWO\r\nthree\r\n' > crlf.txt
echo 'more' >> 'my notes.txt'
printf 'accent\ngrave\n' > café.txt
printf 'page one\n\fpage 2\nsep\342\200\250arated\nold\rmac\nend\n' > feeds.txt
mv 'old name.txt' 'new home.txt'
rm gone.txt 'dir/gone too.txt'
chmod +x run.sh
chmod +x 'my notes.txt'
chmod -x tool
mkdir -p fresh/deep
echo 'made = 1' > fresh/deep/made.py
printf 'no break at the end' > fresh/nobreak.txt
printf 'a\r\nb\r\n' > fresh/crlf.txt
echo 'hello' > 'fresh/ünï cödé.txt'
echo 'quoted' > 'fresh/say "hi".txt'
printf '#!/bin/sh\n' > fresh/tool.sh && chmod +x fresh/tool.sh
: > fresh/empty.txt
rm empty.txt
mkdir bin && mv mover.sh bin/mover.sh && chmod +x bin/mover.sh
"""


@pytest.fixture
def repo(git_repo: Path) -> Path:
    return add_files(git_repo, TREE, executable=("tool",))


def test_quoted_names_are_as_git_writes_them() -> None:
    assert quoted("my notes.txt") == "my notes.txt"
    assert quoted("café.txt") == '"caf\\303\\251.txt"'
    assert quoted('say "hi"\\n') == '"say \\"hi\\"\\\\n"'
    assert quoted("tab\there") == '"tab\\there"'


def applied_copy(repo: Path, copy: Path, *, partial: bool) -> tuple[dict, dict]:
    """Run :data:`SCRIPT` in ``repo``'s layer, apply the layer's diff to a copy of the tree: the copy's files and
    the layer's."""
    layer = layer_of(repo)
    run_ok(layer, SCRIPT)
    change = change_of(layer)
    assert kinds(change) == {
        "plain.txt": MODIFY, "nofinal.txt": MODIFY, "crlf.txt": MODIFY, "my notes.txt": MODIFY, "café.txt": MODIFY,
        "feeds.txt": MODIFY, "new home.txt": MOVE, "gone.txt": DELETE, "dir/gone too.txt": DELETE, "run.sh": MODIFY,
        "tool": MODIFY, "fresh/deep/made.py": CREATE, "fresh/nobreak.txt": CREATE, "fresh/crlf.txt": CREATE,
        "fresh/ünï cödé.txt": CREATE,
        'fresh/say "hi".txt': CREATE, "fresh/tool.sh": CREATE, "fresh/empty.txt": CREATE, "empty.txt": DELETE,
        "bin/mover.sh": MOVE}
    text = diff_text(change.entries)
    plan, fmt = read_change(text)
    assert fmt == "diff"
    shutil.copytree(repo, copy, symlinks=True)
    report = apply_plan(plan, copy, run_checks=False, partial=partial)
    assert report.result.status == "done", (report.result, text)
    return files_of(tree_of(copy, ".git", ".agent")), files_of(layer_view(layer))


def without_modes(files: dict) -> dict:
    return {rel: content for rel, (*content, _executable) in files.items()}


def test_the_diff_applied_to_a_copy_gives_the_layer_s_files(repo: Path, tmp_path: Path) -> None:
    copied, layered_files = applied_copy(repo, tmp_path / "copy", partial=True)
    assert copied == layered_files


def test_an_all_or_nothing_apply_gives_the_layer_s_bytes(repo: Path, tmp_path: Path) -> None:
    copied, layered_files = applied_copy(repo, tmp_path / "copy", partial=False)
    assert without_modes(copied) == without_modes(layered_files)


def test_an_all_or_nothing_apply_gives_the_layer_s_modes(repo: Path, tmp_path: Path) -> None:
    copied, layered_files = applied_copy(repo, tmp_path / "copy", partial=False)
    assert copied == layered_files


def test_the_hunks_keep_what_git_would_write(repo: Path) -> None:
    layer = layer_of(repo)
    run_ok(layer, SCRIPT)
    sections = {e.path: diff_text([e]) for e in change_of(layer).entries}
    assert sections["nofinal.txt"].endswith(" first\n+middle\n last\n\\ No newline at end of file\n")
    assert "-two\r\n+TWO\r\n" in sections["crlf.txt"]
    assert sections["feeds.txt"].count("\\ No newline") == 0
    assert sections["café.txt"].startswith('diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"\n')
    assert sections["my notes.txt"].startswith(
        "diff --git a/my notes.txt b/my notes.txt\nold mode 100644\nnew mode 100755\n--- a/my notes.txt\n")
    assert sections["tool"] == "diff --git a/tool b/tool\nold mode 100755\nnew mode 100644\n"
    assert sections["new home.txt"] == ("diff --git a/old name.txt b/new home.txt\nsimilarity index 100%\n"
                                        "rename from old name.txt\nrename to new home.txt\n")
    assert sections["gone.txt"] == ("diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n"
                                    "+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n")
    assert sections["bin/mover.sh"] == ("diff --git a/mover.sh b/bin/mover.sh\nold mode 100644\nnew mode 100755\n"
                                        "similarity index 100%\nrename from mover.sh\nrename to bin/mover.sh\n")
    assert sections["feeds.txt"].endswith("-\fpage two\n+\fpage 2\n sep\u2028arated\n old\rmac\n end\n")
    assert sections["fresh/nobreak.txt"].endswith("+no break at the end\n\\ No newline at end of file\n")


def test_binary_files_and_links_are_left_out_and_described(repo: Path) -> None:
    layer = layer_of(repo)
    run_ok(layer, "printf '\\000\\001' > blob.bin && ln -s plain.txt link && echo t > text.txt")
    change = change_of(layer)
    text = diff_text(change.entries)
    assert "text.txt" in text and "blob.bin" not in text and "link" not in text
    by_path = {e.path: e for e in change.entries}
    assert describe_whole(by_path["blob.bin"]).startswith("create blob.bin (binary file, 2 bytes, sha256 ")
    assert describe_whole(by_path["link"]).startswith("create link (symbolic link, 9 bytes, sha256 ")
