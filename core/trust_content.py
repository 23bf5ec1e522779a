"""What repository trust is bound to: the repository's settings files and its identity, as one digest.

Trusting a repository trusts what its files said when the user looked, as
direnv asks again once ``.envrc`` changes. The settings are:

* ``.agent/config.yaml``, ``.mcp.json`` and the hook files ``.agent/hooks.json`` and ``.claude/settings.json``
  (of the latter only its ``hooks`` count, so a change to Claude Code's other settings does not ask again), and
  every file below ``.agent/hooks`` and ``.claude/hooks``, where a team keeps the scripts its hooks run;
* every file below ``.agent/skills``;
* the gates (``.agent/gates/*.md``) and playbooks (``.agent/playbooks/*.md``)
  committed to the repository: those in git's index, or every one when git
  cannot tell (no work tree, git failed). Those ljtui writes for the user
  in a work tree stay the user's own until committed (an untracked gate is
  the user's own to the gate service too).

A file counts by the digest of its bytes, except that a gate counts by its
definition (title, checklist, factors, notes) and a playbook by its text
(title, tags, description, body): ljtui itself rewrites their run history,
stats, status and times after each use. A symbolic link ljtui never follows
counts by where it points. What cannot be bound keeps the repository
untrusted (fail closed): a link ljtui would read through (``.agent``,
``.agent/config.yaml``, ``.mcp.json``), a file over :data:`MAX_FILE_BYTES`,
more than :data:`MAX_FILES` files, a file that cannot be read.

The repository's identity is bound too: the device and inode of its folder
and of its ``.git``, so another repository put at the same path is asked
about again.

:func:`settings_of` reads all this at most once per process per state of
the files: a pass of ``lstat`` calls (device, inode, size, mtime and ctime
of each settings file and of git's index) tells whether anything changed
since the last read. A file changed less than :data:`RACY_SECONDS` before
a read is not cached, since a change within the same clock tick keeps its
stamps (git's "racily clean" entries).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import threading
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ljtui.core.git import run_git
from ljtui.core.repo import git_dir
from ljtui.core.statedir import AGENT_DIR, StateDirUnsafe, StateFileTooBig, read_regular, read_state_bytes
from ljtui.core.trust_digests import (
    CLAUDE_DIR, CLAUDE_SETTINGS, DEFINITION_SUFFIX, GATES_DIR, HOOKS_FILE, PLAYBOOKS_DIR, digest_of, hashed,
)

CONFIG_FILE = f"{AGENT_DIR}/config.yaml"
MCP_FILE = ".mcp.json"
SKILLS_DIR = f"{AGENT_DIR}/skills"
HOOK_SCRIPT_DIRS = (f"{AGENT_DIR}/hooks", f"{CLAUDE_DIR}/hooks")
"""Where hook scripts are kept: bound to trust like the hooks that run them."""
MAX_FILE_BYTES = 1024 * 1024
"""A settings file larger than this cannot be bound (no reader of a settings file takes more)."""
MAX_TOTAL_BYTES = 32 * 1024 * 1024
"""Settings larger than this in all cannot be bound."""
MAX_FILES = 512
"""More settings files than this cannot be bound."""
MAX_DEPTH = 8
"""Folders nested deeper than this below ``.agent/skills`` cannot be bound."""
MAX_KEPT_CONFIG_BYTES = 16 * 1024
"""``.agent/config.yaml`` up to this size is kept with the trust record, so a later change can be shown as a diff."""
RACY_SECONDS = 2.0
"""A file changed this recently is read again on the next check rather than trusted by its stamps."""
GIT_TIMEOUT_SECONDS = 10
_NOFOLLOW_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK

Identity = tuple[tuple[int, int] | None, tuple[int, int] | None]
"""``(device, inode)`` of the repository's folder and of its ``.git`` (``None``: there is none)."""


@dataclass(frozen=True)
class Settings:
    """The repository's settings as read now.

    Attributes:
        identity: which folder and which ``.git`` they were read from.
        files: ``(repo-relative path, digest)`` of each settings file, sorted.
        problems: why they cannot be bound (empty: they can); the repository stays untrusted while there is one.
        config_text: ``.agent/config.yaml`` as text when it is small enough to keep, else ``None``.
    """

    identity: Identity
    files: tuple[tuple[str, str], ...]
    problems: tuple[str, ...] = ()
    config_text: str | None = None

    @cached_property
    def digest(self) -> str:
        """The one value a trust record compares: a SHA-256 over :attr:`files`."""
        return files_digest(self.files)


def files_digest(files: tuple[tuple[str, str], ...]) -> str:
    """The SHA-256 (hex) of the canonical JSON of ``(path, digest)`` pairs, sorted by path."""
    text = json.dumps(sorted([path, digest] for path, digest in files), separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@dataclass
class _Scan:
    """What one pass of ``lstat`` calls found: the candidate files and the stamps that tell a change."""

    root_id: tuple[int, int] | None
    git_id: tuple[int, int] | None = None
    index: tuple[int, ...] | None = None
    entries: list[tuple[str, os.stat_result]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    full: bool = False

    def stamps(self) -> tuple[Any, ...]:
        return (self.root_id, self.git_id, self.index, tuple(self.problems),
                tuple((rel, _stamp(st)) for rel, st in self.entries))

    def racy(self, now_ns: int) -> bool:
        """Whether a file (or git's index) changed too recently for its stamps to be relied on."""
        limit = now_ns - int(RACY_SECONDS * 1e9)
        times = [t for _, st in self.entries for t in (st.st_mtime_ns, st.st_ctime_ns)]
        if self.index is not None:
            times.extend(self.index[-2:])
        return any(t >= limit for t in times)


_cache: dict[str, tuple[tuple[Any, ...], Settings]] = {}
_cache_lock = threading.Lock()


def settings_of(root: Path) -> Settings:
    """The settings of the repository at ``root``, read again only when their stamps changed."""
    real = Path(os.path.realpath(root))
    scan = _scan(real)
    stamps = scan.stamps()
    with _cache_lock:
        hit = _cache.get(str(real))
    if hit is not None and hit[0] == stamps:
        return hit[1]
    settings = _read(real, scan)
    if not scan.racy(time.time_ns()):
        with _cache_lock:
            _cache[str(real)] = (stamps, settings)
    return settings


def _stamp(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_mode, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def _scan(root: Path) -> _Scan:
    try:
        st = os.lstat(root)
        git = _lstat(root / ".git")
    except OSError as exc:
        return _Scan(None, problems=[f"the folder cannot be read ({exc.strerror or type(exc).__name__})"])
    scan = _Scan((st.st_dev, st.st_ino), (git.st_dev, git.st_ino) if git is not None else None)
    try:
        if git is not None:
            scan.index = _index_stamp(root)
        _add_followed(scan, root, MCP_FILE)
        if _is_folder(scan, root, CLAUDE_DIR):  # a linked folder counts as the link (its hooks are never read)
            _add_followed(scan, root, CLAUDE_SETTINGS)
            _add_tree(scan, root, HOOK_SCRIPT_DIRS[1], 0)
        agent = _lstat(root / AGENT_DIR)
        if agent is not None and stat.S_ISLNK(agent.st_mode):
            scan.problems.append(f"{AGENT_DIR} is a symbolic link")
        elif agent is not None and stat.S_ISDIR(agent.st_mode):
            _add_followed(scan, root, CONFIG_FILE)
            _add_followed(scan, root, HOOKS_FILE)
            _add_tree(scan, root, HOOK_SCRIPT_DIRS[0], 0)
            _add_definitions(scan, root, GATES_DIR)
            _add_definitions(scan, root, PLAYBOOKS_DIR)
            _add_tree(scan, root, SKILLS_DIR, 0)
    except OSError as exc:
        scan.problems.append(f"the settings cannot be listed ({exc.strerror or type(exc).__name__})")
    if sum(st.st_size for _, st in scan.entries if stat.S_ISREG(st.st_mode)) > MAX_TOTAL_BYTES:
        scan.problems.append(f"the settings files are over {MAX_TOTAL_BYTES:,} bytes in all")
    return scan


def _index_stamp(root: Path) -> tuple[int, ...] | None:
    """Stamps of git's index: which gates and playbooks are committed changes with it."""
    folder = git_dir(root)
    st = _lstat(folder / "index") if folder is not None else None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) if st is not None else None


def _add(scan: _Scan, rel: str, st: os.stat_result) -> None:
    if len(scan.entries) >= MAX_FILES:
        if not scan.full:
            scan.full = True
            scan.problems.append(f"there are more than {MAX_FILES} settings files")
        return
    if stat.S_ISREG(st.st_mode) and st.st_size > MAX_FILE_BYTES:
        scan.problems.append(f"{rel} is over {MAX_FILE_BYTES:,} bytes")
    scan.entries.append((rel, st))


def _add_followed(scan: _Scan, root: Path, rel: str) -> None:
    """A settings file that is read through any link: it must be a regular file, or absent."""
    st = _lstat(root / rel)
    if st is None:
        return
    if stat.S_ISLNK(st.st_mode):
        scan.problems.append(f"{rel} is a symbolic link")
    elif not stat.S_ISREG(st.st_mode):
        scan.problems.append(f"{rel} is not a regular file")
    else:
        _add(scan, rel, st)


def _is_folder(scan: _Scan, root: Path, rel: str) -> bool:
    """Whether ``rel`` is a folder to enter; anything else that is there (a file, a link) is added as it is."""
    st = _lstat(root / rel)
    if st is not None and not stat.S_ISDIR(st.st_mode):
        _add(scan, rel, st)
    return st is not None and stat.S_ISDIR(st.st_mode)


def _add_definitions(scan: _Scan, root: Path, rel: str) -> None:
    """The ``*.md`` files of a gates or playbooks folder (a linked folder counts as the link)."""
    if not _is_folder(scan, root, rel):
        return
    with os.scandir(root / rel) as listing:
        found = sorted((e.name, e.stat(follow_symlinks=False)) for e in listing
                       if e.name.endswith(DEFINITION_SUFFIX) and not e.name.startswith("."))
    for name, entry in found:
        _add(scan, f"{rel}/{name}", entry)


def _add_tree(scan: _Scan, root: Path, rel: str, depth: int) -> None:
    """Every entry below ``rel``, folders entered (never through a link)."""
    if not _is_folder(scan, root, rel):
        return
    if depth > MAX_DEPTH:
        scan.problems.append(f"{rel} is nested over {MAX_DEPTH} folders deep")
        return
    with os.scandir(root / rel) as listing:
        found = sorted((e.name, e.stat(follow_symlinks=False)) for e in listing)
    for name, entry in found:
        if len(scan.entries) >= MAX_FILES:
            _add(scan, f"{rel}/{name}", entry)
            return
        if stat.S_ISDIR(entry.st_mode):
            _add_tree(scan, root, f"{rel}/{name}", depth + 1)
        else:
            _add(scan, f"{rel}/{name}", entry)


def _read(root: Path, scan: _Scan) -> Settings:
    """Digest every candidate file the scan found (only committed gates and playbooks in a git work tree)."""
    problems = list(scan.problems)
    definitions = any(_is_definition(rel) for rel, _ in scan.entries)
    committed = _committed(root) if scan.git_id is not None and definitions else None
    files: list[tuple[str, str]] = []
    config_text = None
    if not problems:
        for rel, st in scan.entries:
            if committed is not None and _is_definition(rel) and rel not in committed:
                continue
            try:
                digest, data = _digest(root, rel, st)
            except StateDirUnsafe as exc:
                problems.append(f"{exc.path} {exc.problem}")
                continue
            except StateFileTooBig:
                problems.append(f"{rel} is over {MAX_FILE_BYTES:,} bytes")
                continue
            except OSError as exc:
                problems.append(f"{rel} cannot be read ({exc.strerror or type(exc).__name__})")
                continue
            files.append((rel, digest))
            if rel == CONFIG_FILE and data is not None and len(data) <= MAX_KEPT_CONFIG_BYTES:
                config_text = data.decode("utf-8", "replace")
    return Settings((scan.root_id, scan.git_id), tuple(sorted(files)), tuple(problems), config_text)


def _is_definition(rel: str) -> bool:
    return any(rel == folder or rel.startswith(folder + "/") for folder in (GATES_DIR, PLAYBOOKS_DIR))


def _committed(root: Path) -> set[str] | None:
    """The gates and playbooks in git's index, or ``None`` when git cannot tell (then every one counts)."""
    try:
        done = run_git(["ls-files", "-z", "--", GATES_DIR, PLAYBOOKS_DIR], root, options=("--literal-pathspecs",),
                       timeout=GIT_TIMEOUT_SECONDS)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return {name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name}


def _digest(root: Path, rel: str, st: os.stat_result) -> tuple[str, bytes | None]:
    """The digest of one entry (:func:`~ljtui.core.trust_digests.digest_of`), and its bytes when it is a regular
    file.

    Raises:
        StateDirUnsafe: a folder on the way became a link since the scan.
        StateFileTooBig: the file grew over the bound since the scan.
        OSError: it could not be read.
    """
    if stat.S_ISLNK(st.st_mode):
        return hashed(b"link", os.fsencode(os.readlink(root / rel))), None
    if not stat.S_ISREG(st.st_mode):
        return hashed(b"kind", str(stat.S_IFMT(st.st_mode)).encode("ascii")), None
    if rel == MCP_FILE:
        data = read_regular(os.open(root / rel, _NOFOLLOW_READ), MAX_FILE_BYTES + 1)
    elif rel.startswith(CLAUDE_DIR + "/"):
        data = _read_below(root, rel)
    else:
        data = read_state_bytes(root, *rel.split("/")[1:], limit=MAX_FILE_BYTES)
    if len(data) > MAX_FILE_BYTES:
        raise StateFileTooBig(f"over {MAX_FILE_BYTES:,} bytes")
    return digest_of(rel, data), data


def _read_below(root: Path, rel: str) -> bytes:
    """At most :data:`MAX_FILE_BYTES` + 1 bytes of ``root/rel``, every folder on the way opened without following a
    link (a link raises ``OSError``)."""
    *folders, name = rel.split("/")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for folder in folders:
            inner = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = inner
        return read_regular(os.open(name, _NOFOLLOW_READ, dir_fd=fd), MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
