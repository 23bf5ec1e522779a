"""A gate's run, kept beside its staging tree in ``.agent/workspace/<run-id>/run.json``.

A run is one attempt at delivering gated work: which gate, who started it,
the evidence the engine recorded, the refused deliveries and how it ended.
It outlives the process (``ljtui gates deliver ID`` tries again later), so
it is read back like any file a repository could have committed: bounded,
every field checked, a bad file a clear :class:`RunFileError`.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ljtui.core.gates.model import Evidence
from ljtui.core.ids import is_valid_id
from ljtui.core.user_records import RecordsBacked, UserRecords
from ljtui.core.userdirs import user_state_dir
from ljtui.core.statedir import (
    StateDirUnsafe, StateFileTooBig, read_state_bytes, replace_state_file, state_dir,
)

WORKSPACE_DIR = "workspace"
RUN_FILE = "run.json"
FORMAT = "ljtui-gate-run"
VERSION = 1
MAX_RUN_BYTES = 16 * 1024 * 1024
"""Largest run file read back (2,000 evidence records with their output summaries fit)."""
MAX_EVIDENCE = 2_000
"""Evidence records kept per run (the oldest go first)."""
RUN_ID_HEX = 12
OWNERS_FILE = "gate-runs.json"
"""The runs each user started, in their state dir."""
OWNERS_VERSION = 1
MAX_OWNED_RUNS = 1_000
"""Run ids kept per repository (the oldest forgotten first)."""
OUTCOMES = ("", "pass", "fail", "exempt")
BREAKER_DECISIONS = ("", "deliver", "keep")


class RunFileError(Exception):
    """A run file that cannot be used; the message names the file and what is wrong."""


@dataclass
class GateRun:
    """One run of a gate.

    Attributes:
        staged: writes land in the staging tree (level ≥ 2 when started).
        evidence: every check recorded, oldest first.
        bounces: refused deliveries.
        outcome: ``""`` while open, then ``pass``, ``fail`` or ``exempt``.
        breaker: the user's decision when the breaker opened.
        error: the guard's own failure, when it had one.
        delivered: the run is over: its staged change was delivered or thrown away, or it staged nothing and
            ended.
        verifier: the independent verifier's agent id, once one checked an item.
        in_layer: its writes are held in the session's copy-on-write layer at the repository's own path (no
            staging tree): its checks run there and its delivery is the layer's apply.
    """

    gate_id: str
    run_id: str
    started_at: float
    starter: str
    level: int
    staged: bool
    evidence: list[Evidence] = field(default_factory=list)
    bounces: int = 0
    outcome: str = ""
    breaker: str = ""
    error: str = ""
    delivered: bool = False
    verifier: str = ""
    in_layer: bool = False

    def add(self, evidence: Evidence) -> None:
        """Record ``evidence``, dropping the oldest past :data:`MAX_EVIDENCE`."""
        self.evidence.append(evidence)
        del self.evidence[:-MAX_EVIDENCE]


def new_run_id() -> str:
    """A fresh run id (safe as a folder name)."""
    return secrets.token_hex(RUN_ID_HEX // 2)


def valid_run_id(value: object) -> bool:
    """Whether ``value`` could be a run id ljtui made (never a path)."""
    return isinstance(value, str) and len(value) == RUN_ID_HEX and all(c in "0123456789abcdef" for c in value)


def save_run(root: Path, run: GateRun) -> None:
    """Write ``run`` whole (atomically).

    Raises:
        StateDirUnsafe, OSError: it could not be written.
    """
    data = {"format": FORMAT, "version": VERSION, **asdict(run)}
    replace_state_file(root, WORKSPACE_DIR, run.run_id, RUN_FILE,
                       data=json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())


def load_run(root: Path, run_id: str) -> GateRun:
    """The run ``run_id``, checked.

    Raises:
        RunFileError: missing, unreadable, or any field out of shape.
    """
    shown = f".agent/{WORKSPACE_DIR}/{run_id}/{RUN_FILE}"
    if not valid_run_id(run_id):
        raise RunFileError(f"{run_id[:40]!r} is not a run id")
    try:
        raw = read_state_bytes(root, WORKSPACE_DIR, run_id, RUN_FILE, limit=MAX_RUN_BYTES)
        data = json.loads(raw)
    except FileNotFoundError:
        raise RunFileError(f"{shown} does not exist") from None
    except (StateDirUnsafe, StateFileTooBig) as exc:
        raise RunFileError(str(exc)) from None
    except OSError as exc:
        raise RunFileError(f"cannot read {shown}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise RunFileError(f"{shown} is not valid JSON ({type(exc).__name__})") from None
    return _run_of(data, run_id, shown)


def list_runs(root: Path, env: Mapping[str, str] | None = None) -> tuple[list[GateRun], list[str]]:
    """Every run this user started in the repository, newest first, and a sentence per run that is unusable
    or that the user did not start (a repository may bring its own ``.agent/workspace``)."""
    try:
        folder = state_dir(root, WORKSPACE_DIR, create=False)
        names = sorted(os.listdir(folder)) if folder.is_dir() else []
    except (OSError, StateDirUnsafe) as exc:
        return [], [f"the gate runs cannot be listed: {getattr(exc, 'message', None) or exc}"]
    runs, problems = [], []
    owned = RunOwners.for_env(env).owned(root) if any(valid_run_id(n) for n in names) else frozenset()
    for name in names:
        if not valid_run_id(name):
            continue
        if name not in owned:
            problems.append(f".agent/{WORKSPACE_DIR}/{name} was not started by you here; it is left alone")
            continue
        try:
            runs.append(load_run(root, name))
        except RunFileError as exc:
            problems.append(str(exc))
    runs.sort(key=lambda r: r.started_at, reverse=True)
    return runs, problems


class RunOwners(RecordsBacked):
    """The gate runs this user started, per repository, kept in the user's state dir.

    A repository can commit ``.agent/workspace/`` with a run and a staging
    tree of its own: only runs recorded here are picked up again, delivered
    or discarded.
    """

    def __init__(self, path: Path) -> None:
        self.records = UserRecords(path, version=OWNERS_VERSION, what="gate run list",
                                   when_damaged="no gate run counts as yours", clean=_run_ids)

    @classmethod
    def for_env(cls, env: Mapping[str, str] | None = None) -> RunOwners:
        """The record in the user's state dir."""
        return cls(user_state_dir(env) / OWNERS_FILE)

    def owned(self, root: Path) -> frozenset[str]:
        """Ids of the gate runs this user started in the repository at ``root``."""
        return frozenset(self.records.load().get(UserRecords.key(root), ()))

    def record(self, root: Path, run_id: str) -> None:
        """Remember that this user started ``run_id`` at ``root`` (raises ``OSError`` when it cannot)."""
        with self.records.editing() as repos:
            repos[UserRecords.key(root)] = sorted({*repos.get(UserRecords.key(root), ()), run_id})[-MAX_OWNED_RUNS:]


def _run_ids(_: str, ids: Any) -> list[str] | None:
    return ids if isinstance(ids, list) and all(valid_run_id(i) for i in ids) else None


def _run_of(data: Any, run_id: str, shown: str) -> GateRun:
    def bad(name: str, what: str) -> RunFileError:
        return RunFileError(f"{shown}: field '{name}' {what}")

    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        raise RunFileError(f"{shown} is not a ljtui gate run (format {FORMAT} version {VERSION})")

    def get(name: str, kinds: tuple[type, ...], what: str) -> Any:
        value = data.get(name)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            raise bad(name, f"must be {what}")
        return value

    if get("run_id", (str,), "text") != run_id:
        raise bad("run_id", f"does not match the folder {run_id}")
    gate_id = get("gate_id", (str,), "text")
    if not is_valid_id(gate_id):
        raise bad("gate_id", "is not a gate id")
    outcome, breaker = get("outcome", (str,), "text"), get("breaker", (str,), "text")
    if outcome not in OUTCOMES:
        raise bad("outcome", f"must be one of {OUTCOMES}")
    if breaker not in BREAKER_DECISIONS:
        raise bad("breaker", f"must be one of {BREAKER_DECISIONS}")
    level, bounces = get("level", (int,), "a whole number"), get("bounces", (int,), "a whole number")
    if not 0 <= level <= 3 or bounces < 0:
        raise bad("level" if not 0 <= level <= 3 else "bounces", "is out of range")
    evidence = get("evidence", (list,), "a list")
    return GateRun(
        gate_id, run_id, float(get("started_at", (int, float), "a number")), get("starter", (str,), "text"),
        level, get("staged", (bool,), "true or false"),
        [_evidence_of(e, bad) for e in evidence[-MAX_EVIDENCE:]], bounces, outcome, breaker,
        get("error", (str,), "text"), get("delivered", (bool,), "true or false"),
        get("verifier", (str,), "text"), _in_layer(data, bad),
    )


def _in_layer(data: dict, bad: Any) -> bool:
    """The run's ``in_layer`` (absent in a run written before runs could be held in the layer: ``false``)."""
    value = data.get("in_layer", False)
    if not isinstance(value, bool):
        raise bad("in_layer", "must be true or false")
    return value


def _evidence_of(row: Any, bad: Any) -> Evidence:
    fields = {"item": str, "command": str, "output": str, "content_hash": str, "agent": str, "verifier": str}
    if not isinstance(row, dict):
        raise bad("evidence", "must hold objects")
    for name, kind in fields.items():
        if not isinstance(row.get(name), kind):
            raise bad(f"evidence.{name}", "must be text")
    code, duration, at = row.get("exit_code"), row.get("duration_ms"), row.get("at", 0.0)
    if code is not None and (isinstance(code, bool) or not isinstance(code, int)):
        raise bad("evidence.exit_code", "must be a whole number or null")
    if isinstance(duration, bool) or not isinstance(duration, int) or duration < 0:
        raise bad("evidence.duration_ms", "must be a whole number of milliseconds")
    if isinstance(at, bool) or not isinstance(at, (int, float)):
        raise bad("evidence.at", "must be a number")
    return Evidence(row["item"], row["command"], code, duration, row["output"], row["content_hash"],
                    row["agent"], row["verifier"], float(at))

