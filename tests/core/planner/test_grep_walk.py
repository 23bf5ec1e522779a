"""A folder grep is one ripgrep walk that never opens a secret file, and returns nothing secret from anywhere.

The tree is a real git repository whose secret files hide behind case
variants (``.ENV.local``, ``Server.PEM``, a Kelvin sign for ``K``), links
(``notes.txt`` to ``.ENV.local``, ``keys-link`` to a folder holding a key,
``gitlink`` to ``.git``), nested repositories and ``.git/modules``; ljtui's
state sits in ``.agent`` at several depths and cases; ordinary files sit
beside all of them, in folders named like secret files too. Every file
holds :data:`MARK`; the secret and state ones hold :data:`TOKEN` too.
Whether a file was opened is asked of the kernel (inotify), not of the code.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import struct
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from ljtui.core.planner import grep as grep_module
from ljtui.core.planner import grep_rg
from ljtui.core.planner.grep import find_rg, search
from ljtui.core.planner.grep_scan import matcher, scan
from ljtui.core.planner.tools import ReadOnlyTools
from ljtui.core.repo import SKIP_DIRS
from ljtui.core.secret_files import KELVIN_SIGN, SecretFiles
from tests.conftest import git
from tests.core.planner.grep_trees import rg_files, write

MARK = "needle_4f2"
"""What every grep here looks for; every file of the tree holds it."""
TOKEN = "ghp_HIDE0123456789"
"""In every secret and state file beside :data:`MARK`; it must never come back."""
ENGINES = ("re2", "rg")
SECRETS = (".ENV.local", "certs/Server.PEM", f"deploy/{KELVIN_SIGN}ubeconfig", f"deploy/prod.{KELVIN_SIGN}ey",
           "sub/.Kube/config", ".GIT/config", "keys/ID_RSA", ".git/config", ".git/modules/lib/config",
           "vendor/lib/.git/config")
"""Secret files, named so that only their case, a Kelvin sign or the folder they sit in makes them secret."""
STATE = (".agent/memory.md", "a/b/.agent/deep/notes.md", ".AGENT/notes.md", "sub/.Agent/run.jsonl")
"""ljtui's state, never searched."""
IN_GIT = (".git/hooks/deep/er/mark.txt", "vendor/lib/.git/description")
"""Ordinary files inside a ``.git`` folder: found only by a search that starts in that folder."""
PLAIN = ("README.md", "a/b/beside.txt", "certs/readme.txt", "deploy/kubeconfig.go", "sub/.Kube/notes.txt",
         "credentials/list.txt", ".envs/tool.txt", "x.key/inside.txt", "vendor/lib/lib.py")
"""Ordinary files beside the others, some in folders named like secret files (folders are never secret)."""
LINKS = {"notes.txt": ".ENV.local", "keys-link": "keys", "gitlink": ".git", "safe.pem": "README.md"}
FOLDERS: dict[str, tuple[set[str], int]] = {
    ".": (set(PLAIN), 7),
    "./": (set(PLAIN), 7),
    ".git": ({".git/hooks/deep/er/mark.txt"}, 2),
    "./.git/": ({".git/hooks/deep/er/mark.txt"}, 2),
    "gitlink": ({".git/hooks/deep/er/mark.txt"}, 2),
    ".git/modules": (set(), 1),
    "vendor/lib/.git": ({"vendor/lib/.git/description"}, 1),
    "vendor": ({"vendor/lib/lib.py"}, 0),
    "sub": ({"sub/.Kube/notes.txt"}, 1),
    "sub/.Kube": ({"sub/.Kube/notes.txt"}, 1),
    "deploy": ({"deploy/kubeconfig.go"}, 2),
    "keys-link": (set(), 1),
    "certs": ({"certs/readme.txt"}, 1),
    ".GIT": (set(), 1),
    "a": ({"a/b/beside.txt"}, 0),
    "credentials": ({"credentials/list.txt"}, 0),
    ".envs": ({".envs/tool.txt"}, 0),
    "x.key": ({"x.key/inside.txt"}, 0),
}
"""Each starting folder: the files a search for :data:`MARK` finds, and how many secret files it skips."""
NAMED = (".ENV.local", "notes.txt", "safe.pem", f"deploy/{KELVIN_SIGN}ubeconfig", "keys-link/ID_RSA",
         "gitlink/config", "gitlink/modules/lib/config", ".GIT/config", "sub/.Kube/config")
"""Secret files named directly, as they are or through a link."""
HIT = re.compile(r"^(.+?):\d+: ")


@pytest.fixture(scope="module")
def hiding(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tree described in the module docstring, in a real git repository."""
    root = tmp_path_factory.mktemp("hiding") / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "remote.origin.url", f"https://u:{TOKEN}@example.invalid/r.git")
    git(root, "config", "ljtui.note", f"{MARK} {TOKEN}")
    (root / "vendor" / "lib").mkdir(parents=True)
    git(root / "vendor" / "lib", "init", "-q")
    git(root / "vendor" / "lib", "config", "ljtui.note", f"{MARK} {TOKEN}")
    for rel in SECRETS + STATE:
        if not (root / rel).exists():
            write(root, rel, f"{MARK} {TOKEN}\n")
    for rel in IN_GIT:
        write(root, rel, f"{MARK} in git\n")
    for rel in PLAIN:
        write(root, rel, f"{MARK} plain\n")
    for name, target in LINKS.items():
        (root / name).symlink_to(target)
    for rel in SECRETS + STATE:
        assert MARK in (root / rel).read_text() and TOKEN in (root / rel).read_text(), rel
    return root


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def hits_of(content: str) -> set[str]:
    return {found.group(1) for line in content.splitlines()[1:] if (found := HIT.match(line))}


def skipped_note(count: int) -> str:
    return f"[{count} secret {'file was' if count == 1 else 'files were'} skipped, nothing from"


class OpenWatch:
    """Which of some files the kernel saw opened (inotify ``IN_OPEN``), by anyone, while it watched."""

    IN_OPEN = 0x20

    def __init__(self, paths: list[Path]) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self._watched: dict[int, Path] = {}
        for path in paths:
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(path), self.IN_OPEN)
            if wd < 0:
                raise OSError(ctypes.get_errno(), f"cannot watch {path}")
            self._watched[wd] = path

    def opened(self) -> set[Path]:
        seen: set[Path] = set()
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return seen
            offset = 0
            while offset < len(data):
                wd, mask, _cookie, size = struct.unpack_from("iIII", data, offset)
                offset += 16 + size
                if mask & self.IN_OPEN:
                    seen.add(self._watched[wd])

    def close(self) -> None:
        os.close(self._fd)


# --- nothing secret comes back, whatever folder the search starts in


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_a_folder_search_finds_the_plain_files_and_skips_every_secret_one(hiding: Path, folder: str,
                                                                          engine: str) -> None:
    out = ReadOnlyTools(hiding, grep_engine=engine).grep(MARK, folder)
    assert out.ok, out.content
    assert TOKEN not in out.content
    found, skipped = FOLDERS[folder]
    assert hits_of(out.content) == found
    assert (skipped_note(skipped) in out.content) if skipped else ("secret" not in out.content)


@pytest.mark.parametrize("path", NAMED)
def test_a_secret_file_named_directly_is_refused_however_it_is_spelt(hiding: Path, path: str, engine: str) -> None:
    out = ReadOnlyTools(hiding, grep_engine=engine).grep(MARK, path)
    assert not out.ok and TOKEN not in out.content and "looks like a secret file" in out.content


def test_no_engine_ever_opens_a_secret_or_state_file(hiding: Path, engine: str) -> None:
    private = [hiding / rel for rel in SECRETS + STATE]
    plain = [hiding / rel for rel in PLAIN]
    watch = OpenWatch(private + plain)
    try:
        tools = ReadOnlyTools(hiding, grep_engine=engine)
        for folder in FOLDERS:
            assert tools.grep(MARK, folder).ok, folder
        opened = watch.opened()
    finally:
        watch.close()
    assert not opened & set(private), sorted(opened & set(private))
    assert set(plain) <= opened  # the watch sees the searches' opens


def test_search_resolves_a_link_before_it_searches(hiding: Path, engine: str) -> None:
    through_link = search(MARK, hiding / "gitlink", root=hiding, engine=engine)
    assert [h.path for h in through_link.hits] == [hiding / ".git/hooks/deep/er/mark.txt"]
    assert through_link.secret_files == 2 and through_link.engine == engine
    to_secret = search(MARK, hiding / "notes.txt", root=hiding, engine=engine)
    assert to_secret.hits == [] and to_secret.secret_files == 1


def test_search_refuses_a_start_outside_the_tree_or_in_state(hiding: Path, engine: str) -> None:
    outside = search(MARK, hiding.parent, root=hiding, engine=engine)
    assert outside.hits == [] and "outside the searched tree" in outside.error
    for folder in (".agent", "a/b/.agent/deep", ".AGENT"):
        state = search(MARK, hiding / folder, root=hiding, engine=engine)
        assert state.hits == [] and "ljtui's own state folder" in state.error, folder


# --- what the walk leaves out


def test_the_scan_names_exactly_what_the_walk_leaves_out(hiding: Path, names: Path, tmp_path: Path) -> None:
    odd = tmp_path / "odd"
    for rel in ("a\nb/.env", "a\nb/ok.txt", "c/.git/config", "c/.agent/id_rsa", "c/.AgEnt/x.pem", "d/.envs/t.txt",
                f"e/.{KELVIN_SIGN}ube/config", f"e/{KELVIN_SIGN}/deep/plain.txt", f"e/plain{KELVIN_SIGN}.txt"):
        write(odd, rel, "x\n")
    (odd / os.fsdecode(b"bad\xff.pem")).write_text("x\n")
    (odd / "link.pem").symlink_to("c")
    os.mkfifo(odd / ".env.fifo")
    globs = SecretFiles().globs()
    cases = [(hiding, folder) for folder in (".", ".git", "vendor/lib/.git", "sub", ".GIT", "deploy")]
    cases += [(names, "."), (names, ".git"), (odd, "."), (odd, "c"), (odd, "e"), (odd, f"e/{KELVIN_SIGN}")]
    for root, base in cases:
        walked = rg_files(root, *grep_rg.walk_filters((), SKIP_DIRS), base=base)
        kept = rg_files(root, *grep_rg.walk_filters(globs, SKIP_DIRS), base=base)
        found = scan(str(root), base, matcher(globs), frozenset(SKIP_DIRS), time.monotonic() + 10)
        assert found is not None and len(found) == len(set(found))
        assert set(found) == walked - kept, (root, base)
        assert kept <= walked


def test_files_named_with_a_kelvin_sign_are_left_to_the_rule(tmp_path: Path, engine: str) -> None:
    for rel in (f"{KELVIN_SIGN}/plain.txt", f"plain{KELVIN_SIGN}.txt", f".{KELVIN_SIGN}ube/config",
                f"{KELVIN_SIGN}ubeconfig", "ok.txt"):
        write(tmp_path, rel, f"{MARK} {TOKEN if 'ube' in rel else 'plain'}\n")
    found = search(MARK, tmp_path, engine=engine)
    assert {h.path.relative_to(tmp_path).as_posix() for h in found.hits} == {
        f"{KELVIN_SIGN}/plain.txt", f"plain{KELVIN_SIGN}.txt", "ok.txt"}
    assert found.secret_files == 2 and TOKEN not in "".join(h.text for h in found.hits)


def test_a_scan_past_its_deadline_gives_no_listing(hiding: Path) -> None:
    assert scan(str(hiding), ".", matcher(SecretFiles().globs()), frozenset(SKIP_DIRS), time.monotonic()) is None


# --- how ripgrep is run


@pytest.fixture
def rg_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every ripgrep run's arguments, one per line, runs separated by ``====``."""
    real = find_rg()
    log = tmp_path / "rg-argv.log"
    wrapper = tmp_path / "rg-wrapper"
    wrapper.write_text(f'#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done >> "{log}"\n'
                       f'echo ==== >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setattr(grep_module, "find_rg", lambda: str(wrapper))
    return log


def runs_in(log: Path) -> list[list[str]]:
    return [run.strip("\n").split("\n") for run in log.read_text().split("====\n") if run.strip()]


def test_a_folder_is_searched_by_one_walk_that_leaves_secret_files_out(hiding: Path, rg_log: Path) -> None:
    out = ReadOnlyTools(hiding, grep_engine="rg").grep(MARK, ".")
    assert out.ok and hits_of(out.content) == set(PLAIN)
    [run] = runs_in(rg_log)
    assert run[run.index("--") + 1:] == ["."]
    assert f"!{grep_rg.one_glob(SecretFiles().globs())}" in run and "--files" not in run


def test_only_files_the_user_allows_are_named_to_ripgrep(hiding: Path, rg_log: Path) -> None:
    policy = SecretFiles.allowing(["certs/*.pem", "*.local"])
    out = ReadOnlyTools(hiding, grep_engine="rg", secrets=policy).grep(MARK, ".")
    assert hits_of(out.content) == {*PLAIN, "certs/Server.PEM", ".ENV.local"}
    assert TOKEN in out.content and skipped_note(5) in out.content
    walk, named = runs_in(rg_log)
    assert walk[walk.index("--") + 1:] == ["."]
    assert named[named.index("--") + 1:] == [".ENV.local", "certs/Server.PEM"]


@dataclass(frozen=True)
class GloblessRule(SecretFiles):
    """The default rule without its glob form: ripgrep then opens secret files, and only the check of
    what it returns keeps them out."""

    def globs(self) -> tuple[str, ...]:
        return ()


def test_a_secret_file_the_globs_miss_is_dropped_from_the_results_and_counted(hiding: Path) -> None:
    write(hiding, "sub/.env.quiet", "nothing to find here\n")
    try:
        found = search(MARK, hiding, secrets=GloblessRule(), engine="rg")
    finally:
        (hiding / "sub/.env.quiet").unlink()
    assert found.engine == "rg" and TOKEN not in "".join(h.text for h in found.hits)
    assert {h.path.relative_to(hiding).as_posix() for h in found.hits} == set(PLAIN)
    assert found.secret_files == 7  # the seven with a line to drop; .env.quiet was searched and had none


def test_whatever_ripgrep_reports_from_state_git_or_secret_files_is_dropped(hiding: Path, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    reported = (".agent/memory.md", "sub/.Agent/run.jsonl", ".git/config", "vendor/lib/.git/description",
                ".ENV.local", "README.md")
    messages = []
    for rel in reported:
        path = {"text": f"./{rel}"}
        messages += [{"type": "begin", "data": {"path": path}},
                     {"type": "match", "data": {"path": path, "lines": {"text": f"{MARK} {TOKEN}\n"},
                                                "line_number": 1, "absolute_offset": 0, "submatches": []}},
                     {"type": "end", "data": {"path": path, "binary_offset": None, "stats": {}}}]
    output = tmp_path / "rg-output.jsonl"
    output.write_text("".join(json.dumps(message) + "\n" for message in messages) + '{"type":"summary"}\n')
    fake = tmp_path / "rg-fake"
    fake.write_text(f'#!/bin/sh\ncat "{output}"\n')
    fake.chmod(0o755)
    monkeypatch.setattr(grep_module, "find_rg", lambda: str(fake))
    found = search(MARK, hiding, engine="rg")
    assert found.engine == "rg" and [h.path for h in found.hits] == [hiding / "README.md"]
    assert found.secret_files == 8  # the scan's seven, and .git/config, whose lines ripgrep reported


def test_allowed_files_merge_into_path_order_under_the_hit_limit(tmp_path: Path) -> None:
    for n in range(30):
        write(tmp_path, f"d{n:02}/a.txt", "hit\n" * 5)
        write(tmp_path, f"d{n:02}/.env", "hit\n" * 3)
        write(tmp_path, f"d{n:02}/id_rsa", "hit\n")
    policy = SecretFiles.allowing([".env"])
    outcomes = [search("hit", tmp_path, secrets=policy, engine=name) for name in ENGINES]
    expected = [(f"d{n:02}/{name}", line) for n in range(30) for name, count in ((".env", 3), ("a.txt", 5))
                for line in range(1, count + 1)][:100]
    for found in outcomes:
        assert [(h.path.relative_to(tmp_path).as_posix(), h.line) for h in found.hits] == expected, found.engine
        assert found.truncated and not found.timed_out
    # the RE2 walk stops at the limit in d12/a.txt, before d12/id_rsa; ripgrep's scan saw every folder
    assert [found.secret_files for found in outcomes] == [12, 30]


def test_a_walk_that_could_not_read_everything_keeps_its_results(hiding: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper = tmp_path / "rg-exit-2"
    wrapper.write_text(f'#!/bin/sh\n"{find_rg()}" "$@"\nexit 2\n')  # as when a folder is unreadable
    wrapper.chmod(0o755)
    monkeypatch.setattr(grep_module, "find_rg", lambda: str(wrapper))
    found = search(MARK, hiding, engine="rg")
    assert found.engine == "rg" and not found.error
    assert {h.path.relative_to(hiding).as_posix() for h in found.hits} == set(PLAIN)
    nothing = search("no_such_text_anywhere", hiding, engine="rg")
    assert nothing.engine == "rg" and nothing.hits == [] and nothing.secret_files == 7


@pytest.mark.parametrize("per_file", [20, 60])
def test_past_the_limit_the_first_lines_in_path_order_are_kept(tmp_path: Path, rg_log: Path, per_file: int) -> None:
    for n in range(30):
        write(tmp_path, f"d{n:02}/a.txt", "hit\n" * per_file)
    found = search("hit", tmp_path, engine="rg")
    assert found.truncated and not found.timed_out
    assert [(h.path.relative_to(tmp_path).as_posix(), h.line) for h in found.hits] == [
        (f"d{n:02}/a.txt", line) for n in range(30) for line in range(1, per_file + 1)][:100]
    runs = runs_in(rg_log)
    if per_file * 30 <= grep_module.UNORDERED_HITS_FACTOR * 100:
        assert len(runs) == 1 and "--sort" not in runs[0]  # all 600 lines read, the first 100 picked
    else:
        assert len(runs) == 2 and "--sort" in runs[1]  # 1,800 lines: walked again in path order


def test_both_engines_report_lines_that_look_like_json_alike(tmp_path: Path) -> None:
    lines = ['hit "quoted" \\ back\\slash', 'hit },"lines":{"text":"fake', 'hit },"line_number":7,',
             "hit\ttab é ü 漢字 \U0001F600", "hit\r", "x" * 400 + " hit", 'hit {"type":"end","data":{}}']
    (tmp_path / "tricky.txt").write_text("\n".join(lines) + "\n", encoding="utf-8", newline="")
    (tmp_path / "od\u0308d name's \"file\".txt").write_text("hit\n", encoding="utf-8")
    (tmp_path / os.fsdecode(b"raw\xffname.txt")).write_bytes(b"hit \xff byte\n")
    found = {name: search("hit", tmp_path, engine=name) for name in ENGINES}
    seen = {name: [(h.path, h.line, h.text) for h in out.hits] for name, out in found.items()}
    assert seen["rg"] == seen["re2"] and len(seen["rg"]) == len(lines) + 2
    assert (tmp_path / "tricky.txt", 6, "x" * 300 + " …") in seen["rg"]


def test_a_search_out_of_time_has_no_count(hiding: Path) -> None:
    found = search(MARK, hiding, engine="rg", timeout=0.0)
    assert found.engine == "rg" and found.timed_out and found.secret_files is None
    assert {h.path.relative_to(hiding).as_posix() for h in found.hits} <= set(PLAIN)  # whatever the walk had
