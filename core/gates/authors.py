"""Whose gate a gate file is (GATE-3): the user's own, or one that came with the repository.

A gate's commands run without the repository being trusted only when the
gate is the user's own, and that is known in one of two ways:

* ljtui wrote it for this user: every gate written through the gate
  service (proposed or redefined in this user's session) is recorded in
  the user's state dir (``gate-authors.json``, keyed by the repository's
  real path and the gate id) with a SHA-256 of its checks (ids and
  commands). A file whose checks are no longer what ljtui wrote does not
  count: the commands are what runs;
* git says positively that the file is not tracked (``git ls-files``
  lists nothing for it in a work tree git can read).

Anything else needs trust: a gate file in a folder git does not know (an
unpacked archive), a git that cannot run or fails, a tracked gate file
ljtui did not write for this user. The record is read like any
:class:`~ljtui.core.user_records.UserRecords` file: anything malformed
counts as "not written by ljtui".
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from ljtui.core.gates.model import Gate
from ljtui.core.git import run_git
from ljtui.core.ids import is_valid_id
from ljtui.core.user_records import Partly, RecordsBacked, UserRecords
from ljtui.core.userdirs import user_state_dir

if TYPE_CHECKING:
    from ljtui.core.ports import EventSink

AUTHORS_FILE = "gate-authors.json"
"""The gates ljtui wrote for the user, in the user's state dir."""
AUTHORS_VERSION = 1
MAX_AUTHORS_FILE_BYTES = 4 * 1024 * 1024
"""A larger record is treated as damaged."""
MAX_GATES_PER_REPO = 500
"""Gates remembered per repository; the oldest are forgotten first."""
GIT_TIMEOUT_S = 10.0
"""Bound on asking git whether a gate file is tracked."""
GATE_FILE = ".agent/gates/{gate_id}.md"
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def checks_hash(gate: Gate) -> str:
    """The SHA-256 (hex) of the gate's checks: each item's id and command, in order."""
    text = json.dumps([[item.id, item.command] for item in gate.items], separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class GateAuthors(RecordsBacked):
    """The gates ljtui wrote for this user, per repository."""

    def __init__(self, path: Path) -> None:
        self.records = UserRecords(path, version=AUTHORS_VERSION, what="list of the gates ljtui wrote for you",
                                   when_damaged="no gate file counts as written by ljtui for you", clean=_gates,
                                   max_bytes=MAX_AUTHORS_FILE_BYTES)

    @classmethod
    def for_env(cls, env: Mapping[str, str] | None = None) -> GateAuthors:
        """The record in the user's state dir."""
        return cls(user_state_dir(env) / AUTHORS_FILE)

    def wrote(self, root: Path, gate: Gate) -> bool:
        """Whether ljtui wrote ``gate`` at ``root`` for this user, with the checks it has now."""
        entry = self.records.load().get(self.key(root), {}).get(gate.id)
        return entry is not None and entry["checks"] == checks_hash(gate)

    def record(self, root: Path, gate: Gate, now: float) -> None:
        """Remember that ljtui wrote ``gate`` (as it is now) at ``root`` for this user.

        Raises:
            OSError: the record could not be written.
        """
        with self.records.editing() as repos:
            gates = repos.setdefault(self.key(root), {})
            gates[gate.id] = {"checks": checks_hash(gate), "at": now}
            for old in sorted(gates, key=lambda gid: gates[gid]["at"])[:max(0, len(gates) - MAX_GATES_PER_REPO)]:
                del gates[old]


def untracked(root: Path, gate_id: str) -> bool:
    """Whether git says positively that the gate's file is not tracked (False when git cannot tell)."""
    try:
        done = run_git(["ls-files", "-z", "--", GATE_FILE.format(gate_id=gate_id)], root,
                       options=("--literal-pathspecs",), timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and not done.stdout


def users_own(root: Path, gate: Gate, env: Mapping[str, str] | None = None) -> bool:
    """Whether ``gate`` is the user's own: ljtui wrote it for them, or git says its file is untracked."""
    return GateAuthors.for_env(env).wrote(root, gate) or untracked(root, gate.id)


def _gates(_: str, gates: Any) -> Partly | None:
    if not isinstance(gates, dict):
        return None
    valid = {gid: {"checks": e["checks"], "at": e["at"]} for gid, e in gates.items() if _valid_entry(gid, e)}
    return Partly(valid, len(gates) - len(valid))


def _valid_entry(gate_id: Any, entry: Any) -> bool:
    return (is_valid_id(gate_id) and isinstance(entry, dict)
            and isinstance(entry.get("checks"), str) and _SHA256_HEX.fullmatch(entry["checks"]) is not None
            and isinstance(entry.get("at"), (int, float)) and not isinstance(entry.get("at"), bool))


def record_author(env: Mapping[str, str] | None, root: Path, gate: Gate, now: float, sink: EventSink) -> None:
    """Remember in the user's state dir that ljtui wrote ``gate`` for them at ``root``; say so in a notice when it
    cannot (its commands then run outside git only in a trusted repository)."""
    from ljtui.core.events import Notice

    authors = GateAuthors.for_env(env)
    try:
        authors.record(root, gate, now)
    except OSError as exc:
        sink.emit(Notice(f"Gate {gate.id} was written, but {authors.path} could not record that ljtui wrote it for "
                         f"you ({exc.strerror or exc}): outside git its commands run only in a trusted repository.",
                         "warning"))
