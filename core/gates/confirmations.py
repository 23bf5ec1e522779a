"""The user's confirmations of gates (GATE-3): recorded in the user's state dir, never in the repository.

A gate file says ``confirmed_by_user``, but the file is committed with the
repository, so that word means nothing. What counts is this record,
``gate-confirmations.json`` in the user's state dir, keyed by the
repository's real path (as the trust list is) and the gate id, and bound to
:func:`definition_hash` — a SHA-256 over the gate's items (id, description,
command, required), the level the user confirmed and the factors. A changed
command, item or factor no longer matches, so the gate needs confirming
again. The level confirmed stays the gate's level while its items and
factors are the ones confirmed: the gate's record (its passes, failures and
reworks) moves only the level the risk formula proposes, which the user
adopts by confirming the gate again (GATE-3: a level change needs
reconfirmation).

The file is kept as :class:`~ljtui.core.user_records.UserRecords` (read
defensively, written atomically under a lock): anything malformed counts as
"not confirmed" and is reported in :attr:`ConfirmationStore.warnings`.
"""

from __future__ import annotations

import hashlib
import json
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from ljtui.core.gates.model import Gate, Level, gate_risk
from ljtui.core.ids import is_valid_id
from ljtui.core.user_records import Partly, RecordsBacked, UserRecords
from ljtui.core.userdirs import user_state_dir

CONFIRMATIONS_FILE = "gate-confirmations.json"
"""The user's confirmations, in the user's state dir."""
CONFIRMATIONS_VERSION = 1
MAX_CONFIRMATIONS_FILE_BYTES = 4 * 1024 * 1024
"""A confirmations file larger than this is treated as damaged."""
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
LEVELS: tuple[Level, ...] = (0, 1, 2, 3)
"""The levels a confirmation may have been given at."""


def canonical_definition(gate: Gate, level: Level | None = None) -> dict[str, Any]:
    """What a confirmation covers: the items, the level confirmed (default: the one the risk formula gives now,
    never the file's) and the factors."""
    factors = gate.factors
    return {
        "items": [{"id": i.id, "description": i.description, "command": i.command, "required": i.required}
                  for i in gate.items],
        "level": gate_risk(gate).level if level is None else level,
        "factors": {"change_surface": factors.change_surface, "chain_length": factors.chain_length,
                    "cognitive_density": factors.cognitive_density,
                    "objectively_verifiable": factors.objectively_verifiable, "irreversible": factors.irreversible},
    }


def definition_hash(gate: Gate, level: Level | None = None) -> str:
    """The SHA-256 (hex) of the canonical JSON of :func:`canonical_definition`."""
    text = json.dumps(canonical_definition(gate, level), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
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


class ConfirmationStore(RecordsBacked):
    """The user's gate confirmations, for every repository."""

    def __init__(self, path: Path) -> None:
        self.records = UserRecords(path, version=CONFIRMATIONS_VERSION, what="confirmation list",
                                   when_damaged="no gate counts as confirmed", clean=_gates,
                                   max_bytes=MAX_CONFIRMATIONS_FILE_BYTES)


    @classmethod
    def for_env(cls, env: Mapping[str, str] | None = None) -> ConfirmationStore:
        """The confirmations in the user's state dir."""
        return cls(user_state_dir(env) / CONFIRMATIONS_FILE)


    def get(self, root: Path, gate_id: str) -> Confirmation | None:
        """The recorded confirmation of ``gate_id`` in the repository at ``root``, if any."""
        entry = self.records.load().get(self.key(root), {}).get(gate_id)
        return Confirmation(gate_id, entry["definition"], entry["at"]) if entry else None

    def confirmed_level(self, root: Path, gate: Gate) -> Level | None:
        """The level the user confirmed ``gate`` at, while its items and factors are the ones confirmed; ``None``
        when the user has not confirmed the gate as it is now."""
        found = self.get(root, gate.id)
        if found is None:
            return None
        return next((level for level in LEVELS if definition_hash(gate, level) == found.definition), None)

    def is_confirmed(self, root: Path, gate: Gate) -> bool:
        """Whether the user confirmed this gate's items and factors as they are now (at :meth:`confirmed_level`)."""
        return self.confirmed_level(root, gate) is not None

    def confirm(self, root: Path, gate: Gate, now: float, level: Level | None = None) -> Confirmation:
        """Record that the user confirmed ``gate`` as it is now, at ``level`` (default: the one the risk formula
        gives now).

        Raises:
            ConfirmationError: The record could not be written.
        """
        record = Confirmation(gate.id, definition_hash(gate, level), now)
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
        try:
            with self.records.editing() as entries:
                yield entries
        except OSError as exc:
            raise ConfirmationError(f"cannot record the confirmation in {self.path}: {exc.strerror or exc}") from None


def _gates(_: str, gates: Any) -> Partly | None:
    if not isinstance(gates, dict):
        return None
    valid = {gid: {"definition": e["definition"], "at": e["at"]} for gid, e in gates.items() if _valid_entry(gid, e)}
    return Partly(valid, len(gates) - len(valid))


def _valid_entry(gate_id: Any, entry: Any) -> bool:
    return (is_valid_id(gate_id) and isinstance(entry, dict)
            and isinstance(entry.get("definition"), str) and _SHA256_HEX.fullmatch(entry["definition"]) is not None
            and isinstance(entry.get("at"), (int, float)) and not isinstance(entry.get("at"), bool))
