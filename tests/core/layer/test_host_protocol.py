"""The tool host's protocol: one answer per line, whatever the line holds; its import path; its start line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.core.layer import host as host_module
from ljtui.core.layer.host import Host
from ljtui.core.layer.host_process import host_argv, import_path
from ljtui.core.layer.host_protocol import BOOT, READY
from ljtui.core.secret_files import DEFAULT_SECRET_PATTERNS


def config(repo: Path, cache: Path | None = None) -> dict[str, object]:
    return {"repo": str(repo), "path": import_path(), "secret_patterns": list(DEFAULT_SECRET_PATTERNS),
            "secret_allowed": [], "grep_engine": "re2", "grep_timeout": 5.0, "handbook_dir": None,
            "outline_budget": 500, "cache_dir": str(cache) if cache is not None else None}


@pytest.mark.parametrize(("line", "ident", "error"), [
    (b"not json\n", None, "the request is not JSON"),
    (b"\xff\xfe\n", None, "the request is not JSON"),
    (b"[1, 2]\n", None, "the request is not a JSON object"),
    (b'{"id": "7", "op": "ping"}\n', None, "the request has no whole-number id"),
    (b'{"id": true, "op": "ping"}\n', None, "the request has no whole-number id"),
    (b'{"id": 3, "op": ["ping"]}\n', 3, "unknown operation ['ping']"),
    (b'{"id": 4, "op": "read_file", "args": [1]}\n', 4, "the request's args are not a JSON object"),
    (b'{"id": 5, "op": "prepare", "args": {"tool": "write_file"}}\n', 5, "TypeError: a tool call names its tool"),
    (b"[" * 100_000 + b"\n", None, "the request is not JSON"),
])
def test_every_line_gets_an_answer_and_a_bad_one_an_error(git_repo: Path, line: bytes, ident: int | None,
                                                          error: str) -> None:
    answer = Host(config(git_repo)).answer(line)
    assert answer["id"] == ident and answer["ok"] is False and answer["error"].startswith(error)
    json.dumps(answer)


def test_a_good_request_is_answered_with_its_result(git_repo: Path) -> None:
    host = Host(config(git_repo))
    assert host.answer(b'{"id": 1, "op": "ping"}') == {"id": 1, "ok": True, "result": {"pong": True}}
    read = host.answer(b'{"id": 2, "op": "read_file", "args": {"path": "app.py", "end_line": 1}}')
    assert read["ok"] and read["result"]["ok"] and "def greet(name):" in read["result"]["content"]


def test_a_line_over_the_bound_is_read_to_its_end_and_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host_module, "MAX_LINE_BYTES", 16)
    stream = io.BytesIO(b'{"id": 1, "op": "ping", "args": {"pad": "' + b"x" * 100 + b'"}}\n{"id": 2}\n')
    assert host_module._read_request(stream) is host_module.TOO_LONG
    assert host_module._read_request(stream) == b'{"id": 2}\n' and host_module._read_request(stream) is None


def test_the_host_program_says_ready_answers_each_line_and_ends_with_its_input(git_repo: Path,
                                                                                 tmp_path: Path) -> None:
    lines = [b'{"id": 1, "op": "ping"}', b"garbage", b'{"id": 2, "op": "nope"}',
             b'{"id": 3, "op": "list_dir", "args": {"path": "."}}']
    done = subprocess.run([sys.executable, "-I", "-c", BOOT, json.dumps(config(git_repo, tmp_path / "cache"))],
                          input=b"\n".join(lines) + b"\n", capture_output=True, timeout=60, cwd=git_repo)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0] == READY and [a["id"] for a in answers[1:]] == [1, None, 2, 3]
    assert [a["ok"] for a in answers[1:]] == [True, False, False, True]
    assert "app.py  (" in answers[4]["result"]["content"]


def test_the_import_path_leaves_out_the_current_folder_and_keeps_path_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.path_importer_cache, "claimed.by.a.hook", object())
    path = ["", ".", "relative/dir", "claimed.by.a.hook", "/usr/lib/python3", "/somewhere"]
    assert import_path(path) == ["claimed.by.a.hook", "/usr/lib/python3", "/somewhere"]


def test_the_host_command_line_binds_its_cache_and_has_no_network(tmp_path: Path) -> None:
    argv = host_argv("bwrap", ["--ro-bind", "/", "/"], tmp_path / "repo", tmp_path / "cache", {"repo": "r"})
    cache = str(tmp_path / "cache")
    assert argv[:6] == ["bwrap", "--ro-bind", "/", "/", "--bind", cache] and argv[6] == cache
    assert "--unshare-net" in argv and argv[argv.index("--chdir") + 1] == str(tmp_path / "repo")
    assert argv[argv.index("--") + 1:] == [sys.executable, "-I", "-c", BOOT, '{"repo": "r"}']
