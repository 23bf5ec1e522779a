"""The user's confirmations of gates (GATE-3): recorded in the user's state dir, never in the repository.

A gate file says ``confirmed_by_user``, but the file is committed with the
repository, so that word means nothing. What counts is this record,
``gate-confirmations.json`` in the user's state dir, keyed by the
repository's real path (as the trust list is) and the gate id, and bound to
:func:`definition_hash` — a SHA-256 over the gate's items (id, description,
command, required), level and factors. A changed command, item, factor or
level (the level moves with the gate's record too) no longer matches, so
the gate needs confirming again.

The file is the user's, but it is read defensively, like the trust list:
anything malformed counts as "not confirmed" and is reported in
:attr:`ConfirmationStore.warnings`. Writes are atomic (a private temp file,
fsync, rename) with mode 0600, under a lock so two sessions never lose each
other's records.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from ljtui.core.gates.model import Gate, risk
from ljtui.core.ids import is_valid_id
from ljtui.core.trust import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, TrustStore
from ljtui.core.userdirs import user_state_dir

CONFIRMATIONS_FILE = "gate-confirmations.json"
"""The user's confirmations, in the user's state dir."""
CONFIRMATIONS_VERSION = 1
MAX_CONFIRMATIONS_FILE_BYTES = 4 * 1024 * 1024
"""A confirmations file larger than this is treated as damaged."""
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def canonical_definition(gate: Gate) -> dict[str, Any]:
    """What a confirmation covers: the items, the level (from the formula, not the file) and the factors."""
    factors = gate.factors
    return {
        "items": [{"id": i.id, "description": i.description, "command": i.command, "required": i.required}
                  for i in gate.items],
        "level": risk(factors, gate.stats).level,
        "factors": {"change_surface": factors.change_surface, "chain_length": factors.chain_length,
                    "cognitive_density": factors.cognitive_density,
                    "objectively_verifiable": factors.objectively_verifiable, "irreversible": factors.irreversible},
    }


def definition_hash(gate: Gate) -> str:
    """The SHA-256 (hex) of the canonical JSON of :func:`canonical_definition`."""
    text = json.dumps(canonical_definition(gate), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Confirmation:
    """One recorded confirmation: which gate, the definition it covers, when."""

    gate_id: str
    definition: str
    at: float


class ConfirmationError(OSError):
    """The confirmation could not be recorded; ``message`` says where and why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfirmationStore:
    """The user's gate confirmations, for every repository."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warnings: list[str] = []

    @classmethod
    def for_env(cls, env: Mapping[str, str] | None = None) -> ConfirmationStore:
        """The confirmations in the user's state dir."""
        return cls(user_state_dir(env) / CONFIRMATIONS_FILE)

    @staticmethod
    def key(root: Path) -> str:
        """How a repository is recorded: its real path (as in the trust list)."""
        return TrustStore.key(root)

    def get(self, root: Path, gate_id: str) -> Confirmation | None:
        """The recorded confirmation of ``gate_id`` in the repository at ``root``, if any."""
        entry = self._load().get(self.key(root), {}).get(gate_id)
        return Confirmation(gate_id, entry["definition"], entry["at"]) if entry else None

    def is_confirmed(self, root: Path, gate: Gate) -> bool:
        """Whether the user confirmed exactly this gate: same items, level and factors as now."""
        found = self.get(root, gate.id)
        return found is not None and found.definition == definition_hash(gate)

    def confirm(self, root: Path, gate: Gate, now: float) -> Confirmation:
        """Record that the user confirmed ``gate`` as it is now.

        Raises:
            ConfirmationError: The record could not be written.
        """
        record = Confirmation(gate.id, definition_hash(gate), now)
        with self._editing() as entries:
            entries.setdefault(self.key(root), {})[gate.id] = {"definition": record.definition, "at": now}
        return record

    def revoke(self, root: Path, gate_id: str) -> bool:
        """Forget the confirmation of ``gate_id``; False when there was none.

        Raises:
            ConfirmationError: The record could not be written.
        """
        key = self.key(root)
        with self._editing() as entries:
            gates = entries.get(key, {})
            found = gates.pop(gate_id, None) is not None
            if not gates:
                entries.pop(key, None)
        return found

    @contextmanager
    def _editing(self) -> Iterator[dict[str, dict[str, dict[str, Any]]]]:
        """The entries under the file's lock; saved when the block ends without an error."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
            lock = os.open(self.path.with_name(f"{self.path.name}.lock"),
                           os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, PRIVATE_FILE_MODE)
        except OSError as exc:
            raise ConfirmationError(f"cannot record the confirmation in {self.path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            entries = self._load()
            yield entries
            self._save(entries)
        except OSError as exc:
            if isinstance(exc, ConfirmationError):
                raise
            raise ConfirmationError(f"cannot record the confirmation in {self.path}: {exc.strerror or exc}") from None
        finally:
            os.close(lock)

    def _load(self) -> dict[str, dict[str, dict[str, Any]]]:
        self.warnings = []
        try:
            if self.path.stat().st_size > MAX_CONFIRMATIONS_FILE_BYTES:
                return self._damaged("too large")
            data: Any = json.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError) as exc:
            return self._damaged(type(exc).__name__)
        repos = data.get("repositories") if isinstance(data, dict) else None
        if not isinstance(repos, dict) or data.get("version") != CONFIRMATIONS_VERSION:
            return self._damaged(f"not a version {CONFIRMATIONS_VERSION} confirmation list")
        out: dict[str, dict[str, dict[str, Any]]] = {}
        skipped = 0
        for key, gates in repos.items():
            if not (isinstance(key, str) and os.path.isabs(key) and isinstance(gates, dict)):
                skipped += 1
                continue
            valid = {gid: {"definition": e["definition"], "at": e["at"]} for gid, e in gates.items()
                     if _valid_entry(gid, e)}
            skipped += len(gates) - len(valid)
            if valid:
                out[key] = valid
        if skipped:
            self.warnings.append(f"{self.path}: {skipped} malformed entries skipped")
        return out

    def _damaged(self, why: str) -> dict[str, dict[str, dict[str, Any]]]:
        self.warnings.append(f"{self.path} cannot be read ({why}); no gate counts as confirmed")
        return {}

    def _save(self, entries: dict[str, dict[str, dict[str, Any]]]) -> None:
        data = {"version": CONFIRMATIONS_VERSION,
                "repositories": {key: dict(sorted(gates.items())) for key, gates in sorted(entries.items())}}
        fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            os.fchmod(fd, PRIVATE_FILE_MODE)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1)
                fh.write("\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(temp, self.path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise


def _valid_entry(gate_id: Any, entry: Any) -> bool:
    return (is_valid_id(gate_id) and isinstance(entry, dict)
            and isinstance(entry.get("definition"), str) and _SHA256_HEX.fullmatch(entry["definition"]) is not None
            and isinstance(entry.get("at"), (int, float)) and not isinstance(entry.get("at"), bool))
