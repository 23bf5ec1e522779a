"""A transaction's manifest: its model, its serialised form and its strict loader.

The manifest lives in the repository (``.agent/journal/…/manifest.json``),
so when it is read back it is untrusted input: :func:`parse_manifest`
accepts exactly the shape ljtui writes and nothing else: every field's
type, no unknown keys, the version, the id of its folder, a known kind,
hex digests, modes, blob names, and every path under the same rules as plan
paths, with each temp name exactly the one the transaction would generate.
Anything else raises :class:`ManifestInvalid` with the reason.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePosixPath
from typing import Any

from ljtui.core.edits.durable import fsync_dir, write_durable
from ljtui.core.edits.paths import check_spelling, is_canonical

MANIFEST_VERSION = 2
"""Version 2 names temp files ``.ljtui-<id>-<n>.tmp``."""
LEGACY_VERSION = 1
"""Version 1 named them ``.<name>.<id>.ljtui-tmp``; still read, so an upgrade keeps undo and recovery."""
KNOWN_VERSIONS = (LEGACY_VERSION, MANIFEST_VERSION)
KINDS = ("apply", "undo")
BLOBS = "blobs"
TEMP_PREFIX = ".ljtui-"
TEMP_SUFFIX = ".tmp"
LEGACY_TEMP_SUFFIX = ".ljtui-tmp"
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""Transaction ids and groups: short, safe inside a file name."""
SHA256_PATTERN = re.compile(r"[0-9a-f]{64}")
MAX_MODE = 0o7777
MANIFEST = "manifest.json"
MANIFEST_TEMP = ".manifest.json.tmp"
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
"""Larger than any real manifest (about 300 bytes per file); a bigger one is refused unread."""
FOLDER_PREFIXES = ("tx-", "last-")
"""Journal folders that hold a manifest: ``tx-<id>`` (unfinished) and ``last-<id>`` (kept for undo)."""
MANIFEST_KEYS = frozenset({"version", "id", "group", "created", "kind", "entries", "files"})
OPTIONAL_MANIFEST_KEYS = frozenset({"sequence"})
"""Keys older manifests lack: ``sequence`` (a manifest without one sorts before every manifest with one)."""
MAX_SEQUENCE = 2**53
"""Larger than any sequence number a journal reaches; a bigger one is refused."""


class ManifestInvalid(ValueError):
    """A manifest (or its folder) is not exactly what ljtui writes; the reason is the message."""


@dataclass
class FileRecord:
    """One target in a manifest (paths repo-relative, POSIX)."""

    path: str
    existed: bool
    mode: int | None
    before_sha256: str | None
    after_sha256: str | None
    blob: str | None
    temp: str
    created_dirs: list[str] = field(default_factory=list)


RECORD_KEYS = frozenset(f.name for f in fields(FileRecord))


def blob_name(n: int) -> str:
    """The snapshot of the ``n``-th record, relative to its journal folder."""
    return f"{BLOBS}/{n}"


def temp_name(path: str, tx_id: str, n: int, version: int = MANIFEST_VERSION) -> str:
    """The temp file the transaction writes for record ``n`` of ``path``, next to it.

    Version 2 names stay short whatever the target's name, so they always fit
    the file-name limit (255 bytes on common filesystems).
    """
    pure = PurePosixPath(path)
    name = f".{pure.name}.{tx_id}{LEGACY_TEMP_SUFFIX}" if version == LEGACY_VERSION else \
        f"{TEMP_PREFIX}{tx_id}-{n}{TEMP_SUFFIX}"
    return (pure.parent / name).as_posix()


@dataclass
class Manifest:
    """What a transaction is about to do, enough to undo it after a crash."""

    id: str
    created: float
    kind: str
    files: list[FileRecord]
    entries: list[str] = field(default_factory=list)
    group: str = ""
    """Transactions of one plan (its chunks) share a group; undo reverts the whole group."""
    version: int = MANIFEST_VERSION
    sequence: int | None = None
    """Where the transaction stands in its repository's journal: one more than the highest there when it
    started (under the journal lock), so transactions are ordered whatever the clock says. ``None`` in
    manifests written before the field existed."""

    def to_json(self) -> bytes:
        """Serialised form."""
        data: dict[str, Any] = {"version": self.version, "id": self.id, "group": self.group or self.id,
                                "created": self.created, "kind": self.kind, "entries": self.entries,
                                "files": [vars(f) for f in self.files]}
        if self.sequence is not None:
            data["sequence"] = self.sequence
        return json.dumps(data, indent=1).encode("utf-8")

    def order(self) -> tuple[int, float | int, str]:
        """The key that sorts manifests oldest first: by sequence; those without one (older ljtui) before all
        others, by time then id."""
        if self.sequence is None:
            return (0, self.created, self.id)
        return (1, self.sequence, self.id)

    @classmethod
    def load(cls, directory: Path) -> Manifest:
        """Read and check ``directory/manifest.json`` (see :func:`read_manifest`)."""
        return read_manifest(directory)

    def save(self, directory: Path) -> None:
        """Write the manifest durably (temp + fsync + rename + dir fsync)."""
        temp = directory / MANIFEST_TEMP
        write_durable(temp, self.to_json())
        os.replace(temp, directory / MANIFEST)
        fsync_dir(directory)


def folder_id(directory: Path) -> str:
    """The transaction id a journal folder's name carries.

    Raises:
        ManifestInvalid: The name is not ``tx-<id>`` or ``last-<id>``.
    """
    for prefix in FOLDER_PREFIXES:
        if directory.name.startswith(prefix) and ID_PATTERN.fullmatch(directory.name[len(prefix):]):
            return directory.name[len(prefix):]
    raise ManifestInvalid(f"{directory.name} is not the name of a journal folder")


def read_manifest(directory: Path) -> Manifest:
    """Read ``directory/manifest.json`` without following symlinks and check it strictly.

    Raises:
        ManifestInvalid: The file is missing, a link, not a regular file, too
            large, or its content is not exactly what ljtui writes.
    """
    try:
        fd = os.open(directory / MANIFEST, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ManifestInvalid("manifest.json is a symbolic link") from exc
        raise ManifestInvalid(f"manifest.json cannot be opened ({exc.strerror})") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ManifestInvalid("manifest.json is not a regular file")
        if st.st_size > MAX_MANIFEST_BYTES:
            raise ManifestInvalid(f"manifest.json is {st.st_size} bytes, more than any manifest ljtui writes")
        with os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read(MAX_MANIFEST_BYTES + 1)
    finally:
        os.close(fd)
    return parse_manifest(raw, folder_id(directory))


def parse_manifest(raw: bytes, folder_id: str) -> Manifest:
    """The manifest in ``raw``, read from the journal folder of transaction ``folder_id``.

    Raises:
        ManifestInvalid: Anything in ``raw`` is not exactly what ljtui writes.
    """
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise ManifestInvalid(f"manifest.json is not valid JSON ({type(exc).__name__})") from exc
    _keys(data, MANIFEST_KEYS, "the manifest", optional=OPTIONAL_MANIFEST_KEYS)
    version = _int(data["version"], "version")
    if version not in KNOWN_VERSIONS:
        raise ManifestInvalid(f"version {version} is not one ljtui knows ({', '.join(map(str, KNOWN_VERSIONS))})")
    tx_id = _ident(data["id"], "id")
    if tx_id != folder_id:
        raise ManifestInvalid(f"id {tx_id!r} does not match its folder's id {folder_id!r}")
    created = _seconds(data["created"])
    if data["kind"] not in KINDS:
        raise ManifestInvalid(f"kind {data['kind']!r} is not one of {', '.join(KINDS)}")
    entries = data["entries"]
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise ManifestInvalid("entries is not a list of strings")
    if not isinstance(data["files"], list):
        raise ManifestInvalid("files is not a list")
    records = [_record(item, n, tx_id, version) for n, item in enumerate(data["files"])]
    seen: set[str] = set()
    for n, record in enumerate(records):
        if record.path in seen:
            raise ManifestInvalid(f"files[{n}].path {record.path!r} appears twice")
        seen.add(record.path)
    sequence = data.get("sequence")
    if sequence is not None and not 0 < _int(sequence, "sequence") <= MAX_SEQUENCE:
        raise ManifestInvalid(f"sequence {sequence!r} is not a positive sequence number")
    return Manifest(tx_id, created, data["kind"], records, list(entries), _ident(data["group"], "group"),
                    version, sequence)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _keys(data: Any, expected: frozenset[str], what: str, optional: frozenset[str] = frozenset()) -> None:
    if not isinstance(data, dict):
        raise ManifestInvalid(f"{what} is not an object")
    unknown, missing = sorted(set(data) - expected - optional), sorted(expected - set(data))
    if unknown:
        raise ManifestInvalid(f"{what} has unknown keys: {', '.join(map(repr, unknown))}")
    if missing:
        raise ManifestInvalid(f"{what} lacks keys: {', '.join(missing)}")


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ManifestInvalid(f"{where} {value!r} is not an integer")
    return value


def _seconds(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ManifestInvalid(f"created {value!r} is not a time in seconds")
    try:
        seconds = float(value)
    except OverflowError as exc:
        raise ManifestInvalid("created is not a time in seconds (too large)") from exc
    if not math.isfinite(seconds) or seconds < 0:
        raise ManifestInvalid(f"created {value!r} is not a time in seconds")
    return seconds


def _ident(value: Any, where: str) -> str:
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise ManifestInvalid(f"{where} {value!r} is not a transaction id (letters, digits, _ and -)")
    return value


def _digest(value: Any, where: str) -> str | None:
    if value is not None and not (isinstance(value, str) and SHA256_PATTERN.fullmatch(value)):
        raise ManifestInvalid(f"{where} {value!r} is neither null nor a sha256 in lowercase hex")
    return value


def _path(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ManifestInvalid(f"{where} {value!r} is not a string")
    refused = check_spelling(value)
    if refused is not None:
        raise ManifestInvalid(f"{where} {value!r} is refused: {refused.message}")
    if not is_canonical(value):
        raise ManifestInvalid(f"{where} {value!r} is not in canonical form")
    return value


def _record(item: Any, n: int, tx_id: str, version: int) -> FileRecord:
    where = f"files[{n}]"
    _keys(item, RECORD_KEYS, where)
    path = _path(item["path"], f"{where}.path")
    existed = item["existed"]
    if not isinstance(existed, bool):
        raise ManifestInvalid(f"{where}.existed {existed!r} is not true or false")
    mode = item["mode"]
    if mode is not None and not 0 <= _int(mode, f"{where}.mode") <= MAX_MODE:
        raise ManifestInvalid(f"{where}.mode {mode!r} is not a file mode (0 to 0o7777)")
    before = _digest(item["before_sha256"], f"{where}.before_sha256")
    after = _digest(item["after_sha256"], f"{where}.after_sha256")
    blob = item["blob"]
    if existed and (blob != blob_name(n) or before is None or mode is None):
        raise ManifestInvalid(f"{where} existed, so it needs blob {blob_name(n)!r}, a before_sha256 and a mode")
    if not existed and (blob is not None or before is not None or mode is not None):
        raise ManifestInvalid(f"{where} did not exist, so its blob, before_sha256 and mode must be null")
    if item["temp"] != temp_name(path, tx_id, n, version):
        raise ManifestInvalid(f"{where}.temp {item['temp']!r} is not {temp_name(path, tx_id, n, version)!r}, "
                              "the temp name of this record")
    return FileRecord(path, existed, mode, before, after, blob, item["temp"],
                      _created_dirs(item["created_dirs"], path, where))


def _created_dirs(value: Any, path: str, where: str) -> list[str]:
    """Created folders must be the deepest ancestors of ``path``, shallowest first."""
    if not isinstance(value, list) or not all(isinstance(d, str) for d in value):
        raise ManifestInvalid(f"{where}.created_dirs is not a list of strings")
    ancestors = [p.as_posix() for p in reversed(PurePosixPath(path).parents) if p.as_posix() != "."]
    if len(value) > len(ancestors) or (value and value != ancestors[-len(value):]):
        raise ManifestInvalid(f"{where}.created_dirs {value!r} are not the innermost folders of {path!r}")
    return list(value)
