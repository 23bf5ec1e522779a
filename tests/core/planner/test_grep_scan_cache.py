"""The scan remembers folders between searches, and never answers from a folder that changed since."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ljtui.core.planner import grep_scan
from ljtui.core.planner.grep import _SKIP
from ljtui.core.secret_files import SecretFiles


def scan(root: Path) -> list[str] | None:
    return grep_scan.scan(str(root), ".", grep_scan.matcher(SecretFiles().globs()), _SKIP, time.monotonic() + 10)


@pytest.fixture
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every folder counts as settled, so each one read is remembered."""
    monkeypatch.setattr(grep_scan, "SETTLED_NS", -1)


def test_a_secret_file_added_renamed_or_replaced_since_the_last_search_is_seen(tmp_path: Path,
                                                                                settled_at_once: None) -> None:
    (tmp_path / "pkg" / "deep").mkdir(parents=True)
    (tmp_path / "pkg" / "deep" / "app.py").write_text("x = 1\n", encoding="utf-8")
    assert scan(tmp_path) == []
    (tmp_path / "pkg" / "deep" / ".env").write_text("TOKEN=1\n", encoding="utf-8")
    assert scan(tmp_path) == ["pkg/deep/.env"]
    os.rename(tmp_path / "pkg" / "deep" / ".env", tmp_path / "pkg" / "deep" / "server.pem")
    assert scan(tmp_path) == ["pkg/deep/server.pem"]
    (tmp_path / "pkg" / "deep" / "server.pem").unlink()
    (tmp_path / "pkg" / "deep" / "server.pem").mkdir()
    (tmp_path / "pkg" / "deep" / "server.pem" / "id_rsa").write_text("key\n", encoding="utf-8")
    assert scan(tmp_path) == ["pkg/deep/server.pem/id_rsa"]


def test_a_folder_changed_within_the_settling_time_is_read_again_each_time(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    assert scan(tmp_path) == []
    key = (str(tmp_path), "a", grep_scan.matcher(SecretFiles().globs()), _SKIP)
    assert key not in grep_scan._folders  # changed a moment ago: not remembered
