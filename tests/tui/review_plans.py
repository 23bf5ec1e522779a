"""EDIT plans written for Diff-pane tests: long diffs, many blocks, binary targets."""

from __future__ import annotations

from pathlib import Path

LONG_LINES = 40
"""Lines of ``long.py``; its block rewrites most of them."""


def _block(number: int, file: str, old: str, new: str, where: str = "") -> str:
    where_line = f"- where: `{where}`\n" if where else ""
    return f"### EDIT {number}\n\n- file: `{file}`\n{where_line}\n```old\n{old}```\n\n```new\n{new}```\n"


def long_diff_plan(repo: Path, small_blocks: int = 11) -> Path:
    """A plan whose EDIT 1 rewrites 30 lines of ``long.py`` (a diff of about 70 lines),
    followed by ``small_blocks`` one-line blocks on ``small.py``."""
    long_text = "".join(f"def step_{i}(value):\n    return value + {i}\n" for i in range(LONG_LINES // 2))
    (repo / "long.py").write_text(long_text, encoding="utf-8")
    old = "".join(f"def step_{i}(value):\n    return value + {i}\n" for i in range(2, 17))
    new = "".join(f"def step_{i}(value):\n    return value * {i}\n" for i in range(2, 17))
    blocks = [_block(1, "long.py", old, new, "step_2 (~5) — multiply instead of add")]
    (repo / "small.py").write_text("".join(f"NAME_{i} = {i}\n" for i in range(small_blocks)), encoding="utf-8")
    for i in range(small_blocks):
        blocks.append(_block(i + 2, "small.py", f"NAME_{i} = {i}\n", f"NAME_{i} = {i * 10}\n", f"NAME_{i} (~{i + 1})"))
    return _write(repo, blocks)


def many_blocks_plan(repo: Path, count: int, files: int = 20) -> Path:
    """``count`` one-line blocks spread over ``files`` files of ``mod_N.py``."""
    per_file = -(-count // files)
    blocks = []
    for f in range(files):
        (repo / f"mod_{f}.py").write_text("".join(f"VALUE_{f}_{i} = {i}\n" for i in range(per_file)),
                                          encoding="utf-8")
    for n in range(count):
        f, i = n % files, n // files
        blocks.append(_block(n + 1, f"mod_{f}.py", f"VALUE_{f}_{i} = {i}\n", f"VALUE_{f}_{i} = {i + 1}\n"))
    return _write(repo, blocks)


def binary_plan(repo: Path) -> Path:
    """One block on a file that is not UTF-8 (its diff shows the bytes that are not UTF-8 escaped)."""
    (repo / "data.bin").write_bytes(b"\xff\xfe header\nkeep\n")
    return _write(repo, [_block(1, "data.bin", "keep\n", "changed\n", "data")])


def _write(repo: Path, blocks: list[str]) -> Path:
    path = repo / "plan.md"
    path.write_text("\n".join(blocks), encoding="utf-8")
    return path
