"""Builders of journal folders on disk, written by hand as a hostile repository would commit them."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

LJTUI = str(Path(sys.executable).with_name("ljtui"))
CLI_TIMEOUT = 60


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def record(n: int, path: str, *, before: bytes | None, after: bytes | None, tx_id: str,
           temp: str | None = None, created_dirs: list[str] | None = None, mode: int | None = 0o644,
           blob: str | None = "auto") -> dict[str, Any]:
    """One manifest record in the shape ljtui writes (overridable field by field)."""
    parent = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    return {
        "path": path, "existed": before is not None, "mode": mode if before is not None else None,
        "before_sha256": digest(before) if before is not None else None,
        "after_sha256": digest(after) if after is not None else None,
        "blob": (f"blobs/{n}" if before is not None else None) if blob == "auto" else blob,
        "temp": temp if temp is not None else f"{parent}.ljtui-{tx_id}-{n}.tmp",
        "created_dirs": created_dirs or [],
    }


def manifest(tx_id: str, files: list[dict[str, Any]], **top: Any) -> dict[str, Any]:
    data = {"version": 2, "id": tx_id, "group": tx_id, "created": 1.0, "kind": "apply", "entries": ["plan"],
            "files": files}
    data.update(top)
    return data


def write_journal(repo: Path, folder: str, data: dict[str, Any] | bytes, blobs: dict[int, bytes] | None = None
                  ) -> Path:
    """``repo/.agent/journal/<folder>/`` with ``manifest.json`` and ``blobs/<n>``."""
    directory = repo / ".agent" / "journal" / folder
    (directory / "blobs").mkdir(parents=True)
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    (directory / "manifest.json").write_bytes(raw)
    for n, content in (blobs or {}).items():
        (directory / "blobs" / str(n)).write_bytes(content)
    return directory


def ljtui(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real ``ljtui`` command in a subprocess."""
    return subprocess.run([LJTUI, *args], cwd=cwd, capture_output=True, text=True, timeout=CLI_TIMEOUT)


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (``None``) under ``root``, symlinks not followed."""
    out: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        out[rel] = None if path.is_dir() and not path.is_symlink() else (
            b"->" + str(path.readlink()).encode() if path.is_symlink() else path.read_bytes())
    return out
