"""Which files the outline reads: never secret, ignored, vendored or linked ones; bounded ones only."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ljtui.core.outline import build_index
from ljtui.core.outline.parse import MAX_FILE_BYTES
from ljtui.core.secret_files import SecretFiles
from tests.conftest import git
from tests.core.outline.conftest import write

OPENED: list[str] = []
"""Paths opened while :data:`RECORDING` holds a true value (filled by the audit hook below)."""
RECORDING: list[bool] = []


def _record_opens(event: str, args: tuple) -> None:
    if RECORDING and event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_record_opens)


def opened_during(action) -> list[str]:
    """Every path the interpreter opened while running ``action()``."""
    OPENED.clear()
    RECORDING.append(True)
    try:
        action()
    finally:
        RECORDING.clear()
    return list(OPENED)


SECRETS = {
    ".env": "API_KEY=sk-not-a-real-key\n",
    "credentials.py": "def leaked_secret():\n    return 'sk-not-a-real-key'\n",
    "config/id_rsa.py": "def private_key():\n    pass\n",
    "app.py": "def visible():\n    pass\n",
}


def test_secret_files_are_never_opened_and_are_counted(tmp_path: Path) -> None:
    root = write(tmp_path / "r", SECRETS)
    index = None

    def build() -> None:
        nonlocal index
        index = build_index(root, workers=1)

    opened = opened_during(build)
    assert not [path for path in opened if "credentials" in path or "id_rsa" in path or path.endswith(".env")]
    assert any(path.endswith("app.py") for path in opened)
    assert list(index.files) == ["app.py"]
    assert index.skipped.secret == 3
    assert "leaked_secret" not in str(list(index.symbols()))


def test_an_allowed_secret_file_is_read(tmp_path: Path) -> None:
    root = write(tmp_path / "r", SECRETS)
    index = build_index(root, secrets=SecretFiles.allowing(["credentials.py"]), workers=1)
    assert sorted(index.files) == ["app.py", "credentials.py"]
    assert index.skipped.secret == 2


def test_git_ignored_files_are_left_out_and_untracked_ones_kept(tmp_path: Path) -> None:
    root = write(tmp_path / "r", {
        ".gitignore": "build/\n*.gen.py\n", "src/main.py": "def main():\n    pass\n",
        "build/out.py": "def built():\n    pass\n", "src/table.gen.py": "def generated():\n    pass\n",
    })
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "src/main.py", ".gitignore")
    git(root, "commit", "-q", "-m", "initial")
    write(root, {"src/new.py": "def untracked():\n    pass\n"})
    index = build_index(root, workers=1)
    assert index.from_git
    assert sorted(index.files) == ["src/main.py", "src/new.py"]


def test_the_planner_skipped_folders_are_never_entered(tmp_path: Path) -> None:
    root = write(tmp_path / "r", {
        "node_modules/lib/index.js": "function vendored() {}\n", ".venv/lib/site.py": "def venv():\n    pass\n",
        "__pycache__/x.py": "def cached():\n    pass\n", ".agent/tool.py": "def state():\n    pass\n",
        "src/ok.js": "function mine() {}\n",
    })
    index = build_index(root, workers=1)
    assert not index.from_git
    assert list(index.files) == ["src/ok.js"]


def test_symlinks_are_not_followed(tmp_path: Path) -> None:
    outside = write(tmp_path / "outside", {"secret_dir/lib.py": "def outside():\n    pass\n",
                                           "file.py": "def outside_file():\n    pass\n"})
    root = write(tmp_path / "r", {"real.py": "def real():\n    pass\n"})
    (root / "linked_dir").symlink_to(outside / "secret_dir", target_is_directory=True)
    (root / "linked.py").symlink_to(outside / "file.py")
    assert list(build_index(root, workers=1).files) == ["real.py"]
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "links committed")
    assert list(build_index(root, workers=1).files) == ["real.py"]


def test_binary_and_too_large_files_are_skipped_and_counted(tmp_path: Path) -> None:
    root = write(tmp_path / "r", {"ok.py": "def ok():\n    pass\n"})
    (root / "blob.py").write_bytes(b"def looks_like_code():\n    pass\n\x00\x01")
    (root / "huge.py").write_bytes(b"def huge():\n    pass\n" + b"#" * MAX_FILE_BYTES)
    index = build_index(root, workers=1)
    assert list(index.files) == ["ok.py"]
    assert (index.skipped.binary, index.skipped.too_large) == (1, 1)
    assert "1 binary" in index.skipped.describe() and "1 too large" in index.skipped.describe()
